// C entry points of fixed-point Attention(Q, K, V): TFLite's
// BATCH_MATMUL(q, k^T) -> SOFTMAX -> BATCH_MATMUL(probs, v) on one core
// (quant_attention_core.h).
#include <math.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "kernels/int/softmax_s16.h"
#include "ops/quant_attention_core.h"
#include "runtime/arena.h"
#include "runtime/parallel_for.h"
#include "runtime/simd_target_cap.h"
#include "runtime/validation.h"
#include "tflite/exact_float_math.h"
#include "tflite/mha_quant_params.h"

namespace edgeattn {
namespace {

float Beta(const ea_attention_config& c) { return c.scale != 0.0f ? c.scale : InverseSqrt(c.d_k); }

// Validates c and gives its integers: the caller's, or derived from its scales.
ea_status Validate(const ea_attention_config& c, ea_attention_quant_params* params) {
  // F32 (and any value that is no dtype) plans with ea_attention_init.
  if (c.dtype != EA_DTYPE_INT8 && c.dtype != EA_DTYPE_INT16) return EA_ERR_BAD_ARGUMENT;
  ea_status status = CheckPositive(c.n_q, c.n_kv, c.d_k, c.d_v);
  if (status == EA_OK) status = CheckElements(c.n_q, c.d_k);
  if (status == EA_OK) status = CheckElements(c.n_q, c.d_v);
  if (status == EA_OK) status = CheckElements(c.n_kv, c.d_k);
  if (status == EA_OK) status = CheckElements(c.n_kv, c.d_v);
  if (status == EA_OK && c.n_kv > kMaxFixedPointKeys) status = EA_ERR_DIMENSION_OVERFLOW;
  if (status == EA_OK) status = CheckMask(c.mask);
  if (status == EA_OK) status = ValidateParallelFor(c.parallel);
  if (status == EA_OK && c.scale != 0.0f && !(c.scale > 0.0f && isfinite(c.scale))) {
    status = EA_ERR_BAD_ARGUMENT;
  }
  if (status != EA_OK) return status;
  if (c.quant_params == nullptr && c.quant_scales == nullptr) return EA_ERR_NULL_POINTER;
  if (c.quant_params == nullptr)
    return DeriveAttentionQuantParams(c.dtype, Beta(c), *c.quant_scales, params);
  status = CheckAttentionQuantParams(c.dtype, *c.quant_params);
  if (status == EA_OK) *params = *c.quant_params;
  return status;
}

uint64_t ArenaBytes(const ea_attention_config& c) {
  return AttentionQuantArenaBytes(c.n_kv, c.d_k, c.d_v, c.dtype, c.parallel.max_workers);
}

template <typename T>
ea_status CheckedRun(const ea_attention_quant_plan* plan, ea_dtype dtype, const T* q, const T* k,
                     const T* v, int32_t n_valid_keys, T* out, T* attn_weights) {
  if (plan == nullptr || q == nullptr || k == nullptr || v == nullptr || out == nullptr) {
    return EA_ERR_NULL_POINTER;
  }
  if (plan->ready != EA_PLAN_READY || plan->config.dtype != dtype) return EA_ERR_BAD_ARGUMENT;
  const ea_attention_config& c = plan->config;
  if (n_valid_keys < 0 || n_valid_keys > c.n_kv) return EA_ERR_BAD_ARGUMENT;
  if (attn_weights != nullptr && int64_t{c.n_q} * c.n_kv > static_cast<int64_t>(EA_MAX_ELEMENTS)) {
    return EA_ERR_DIMENSION_OVERFLOW;
  }
  const size_t nq = static_cast<size_t>(c.n_q), nkv = static_cast<size_t>(c.n_kv);
  const Extent inputs[3] = {{q, nq * static_cast<size_t>(c.d_k) * sizeof(T)},
                            {k, nkv * static_cast<size_t>(c.d_k) * sizeof(T)},
                            {v, nkv * static_cast<size_t>(c.d_v) * sizeof(T)}};
  const Extent output{out, nq * static_cast<size_t>(c.d_v) * sizeof(T)};
  const Extent weights{attn_weights, attn_weights != nullptr ? nq * nkv * sizeof(T) : 0};
  const Extent carve{plan->carve, plan->carve_bytes};
  const SoftmaxLuts luts = SoftmaxLutExtents(plan->params.softmax);
  // Outputs overlap neither inputs, each other, the softmax's tables nor the
  // arena; inputs keep off the arena.
  if (OverlapsAny(output, inputs, 3) || OverlapsAny(weights, inputs, 3) ||
      OverlapsAny(output, luts.extents, kSoftmaxLutCount) ||
      OverlapsAny(weights, luts.extents, kSoftmaxLutCount) ||
      Overlaps(output.begin, output.bytes, weights.begin, weights.bytes) ||
      OverlapsAny(carve, inputs, 3) ||
      Overlaps(output.begin, output.bytes, carve.begin, carve.bytes) ||
      Overlaps(weights.begin, weights.bytes, carve.begin, carve.bytes)) {
    return EA_ERR_BAD_ARGUMENT;
  }
  const ea_attention_quant_params& p = plan->params;
  AttentionQArgs<T> a =
      QuantCoreArgs<T>(p.scores, p.softmax, p.context, plan->core,
                       {c.n_q, c.n_kv, c.d_k, c.d_v, c.mask == EA_MASK_CAUSAL, n_valid_keys});
  a.q = q;
  a.ld_q = static_cast<size_t>(c.d_k);
  a.k = k;
  a.ld_k = static_cast<size_t>(c.d_k);
  a.out = out;
  a.ld_out = static_cast<size_t>(c.d_v);
  a.probs = attn_weights;
  a.ld_probs = nkv;
  return RunQuantAttention(c.parallel, a, v, static_cast<size_t>(c.d_v), plan->core)
             ? EA_OK
             : EA_ERR_BAD_ARGUMENT;
}

}  // namespace

}  // namespace edgeattn

extern "C" {

ea_status ea_attention_quant_arena_size(const ea_attention_config* config, size_t* bytes) {
  if (config == nullptr || bytes == nullptr) return EA_ERR_NULL_POINTER;
  ea_attention_quant_params params{};
  const ea_status status = edgeattn::Validate(*config, &params);
  if (status != EA_OK) return status;
  return edgeattn::ToSize(edgeattn::ArenaBytes(*config), bytes);
}

ea_status ea_attention_quant_init(ea_attention_quant_plan* plan, const ea_attention_config* config,
                                  ea_arena* arena) {
  using edgeattn::ArenaBytes;
  if (plan == nullptr) return EA_ERR_NULL_POINTER;
  plan->ready = 0;
  edgeattn::ApplySimdTargetCap();
  if (config == nullptr || arena == nullptr) return EA_ERR_NULL_POINTER;
  const ea_attention_config& c = *config;
  ea_attention_quant_params params{};
  ea_status status = edgeattn::Validate(c, &params);
  if (status == EA_OK) status = edgeattn::CheckArenaFits(arena, ArenaBytes(c));
  if (status == EA_OK) {
    const edgeattn::SoftmaxLuts luts = edgeattn::SoftmaxLutExtents(params.softmax);
    status = edgeattn::CheckKeptOutsideCarve(luts.extents, edgeattn::kSoftmaxLutCount,
                                             edgeattn::NextCarve(*arena, ArenaBytes(c)));
  }
  if (status != EA_OK) return status;
  plan->params = params;
  plan->config = c;
  plan->carve = arena->base + arena->used;
  plan->carve_bytes = static_cast<size_t>(ArenaBytes(c));
  plan->core = edgeattn::CarveQuantCore(arena, c.dtype, c.n_kv, c.d_k, c.d_v,
                                        c.parallel.max_workers, plan->params.softmax);
  plan->ready = EA_PLAN_READY;
  return EA_OK;
}

ea_status ea_attention_quant_run_s8(const ea_attention_quant_plan* plan, const int8_t* q,
                                    const int8_t* k, const int8_t* v, int32_t n_valid_keys,
                                    int8_t* out, int8_t* attn_weights) {
  return edgeattn::CheckedRun(plan, EA_DTYPE_INT8, q, k, v, n_valid_keys, out, attn_weights);
}

ea_status ea_attention_quant_run_s16(const ea_attention_quant_plan* plan, const int16_t* q,
                                     const int16_t* k, const int16_t* v, int32_t n_valid_keys,
                                     int16_t* out, int16_t* attn_weights) {
  return edgeattn::CheckedRun(plan, EA_DTYPE_INT16, q, k, v, n_valid_keys, out, attn_weights);
}

}  // extern "C"
