// The case of the fixed-point cross-attention family (edgeattn/cross.h,
// kQuantCross, fuzz_quant_cross.cc): a fixed-point MHA layer as the
// fixed-point decoder family builds it (mostly mask NONE and position
// NONE), max_memory, the KV heads, the memory's own quantization, then a
// sequence of set_memory, run and re-init calls. The byte layout is the
// Visit below, shared with make_seeds.cc.
#ifndef EDGEATTN_TESTS_FUZZ_QUANT_CROSS_CASE_H_
#define EDGEATTN_TESTS_FUZZ_QUANT_CROSS_CASE_H_

#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "fuzz_case.h"

namespace edgeattn_fuzz {

// One call on a fixed-point cross-attention.
enum QuantCrossOpKind : uint8_t {
  kQuantCrossSetMemory = 0,   // _set_memory_s8 / _s16 of the layer's dtype
  kQuantCrossWrongSetMemory,  // the other dtype's set_memory
  kQuantCrossRun,             // _run_s8 / _s16 of the layer's dtype
  kQuantCrossWrongRun,        // the other dtype's run
  kQuantCrossReinit           // a broken config (refused), or the good one again (ok)
};

// Bits of QuantCrossOp::null_bits: the cross-attention, the input (memory
// or x; a re-init: the config), y (a re-init: the arena).
enum QuantCrossNullBit : uint8_t { kCrossNullPlan = 1, kCrossNullFirst = 2, kCrossNullSecond = 4 };

struct QuantCrossOp {
  // < 88 set_memory, < 100 the other dtype's set_memory, < 200 run, < 212
  // the other dtype's run, else re-init (Kind()).
  uint8_t kind = 0;
  // The count (set_memory's n_memory against max_memory, run's n_queries
  // against max_queries; fuzz_quant_cross.cc CallCount): < 144 one in
  // [1, the maximum] (x_seed picks it), < 160 0, < 176 -1, < 192 the maximum
  // + 1, < 224 the maximum, else count_value.
  uint8_t count_kind = 0;
  int32_t count_value = 0;
  uint8_t null_select = 0;  // >= 232: null_bits apply
  uint8_t null_bits = 0;
  Placement x, y;            // the input: own region or over the arena, weights, biases;
                             // run's y: those or over x (offset 0: in place)
  uint32_t x_seed = 0;       // the input's values (QuantCommon::x_mode)
  uint8_t reinit_field = 0;  // re-init: BreakOneField's field, or max_memory (% 10 == 8) or
  int32_t reinit_value = 0;  // n_kv_heads (% 10 == 9) set to reinit_value; >= 240: the good
                             // config again

  uint8_t Kind() const {
    return kind < 88    ? kQuantCrossSetMemory
           : kind < 100 ? kQuantCrossWrongSetMemory
           : kind < 200 ? kQuantCrossRun
           : kind < 212 ? kQuantCrossWrongRun
                        : kQuantCrossReinit;
  }
  bool SetsMemory() const {
    return Kind() == kQuantCrossSetMemory || Kind() == kQuantCrossWrongSetMemory;
  }
  uint8_t Nulls() const { return null_select >= 232 ? null_bits : 0; }
};
inline constexpr int kMaxQuantCrossOps = 8;

// The fixed-point cross-attention: ea_cross_quant_arena_size, _derive,
// _init, then up to kMaxQuantCrossOps calls replayed from init on every
// selected target.
struct QuantCrossCase {
  Common common;  // Nulls: size config / bytes, cross (kNullPlan), config (kNullPlanConfig),
                  // arena, arena base, in_proj (kNullInput1), out_proj (kNullWeights), the
                  // weights struct (kNullInput2); targets
  uint8_t dtype_kind = 0;  // QuantDtype
  int32_t dtype_raw = 0;
  uint8_t tokens_kind = 0;  // < 200: max_queries 1 + tokens_kind % 8; else tokens_raw (Dim)
  int32_t tokens_raw = 1;
  int32_t d_model = 1;     // Dim
  uint8_t heads_kind = 0;  // < 200: a divisor of d_model (heads_kind-th); else `heads`
  int32_t heads = 1;
  // < 176: max_memory 1 + memory_kind % 24; < 224: 25 + memory_kind % 48;
  // else memory_raw (I32: 0, negative, 65535, 65536...).
  uint8_t memory_kind = 0;
  int32_t memory_raw = 0;
  uint8_t kv_kind = 0;  // < 96: n_kv_heads 0 (n_heads); < 240: a divisor of heads; else kv_raw
  int32_t kv_raw = 0;
  // Unused since the config is flat (no mask, no positions); still read
  // (the _raw where the _kind >= 232) so that the seeds decode.
  uint8_t mask_kind = 0;
  int32_t mask_raw = 0;
  uint8_t position_kind = 0;
  int32_t position_raw = 0;
  uint8_t scales_kind = 0;  // >= 240: quant_scales NULL
  QuantTensor tensors[kQuantTensors];
  QuantTensor memory_quant;  // nominal: the input's scale
  uint8_t derive_kind = 0;   // >= 128: the case gives the integers ea_cross_quant_derive gave
  QuantCommon quant;         // biases: bit 0 in_proj_bias, bit 1 out_proj_bias; bits 2-3 magnitude.
                             // n_tokens, n_valid, want_weights, wrong_run, x, y, weights unused;
                             // workers too (the flat config has no parallel-for).
  uint8_t op_count = 0;      // modulo kMaxQuantCrossOps + 1
  QuantCrossOp ops[kMaxQuantCrossOps];

  bool ScalesGiven() const { return scales_kind < 240; }
  bool DerivedGiven() const { return derive_kind >= 128; }
  int32_t MaxTokens() const { return tokens_kind < 200 ? 1 + tokens_kind % 8 : tokens_raw; }
  int32_t MaxMemory() const {
    if (memory_kind < 176) return 1 + memory_kind % 24;
    return memory_kind < 224 ? 25 + memory_kind % 48 : memory_raw;
  }
  int32_t KvHeads(int32_t n_heads) const {
    if (kv_kind < 96) return 0;
    if (kv_kind >= 240 || n_heads <= 0 || n_heads > (1 << 16)) return kv_raw;
    std::vector<int32_t> divisors;
    for (int32_t g = 1; g <= n_heads; ++g) {
      if (n_heads % g == 0) divisors.push_back(g);
    }
    return divisors[static_cast<size_t>(kv_kind - 96) % divisors.size()];
  }
  int OpCount() const { return op_count % (kMaxQuantCrossOps + 1); }
};

template <class Io>
void Visit(Io& io, QuantCrossOp& op) {
  io.U8(op.kind);
  io.U8(op.null_select);
  if (op.null_select >= 232) io.U8(op.null_bits);
  if (op.Kind() == kQuantCrossReinit) {
    io.U8(op.reinit_field);
    io.I32(op.reinit_value);
    return;
  }
  io.U8(op.count_kind);
  if (op.count_kind >= 224) io.I32(op.count_value);
  Visit(io, op.x);
  if (!op.SetsMemory()) Visit(io, op.y);
  io.U32(op.x_seed);
}

template <class Io>
void Visit(Io& io, QuantCrossCase& c) {
  Visit(io, c.common);
  io.U8(c.dtype_kind);
  if (c.dtype_kind >= 240) io.I32(c.dtype_raw);
  io.U8(c.tokens_kind);
  if (c.tokens_kind >= 200) io.Dim(c.tokens_raw);
  io.Dim(c.d_model);
  io.U8(c.heads_kind);
  if (c.heads_kind >= 200) io.Dim(c.heads);
  io.U8(c.memory_kind);
  if (c.memory_kind >= 224) io.I32(c.memory_raw);
  io.U8(c.kv_kind);
  if (c.kv_kind >= 240) io.I32(c.kv_raw);
  io.U8(c.mask_kind);
  if (c.mask_kind >= 232) io.I32(c.mask_raw);
  io.U8(c.position_kind);
  if (c.position_kind >= 232) io.I32(c.position_raw);
  io.U8(c.scales_kind);
  for (QuantTensor& t : c.tensors) Visit(io, t);
  Visit(io, c.memory_quant);
  io.U8(c.derive_kind);
  Visit(io, c.quant);
  io.U8(c.op_count);
  for (int i = 0; i < c.OpCount(); ++i) Visit(io, c.ops[i]);
}

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_QUANT_CROSS_CASE_H_
