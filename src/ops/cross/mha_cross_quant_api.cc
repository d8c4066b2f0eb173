// C entry points of the fixed-point cross-attention (edgeattn/cross.h): a
// fixed-point decoder's cache (ops/decode/quant_cache.h) that holds the
// memory's keys and values, stored once by set_memory (in steps of the
// rows the cache's v buffer holds), and whose every
// run attends its queries to all of them, unmasked. k's and v's
// FULLY_CONNECTED read the memory at its own quantization.
#include <stddef.h>
#include <stdint.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/cross.h"
#include "kernels/int/softmax_s16.h"
#include "ops/decode/quant_cache.h"
#include "ops/mha/mha_quant_api.h"
#include "ops/quant_model_steps.h"
#include "runtime/arena.h"
#include "runtime/simd_target_cap.h"
#include "runtime/validation.h"
#include "tflite/mha_quant_params.h"

namespace edgeattn {
namespace {

int32_t CrossKvHeads(const ea_cross_quant_config& c) {
  return c.n_kv_heads == 0 ? c.n_heads : c.n_kv_heads;
}

// The decoder a cross-attention runs on (CrossQuantArenaBytes): a cache of
// max_memory positions, steps of CrossQuantStepRows (a run's queries, or a
// part of the memory), no positions, no window, no RoPE.
ea_decoder_quant_config CoreConfig(const ea_cross_quant_config& c) {
  ea_decoder_quant_config d{};
  d.dtype = c.dtype;
  d.d_model = c.d_model;
  d.n_heads = c.n_heads;
  d.n_kv_heads = c.n_kv_heads;
  d.max_positions = c.max_memory;
  d.max_step_tokens = CrossQuantStepRows(c.max_queries, c.max_memory);
  d.quant_scales = c.quant_scales;
  d.quant_params = c.quant_params;
  return d;
}

// The queries' layer as the MHA chain's rules read it: a run's max_queries
// rows, unmasked, no positions.
ea_mha_config QueryLayer(const ea_cross_quant_config& c) {
  ea_mha_config layer = DecoderQuantLayer(CoreConfig(c));
  layer.max_tokens = c.max_queries;
  layer.mask = EA_MASK_NONE;
  return layer;
}

ea_status Validate(const ea_cross_quant_config& c) {
  if (c.n_kv_heads < 0 || c.max_memory <= 0) return EA_ERR_BAD_DIMENSION;
  if (c.max_memory > kMaxFixedPointKeys) return EA_ERR_DIMENSION_OVERFLOW;
  ea_status status = ValidateMhaQuantConfig(QueryLayer(c), CrossKvHeads(c));
  if (status != EA_OK) return status;
  status = CheckElements(c.max_memory, c.d_model);
  if (status != EA_OK) return status;
  if (c.quant_params == nullptr && c.quant_scales != nullptr && !IsValidQuant(c.dtype, c.memory)) {
    return EA_ERR_BAD_ARGUMENT;
  }
  size_t bytes = 0;
  return ToSize(CrossQuantArenaBytes(c), &bytes);
}

ea_status CheckedRunMemory(const ea_cross_quant& cross, Extent x, Extent y) {
  const ea_decoder_quant& d = cross.core;
  const MhaQuantKept kept =
      MhaQuantKeptExtents(d.layer, KvWidth(d.config), d.weights, nullptr, d.params.softmax);
  return CheckStepMemory(x, y, kept.extents, kMhaQuantKeptCount, {d.carve, d.carve_bytes});
}

template <typename T>
ea_status SetMemory(ea_cross_quant* cross, ea_dtype dtype, const T* memory, int32_t n_memory) {
  if (cross == nullptr || memory == nullptr) return EA_ERR_NULL_POINTER;
  if (cross->ready != EA_PLAN_READY || cross->config.dtype != dtype) {
    return EA_ERR_BAD_ARGUMENT;
  }
  if (n_memory <= 0 || n_memory > cross->config.max_memory) return EA_ERR_BAD_DIMENSION;
  const size_t e = static_cast<size_t>(cross->config.d_model);
  const Extent rows{memory, static_cast<size_t>(n_memory) * e * sizeof(T)};
  const ea_status status = CheckedRunMemory(*cross, rows, rows);
  if (status != EA_OK) return status;
  const int32_t chunk = cross->core.config.max_step_tokens;
  for (int32_t first = 0; first < n_memory; first += chunk) {
    const int32_t n = n_memory - first < chunk ? n_memory - first : chunk;
    StoreKeysValues(cross->core, memory + static_cast<size_t>(first) * e, n, first, 0);
  }
  cross->n_memory = n_memory;
  return EA_OK;
}

template <typename T>
ea_status Run(ea_cross_quant* cross, ea_dtype dtype, const T* x, int32_t n_queries, T* y) {
  if (cross == nullptr || x == nullptr || y == nullptr) return EA_ERR_NULL_POINTER;
  if (cross->ready != EA_PLAN_READY || cross->config.dtype != dtype || cross->n_memory == 0) {
    return EA_ERR_BAD_ARGUMENT;
  }
  if (n_queries <= 0 || n_queries > cross->config.max_queries) return EA_ERR_BAD_DIMENSION;
  const size_t bytes =
      static_cast<size_t>(n_queries) * static_cast<size_t>(cross->config.d_model) * sizeof(T);
  const ea_status status = CheckedRunMemory(*cross, {x, bytes}, {y, bytes});
  if (status != EA_OK) return status;
  const ea_decoder_quant& d = cross->core;
  ProjectStepRows(d, 0, d.params.q_proj, x, n_queries, static_cast<T*>(d.q));
  AttendHeads(d, n_queries, cross->n_memory, 0, /*causal=*/false, y);
  return EA_OK;
}

}  // namespace
}  // namespace edgeattn

extern "C" {

ea_status ea_cross_quant_arena_size(const ea_cross_quant_config* config, size_t* bytes) {
  if (config == nullptr || bytes == nullptr) return EA_ERR_NULL_POINTER;
  const ea_status status = edgeattn::Validate(*config);
  if (status != EA_OK) return status;
  return edgeattn::ToSize(edgeattn::CrossQuantArenaBytes(*config), bytes);
}

ea_status ea_cross_quant_derive(const ea_cross_quant_config* config, ea_mha_quant_params* params,
                                int32_t* channel_ints, size_t channel_int_count) {
  using namespace edgeattn;  // NOLINT(google-build-using-namespace): one entry point
  if (config == nullptr || params == nullptr || channel_ints == nullptr) return EA_ERR_NULL_POINTER;
  ea_cross_quant_config scales_only = *config;
  scales_only.quant_params = nullptr;
  const ea_status status = Validate(scales_only);
  if (status != EA_OK) return status;
  if (channel_int_count < EA_MHA_QUANT_CHANNEL_INTS(config->d_model)) {
    return EA_ERR_ARENA_TOO_SMALL;
  }
  return DeriveMhaQuantParams(QueryLayer(*config), KvWidth(CoreConfig(*config)), params,
                              channel_ints, {nullptr, &config->memory});
}

ea_status ea_cross_quant_init(ea_cross_quant* cross, const ea_cross_quant_config* config,
                              const ea_mha_quant_weights* weights, ea_arena* arena) {
  using namespace edgeattn;  // NOLINT(google-build-using-namespace): one entry point
  if (cross == nullptr) return EA_ERR_NULL_POINTER;
  cross->ready = 0;  // a failed re-init must not leave the old plan usable
  ApplySimdTargetCap();
  if (config == nullptr || weights == nullptr || arena == nullptr) return EA_ERR_NULL_POINTER;
  ea_status status = CheckInProjForms(*weights);
  if (status == EA_OK) status = Validate(*config);
  if (status != EA_OK) return status;
  const ea_decoder_quant_config core = CoreConfig(*config);
  const uint64_t bytes = CrossQuantArenaBytes(*config);
  ea_mha_quant_params derived{};
  status = PrepareMhaQuantCarve(DecoderQuantLayer(core), KvWidth(core), *weights, *arena, bytes,
                                &derived, {nullptr, &config->memory});
  if (status != EA_OK) return status;
  const ea_rope_quant_params no_rope[2] = {};
  CarveDecoderQuant(&cross->core, core, config->max_queries, *weights, derived, no_rope, bytes,
                    arena);
  cross->config = *config;
  cross->n_memory = 0;
  cross->ready = EA_PLAN_READY;
  return EA_OK;
}

ea_status ea_cross_quant_set_memory_s8(ea_cross_quant* cross, const int8_t* memory,
                                       int32_t n_memory) {
  return edgeattn::SetMemory(cross, EA_DTYPE_INT8, memory, n_memory);
}

ea_status ea_cross_quant_set_memory_s16(ea_cross_quant* cross, const int16_t* memory,
                                        int32_t n_memory) {
  return edgeattn::SetMemory(cross, EA_DTYPE_INT16, memory, n_memory);
}

ea_status ea_cross_quant_run_s8(ea_cross_quant* cross, const int8_t* x, int32_t n_queries,
                                int8_t* y) {
  return edgeattn::Run(cross, EA_DTYPE_INT8, x, n_queries, y);
}

ea_status ea_cross_quant_run_s16(ea_cross_quant* cross, const int16_t* x, int32_t n_queries,
                                 int16_t* y) {
  return edgeattn::Run(cross, EA_DTYPE_INT16, x, n_queries, y);
}

}  // extern "C"
