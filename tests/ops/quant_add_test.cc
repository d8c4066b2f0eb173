// Fixed-point ADD (ea_add_quant_derive, ea_add_quant_run_s8 / _s16) against the
// project's integer reference of TFLite's ADD and its Prepare
// (tests/reference/tflite_chain_reference.h): random scales and zero points,
// inputs over the whole range, every target; aliasing, and refusals that
// leave out untouched.
#include <gtest/gtest.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cmath>
#include <vector>

#include "edgeattn/edgeattn.h"
#include "reference/quant_test_values.h"
#include "reference/random_tensor.h"
#include "reference/tflite_chain_reference.h"
#include "simd_targets.h"

namespace edgeattn_test {
namespace {

class QuantAddPerTarget : public PerTargetTest {};

ea_status Add(const int8_t* a, const int8_t* b, size_t n, const ea_add_quant_params* p,
              int8_t* out) {
  return ea_add_quant_run_s8(a, b, n, p, out);
}
ea_status Add(const int16_t* a, const int16_t* b, size_t n, const ea_add_quant_params* p,
              int16_t* out) {
  return ea_add_quant_run_s16(a, b, n, p, out);
}

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
  for (int trial = 0; trial < 40; ++trial) {
    const ea_quant a = quant(1e-3, 1.0), b = quant(1e-3, 1.0), out = quant(2e-3, 2.0);
    ea_add_quant_params p{};
    ASSERT_EQ(ea_add_quant_derive(dtype, a, b, out, &p), EA_OK) << trial;
    const tflite_ref::AddParams r =
        tflite_ref::PrepareAdd(RefQuant(a), RefQuant(b), RefQuant(out), kInt8 ? 20 : 15);
    EXPECT_EQ(
        std::vector<int32_t>({p.left_shift, p.input1_offset, p.input1_multiplier, p.input1_shift,
                              p.input2_offset, p.input2_multiplier, p.input2_shift, p.output_offset,
                              p.output_multiplier, p.output_shift}),
        std::vector<int32_t>({r.left_shift, r.input1_offset, r.input1_multiplier, r.input1_shift,
                              r.input2_offset, r.input2_multiplier, r.input2_shift, r.output_offset,
                              r.output_multiplier, r.output_shift}))
        << trial;
    const size_t count = 1 + static_cast<size_t>(random.Uniform() * 300);
    const std::vector<T> x = RandomCodes<T>(count, &random), y = RandomCodes<T>(count, &random);
    std::vector<T> got(count);
    ASSERT_EQ(Add(x.data(), y.data(), count, &p, got.data()), EA_OK);
    EXPECT_EQ(got, tflite_ref::Add(r, x.data(), y.data(), count)) << trial;
    std::vector<T> in_place = x;  // out = a
    ASSERT_EQ(Add(in_place.data(), y.data(), count, &p, in_place.data()), EA_OK);
    EXPECT_EQ(in_place, got) << trial;
  }
}

TEST_P(QuantAddPerTarget, Int8IsTflitesAdd) { ExpectSameAsReference<int8_t>(700); }
TEST_P(QuantAddPerTarget, Int16IsTflitesAdd) { ExpectSameAsReference<int16_t>(701); }

INSTANTIATE_TEST_SUITE_P(Targets, QuantAddPerTarget, testing::ValuesIn(TargetsUnderTest()),
                         TargetParamName);

TEST(QuantAddRules, RefusalsLeaveOutUntouched) {
  ea_add_quant_params p{};
  const ea_quant q{0.05f, 3};
  ASSERT_EQ(ea_add_quant_derive(EA_DTYPE_INT8, q, q, q, &p), EA_OK);
  int8_t a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {0};
  int8_t buffer[16];
  for (int8_t& v : buffer) v = 0x5A;
  EXPECT_EQ(ea_add_quant_run_s8(a, b, 0, &p, buffer), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(ea_add_quant_run_s8(a, b, static_cast<size_t>(EA_MAX_ELEMENTS) + 1, &p, buffer),
            EA_ERR_DIMENSION_OVERFLOW);
  EXPECT_EQ(ea_add_quant_run_s8(nullptr, b, 8, &p, buffer), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_add_quant_run_s8(a, b, 8, nullptr, buffer), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_add_quant_run_s8(buffer, b, 8, &p, buffer + 1),
            EA_ERR_BAD_ARGUMENT);  // partial overlap
  ea_add_quant_params bad = p;
  bad.output_shift = 1;
  EXPECT_EQ(ea_add_quant_run_s8(a, b, 8, &bad, buffer), EA_ERR_BAD_ARGUMENT);
  bad = p;
  bad.left_shift = 16;  // an int8 plan's shift on the int16 path
  int16_t a16[4] = {0}, out16[4] = {7, 7, 7, 7};
  EXPECT_EQ(ea_add_quant_run_s16(a16, a16, 4, &bad, out16), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_add_quant_run_s16(a16, a16, 4, &p, out16), EA_ERR_BAD_ARGUMENT);  // int8 offsets
  for (const int8_t v : buffer) EXPECT_EQ(v, 0x5A);
  for (const int16_t v : out16) EXPECT_EQ(v, 7);

  const ea_add_quant_params before = p;
  EXPECT_EQ(ea_add_quant_derive(EA_DTYPE_F32, q, q, q, &p), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_add_quant_derive(EA_DTYPE_INT16, q, q, q, &p), EA_ERR_BAD_ARGUMENT);  // zp 3
  EXPECT_EQ(ea_add_quant_derive(EA_DTYPE_INT8, q, q, ea_quant{0.0f, 0}, &p), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_add_quant_derive(EA_DTYPE_INT8, ea_quant{NAN, 0}, q, q, &p), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_add_quant_derive(EA_DTYPE_INT8, q, q, ea_quant{1e-9f, 0}, &p),
            EA_ERR_BAD_ARGUMENT);  // output multiplier above 1
  EXPECT_EQ(ea_add_quant_derive(EA_DTYPE_INT8, q, q, q, nullptr), EA_ERR_NULL_POINTER);
  EXPECT_EQ(memcmp(&before, &p, sizeof p), 0);
}

}  // namespace
}  // namespace edgeattn_test
