// The quantization of fixed-point MHA and Attention(Q, K, V) plans: TFLite's
// Prepare on float scales (ea_mha_quant_derive), and the range checks every
// integer parameter passes before a plan uses it, whether derived or given.
#ifndef EDGEATTN_SRC_TFLITE_MHA_QUANT_PARAMS_H_
#define EDGEATTN_SRC_TFLITE_MHA_QUANT_PARAMS_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"

namespace edgeattn {

// Operands of a layer's ops that are not quant_scales' own, each NULL for
// quant_scales': the scores' q and k ([2]; a decoder with RoPE: the rotated
// tensors' quantization) and the input of k's and v's FULLY_CONNECTED
// (cross-attention: the memory's). Given ones are valid already.
struct MhaQuantOperands {
  const ea_quant* scores = nullptr;
  const ea_quant* kv_input = nullptr;
};

// Scales and zero points of config->quant_scales, then TFLite's Prepare into
// *params with per-channel arrays in channel_ints[4 * d_model + 4 * kv_width]
// (q, k, v, out: multipliers then shifts). W_K and W_V have kv_width
// channels: d_model for MHA, n_kv_heads * d_k for a grouped-query decoder.
// config's dtype and d_model, and kv_width, are already valid.
ea_status DeriveMhaQuantParams(const ea_mha_config& config, int32_t kv_width,
                               ea_mha_quant_params* params, int32_t* channel_ints,
                               const MhaQuantOperands& operands = {});

// The same for single-head self-attention, channel_ints[2 * (2 * d_k + d_v)]
// (q, k, v: multipliers then shifts).
ea_status DeriveSelfAttentionQuantParams(const ea_self_attention_config& config,
                                         ea_self_attention_quant_params* params,
                                         int32_t* channel_ints);
ea_status CheckSelfAttentionQuantParams(const ea_self_attention_config& config,
                                        const ea_self_attention_quant_params& params);

// TFLite's Prepare of ADD (CalculateOpDataAdd) on the quantization of its
// tensors, and the ranges its integers must lie in (EA_ERR_BAD_ARGUMENT
// otherwise).
ea_add_quant_params DeriveAdd(ea_dtype dtype, ea_quant a, ea_quant b, ea_quant out);
ea_status CheckAdd(ea_dtype dtype, const ea_add_quant_params& params);

// A positive, finite scale and a zero point of the dtype's range (int16: 0).
bool IsValidQuant(ea_dtype dtype, ea_quant quant);

// EA_ERR_NULL_POINTER for a missing per-channel array, EA_ERR_BAD_ARGUMENT
// for any value outside what the kernels (and TFLite) accept.
// (k_proj and v_proj: kv_width channels, as in DeriveMhaQuantParams.)
ea_status CheckMhaQuantParams(const ea_mha_config& config, int32_t kv_width,
                              const ea_mha_quant_params& params);

// The same for fixed-point Attention(Q, K, V): the softmax's beta is the
// config's scale (1/sqrt(d_k) by default). Writes *params only on EA_OK.
ea_status DeriveAttentionQuantParams(ea_dtype dtype, float beta,
                                     const ea_attention_quant_scales& scales,
                                     ea_attention_quant_params* params);
ea_status CheckAttentionQuantParams(ea_dtype dtype, const ea_attention_quant_params& params);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_TFLITE_MHA_QUANT_PARAMS_H_
