// The decode kernel (decode_attention-inl.h) for float32 records.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kv_cache/decode_attention_f32.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <stdint.h>

#include <hwy/highway.h>

#include "kv_cache/decode_attention-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {

void DecodeAttentionF32Target(const ea_kv_cache& cache, const float* q, int32_t n_queries,
                              bool causal, float* out) {
  const hn::ScalableTag<float> d;
  DecodeWithStorage<decltype(d), float>(d, cache, q, n_queries, causal, out);
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kv_cache/kv_cache_kernels.h"
#include "runtime/dispatch.h"

namespace edgeattn {

EA_EXPORT(DecodeAttentionF32Target);

void DecodeAttentionF32(const ea_kv_cache& cache, const float* q, int32_t n_queries, bool causal,
                        float* out) {
  EA_DISPATCH(DecodeAttentionF32Target)(cache, q, n_queries, causal, out);
}

}  // namespace edgeattn
#endif  // HWY_ONCE
