// The documented validation rules (include/edgeattn/edgeattn.h, DESIGN.md
// section 6), restated independently of src/runtime/validation.cc: which statuses a
// call may return for a given argument set. The order in which the library
// checks is not documented, so a call that breaks several rules may return
// the status of any of them; a call that breaks none must return EA_OK.
#ifndef EDGEATTN_TESTS_FUZZ_EXPECTED_STATUS_H_
#define EDGEATTN_TESTS_FUZZ_EXPECTED_STATUS_H_

#include <stdint.h>

#include <string>

#include "edgeattn/cross.h"
#include "edgeattn/decoder.h"
#include "edgeattn/edgeattn.h"
#include "edgeattn/kv_cache.h"

namespace edgeattn_fuzz {

class StatusSet {
 public:
  // A broken rule and the status it calls for.
  void Add(ea_status status) { broken_ |= 1u << static_cast<unsigned>(status); }
  // An undocumented corner (an input aliasing scratch, a partial in-place
  // overlap): the library may refuse it with EA_ERR_BAD_ARGUMENT or accept
  // it, and then must compute the right result.
  void AllowRefusal() { refusable_ = true; }
  // A status the library may return although no documented rule calls for
  // it (a known defect the run looks past, EDGEATTN_FUZZ_SKIP_KNOWN).
  void Tolerate(ea_status status) { tolerated_ |= 1u << static_cast<unsigned>(status); }
  void Merge(const StatusSet& other) {
    broken_ |= other.broken_;
    tolerated_ |= other.tolerated_;
    refusable_ = refusable_ || other.refusable_;
  }

  bool MustFail() const { return broken_ != 0; }
  bool Allows(ea_status status) const;
  std::string Describe() const;

 private:
  uint32_t broken_ = 0;
  uint32_t tolerated_ = 0;
  bool refusable_ = false;
};

// Rules of the configs alone (no pointers, no arena).
StatusSet AttentionConfigRules(const ea_attention_config& config);
StatusSet SelfAttentionConfigRules(const ea_self_attention_config& config);
StatusSet MhaConfigRules(const ea_mha_config& config);

// Fixed-point MHA (edgeattn/quant.h). The shape, enum and
// presence rules of ea_mha_arena_size and ea_mha_quant_init:
StatusSet QuantMhaShapeRules(const ea_mha_config& config);
// W_Q's, W_K's or W_V's scales (which = 0, 1, 2) from either form of the
// scales struct (NULL where that form lacks them). W_K and W_V have
// kv_width channels: d_model for MHA, n_kv_heads * d_k for a grouped-query
// fixed-point decoder (in_proj's scales: W_Q's, W_K's, W_V's one after
// another).
const float* InProjWeightScales(const ea_mha_quant_scales& scales, int which, int32_t d_model,
                                int32_t kv_width);
// The float quantization (ea_mha_quant_derive, and init without given
// integers): config.quant_scales is not NULL. Scales positive and finite,
// zero points in [-128, 127] (int8) or 0 (int16), the per-channel arrays
// present (W_K's and W_V's kv_width). The position and positioned tensors
// count only with positions.
StatusSet QuantScalesRules(const ea_mha_config& config, int32_t kv_width);
// TFLite's integers, given or derived, against the ranges TFLite's kernels
// (and edgeattn's) accept (k_proj and v_proj: kv_width channels). The header
// names the fields but not every range: these restate
// src/tflite/mha_quant_params.cc (README.md note 16).
StatusSet QuantParamsRules(const ea_mha_config& config, int32_t kv_width,
                           const ea_mha_quant_params& params);
// Fixed-point single-head self-attention (edgeattn.h): the same rules for
// its shape (d_k and d_v for heads), its scales (w_q, w_k, w_v's per-channel
// arrays) and its integers (q, k, v projections of d_k, d_k, d_v channels).
StatusSet QuantSelfAttentionShapeRules(const ea_self_attention_config& config);
StatusSet QuantSelfAttentionScalesRules(const ea_self_attention_config& config);
StatusSet QuantSelfAttentionParamsRules(const ea_self_attention_config& config,
                                        const ea_self_attention_quant_params& params);
// Fixed-point ADD's integers (ea_add_quant_derive's result, ea_add_quant_run_s8 /
// _s16's params) against the ranges the header gives ea_add_quant_params:
// left_shift in [0, 20] (int8) / [0, 15] (int16), shifts in [-31, 0],
// multipliers >= 0, input offsets in [-127, 128] and the output offset in
// [-128, 127] (int16: 0). EA_ERR_BAD_ARGUMENT outside them.
StatusSet AddParamsRules(ea_dtype dtype, const ea_add_quant_params& params);
// quant.h's ea_mul_quant_params ranges: multiplier >= 0, shift in [-31, 30],
// int8 input offsets in [-127, 128] and output offset in [-128, 127], int16
// offsets 0 (int16 zero points are 0, as in TFLite's 16x8 models).
StatusSet MulParamsRules(ea_dtype dtype, const ea_mul_quant_params& params);
// RoPE's integers: both MULs' and the ADD's ranges.
StatusSet RopeParamsRules(ea_dtype dtype, const ea_rope_quant_params& params);
// decoder.h's RoPE rules of a decoder config (tables and their alignment,
// layout, d_k, the rotations' scales or integers), with TFLite's Prepare
// from tests/reference where the scales are valid. The scores' integers
// from the rotated scales are the layer's derived integers: the driver
// checks them with the layer's.
StatusSet DecoderRopeRules(const ea_decoder_quant_config& config);
// Fixed-point Attention(Q, K, V) (ea_attention_arena_size on INT8 / INT16,
// ea_attention_quant_init): dtype, mask, parallel-for, the scale
// (beta: 0 or positive and finite), a quantization present, dimensions > 0,
// q, k, v, out within EA_MAX_ELEMENTS, n_kv up to 65535 (the int16
// softmax's sum, as MHA's max_tokens; the header says so for MHA only). The
// [n_q, n_kv] probabilities are a run's output: a plan may refuse them
// (EA_ERR_DIMENSION_OVERFLOW tolerated), a run asking for them must.
StatusSet QuantAttentionShapeRules(const ea_attention_config& config);
// Its scales (q, k, v, scores, output) when no integers are given.
StatusSet QuantAttentionScalesRules(const ea_attention_config& config);
// Its integers (given, or derived) against the ranges of ea_mha_quant_params.
StatusSet QuantAttentionParamsRules(ea_dtype dtype, const ea_attention_quant_params& params);
// The fixed-point MHA decoder's rules (edgeattn/decoder.h): its layer's
// (DecoderLayerOf: causal, single-threaded, max_positions rows) as
// QuantMhaShapeRules, then its own: max_step_tokens in [1, max_positions]
// (<= 0: EA_ERR_BAD_DIMENSION; above max_positions the header names no
// status: EA_ERR_BAD_DIMENSION or EA_ERR_BAD_ARGUMENT), window >= 0 and
// n_kv_heads >= 0 (EA_ERR_BAD_DIMENSION), a positive n_kv_heads dividing
// n_heads (EA_ERR_HEADS_MISMATCH). The config has no mask and no
// parallel-for.
StatusSet QuantDecoderShapeRules(const ea_decoder_quant_config& config);
bool ValidQuantScale(float scale);
bool ValidZeroPoint(ea_dtype dtype, int32_t zero_point);
// Both: a tensor's quantization TFLite's Prepare accepts for the dtype.
bool ValidQuant(ea_dtype dtype, ea_quant q);

// The KV cache (edgeattn/kv_cache.h): the config rules of
// ea_kv_cache_arena_size and ea_kv_cache_init. Dimensions > 0 (window >= 0),
// n_heads divisible by n_kv_heads, a known storage, a scale of 0 or positive
// and finite, no tensor past EA_MAX_ELEMENTS (k / v of `capacity` tokens,
// also rounded up to the 64-position blocks they are stored in, q / out of
// max_queries), and with a window capacity >= window + max_queries - 1.
StatusSet KvCacheConfigRules(const ea_kv_cache_config& config);

// The MHA decoder (edgeattn/decoder.h): the config rules of
// ea_decoder_arena_size and ea_decoder_init. Dimensions > 0 (window
// >= 0), d_model divisible by n_heads and n_heads by n_kv_heads, known enums
// (storage, position, weights layout; the RoPE layout where a RoPE table is
// given), a LEARNED table, an even d_head with RoPE, window + max_tokens - 1
// within int32, no tensor past EA_MAX_ELEMENTS (x / y / Q of max_tokens
// rows, the in_proj rows d_model + 2 n_kv_heads d_head and its matrix,
// out_proj, the step's Q|K|V, the position and RoPE tables of max_positions
// rows, the cache's K / V of its capacity, also in 64-position blocks).
// Without a window max_tokens and max_positions are independent (kv_cache.h).
StatusSet MhaDecoderConfigRules(const ea_decoder_config& config);
// Cross-attention: dimensions > 0, d_model divisible by n_heads and n_heads
// by n_kv_heads, known enums, no tensor past EA_MAX_ELEMENTS (in_proj
// [d_model + 2 n_kv_heads d_head, d_model], out_proj, x / y of max_queries
// rows, the memory and its cache of max_memory rows). max_queries and
// max_memory are independent.
StatusSet MhaCrossConfigRules(const ea_cross_config& config);

// The arena rules of init for a plan needing `need` bytes (need is
// meaningful only when the config is valid: pass config_valid).
StatusSet ArenaRules(const ea_arena& arena, uint64_t need, bool config_valid);

// Elements of a [rows, cols] tensor exceed EA_MAX_ELEMENTS.
bool TooManyElements(int64_t rows, int64_t cols);

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_EXPECTED_STATUS_H_
