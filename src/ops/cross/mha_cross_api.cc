// C entry points of MHA cross-attention (edgeattn/cross.h):
// nn.MultiheadAttention(x, memory, memory) with the memory's keys and values
// projected once into a KV cache (n_kv_heads of them: grouped-query
// attention as the decoder's). set_memory runs the memory through the
// in_proj panels of W_K and W_V only (from the panel holding W_K's first row,
// kMemoryChunkRows rows at a time); a run projects its queries through the
// panels of W_Q only and attends to the whole memory.
#include <stddef.h>
#include <stdint.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/cross.h"
#include "kernels/f32/f32_kernels.h"
#include "kv_cache/row_slices.h"
#include "ops/in_proj_f32.h"
#include "ops/model_input.h"
#include "runtime/arena.h"
#include "runtime/simd_target_cap.h"
#include "runtime/validation.h"

namespace edgeattn {
namespace {

int32_t HeadWidth(const ea_cross_config& c) { return c.d_model / c.n_heads; }
int32_t KvWidth(const ea_cross_config& c) { return KvHeads(c) * HeadWidth(c); }
// The in_proj rows, d_model + 2 KvWidth: at most 3 d_model, which Validate
// bounds by EA_MAX_ELEMENTS, so it fits an int32 once validated.
int32_t QkvWidth(const ea_cross_config& c) { return c.d_model + 2 * KvWidth(c); }

ea_kv_cache_config CacheConfig(const ea_cross_config& c) {
  ea_kv_cache_config cache{};
  cache.capacity = c.max_memory;
  cache.n_heads = c.n_heads;
  cache.n_kv_heads = KvHeads(c);
  cache.d_head = HeadWidth(c);
  cache.max_queries = c.max_queries;
  cache.window = 0;
  cache.storage = c.storage;
  cache.scale = 0.0f;
  cache.alibi_slopes = nullptr;
  return cache;
}

ea_status Validate(const ea_cross_config& c) {
  ea_status status = CheckPositive(c.d_model, c.n_heads, c.max_memory, c.max_queries);
  if (status == EA_OK && c.n_kv_heads < 0) status = EA_ERR_BAD_DIMENSION;
  if (status != EA_OK) return status;
  if (c.d_model % c.n_heads != 0 || c.n_heads % KvHeads(c) != 0) return EA_ERR_HEADS_MISMATCH;
  // Both bound d_model by EA_MAX_ELEMENTS, so the in_proj rows (at most
  // 3 d_model) fit an int32.
  status = CheckElements(c.max_memory, c.d_model);
  if (status == EA_OK) status = CheckElements(c.max_queries, c.d_model);
  if (status == EA_OK) status = CheckWeightMatrix(c.weights_layout, QkvWidth(c), c.d_model);
  size_t bytes = 0;
  const ea_kv_cache_config cache = CacheConfig(c);
  // The cache's rules (the storage, its size; no window, so max_queries and
  // max_memory are independent, as nn.MultiheadAttention's lengths are).
  if (status == EA_OK) status = ea_kv_cache_arena_size(&cache, &bytes);
  if (status == EA_OK) status = ToSize(CrossArenaBytes(c), &bytes);
  return status;
}

constexpr size_t kKeptCount = kInProjExtents + 2;
struct Kept {
  Extent extents[kKeptCount];
};
Kept KeptExtents(const ea_cross_config& c, const ea_mha_weights& w) {
  Kept kept{};
  InProjF32Extents(w, c.d_model, KvWidth(c), c.weights_layout, kept.extents);
  kept.extents[kInProjExtents] =
      Extent{w.out_proj_weight, WeightMatrixBytes(c.d_model, c.d_model, c.weights_layout)};
  kept.extents[kInProjExtents + 1] = Extent{w.out_proj_bias, FloatBytes(c.d_model)};
  return kept;
}

// Memory rows [first, first + rows) projected to K and V and appended.
void AppendMemoryChunk(ea_cross* cross, const float* memory, int32_t rows) {
  const ea_cross_config& c = cross->config;
  const size_t e = static_cast<size_t>(c.d_model);
  // Panel p of the packed in_proj holds output rows [64 p, 64 p + 64).
  const size_t first_panel = e / kKeyBlock;
  const size_t first_col = first_panel * kKeyBlock;
  const size_t kv = static_cast<size_t>(KvWidth(c));
  const size_t cols = static_cast<size_t>(MemoryProjectionCols(c.d_model, kv));
  const ea_mha_weights& w = cross->weights;
  const float* bias = FusedInProjBias(w);
  LinearF32(memory, e, rows, c.d_model, cross->packed_in_proj + first_panel * e * kKeyBlock,
            bias != nullptr ? bias + first_col : nullptr, static_cast<int32_t>(cols),
            cross->kv_chunk, cols);
  const size_t n = static_cast<size_t>(rows);
  CopyColumns(cross->kv_chunk, cols, e - first_col, kv, n, cross->k);
  CopyColumns(cross->kv_chunk, cols, e + kv - first_col, kv, n, cross->v);
  // The three-tensor form's biases (NULL in the one-matrix form: added above).
  AddBiasToRows(w.k_proj_bias, KvWidth(c), cross->k, kv, rows);
  AddBiasToRows(w.v_proj_bias, KvWidth(c), cross->v, kv, rows);
  ea_kv_cache_append(&cross->cache, cross->k, cross->v, rows);  // sizes validated
}

}  // namespace
}  // namespace edgeattn

extern "C" {

ea_status ea_cross_arena_size(const ea_cross_config* config, size_t* bytes) {
  if (config == nullptr || bytes == nullptr) return EA_ERR_NULL_POINTER;
  const ea_status status = edgeattn::Validate(*config);
  if (status != EA_OK) return status;
  return edgeattn::ToSize(edgeattn::CrossArenaBytes(*config), bytes);
}

ea_status ea_cross_init(ea_cross* cross, const ea_cross_config* config,
                        const ea_mha_weights* weights, ea_arena* arena) {
  if (cross == nullptr) return EA_ERR_NULL_POINTER;
  cross->ready = 0;  // a failed re-init must not leave the old plan usable
  edgeattn::ApplySimdTargetCap();
  if (config == nullptr || weights == nullptr || arena == nullptr) return EA_ERR_NULL_POINTER;
  ea_status status = edgeattn::CheckInProjForms(*weights);
  if (status != EA_OK) return status;
  const ea_cross_config& c = *config;
  // Validate before any arithmetic on the config (n_heads 0 divides by it).
  status = edgeattn::Validate(c);
  if (status == EA_OK) status = edgeattn::CheckInProjF32Layout(*weights, c.weights_layout);
  const uint64_t bytes = status == EA_OK ? edgeattn::CrossArenaBytes(c) : 0;
  if (status == EA_OK) status = edgeattn::CheckArenaFits(arena, bytes);
  const edgeattn::Extent carve =
      status == EA_OK ? edgeattn::NextCarve(*arena, bytes) : edgeattn::Extent{nullptr, 0};
  if (status == EA_OK) {
    const edgeattn::Kept kept = edgeattn::KeptExtents(c, *weights);
    status = edgeattn::CheckKeptOutsideCarve(kept.extents, edgeattn::kKeptCount, carve);
  }
  if (status != EA_OK) return status;

  const size_t used_before = arena->used;
  cross->config = c;
  cross->weights = *weights;
  const uint64_t e = static_cast<uint64_t>(c.d_model);
  const uint64_t kv = static_cast<uint64_t>(edgeattn::KvWidth(c));
  const uint64_t chunk = edgeattn::MemoryChunkRows(c.max_memory);
  cross->packed_in_proj =
      edgeattn::PackInProjF32(*weights, c.d_model, edgeattn::KvWidth(c), c.weights_layout, arena);
  cross->packed_out_proj = edgeattn::ResolvePackedWeights(weights->out_proj_weight, c.d_model,
                                                          c.d_model, c.weights_layout, arena);
  cross->q = edgeattn::CarveFloats(arena, static_cast<uint64_t>(c.max_queries) * e);
  cross->heads_out = edgeattn::CarveFloats(arena, static_cast<uint64_t>(c.max_queries) * e);
  cross->kv_chunk =
      edgeattn::CarveFloats(arena, chunk * edgeattn::MemoryProjectionCols(c.d_model, kv));
  cross->k = edgeattn::CarveFloats(arena, chunk * kv);
  cross->v = edgeattn::CarveFloats(arena, chunk * kv);
  const ea_kv_cache_config cache = edgeattn::CacheConfig(c);
  status = ea_kv_cache_init(&cross->cache, &cache, arena);
  cross->carve = carve.begin;
  cross->carve_bytes = arena->used - used_before;
  if (status != EA_OK) return status;  // validated above: not reached
  cross->ready = EA_PLAN_READY;
  return EA_OK;
}

ea_status ea_cross_set_memory(ea_cross* cross, const float* memory, int32_t n_memory) {
  if (cross == nullptr || memory == nullptr) return EA_ERR_NULL_POINTER;
  if (cross->ready != EA_PLAN_READY) return EA_ERR_BAD_ARGUMENT;
  const ea_cross_config& c = cross->config;
  if (n_memory <= 0 || n_memory > c.max_memory) return EA_ERR_BAD_DIMENSION;
  const edgeattn::Extent carve{cross->carve, cross->carve_bytes};
  const edgeattn::Extent input{memory, edgeattn::FloatBytes(int64_t{n_memory} * c.d_model)};
  const edgeattn::Kept kept = edgeattn::KeptExtents(c, cross->weights);
  const ea_status status =
      edgeattn::CheckStepMemory(input, {nullptr, 0}, kept.extents, edgeattn::kKeptCount, carve);
  if (status != EA_OK) return status;

  ea_kv_cache_reset(&cross->cache);
  for (int32_t first = 0; first < n_memory; first += edgeattn::kMemoryChunkRows) {
    const int32_t left = n_memory - first;
    edgeattn::AppendMemoryChunk(
        cross, memory + static_cast<size_t>(first) * static_cast<size_t>(c.d_model),
        left < edgeattn::kMemoryChunkRows ? left : edgeattn::kMemoryChunkRows);
  }
  return EA_OK;
}

ea_status ea_cross_run(ea_cross* cross, const float* x, int32_t n_queries, float* y) {
  if (cross == nullptr || x == nullptr || y == nullptr) return EA_ERR_NULL_POINTER;
  if (cross->ready != EA_PLAN_READY || cross->cache.length == 0) return EA_ERR_BAD_ARGUMENT;
  const ea_cross_config& c = cross->config;
  if (n_queries <= 0 || n_queries > c.max_queries) return EA_ERR_BAD_DIMENSION;
  const size_t io_bytes = edgeattn::FloatBytes(int64_t{n_queries} * c.d_model);
  const edgeattn::Kept kept = edgeattn::KeptExtents(c, cross->weights);
  const edgeattn::Extent carve{cross->carve, cross->carve_bytes};
  const ea_status status = edgeattn::CheckStepMemory({x, io_bytes}, {y, io_bytes}, kept.extents,
                                                     edgeattn::kKeptCount, carve);
  if (status != EA_OK) return status;

  const size_t e = static_cast<size_t>(c.d_model);
  // The first output rows of in_proj are W_Q's.
  const float* q_bias = edgeattn::QProjBiasOf(cross->weights);
  edgeattn::LinearF32(x, e, n_queries, c.d_model, cross->packed_in_proj, q_bias, c.d_model,
                      cross->q, e);
  ea_kv_cache_attend_all(&cross->cache, cross->q, n_queries, cross->heads_out);
  edgeattn::LinearF32(cross->heads_out, e, n_queries, c.d_model, cross->packed_out_proj,
                      cross->weights.out_proj_bias, c.d_model, y, e);
  return EA_OK;
}

}  // extern "C"
