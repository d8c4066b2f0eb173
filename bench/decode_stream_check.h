// Before anything is timed, every KV-cache row of the suite fills its cache and takes one
// step, and its output must match Eigen's attention over the same window: the last n tokens'
// keys and values as the stream gave them (float32), query head h on KV head
// h / (heads / kv_heads). A speed figure for a cache that attends to the wrong positions, or
// to the wrong KV head, would mean nothing. f32 storage must agree as the dense rows do
// (kMaxRelativeGap); f16, int8 and int4 store rounded K and V, so they get their storage's
// limits.
#ifndef EDGEATTN_BENCH_DECODE_STREAM_CHECK_H_
#define EDGEATTN_BENCH_DECODE_STREAM_CHECK_H_

#include <vector>

#include "shapes.h"

namespace edgeattn_bench {

// max |edgeattn - Eigen| / max |Eigen| at most this for an f16 / int8 / int4 cache. Measured
// with the bench's inputs (L 512 and 4096): 5.6e-4 (f16), 3.9e-3 (int8); f32 and GQA 2.1e-6;
// int4 (0.17.0, L 512 to 32768): 0.11, the steps of max|x| / 7 on unit-normal K and V.
inline constexpr double kMaxStreamGapF16 = 1e-2;
inline constexpr double kMaxStreamGapInt8 = 5e-2;
inline constexpr double kMaxStreamGapInt4 = 2.5e-1;

struct DecodeStreamCheckResult {
  bool passed = true;
  int shapes = 0;
  double worst_gap_f32 = 0.0;  // max over the f32 caches (GQA included)
  double worst_gap_f16 = 0.0;
  double worst_gap_int8 = 0.0;
  double worst_gap_int4 = 0.0;
};

// Checks every kDecodeStream shape of `shapes`; prints each failure and a summary line.
DecodeStreamCheckResult CheckDecodeStreams(const std::vector<Shape>& shapes);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_DECODE_STREAM_CHECK_H_
