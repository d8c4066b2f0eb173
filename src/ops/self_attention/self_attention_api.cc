// C entry points of single-head self-attention from X with W_Q, W_K, W_V.
#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "kernels/f32/f32_kernels.h"
#include "ops/attention_core.h"
#include "ops/model_input.h"
#include "runtime/arena.h"
#include "runtime/simd_target_cap.h"
#include "runtime/validation.h"

namespace edgeattn {
namespace {

// The core runs on n x n (self-attention), planned for max_tokens.
ea_attention_config CoreConfig(const ea_self_attention_config& c) {
  ea_attention_config core{};
  core.dtype = c.dtype;
  core.n_q = c.max_tokens;
  core.n_kv = c.max_tokens;
  core.d_k = c.d_k;
  core.d_v = c.d_v;
  core.mask = c.mask;
  core.scale = 0.0f;
  core.parallel = c.parallel;
  return core;
}

ea_status Validate(const ea_self_attention_config& c) {
  // Fixed-point configs have their own plan (ea_self_attention_quant_init).
  ea_status status = CheckFloatDtype(c.dtype);
  if (status == EA_OK) status = CheckPositive(c.max_tokens, c.d_model, c.d_k, c.d_v);
  if (status == EA_OK)
    status = ValidateModelInput(c.max_tokens, c.d_model, c.position, c.position_table);
  if (status == EA_OK) status = CheckWeightMatrix(c.weights_layout, c.d_k, c.d_model);
  if (status == EA_OK) status = CheckWeightMatrix(c.weights_layout, c.d_v, c.d_model);
  if (status == EA_OK) status = ValidateAttentionConfig(CoreConfig(c));
  return status;
}

uint64_t ArenaBytes(const ea_self_attention_config& c) {
  return SelfAttentionArenaBytes(c.max_tokens, c.d_model, c.d_k, c.d_v,
                                 StorageOf(c.position, c.position_table == nullptr),
                                 c.weights_layout, c.parallel.max_workers);
}

// What plans and runs read and must not overwrite: weights, biases and the
// position table (`table`: the caller's, or the plan's resolved one).
constexpr size_t kKeptCount = 7;
struct Kept {
  Extent extents[kKeptCount];
};
Kept KeptExtents(const ea_self_attention_config& c, const ea_self_attention_weights& w,
                 const float* table) {
  Kept kept{};
  kept.extents[0] = Extent{w.w_q, WeightMatrixBytes(c.d_k, c.d_model, c.weights_layout)};
  kept.extents[1] = Extent{w.w_k, WeightMatrixBytes(c.d_k, c.d_model, c.weights_layout)};
  kept.extents[2] = Extent{w.w_v, WeightMatrixBytes(c.d_v, c.d_model, c.weights_layout)};
  kept.extents[3] = Extent{w.b_q, FloatBytes(c.d_k)};
  kept.extents[4] = Extent{w.b_k, FloatBytes(c.d_k)};
  kept.extents[5] = Extent{w.b_v, FloatBytes(c.d_v)};
  kept.extents[6] = Extent{table, FloatBytes(int64_t{c.max_tokens} * c.d_model)};
  return kept;
}

}  // namespace
}  // namespace edgeattn

extern "C" {

ea_status ea_self_attention_arena_size(const ea_self_attention_config* config, size_t* bytes) {
  if (config == nullptr || bytes == nullptr) return EA_ERR_NULL_POINTER;
  const ea_status status = edgeattn::Validate(*config);
  if (status != EA_OK) return status;
  return edgeattn::ToSize(edgeattn::ArenaBytes(*config), bytes);
}

ea_status ea_self_attention_init(ea_self_attention_plan* plan,
                                 const ea_self_attention_config* config,
                                 const ea_self_attention_weights* weights, ea_arena* arena) {
  if (plan == nullptr) return EA_ERR_NULL_POINTER;
  plan->ready = 0;  // a failed re-plan must not leave the old plan runnable
  edgeattn::ApplySimdTargetCap();
  if (config == nullptr || weights == nullptr || arena == nullptr) return EA_ERR_NULL_POINTER;
  if (weights->w_q == nullptr || weights->w_k == nullptr || weights->w_v == nullptr) {
    return EA_ERR_NULL_POINTER;
  }
  ea_status status = edgeattn::Validate(*config);
  if (status == EA_OK) status = edgeattn::CheckArenaFits(arena, edgeattn::ArenaBytes(*config));
  if (status == EA_OK) {
    const edgeattn::Kept kept = edgeattn::KeptExtents(
        *config, *weights, edgeattn::TableTheModeReads(config->position, config->position_table));
    status =
        edgeattn::CheckKeptOutsideCarve(kept.extents, edgeattn::kKeptCount,
                                        edgeattn::NextCarve(*arena, edgeattn::ArenaBytes(*config)));
  }
  if (status != EA_OK) return status;

  const ea_self_attention_config& c = *config;
  const uint64_t n = static_cast<uint64_t>(c.max_tokens);
  plan->config = c;
  plan->weights = *weights;
  edgeattn::CarvePositions(c.position, c.position_table, c.max_tokens, c.d_model, arena,
                           &plan->position_table, &plan->x_positioned);
  plan->packed_w_q =
      edgeattn::ResolvePackedWeights(weights->w_q, c.d_k, c.d_model, c.weights_layout, arena);
  plan->packed_w_k =
      edgeattn::ResolvePackedWeights(weights->w_k, c.d_k, c.d_model, c.weights_layout, arena);
  plan->packed_w_v =
      edgeattn::ResolvePackedWeights(weights->w_v, c.d_v, c.d_model, c.weights_layout, arena);
  plan->q = edgeattn::CarveFloats(arena, n * static_cast<uint64_t>(c.d_k));
  plan->k = edgeattn::CarveFloats(arena, n * static_cast<uint64_t>(c.d_k));
  plan->v = edgeattn::CarveFloats(arena, n * static_cast<uint64_t>(c.d_v));
  edgeattn::CarveAttentionCore(edgeattn::CoreConfig(c), arena, &plan->core);
  plan->ready = EA_PLAN_READY;
  return EA_OK;
}

ea_status ea_self_attention_run(const ea_self_attention_plan* plan, const float* x,
                                int32_t n_tokens, int32_t n_valid_keys, float* y,
                                float* attn_weights) {
  if (plan == nullptr || x == nullptr || y == nullptr) return EA_ERR_NULL_POINTER;
  ea_status status = edgeattn::CheckModelRun(plan->ready, n_tokens, plan->config.max_tokens,
                                             n_valid_keys, y, plan->config.d_v, attn_weights, 1);
  const ea_self_attention_config& c = plan->config;
  const ea_self_attention_weights& w = plan->weights;
  if (status == EA_OK) {
    using edgeattn::FloatBytes;
    const int64_t n = n_tokens;
    const edgeattn::Kept kept = edgeattn::KeptExtents(c, w, plan->position_table);
    status = edgeattn::CheckModelRunMemory(
        {x, FloatBytes(n * c.d_model)}, {y, FloatBytes(n * c.d_v)},
        {attn_weights, attn_weights != nullptr ? FloatBytes(n * n) : 0}, kept.extents,
        edgeattn::kKeptCount, edgeattn::PlanCarveEndingWith(plan->core, edgeattn::ArenaBytes(c)));
  }
  if (status != EA_OK) return status;

  const float* input =
      edgeattn::PositionedInput(x, plan->position_table, plan->x_positioned, n_tokens, c.d_model);
  const size_t d_model = static_cast<size_t>(c.d_model);
  const size_t d_k = static_cast<size_t>(c.d_k);
  const size_t d_v = static_cast<size_t>(c.d_v);
  const ea_parallel_for& parallel = c.parallel;
  bool ok = edgeattn::LinearF32Tasks(parallel, input, d_model, n_tokens, c.d_model,
                                     plan->packed_w_q, w.b_q, c.d_k, plan->q, d_k);
  ok = edgeattn::LinearF32Tasks(parallel, input, d_model, n_tokens, c.d_model, plan->packed_w_k,
                                w.b_k, c.d_k, plan->k, d_k) &&
       ok;
  ok = edgeattn::LinearF32Tasks(parallel, input, d_model, n_tokens, c.d_model, plan->packed_w_v,
                                w.b_v, c.d_v, plan->v, d_v) &&
       ok;
  if (!ok) return EA_ERR_BAD_ARGUMENT;
  const edgeattn::CoreOperands operands{plan->q, d_k, plan->k, d_k,         plan->v,
                                        d_v,     y,   d_v,     attn_weights};
  return edgeattn::RunAttentionCore(plan->core, n_tokens, n_tokens, n_valid_keys, operands);
}

}  // extern "C"
