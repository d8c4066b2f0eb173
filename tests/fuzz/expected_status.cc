#include "expected_status.h"

#include <math.h>
#include <stdint.h>

#include <initializer_list>

#include "flat_quant_configs.h"
#include "known_defects.h"
#include "quant_case_support.h"

namespace edgeattn_fuzz {
namespace {

using edgeattn_test::DecoderLayerOf;

void DtypeRule(ea_dtype dtype, StatusSet* set) {
  if (dtype == EA_DTYPE_INT8 || dtype == EA_DTYPE_INT16) {
    set->Add(EA_ERR_UNSUPPORTED);
  } else if (dtype != EA_DTYPE_F32) {
    set->Add(EA_ERR_BAD_ARGUMENT);
  }
}

void MaskRule(ea_mask mask, StatusSet* set) {
  if (mask != EA_MASK_NONE && mask != EA_MASK_CAUSAL) set->Add(EA_ERR_BAD_ARGUMENT);
}

void PositionRule(ea_position position, const float* table, StatusSet* set) {
  if (position == EA_POSITION_LEARNED && table == nullptr) set->Add(EA_ERR_NULL_POINTER);
  if (position != EA_POSITION_NONE && position != EA_POSITION_SINUSOIDAL &&
      position != EA_POSITION_LEARNED) {
    set->Add(EA_ERR_BAD_ARGUMENT);
  }
}

void ElementsRule(int64_t rows, int64_t cols, StatusSet* set) {
  if (TooManyElements(rows, cols)) set->Add(EA_ERR_DIMENSION_OVERFLOW);
}

int64_t KeyPanelsRoundUp(int64_t n) { return (n + 63) / 64 * 64; }

}  // namespace

// rows * cols may pass int64 (3 * INT32_MAX * INT32_MAX): compare by division.
bool TooManyElements(int64_t rows, int64_t cols) {
  return rows > 0 && cols > 0 && rows > EA_MAX_ELEMENTS / cols;
}

bool StatusSet::Allows(ea_status status) const {
  const bool tolerated =
      static_cast<unsigned>(status) < 32 && (tolerated_ >> static_cast<unsigned>(status)) & 1u;
  if (broken_ != 0) {
    return tolerated ||
           (static_cast<unsigned>(status) < 32 && (broken_ >> static_cast<unsigned>(status)) & 1u);
  }
  return tolerated || status == EA_OK || (refusable_ && status == EA_ERR_BAD_ARGUMENT);
}

std::string StatusSet::Describe() const {
  if (broken_ == 0) return refusable_ ? "EA_OK or EA_ERR_BAD_ARGUMENT" : "EA_OK";
  std::string text;
  for (unsigned s = 0; s < 32; ++s) {
    if ((broken_ >> s) & 1u) {
      if (!text.empty()) text += " or ";
      text += "status " + std::to_string(s);
    }
  }
  return text;
}

// ea_parallel_for: max_workers in [0, EA_MAX_WORKERS]; more than one needs run.
void ParallelRule(const ea_parallel_for& p, StatusSet* set) {
  if (p.max_workers < 0 || p.max_workers > EA_MAX_WORKERS) set->Add(EA_ERR_BAD_ARGUMENT);
  if (p.max_workers > 1 && p.run == nullptr) set->Add(EA_ERR_NULL_POINTER);
}

// A weights layout the library knows.
void LayoutRule(ea_weights_layout layout, StatusSet* set) {
  if (layout != EA_WEIGHTS_ROW_MAJOR && layout != EA_WEIGHTS_PACKED) set->Add(EA_ERR_BAD_ARGUMENT);
}

StatusSet AttentionConfigRules(const ea_attention_config& c) {
  StatusSet set;
  if (c.dtype == EA_DTYPE_INT8 || c.dtype == EA_DTYPE_INT16) {
    // Fixed point plans with ea_attention_quant_arena_size / _init: the float
    // size and init refuse the dtype before anything else (0.22.0; the size
    // applied the fixed-point rules before).
    set.Add(EA_ERR_BAD_ARGUMENT);
    return set;
  }
  DtypeRule(c.dtype, &set);
  MaskRule(c.mask, &set);
  ParallelRule(c.parallel, &set);
  if (c.scale != 0.0f && !(c.scale > 0.0f && isfinite(c.scale))) set.Add(EA_ERR_BAD_ARGUMENT);
  if (c.n_q <= 0 || c.n_kv <= 0 || c.d_k <= 0 || c.d_v <= 0) {
    set.Add(EA_ERR_BAD_DIMENSION);
    return set;
  }
  ElementsRule(c.n_q, c.d_k, &set);                     // q
  ElementsRule(c.n_kv, c.d_k, &set);                    // k
  ElementsRule(c.n_kv, c.d_v, &set);                    // v
  ElementsRule(c.n_q, c.d_v, &set);                     // out
  ElementsRule(KeyPanelsRoundUp(c.n_kv), c.d_k, &set);  // packed K^T [d_k, roundup(n_kv, 64)]
  return set;
}

StatusSet SelfAttentionConfigRules(const ea_self_attention_config& c) {
  StatusSet set;
  if (c.dtype == EA_DTYPE_INT8 || c.dtype == EA_DTYPE_INT16) {
    // Fixed point: ea_self_attention_quant_*; the float size and init refuse it.
    set.Add(EA_ERR_BAD_ARGUMENT);
    return set;
  }
  DtypeRule(c.dtype, &set);
  MaskRule(c.mask, &set);
  PositionRule(c.position, c.position_table, &set);
  LayoutRule(c.weights_layout, &set);
  ParallelRule(c.parallel, &set);
  if (c.max_tokens <= 0 || c.d_model <= 0 || c.d_k <= 0 || c.d_v <= 0) {
    set.Add(EA_ERR_BAD_DIMENSION);
    return set;
  }
  ElementsRule(c.max_tokens, c.d_model, &set);  // x, table, X + P
  // W_Q, W_K, W_V as the projections read them: packed, outputs padded to 64.
  ElementsRule(KeyPanelsRoundUp(c.d_k), c.d_model, &set);
  ElementsRule(KeyPanelsRoundUp(c.d_v), c.d_model, &set);
  ElementsRule(c.max_tokens, c.d_k, &set);  // Q, K
  ElementsRule(c.max_tokens, c.d_v, &set);  // V, y
  ElementsRule(KeyPanelsRoundUp(c.max_tokens), c.d_k, &set);
  return set;
}

StatusSet MhaConfigRules(const ea_mha_config& c) {
  // Fixed point: ea_mha_quant_*; the float size and init refuse it.
  if (c.dtype == EA_DTYPE_INT8 || c.dtype == EA_DTYPE_INT16) {
    StatusSet set;
    set.Add(EA_ERR_BAD_ARGUMENT);
    return set;
  }
  StatusSet set;
  DtypeRule(c.dtype, &set);
  MaskRule(c.mask, &set);
  PositionRule(c.position, c.position_table, &set);
  LayoutRule(c.weights_layout, &set);
  ParallelRule(c.parallel, &set);
  if (c.max_tokens <= 0 || c.d_model <= 0 || c.n_heads <= 0) {
    set.Add(EA_ERR_BAD_DIMENSION);
    return set;
  }
  if (c.d_model % c.n_heads != 0) set.Add(EA_ERR_HEADS_MISMATCH);
  ElementsRule(c.max_tokens, c.d_model, &set);  // x, y, Q, K, V, heads
  // in_proj_weight as the projection reads it: packed, 3 d_model outputs padded to 64.
  ElementsRule(KeyPanelsRoundUp(3 * int64_t{c.d_model}), c.d_model, &set);
  if (c.d_model % c.n_heads == 0) {
    ElementsRule(KeyPanelsRoundUp(c.max_tokens), c.d_model / c.n_heads, &set);
  }
  return set;
}

bool ValidQuantScale(float scale) { return scale > 0.0f && isfinite(scale); }

bool ValidZeroPoint(ea_dtype dtype, int32_t zero_point) {
  return dtype == EA_DTYPE_INT8 ? zero_point >= -128 && zero_point <= 127 : zero_point == 0;
}

bool ValidQuant(ea_dtype dtype, ea_quant q) {
  return ValidQuantScale(q.scale) && ValidZeroPoint(dtype, q.zero_point);
}

namespace {

bool IsFixedPoint(ea_dtype dtype) { return dtype == EA_DTYPE_INT8 || dtype == EA_DTYPE_INT16; }

// The rules fixed-point models share before their shapes: dtype, mask,
// parallel-for, positions, and a quantization (scales or integers).
void QuantModelRules(ea_dtype dtype, ea_mask mask, const ea_parallel_for& parallel,
                     ea_position position, const void* quant_table, bool no_quantization,
                     StatusSet* set) {
  if (!IsFixedPoint(dtype)) set->Add(EA_ERR_BAD_ARGUMENT);  // F32 included: the float plan's
  MaskRule(mask, set);
  ParallelRule(parallel, set);
  if (position != EA_POSITION_NONE && position != EA_POSITION_SINUSOIDAL &&
      position != EA_POSITION_LEARNED) {
    set->Add(EA_ERR_BAD_ARGUMENT);
  }
  if (position == EA_POSITION_LEARNED && quant_table == nullptr) set->Add(EA_ERR_NULL_POINTER);
  if (no_quantization) set->Add(EA_ERR_NULL_POINTER);
}

// The int16 softmax sums up to 32767 per key in int32: 65535 keys at most.
constexpr int32_t kMaxFixedPointKeys = 65535;

// Scales positive and finite, zero points of the dtype; the position and
// positioned tensors only with positions.
bool QuantTensorsValid(ea_dtype dtype, bool positions, std::initializer_list<ea_quant> always,
                       ea_quant position, ea_quant positioned) {
  bool valid = true;
  for (const ea_quant& q : always) {
    valid = valid && ValidQuantScale(q.scale) && ValidZeroPoint(dtype, q.zero_point);
  }
  if (positions) {
    for (const ea_quant& q : {position, positioned}) {
      valid = valid && ValidQuantScale(q.scale) && ValidZeroPoint(dtype, q.zero_point);
    }
  }
  return valid;
}

bool ChannelScalesValid(const float* scales, int64_t count) {
  bool valid = true;
  for (int64_t i = 0; i < count; ++i) valid = valid && ValidQuantScale(scales[i]);
  return valid;
}

}  // namespace

StatusSet QuantMhaShapeRules(const ea_mha_config& c) {
  StatusSet set;
  QuantModelRules(c.dtype, c.mask, c.parallel, c.position, c.quant_position_table,
                  c.quant_scales == nullptr && c.quant_params == nullptr, &set);
  if (c.max_tokens <= 0 || c.d_model <= 0 || c.n_heads <= 0) {
    set.Add(EA_ERR_BAD_DIMENSION);
    return set;
  }
  if (c.d_model % c.n_heads != 0) set.Add(EA_ERR_HEADS_MISMATCH);
  ElementsRule(c.max_tokens, c.d_model, &set);            // x, y, Q, K, V, context
  ElementsRule(3 * int64_t{c.d_model}, c.d_model, &set);  // in_proj_weight
  // Not in the header: README.md finding 13. The probabilities [n, n] are a
  // run's output, checked at run time: no plan-time limit of their own.
  if (c.max_tokens > kMaxFixedPointKeys) set.Add(EA_ERR_DIMENSION_OVERFLOW);
  if (TooManyElements(c.max_tokens, c.max_tokens) && SkipKnown(kQuantMaxTokens)) {
    set.Tolerate(EA_ERR_DIMENSION_OVERFLOW);
  }
  return set;
}

StatusSet QuantSelfAttentionShapeRules(const ea_self_attention_config& c) {
  StatusSet set;
  QuantModelRules(c.dtype, c.mask, c.parallel, c.position, c.quant_position_table,
                  c.quant_scales == nullptr && c.quant_params == nullptr, &set);
  if (c.max_tokens <= 0 || c.d_model <= 0 || c.d_k <= 0 || c.d_v <= 0) {
    set.Add(EA_ERR_BAD_DIMENSION);
    return set;
  }
  ElementsRule(c.max_tokens, c.d_model, &set);  // x, the table, X + P
  ElementsRule(c.max_tokens, c.d_k, &set);      // Q, K
  ElementsRule(c.max_tokens, c.d_v, &set);      // V, y
  ElementsRule(c.d_k, c.d_model, &set);         // W_Q, W_K
  ElementsRule(c.d_v, c.d_model, &set);         // W_V
  if (c.max_tokens > kMaxFixedPointKeys) set.Add(EA_ERR_DIMENSION_OVERFLOW);
  return set;
}

const float* InProjWeightScales(const ea_mha_quant_scales& s, int which, int32_t d_model,
                                int32_t kv_width) {
  if (s.in_proj_weight_scales != nullptr) {
    return s.in_proj_weight_scales + (which == 0 ? 0 : d_model + (which - 1) * kv_width);
  }
  const float* parts[3] = {s.q_proj_weight_scales, s.k_proj_weight_scales, s.v_proj_weight_scales};
  return parts[which];
}

StatusSet QuantScalesRules(const ea_mha_config& c, int32_t kv_width) {
  StatusSet set;
  const ea_mha_quant_scales& s = *c.quant_scales;
  // in_proj's scales or W_Q's, W_K's, W_V's: one form, whole.
  const bool any_separate = s.q_proj_weight_scales != nullptr ||
                            s.k_proj_weight_scales != nullptr || s.v_proj_weight_scales != nullptr;
  const bool separate_whole = s.q_proj_weight_scales != nullptr &&
                              s.k_proj_weight_scales != nullptr &&
                              s.v_proj_weight_scales != nullptr;
  const bool in_proj_form = s.in_proj_weight_scales != nullptr;
  if (s.out_proj_weight_scales == nullptr || (!in_proj_form && !separate_whole)) {
    set.Add(EA_ERR_NULL_POINTER);
  }
  if (in_proj_form && any_separate) set.Add(EA_ERR_BAD_ARGUMENT);
  const bool have_scales = (in_proj_form && !any_separate) || (!in_proj_form && separate_whole);
  bool valid = QuantTensorsValid(c.dtype, c.position != EA_POSITION_NONE,
                                 {s.input, s.q, s.k, s.v, s.scores, s.context, s.output},
                                 s.position, s.positioned);
  // Per-channel scales: only when d_model is a size the caller's arrays
  // can have (the driver allocates them for materialised shapes only).
  if (c.d_model > 0 && have_scales && s.out_proj_weight_scales != nullptr) {
    for (int which = 0; which < 3; ++which) {
      valid = valid && ChannelScalesValid(InProjWeightScales(s, which, c.d_model, kv_width),
                                          which == 0 ? c.d_model : kv_width);
    }
    valid = valid && ChannelScalesValid(s.out_proj_weight_scales, c.d_model);
  }
  if (!valid) set.Add(EA_ERR_BAD_ARGUMENT);
  return set;
}

StatusSet QuantSelfAttentionScalesRules(const ea_self_attention_config& c) {
  StatusSet set;
  const ea_self_attention_quant_scales& s = *c.quant_scales;
  const bool arrays = s.w_q_scales != nullptr && s.w_k_scales != nullptr && s.w_v_scales != nullptr;
  if (!arrays) set.Add(EA_ERR_NULL_POINTER);
  bool valid =
      QuantTensorsValid(c.dtype, c.position != EA_POSITION_NONE,
                        {s.input, s.q, s.k, s.v, s.scores, s.output}, s.position, s.positioned);
  if (arrays && c.d_k > 0 && c.d_v > 0) {
    valid = valid && ChannelScalesValid(s.w_q_scales, c.d_k) &&
            ChannelScalesValid(s.w_k_scales, c.d_k) && ChannelScalesValid(s.w_v_scales, c.d_v);
  }
  if (!valid) set.Add(EA_ERR_BAD_ARGUMENT);
  return set;
}

namespace {

bool Int8(ea_dtype dtype) { return dtype == EA_DTYPE_INT8; }

// A negated input zero point (TFLite's *_offset of an input): [-127, 128].
bool InputOffset(ea_dtype dtype, int32_t offset) {
  return Int8(dtype) ? offset >= -127 && offset <= 128 : offset == 0;
}
bool OutputOffset(ea_dtype dtype, int32_t offset) {
  return Int8(dtype) ? offset >= -128 && offset <= 127 : offset == 0;
}
// The 32-bit requantisation takes shifts up to 30, the 64-bit one (int16
// accumulators) up to 7; both down to -31.
bool RequantizeShift(ea_dtype dtype, int32_t shift) {
  return shift >= -31 && shift <= (Int8(dtype) ? 30 : 7);
}

bool LinearOk(ea_dtype dtype, const ea_linear_quant_params& p, int32_t channels, StatusSet* set) {
  if (p.output_multiplier == nullptr || p.output_shift == nullptr) {
    set->Add(EA_ERR_NULL_POINTER);
    return false;
  }
  bool ok = InputOffset(dtype, p.input_offset) && OutputOffset(dtype, p.output_offset);
  for (int32_t i = 0; i < channels; ++i) {
    ok = ok && p.output_multiplier[i] >= 0 && RequantizeShift(dtype, p.output_shift[i]);
  }
  return ok;
}

bool MatmulOk(ea_dtype dtype, const ea_matmul_quant_params& p, bool probabilities) {
  // The context's left operand is the probabilities: zero point -128 (int8), 0 (int16).
  const bool lhs = probabilities ? p.input_offset == (Int8(dtype) ? 128 : 0)
                                 : InputOffset(dtype, p.input_offset);
  return lhs && InputOffset(dtype, p.weights_offset) && OutputOffset(dtype, p.output_offset) &&
         p.output_multiplier >= 0 && RequantizeShift(dtype, p.output_shift);
}

bool AddOk(ea_dtype dtype, const ea_add_quant_params& p) {
  const bool shifts = p.left_shift >= 0 && p.left_shift <= (Int8(dtype) ? 20 : 15) &&
                      p.input1_shift >= -31 && p.input1_shift <= 0 && p.input2_shift >= -31 &&
                      p.input2_shift <= 0 && p.output_shift >= -31 && p.output_shift <= 0;
  return shifts && InputOffset(dtype, p.input1_offset) && InputOffset(dtype, p.input2_offset) &&
         OutputOffset(dtype, p.output_offset) && p.input1_multiplier >= 0 &&
         p.input2_multiplier >= 0 && p.output_multiplier >= 0;
}

// A model's int16 tables (quant.h): both or neither, int16 only, entries in
// [0, 32767], exp at 0 (InterpolateTable(32767, exp)) at least 16384.
bool SoftmaxTablesOk(ea_dtype dtype, const ea_softmax_quant_params& p) {
  if (p.exp_lut == nullptr && p.one_over_one_plus_x_lut == nullptr) return true;
  if (Int8(dtype) || p.exp_lut == nullptr || p.one_over_one_plus_x_lut == nullptr) return false;
  for (int i = 0; i < 513; ++i) {
    if (p.exp_lut[i] < 0 || p.one_over_one_plus_x_lut[i] < 0) return false;
  }
  const int slope = static_cast<int16_t>(p.exp_lut[512] - p.exp_lut[511]);
  return p.exp_lut[511] + ((slope * 127 + 64) >> 7) >= 16384;
}

bool SoftmaxOk(ea_dtype dtype, const ea_softmax_quant_params& p) {
  if (p.input_multiplier < 0 || !SoftmaxTablesOk(dtype, p)) return false;
  if (!Int8(dtype)) return p.input_left_shift >= -31 && p.input_left_shift <= 30;
  if (p.input_left_shift < 0 || p.input_left_shift > 31 || p.diff_min > 0) return false;
  // Every difference evaluated (0 down to max(diff_min, -255)) times
  // 2^left_shift stays inside int32.
  const int64_t magnitude = p.diff_min < -255 ? 255 : -int64_t{p.diff_min};
  return magnitude * (int64_t{1} << p.input_left_shift) <= INT32_MAX;
}

bool AttentionOk(ea_dtype dtype, const ea_matmul_quant_params& scores,
                 const ea_softmax_quant_params& softmax, const ea_matmul_quant_params& context) {
  return MatmulOk(dtype, scores, false) && SoftmaxOk(dtype, softmax) &&
         MatmulOk(dtype, context, true);
}

}  // namespace

StatusSet AddParamsRules(ea_dtype dtype, const ea_add_quant_params& params) {
  StatusSet set;
  if (!AddOk(dtype, params)) set.Add(EA_ERR_BAD_ARGUMENT);
  return set;
}

StatusSet MulParamsRules(ea_dtype dtype, const ea_mul_quant_params& p) {
  const bool offsets = InputOffset(dtype, p.input1_offset) && InputOffset(dtype, p.input2_offset) &&
                       OutputOffset(dtype, p.output_offset);
  StatusSet set;
  if (!offsets || p.output_multiplier < 0 || p.output_shift < -31 || p.output_shift > 30) {
    set.Add(EA_ERR_BAD_ARGUMENT);
  }
  return set;
}

StatusSet RopeParamsRules(ea_dtype dtype, const ea_rope_quant_params& p) {
  StatusSet rules = MulParamsRules(dtype, p.cos);
  rules.Merge(MulParamsRules(dtype, p.sin));
  rules.Merge(AddParamsRules(dtype, p.add));
  return rules;
}

StatusSet DecoderRopeRules(const ea_decoder_quant_config& c) {
  StatusSet set;
  const bool cos = c.rope_cos_table != nullptr, sin = c.rope_sin_table != nullptr;
  if (!cos && !sin) {
    if (c.rope_scales != nullptr || c.rope_params != nullptr) set.Add(EA_ERR_BAD_ARGUMENT);
    return set;
  }
  if (cos != sin) set.Add(EA_ERR_BAD_ARGUMENT);
  if (c.n_heads > 0 && c.d_model > 0 && c.d_model % c.n_heads == 0 &&
      (c.d_model / c.n_heads) % 2 != 0) {
    set.Add(EA_ERR_BAD_DIMENSION);
  }
  if (c.rope_layout != EA_ROPE_HALF && c.rope_layout != EA_ROPE_INTERLEAVED) {
    set.Add(EA_ERR_BAD_ARGUMENT);
  }
  const ea_dtype dtype = c.dtype;
  if (dtype != EA_DTYPE_INT8 && dtype != EA_DTYPE_INT16) return set;  // the layer's rules
  const auto misaligned = [&](const void* table) {
    return dtype == EA_DTYPE_INT16 && reinterpret_cast<uintptr_t>(table) % 2 != 0;
  };
  if (misaligned(c.rope_cos_table) || misaligned(c.rope_sin_table)) set.Add(EA_ERR_BAD_ARGUMENT);
  if (c.quant_params != nullptr) {
    if (c.rope_params == nullptr) {
      set.Add(EA_ERR_NULL_POINTER);
    } else {
      set.Merge(RopeParamsRules(dtype, c.rope_params[0]));
      set.Merge(RopeParamsRules(dtype, c.rope_params[1]));
    }
    return set;
  }
  if (c.quant_scales == nullptr || c.rope_scales == nullptr) {
    set.Add(EA_ERR_NULL_POINTER);
    return set;
  }
  const ea_mha_quant_scales& s = *c.quant_scales;
  const auto same = [](ea_quant a, ea_quant b) {
    return a.scale == b.scale && a.zero_point == b.zero_point;
  };
  if (!same(c.rope_scales[0].x, s.q) || !same(c.rope_scales[1].x, s.k)) {
    set.Add(EA_ERR_BAD_ARGUMENT);
  }
  const auto valid = [&](ea_quant q) { return ValidQuant(dtype, q); };
  for (int i = 0; i < 2; ++i) {
    const ea_rope_quant_scales& r = c.rope_scales[i];
    const bool ok = valid(r.x) && valid(r.cos_table) && valid(r.sin_table) &&
                    valid(r.cos_product) && valid(r.sin_product) && valid(r.rotated);
    if (!ok) {
      set.Add(EA_ERR_BAD_ARGUMENT);
      continue;
    }
    ea_rope_quant_params tflite{};
    tflite.cos = MulLikeTflite(r.x, r.cos_table, r.cos_product);
    tflite.sin = MulLikeTflite(r.x, r.sin_table, r.sin_product);
    tflite.add = AddLikeTflite(dtype == EA_DTYPE_INT8, r.cos_product, r.sin_product, r.rotated);
    set.Merge(RopeParamsRules(dtype, tflite));
  }
  // The scores' integers from the rotated scales are the layer's derived
  // integers (the driver's QuantParamsRules on them), as the library checks
  // them with the layer's: at init, and maybe at size.
  return set;
}

StatusSet QuantParamsRules(const ea_mha_config& c, int32_t kv_width, const ea_mha_quant_params& p) {
  StatusSet set;
  bool ok = c.position == EA_POSITION_NONE || AddOk(c.dtype, p.add);
  ok = LinearOk(c.dtype, p.q_proj, c.d_model, &set) && ok;
  ok = LinearOk(c.dtype, p.k_proj, kv_width, &set) && ok;
  ok = LinearOk(c.dtype, p.v_proj, kv_width, &set) && ok;
  ok = LinearOk(c.dtype, p.out_proj, c.d_model, &set) && ok;
  ok = ok && AttentionOk(c.dtype, p.scores, p.softmax, p.context);
  if (!ok) set.Add(EA_ERR_BAD_ARGUMENT);
  return set;
}

StatusSet QuantSelfAttentionParamsRules(const ea_self_attention_config& c,
                                        const ea_self_attention_quant_params& p) {
  StatusSet set;
  bool ok = c.position == EA_POSITION_NONE || AddOk(c.dtype, p.add);
  ok = LinearOk(c.dtype, p.q_proj, c.d_k, &set) && ok;
  ok = LinearOk(c.dtype, p.k_proj, c.d_k, &set) && ok;
  ok = LinearOk(c.dtype, p.v_proj, c.d_v, &set) && ok;
  const ea_attention_quant_params& a = p.attention;
  ok = ok && AttentionOk(c.dtype, a.scores, a.softmax, a.context);
  if (!ok) set.Add(EA_ERR_BAD_ARGUMENT);
  return set;
}

StatusSet QuantAttentionShapeRules(const ea_attention_config& c) {
  StatusSet set;
  if (!IsFixedPoint(c.dtype)) {  // refused before anything else (F32: ea_attention_init's)
    set.Add(EA_ERR_BAD_ARGUMENT);
    return set;
  }
  MaskRule(c.mask, &set);
  ParallelRule(c.parallel, &set);
  // "0: use 1/sqrt(d_k)", "a negative or non-finite scale": -0 is either.
  if (c.scale != 0.0f && !(c.scale > 0.0f && isfinite(c.scale))) set.Add(EA_ERR_BAD_ARGUMENT);
  if (c.scale == 0.0f && signbit(c.scale)) set.Tolerate(EA_ERR_BAD_ARGUMENT);
  if (c.quant_scales == nullptr && c.quant_params == nullptr) set.Add(EA_ERR_NULL_POINTER);
  if (c.n_q <= 0 || c.n_kv <= 0 || c.d_k <= 0 || c.d_v <= 0) {
    set.Add(EA_ERR_BAD_DIMENSION);
    return set;
  }
  ElementsRule(c.n_q, c.d_k, &set);   // q
  ElementsRule(c.n_kv, c.d_k, &set);  // k
  ElementsRule(c.n_kv, c.d_v, &set);  // v
  ElementsRule(c.n_q, c.d_v, &set);   // out
  if (c.n_kv > kMaxFixedPointKeys) set.Add(EA_ERR_DIMENSION_OVERFLOW);
  if (TooManyElements(c.n_q, c.n_kv)) set.Tolerate(EA_ERR_DIMENSION_OVERFLOW);
  return set;
}

StatusSet QuantAttentionScalesRules(const ea_attention_config& c) {
  StatusSet set;
  const ea_attention_quant_scales& s = *c.quant_scales;
  if (!QuantTensorsValid(c.dtype, false, {s.q, s.k, s.v, s.scores, s.output}, {}, {})) {
    set.Add(EA_ERR_BAD_ARGUMENT);
  }
  return set;
}

StatusSet QuantAttentionParamsRules(ea_dtype dtype, const ea_attention_quant_params& p) {
  StatusSet set;
  if (!AttentionOk(dtype, p.scores, p.softmax, p.context)) set.Add(EA_ERR_BAD_ARGUMENT);
  return set;
}

StatusSet QuantDecoderShapeRules(const ea_decoder_quant_config& c) {
  StatusSet set = QuantMhaShapeRules(DecoderLayerOf(c));
  if (c.max_step_tokens <= 0 || c.window < 0 || c.n_kv_heads < 0) set.Add(EA_ERR_BAD_DIMENSION);
  // n_kv_heads: 0 is n_heads; else it divides n_heads (checked with the heads).
  if (c.n_kv_heads > 0 && c.n_heads > 0 && c.n_heads % c.n_kv_heads != 0) {
    set.Add(EA_ERR_HEADS_MISMATCH);
  }
  if (c.max_step_tokens > c.max_positions && c.max_positions > 0) set.Add(EA_ERR_BAD_DIMENSION);
  return set;
}

namespace {

// kv_cache.h's storages, and those that hold integer codes.
bool KnownKvStorage(ea_kv_storage s) {
  return s == EA_KV_STORAGE_F32 || s == EA_KV_STORAGE_F16 || s == EA_KV_STORAGE_Q8 ||
         s == EA_KV_STORAGE_Q4;
}
bool IntegerKvStorage(ea_kv_storage s) { return s == EA_KV_STORAGE_Q8 || s == EA_KV_STORAGE_Q4; }

}  // namespace

StatusSet KvCacheConfigRules(const ea_kv_cache_config& c) {
  StatusSet set;
  if (!KnownKvStorage(c.storage)) set.Add(EA_ERR_BAD_ARGUMENT);
  if (c.scale != 0.0f && !(c.scale > 0.0f && isfinite(c.scale))) set.Add(EA_ERR_BAD_ARGUMENT);
  if (c.capacity <= 0 || c.n_heads <= 0 || c.n_kv_heads <= 0 || c.d_head <= 0 ||
      c.max_queries <= 0 || c.window < 0) {
    set.Add(EA_ERR_BAD_DIMENSION);
    return set;
  }
  if (c.n_heads % c.n_kv_heads != 0) set.Add(EA_ERR_HEADS_MISMATCH);
  // kv_cache.h: int8 and int4 heads of at most EA_KV_Q8_MAX_D_HEAD channels.
  if (IntegerKvStorage(c.storage) && c.d_head > EA_KV_Q8_MAX_D_HEAD) {
    set.Add(EA_ERR_BAD_DIMENSION);
  }
  // kv_cache.h: with a window, capacity covers window + max_queries - 1
  // (EA_ERR_BAD_DIMENSION otherwise); without one, max_queries and capacity
  // are independent (0.9.2: no status for max_queries > capacity).
  if (c.window > 0 && int64_t{c.window} + c.max_queries - 1 > c.capacity) {
    set.Add(EA_ERR_BAD_DIMENSION);
  }
  const int64_t kv_row = int64_t{c.n_kv_heads} * c.d_head;
  ElementsRule(c.capacity, kv_row, &set);                            // k, v of capacity tokens
  ElementsRule(KeyPanelsRoundUp(c.capacity), kv_row, &set);          // stored in 64-position blocks
  ElementsRule(c.max_queries, int64_t{c.n_heads} * c.d_head, &set);  // q, out
  return set;
}

StatusSet MhaDecoderConfigRules(const ea_decoder_config& c) {
  StatusSet set;
  if (!KnownKvStorage(c.storage)) set.Add(EA_ERR_BAD_ARGUMENT);
  PositionRule(c.position, c.position_table, &set);
  LayoutRule(c.weights_layout, &set);
  const bool rope_layout_known =
      c.rope_layout == EA_ROPE_HALF || c.rope_layout == EA_ROPE_INTERLEAVED;
  if (c.rope_table != nullptr && !rope_layout_known) set.Add(EA_ERR_BAD_ARGUMENT);
  // Without a RoPE table the layout is not read: the header gives no rule.
  if (c.rope_table == nullptr && !rope_layout_known) set.Tolerate(EA_ERR_BAD_ARGUMENT);
  if (c.d_model <= 0 || c.n_heads <= 0 || c.n_kv_heads < 0 || c.max_positions <= 0 ||
      c.max_step_tokens <= 0 || c.window < 0) {
    set.Add(EA_ERR_BAD_DIMENSION);
    return set;
  }
  const int32_t kv_heads = c.n_kv_heads == 0 ? c.n_heads : c.n_kv_heads;  // 0 means n_heads
  const bool heads_divide = c.d_model % c.n_heads == 0;
  if (!heads_divide || c.n_heads % kv_heads != 0) set.Add(EA_ERR_HEADS_MISMATCH);
  // With d_model not a multiple of n_heads, d_head is not defined: the rules
  // that depend on it may or may not be applied (their statuses tolerated).
  StatusSet head_rules;
  const int64_t d_head = c.d_model / c.n_heads;
  const int64_t kv_cols = int64_t{kv_heads} * d_head;
  const int64_t qkv_rows = c.d_model + 2 * kv_cols;
  if (c.rope_table != nullptr && d_head % 2 != 0) head_rules.Add(EA_ERR_BAD_DIMENSION);
  // The cache's int8 and int4 head limit (kv_cache.h), met at plan or at init.
  if (IntegerKvStorage(c.storage) && d_head > EA_KV_Q8_MAX_D_HEAD) {
    set.Tolerate(EA_ERR_BAD_DIMENSION);
  }
  const int64_t capacity =
      c.window > 0 ? int64_t{c.window} + c.max_step_tokens - 1 : int64_t{c.max_positions};
  if (capacity > INT32_MAX) set.Add(EA_ERR_DIMENSION_OVERFLOW);
  ElementsRule(c.max_step_tokens, c.d_model, &set);  // x, y, Q, the heads' outputs
  if (qkv_rows > EA_MAX_ELEMENTS) head_rules.Add(EA_ERR_DIMENSION_OVERFLOW);
  ElementsRule(qkv_rows, c.d_model, &head_rules);          // in_proj_weight
  ElementsRule(c.max_step_tokens, qkv_rows, &head_rules);  // the step's Q|K|V
  ElementsRule(c.d_model, c.d_model, &set);                // out_proj_weight
  // Packed: outputs padded to 64 (the arena's copy, or the caller's). The
  // header counts tensors as given: their padded form may be refused too.
  if (TooManyElements(KeyPanelsRoundUp(qkv_rows), c.d_model) ||
      TooManyElements(KeyPanelsRoundUp(c.d_model), c.d_model)) {
    set.Tolerate(EA_ERR_DIMENSION_OVERFLOW);
  }
  if (c.position == EA_POSITION_SINUSOIDAL || c.position == EA_POSITION_LEARNED) {
    ElementsRule(c.max_positions, c.d_model, &set);  // the position table
  }
  if (c.rope_table != nullptr) ElementsRule(c.max_positions, d_head, &head_rules);
  if (capacity <= INT32_MAX) {
    ElementsRule(capacity, kv_cols, &head_rules);                    // K, V of the cache
    ElementsRule(KeyPanelsRoundUp(capacity), kv_cols, &head_rules);  // in 64-position blocks
  }
  if (heads_divide) {
    set.Merge(head_rules);
  } else {
    set.Tolerate(EA_ERR_BAD_DIMENSION);
    set.Tolerate(EA_ERR_DIMENSION_OVERFLOW);
  }
  return set;
}

StatusSet MhaCrossConfigRules(const ea_cross_config& c) {
  StatusSet set;
  if (!KnownKvStorage(c.storage)) set.Add(EA_ERR_BAD_ARGUMENT);
  LayoutRule(c.weights_layout, &set);
  if (c.d_model <= 0 || c.n_heads <= 0 || c.n_kv_heads < 0 || c.max_memory <= 0 ||
      c.max_queries <= 0) {
    set.Add(EA_ERR_BAD_DIMENSION);
    return set;
  }
  const int32_t kv_heads = c.n_kv_heads == 0 ? c.n_heads : c.n_kv_heads;  // 0 means n_heads
  const bool heads_divide = c.d_model % c.n_heads == 0;
  if (!heads_divide || c.n_heads % kv_heads != 0) set.Add(EA_ERR_HEADS_MISMATCH);
  // The cache's int8 and int4 head limit (kv_cache.h), met at plan or at init.
  if (IntegerKvStorage(c.storage) && c.d_model / c.n_heads > EA_KV_Q8_MAX_D_HEAD) {
    set.Tolerate(EA_ERR_BAD_DIMENSION);
  }
  // in_proj's rows: d_model + 2 n_kv_heads d_head (at most 3 d_model). With
  // d_model not a multiple of n_heads d_head is not defined: the rule on
  // them may or may not be applied.
  StatusSet head_rules;
  const int64_t qkv_rows = c.d_model + 2 * int64_t{kv_heads} * (c.d_model / c.n_heads);
  ElementsRule(qkv_rows, c.d_model, &head_rules);  // in_proj_weight
  if (heads_divide) {
    set.Merge(head_rules);
  } else {
    set.Tolerate(EA_ERR_DIMENSION_OVERFLOW);
  }
  ElementsRule(c.d_model, c.d_model, &set);  // out_proj_weight
  if (TooManyElements(KeyPanelsRoundUp(qkv_rows), c.d_model) ||
      TooManyElements(KeyPanelsRoundUp(c.d_model), c.d_model)) {
    set.Tolerate(EA_ERR_DIMENSION_OVERFLOW);
  }
  ElementsRule(c.max_queries, c.d_model, &set);                   // x, y, Q
  ElementsRule(c.max_memory, c.d_model, &set);                    // memory, its K and V
  ElementsRule(KeyPanelsRoundUp(c.max_memory), c.d_model, &set);  // in 64-position blocks
  return set;
}

StatusSet ArenaRules(const ea_arena& arena, uint64_t need, bool config_valid) {
  StatusSet set;
  if (arena.base == nullptr) {
    set.Add(EA_ERR_BAD_ARGUMENT);
    set.Add(EA_ERR_NULL_POINTER);
    return set;
  }
  if (arena.used > arena.capacity) {
    set.Add(EA_ERR_BAD_ARGUMENT);
    set.Add(EA_ERR_ARENA_TOO_SMALL);
    return set;
  }
  if (reinterpret_cast<uintptr_t>(arena.base + arena.used) % EA_ARENA_ALIGNMENT != 0) {
    set.Add(EA_ERR_ARENA_MISALIGNED);
  }
  if (config_valid && need > arena.capacity - arena.used) set.Add(EA_ERR_ARENA_TOO_SMALL);
  return set;
}

}  // namespace edgeattn_fuzz
