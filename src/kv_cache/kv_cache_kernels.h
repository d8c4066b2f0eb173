// The KV cache's two operations as the entry points see them; arguments are
// already validated (kv_cache_api.cc).
#ifndef EDGEATTN_SRC_KV_CACHE_KV_CACHE_KERNELS_H_
#define EDGEATTN_SRC_KV_CACHE_KV_CACHE_KERNELS_H_

#include <stdint.h>

#include "edgeattn/kv_cache.h"

namespace edgeattn {

// Writes tokens [cache.length, cache.length + n_tokens) into their records
// in the cache's storage (kv_cache_store.cc); does not advance length.
void StoreKvTokens(const ea_kv_cache& cache, const float* k, const float* v, int32_t n_tokens);

// out = the attention of n_queries queries (decode_attention.cc): causal, those
// of the last n_queries tokens; otherwise all at the newest position.
void DecodeAttention(const ea_kv_cache& cache, const float* q, int32_t n_queries, bool causal,
                     float* out);

// DecodeAttention for one storage (decode_attention_{f32,f16,s8}.cc; S8
// also reads int4 records).
void DecodeAttentionF32(const ea_kv_cache& cache, const float* q, int32_t n_queries, bool causal,
                        float* out);
void DecodeAttentionF16(const ea_kv_cache& cache, const float* q, int32_t n_queries, bool causal,
                        float* out);
void DecodeAttentionS8(const ea_kv_cache& cache, const float* q, int32_t n_queries, bool causal,
                       float* out);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KV_CACHE_KV_CACHE_KERNELS_H_
