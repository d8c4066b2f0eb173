// C entry points of the KV cache (edgeattn/kv_cache.h): validation at init,
// O(1) checks at append and attend.
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/kv_cache.h"
#include "kv_cache/kv_cache_kernels.h"
#include "runtime/arena.h"
#include "runtime/simd_target_cap.h"
#include "runtime/validation.h"

namespace edgeattn {
namespace {

ea_status ValidateKvCacheConfig(const ea_kv_cache_config& c) {
  ea_status status = CheckPositive(c.capacity, c.n_heads, c.n_kv_heads, c.d_head);
  if (status != EA_OK) return status;
  if (c.max_queries <= 0 || c.window < 0) return EA_ERR_BAD_DIMENSION;
  if (c.n_heads % c.n_kv_heads != 0) return EA_ERR_HEADS_MISMATCH;
  if (c.storage != EA_KV_STORAGE_F32 && c.storage != EA_KV_STORAGE_F16 &&
      c.storage != EA_KV_STORAGE_Q8 && c.storage != EA_KV_STORAGE_Q4) {
    return EA_ERR_BAD_ARGUMENT;
  }
  // int8, int4: the integer dot products' sums stay within int32 (kv_cache.h).
  if (KvIsQuantized(c.storage) && c.d_head > EA_KV_Q8_MAX_D_HEAD) {
    return EA_ERR_BAD_DIMENSION;
  }
  if (!(c.scale >= 0.0f && c.scale <= 3.40282347e38f)) return EA_ERR_BAD_ARGUMENT;
  if (c.alibi_slopes != nullptr) {
    for (int32_t h = 0; h < c.n_heads; ++h) {
      const float m = c.alibi_slopes[h];
      if (!(m >= -3.40282347e38f && m <= 3.40282347e38f)) return EA_ERR_BAD_ARGUMENT;
    }
  }
  // With a window the cache is a ring: every query of an attend must find its
  // whole window in it. Without one nothing is overwritten, and an attend's
  // queries are bounded by the tokens held, so max_queries may exceed capacity
  // (cross-attention: more queries than memory rows).
  if (c.window > 0 && int64_t{c.window} + c.max_queries - 1 > c.capacity) {
    return EA_ERR_BAD_DIMENSION;
  }
  const int64_t kv_row = int64_t{c.n_kv_heads} * c.d_head;
  status = CheckElements(static_cast<int64_t>(KvBlocks(c.capacity)) * kKeyBlock, kv_row);
  if (status != EA_OK) return status;
  return CheckElements(c.max_queries, int64_t{c.n_heads} * c.d_head);
}

Extent CacheCarve(const ea_kv_cache& cache) { return Extent{cache.records, cache.carve_bytes}; }

// ea_kv_cache_attend (causal) and ea_kv_cache_attend_all.
ea_status Attend(const ea_kv_cache* cache, const float* q, int32_t n_queries, bool causal,
                 float* out) {
  if (cache == nullptr || q == nullptr || out == nullptr) return EA_ERR_NULL_POINTER;
  if (cache->ready != EA_PLAN_READY) return EA_ERR_BAD_ARGUMENT;
  const ea_kv_cache_config& c = cache->config;
  const int64_t most = causal ? cache->length : (cache->length > 0 ? c.max_queries : 0);
  if (n_queries <= 0 || n_queries > c.max_queries || n_queries > most) {
    return EA_ERR_BAD_DIMENSION;
  }
  const size_t bytes = FloatBytes(int64_t{n_queries} * c.n_heads * c.d_head);
  const Extent out_extent{out, bytes};
  // out is zeroed before q, the cache and the ALiBi slopes are read.
  const Extent carve = CacheCarve(*cache);
  const Extent q_extent{q, bytes};
  const Extent read[3] = {
      q_extent, carve, {c.alibi_slopes, c.alibi_slopes != nullptr ? FloatBytes(c.n_heads) : 0}};
  if (OverlapsAny(out_extent, read, 3) || OverlapsAny(q_extent, &carve, 1)) {
    return EA_ERR_BAD_ARGUMENT;
  }
  DecodeAttention(*cache, q, n_queries, causal, out);
  return EA_OK;
}

}  // namespace
}  // namespace edgeattn

extern "C" {

ea_status ea_alibi_slopes_fill(float* slopes, int32_t n_heads) {
  if (slopes == nullptr) return EA_ERR_NULL_POINTER;
  if (n_heads <= 0) return EA_ERR_BAD_DIMENSION;
  int32_t power = 1;
  while (power <= n_heads / 2) power *= 2;
  // Slope h of a power-of-two count n: 2^(-8 (h + 1) / n).
  for (int32_t h = 0; h < power; ++h) {
    slopes[h] = static_cast<float>(exp2(-8.0 * (h + 1) / power));
  }
  for (int32_t h = power; h < n_heads; ++h) {
    slopes[h] = static_cast<float>(exp2(-8.0 * (2 * (h - power) + 1) / (2.0 * power)));
  }
  return EA_OK;
}

ea_status ea_kv_cache_arena_size(const ea_kv_cache_config* config, size_t* bytes) {
  if (config == nullptr || bytes == nullptr) return EA_ERR_NULL_POINTER;
  const ea_status status = edgeattn::ValidateKvCacheConfig(*config);
  if (status != EA_OK) return status;
  return edgeattn::ToSize(edgeattn::KvCacheArenaBytes(*config), bytes);
}

ea_status ea_kv_cache_init(ea_kv_cache* cache, const ea_kv_cache_config* config, ea_arena* arena) {
  if (cache == nullptr) return EA_ERR_NULL_POINTER;
  cache->ready = 0;  // a failed re-init must not leave the old cache usable
  edgeattn::ApplySimdTargetCap();
  if (config == nullptr || arena == nullptr) return EA_ERR_NULL_POINTER;
  ea_status status = edgeattn::ValidateKvCacheConfig(*config);
  if (status == EA_OK)
    status = edgeattn::CheckArenaFits(arena, edgeattn::KvCacheArenaBytes(*config));
  if (status != EA_OK) return status;
  // The slopes are read at every attend: the carve must not hold them.
  const edgeattn::Extent slopes{config->alibi_slopes, config->alibi_slopes != nullptr
                                                          ? edgeattn::FloatBytes(config->n_heads)
                                                          : 0};
  status = edgeattn::CheckKeptOutsideCarve(
      &slopes, 1, edgeattn::NextCarve(*arena, edgeattn::KvCacheArenaBytes(*config)));
  if (status != EA_OK) return status;

  ea_kv_cache_config& c = cache->config;
  c = *config;
  if (c.scale == 0.0f) c.scale = 1.0f / sqrtf(static_cast<float>(c.d_head));
  const size_t used_before = arena->used;
  cache->records = static_cast<uint8_t*>(edgeattn::CarveBytes(
      arena, edgeattn::KvRecordsBytes(c.capacity, c.n_kv_heads, c.d_head, c.storage)));
  cache->row_states = edgeattn::CarveBytes(arena, static_cast<uint64_t>(c.max_queries) *
                                                      static_cast<uint64_t>(c.n_heads) *
                                                      edgeattn::kKvRowStateBytes);
  cache->score_tile = edgeattn::CarveFloats(
      arena, static_cast<uint64_t>(edgeattn::kScoreTileRows) * edgeattn::kScoreTileKeys);
  cache->query_codes = edgeattn::CarveBytes(
      arena, edgeattn::KvQueryCodeBytes(c.max_queries, c.n_heads, c.d_head, c.storage));
  cache->carve_bytes = arena->used - used_before;
  cache->length = 0;
  cache->ready = EA_PLAN_READY;
  return EA_OK;
}

ea_status ea_kv_cache_reset(ea_kv_cache* cache) {
  if (cache == nullptr) return EA_ERR_NULL_POINTER;
  if (cache->ready != EA_PLAN_READY) return EA_ERR_BAD_ARGUMENT;
  cache->length = 0;
  return EA_OK;
}

ea_status ea_kv_cache_append(ea_kv_cache* cache, const float* k, const float* v, int32_t n_tokens) {
  if (cache == nullptr || k == nullptr || v == nullptr) return EA_ERR_NULL_POINTER;
  if (cache->ready != EA_PLAN_READY) return EA_ERR_BAD_ARGUMENT;
  const ea_kv_cache_config& c = cache->config;
  if (n_tokens <= 0 || n_tokens > c.capacity) return EA_ERR_BAD_DIMENSION;
  if (c.window == 0 && cache->length + n_tokens > c.capacity) return EA_ERR_CACHE_FULL;
  const size_t bytes = edgeattn::FloatBytes(int64_t{n_tokens} * c.n_kv_heads * c.d_head);
  const edgeattn::Extent carve = edgeattn::CacheCarve(*cache);
  const edgeattn::Extent inputs[2] = {{k, bytes}, {v, bytes}};
  if (edgeattn::OverlapsAny(carve, inputs, 2)) return EA_ERR_BAD_ARGUMENT;
  edgeattn::StoreKvTokens(*cache, k, v, n_tokens);
  cache->length += n_tokens;
  return EA_OK;
}

ea_status ea_kv_cache_attend(const ea_kv_cache* cache, const float* q, int32_t n_queries,
                             float* out) {
  return edgeattn::Attend(cache, q, n_queries, /*causal=*/true, out);
}

ea_status ea_kv_cache_attend_all(const ea_kv_cache* cache, const float* q, int32_t n_queries,
                                 float* out) {
  return edgeattn::Attend(cache, q, n_queries, /*causal=*/false, out);
}

}  // extern "C"
