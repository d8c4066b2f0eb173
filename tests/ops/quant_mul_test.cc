// Fixed-point MUL (ea_mul_quant_derive, ea_mul_quant_run_s8 / _s16) against the
// project's integer reference of TFLite's MUL and its Prepare
// (tests/reference/tflite_chain_reference.h): random scales and zero points,
// inputs over the whole range (products at the int16 extremes included),
// multipliers above 1 whose left shift saturates, every target; aliasing, and
// refusals that leave out untouched.
#include <gtest/gtest.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cmath>
#include <limits>
#include <vector>

#include "edgeattn/edgeattn.h"
#include "reference/quant_test_values.h"
#include "reference/random_tensor.h"
#include "reference/tflite_chain_reference.h"
#include "simd_targets.h"

namespace edgeattn_test {
namespace {

class QuantMulPerTarget : public PerTargetTest {};

ea_status Mul(const int8_t* a, const int8_t* b, size_t n, const ea_mul_quant_params* p,
              int8_t* out) {
  return ea_mul_quant_run_s8(a, b, n, p, out);
}
ea_status Mul(const int16_t* a, const int16_t* b, size_t n, const ea_mul_quant_params* p,
              int16_t* out) {
  return ea_mul_quant_run_s16(a, b, n, p, out);
}

// Output scales from far below the inputs' product (multipliers above 1,
// saturating) to far above it.
template <typename T>
void ExpectSameAsReference(uint64_t seed) {
  constexpr bool kInt8 = sizeof(T) == 1;
  const ea_dtype dtype = kInt8 ? EA_DTYPE_INT8 : EA_DTYPE_INT16;
  RandomStream random(seed);
  const auto quant = [&](double lo, double hi) {
    const double scale = lo * std::pow(hi / lo, random.Uniform());
    const int32_t zp = kInt8 ? static_cast<int32_t>(-128 + random.Uniform() * 256) : 0;
    return ea_quant{static_cast<float>(scale), zp};
  };
  for (int trial = 0; trial < 60; ++trial) {
    const ea_quant a = quant(1e-4, 1.0), b = quant(1e-4, 1.0);
    const double product = static_cast<double>(a.scale) * b.scale;
    const ea_quant out = quant(product * 1e-3, product * 1e4);
    ea_mul_quant_params p{};
    ASSERT_EQ(ea_mul_quant_derive(dtype, a, b, out, &p), EA_OK) << trial;
    const tflite_ref::MulParams r = tflite_ref::PrepareMul(RefQuant(a), RefQuant(b), RefQuant(out));
    EXPECT_EQ(std::vector<int32_t>({p.input1_offset, p.input2_offset, p.output_offset,
                                    p.output_multiplier, p.output_shift}),
              std::vector<int32_t>({r.input1_offset, r.input2_offset, r.output_offset,
                                    r.output_multiplier, r.output_shift}))
        << trial;
    const size_t count = 1 + static_cast<size_t>(random.Uniform() * 300);
    std::vector<T> x = RandomCodes<T>(count, &random), y = RandomCodes<T>(count, &random);
    x[0] = std::numeric_limits<T>::min();  // the largest product
    y[0] = std::numeric_limits<T>::min();
    std::vector<T> got(count);
    ASSERT_EQ(Mul(x.data(), y.data(), count, &p, got.data()), EA_OK);
    EXPECT_EQ(got, tflite_ref::Mul(r, x.data(), y.data(), count)) << trial;
    std::vector<T> in_place = y;  // out = b
    ASSERT_EQ(Mul(x.data(), in_place.data(), count, &p, in_place.data()), EA_OK);
    EXPECT_EQ(in_place, got) << trial;
    in_place = x;  // out = a
    ASSERT_EQ(Mul(in_place.data(), y.data(), count, &p, in_place.data()), EA_OK);
    EXPECT_EQ(in_place, got) << trial;
    in_place = x;  // a square in place: a = b = out
    ASSERT_EQ(Mul(in_place.data(), in_place.data(), count, &p, in_place.data()), EA_OK);
    EXPECT_EQ(in_place, tflite_ref::Mul(r, x.data(), x.data(), count)) << trial;
  }
}

TEST_P(QuantMulPerTarget, Int8IsTflitesMul) { ExpectSameAsReference<int8_t>(800); }
TEST_P(QuantMulPerTarget, Int16IsTflitesMul) { ExpectSameAsReference<int16_t>(801); }

INSTANTIATE_TEST_SUITE_P(Targets, QuantMulPerTarget, testing::ValuesIn(TargetsUnderTest()),
                         TargetParamName);

// Worked by hand: 0.5 * 0.25 and 0.25 * 0.25 on int8 inputs of scale 1/64
// (zero points 5 and -3), the output of scale 1/1024 (zero point -10).
TEST(QuantMulRules, AWorkedProduct) {
  ea_mul_quant_params p{};
  ASSERT_EQ(
      ea_mul_quant_derive(EA_DTYPE_INT8, {1.0f / 64, 5}, {1.0f / 64, -3}, {1.0f / 1024, -10}, &p),
      EA_OK);
  const int8_t a[2] = {5 + 32, 5 + 16};    // 0.5, 0.25
  const int8_t b[2] = {-3 + 16, -3 + 16};  // 0.25, 0.25
  int8_t out[2];
  ASSERT_EQ(ea_mul_quant_run_s8(a, b, 2, &p, out), EA_OK);
  // 0.125 / (1/1024) = 128 -> -10 + 128 = 118; 0.0625 * 1024 = 64 -> 54.
  EXPECT_EQ(out[0], 118);
  EXPECT_EQ(out[1], 54);
}

TEST(QuantMulRules, RefusalsLeaveOutUntouched) {
  ea_mul_quant_params p{};
  const ea_quant q{0.05f, 3};
  ASSERT_EQ(ea_mul_quant_derive(EA_DTYPE_INT8, q, q, q, &p), EA_OK);
  int8_t a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {0};
  int8_t buffer[16];
  for (int8_t& v : buffer) v = 0x5A;
  EXPECT_EQ(ea_mul_quant_run_s8(a, b, 0, &p, buffer), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(ea_mul_quant_run_s8(a, b, static_cast<size_t>(EA_MAX_ELEMENTS) + 1, &p, buffer),
            EA_ERR_DIMENSION_OVERFLOW);
  EXPECT_EQ(ea_mul_quant_run_s8(nullptr, b, 8, &p, buffer), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_mul_quant_run_s8(a, nullptr, 8, &p, buffer), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_mul_quant_run_s8(a, b, 8, nullptr, buffer), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_mul_quant_run_s8(buffer, b, 8, &p, buffer + 1),
            EA_ERR_BAD_ARGUMENT);  // partial overlap
  ea_mul_quant_params bad = p;
  bad.output_shift = 31;
  EXPECT_EQ(ea_mul_quant_run_s8(a, b, 8, &bad, buffer), EA_ERR_BAD_ARGUMENT);
  bad.output_shift = -32;
  EXPECT_EQ(ea_mul_quant_run_s8(a, b, 8, &bad, buffer), EA_ERR_BAD_ARGUMENT);
  bad = p;
  bad.output_multiplier = -1;
  EXPECT_EQ(ea_mul_quant_run_s8(a, b, 8, &bad, buffer), EA_ERR_BAD_ARGUMENT);
  bad = p;
  bad.input1_offset = -128;  // -zero point 128 is not an int8 zero point
  EXPECT_EQ(ea_mul_quant_run_s8(a, b, 8, &bad, buffer), EA_ERR_BAD_ARGUMENT);
  bad = p;
  bad.input2_offset = 129;  // nor is -129
  EXPECT_EQ(ea_mul_quant_run_s8(a, b, 8, &bad, buffer), EA_ERR_BAD_ARGUMENT);
  bad = p;
  bad.output_offset = 128;
  EXPECT_EQ(ea_mul_quant_run_s8(a, b, 8, &bad, buffer), EA_ERR_BAD_ARGUMENT);
  bad = p;
  bad.input1_offset = 128;  // the edges themselves are zero points -128 and 127
  bad.input2_offset = -127;
  bad.output_offset = -128;
  int8_t edge_out[8];
  EXPECT_EQ(ea_mul_quant_run_s8(a, b, 8, &bad, edge_out), EA_OK);
  int16_t a16[4] = {0}, out16[4] = {7, 7, 7, 7};
  EXPECT_EQ(ea_mul_quant_run_s16(a16, a16, 4, &p, out16), EA_ERR_BAD_ARGUMENT);  // int8 offsets
  for (const int8_t v : buffer) EXPECT_EQ(v, 0x5A);
  for (const int16_t v : out16) EXPECT_EQ(v, 7);

  const ea_mul_quant_params before = p;
  EXPECT_EQ(ea_mul_quant_derive(EA_DTYPE_F32, q, q, q, &p), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_mul_quant_derive(EA_DTYPE_INT16, q, q, q, &p), EA_ERR_BAD_ARGUMENT);  // zp 3
  EXPECT_EQ(ea_mul_quant_derive(EA_DTYPE_INT8, q, q, ea_quant{0.0f, 0}, &p), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_mul_quant_derive(EA_DTYPE_INT8, ea_quant{NAN, 0}, q, q, &p), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_mul_quant_derive(EA_DTYPE_INT8, q, q, ea_quant{1e-12f, 0}, &p),
            EA_ERR_BAD_ARGUMENT);  // a multiplier past 2^30
  EXPECT_EQ(ea_mul_quant_derive(EA_DTYPE_INT8, q, q, q, nullptr), EA_ERR_NULL_POINTER);
  EXPECT_EQ(memcmp(&before, &p, sizeof p), 0);
}

}  // namespace
}  // namespace edgeattn_test
