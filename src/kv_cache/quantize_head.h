// int8 storage of one KV head at append: symmetric, one scale per token and
// head (kv_cache.h). The same bytes on every target: the tests compare the
// stored records across targets, and the cross-target digest includes them.
#ifndef EDGEATTN_SRC_KV_CACHE_QUANTIZE_HEAD_H_
#define EDGEATTN_SRC_KV_CACHE_QUANTIZE_HEAD_H_

#include <stddef.h>
#include <stdint.h>

namespace edgeattn {

// q[c * stride] = x[c] / scale rounded to nearest, ties to even, clamped to
// [-127, 127], for c < d, with scale = max|x| / 127; returns the scale. A head
// with a NaN or inf stores zeros and returns NaN; one whose scale underflows
// to 0 (zeros, denormals) stores zeros and returns 0.
float QuantizeHeadS8(const float* x, size_t d, int8_t* q, size_t stride);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KV_CACHE_QUANTIZE_HEAD_H_
