// TFLite's Prepare-time multiplier arithmetic (see the header).
#include "tflite/quantize_multiplier.h"

#include <math.h>  // isfinite, a compiler builtin (no libm: see exact_float_math.h)

#include "edgeattn/sinusoidal_table.hpp"  // constexpr_math::RoundHalfAwayFromZero
#include "tflite/exact_float_math.h"

namespace edgeattn {

QuantizedMultiplier QuantizeMultiplier(double real) {
  if (real == 0.0) return {0, 0};
  // Past double's range (a ratio of float scales that overflowed; undefined
  // in TFLite): the largest multiplier a requantisation accepts.
  if (!isfinite(real)) return {INT32_MAX, 30};
  int exponent = 0;
  const double mantissa = Frexp(real, &exponent);
  int64_t fixed =
      static_cast<int64_t>(constexpr_math::RoundHalfAwayFromZero(mantissa * 2147483648.0));
  if (fixed == (int64_t{1} << 31)) {
    fixed /= 2;
    ++exponent;
  }
  if (exponent < -31) return {0, 0};
#if defined(EDGEATTN_SINGLE_ROUNDING)
  // TFLite saturates here only in its single-rounding build.
  if (exponent > 30) return {INT32_MAX, 30};
#endif
  return {static_cast<int32_t>(fixed), exponent};
}

SoftmaxS8Scaling PrepareSoftmaxS8(double beta, double input_scale) {
  constexpr int kIntegerBits = 5;
  double real = beta * input_scale * static_cast<double>(int64_t{1} << (31 - kIntegerBits));
  const double largest = static_cast<double>((int64_t{1} << 31) - 1);
  if (real > largest) real = largest;
  const QuantizedMultiplier m = QuantizeMultiplier(real);
  SoftmaxS8Scaling s{};
  s.multiplier = m.multiplier;
  s.left_shift = m.shift;
  const double radius = 1.0 * ((1 << kIntegerBits) - 1) *
                        static_cast<double>(int64_t{1} << (31 - kIntegerBits)) /
                        static_cast<double>(int64_t{1} << (m.shift < 0 ? 0 : m.shift));
  s.diff_min = -static_cast<int32_t>(radius);  // floor: radius is in [0, 2^31)
  return s;
}

}  // namespace edgeattn
