// The library's plan-time float maths without libm (src/tflite/
// exact_float_math.h, the round of edgeattn/sinusoidal_table.hpp)
// against the C library it replaces, bit for bit, on every target this suite
// runs on (host, aarch64, armhf, Cortex-M with newlib); and TFLite's Prepare
// integers built on them (QuantizeMultiplier, the int8 softmax's scaling)
// against the test reference, which calls std::frexp, std::round, std::floor.
#include <gtest/gtest.h>
#include <stdint.h>
#include <string.h>

#include <cmath>

#include "edgeattn/sinusoidal_table.hpp"
#include "reference/random_tensor.h"
#include "reference/tflite_chain_reference.h"
#include "tflite/exact_float_math.h"
#include "tflite/quantize_multiplier.h"

namespace edgeattn_test {
namespace {

constexpr int kDraws = 3000;  // per property: the emulated Cortex-M suites run these too

// The value with the other type's bits (both the same size).
template <typename To, typename From>
To BitCast(From from) {
  static_assert(sizeof(To) == sizeof(From), "same size");
  To to;
  memcpy(&to, &from, sizeof to);
  return to;
}
uint64_t BitsOf(double value) { return BitCast<uint64_t>(value); }
uint32_t BitsOf(float value) { return BitCast<uint32_t>(value); }
double DoubleFromBits(uint64_t bits) { return BitCast<double>(bits); }
float FloatFromBits(uint32_t bits) { return BitCast<float>(bits); }

// Doubles of every exponent and sign (subnormals included; no inf or NaN).
double AnyFiniteDouble(RandomStream* random) {
  for (;;) {
    const double value = DoubleFromBits(random->NextBits());
    if (std::isfinite(value)) return value;
  }
}

TEST(ExactFloatMath, FrexpEqualsTheCLibrary) {
  RandomStream random(71);
  for (int i = 0; i < kDraws; ++i) {
    const double x =
        i < 4 ? (i < 2 ? DoubleFromBits(i) : -DoubleFromBits(i)) : AnyFiniteDouble(&random);
    int want_exponent = 0, exponent = 0;
    const double want = std::frexp(x, &want_exponent);
    const double got = edgeattn::Frexp(x, &exponent);
    ASSERT_EQ(BitsOf(got), BitsOf(want)) << x;
    ASSERT_EQ(exponent, want_exponent) << x;
  }
}

TEST(ExactFloatMath, RoundEqualsTheCLibraryAtTiesAndEverywhere) {
  RandomStream random(72);
  for (int i = 0; i < kDraws; ++i) {
    // Ties (k + 1/2), their neighbours, values near 2^52, and any double.
    const double k = std::floor(random.Uniform() * 1e6) - 5e5;
    const double candidates[] = {k + 0.5,
                                 std::nextafter(k + 0.5, 0.0),
                                 std::nextafter(k + 0.5, 1e9),
                                 4503599627370496.0 - 0.5 - k * k,
                                 AnyFiniteDouble(&random),
                                 random.Normal() * 3.0};
    for (double x : candidates)
      ASSERT_EQ(BitsOf(edgeattn::constexpr_math::RoundHalfAwayFromZero(x)), BitsOf(std::round(x)))
          << x;
  }
  EXPECT_EQ(BitsOf(edgeattn::constexpr_math::RoundHalfAwayFromZero(-0.25)),
            BitsOf(std::round(-0.25)));  // -0.0
}

TEST(ExactFloatMath, FloatRoundEqualsRoundf) {
  RandomStream random(73);
  for (int i = 0; i < kDraws; ++i) {
    const float k = static_cast<float>(std::floor(random.Uniform() * 2e4) - 1e4);
    const float candidates[] = {k + 0.5f,
                                std::nextafter(k + 0.5f, 0.0f),
                                std::nextafter(k + 0.5f, 1e9f),
                                FloatFromBits(static_cast<uint32_t>(random.NextBits())),
                                static_cast<float>(random.Normal() * 300.0),
                                8388607.5f,
                                -8388608.0f};
    for (float x : candidates) {
      if (std::isnan(x)) continue;
      ASSERT_EQ(BitsOf(edgeattn::constexpr_math::RoundHalfAwayFromZero(x)), BitsOf(std::roundf(x)))
          << x;
    }
  }
}

TEST(ExactFloatMath, SqrtIsCorrectlyRoundedAsSqrtf) {
  RandomStream random(74);
  for (int32_t n = 1; n <= 4096; ++n) {  // every head width in use
    ASSERT_EQ(BitsOf(edgeattn::InverseSqrt(n)), BitsOf(1.0f / std::sqrt(static_cast<float>(n))))
        << n;
  }
  for (int i = 0; i < kDraws; ++i) {
    // Positive finite floats of every exponent, subnormals included.
    const float x = FloatFromBits(static_cast<uint32_t>(random.NextBits() % 0x7F800000u) + 1u);
    ASSERT_EQ(BitsOf(edgeattn::CorrectlyRoundedSqrt(x)), BitsOf(std::sqrt(x))) << x;
  }
  EXPECT_EQ(edgeattn::InverseSqrt(INT32_MAX), 1.0f / std::sqrt(static_cast<float>(INT32_MAX)));
}

TEST(ExactFloatMath, PrepareIntegersEqualTheReferences) {
  RandomStream random(75);
  for (int i = 0; i < kDraws; ++i) {
    // Positive multipliers from 2^-40 to 2^40, and any positive double.
    const double real = i % 2 == 0 ? std::ldexp(0.5 + random.Uniform() * 0.5,
                                                static_cast<int>(random.Uniform() * 80) - 40)
                                   : std::fabs(AnyFiniteDouble(&random));
    const tflite_ref::QuantizedMultiplier want = tflite_ref::QuantizeMultiplier(real);
    const edgeattn::QuantizedMultiplier got = edgeattn::QuantizeMultiplier(real);
    if (want.shift > 30) continue;  // beyond every requantisation's range; plans refuse it
    ASSERT_EQ(got.multiplier, want.multiplier) << real;
    ASSERT_EQ(got.shift, want.shift) << real;
  }
  for (int i = 0; i < kDraws; ++i) {
    const float beta = static_cast<float>(0.01 + random.Uniform() * 2.0);
    const float scale = static_cast<float>(
        std::ldexp(0.5 + random.Uniform(), -static_cast<int>(random.Uniform() * 12)));
    const tflite_ref::SoftmaxInt8Params want = tflite_ref::PrepareSoftmaxInt8(beta, scale);
    const edgeattn::SoftmaxS8Scaling got = edgeattn::PrepareSoftmaxS8(beta, scale);
    ASSERT_EQ(got.multiplier, want.input_multiplier) << beta << " " << scale;
    ASSERT_EQ(got.left_shift, want.input_left_shift) << beta << " " << scale;
    ASSERT_EQ(got.diff_min, want.diff_min) << beta << " " << scale;
  }
}

}  // namespace
}  // namespace edgeattn_test
