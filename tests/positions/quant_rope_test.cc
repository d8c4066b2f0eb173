// Fixed-point RoPE (ea_rope_quant_derive, ea_rope_quant_apply_s8 / _s16)
// against two independent references: the project's integer reference of the
// graph a quantized model runs, MUL, MUL, ADD (tests/reference/
// tflite_rope_reference.h), bit for bit on every target; and the rotation
// itself in double precision, within the rounding the graph's four
// quantizations allow. Both layouts, heads of 2 to 130 channels (more pairs
// than the kernel's block), positions anywhere in the table; refusals leave
// x untouched.
#include <gtest/gtest.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cmath>
#include <vector>

#include "edgeattn/edgeattn.h"
#include "reference/quant_rope_tables.h"
#include "reference/quant_test_values.h"
#include "reference/random_tensor.h"
#include "reference/tflite_rope_reference.h"
#include "simd_targets.h"

namespace edgeattn_test {
namespace {

class QuantRopePerTarget : public PerTargetTest {};

ea_status Apply(int8_t* x, int32_t n, int32_t heads, int32_t d_head, int64_t first, const int8_t* c,
                const int8_t* s, int32_t positions, ea_rope_layout layout,
                const ea_rope_quant_params* p) {
  return ea_rope_quant_apply_s8(x, n, heads, d_head, first, c, s, positions, layout, p);
}
ea_status Apply(int16_t* x, int32_t n, int32_t heads, int32_t d_head, int64_t first,
                const int16_t* c, const int16_t* s, int32_t positions, ea_rope_layout layout,
                const ea_rope_quant_params* p) {
  return ea_rope_quant_apply_s16(x, n, heads, d_head, first, c, s, positions, layout, p);
}

// One case: x's quantization at random; the tables, both products and the
// result each with a quantization of its own (int8: zero points too), so
// that a kernel mixing up cos and sin, or ADD's operands, gives other
// integers; the outputs wide enough (2, 1.5 and 3 times x's scale) that
// nothing saturates and the double-precision bound applies.
template <typename T>
struct RopeCase {
  static constexpr bool kInt8 = sizeof(T) == 1;
  int32_t n_tokens, heads, d_head, positions;
  int64_t first;
  bool interleaved;
  ea_rope_quant_scales scales;
  RopeTables exact;
  std::vector<T> cos, sin, x;

  RopeCase(int32_t n, int32_t h, int32_t d, int32_t table_positions, int64_t first_position,
           bool inter, RandomStream* random)
      : n_tokens(n),
        heads(h),
        d_head(d),
        positions(table_positions),
        first(first_position),
        interleaved(inter),
        scales{},
        exact(ExactRopeTables(table_positions, d, inter)) {
    const float x_scale = static_cast<float>(kInt8 ? 0.01 + 0.05 * random->Uniform()
                                                   : 1e-4 + 5e-4 * random->Uniform());
    const int32_t zp = kInt8 ? static_cast<int32_t>(-20 + 40 * random->Uniform()) : 0;
    scales.x = ea_quant{x_scale, zp};
    scales.cos_table = kInt8 ? ea_quant{1.0f / 120, 3} : ea_quant{1.0f / 32767, 0};
    scales.sin_table = kInt8 ? ea_quant{1.0f / 121, -4} : ea_quant{1.0f / 32000, 0};
    scales.cos_product = ea_quant{2 * x_scale, kInt8 ? 5 : 0};
    scales.sin_product = ea_quant{1.5f * x_scale, kInt8 ? -6 : 0};
    scales.rotated = ea_quant{3 * x_scale, kInt8 ? 2 : 0};
    cos = QuantizeTable<T>(exact.cos, scales.cos_table);
    sin = QuantizeTable<T>(exact.sin, scales.sin_table);
    const size_t count = static_cast<size_t>(n) * h * d;
    for (size_t i = 0; i < count; ++i) {
      const double code =
          kInt8 ? -128 + 256 * random->Uniform() : -32768 + 65536 * random->Uniform();
      x.push_back(static_cast<T>(std::floor(code)));
    }
  }
  ea_rope_layout Layout() const { return interleaved ? EA_ROPE_INTERLEAVED : EA_ROPE_HALF; }
  ea_dtype Dtype() const { return kInt8 ? EA_DTYPE_INT8 : EA_DTYPE_INT16; }
};

// The graph's integers, from the reference's Prepare and ops.
template <typename T>
std::vector<T> ReferenceRope(const RopeCase<T>& c) {
  const tflite_ref::RopeQuantization q{
      RefQuant(c.scales.x),           RefQuant(c.scales.cos_table),   RefQuant(c.scales.sin_table),
      RefQuant(c.scales.cos_product), RefQuant(c.scales.sin_product), RefQuant(c.scales.rotated)};
  const tflite_ref::RopeParams p = tflite_ref::PrepareRope(q, RopeCase<T>::kInt8 ? 20 : 15);
  return tflite_ref::Rope(p, c.x.data(), c.n_tokens, c.heads, c.d_head, static_cast<int>(c.first),
                          c.cos.data(), c.sin.data(), c.interleaved);
}

// x rotated by the library with derived integers; empty where a call
// refuses the (valid) case.
template <typename T>
std::vector<T> LibraryRope(const RopeCase<T>& c) {
  ea_rope_quant_params p{};
  std::vector<T> y = c.x;
  if (ea_rope_quant_derive(c.Dtype(), &c.scales, &p) != EA_OK ||
      Apply(y.data(), c.n_tokens, c.heads, c.d_head, c.first, c.cos.data(), c.sin.data(),
            c.positions, c.Layout(), &p) != EA_OK) {
    ADD_FAILURE() << "a valid case refused";
    return {};
  }
  return y;
}

template <typename T>
void ExpectGraphIntegers(uint64_t seed) {
  RandomStream random(seed);
  const int32_t shapes[][3] = {{1, 1, 2},  {3, 2, 6},   {5, 4, 64},
                               {2, 3, 66}, {4, 1, 130}, {7, 2, 16}};
  for (const auto& shape : shapes) {
    for (bool interleaved : {false, true}) {
      const int32_t positions = shape[0] + 3 + static_cast<int32_t>(40 * random.Uniform());
      const int64_t first = static_cast<int64_t>((positions - shape[0] + 1) * random.Uniform());
      RopeCase<T> c(shape[0], shape[1], shape[2], positions, first, interleaved, &random);
      SCOPED_TRACE(testing::Message()
                   << "tokens " << shape[0] << ", heads " << shape[1] << ", d_head " << shape[2]
                   << ", first " << first << (interleaved ? ", interleaved" : ", half"));
      EXPECT_EQ(LibraryRope(c), ReferenceRope(c));
    }
  }
}

TEST_P(QuantRopePerTarget, Int8IsTheGraphsMulMulAdd) { ExpectGraphIntegers<int8_t>(900); }
TEST_P(QuantRopePerTarget, Int16IsTheGraphsMulMulAdd) { ExpectGraphIntegers<int16_t>(901); }

INSTANTIATE_TEST_SUITE_P(Targets, QuantRopePerTarget, testing::ValuesIn(TargetsUnderTest()),
                         TargetParamName);

// Dequantized, y is the rotation of dequantized x by the exact angles, within
// half a step of each rounding the graph makes: the tables' (times the
// input it multiplies), both products', the result's, and a tenth of a step
// for ADD's internal rescaling.
template <typename T>
void ExpectTheRotation(uint64_t seed) {
  RandomStream random(seed);
  for (bool interleaved : {false, true}) {
    RopeCase<T> c(6, 2, 34, 50, 44, interleaved, &random);
    const std::vector<T> y = LibraryRope(c);
    ASSERT_EQ(y.size(), c.x.size());
    const ea_rope_quant_scales& s = c.scales;
    const auto real = [&](T code, ea_quant q) {
      return q.scale * (static_cast<double>(code) - q.zero_point);
    };
    for (int32_t t = 0; t < c.n_tokens; ++t) {
      const size_t table_row = static_cast<size_t>(c.first + t) * c.d_head;
      for (int32_t h = 0; h < c.heads; ++h) {
        const size_t base = (static_cast<size_t>(t) * c.heads + h) * c.d_head;
        for (int32_t i = 0; i < c.d_head; ++i) {
          const int32_t j = tflite_ref::RopePartner(i, c.d_head, interleaved);
          const double xi = real(c.x[base + i], s.x), xj = real(c.x[base + j], s.x);
          const double want = xi * c.exact.cos[table_row + i] + xj * c.exact.sin[table_row + i];
          const double bound = 0.5 * s.cos_table.scale * std::fabs(xi) +
                               0.5 * s.sin_table.scale * std::fabs(xj) + 0.5 * s.cos_product.scale +
                               0.5 * s.sin_product.scale + 0.6 * s.rotated.scale;
          EXPECT_NEAR(real(y[base + i], s.rotated), want, bound)
              << "token " << t << " head " << h << " channel " << i;
        }
      }
    }
  }
}

TEST(QuantRope, Int8RotatesWithinTheGraphsRounding) { ExpectTheRotation<int8_t>(910); }
TEST(QuantRope, Int16RotatesWithinTheGraphsRounding) { ExpectTheRotation<int16_t>(911); }

// Every rule of the header, one at a time, x untouched after each.
TEST(QuantRope, RefusalsLeaveXUntouched) {
  RandomStream random(920);
  RopeCase<int8_t> c(2, 2, 8, 6, 1, false, &random);
  c.scales.x.zero_point = 7;  // an offset the int16 run refuses
  ea_rope_quant_params p{};
  ASSERT_EQ(ea_rope_quant_derive(EA_DTYPE_INT8, &c.scales, &p), EA_OK);
  std::vector<int8_t> x = c.x;
  const int8_t* cs = c.cos.data();
  const int8_t* sn = c.sin.data();
  const auto apply = [&](int8_t* at, int32_t n, int32_t heads, int32_t d_head, int64_t first,
                         const int8_t* cos_table, const int8_t* sin_table, int32_t positions,
                         ea_rope_layout layout, const ea_rope_quant_params* params) {
    return ea_rope_quant_apply_s8(at, n, heads, d_head, first, cos_table, sin_table, positions,
                                  layout, params);
  };
  EXPECT_EQ(apply(nullptr, 2, 2, 8, 1, cs, sn, 6, EA_ROPE_HALF, &p), EA_ERR_NULL_POINTER);
  EXPECT_EQ(apply(x.data(), 2, 2, 8, 1, nullptr, sn, 6, EA_ROPE_HALF, &p), EA_ERR_NULL_POINTER);
  EXPECT_EQ(apply(x.data(), 2, 2, 8, 1, cs, nullptr, 6, EA_ROPE_HALF, &p), EA_ERR_NULL_POINTER);
  EXPECT_EQ(apply(x.data(), 2, 2, 8, 1, cs, sn, 6, EA_ROPE_HALF, nullptr), EA_ERR_NULL_POINTER);
  EXPECT_EQ(apply(x.data(), 0, 2, 8, 1, cs, sn, 6, EA_ROPE_HALF, &p), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(apply(x.data(), 2, 0, 8, 1, cs, sn, 6, EA_ROPE_HALF, &p), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(apply(x.data(), 2, 2, 7, 1, cs, sn, 6, EA_ROPE_HALF, &p), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(apply(x.data(), 2, 2, 8, -1, cs, sn, 6, EA_ROPE_HALF, &p), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(apply(x.data(), 2, 2, 8, 5, cs, sn, 6, EA_ROPE_HALF, &p), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(apply(x.data(), 2, 2, 8, 1, cs, sn, 0, EA_ROPE_HALF, &p), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(apply(x.data(), 2, 2, 8, 1, cs, sn, 6, static_cast<ea_rope_layout>(2), &p),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(apply(x.data(), 2, 1 << 28, 8, 1, cs, sn, 6, EA_ROPE_HALF, &p),
            EA_ERR_DIMENSION_OVERFLOW);
  ea_rope_quant_params bad = p;
  bad.sin.output_shift = 31;
  EXPECT_EQ(apply(x.data(), 2, 2, 8, 1, cs, sn, 6, EA_ROPE_HALF, &bad), EA_ERR_BAD_ARGUMENT);
  bad = p;
  bad.add.left_shift = 21;
  EXPECT_EQ(apply(x.data(), 2, 2, 8, 1, cs, sn, 6, EA_ROPE_HALF, &bad), EA_ERR_BAD_ARGUMENT);
  bad = p;
  bad.cos.output_multiplier = -1;
  EXPECT_EQ(apply(x.data(), 2, 2, 8, 1, cs, sn, 6, EA_ROPE_HALF, &bad), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(apply(x.data(), 2, 2, 8, 1, cs, sn, 1 << 26, EA_ROPE_HALF, &p),
            EA_ERR_DIMENSION_OVERFLOW);  // a table of 2^29 elements
  // x over either table (the table's last rows).
  std::vector<int8_t> both = c.cos;
  EXPECT_EQ(apply(both.data() + 16, 2, 2, 8, 1, both.data(), sn, 6, EA_ROPE_HALF, &p),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(apply(both.data() + 16, 2, 2, 8, 1, cs, both.data(), 6, EA_ROPE_HALF, &p),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(both, c.cos);
  EXPECT_EQ(x, c.x);
  // int8's integers (a zero point's offset) on the int16 run.
  std::vector<int16_t> x16(32, 5), table16(48, 3);
  const std::vector<int16_t> x16_before = x16;
  EXPECT_EQ(ea_rope_quant_apply_s16(x16.data(), 2, 2, 8, 1, table16.data(), table16.data(), 6,
                                    EA_ROPE_HALF, &p),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(x16, x16_before);
}

TEST(QuantRope, DeriveRefusesWhatTheOpsRefuse) {
  RandomStream random(921);
  RopeCase<int16_t> c(1, 1, 4, 2, 0, false, &random);
  ea_rope_quant_params p{};
  ASSERT_EQ(ea_rope_quant_derive(EA_DTYPE_INT16, &c.scales, &p), EA_OK);
  const ea_rope_quant_params before = p;
  EXPECT_EQ(ea_rope_quant_derive(EA_DTYPE_INT16, nullptr, &p), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_rope_quant_derive(EA_DTYPE_INT16, &c.scales, nullptr), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_rope_quant_derive(EA_DTYPE_F32, &c.scales, &p), EA_ERR_BAD_ARGUMENT);
  ea_rope_quant_scales bad = c.scales;
  bad.sin_table.zero_point = 1;  // int16: zero point 0
  EXPECT_EQ(ea_rope_quant_derive(EA_DTYPE_INT16, &bad, &p), EA_ERR_BAD_ARGUMENT);
  bad = c.scales;
  bad.rotated.scale = NAN;  // only ADD reads it
  EXPECT_EQ(ea_rope_quant_derive(EA_DTYPE_INT16, &bad, &p), EA_ERR_BAD_ARGUMENT);
  bad = c.scales;
  bad.cos_product.scale = 1e-30f;  // MUL's multiplier past 2^30
  EXPECT_EQ(ea_rope_quant_derive(EA_DTYPE_INT16, &bad, &p), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(memcmp(&before, &p, sizeof p), 0);
}

}  // namespace
}  // namespace edgeattn_test
