// Before anything is timed, every fixed-point shape of the suite plans and runs once, and its
// output must be a meaningful quantization of the same layer: the int8 / int16 output,
// dequantized, against edgeattn's float32 MHA run on the dequantized inputs, weights and
// biases (relative RMS gap within the dtype's limit), with few saturated outputs and many
// distinct values. A failed ea_* call or a degenerate layer stops the benchmark: a speed
// figure of a layer whose softmax rounds every probability to zero would mean nothing. (The
// integers themselves are tested bit for bit against TFLite in tests/; this only checks that
// the bench's made-up quantization is a sane one.)
#ifndef EDGEATTN_BENCH_QUANT_CHECK_H_
#define EDGEATTN_BENCH_QUANT_CHECK_H_

#include <vector>

#include "shapes.h"

namespace edgeattn_bench {

// rms(dequantized y - float y) / rms(float y) at most this. Measured with the bench's layers:
// int8 0.055 (mha n128) to 0.24 (prefill n2048), growing with n as more of int8's 1/256
// probability steps round to zero; int16 0.0004 to 0.003. A degenerate layer reads about 1.
inline constexpr double kMaxQuantGapS8 = 0.4;
inline constexpr double kMaxQuantGapS16 = 0.02;
// At most this share of the outputs at the dtype's minimum or maximum.
inline constexpr double kMaxSaturatedShare = 0.01;
// At least this many distinct output integers (int8 has 256 in all).
inline constexpr size_t kMinDistinctOutputs = 32;

struct QuantCheckResult {
  bool passed = true;
  int shapes = 0;
  double worst_gap_s8 = 0.0;   // max over the s8 shapes of the relative RMS gap
  double worst_gap_s16 = 0.0;  // the same over the s16 shapes
  double worst_saturated_share = 0.0;
};

// Checks every fixed-point shape of `shapes` (the others are CrossCheck's); prints one line per
// shape and a summary line.
QuantCheckResult CheckFixedPointShapes(const std::vector<Shape>& shapes);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_QUANT_CHECK_H_
