// C entry points of fixed-point multi-head attention: TFLite's op chain
// ADD -> FULLY_CONNECTED (q, k, v) -> per head BATCH_MATMUL, SOFTMAX,
// BATCH_MATMUL -> FULLY_CONNECTED, fused per head and query block.
#include "ops/mha/mha_quant_api.h"
#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "kernels/int/int_kernels.h"
#include "kernels/int/softmax_s16.h"
#include "ops/mha/mha_quant_taps.h"
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

uint64_t ArenaBytes(const ea_mha_config& c) {
  return MhaQuantArenaBytes(c.max_tokens, c.d_model, c.n_heads, c.dtype, MhaQuantPositions(c),
                            c.parallel.max_workers);
}

size_t ElementBytes(const ea_mha_config& c) {
  return static_cast<size_t>(FixedPointBytes(c.dtype));
}

size_t BiasBytes(const ea_mha_config& c) { return static_cast<size_t>(QuantBiasBytes(c.dtype)); }

// The plan's own copy of the caller's integers (which may then live on the
// caller's stack), laid out as DeriveMhaQuantParams lays out its own.
void CopyParams(const ea_mha_config& c, int32_t kv_width, int32_t* channel_ints,
                ea_mha_quant_params* params) {
  const ea_mha_quant_params& given = *c.quant_params;
  *params = given;
  int32_t* next = channel_ints;
  const auto copy = [&](const ea_linear_quant_params& from, int32_t count,
                        ea_linear_quant_params* to) {
    CopyLinearParams(from, count, next, next + count, to);
    next += 2 * count;
  };
  copy(given.q_proj, c.d_model, &params->q_proj);
  copy(given.k_proj, kv_width, &params->k_proj);
  copy(given.v_proj, kv_width, &params->v_proj);
  copy(given.out_proj, c.d_model, &params->out_proj);
}

}  // namespace

ea_status ValidateMhaQuantConfig(const ea_mha_config& c, int32_t n_kv_heads) {
  if (!IsFixedPoint(c.dtype)) return EA_ERR_BAD_ARGUMENT;
  ea_status status = CheckPositive(c.max_tokens, c.d_model, c.n_heads, n_kv_heads);
  if (status == EA_OK && (c.d_model % c.n_heads != 0 || c.n_heads % n_kv_heads != 0)) {
    status = EA_ERR_HEADS_MISMATCH;
  }
  if (status == EA_OK) status = CheckElements(c.max_tokens, c.d_model);
  if (status == EA_OK) status = CheckElements(3 * int64_t{c.d_model}, c.d_model);
  if (status == EA_OK && c.max_tokens > kMaxFixedPointKeys) status = EA_ERR_DIMENSION_OVERFLOW;
  if (status == EA_OK) status = CheckMask(c.mask);
  if (status == EA_OK) status = ValidateParallelFor(c.parallel);
  if (status != EA_OK) return status;
  status = CheckQuantModelInput(c.dtype, c.position, c.quant_position_table,
                                PlanTimeTableQuantOf(c), c.quant_params != nullptr);
  if (status != EA_OK) return status;
  if (c.quant_params == nullptr) return EA_OK;
  return CheckMhaQuantParams(c, n_kv_heads * (c.d_model / c.n_heads), *c.quant_params);
}

InProjPart InProjOf(const ea_mha_config& c, int32_t kv_width, const ea_mha_quant_weights& w,
                    int32_t which) {
  const int32_t channels = which == 0 ? c.d_model : kv_width;
  const size_t e = static_cast<size_t>(c.d_model);
  const size_t first = which == 0 ? 0 : e + static_cast<size_t>(which - 1) * kv_width;
  const int8_t* weights[3] = {w.q_proj_weight, w.k_proj_weight, w.v_proj_weight};
  const void* biases[3] = {w.q_proj_bias, w.k_proj_bias, w.v_proj_bias};
  const int8_t* weight =
      w.in_proj_weight != nullptr ? w.in_proj_weight + first * e : weights[which];
  const uint8_t* bias = w.in_proj_bias != nullptr
                            ? static_cast<const uint8_t*>(w.in_proj_bias) + first * BiasBytes(c)
                            : static_cast<const uint8_t*>(biases[which]);
  return {weight, bias, channels};
}

ea_status CheckMhaQuantTensors(const ea_mha_config& c, int32_t kv_width,
                               const ea_mha_quant_weights& w) {
  ea_status status = EA_OK;
  for (int32_t which = 0; which < 3 && status == EA_OK; ++which) {
    const InProjPart part = InProjOf(c, kv_width, w, which);
    status = CheckQuantBias(c.dtype, part.bias, part.channels);
  }
  if (status == EA_OK) status = CheckQuantBias(c.dtype, w.out_proj_bias, c.d_model);
  if (status == EA_OK) {
    const void* table = TableTheModeReads(c.position, c.quant_position_table);
    status = CheckQuantTableAlignment(c.dtype, table);
  }
  return status;
}

MhaQuantKept MhaQuantKeptExtents(const ea_mha_config& c, int32_t kv_width,
                                 const ea_mha_quant_weights& w, const void* table,
                                 const ea_softmax_quant_params& softmax) {
  const size_t e = static_cast<size_t>(c.d_model);
  MhaQuantKept kept{};
  for (int32_t which = 0; which < 3; ++which) {
    const InProjPart part = InProjOf(c, kv_width, w, which);
    const size_t channels = static_cast<size_t>(part.channels);
    kept.extents[2 * which] = Extent{part.weight, channels * e};
    kept.extents[2 * which + 1] = Extent{part.bias, channels * BiasBytes(c)};
  }
  kept.extents[6] = Extent{w.out_proj_weight, e * e};
  kept.extents[7] = Extent{w.out_proj_bias, e * BiasBytes(c)};
  kept.extents[8] = Extent{table, static_cast<size_t>(c.max_tokens) * e * ElementBytes(c)};
  const SoftmaxLuts luts = SoftmaxLutExtents(softmax);
  for (size_t i = 0; i < kSoftmaxLutCount; ++i) kept.extents[9 + i] = luts.extents[i];
  return kept;
}

ea_softmax_quant_params GivenSoftmax(const ea_mha_config& c) {
  return c.quant_params != nullptr ? c.quant_params->softmax : ea_softmax_quant_params{};
}

PositionStorage MhaQuantPositions(const ea_mha_config& c) {
  return StorageOf(c.position, c.quant_position_table == nullptr);
}

ea_status PrepareMhaQuantCarve(const ea_mha_config& c, int32_t kv_width,
                               const ea_mha_quant_weights& w, const ea_arena& arena,
                               uint64_t carve_bytes, ea_mha_quant_params* derived,
                               const MhaQuantOperands& operands) {
  ea_status status = CheckMhaQuantTensors(c, kv_width, w);
  if (status == EA_OK) status = CheckArenaFits(&arena, carve_bytes);
  if (status == EA_OK) {
    const MhaQuantKept kept = MhaQuantKeptExtents(
        c, kv_width, w, TableTheModeReads(c.position, c.quant_position_table), GivenSoftmax(c));
    status = CheckKeptOutsideCarve(kept.extents, kMhaQuantKeptCount, NextCarve(arena, carve_bytes));
  }
  if (status != EA_OK || c.quant_params != nullptr) return status;
  return DeriveMhaQuantParams(c, kv_width, derived,
                              static_cast<int32_t*>(static_cast<void*>(arena.base + arena.used)),
                              operands);
}

const void* ResolveMhaQuantPositionTable(ea_arena* arena, const ea_mha_config& c) {
  return ResolveQuantPositionTable(arena, c.dtype, MhaQuantPositions(c), c.quant_position_table,
                                   c.max_tokens, c.d_model, PlanTimeTableQuantValue(c));
}

void CarveMhaQuantParams(ea_arena* arena, const ea_mha_config& c, int32_t kv_width,
                         const ea_mha_quant_params& derived, ea_mha_quant_params* params) {
  int32_t* channel_ints = static_cast<int32_t*>(
      CarveBytes(arena, EA_MHA_QUANT_CHANNEL_INTS(c.d_model) * sizeof(int32_t)));
  if (c.quant_params == nullptr) {
    *params = derived;  // its arrays are channel_ints already
  } else {
    CopyParams(c, kv_width, channel_ints, params);
  }
}

void CarveMhaQuantPanels(ea_arena* arena, const ea_mha_config& c, int32_t kv_width,
                         const ea_mha_quant_weights& w, void* panels[4]) {
  for (int32_t which = 0; which < 3; ++which) {
    const InProjPart part = InProjOf(c, kv_width, w, which);
    panels[which] =
        const_cast<void*>(CarveWeightPanels(arena, c.dtype, part.weight, part.channels, c.d_model));
  }
  panels[3] =
      const_cast<void*>(CarveWeightPanels(arena, c.dtype, w.out_proj_weight, c.d_model, c.d_model));
}

namespace {

const void* Panels(const ea_mha_quant_plan& plan, int which) { return plan.weight_panels[which]; }

template <typename T>
ea_status Run(const ea_mha_quant_plan& plan, const T* x, int32_t n, int32_t n_valid_keys, T* y,
              const MhaQuantTaps<T>& taps) {
  const ea_mha_config& c = plan.config;
  const ea_mha_quant_params& p = plan.params;
  const ea_mha_quant_weights& w = plan.weights;
  const size_t e = static_cast<size_t>(c.d_model);
  const int32_t d_k = c.d_model / c.n_heads;
  const T* input = x;
  if (plan.position_table != nullptr) {
    // ADD(x_emb, P) into y: W_O writes y only after the last head, and y is
    // x or lies apart from it (CheckedRun).
    AddPositions(x, static_cast<const T*>(plan.position_table), p.add, y,
                 static_cast<size_t>(n) * e);
    input = y;
  }
  TapColumns(input, e, n, 0, e, taps.positioned, e);
  T* q = static_cast<T*>(plan.q);
  T* k = static_cast<T*>(plan.k);
  T* v = static_cast<T*>(plan.v);
  T* context = static_cast<T*>(plan.context);
  // Head by head, Q, K and V hold one head's d_k columns (ld d_k); else all
  // heads side by side (ld d_model), projected before the first head.
  const int32_t projected_columns = kMhaQuantHeadByHead ? d_k : c.d_model;
  const auto project = [&](int32_t first_column) {
    const ea_linear_quant_params* params[3] = {&p.q_proj, &p.k_proj, &p.v_proj};
    T* out[3] = {q, k, v};
    bool ok = true;
    T* tapped[3] = {taps.q, taps.k, taps.v};
    const size_t columns = static_cast<size_t>(projected_columns);
    for (int32_t which = 0; which < 3; ++which) {
      ok = ProjectInProj(c.parallel, c, MhaKvWidth(c), w, Panels(plan, which), which,
                         *params[which], input, n, first_column, projected_columns, out[which]) &&
           ok;
      TapColumns<T>(out[which], columns, n, static_cast<size_t>(first_column), columns,
                    tapped[which], e);
    }
    return ok;
  };
  bool ok = kMhaQuantHeadByHead || project(0);
  AttentionQArgs<T> head =
      QuantCoreArgs<T>(p.scores, p.softmax, p.context, plan.core,
                       {n, n, d_k, d_k, c.mask == EA_MASK_CAUSAL, n_valid_keys});
  head.ld_q = static_cast<size_t>(projected_columns);
  head.ld_k = static_cast<size_t>(projected_columns);
  head.ld_out = e;
  head.ld_probs = static_cast<size_t>(n);
  head.ld_scores = static_cast<size_t>(n);
  const size_t head_entries = static_cast<size_t>(n) * static_cast<size_t>(n);
  if (taps.scores != nullptr) {
    // The kernels score only the keys a row sees.
    for (size_t i = 0; i < static_cast<size_t>(c.n_heads) * head_entries; ++i) {
      taps.scores[i] = static_cast<T>(sizeof(T) == 1 ? INT8_MIN : INT16_MIN);
    }
  }
  for (int32_t h = 0; h < c.n_heads; ++h) {
    const size_t column = static_cast<size_t>(h) * static_cast<size_t>(d_k);
    const size_t in_projected = kMhaQuantHeadByHead ? 0 : column;
    if (kMhaQuantHeadByHead) ok = project(h * d_k) && ok;
    head.q = q + in_projected;
    head.k = k + in_projected;
    head.out = context + column;
    head.probs =
        taps.probs != nullptr ? taps.probs + static_cast<size_t>(h) * head_entries : nullptr;
    head.scores =
        taps.scores != nullptr ? taps.scores + static_cast<size_t>(h) * head_entries : nullptr;
    ok = RunQuantAttention(c.parallel, head, v + in_projected,
                           static_cast<size_t>(projected_columns), plan.core) &&
         ok;
  }
  TapColumns<T>(context, e, n, 0, e, taps.context, e);
  ok = RunProjection(c.parallel,
                     ProjectionArgs<T>(context, n, c.d_model, w.out_proj_weight, w.out_proj_bias,
                                       p.out_proj, c.d_model, y, e, Panels(plan, 3))) &&
       ok;
  return ok ? EA_OK : EA_ERR_BAD_ARGUMENT;
}

template <typename T>
ea_status CheckedRun(const ea_mha_quant_plan* plan, ea_dtype dtype, const T* x, int32_t n_tokens,
                     int32_t n_valid_keys, T* y, const MhaQuantTaps<T>& taps) {
  if (plan == nullptr || x == nullptr || y == nullptr) return EA_ERR_NULL_POINTER;
  if (plan->ready != EA_PLAN_READY || plan->config.dtype != dtype) return EA_ERR_BAD_ARGUMENT;
  const ea_mha_config& c = plan->config;
  if (n_tokens <= 0 || n_tokens > c.max_tokens) return EA_ERR_BAD_DIMENSION;
  if (n_valid_keys < 0 || n_valid_keys > n_tokens) return EA_ERR_BAD_ARGUMENT;
  if (taps.PerHead() &&
      int64_t{c.n_heads} * n_tokens * n_tokens > static_cast<int64_t>(EA_MAX_ELEMENTS)) {
    return EA_ERR_DIMENSION_OVERFLOW;
  }
  const size_t activation_bytes = static_cast<size_t>(n_tokens) * c.d_model * sizeof(T);
  const Extent y_extent{y, activation_bytes};
  const Extent x_extent{x, activation_bytes};
  const MhaQuantKept kept = MhaQuantKeptExtents(c, MhaKvWidth(c), plan->weights,
                                                plan->position_table, plan->params.softmax);
  const Extent carve{plan->carve, plan->carve_bytes};
  // The run reads x until the last head (head by head) and keeps ADD(x, P) in
  // y: y is x or apart from it, and every tap apart from both, from the
  // others, from what the run reads and from the arena.
  if (static_cast<const void*>(y) != static_cast<const void*>(x) &&
      Overlaps(x_extent.begin, x_extent.bytes, y_extent.begin, y_extent.bytes)) {
    return EA_ERR_BAD_ARGUMENT;
  }
  Extent tapped[kMhaQuantTapCount];
  MhaQuantTapExtents(taps, n_tokens, c.d_model, c.n_heads, tapped);
  const Extent io[2] = {x_extent, y_extent};
  for (size_t i = 0; i < kMhaQuantTapCount; ++i) {
    if (OverlapsAny(tapped[i], io, 2) || OverlapsAny(tapped[i], tapped, i) ||
        OverlapsAny(tapped[i], kept.extents, kMhaQuantKeptCount) ||
        OverlapsAny(tapped[i], &carve, 1)) {
      return EA_ERR_BAD_ARGUMENT;
    }
  }
  const ea_status status = CheckModelRunMemory(x_extent, y_extent, Extent{nullptr, 0}, kept.extents,
                                               kMhaQuantKeptCount, carve);
  if (status != EA_OK) return status;
  return Run(*plan, x, n_tokens, n_valid_keys, y, taps);
}

// The taps of one trace: *taps, or none.
template <typename T>
MhaQuantTaps<T> TapsOf(const ea_mha_quant_taps* taps) {
  return taps != nullptr ? MhaQuantTaps<T>::Of(*taps) : MhaQuantTaps<T>{};
}
// The taps of one run: its attn_weights, the probs.
template <typename T>
MhaQuantTaps<T> ProbsOnly(T* attn_weights) {
  MhaQuantTaps<T> taps;
  taps.probs = attn_weights;
  return taps;
}

}  // namespace

}  // namespace edgeattn

extern "C" {

ea_status ea_mha_quant_arena_size(const ea_mha_config* config, size_t* bytes) {
  if (config == nullptr || bytes == nullptr) return EA_ERR_NULL_POINTER;
  const ea_status status = edgeattn::ValidateMhaQuantConfig(*config, config->n_heads);
  if (status != EA_OK) return status;
  return edgeattn::ToSize(edgeattn::ArenaBytes(*config), bytes);
}

ea_status ea_mha_quant_derive(const ea_mha_config* config, ea_mha_quant_params* params,
                              int32_t* channel_ints, size_t channel_int_count) {
  if (config == nullptr || params == nullptr || channel_ints == nullptr) return EA_ERR_NULL_POINTER;
  if (!edgeattn::IsFixedPoint(config->dtype)) return EA_ERR_BAD_ARGUMENT;
  ea_status status = edgeattn::CheckPositive(config->d_model, config->n_heads, 1, 1);
  if (status == EA_OK && config->d_model % config->n_heads != 0) status = EA_ERR_HEADS_MISMATCH;
  // The weights' element limit bounds d_model, and with it 8 * d_model.
  if (status == EA_OK)
    status = edgeattn::CheckElements(3 * int64_t{config->d_model}, config->d_model);
  if (status != EA_OK) return status;
  if (channel_int_count < EA_MHA_QUANT_CHANNEL_INTS(config->d_model)) return EA_ERR_ARENA_TOO_SMALL;
  return edgeattn::DeriveMhaQuantParams(*config, config->d_model, params, channel_ints);
}

ea_status ea_mha_quant_init(ea_mha_quant_plan* plan, const ea_mha_config* config,
                            const ea_mha_quant_weights* weights, ea_arena* arena) {
  using namespace edgeattn;  // NOLINT(google-build-using-namespace): one entry point
  if (plan == nullptr) return EA_ERR_NULL_POINTER;
  plan->ready = 0;
  ApplySimdTargetCap();
  if (config == nullptr || weights == nullptr || arena == nullptr) return EA_ERR_NULL_POINTER;
  ea_status status = CheckInProjForms(*weights);
  if (status != EA_OK) return status;
  const ea_mha_config& c = *config;
  status = ValidateMhaQuantConfig(c, c.n_heads);
  ea_mha_quant_params derived{};
  if (status == EA_OK) {
    status = PrepareMhaQuantCarve(c, MhaKvWidth(c), *weights, *arena, ArenaBytes(c), &derived);
  }
  if (status != EA_OK) return status;

  const uint64_t element = FixedPointBytes(c.dtype);
  const uint64_t tensor =
      static_cast<uint64_t>(c.max_tokens) * static_cast<uint64_t>(c.d_model) * element;
  plan->carve = arena->base + arena->used;
  plan->carve_bytes = static_cast<size_t>(ArenaBytes(c));
  plan->config = c;
  plan->weights = *weights;
  CarveMhaQuantParams(arena, c, MhaKvWidth(c), derived, &plan->params);
  plan->position_table = ResolveMhaQuantPositionTable(arena, c);
  const int32_t d_k = c.d_model / c.n_heads;
  const uint64_t projected =
      kMhaQuantHeadByHead ? tensor / static_cast<uint64_t>(c.n_heads) : tensor;
  plan->q = CarveBytes(arena, projected);
  plan->k = CarveBytes(arena, projected);
  plan->v = CarveBytes(arena, projected);
  plan->context = CarveBytes(arena, tensor);
  CarveMhaQuantPanels(arena, c, MhaKvWidth(c), *weights, plan->weight_panels);
  plan->core = CarveQuantCore(arena, c.dtype, c.max_tokens, d_k, d_k, c.parallel.max_workers,
                              plan->params.softmax);
  plan->ready = EA_PLAN_READY;
  return EA_OK;
}

ea_status ea_mha_quant_run_s8(const ea_mha_quant_plan* plan, const int8_t* x, int32_t n_tokens,
                              int32_t n_valid_keys, int8_t* y, int8_t* attn_weights) {
  return edgeattn::CheckedRun(plan, EA_DTYPE_INT8, x, n_tokens, n_valid_keys, y,
                              edgeattn::ProbsOnly(attn_weights));
}

ea_status ea_mha_quant_run_s16(const ea_mha_quant_plan* plan, const int16_t* x, int32_t n_tokens,
                               int32_t n_valid_keys, int16_t* y, int16_t* attn_weights) {
  return edgeattn::CheckedRun(plan, EA_DTYPE_INT16, x, n_tokens, n_valid_keys, y,
                              edgeattn::ProbsOnly(attn_weights));
}

ea_status ea_mha_quant_trace_s8(const ea_mha_quant_plan* plan, const int8_t* x, int32_t n_tokens,
                                int32_t n_valid_keys, int8_t* y, const ea_mha_quant_taps* taps) {
  return edgeattn::CheckedRun(plan, EA_DTYPE_INT8, x, n_tokens, n_valid_keys, y,
                              edgeattn::TapsOf<int8_t>(taps));
}

ea_status ea_mha_quant_trace_s16(const ea_mha_quant_plan* plan, const int16_t* x, int32_t n_tokens,
                                 int32_t n_valid_keys, int16_t* y, const ea_mha_quant_taps* taps) {
  return edgeattn::CheckedRun(plan, EA_DTYPE_INT16, x, n_tokens, n_valid_keys, y,
                              edgeattn::TapsOf<int16_t>(taps));
}

}  // extern "C"
