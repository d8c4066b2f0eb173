// Random single-head and multi-head models and one-call helpers that plan
// and run them, shared by the MHA, self-attention and property suites.
#ifndef EDGEATTN_TESTS_MODEL_FIXTURE_H_
#define EDGEATTN_TESTS_MODEL_FIXTURE_H_

#include <stdint.h>

#include <vector>

#include "edgeattn/edgeattn.h"
#include "reference/reference_attention.h"

namespace edgeattn_test {

// nn.MultiheadAttention-layout weights with N(0, 1/d_model) entries.
struct MhaModel {
  int d_model;
  int heads;
  std::vector<float> in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias;
  bool with_bias;

  MhaModel(int d_model, int heads, bool with_bias, uint64_t seed);
  ea_mha_weights Weights() const;
  // Reference problem for n tokens; table may be null.
  ReferenceMhaProblem Problem(int n, bool causal, int n_valid_keys, const float* table) const;
};

struct RunResult {
  ea_status status;
  std::vector<float> y;
  std::vector<float> weights;
};

// Plans for max_tokens and runs n_tokens of x. Weights output on request.
// The model's weights, or `weights` (another form of them) where given.
RunResult RunMha(const MhaModel& model, const ea_mha_config& config, const std::vector<float>& x,
                 int n_tokens, int n_valid_keys, bool want_weights,
                 const ea_mha_weights* weights = nullptr);

// Single-head self-attention weights: W_Q, W_K [d_k, d_model], W_V [d_v, d_model].
struct SelfAttentionModel {
  int d_model, d_k, d_v;
  std::vector<float> w_q, w_k, w_v, b_q, b_k, b_v;
  bool with_bias;

  SelfAttentionModel(int d_model, int d_k, int d_v, bool with_bias, uint64_t seed);
  ea_self_attention_weights Weights() const;
  // Double-precision reference on n tokens of x (+ table when not null).
  ReferenceResult Reference(const float* x, int n, bool causal, int n_valid_keys,
                            const float* table) const;
};

RunResult RunSelfAttention(const SelfAttentionModel& model, const ea_self_attention_config& config,
                           const std::vector<float>& x, int n_tokens, int n_valid_keys,
                           bool want_weights);

}  // namespace edgeattn_test

#endif  // EDGEATTN_TESTS_MODEL_FIXTURE_H_
