// C entry points of multi-head attention with PyTorch nn.MultiheadAttention's
// weight layout (in_proj rows: W_Q, W_K, W_V; out_proj).
#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "kernels/f32/f32_kernels.h"
#include "ops/attention_core.h"
#include "ops/in_proj_f32.h"
#include "ops/mha/mha_quant_api.h"
#include "ops/model_input.h"
#include "runtime/arena.h"
#include "runtime/simd_target_cap.h"
#include "runtime/validation.h"

namespace edgeattn {
namespace {

ea_attention_config CoreConfig(const ea_mha_config& c) {
  ea_attention_config core{};
  core.dtype = c.dtype;
  core.n_q = c.max_tokens;
  core.n_kv = c.max_tokens;
  core.d_k = c.d_model / c.n_heads;
  core.d_v = core.d_k;
  core.mask = c.mask;
  core.scale = 0.0f;
  core.parallel = c.parallel;
  return core;
}

ea_status Validate(const ea_mha_config& c) {
  // Fixed-point plans take int8 weights: ea_mha_quant_init.
  ea_status status = CheckFloatDtype(c.dtype);
  if (status == EA_OK) status = CheckPositive(c.max_tokens, c.d_model, c.n_heads, 1);
  if (status == EA_OK && c.d_model % c.n_heads != 0) status = EA_ERR_HEADS_MISMATCH;
  if (status == EA_OK)
    status = ValidateModelInput(c.max_tokens, c.d_model, c.position, c.position_table);
  if (status == EA_OK) status = CheckWeightMatrix(c.weights_layout, 3 * c.d_model, c.d_model);
  if (status == EA_OK) status = ValidateAttentionConfig(CoreConfig(c));
  return status;
}

uint64_t ArenaBytes(const ea_mha_config& c) {
  return MhaArenaBytes(c.max_tokens, c.d_model, c.n_heads,
                       StorageOf(c.position, c.position_table == nullptr), c.weights_layout,
                       c.parallel.max_workers);
}

// What plans and runs read and must not overwrite: weights, biases and the
// position table (`table`: the caller's, or the plan's resolved one).
constexpr size_t kKeptCount = kInProjExtents + 3;
struct Kept {
  Extent extents[kKeptCount];
};
Kept KeptExtents(const ea_mha_config& c, const ea_mha_weights& w, const float* table) {
  Kept kept{};
  const int64_t e = c.d_model;
  InProjF32Extents(w, c.d_model, c.d_model, c.weights_layout, kept.extents);
  kept.extents[kInProjExtents] =
      Extent{w.out_proj_weight, WeightMatrixBytes(c.d_model, c.d_model, c.weights_layout)};
  kept.extents[kInProjExtents + 1] = Extent{w.out_proj_bias, FloatBytes(e)};
  kept.extents[kInProjExtents + 2] = Extent{table, FloatBytes(int64_t{c.max_tokens} * e)};
  return kept;
}

// Heads whose packed keys the plan's attention core holds (MhaPackedHeads).
int32_t PackedHeads(const ea_mha_config& c) {
  return MhaPackedHeads(c.n_heads, c.parallel.max_workers);
}

}  // namespace
}  // namespace edgeattn

extern "C" {

ea_status ea_mha_arena_size(const ea_mha_config* config, size_t* bytes) {
  if (config == nullptr || bytes == nullptr) return EA_ERR_NULL_POINTER;
  const ea_status status = edgeattn::Validate(*config);
  if (status != EA_OK) return status;
  return edgeattn::ToSize(edgeattn::ArenaBytes(*config), bytes);
}

ea_status ea_mha_init(ea_mha_plan* plan, const ea_mha_config* config, const ea_mha_weights* weights,
                      ea_arena* arena) {
  if (plan == nullptr) return EA_ERR_NULL_POINTER;
  plan->ready = 0;  // a failed re-plan must not leave the old plan runnable
  edgeattn::ApplySimdTargetCap();
  if (config == nullptr || weights == nullptr || arena == nullptr) return EA_ERR_NULL_POINTER;
  ea_status status = edgeattn::CheckInProjForms(*weights);
  if (status != EA_OK) return status;
  status = edgeattn::Validate(*config);
  if (status == EA_OK) status = edgeattn::CheckInProjF32Layout(*weights, config->weights_layout);
  if (status == EA_OK) status = edgeattn::CheckArenaFits(arena, edgeattn::ArenaBytes(*config));
  if (status == EA_OK) {
    const edgeattn::Kept kept = edgeattn::KeptExtents(
        *config, *weights, edgeattn::TableTheModeReads(config->position, config->position_table));
    status =
        edgeattn::CheckKeptOutsideCarve(kept.extents, edgeattn::kKeptCount,
                                        edgeattn::NextCarve(*arena, edgeattn::ArenaBytes(*config)));
  }
  if (status != EA_OK) return status;

  const ea_mha_config& c = *config;
  const uint64_t elements = static_cast<uint64_t>(c.max_tokens) * static_cast<uint64_t>(c.d_model);
  plan->config = c;
  plan->weights = *weights;
  edgeattn::CarvePositions(c.position, c.position_table, c.max_tokens, c.d_model, arena,
                           &plan->position_table, &plan->x_positioned);
  plan->packed_in_proj =
      edgeattn::PackInProjF32(*weights, c.d_model, c.d_model, c.weights_layout, arena);
  plan->packed_out_proj = edgeattn::ResolvePackedWeights(weights->out_proj_weight, c.d_model,
                                                         c.d_model, c.weights_layout, arena);
  plan->qkv = edgeattn::CarveFloats(arena, 3 * elements);
  plan->heads_concat = edgeattn::CarveFloats(arena, elements);
  edgeattn::CarveAttentionCore(edgeattn::CoreConfig(c), arena, &plan->core,
                               edgeattn::PackedHeads(c));
  plan->ready = EA_PLAN_READY;
  return EA_OK;
}

ea_status ea_mha_run(const ea_mha_plan* plan, const float* x, int32_t n_tokens,
                     int32_t n_valid_keys, float* y, float* attn_weights) {
  if (plan == nullptr || x == nullptr || y == nullptr) return EA_ERR_NULL_POINTER;
  ea_status status =
      edgeattn::CheckModelRun(plan->ready, n_tokens, plan->config.max_tokens, n_valid_keys, y,
                              plan->config.d_model, attn_weights, plan->config.n_heads);
  const ea_mha_config& c = plan->config;
  const ea_mha_weights& w = plan->weights;
  if (status == EA_OK) {
    using edgeattn::FloatBytes;
    const int64_t n = n_tokens;
    const int64_t e = c.d_model;
    const edgeattn::Kept kept = edgeattn::KeptExtents(c, w, plan->position_table);
    status = edgeattn::CheckModelRunMemory(
        {x, FloatBytes(n * e)}, {y, FloatBytes(n * e)},
        {attn_weights, attn_weights != nullptr ? FloatBytes(c.n_heads * n * n) : 0}, kept.extents,
        edgeattn::kKeptCount,
        edgeattn::PlanCarveEndingWith(plan->core, edgeattn::ArenaBytes(c),
                                      edgeattn::PackedHeads(c)));
  }
  if (status != EA_OK) return status;

  const size_t e = static_cast<size_t>(c.d_model);
  const float* input =
      edgeattn::PositionedInput(x, plan->position_table, plan->x_positioned, n_tokens, c.d_model);
  // One GEMM for Q, K and V: in_proj's rows are W_Q, W_K, W_V, so the
  // outputs land side by side in qkv's rows.
  const size_t ld_qkv = 3 * e;
  bool ok =
      edgeattn::LinearF32Tasks(c.parallel, input, e, n_tokens, c.d_model, plan->packed_in_proj,
                               edgeattn::FusedInProjBias(w), 3 * c.d_model, plan->qkv, ld_qkv);
  edgeattn::AddInProjBiases(w, c.d_model, c.d_model, plan->qkv, ld_qkv, n_tokens);
  const size_t d_k = e / static_cast<size_t>(c.n_heads);
  const edgeattn::CoreOperands head0{plan->qkv,         ld_qkv, plan->qkv + e,      ld_qkv,
                                     plan->qkv + 2 * e, ld_qkv, plan->heads_concat, e,
                                     attn_weights};
  const size_t head_weights = static_cast<size_t>(n_tokens) * static_cast<size_t>(n_tokens);
  ok = edgeattn::RunAttentionHeads(plan->core, edgeattn::PackedHeads(c), c.n_heads, n_tokens,
                                   n_tokens, n_valid_keys, head0,
                                   {d_k, d_k, d_k, d_k, head_weights}) == EA_OK &&
       ok;
  ok = edgeattn::LinearF32Tasks(c.parallel, plan->heads_concat, e, n_tokens, c.d_model,
                                plan->packed_out_proj, w.out_proj_bias, c.d_model, y, e) &&
       ok;
  return ok ? EA_OK : EA_ERR_BAD_ARGUMENT;
}

}  // extern "C"
