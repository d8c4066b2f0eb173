#include "model_fixture.h"

#include <cmath>

#include "reference/random_tensor.h"
#include "test_support.h"

namespace edgeattn_test {

MhaModel::MhaModel(int e, int h, bool bias, uint64_t seed)
    : d_model(e),
      heads(h),
      in_proj_weight(RandomTensor(3 * e * e, seed, 1.0 / std::sqrt(e))),
      in_proj_bias(RandomTensor(3 * e, seed + 1, 0.1)),
      out_proj_weight(RandomTensor(e * e, seed + 2, 1.0 / std::sqrt(e))),
      out_proj_bias(RandomTensor(e, seed + 3, 0.1)),
      with_bias(bias) {}

ea_mha_weights MhaModel::Weights() const {
  return InProjWeights(in_proj_weight.data(), with_bias ? in_proj_bias.data() : nullptr,
                       out_proj_weight.data(), with_bias ? out_proj_bias.data() : nullptr);
}

ReferenceMhaProblem MhaModel::Problem(int n, bool causal, int n_valid_keys,
                                      const float* table) const {
  const ea_mha_weights w = Weights();
  return ReferenceMhaProblem{n,
                             d_model,
                             heads,
                             causal,
                             n_valid_keys,
                             w.in_proj_weight,
                             w.in_proj_bias,
                             w.out_proj_weight,
                             w.out_proj_bias,
                             table};
}

RunResult RunMha(const MhaModel& model, const ea_mha_config& config, const std::vector<float>& x,
                 int n_tokens, int n_valid_keys, bool want_weights,
                 const ea_mha_weights* given_weights) {
  RunResult run{
      EA_OK, std::vector<float>(static_cast<size_t>(n_tokens) * model.d_model, NAN),
      std::vector<float>(want_weights ? static_cast<size_t>(model.heads) * n_tokens * n_tokens : 0,
                         NAN)};
  size_t bytes = 0;
  run.status = ea_mha_arena_size(&config, &bytes);
  if (run.status != EA_OK) return run;
  AlignedBytes storage(bytes);
  ea_arena arena;
  ea_mha_plan plan;
  const ea_mha_weights weights = given_weights != nullptr ? *given_weights : model.Weights();
  run.status = ea_arena_init(&arena, storage.data(), storage.size());
  if (run.status == EA_OK) run.status = ea_mha_init(&plan, &config, &weights, &arena);
  if (run.status == EA_OK) {
    run.status = ea_mha_run(&plan, x.data(), n_tokens, n_valid_keys, run.y.data(),
                            want_weights ? run.weights.data() : nullptr);
  }
  return run;
}

SelfAttentionModel::SelfAttentionModel(int e, int dk, int dv, bool bias, uint64_t seed)
    : d_model(e),
      d_k(dk),
      d_v(dv),
      w_q(RandomTensor(dk * e, seed, 1.0 / std::sqrt(e))),
      w_k(RandomTensor(dk * e, seed + 1, 1.0 / std::sqrt(e))),
      w_v(RandomTensor(dv * e, seed + 2, 1.0 / std::sqrt(e))),
      b_q(RandomTensor(dk, seed + 3, 0.1)),
      b_k(RandomTensor(dk, seed + 4, 0.1)),
      b_v(RandomTensor(dv, seed + 5, 0.1)),
      with_bias(bias) {}

ea_self_attention_weights SelfAttentionModel::Weights() const {
  return ea_self_attention_weights{w_q.data(),
                                   w_k.data(),
                                   w_v.data(),
                                   with_bias ? b_q.data() : nullptr,
                                   with_bias ? b_k.data() : nullptr,
                                   with_bias ? b_v.data() : nullptr};
}

ReferenceResult SelfAttentionModel::Reference(const float* x, int n, bool causal, int n_valid_keys,
                                              const float* table) const {
  std::vector<double> input(static_cast<size_t>(n) * d_model);
  for (size_t i = 0; i < input.size(); ++i) {
    input[i] = x[i] + (table != nullptr ? table[i] : 0.0f);
  }
  const ea_self_attention_weights w = Weights();
  const std::vector<double> q = ReferenceLinear(input, n, d_model, w.w_q, w.b_q, d_k);
  const std::vector<double> k = ReferenceLinear(input, n, d_model, w.w_k, w.b_k, d_k);
  const std::vector<double> v = ReferenceLinear(input, n, d_model, w.w_v, w.b_v, d_v);
  const AttentionProblem problem{n, n, d_k, d_v, causal, n_valid_keys, 0.0};
  return ReferenceAttention(problem, q.data(), d_k, k.data(), d_k, v.data(), d_v);
}

RunResult RunSelfAttention(const SelfAttentionModel& model, const ea_self_attention_config& config,
                           const std::vector<float>& x, int n_tokens, int n_valid_keys,
                           bool want_weights) {
  RunResult run{
      EA_OK, std::vector<float>(static_cast<size_t>(n_tokens) * model.d_v, NAN),
      std::vector<float>(want_weights ? static_cast<size_t>(n_tokens) * n_tokens : 0, NAN)};
  size_t bytes = 0;
  run.status = ea_self_attention_arena_size(&config, &bytes);
  if (run.status != EA_OK) return run;
  AlignedBytes storage(bytes);
  ea_arena arena;
  ea_self_attention_plan plan;
  const ea_self_attention_weights weights = model.Weights();
  run.status = ea_arena_init(&arena, storage.data(), storage.size());
  if (run.status == EA_OK) {
    run.status = ea_self_attention_init(&plan, &config, &weights, &arena);
  }
  if (run.status == EA_OK) {
    run.status = ea_self_attention_run(&plan, x.data(), n_tokens, n_valid_keys, run.y.data(),
                                       want_weights ? run.weights.data() : nullptr);
  }
  return run;
}

}  // namespace edgeattn_test
