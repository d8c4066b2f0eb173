// gemmlowp's Q-format exp and reciprocal, from their definitions (see the
// header). Products of Q-format values are RoundingDoublingHighMul; sums wrap.
#include "tflite/fixed_point_math.h"

#include "tflite/requantize.h"

namespace edgeattn {
namespace {

int32_t Mul(int32_t a, int32_t b) { return RoundingDoublingHighMul(a, b); }

// gemmlowp's SaturatingRoundingMultiplyByPOT for a positive exponent: values
// whose magnitude exceeds 2^(31 - exponent) - 1 saturate.
int32_t SaturatingMultiplyByPowerOfTwo(int32_t x, int exponent) {
  const int32_t threshold = (int32_t{1} << (31 - exponent)) - 1;
  if (x > threshold) return INT32_MAX;
  if (x < -threshold) return INT32_MIN;
  return static_cast<int32_t>(static_cast<uint32_t>(x) << exponent);
}

int32_t WrappingAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// exp(a) for a Q0.31 value a in [-1/4, 0): the Taylor series around -1/8 to
// the fourth power.
int32_t ExpOnQuarterInterval(int32_t a) {
  const int32_t exp_minus_one_eighth = 1895147668;     // exp(-1/8), Q0.31
  const int32_t one_third = 715827883;                 // 1/3, Q0.31
  const int32_t x = WrappingAdd(a, int32_t{1} << 28);  // a + 1/8
  const int32_t x2 = Mul(x, x);
  const int32_t x3 = Mul(x2, x);
  const int32_t x4 = Mul(x2, x2);
  const int32_t x4_over_4 = RoundingDivideByPowerOfTwo(x4, 2);
  const int32_t series =
      RoundingDivideByPowerOfTwo(WrappingAdd(Mul(WrappingAdd(x4_over_4, x3), one_third), x2), 1);
  return WrappingAdd(exp_minus_one_eighth, Mul(exp_minus_one_eighth, WrappingAdd(x, series)));
}

}  // namespace

int32_t ExpOnNegativeQ5_26(int32_t a) {
  constexpr int kFractionalBits = 26;
  const int32_t one_quarter = int32_t{1} << (kFractionalBits - 2);
  // a = (a mod 1/4 - 1/4) - remainder, remainder a sum of powers of two >= 1/4.
  const int32_t in_quarter = WrappingAdd(a & (one_quarter - 1), -one_quarter);
  int32_t result = ExpOnQuarterInterval(SaturatingMultiplyByPowerOfTwo(in_quarter, 5));
  const int32_t remainder = WrappingAdd(in_quarter, -a);
  // exp(-2^e) for e = -2..4, Q0.31: one factor per bit of the remainder.
  static const int32_t kExpMinusPowerOfTwo[7] = {1672461947, 1302514674, 790015084, 290630308,
                                                 39332535,   720401,     242};
  for (int e = -2; e <= 4; ++e) {
    if (remainder & (int32_t{1} << (kFractionalBits + e))) {
      result = Mul(result, kExpMinusPowerOfTwo[e + 2]);
    }
  }
  return a == 0 ? INT32_MAX : result;
}

int32_t OneOverOnePlusX(int32_t x) {
  // half the denominator, (x + 1) / 2 in Q0.31, rounded half away from zero.
  const int64_t sum = static_cast<int64_t>(x) + INT32_MAX;
  const int32_t half_denominator = static_cast<int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
  // Newton-Raphson on 1 / half_denominator in Q2.29, starting from
  // 48/17 - 32/17 * half_denominator.
  const int32_t kFortyEightOverSeventeen = 1515870810;
  const int32_t kMinusThirtyTwoOverSeventeen = -1010580540;
  const int32_t one_q2_29 = int32_t{1} << 29;
  int32_t estimate =
      WrappingAdd(kFortyEightOverSeventeen, Mul(half_denominator, kMinusThirtyTwoOverSeventeen));
  for (int i = 0; i < 3; ++i) {
    const int32_t error = WrappingAdd(one_q2_29, -Mul(half_denominator, estimate));
    estimate = WrappingAdd(estimate, SaturatingMultiplyByPowerOfTwo(Mul(estimate, error), 2));
  }
  // 1 / (1 + x) = estimate / 2: the same raw bits read as Q1.30, then Q0.31.
  return SaturatingMultiplyByPowerOfTwo(estimate, 1);
}

int32_t Reciprocal(int32_t sum, int integer_bits, int* bits_over_unit) {
  const uint32_t bits = static_cast<uint32_t>(sum);
  const int headroom_plus_one = bits == 0 ? 32 : __builtin_clz(bits);
  *bits_over_unit = integer_bits - headroom_plus_one;
  const uint32_t normalised = headroom_plus_one < 32 ? bits << headroom_plus_one : 0;
  const int32_t shifted_minus_one = static_cast<int32_t>(normalised - (uint32_t{1} << 31));
  return OneOverOnePlusX(shifted_minus_one);
}

}  // namespace edgeattn
