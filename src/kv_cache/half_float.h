// float to IEEE binary16, rounded to nearest even, in integer arithmetic: the
// same bits on every CPU and SIMD target, whatever the FPU's rounding mode
// (F16C and Arm's fcvtn give these bits too, except NaN payloads).
// Magnitudes that round past 65504 become inf; NaN stays NaN (quiet).
#ifndef EDGEATTN_SRC_KV_CACHE_HALF_FLOAT_H_
#define EDGEATTN_SRC_KV_CACHE_HALF_FLOAT_H_

#include <stdint.h>
#include <string.h>

namespace edgeattn {

inline uint16_t HalfFromFloat(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude >= 0x7F800000u) {  // inf or NaN
    return static_cast<uint16_t>(sign | (magnitude > 0x7F800000u ? 0x7E00u : 0x7C00u));
  }
  if (magnitude >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 65520
  uint32_t half;
  uint32_t rest;
  uint32_t halfway;
  if (magnitude >= 0x38800000u) {  // normal half: rebias the exponent, drop 13 bits
    half = (magnitude - 0x38000000u) >> 13;
    rest = magnitude & 0x1FFFu;
    halfway = 0x1000u;
  } else {
    const uint32_t exponent = magnitude >> 23;
    if (exponent < 102) return sign;  // below 2^-25: rounds to zero
    // Subnormal half: the significand in units of 2^-24.
    const uint32_t significand = (magnitude & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126 - exponent;  // 14..24
    half = significand >> shift;
    rest = significand & ((1u << shift) - 1);
    halfway = 1u << (shift - 1);
  }
  if (rest > halfway || (rest == halfway && (half & 1u) != 0)) ++half;
  return static_cast<uint16_t>(sign | half);
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KV_CACHE_HALF_FLOAT_H_
