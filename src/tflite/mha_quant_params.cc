// TFLite's Prepare for the MHA chain, op by op, in the precision TFLite
// Micro's Prepare functions use (noted at each), and the checks of the
// resulting integers.
#include "tflite/mha_quant_params.h"

#include <math.h>

#include <initializer_list>

#include "tflite/exact_float_math.h"
#include "tflite/quantize_multiplier.h"
#include "tflite/softmax_s16_tables.h"

namespace edgeattn {
namespace {

bool IsInt8(ea_dtype dtype) { return dtype == EA_DTYPE_INT8; }

bool ValidScale(float scale) { return scale > 0.0f && isfinite(scale); }

// FULLY_CONNECTED per channel (CalculateOpDataFullyConnected):
// (double)s_in * (double)s_w[c] / (double)s_out.
void DeriveLinear(ea_quant in, const float* weight_scales, ea_quant out, int32_t channels,
                  int32_t* multipliers, int32_t* shifts, ea_linear_quant_params* params) {
  params->input_offset = -in.zero_point;
  params->output_offset = out.zero_point;
  for (int32_t c = 0; c < channels; ++c) {
    const QuantizedMultiplier m =
        QuantizeMultiplier(static_cast<double>(in.scale) * static_cast<double>(weight_scales[c]) /
                           static_cast<double>(out.scale));
    multipliers[c] = m.multiplier;
    shifts[c] = m.shift;
  }
  params->output_multiplier = multipliers;
  params->output_shift = shifts;
}

// BATCH_MATMUL (GetQuantizedConvolutionMultipler): the scale product in
// float, then (double)product / (double)s_out.
ea_matmul_quant_params DeriveMatmul(ea_quant lhs, ea_quant rhs, ea_quant out) {
  const float product = lhs.scale * rhs.scale;
  const QuantizedMultiplier m =
      QuantizeMultiplier(static_cast<double>(product) / static_cast<double>(out.scale));
  return {-lhs.zero_point, -rhs.zero_point, out.zero_point, m.multiplier, m.shift};
}

// SOFTMAX (CalculateSoftmaxParams) with beta = 1/sqrt(d_k) in float.
ea_softmax_quant_params DeriveSoftmax(ea_dtype dtype, float beta, ea_quant scores) {
  ea_softmax_quant_params p{};
  if (IsInt8(dtype)) {
    const SoftmaxS8Scaling s =
        PrepareSoftmaxS8(static_cast<double>(beta), static_cast<double>(scores.scale));
    p.input_multiplier = s.multiplier;
    p.input_left_shift = s.left_shift;
    p.diff_min = s.diff_min;
  } else {
    // [-65535, 0] in input units maps onto [-10, 0].
    const QuantizedMultiplier m = QuantizeMultiplier(static_cast<double>(scores.scale) *
                                                     static_cast<double>(beta) / (10.0 / 65535.0));
    p.input_multiplier = m.multiplier;
    p.input_left_shift = m.shift;
  }
  return p;
}

bool ValidMultiplier(int32_t multiplier) { return multiplier >= 0; }

// The 32-bit requantisation's shift range, and the 64-bit one's.
bool ValidShift(ea_dtype dtype, int32_t shift) {
  return shift >= -31 && shift <= (IsInt8(dtype) ? 30 : 7);
}

bool ValidOffset(ea_dtype dtype, int32_t offset, bool negated) {
  if (!IsInt8(dtype)) return offset == 0;
  return negated ? (offset >= -127 && offset <= 128) : (offset >= -128 && offset <= 127);
}

ea_status CheckLinear(ea_dtype dtype, const ea_linear_quant_params& p, int32_t channels) {
  if (p.output_multiplier == nullptr || p.output_shift == nullptr) return EA_ERR_NULL_POINTER;
  if (!ValidOffset(dtype, p.input_offset, true) || !ValidOffset(dtype, p.output_offset, false)) {
    return EA_ERR_BAD_ARGUMENT;
  }
  for (int32_t i = 0; i < channels; ++i) {
    if (!ValidMultiplier(p.output_multiplier[i]) || !ValidShift(dtype, p.output_shift[i])) {
      return EA_ERR_BAD_ARGUMENT;
    }
  }
  return EA_OK;
}

ea_status CheckMatmul(ea_dtype dtype, const ea_matmul_quant_params& p, bool lhs_is_probs) {
  // int8 probabilities have zero point -128: the context's lhs offset is 128.
  const bool lhs_ok = lhs_is_probs ? p.input_offset == (IsInt8(dtype) ? 128 : 0)
                                   : ValidOffset(dtype, p.input_offset, true);
  const bool ok = lhs_ok && ValidOffset(dtype, p.weights_offset, true) &&
                  ValidOffset(dtype, p.output_offset, false) &&
                  ValidMultiplier(p.output_multiplier) && ValidShift(dtype, p.output_shift);
  return ok ? EA_OK : EA_ERR_BAD_ARGUMENT;
}

// A 513-entry Q0.15 table of the int16 softmax: every entry in [0, 32767],
// so that every interpolated value is too.
bool ValidSoftmaxS16Table(const int16_t* table) {
  for (int i = 0; i < kSoftmaxS16TableSize; ++i) {
    if (table[i] < 0) return false;
  }
  return true;
}

// A model's int16 softmax tables, both or neither (softmax_s16.h): the exp
// table's value at 0 (InterpolateTable(32767): entry 511, 127/128 of the way
// to 512) bounds a row's sum from below.
bool ValidSoftmaxS16Tables(const int16_t* exp, const int16_t* reciprocal) {
  if (exp == nullptr || reciprocal == nullptr) return exp == reciprocal;
  if (!ValidSoftmaxS16Table(exp) || !ValidSoftmaxS16Table(reciprocal)) return false;
  const int32_t slope = static_cast<int16_t>(exp[512] - exp[511]);
  return exp[511] + ((slope * 127 + 64) >> 7) >= 16384;
}

ea_status CheckSoftmax(ea_dtype dtype, const ea_softmax_quant_params& p) {
  if (!ValidMultiplier(p.input_multiplier)) return EA_ERR_BAD_ARGUMENT;
  if (!IsInt8(dtype)) {
    if (!ValidSoftmaxS16Tables(p.exp_lut, p.one_over_one_plus_x_lut)) return EA_ERR_BAD_ARGUMENT;
    return p.input_left_shift >= -31 && p.input_left_shift <= 30 ? EA_OK : EA_ERR_BAD_ARGUMENT;
  }
  if (p.exp_lut != nullptr || p.one_over_one_plus_x_lut != nullptr) return EA_ERR_BAD_ARGUMENT;
  // Every difference the softmax evaluates (0 down to diff_min, at most 255
  // apart), times 2^left_shift, must fit int32.
  if (p.input_left_shift < 0 || p.input_left_shift > 31 || p.diff_min > 0) {
    return EA_ERR_BAD_ARGUMENT;
  }
  const int64_t magnitude = -static_cast<int64_t>(p.diff_min < -255 ? -255 : p.diff_min);
  return magnitude * (int64_t{1} << p.input_left_shift) <= INT32_MAX ? EA_OK : EA_ERR_BAD_ARGUMENT;
}

// The multipliers of a per-channel projection are all usable (no shift past
// the requantisation's range), checked before anything is written.
bool LinearDerivable(ea_dtype dtype, ea_quant in, const float* weight_scales, ea_quant out,
                     int32_t channels) {
  for (int32_t i = 0; i < channels; ++i) {
    const QuantizedMultiplier m =
        QuantizeMultiplier(static_cast<double>(in.scale) * static_cast<double>(weight_scales[i]) /
                           static_cast<double>(out.scale));
    if (!ValidMultiplier(m.multiplier) || !ValidShift(dtype, m.shift)) return false;
  }
  return true;
}

}  // namespace

// ADD (CalculateOpDataAdd): twice the larger input scale, in double.
ea_add_quant_params DeriveAdd(ea_dtype dtype, ea_quant a, ea_quant b, ea_quant out) {
  ea_add_quant_params p{};
  p.left_shift = IsInt8(dtype) ? 20 : 15;
  p.input1_offset = -a.zero_point;
  p.input2_offset = -b.zero_point;
  p.output_offset = out.zero_point;
  const double twice_max = 2.0 * static_cast<double>(a.scale > b.scale ? a.scale : b.scale);
  const QuantizedMultiplier m1 = QuantizeMultiplier(static_cast<double>(a.scale) / twice_max);
  const QuantizedMultiplier m2 = QuantizeMultiplier(static_cast<double>(b.scale) / twice_max);
  const QuantizedMultiplier mo =
      QuantizeMultiplier(twice_max / (static_cast<double>(int64_t{1} << p.left_shift) *
                                      static_cast<double>(out.scale)));
  p.input1_multiplier = m1.multiplier;
  p.input1_shift = m1.shift;
  p.input2_multiplier = m2.multiplier;
  p.input2_shift = m2.shift;
  p.output_multiplier = mo.multiplier;
  p.output_shift = mo.shift;
  return p;
}

ea_status CheckAdd(ea_dtype dtype, const ea_add_quant_params& p) {
  const bool shifts_ok = p.left_shift >= 0 && p.left_shift <= (IsInt8(dtype) ? 20 : 15) &&
                         p.input1_shift >= -31 && p.input1_shift <= 0 && p.input2_shift >= -31 &&
                         p.input2_shift <= 0 && p.output_shift >= -31 && p.output_shift <= 0;
  const bool ok = shifts_ok && ValidOffset(dtype, p.input1_offset, true) &&
                  ValidOffset(dtype, p.input2_offset, true) &&
                  ValidOffset(dtype, p.output_offset, false) &&
                  ValidMultiplier(p.input1_multiplier) && ValidMultiplier(p.input2_multiplier) &&
                  ValidMultiplier(p.output_multiplier);
  return ok ? EA_OK : EA_ERR_BAD_ARGUMENT;
}

bool IsValidQuant(ea_dtype dtype, ea_quant q) {
  if (!ValidScale(q.scale)) return false;
  return dtype == EA_DTYPE_INT8 ? (q.zero_point >= -128 && q.zero_point <= 127) : q.zero_point == 0;
}

namespace {

// A scales struct's softmax_beta: 0 (the default) or positive and finite.
bool ValidBeta(float beta) { return beta == 0.0f || ValidScale(beta); }
// The beta a softmax over heads of d_k channels derives with.
float BetaOr(float beta, int32_t d_k) { return beta != 0.0f ? beta : InverseSqrt(d_k); }

// W_Q's, W_K's and W_V's per-channel scales ([d_model], then [kv_width]
// twice) from either form of ea_mha_quant_scales: EA_ERR_NULL_POINTER for a
// missing one, EA_ERR_BAD_ARGUMENT for both forms.
ea_status InProjScales(const ea_mha_quant_scales& s, int32_t d_model, int32_t kv_width,
                       const float* parts[3]) {
  const bool any_separate = s.q_proj_weight_scales != nullptr ||
                            s.k_proj_weight_scales != nullptr || s.v_proj_weight_scales != nullptr;
  if (s.in_proj_weight_scales != nullptr) {
    if (any_separate) return EA_ERR_BAD_ARGUMENT;
    parts[0] = s.in_proj_weight_scales;
    parts[1] = s.in_proj_weight_scales + d_model;
    parts[2] = s.in_proj_weight_scales + d_model + kv_width;
    return EA_OK;
  }
  parts[0] = s.q_proj_weight_scales;
  parts[1] = s.k_proj_weight_scales;
  parts[2] = s.v_proj_weight_scales;
  return parts[0] != nullptr && parts[1] != nullptr && parts[2] != nullptr ? EA_OK
                                                                           : EA_ERR_NULL_POINTER;
}

}  // namespace

ea_status DeriveMhaQuantParams(const ea_mha_config& c, int32_t kv_width,
                               ea_mha_quant_params* params, int32_t* channel_ints,
                               const MhaQuantOperands& operands) {
  const ea_dtype dtype = c.dtype;
  const ea_mha_quant_scales* s = c.quant_scales;
  if (s == nullptr || s->out_proj_weight_scales == nullptr) return EA_ERR_NULL_POINTER;
  const float* w[3] = {};
  const ea_status form = InProjScales(*s, c.d_model, kv_width, w);
  if (form != EA_OK) return form;
  const bool positions = c.position != EA_POSITION_NONE;
  const ea_quant model_input = positions ? s->positioned : s->input;
  const ea_quant tensors[] = {s->input, model_input, s->q,       s->k,
                              s->v,     s->scores,   s->context, s->output};
  for (const ea_quant& q : tensors) {
    if (!IsValidQuant(dtype, q)) return EA_ERR_BAD_ARGUMENT;
  }
  if (positions && !IsValidQuant(dtype, s->position)) return EA_ERR_BAD_ARGUMENT;
  if (!ValidBeta(s->softmax_beta)) return EA_ERR_BAD_ARGUMENT;

  const int32_t e = c.d_model;
  const int32_t channels[3] = {e, kv_width, kv_width};
  for (int32_t which = 0; which < 3; ++which) {
    for (int32_t i = 0; i < channels[which]; ++i) {
      if (!ValidScale(w[which][i])) return EA_ERR_BAD_ARGUMENT;
    }
  }
  for (int32_t i = 0; i < e; ++i) {
    if (!ValidScale(s->out_proj_weight_scales[i])) return EA_ERR_BAD_ARGUMENT;
  }
  ea_mha_quant_params p{};
  if (positions) {
    p.add = DeriveAdd(dtype, s->input, s->position, s->positioned);
    p.position = s->position;
  }
  const ea_quant scores_q = operands.scores != nullptr ? operands.scores[0] : s->q;
  const ea_quant scores_k = operands.scores != nullptr ? operands.scores[1] : s->k;
  const ea_quant kv_input = operands.kv_input != nullptr ? *operands.kv_input : model_input;
  p.scores = DeriveMatmul(scores_q, scores_k, s->scores);
  p.softmax = DeriveSoftmax(dtype, BetaOr(s->softmax_beta, c.d_model / c.n_heads), s->scores);
  const ea_quant probs =
      IsInt8(dtype) ? ea_quant{1.0f / 256.0f, -128} : ea_quant{1.0f / 32768.0f, 0};
  p.context = DeriveMatmul(probs, s->v, s->context);
  // Everything that can be refused is checked before channel_ints is written.
  const bool scalars_ok = (!positions || CheckAdd(dtype, p.add) == EA_OK) &&
                          CheckMatmul(dtype, p.scores, false) == EA_OK &&
                          CheckSoftmax(dtype, p.softmax) == EA_OK &&
                          CheckMatmul(dtype, p.context, true) == EA_OK;
  const bool channels_ok =
      LinearDerivable(dtype, model_input, w[0], s->q, e) &&
      LinearDerivable(dtype, kv_input, w[1], s->k, kv_width) &&
      LinearDerivable(dtype, kv_input, w[2], s->v, kv_width) &&
      LinearDerivable(dtype, s->context, s->out_proj_weight_scales, s->output, e);
  if (!scalars_ok || !channels_ok) return EA_ERR_BAD_ARGUMENT;
  // Multipliers then shifts of q, k, v and out, one after another.
  int32_t* next = channel_ints;
  const auto derive = [&](ea_quant in, const float* scales, ea_quant out, int32_t count,
                          ea_linear_quant_params* linear) {
    DeriveLinear(in, scales, out, count, next, next + count, linear);
    next += 2 * count;
  };
  derive(model_input, w[0], s->q, e, &p.q_proj);
  derive(kv_input, w[1], s->k, kv_width, &p.k_proj);
  derive(kv_input, w[2], s->v, kv_width, &p.v_proj);
  derive(s->context, s->out_proj_weight_scales, s->output, e, &p.out_proj);
  *params = p;
  return EA_OK;
}

ea_status DeriveSelfAttentionQuantParams(const ea_self_attention_config& c,
                                         ea_self_attention_quant_params* params,
                                         int32_t* channel_ints) {
  const ea_dtype dtype = c.dtype;
  const ea_self_attention_quant_scales* s = c.quant_scales;
  if (s == nullptr || s->w_q_scales == nullptr || s->w_k_scales == nullptr ||
      s->w_v_scales == nullptr) {
    return EA_ERR_NULL_POINTER;
  }
  const bool positions = c.position != EA_POSITION_NONE;
  const ea_quant model_input = positions ? s->positioned : s->input;
  for (const ea_quant& q : {s->input, model_input, s->q, s->k, s->v, s->scores, s->output}) {
    if (!IsValidQuant(dtype, q)) return EA_ERR_BAD_ARGUMENT;
  }
  if (positions && !IsValidQuant(dtype, s->position)) return EA_ERR_BAD_ARGUMENT;
  if (!ValidBeta(s->softmax_beta)) return EA_ERR_BAD_ARGUMENT;
  const float* channel_scales[3] = {s->w_q_scales, s->w_k_scales, s->w_v_scales};
  const ea_quant outputs[3] = {s->q, s->k, s->v};
  const int32_t channels[3] = {c.d_k, c.d_k, c.d_v};
  for (int m = 0; m < 3; ++m) {
    for (int32_t i = 0; i < channels[m]; ++i) {
      if (!ValidScale(channel_scales[m][i])) return EA_ERR_BAD_ARGUMENT;
    }
    if (!LinearDerivable(dtype, model_input, channel_scales[m], outputs[m], channels[m])) {
      return EA_ERR_BAD_ARGUMENT;
    }
  }
  ea_self_attention_quant_params p{};
  if (positions) {
    p.add = DeriveAdd(dtype, s->input, s->position, s->positioned);
    p.position = s->position;
    if (CheckAdd(dtype, p.add) != EA_OK) return EA_ERR_BAD_ARGUMENT;
  }
  const ea_attention_quant_scales attention{s->q, s->k, s->v, s->scores, s->output};
  const ea_status status =
      DeriveAttentionQuantParams(dtype, BetaOr(s->softmax_beta, c.d_k), attention, &p.attention);
  if (status != EA_OK) return status;
  // Nothing is refused from here on: channel_ints is written.
  ea_linear_quant_params* projections[3] = {&p.q_proj, &p.k_proj, &p.v_proj};
  int32_t* next = channel_ints;
  for (int m = 0; m < 3; ++m) {
    DeriveLinear(model_input, channel_scales[m], outputs[m], channels[m], next, next + channels[m],
                 projections[m]);
    next += 2 * channels[m];
  }
  *params = p;
  return EA_OK;
}

ea_status CheckSelfAttentionQuantParams(const ea_self_attention_config& c,
                                        const ea_self_attention_quant_params& p) {
  const ea_dtype dtype = c.dtype;
  ea_status status = c.position != EA_POSITION_NONE ? CheckAdd(dtype, p.add) : EA_OK;
  if (status == EA_OK) status = CheckLinear(dtype, p.q_proj, c.d_k);
  if (status == EA_OK) status = CheckLinear(dtype, p.k_proj, c.d_k);
  if (status == EA_OK) status = CheckLinear(dtype, p.v_proj, c.d_v);
  if (status == EA_OK) status = CheckAttentionQuantParams(dtype, p.attention);
  return status;
}

ea_status DeriveAttentionQuantParams(ea_dtype dtype, float beta, const ea_attention_quant_scales& s,
                                     ea_attention_quant_params* params) {
  for (const ea_quant& q : {s.q, s.k, s.v, s.scores, s.output}) {
    if (!IsValidQuant(dtype, q)) return EA_ERR_BAD_ARGUMENT;
  }
  ea_attention_quant_params p{};
  p.scores = DeriveMatmul(s.q, s.k, s.scores);
  p.softmax = DeriveSoftmax(dtype, beta, s.scores);
  const ea_quant probs =
      IsInt8(dtype) ? ea_quant{1.0f / 256.0f, -128} : ea_quant{1.0f / 32768.0f, 0};
  p.context = DeriveMatmul(probs, s.v, s.output);
  const ea_status status = CheckAttentionQuantParams(dtype, p);
  if (status == EA_OK) *params = p;
  return status;
}

ea_status CheckAttentionQuantParams(ea_dtype dtype, const ea_attention_quant_params& p) {
  ea_status status = CheckMatmul(dtype, p.scores, false);
  if (status == EA_OK) status = CheckSoftmax(dtype, p.softmax);
  if (status == EA_OK) status = CheckMatmul(dtype, p.context, true);
  return status;
}

ea_status CheckMhaQuantParams(const ea_mha_config& c, int32_t kv_width,
                              const ea_mha_quant_params& p) {
  const ea_dtype dtype = c.dtype;
  const int32_t e = c.d_model;
  ea_status status = c.position != EA_POSITION_NONE ? CheckAdd(dtype, p.add) : EA_OK;
  if (status == EA_OK) status = CheckLinear(dtype, p.q_proj, e);
  if (status == EA_OK) status = CheckLinear(dtype, p.k_proj, kv_width);
  if (status == EA_OK) status = CheckLinear(dtype, p.v_proj, kv_width);
  if (status == EA_OK) status = CheckLinear(dtype, p.out_proj, e);
  if (status == EA_OK) status = CheckMatmul(dtype, p.scores, false);
  if (status == EA_OK) status = CheckSoftmax(dtype, p.softmax);
  if (status == EA_OK) status = CheckMatmul(dtype, p.context, true);
  return status;
}

}  // namespace edgeattn
