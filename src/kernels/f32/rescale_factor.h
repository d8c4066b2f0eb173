// The factor O = O * rescale + P V carries from one key block of a row to
// the next (OnlineSoftmaxRows computes it). +0 marks the row's first block:
// the output holds nothing yet and is not read. A later block whose factor
// underflows gets -0 instead, so that the output is still read: 0 * inf and
// 0 * NaN are NaN, and a non-finite value that reached the row stays in it,
// as the whole softmax's zero-probability products keep it (kv_cache.h: a
// non-finite value reaches the outputs of the queries that see it).
#ifndef EDGEATTN_SRC_KERNELS_F32_RESCALE_FACTOR_H_
#define EDGEATTN_SRC_KERNELS_F32_RESCALE_FACTOR_H_

#include <math.h>

namespace edgeattn {

// Whether `factor` starts the output row (+0) rather than rescales it.
inline bool StartsOutputRow(float factor) { return factor == 0.0f && !signbit(factor); }

// The factor of a row that already holds an output: -0 where it underflowed.
inline float LaterBlockFactor(float factor) { return factor == 0.0f ? -0.0f : factor; }

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_F32_RESCALE_FACTOR_H_
