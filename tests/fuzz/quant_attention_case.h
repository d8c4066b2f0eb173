// The cases of two fixed-point families and their byte layouts (Visit), as
// fuzz_case.h has them for the others: fixed-point Attention(Q, K, V)
// (kQuantAttention, fuzz_quant_attention.cc) and the fixed-point MHA
// decoder's API over a sequence of calls (kQuantDecoder,
// fuzz_quant_decoder.cc).
#ifndef EDGEATTN_TESTS_FUZZ_QUANT_ATTENTION_CASE_H_
#define EDGEATTN_TESTS_FUZZ_QUANT_ATTENTION_CASE_H_

#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "fuzz_case.h"

namespace edgeattn_fuzz {

// ea_attention_quant_scales' ea_quant fields, in order: q, k, v, scores, output.
inline constexpr int kQuantAttentionTensors = 5;

// Fixed-point Attention(Q, K, V): a config, its quantization as scales
// and / or TFLite's integers (derived by the harness, then edited), q, k,
// v and the outputs placed apart or over one another and the arena.
struct QuantAttentionCase {
  Common common;  // Nulls: size config / bytes, plan, plan config, arena, arena base, run plan,
                  // q (kNullInput0), k (kNullInput1), v (kNullInput2), out (kNullOutput)
  uint8_t dtype_kind = 0;  // QuantDtype: < 112 INT8, < 224 INT16, < 240 F32, else dtype_raw
  int32_t dtype_raw = 0;
  int32_t n_q = 1, n_kv = 1, d_k = 1, d_v = 1, mask = 0;
  uint8_t scale_kind = 0;  // ScaleValue (tensor_fill.h): mostly 0 (beta 1/sqrt(d_k))
  uint32_t scale_bits = 0;
  uint8_t scales_kind = 0;  // >= 240: quant_scales NULL
  QuantTensor tensors[kQuantAttentionTensors];
  uint8_t params_kind = 0;  // < 144: scales only; else integers given (+ edits)
  uint8_t edit_count = 0;   // modulo kMaxParamEdits + 1; ParamEdit::field % 13
  ParamEdit edits[kMaxParamEdits];
  ArenaSpec arena;
  uint8_t want_weights = 0;  // >= 96: request the probabilities
  uint8_t wrong_run = 0;     // >= 240: the other dtype's run function
  RunLength n_valid;         // the run's n_valid_keys against n_kv
  uint8_t workers = 0;       // % 4 > 1: the plan's parallel-for has that many workers
  uint8_t value_mode = 0;    // FillActivations' mode for q, k, v
  uint32_t value_seed = 0;
  Placement q, k, v, out, weights;  // q over the arena; k over those; v; out; weights

  bool ScalesGiven() const { return scales_kind < 240; }
  bool ParamsGiven() const { return params_kind >= 144; }
  uint8_t EditCount() const { return edit_count % (kMaxParamEdits + 1); }
};

// One call on a fixed-point decoder.
enum QuantDecoderOpKind : uint8_t {
  kQuantDecoderStep = 0,   // _step_s8 / _s16 of the decoder's dtype
  kQuantDecoderWrongStep,  // the other dtype's step function
  kQuantDecoderReset,
  kQuantDecoderReinit  // a broken config (refused), or the good one again (ok)
};

// Bits of QuantDecoderOp::null_bits: the decoder, x, y (re-init: config,
// weights, arena).
enum QuantDecoderNullBit : uint8_t { kDecNullDecoder = 1, kDecNullFirst = 2, kDecNullSecond = 4 };

struct QuantDecoderOp {
  uint8_t kind = 0;  // < 160 step, < 176 wrong step, < 216 reset, else re-init (Kind())
  // The step's n_tokens against the decoder (fuzz_quant_decoder.cc StepCount):
  // < 144 a step the stream can take, < 160 0, < 176 -1, < 192
  // max_step_tokens + 1, < 208 one past the tokens the stream has left,
  // < 224 max_step_tokens, else count_value.
  uint8_t count_kind = 0;
  int32_t count_value = 0;
  uint8_t null_select = 0;  // >= 232: null_bits apply
  uint8_t null_bits = 0;
  Placement x, y;            // x: own region or over the arena, weights, biases, table;
                             // y: those or over x (offset 0: in place)
  uint32_t x_seed = 0;       // the step's tokens (QuantCommon::x_mode)
  uint8_t reinit_field = 0;  // re-init: BreakOneField's field, or max_step_tokens (% 9 == 8)
  int32_t reinit_value = 0;  // ... set to it; reinit_field >= 240: the good config again

  uint8_t Kind() const {
    return kind < 160   ? kQuantDecoderStep
           : kind < 176 ? kQuantDecoderWrongStep
           : kind < 216 ? kQuantDecoderReset
                        : kQuantDecoderReinit;
  }
  uint8_t Nulls() const { return null_select >= 232 ? null_bits : 0; }
};
inline constexpr int kMaxQuantDecoderOps = 8;

// The fixed-point MHA decoder: QuantCase's layer (causal), its
// max_step_tokens, where the kept tensors live, and a sequence of calls.
struct QuantDecoderCase {
  Common common;  // Nulls: size config / bytes, decoder (kNullPlan), config (kNullPlanConfig),
                  // arena, arena base, in_proj (kNullInput1), out_proj (kNullWeights), the
                  // weights struct (kNullInput2); targets
  uint8_t dtype_kind = 0;  // QuantDtype
  int32_t dtype_raw = 0;
  int32_t max_tokens = 1, d_model = 1;
  uint8_t heads_kind = 0;  // < 200: a divisor of d_model (heads_kind-th); else `heads`
  int32_t heads = 1;
  // Unused since the config is flat (no mask: a decoder is causal); still
  // read (mask_raw where mask_kind >= 232) so that the seeds decode.
  uint8_t mask_kind = 0;
  int32_t mask_raw = 0;
  int32_t position = 0;
  uint8_t table_kind = 0;   // >= 128: the caller passes a quantized table
  uint8_t scales_kind = 0;  // >= 240: quant_scales NULL
  uint8_t step_kind = 0;    // < 144: 1 + step_value % max_tokens; < 160: max_tokens; else Dim
  int32_t step_value = 0;
  QuantTensor tensors[kQuantTensors];
  QuantCommon quant;        // biases: bit 0 in_proj_bias, bit 1 out_proj_bias; bits 2-3 magnitude.
                            // n_tokens, want_weights, wrong_run, x, y, weights, derive_kind
                            // unused; workers too (the flat config has no parallel-for).
  uint8_t kept_kind = 0;    // >= 224: kept tensor kept_kind % 5 (in_proj, out_proj, in bias,
  int16_t kept_offset = 0;  // out bias, table) at kept_offset * 64 bytes into the arena
  uint8_t op_count = 0;     // modulo kMaxQuantDecoderOps + 1
  QuantDecoderOp ops[kMaxQuantDecoderOps];
  uint8_t window_kind = 0;  // < 96: no window; < 224: 1 .. 16; else window_raw
  int32_t window_raw = 0;
  uint8_t kv_kind = 0;  // < 96: n_kv_heads 0 (n_heads); < 240: a divisor of heads; else kv_raw
  int32_t kv_raw = 0;
  // RoPE (0.29.0): < 128 none; < 184 EA_ROPE_HALF; < 240 EA_ROPE_INTERLEAVED;
  // else rope_raw as the layout. rope_fault >= 224 breaks one RoPE rule
  // (rope_fault % 5: one table NULL, the rotations' scales or integers NULL,
  // k's rotation on another x, a product's scale tiny, scales without tables).
  uint8_t rope_kind = 0;
  int32_t rope_raw = 0;
  uint8_t rope_fault = 0;

  bool CallerTable() const { return table_kind >= 128; }
  bool ScalesGiven() const { return scales_kind < 240; }
  int32_t MaxStepTokens() const {
    if (step_kind < 144) {
      return max_tokens > 0 ? 1 + static_cast<int32_t>(static_cast<uint32_t>(step_value) %
                                                       static_cast<uint32_t>(max_tokens))
                            : step_value;
    }
    return step_kind < 160 ? max_tokens : step_value;
  }
  int OpCount() const { return op_count % (kMaxQuantDecoderOps + 1); }
  bool KeptInArena() const { return kept_kind >= 224; }
  // Windows short enough that a stream wraps the ring several times.
  int32_t Window() const {
    if (window_kind < 96) return 0;
    return window_kind < 224 ? 1 + (window_kind - 96) % 16 : window_raw;
  }
  // Grouped-query heads: 0, the (kv_kind - 96)-th divisor of `heads` (the
  // layer's, when it has any), or any int32.
  int32_t KvHeads(int32_t heads) const {
    if (kv_kind < 96) return 0;
    if (kv_kind >= 240 || heads <= 0 || heads > (1 << 16)) return kv_raw;
    std::vector<int32_t> divisors;
    for (int32_t g = 1; g <= heads; ++g) {
      if (heads % g == 0) divisors.push_back(g);
    }
    return divisors[static_cast<size_t>(kv_kind - 96) % divisors.size()];
  }
  bool Rope() const { return rope_kind >= 128; }
  ea_rope_layout RopeLayout() const {
    return rope_kind < 184   ? EA_ROPE_HALF
           : rope_kind < 240 ? EA_ROPE_INTERLEAVED
                             : static_cast<ea_rope_layout>(rope_raw);
  }
  int RopeFault() const { return rope_fault >= 224 ? rope_fault % 5 : -1; }
};

template <class Io>
void Visit(Io& io, QuantAttentionCase& c) {
  Visit(io, c.common);
  io.U8(c.dtype_kind);
  if (c.dtype_kind >= 240) io.I32(c.dtype_raw);
  io.Dim(c.n_q);
  io.Dim(c.n_kv);
  io.Dim(c.d_k);
  io.Dim(c.d_v);
  io.Enum(c.mask, 2);
  io.U8(c.scale_kind);
  if (c.scale_kind >= 128) io.U32(c.scale_bits);
  io.U8(c.scales_kind);
  for (QuantTensor& t : c.tensors) Visit(io, t);
  io.U8(c.params_kind);
  if (c.ParamsGiven()) {
    io.U8(c.edit_count);
    for (uint8_t i = 0; i < c.EditCount(); ++i) Visit(io, c.edits[i]);
  }
  Visit(io, c.arena);
  io.U8(c.want_weights);
  io.U8(c.wrong_run);
  Visit(io, c.n_valid);
  io.U8(c.workers);
  io.U8(c.value_mode);
  io.U32(c.value_seed);
  Visit(io, c.q);
  Visit(io, c.k);
  Visit(io, c.v);
  Visit(io, c.out);
  Visit(io, c.weights);
}

template <class Io>
void Visit(Io& io, QuantDecoderOp& op) {
  io.U8(op.kind);
  switch (op.Kind()) {
    case kQuantDecoderStep:
    case kQuantDecoderWrongStep:
      io.U8(op.count_kind);
      if (op.count_kind >= 224) io.I32(op.count_value);
      io.U8(op.null_select);
      if (op.null_select >= 232) io.U8(op.null_bits);
      Visit(io, op.x);
      Visit(io, op.y);
      io.U32(op.x_seed);
      break;
    case kQuantDecoderReset:
      io.U8(op.null_select);
      if (op.null_select >= 232) io.U8(op.null_bits);
      break;
    default:
      io.U8(op.null_select);
      if (op.null_select >= 232) io.U8(op.null_bits);
      io.U8(op.reinit_field);
      io.I32(op.reinit_value);
      break;
  }
}

template <class Io>
void Visit(Io& io, QuantDecoderCase& c) {
  Visit(io, c.common);
  io.U8(c.dtype_kind);
  if (c.dtype_kind >= 240) io.I32(c.dtype_raw);
  io.Dim(c.max_tokens);
  io.Dim(c.d_model);
  io.U8(c.heads_kind);
  if (c.heads_kind >= 200) io.Dim(c.heads);
  io.U8(c.mask_kind);
  if (c.mask_kind >= 232) io.I32(c.mask_raw);
  io.Enum(c.position, 3);
  io.U8(c.table_kind);
  io.U8(c.scales_kind);
  io.U8(c.step_kind);
  if (c.step_kind < 144) {
    io.I32(c.step_value);
  } else if (c.step_kind >= 160) {
    io.Dim(c.step_value);
  }
  for (QuantTensor& t : c.tensors) Visit(io, t);
  Visit(io, c.quant);
  io.U8(c.kept_kind);
  if (c.KeptInArena()) {
    uint16_t bits = static_cast<uint16_t>(c.kept_offset);
    io.U16(bits);
    c.kept_offset = static_cast<int16_t>(bits);
  }
  io.U8(c.op_count);
  for (int i = 0; i < c.OpCount(); ++i) Visit(io, c.ops[i]);
  // Last, so that inputs written before the window read as no window.
  io.U8(c.window_kind);
  if (c.window_kind >= 224) io.I32(c.window_raw);
  // Then the KV heads (0.27.0), read as none from older inputs.
  io.U8(c.kv_kind);
  if (c.kv_kind >= 240) io.I32(c.kv_raw);
  // Then RoPE (0.29.0), none for older inputs.
  io.U8(c.rope_kind);
  if (c.rope_kind >= 240) io.I32(c.rope_raw);
  if (c.Rope()) io.U8(c.rope_fault);
}

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_QUANT_ATTENTION_CASE_H_
