// TensorFlow Lite's integer requantisation, the arithmetic every fixed-point
// kernel ends with: an accumulator times a real multiplier M * 2^(shift - 31)
// (M a Q31 mantissa from QuantizeMultiplier), rounded as TFLite rounds.
//
// Plain inline integer code: the run path of the fixed-point kernels has no
// float, so these give the same bits on every target. Where TFLite's
// reference has undefined behaviour (a left shift that overflows int32, an
// int64 accumulator past its 2^47 DCHECK, a result outside int32) these
// saturate; that is edgeattn's definition, documented in README "Fixed point".
#ifndef EDGEATTN_SRC_TFLITE_REQUANTIZE_H_
#define EDGEATTN_SRC_TFLITE_REQUANTIZE_H_

#include <stdint.h>

namespace edgeattn {

inline int32_t SaturateToInt32(int64_t x) {
  return x > INT32_MAX ? INT32_MAX : (x < INT32_MIN ? INT32_MIN : static_cast<int32_t>(x));
}

// gemmlowp's SaturatingRoundingDoublingHighMul: (a * b + nudge) / 2^31
// truncated toward zero, nudge 2^30 for a product >= 0 and 1 - 2^30 below.
// For every integer product p that equals floor((p + 2^30) / 2^31) (round
// half up: for p < 0, trunc((p + 1 - 2^30) / 2^31) = ceil((p + 1) / 2^31) - 1
// = floor(p / 2^31 + 1/2)), one multiply-accumulate and an arithmetic shift
// (SMLAL on Cortex-M) instead of a sign test and a 64-bit division. The one
// overflow (MIN * MIN) saturates.
inline int32_t RoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  return static_cast<int32_t>((static_cast<int64_t>(a) * b + (int64_t{1} << 30)) >> 31);
}

// x / 2^exponent rounded to nearest, ties away from zero; exponent in [0, 31].
inline int32_t RoundingDivideByPowerOfTwo(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((uint32_t{1} << exponent) - 1u);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// x * 2^shift saturated to int32, shift in [0, 31].
inline int32_t SaturatingShiftLeft(int32_t x, int shift) {
  return SaturateToInt32(static_cast<int64_t>(x) * (int64_t{1} << shift));
}

// TFLite's MultiplyByQuantizedMultiplier for an int32 accumulator; shift in
// [-31, 30]. Default: double rounding (TFLite's default build). With
// EDGEATTN_SINGLE_ROUNDING: TFLite's TFLITE_SINGLE_ROUNDING variant.
inline int32_t Requantize(int32_t x, int32_t multiplier, int shift) {
#if defined(EDGEATTN_SINGLE_ROUNDING)
  const int total_shift = 31 - shift;
  const int64_t round = int64_t{1} << (total_shift - 1);
  return SaturateToInt32((static_cast<int64_t>(x) * multiplier + round) >> total_shift);
#else
  // Multipliers above 1 (shift > 0) are rare: the usual path has no shift
  // left and no 64-bit saturation.
  if (shift > 0) return RoundingDoublingHighMul(SaturatingShiftLeft(x, shift), multiplier);
  return RoundingDivideByPowerOfTwo(RoundingDoublingHighMul(x, multiplier), -shift);
#endif
}

// The largest |x| TFLite's int64 requantisation accepts (a DCHECK there).
inline constexpr int64_t kRequantize64Limit = int64_t{1} << 47;

// TFLite's MultiplyByQuantizedMultiplier for an int64 accumulator (the int16
// paths), the same in both rounding modes: the multiplier is first cut to 16
// bits, then one rounding shift. Its constants, derived once per multiplier
// and shift (in [-31, 7]) rather than per accumulator.
struct Requantize64Factors {
  int64_t reduced;  // the multiplier cut to 16 bits
  int64_t round;
  int total_shift;  // 15 - shift, in [8, 46]
};

inline Requantize64Factors FactorsOf(int32_t multiplier, int shift) {
  const int total_shift = 15 - shift;
  return {multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF,
          int64_t{1} << (total_shift - 1), total_shift};
}

// x clamped to TFLite's DCHECKed range [-2^47, 2^47): |x| < 2^47 exactly when
// x's high word lies in [-2^15, 2^15), one 32-bit test.
inline int64_t ClampToRequantize64Limit(int64_t x) {
  const int32_t high = static_cast<int32_t>(static_cast<uint64_t>(x) >> 32);
  if (static_cast<uint32_t>(high) + 32768u < 65536u) return x;
  return high < 0 ? -kRequantize64Limit : kRequantize64Limit - 1;
}

// The rounded product before the int32 saturation.
inline int64_t Requantize64Unsaturated(int64_t x, const Requantize64Factors& f) {
  return (ClampToRequantize64Limit(x) * f.reduced + f.round) >> f.total_shift;
}

inline int32_t Requantize64(int64_t x, int32_t multiplier, int shift) {
  return SaturateToInt32(Requantize64Unsaturated(x, FactorsOf(multiplier, shift)));
}

// TFLite's MultiplyByQuantizedMultiplierSmallerThanOneExp (ADD): shift in [-31, 0].
inline int32_t RequantizeSmallerThanOne(int32_t x, int32_t multiplier, int shift) {
  return RoundingDivideByPowerOfTwo(RoundingDoublingHighMul(x, multiplier), -shift);
}

inline int32_t Clamp(int32_t x, int32_t lo, int32_t hi) { return x < lo ? lo : (x > hi ? hi : x); }

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_TFLITE_REQUANTIZE_H_
