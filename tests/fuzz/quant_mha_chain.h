// What the fixed-point MHA family (fuzz_quant_mha.cc) and the fixed-point
// decoder family (fuzz_quant_decoder.cc) share about one ea_mha_config: the
// heads a case picks, the scales' fields, TFLite's integers derived from the
// scales (or defaults) with caller-owned per-channel arrays, the whole
// integer chain of tests/reference on the integers a plan uses, and a config
// broken for a re-plan.
#ifndef EDGEATTN_TESTS_FUZZ_QUANT_MHA_CHAIN_H_
#define EDGEATTN_TESTS_FUZZ_QUANT_MHA_CHAIN_H_

#include <stdint.h>

#include <vector>

#include "edgeattn/edgeattn.h"
#include "expected_status.h"
#include "fuzz_case.h"
#include "quant_case_support.h"

namespace edgeattn_fuzz {

// A case's heads: the heads_kind-th divisor of d_model, or its own `heads`.
template <class Case>
int32_t HeadsOf(const Case& c) {
  if (c.heads_kind >= 200 || c.d_model <= 0 || c.d_model > (1 << 16)) return c.heads;
  std::vector<int32_t> divisors;
  for (int32_t h = 1; h <= c.d_model; ++h) {
    if (c.d_model % h == 0) divisors.push_back(h);
  }
  return divisors[c.heads_kind % divisors.size()];
}

// ea_mha_quant_scales' i-th ea_quant field (QuantCase::tensors' order).
ea_quant* TensorField(ea_mha_quant_scales* s, int i);

// Integers with caller-owned per-channel arrays (given, or the harness's).
struct Integers {
  ea_mha_quant_params params{};
  std::vector<int32_t> multipliers[4], shifts[4];
  std::vector<int16_t> softmax_tables;  // a device's (GiveSoftmaxTables), where given

  ea_linear_quant_params* Linear(int l) {
    ea_linear_quant_params* all[4] = {&params.q_proj, &params.k_proj, &params.v_proj,
                                      &params.out_proj};
    return all[l];
  }
  void Point() {
    for (int l = 0; l < 4; ++l) {
      Linear(l)->output_multiplier = multipliers[l].data();
      Linear(l)->output_shift = shifts[l].data();
    }
  }
  // The fields a ParamEdit can change (43).
  EditableFields Fields() {
    EditableFields f;
    f.scalars = ScalarFields(&params.add, &params.scores, &params.context, &params.softmax);
    for (int l = 0; l < 4; ++l) f.linears.push_back({Linear(l), &multipliers[l], &shifts[l]});
    return f;
  }
};

// TFLite's Prepare on valid scales, through the reference's formulas.
// infinite: q.scale * k.scale overflows float (the real multiplier is +inf).
struct Derivation {
  Integers integers;
  bool infinite_scores = false;
};
// (W_K and W_V: kv_width channels, as QuantScalesRules; their input at
// *kv_input where given, a cross-attention's memory, else x's.)
Derivation DeriveLikeTflite(const ea_mha_config& c, int32_t kv_width,
                            const ea_quant* kv_input = nullptr);
// Plausible integers where none were derived (DefaultScalars, unit channels).
Integers DefaultIntegers(const ea_mha_config& c);

// The integer reference on the integers the plan uses: y, and the
// probabilities concatenated over heads.
struct ReferenceOutputs {
  std::vector<int32_t> y, probs;
};
// RunChainInt8 / RunChainInt16 (by c.dtype) on n tokens of x (and the table's
// first n rows, or none), the weights and biases (NULL: absent); causal
// with a sliding `window` (0: none); with `kv_heads` grouped-query heads (0:
// n_heads), whose W_K and W_V rows (and biases, and k_proj's and v_proj's
// integers) are the first kv_heads * d_k of each, in_proj's rows W_Q's,
// W_K's, W_V's one after another.
// With `rope` (a decoder's RoPE): q and k rotated after their projections
// with its integers and the model's tables (rows 0..n-1).
// With n_memory > 0 (a cross-attention): k and v are the projections of
// `memory`'s n_memory rows, every query row's softmax over all of them
// (ChainShape::n_memory; c's mask must then be NONE).
struct RopeInputs {
  ea_rope_quant_params q, k;
  bool interleaved;
  const uint8_t* cos;  // [>= n, d_k] of the dtype
  const uint8_t* sin;
};
ReferenceOutputs MhaReference(const ea_mha_config& c, const ea_mha_quant_params& p, int n,
                              int n_valid_keys, const uint8_t* x, const uint8_t* table,
                              const int8_t* in_w, const int8_t* out_w, const uint8_t* in_b,
                              const uint8_t* out_b, int window = 0, int kv_heads = 0,
                              const RopeInputs* rope = nullptr, const uint8_t* memory = nullptr,
                              int n_memory = 0);

// A layer's quantization as a fixed-point MHA case gives it (QuantCase's
// tensors, QuantCommon): the scales (nominal, jittered or bad), the
// per-channel weight scales (in_proj's 3 d_model, then out_proj's), TFLite's
// integers derived from valid scales, the integers given (derived or
// defaults, then edited). Not copyable: the config points into it.
struct MhaQuantization {
  ea_mha_quant_scales scales{};
  std::vector<float> weight_scales;
  StatusSet scales_rules;  // QuantScalesRules where checkable (fixed, built, scales given)
  bool derivable = false, infinite = false, params_given = false;
  Derivation derivation;
  Integers given;
  const ea_mha_quant_params* used = nullptr;  // the integers a plan uses, when it plans

  MhaQuantization() = default;
  MhaQuantization(const MhaQuantization&) = delete;
  MhaQuantization& operator=(const MhaQuantization&) = delete;
};
// Fills *q for *config (dtype, max_tokens, d_model, heads, position set) and
// points config->quant_scales (when scales_given) and quant_params (when the
// case gives integers) into it. materialised: in_proj and the table are
// small enough to build (otherwise nothing is derived or given). W_K and
// W_V have kv_width channels (d_model for MHA; a grouped-query decoder's
// fewer read the first ones of the same arrays; in_proj's scales W_Q's,
// W_K's and W_V's one after another). kv_input: W_K's and W_V's input
// quantization (a cross-attention's memory; NULL: x's); invalid, nothing is
// derived.
void QuantizeLayer(const QuantTensor (&tensors)[kQuantTensors], const QuantCommon& qc,
                   bool scales_given, bool materialised, int32_t kv_width, ea_mha_config* config,
                   MhaQuantization* q, const ea_quant* kv_input = nullptr);

// A config that breaks at least one rule, for re-planning a ready plan.
ea_mha_config BrokenConfig(const ea_mha_config& good, const Common& common);

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_QUANT_MHA_CHAIN_H_
