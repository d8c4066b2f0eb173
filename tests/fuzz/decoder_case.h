// Cases of the MHA decoder and cross-attention families (edgeattn/decoder.h, edgeattn/cross.h):
// a config, the layer's tensors, the arena, then a sequence of calls on the
// plan, each with its own count, NULL pointers, buffers and values. The byte
// layout is one Visit per case, shared with make_seeds.cc (fuzz_case.h).
#ifndef EDGEATTN_TESTS_FUZZ_DECODER_CASE_H_
#define EDGEATTN_TESTS_FUZZ_DECODER_CASE_H_

#include <stddef.h>
#include <stdint.h>

#include "fuzz_case.h"

namespace edgeattn_fuzz {

inline constexpr int kMaxDecoderOps = 10;

// Kinds of a decoder op (DecoderOp::Kind()).
enum DecoderOpKind : uint8_t { kDecoderStep = 0, kDecoderReset = 1, kDecoderReinit = 2 };
// Kinds of a cross op (CrossOp::Kind()).
enum CrossOpKind : uint8_t { kCrossSetMemory = 0, kCrossRun = 1, kCrossReinit = 2 };

// Bits of an op's null_bits: the plan, then its input and output pointers
// (a re-init: its config and its arena).
enum PlanOpNullBit : uint8_t { kOpNullPlan = 1, kOpNullInput = 2, kOpNullOutput = 4 };

// Where an op's output lives (PlanOp::y_mode): its own region, x itself
// (in place), or a Placement (over x partly, the arena, the layer's tensors
// or an earlier op's buffers).
enum OutputPlace : uint8_t { kOutputOwn = 0, kOutputIsInput = 1, kOutputPlaced = 2 };

// One call on a decoder or cross plan.
struct PlanOp {
  uint8_t kind = 0;
  // The count (step's n_tokens, set_memory's n_memory, run's n_queries),
  // resolved against the plan as the documented rules leave it
  // (ResolveOpCount in the drivers): < 128 one the plan takes, < 176 any in
  // [1, the config's maximum], < 192 one past the room left, < 208 one past
  // the maximum, < 224 zero, else length_value.
  uint8_t length_kind = 0;
  int32_t length_value = 0;
  uint8_t null_select = 0;  // >= 232: null_bits apply
  uint8_t null_bits = 0;
  Placement x;               // the input: x or memory
  uint8_t y_mode = 0;        // < 112 own region, < 192 y = x, else y placed
  Placement y;               // y_mode >= 192
  TensorSpec x_values;       // the input's values
  uint8_t reinit_field = 0;  // a re-init: config field set to reinit_value; or no arena left
  int32_t reinit_value = 0;

  uint8_t Nulls() const { return null_select >= 232 ? null_bits : 0; }
  uint8_t OutputMode() const {
    return y_mode < 112 ? kOutputOwn : y_mode < 192 ? kOutputIsInput : kOutputPlaced;
  }
};

// The decoder: ea_decoder_arena_size, _init, then up to kMaxDecoderOps
// steps, resets and broken re-inits, replayed from the start on every target.
struct DecoderCase {
  Common common;  // Nulls(): kNullSizeConfig, kNullSizeBytes, kNullPlan, kNullPlanConfig,
                  // kNullArena, kNullArenaBase, kNullInput1 (in_proj_weight), kNullInput2
                  // (out_proj_weight), kNullWeights (the weights struct); targets
  int32_t n_heads = 2;
  uint8_t kv_kind = 0;  // < 200: the kv_kind-th divisor of n_heads; < 216: 0; else n_kv_heads
  int32_t n_kv_heads = 1;
  uint8_t head_kind = 0;  // < 224: d_model = n_heads * (1 + head_kind % 8); else d_model
  int32_t d_model = 8;
  int32_t max_positions = 8;
  uint8_t tokens_kind = 0;  // < 200: 1 + tokens_kind % 6; else max_tokens
  int32_t max_tokens = 1;
  uint8_t window_kind = 0;  // < 160: none; < 224: 1 + window_kind % 8; else window
  int32_t window = 0;
  int32_t storage = 0, position = 0, rope_layout = 0, weights_layout = 0;
  uint8_t table_kind = 0;  // >= 128: the caller passes a position table (else NULL)
  uint8_t rope_kind = 0;   // >= 128: a RoPE table of base kRopeBases[rope_kind % 8]
  uint8_t alibi_kind = 0;  // < 160 none; < 208 ea_alibi_slopes_fill; else alibi_values
  uint8_t biases = 3;      // bit 0 in_proj_bias, bit 1 out_proj_bias, bit 2 W_Q/W_K/W_V apart
  ArenaSpec arena;
  uint8_t rerun = 0;  // the selected target (rerun % count) replays the ops bit for bit
  TensorSpec table_values, alibi_values;
  TensorSpec w_values[2], b_values[2];  // in_proj, out_proj
  uint8_t op_count = 0;                 // modulo kMaxDecoderOps + 1
  PlanOp ops[kMaxDecoderOps];

  int32_t NKvHeads() const { return ConfigKvHeadsOf(n_heads, kv_kind, n_kv_heads); }
  // The layer's KV heads: NKvHeads, where 0 means n_heads.
  int32_t LayerKvHeads() const { return NKvHeads() == 0 ? n_heads : NKvHeads(); }
  int32_t DModel() const {
    if (head_kind >= 224 || n_heads <= 0 || n_heads > 64) return d_model;
    return n_heads * (1 + head_kind % 8);
  }
  int32_t MaxTokens() const { return tokens_kind < 200 ? 1 + tokens_kind % 6 : max_tokens; }
  int32_t Window() const {
    return window_kind < 160 ? 0 : window_kind < 224 ? 1 + window_kind % 8 : window;
  }
  bool CallerTable() const { return table_kind >= 128; }
  bool Rope() const { return rope_kind >= 128; }
  int OpCount() const { return op_count % (kMaxDecoderOps + 1); }
  uint8_t OpKind(int i) const {
    const uint8_t k = ops[i].kind;
    return k < 160 ? kDecoderStep : k < 208 ? kDecoderReset : kDecoderReinit;
  }
};

inline constexpr float kRopeBases[8] = {10000.0f, 500000.0f, 100.0f, 2.0f, 1e6f, 10.0f, 1.5f, 1e4f};

// Cross-attention: ea_cross_arena_size, _init, then up to kMaxDecoderOps
// set_memory, run and broken re-init calls.
struct CrossCase {
  Common common;  // as DecoderCase
  int32_t n_heads = 2;
  uint8_t kv_kind = 0;  // as DecoderCase (ConfigKvHeadsOf)
  int32_t n_kv_heads = 1;
  uint8_t head_kind = 0;  // as DecoderCase
  int32_t d_model = 8;
  uint8_t memory_kind = 0;  // < 200: 1 + memory_kind % 24 (or 65..88 past 176); else max_memory
  int32_t max_memory = 8;
  uint8_t queries_kind = 0;  // < 200: 1 + queries_kind % 8; else max_queries
  int32_t max_queries = 1;
  int32_t storage = 0, weights_layout = 0;
  uint8_t biases = 3;
  ArenaSpec arena;
  uint8_t rerun = 0;
  TensorSpec w_values[2], b_values[2];
  uint8_t op_count = 0;
  PlanOp ops[kMaxDecoderOps];

  int32_t DModel() const {
    if (head_kind >= 224 || n_heads <= 0 || n_heads > 64) return d_model;
    return n_heads * (1 + head_kind % 8);
  }
  int32_t MaxMemory() const {
    if (memory_kind >= 200) return max_memory;
    return memory_kind < 176 ? 1 + memory_kind % 24 : 65 + memory_kind % 24;
  }
  int32_t MaxQueries() const { return queries_kind < 200 ? 1 + queries_kind % 8 : max_queries; }
  int32_t NKvHeads() const { return ConfigKvHeadsOf(n_heads, kv_kind, n_kv_heads); }
  int32_t LayerKvHeads() const { return NKvHeads() == 0 ? n_heads : NKvHeads(); }
  // in_proj's rows, d_model + 2 n_kv_heads d_head (0 where undefined).
  int64_t InProjRows() const {
    const int64_t e = DModel(), kv = LayerKvHeads();
    if (e <= 0 || n_heads <= 0 || kv <= 0) return 0;
    return e + 2 * kv * (e / n_heads);
  }
  int OpCount() const { return op_count % (kMaxDecoderOps + 1); }
  uint8_t OpKind(int i) const {
    const uint8_t k = ops[i].kind;
    return k < 96 ? kCrossSetMemory : k < 224 ? kCrossRun : kCrossReinit;
  }
};

// Per-element bytes of an op's input: one block of `rows` rows of d_model
// (cyclic past it), so that the layout depends on the config alone.
inline size_t PlanOpElementCount(int64_t rows, int64_t d_model) {
  const size_t count = BoundedCount(rows, d_model);
  return count > 0 ? count : 16;
}

// `reinit`: the op is a re-init; `buffers`: it takes an input and an output.
template <class Io>
void Visit(Io& io, PlanOp& op, bool reinit, bool buffers, size_t element_count) {
  io.U8(op.kind);
  if (reinit) {
    io.U8(op.null_select);
    io.U8(op.null_bits);
    io.U8(op.reinit_field);
    io.I32(op.reinit_value);
    return;
  }
  io.U8(op.length_kind);
  io.I32(op.length_value);
  io.U8(op.null_select);
  io.U8(op.null_bits);
  if (!buffers) return;
  Visit(io, op.x);
  io.U8(op.y_mode);
  if (op.OutputMode() == kOutputPlaced) Visit(io, op.y);
  Visit(io, op.x_values, element_count);
}

// Element counts of the layer's tensors (BoundedCount: 0 when too large).
inline size_t DecoderQkvRows(const DecoderCase& c) {
  const int64_t d_model = c.DModel(), heads = c.n_heads, kv = c.LayerKvHeads();
  if (d_model <= 0 || heads <= 0 || kv <= 0) return 0;
  const int64_t rows = d_model + 2 * kv * (d_model / heads);
  return rows > 0 && rows <= kMaxTensorFloats ? static_cast<size_t>(rows) : 0;
}

template <class Io>
void Visit(Io& io, DecoderCase& c) {
  Visit(io, c.common);
  io.Dim(c.n_heads);
  io.U8(c.kv_kind);
  if (c.kv_kind >= 200) io.Dim(c.n_kv_heads);
  io.U8(c.head_kind);
  if (c.head_kind >= 224) io.Dim(c.d_model);
  io.Dim(c.max_positions);
  io.U8(c.tokens_kind);
  if (c.tokens_kind >= 200) io.Dim(c.max_tokens);
  io.U8(c.window_kind);
  if (c.window_kind >= 224) io.Dim(c.window);
  io.Enum(c.storage, 4);
  io.Enum(c.position, 3);
  io.Enum(c.rope_layout, 2);
  io.Enum(c.weights_layout, 2);
  io.U8(c.table_kind);
  io.U8(c.rope_kind);
  io.U8(c.alibi_kind);
  io.U8(c.biases);
  Visit(io, c.arena);
  io.U8(c.rerun);
  const int64_t e = c.DModel();
  const size_t qkv = DecoderQkvRows(c);
  if (c.CallerTable()) Visit(io, c.table_values, BoundedCount(c.max_positions, e));
  if (c.alibi_kind >= 208) Visit(io, c.alibi_values, BoundedCount(c.n_heads, 1));
  Visit(io, c.w_values[0], BoundedCount(static_cast<int64_t>(qkv), e));
  Visit(io, c.b_values[0], BoundedCount(static_cast<int64_t>(qkv), 1));
  Visit(io, c.w_values[1], BoundedCount(e, e));
  Visit(io, c.b_values[1], BoundedCount(e, 1));
  io.U8(c.op_count);
  const size_t x_count = PlanOpElementCount(c.MaxTokens(), e);
  for (int i = 0; i < c.OpCount(); ++i) {
    Visit(io, c.ops[i], c.OpKind(i) == kDecoderReinit, c.OpKind(i) == kDecoderStep, x_count);
  }
}

template <class Io>
void Visit(Io& io, CrossCase& c) {
  Visit(io, c.common);
  io.Dim(c.n_heads);
  io.U8(c.kv_kind);
  if (c.kv_kind >= 200) io.Dim(c.n_kv_heads);
  io.U8(c.head_kind);
  if (c.head_kind >= 224) io.Dim(c.d_model);
  io.U8(c.memory_kind);
  if (c.memory_kind >= 200) io.Dim(c.max_memory);
  io.U8(c.queries_kind);
  if (c.queries_kind >= 200) io.Dim(c.max_queries);
  io.Enum(c.storage, 4);
  io.Enum(c.weights_layout, 2);
  io.U8(c.biases);
  Visit(io, c.arena);
  io.U8(c.rerun);
  const int64_t e = c.DModel();
  Visit(io, c.w_values[0], BoundedCount(c.InProjRows(), e));
  Visit(io, c.b_values[0], BoundedCount(c.InProjRows(), 1));
  Visit(io, c.w_values[1], BoundedCount(e, e));
  Visit(io, c.b_values[1], BoundedCount(e, 1));
  io.U8(c.op_count);
  for (int i = 0; i < c.OpCount(); ++i) {
    const int64_t rows = c.OpKind(i) == kCrossSetMemory ? c.MaxMemory() : c.MaxQueries();
    Visit(io, c.ops[i], c.OpKind(i) == kCrossReinit, c.OpKind(i) != kCrossReinit,
          PlanOpElementCount(rows, e));
  }
}

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_DECODER_CASE_H_
