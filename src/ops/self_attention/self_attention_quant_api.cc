// C entry points of fixed-point single-head self-attention: TFLite's chain
// ADD -> FULLY_CONNECTED (q, k, v) -> BATCH_MATMUL, SOFTMAX, BATCH_MATMUL,
// the attention fused per query block (quant_attention_core.h). MHA's chain
// for one head of its own widths, without the output projection.

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "kernels/int/int_kernels.h"
#include "kernels/int/softmax_s16.h"
#include "ops/quant_attention_core.h"
#include "ops/quant_model_steps.h"
#include "runtime/arena.h"
#include "runtime/parallel_for.h"
#include "runtime/simd_target_cap.h"
#include "runtime/validation.h"
#include "tflite/mha_quant_params.h"

namespace edgeattn {
namespace {

bool IsFixedPoint(ea_dtype dtype) { return dtype == EA_DTYPE_INT8 || dtype == EA_DTYPE_INT16; }

PositionStorage Positions(const ea_self_attention_config& c) {
  return StorageOf(c.position, c.quant_position_table == nullptr);
}

ea_status CheckShape(const ea_self_attention_config& c) {
  ea_status status = CheckPositive(c.max_tokens, c.d_model, c.d_k, c.d_v);
  if (status == EA_OK) status = CheckElements(c.max_tokens, c.d_model);
  if (status == EA_OK) status = CheckElements(c.max_tokens, c.d_k);
  if (status == EA_OK) status = CheckElements(c.max_tokens, c.d_v);
  if (status == EA_OK) status = CheckElements(c.d_k, c.d_model);
  if (status == EA_OK) status = CheckElements(c.d_v, c.d_model);
  if (status == EA_OK && c.max_tokens > kMaxFixedPointKeys) status = EA_ERR_DIMENSION_OVERFLOW;
  return status;
}

ea_status Validate(const ea_self_attention_config& c) {
  if (!IsFixedPoint(c.dtype)) return EA_ERR_BAD_ARGUMENT;
  ea_status status = CheckShape(c);
  if (status == EA_OK) status = CheckMask(c.mask);
  if (status == EA_OK) status = ValidateParallelFor(c.parallel);
  if (status != EA_OK) return status;
  status = CheckQuantModelInput(c.dtype, c.position, c.quant_position_table,
                                PlanTimeTableQuantOf(c), c.quant_params != nullptr);
  if (status != EA_OK) return status;
  if (c.quant_params != nullptr) return CheckSelfAttentionQuantParams(c, *c.quant_params);
  return EA_OK;
}

uint64_t ArenaBytes(const ea_self_attention_config& c) {
  return SelfAttentionQuantArenaBytes(c.max_tokens, c.d_model, c.d_k, c.d_v, c.dtype, Positions(c),
                                      c.parallel.max_workers);
}

uint64_t ChannelInts(const ea_self_attention_config& c) {
  return EA_SELF_ATTENTION_QUANT_CHANNEL_INTS(c.d_k, c.d_v);
}

size_t BiasBytes(const ea_self_attention_config& c) {
  return static_cast<size_t>(QuantBiasBytes(c.dtype));
}

constexpr size_t kKeptCount = 7 + kSoftmaxLutCount;
struct Kept {
  Extent extents[kKeptCount];
};
Kept KeptExtents(const ea_self_attention_config& c, const ea_self_attention_quant_weights& w,
                 const void* table, const ea_softmax_quant_params& softmax) {
  const size_t in = static_cast<size_t>(c.d_model);
  const size_t d_k = static_cast<size_t>(c.d_k), d_v = static_cast<size_t>(c.d_v);
  Kept kept{};
  kept.extents[0] = Extent{w.w_q, d_k * in};
  kept.extents[1] = Extent{w.w_k, d_k * in};
  kept.extents[2] = Extent{w.w_v, d_v * in};
  kept.extents[3] = Extent{w.b_q, d_k * BiasBytes(c)};
  kept.extents[4] = Extent{w.b_k, d_k * BiasBytes(c)};
  kept.extents[5] = Extent{w.b_v, d_v * BiasBytes(c)};
  kept.extents[6] = Extent{table, static_cast<size_t>(c.max_tokens) * in *
                                      static_cast<size_t>(FixedPointBytes(c.dtype))};
  const SoftmaxLuts luts = SoftmaxLutExtents(softmax);
  for (size_t i = 0; i < kSoftmaxLutCount; ++i) kept.extents[7 + i] = luts.extents[i];
  return kept;
}

// The plan's own copy of the caller's integers (which may then live on the
// caller's stack).
void CopyParams(const ea_self_attention_config& c, int32_t* channel_ints,
                ea_self_attention_quant_params* params) {
  const ea_self_attention_quant_params& given = *c.quant_params;
  *params = given;
  const int32_t k = c.d_k, v = c.d_v;
  CopyLinearParams(given.q_proj, k, channel_ints, channel_ints + k, &params->q_proj);
  CopyLinearParams(given.k_proj, k, channel_ints + 2 * k, channel_ints + 3 * k, &params->k_proj);
  CopyLinearParams(given.v_proj, v, channel_ints + 4 * k, channel_ints + 4 * k + v,
                   &params->v_proj);
}

const void* Panels(const ea_self_attention_quant_plan& plan, int which) {
  return plan.weight_panels[which];
}

template <typename T>
ea_status Run(const ea_self_attention_quant_plan& plan, const T* x, int32_t n, int32_t n_valid_keys,
              T* y, T* attn_weights) {
  const ea_self_attention_config& c = plan.config;
  const ea_self_attention_quant_params& p = plan.params;
  const ea_self_attention_quant_weights& w = plan.weights;
  const T* input = x;
  if (plan.position_table != nullptr) {
    T* positioned = static_cast<T*>(plan.x_positioned);
    AddPositions(x, static_cast<const T*>(plan.position_table), p.add, positioned,
                 static_cast<size_t>(n) * static_cast<size_t>(c.d_model));
    input = positioned;
  }
  T* q = static_cast<T*>(plan.q);
  T* k = static_cast<T*>(plan.k);
  T* v = static_cast<T*>(plan.v);
  const size_t d_k = static_cast<size_t>(c.d_k), d_v = static_cast<size_t>(c.d_v);
  bool ok = RunProjection(c.parallel, ProjectionArgs(input, n, c.d_model, w.w_q, w.b_q, p.q_proj,
                                                     c.d_k, q, d_k, Panels(plan, 0)));
  ok = RunProjection(c.parallel, ProjectionArgs(input, n, c.d_model, w.w_k, w.b_k, p.k_proj, c.d_k,
                                                k, d_k, Panels(plan, 1))) &&
       ok;
  ok = RunProjection(c.parallel, ProjectionArgs(input, n, c.d_model, w.w_v, w.b_v, p.v_proj, c.d_v,
                                                v, d_v, Panels(plan, 2))) &&
       ok;
  const ea_attention_quant_params& a = p.attention;
  AttentionQArgs<T> head =
      QuantCoreArgs<T>(a.scores, a.softmax, a.context, plan.core,
                       {n, n, c.d_k, c.d_v, c.mask == EA_MASK_CAUSAL, n_valid_keys});
  head.q = q;
  head.ld_q = d_k;
  head.k = k;
  head.ld_k = d_k;
  head.out = y;
  head.ld_out = d_v;
  head.probs = attn_weights;
  head.ld_probs = static_cast<size_t>(n);
  ok = RunQuantAttention(c.parallel, head, v, d_v, plan.core) && ok;
  return ok ? EA_OK : EA_ERR_BAD_ARGUMENT;
}

template <typename T>
ea_status CheckedRun(const ea_self_attention_quant_plan* plan, ea_dtype dtype, const T* x,
                     int32_t n_tokens, int32_t n_valid_keys, T* y, T* attn_weights) {
  if (plan == nullptr || x == nullptr || y == nullptr) return EA_ERR_NULL_POINTER;
  if (plan->ready != EA_PLAN_READY || plan->config.dtype != dtype) return EA_ERR_BAD_ARGUMENT;
  const ea_self_attention_config& c = plan->config;
  if (n_tokens <= 0 || n_tokens > c.max_tokens) return EA_ERR_BAD_DIMENSION;
  if (n_valid_keys < 0 || n_valid_keys > n_tokens) return EA_ERR_BAD_ARGUMENT;
  if (attn_weights != nullptr &&
      int64_t{n_tokens} * n_tokens > static_cast<int64_t>(EA_MAX_ELEMENTS)) {
    return EA_ERR_DIMENSION_OVERFLOW;
  }
  const size_t n = static_cast<size_t>(n_tokens);
  const Extent x_extent{x, n * static_cast<size_t>(c.d_model) * sizeof(T)};
  const Extent y_extent{y, n * static_cast<size_t>(c.d_v) * sizeof(T)};
  const Extent weights_extent{attn_weights, attn_weights != nullptr ? n * n * sizeof(T) : 0};
  const Kept kept =
      KeptExtents(c, plan->weights, plan->position_table, plan->params.attention.softmax);
  const Extent carve{plan->carve, plan->carve_bytes};
  if (Overlaps(y_extent.begin, y_extent.bytes, weights_extent.begin, weights_extent.bytes)) {
    return EA_ERR_BAD_ARGUMENT;
  }
  const ea_status status =
      CheckModelRunMemory(x_extent, y_extent, weights_extent, kept.extents, kKeptCount, carve);
  if (status != EA_OK) return status;
  return Run(*plan, x, n_tokens, n_valid_keys, y, attn_weights);
}

}  // namespace

}  // namespace edgeattn

extern "C" {

ea_status ea_self_attention_quant_arena_size(const ea_self_attention_config* config,
                                             size_t* bytes) {
  if (config == nullptr || bytes == nullptr) return EA_ERR_NULL_POINTER;
  const ea_status status = edgeattn::Validate(*config);
  if (status != EA_OK) return status;
  return edgeattn::ToSize(edgeattn::ArenaBytes(*config), bytes);
}

ea_status ea_self_attention_quant_derive(const ea_self_attention_config* config,
                                         ea_self_attention_quant_params* params,
                                         int32_t* channel_ints, size_t channel_int_count) {
  using namespace edgeattn;  // NOLINT(google-build-using-namespace): one entry point
  if (config == nullptr || params == nullptr || channel_ints == nullptr) return EA_ERR_NULL_POINTER;
  if (!IsFixedPoint(config->dtype)) return EA_ERR_BAD_ARGUMENT;
  ea_status status = CheckPositive(config->d_model, config->d_k, config->d_v, 1);
  // The weights' element limit bounds d_k and d_v, and with them the channel count.
  if (status == EA_OK) status = CheckElements(config->d_k, config->d_model);
  if (status == EA_OK) status = CheckElements(config->d_v, config->d_model);
  if (status != EA_OK) return status;
  if (channel_int_count < ChannelInts(*config)) return EA_ERR_ARENA_TOO_SMALL;
  return DeriveSelfAttentionQuantParams(*config, params, channel_ints);
}

ea_status ea_self_attention_quant_init(ea_self_attention_quant_plan* plan,
                                       const ea_self_attention_config* config,
                                       const ea_self_attention_quant_weights* weights,
                                       ea_arena* arena) {
  using namespace edgeattn;  // NOLINT(google-build-using-namespace): one entry point
  if (plan == nullptr) return EA_ERR_NULL_POINTER;
  plan->ready = 0;
  ApplySimdTargetCap();
  if (config == nullptr || weights == nullptr || arena == nullptr) return EA_ERR_NULL_POINTER;
  if (weights->w_q == nullptr || weights->w_k == nullptr || weights->w_v == nullptr) {
    return EA_ERR_NULL_POINTER;
  }
  const ea_self_attention_config& c = *config;
  ea_status status = Validate(c);
  if (status == EA_OK) status = CheckQuantBias(c.dtype, weights->b_q, c.d_k);
  if (status == EA_OK) status = CheckQuantBias(c.dtype, weights->b_k, c.d_k);
  if (status == EA_OK) status = CheckQuantBias(c.dtype, weights->b_v, c.d_v);
  if (status == EA_OK) {
    const void* table = TableTheModeReads(c.position, c.quant_position_table);
    status = CheckQuantTableAlignment(c.dtype, table);
  }
  if (status == EA_OK) status = CheckArenaFits(arena, ArenaBytes(c));
  if (status == EA_OK) {
    const ea_softmax_quant_params given =
        c.quant_params != nullptr ? c.quant_params->attention.softmax : ea_softmax_quant_params{};
    const Kept kept =
        KeptExtents(c, *weights, TableTheModeReads(c.position, c.quant_position_table), given);
    status = CheckKeptOutsideCarve(kept.extents, kKeptCount, NextCarve(*arena, ArenaBytes(c)));
  }
  // Scales: TFLite's Prepare, into the place of the plan's first region (free
  // arena bytes until the carve below; a refusal leaves the arena unused).
  ea_self_attention_quant_params derived{};
  if (status == EA_OK && c.quant_params == nullptr) {
    status = DeriveSelfAttentionQuantParams(
        c, &derived, static_cast<int32_t*>(static_cast<void*>(arena->base + arena->used)));
  }
  if (status != EA_OK) return status;

  const uint64_t element = FixedPointBytes(c.dtype);
  const uint64_t n = static_cast<uint64_t>(c.max_tokens);
  plan->carve = arena->base + arena->used;
  plan->carve_bytes = static_cast<size_t>(ArenaBytes(c));
  plan->config = c;
  plan->weights = *weights;
  int32_t* channel_ints =
      static_cast<int32_t*>(CarveBytes(arena, ChannelInts(c) * sizeof(int32_t)));
  if (c.quant_params == nullptr) {
    plan->params = derived;  // its arrays are channel_ints already
  } else {
    CopyParams(c, channel_ints, &plan->params);
  }
  plan->position_table =
      ResolveQuantPositionTable(arena, c.dtype, Positions(c), c.quant_position_table, c.max_tokens,
                                c.d_model, PlanTimeTableQuantValue(c));
  plan->x_positioned = plan->position_table != nullptr
                           ? CarveBytes(arena, n * static_cast<uint64_t>(c.d_model) * element)
                           : nullptr;
  plan->q = CarveBytes(arena, n * static_cast<uint64_t>(c.d_k) * element);
  plan->k = CarveBytes(arena, n * static_cast<uint64_t>(c.d_k) * element);
  plan->v = CarveBytes(arena, n * static_cast<uint64_t>(c.d_v) * element);
  plan->weight_panels[0] =
      const_cast<void*>(CarveWeightPanels(arena, c.dtype, weights->w_q, c.d_k, c.d_model));
  plan->weight_panels[1] =
      const_cast<void*>(CarveWeightPanels(arena, c.dtype, weights->w_k, c.d_k, c.d_model));
  plan->weight_panels[2] =
      const_cast<void*>(CarveWeightPanels(arena, c.dtype, weights->w_v, c.d_v, c.d_model));
  plan->core = CarveQuantCore(arena, c.dtype, c.max_tokens, c.d_k, c.d_v, c.parallel.max_workers,
                              plan->params.attention.softmax);
  plan->ready = EA_PLAN_READY;
  return EA_OK;
}

ea_status ea_self_attention_quant_run_s8(const ea_self_attention_quant_plan* plan, const int8_t* x,
                                         int32_t n_tokens, int32_t n_valid_keys, int8_t* y,
                                         int8_t* attn_weights) {
  return edgeattn::CheckedRun(plan, EA_DTYPE_INT8, x, n_tokens, n_valid_keys, y, attn_weights);
}

ea_status ea_self_attention_quant_run_s16(const ea_self_attention_quant_plan* plan,
                                          const int16_t* x, int32_t n_tokens, int32_t n_valid_keys,
                                          int16_t* y, int16_t* attn_weights) {
  return edgeattn::CheckedRun(plan, EA_DTYPE_INT16, x, n_tokens, n_valid_keys, y, attn_weights);
}

}  // extern "C"
