// int8 and int4 storage of one KV head (int4: one group of channels) at
// append: symmetric, one scale per token and head or group (kv_cache.h). The same bytes on every
// target: the tests compare the stored records across targets, and the cross-target digest includes
// them.
#ifndef EDGEATTN_SRC_KV_CACHE_QUANTIZE_HEAD_H_
#define EDGEATTN_SRC_KV_CACHE_QUANTIZE_HEAD_H_

#include <stddef.h>
#include <stdint.h>

namespace edgeattn {

inline constexpr int32_t kInt8CodeLimit = 127;
inline constexpr int32_t kInt4CodeLimit = 7;

// q[c * stride] = x[c] / scale rounded to nearest, ties to even, clamped to
// [-127, 127], for c < d, with scale = max|x| / 127; returns the scale. A head
// with a NaN or inf stores zeros and returns NaN; one whose scale underflows
// to 0 (zeros, denormals) stores zeros and returns 0.
float QuantizeHeadS8(const float* x, size_t d, int8_t* q, size_t stride);
// The same with codes in [-7, 7] and scale = max|x| / 7.
float QuantizeHeadS4(const float* x, size_t d, int8_t* q, size_t stride);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KV_CACHE_QUANTIZE_HEAD_H_
