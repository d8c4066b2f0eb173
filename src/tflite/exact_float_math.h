// C library functions TFLite's Prepare uses, written out with the same results
// bit for bit, so that a firmware image which plans a fixed-point layer links
// no libm: frexp and sqrtf here; round is constexpr_math's
// (sinusoidal_table.hpp), and floor a cast where its argument is never
// negative. Exact by construction: each works on the binary representation or
// where float arithmetic is exact; tests/tflite/exact_float_math_test.cc compares
// them with the C library on every target. Plan time only (the run path has no
// float).
#ifndef EDGEATTN_SRC_TFLITE_EXACT_FLOAT_MATH_H_
#define EDGEATTN_SRC_TFLITE_EXACT_FLOAT_MATH_H_

#include <stdint.h>
#include <string.h>

namespace edgeattn {

// frexp for a finite x: x = mantissa * 2^exponent, |mantissa| in [0.5, 1)
// (0 for x = 0, exponent 0).
inline double Frexp(double x, int* exponent) {
  *exponent = 0;
  if (x == 0.0) return x;
  int bias = 0;
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  if (((bits >> 52) & 0x7FF) == 0) {  // subnormal: scale into the normal range (exact)
    x *= 18014398509481984.0;         // 2^54
    bias = -54;
    memcpy(&bits, &x, sizeof bits);
  }
  *exponent = static_cast<int>((bits >> 52) & 0x7FF) - 1022 + bias;
  bits = (bits & ~(uint64_t{0x7FF} << 52)) | (uint64_t{1022} << 52);
  double mantissa;
  memcpy(&mantissa, &bits, sizeof mantissa);
  return mantissa;
}

// sqrtf, correctly rounded as IEEE 754 requires of it, for a positive finite
// x: a double estimate rounded to float, then moved to the float whose
// rounding interval holds sqrt(x). A midpoint m between neighbouring floats
// has 25 significant bits, so m * m (50 bits) is exact in double and never
// equals x (24 bits): the comparisons decide without ties.
inline float CorrectlyRoundedSqrt(float x) {
  const double target = static_cast<double>(x);
  double estimate = target > 1.0 ? target : 1.0;
  for (int i = 0; i < 200; ++i) {  // Newton from above: monotone, ~6 steps per 2^64 of range
    const double next = 0.5 * (estimate + target / estimate);
    if (next >= estimate) break;
    estimate = next;
  }
  float root = static_cast<float>(estimate);
  const auto neighbour = [](float f, int32_t step) {
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    bits = static_cast<uint32_t>(static_cast<int32_t>(bits) + step);
    memcpy(&f, &bits, sizeof f);
    return f;
  };
  for (int i = 0; i < 4; ++i) {
    const double above = 0.5 * (static_cast<double>(root) + neighbour(root, 1));
    const double below = 0.5 * (static_cast<double>(root) + neighbour(root, -1));
    if (above * above < target) {
      root = neighbour(root, 1);
    } else if (below * below > target) {
      root = neighbour(root, -1);
    } else {
      break;
    }
  }
  return root;
}

// 1 / sqrtf(count) as C computes it, the softmax's default beta 1/sqrt(d_k).
inline float InverseSqrt(int32_t count) {
  return 1.0f / CorrectlyRoundedSqrt(static_cast<float>(count));
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_TFLITE_EXACT_FLOAT_MATH_H_
