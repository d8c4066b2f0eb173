// C entry points of the general Attention(Q, K, V) operation.
#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "ops/attention_core.h"
#include "runtime/arena.h"
#include "runtime/simd_target_cap.h"
#include "runtime/validation.h"

using edgeattn::AttentionArenaBytes;

extern "C" {

ea_status ea_attention_arena_size(const ea_attention_config* config, size_t* bytes) {
  if (config == nullptr || bytes == nullptr) return EA_ERR_NULL_POINTER;
  const ea_status status = edgeattn::ValidateAttentionConfig(*config);
  if (status != EA_OK) return status;
  return edgeattn::ToSize(
      AttentionArenaBytes(config->n_kv, config->d_k, config->parallel.max_workers), bytes);
}

ea_status ea_attention_init(ea_attention_plan* plan, const ea_attention_config* config,
                            ea_arena* arena) {
  if (plan == nullptr) return EA_ERR_NULL_POINTER;
  plan->ready = 0;  // a failed re-plan must not leave the old plan runnable
  edgeattn::ApplySimdTargetCap();
  if (config == nullptr || arena == nullptr) return EA_ERR_NULL_POINTER;
  ea_status status = edgeattn::ValidateAttentionConfig(*config);
  if (status == EA_OK) {
    status = edgeattn::CheckArenaFits(
        arena, AttentionArenaBytes(config->n_kv, config->d_k, config->parallel.max_workers));
  }
  if (status != EA_OK) return status;
  edgeattn::CarveAttentionCore(*config, arena, plan);
  return EA_OK;
}

ea_status ea_attention_run(const ea_attention_plan* plan, const float* q, const float* k,
                           const float* v, int32_t n_valid_keys, float* out, float* attn_weights) {
  if (plan == nullptr || q == nullptr || k == nullptr || v == nullptr || out == nullptr) {
    return EA_ERR_NULL_POINTER;
  }
  if (plan->ready != EA_PLAN_READY) return EA_ERR_BAD_ARGUMENT;
  const ea_attention_config& c = plan->config;
  if (n_valid_keys < 0 || n_valid_keys > c.n_kv) return EA_ERR_BAD_ARGUMENT;
  if (attn_weights != nullptr && edgeattn::CheckElements(c.n_q, c.n_kv) != EA_OK) {
    return EA_ERR_DIMENSION_OVERFLOW;
  }
  // The output rows are the kernel's accumulator: they must not share memory
  // with the inputs, the weights output or the plan's arena carve (which the
  // run writes); the inputs must stay clear of the carve too.
  using edgeattn::Extent;
  using edgeattn::FloatBytes;
  using edgeattn::OverlapsAny;
  const Extent out_extent{out, FloatBytes(int64_t{c.n_q} * c.d_v)};
  const Extent weights_extent{attn_weights,
                              attn_weights != nullptr ? FloatBytes(int64_t{c.n_q} * c.n_kv) : 0};
  const Extent carve = edgeattn::CoreCarve(*plan);
  const Extent read[4] = {{q, FloatBytes(int64_t{c.n_q} * c.d_k)},
                          {k, FloatBytes(int64_t{c.n_kv} * c.d_k)},
                          {v, FloatBytes(int64_t{c.n_kv} * c.d_v)},
                          carve};
  if (OverlapsAny(out_extent, read, 4) || OverlapsAny(weights_extent, read, 4) ||
      OverlapsAny(out_extent, &weights_extent, 1) || OverlapsAny(carve, read, 3)) {
    return EA_ERR_BAD_ARGUMENT;
  }
  edgeattn::CoreOperands operands{
      q,           static_cast<size_t>(c.d_k), k,   static_cast<size_t>(c.d_k),
      v,           static_cast<size_t>(c.d_v), out, static_cast<size_t>(c.d_v),
      attn_weights};
  return edgeattn::RunAttentionCore(*plan, c.n_q, c.n_kv, n_valid_keys, operands);
}

}  // extern "C"
