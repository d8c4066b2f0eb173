// TensorFlow Lite's requantisation (requantize.h) on four int32 lanes with
// Helium (MVE, Cortex-M55), bit for bit:
// - VQRDMULH is RoundingDoublingHighMul exactly: (2 a b + 2^31) >> 32 =
//   floor((a b + 2^30) / 2^31), saturated at MIN * MIN;
// - VRSHL by a negative amount rounds half up; subtracting 1 from negative
//   lanes first (saturating) makes it RoundingDivideByPowerOfTwo's
//   round-half-away-from-zero;
// - VQADD then a clamp equal Saturate(SaturateToInt32(x + offset)).
// Only for shifts <= 0 (multipliers below one: Requantize's usual path and
// every RequantizeSmallerThanOne); callers take the scalar path otherwise.
#ifndef EDGEATTN_SRC_KERNELS_INT_ARM_MVE_REQUANTIZE_H_
#define EDGEATTN_SRC_KERNELS_INT_ARM_MVE_REQUANTIZE_H_

#include "kernels/int/arm/mve_dot_s8.h"

#if EDGEATTN_MVE_DOT_S8
#include <arm_mve.h>

namespace edgeattn {

// RoundingDivideByPowerOfTwo(RoundingDoublingHighMul(x, multiplier), -shift)
// per lane, shift in [-31, 0], with the per-call decisions taken once (the
// shift as a vector, or none for shift 0) for loops that requantise many
// vectors with one multiplier.
struct MveRequantizer {
  MveRequantizer(int32_t m, int32_t shift)
      : multiplier(m), shift_vector(vdupq_n_s32(shift)), shifts(shift < 0) {}
  int32x4_t operator()(int32x4_t x) const {
    const int32x4_t value = vqrdmulhq_n_s32(x, multiplier);
    if (!shifts) return value;
    return vrshlq_s32(vqaddq_s32(value, vshrq_n_s32(value, 31)), shift_vector);
  }
  int32_t multiplier;
  int32x4_t shift_vector;
  bool shifts;
};

inline int32x4_t MveRequantize(int32x4_t x, int32_t multiplier, int32_t shift) {
  return MveRequantizer(multiplier, shift)(x);
}

// x + offset saturated to int32, then clamped to [low, high].
inline int32x4_t MveOffsetClamp(int32x4_t x, int32_t offset, int32_t low, int32_t high) {
  const int32x4_t value = vqaddq_s32(x, vdupq_n_s32(offset));
  return vminq_s32(vmaxq_s32(value, vdupq_n_s32(low)), vdupq_n_s32(high));
}

}  // namespace edgeattn

#endif  // EDGEATTN_MVE_DOT_S8

#endif  // EDGEATTN_SRC_KERNELS_INT_ARM_MVE_REQUANTIZE_H_
