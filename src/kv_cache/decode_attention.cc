// The decode kernel's entry: the kernel of the cache's storage
// (decode_attention-inl.h, one file per storage).
#include <stdint.h>

#include "edgeattn/kv_cache.h"
#include "kv_cache/kv_cache_kernels.h"

namespace edgeattn {

void DecodeAttention(const ea_kv_cache& cache, const float* q, int32_t n_queries, bool causal,
                     float* out) {
  switch (cache.config.storage) {
    case EA_KV_STORAGE_F16:
      return DecodeAttentionF16(cache, q, n_queries, causal, out);
    case EA_KV_STORAGE_Q8:
    case EA_KV_STORAGE_Q4:
      return DecodeAttentionS8(cache, q, n_queries, causal, out);
    default:
      return DecodeAttentionF32(cache, q, n_queries, causal, out);
  }
}

}  // namespace edgeattn
