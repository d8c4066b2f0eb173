// Position tables: the run-time sinusoidal fill and the compile-time constant
// table against double sin/cos and against each other (bit for bit), the
// quantized tables against TFLite's QUANTIZE of the float table, and a learned
// table added exactly (running with the table equals running without it on
// X + P computed here).
#include <gtest/gtest.h>

#include <string.h>

#include <cmath>
#include <vector>

#include "edgeattn/edgeattn.hpp"
#include "model_fixture.h"
#include "reference/quant_mha_fixture.h"
#include "reference/random_tensor.h"
#include "reference/reference_attention.h"
#include "reference/tflite_chain_reference.h"
#include "simd_targets.h"

namespace edgeattn_test {
namespace {

// A float rounding of the double value is within half an ulp of 1.0
// (2^-24); the constexpr sin/cos add ~1e-12 on top.
constexpr double kTableBound = 6.0e-8;

template <typename Table>
double MaxTableError(const Table& table, int n, int d) {
  const std::vector<double> want = ReferenceSinusoidal(n, d);
  double worst = 0.0;
  for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(table[i] - want[i]));
  return worst;
}

TEST(PositionTable, FilledTableMatchesDoubleSinCos) {
  for (const auto& dims : {std::pair<int, int>{1, 1}, {7, 3}, {512, 64}, {2048, 96}}) {
    std::vector<float> table(static_cast<size_t>(dims.first) * dims.second);
    ASSERT_EQ(ea_sinusoidal_table_fill(table.data(), dims.first, dims.second), EA_OK);
    EXPECT_LE(MaxTableError(table.data(), dims.first, dims.second), kTableBound)
        << dims.first << "x" << dims.second;
  }
}

TEST(PositionTable, CompileTimeTableMatchesDoubleSinCos) {
  static constexpr auto kSmall = edgeattn::MakeSinusoidalTable<9, 5>();
  static constexpr auto kLarge = edgeattn::MakeSinusoidalTable<256, 96>();
  // Entries that are exact in any correct implementation, checked at compile time.
  static_assert(kLarge.values[0] == 0.0f && kLarge.values[1] == 1.0f, "PE(0) = (sin 0, cos 0)");
  EXPECT_LE(MaxTableError(kSmall.values, 9, 5), kTableBound);
  EXPECT_LE(MaxTableError(kLarge.values, 256, 96), kTableBound);
}

// One definition of the values (ForEachSinusoid): precomputing the table at
// compile time or filling it at plan time gives the same floats.
TEST(PositionTable, FilledTableEqualsTheCompileTimeTable) {
  static constexpr auto kTable = edgeattn::MakeSinusoidalTable<256, 96>();
  std::vector<float> filled(256 * 96);
  ASSERT_EQ(ea_sinusoidal_table_fill(filled.data(), 256, 96), EA_OK);
  EXPECT_EQ(memcmp(filled.data(), kTable.values, sizeof kTable.values), 0);
}

// TFLite's QUANTIZE (tests/reference, std::round) of every float entry, at
// zero points and scales that clamp some entries.
template <typename T, int32_t kN, int32_t kD>
void ExpectQuantizeOfTheTable(float scale, int32_t zero_point) {
  static constexpr auto kTable = edgeattn::MakeSinusoidalTable<kN, kD>();
  const auto quantized = edgeattn::MakeQuantizedSinusoidalTable<T, kN, kD>(scale, zero_point);
  const int32_t low = sizeof(T) == 1 ? -128 : -32768, high = sizeof(T) == 1 ? 127 : 32767;
  for (int i = 0; i < kN * kD; ++i) {
    ASSERT_EQ(quantized.values[i],
              tflite_ref::AffineQuantize(kTable.values[i], scale, zero_point, low, high))
        << "entry " << i << " scale " << scale << " zero point " << zero_point;
  }
}

TEST(PositionTable, QuantizedTableIsTflitesQuantizeOfTheFloatTable) {
  ExpectQuantizeOfTheTable<int8_t, 130, 33>(1.0f / 128.0f, 0);
  ExpectQuantizeOfTheTable<int8_t, 130, 33>(1.0f / 100.0f, -30);  // clamps at -128
  ExpectQuantizeOfTheTable<int8_t, 64, 16>(0.0123f, 127);
  ExpectQuantizeOfTheTable<int16_t, 130, 33>(1.0f / 32768.0f, 0);  // clamps 1.0 at 32767
  ExpectQuantizeOfTheTable<int16_t, 64, 16>(3.0e-4f, 0);
  // constexpr: the table can be flash data.
  static constexpr auto kFlash =
      edgeattn::MakeQuantizedSinusoidalTable<int8_t, 4, 4>(1.0f / 128, 0);
  static_assert(kFlash.values[0] == 0 && kFlash.values[1] == 127, "PE(0) = (0, 1) -> (0, 127)");
}

// What a fixed-point plan fills at plan time equals the compile-time table, so
// firmware can precompute it and pass it as quant_position_table.
TEST(PositionTable, PlanFilledQuantizedTableEqualsTheCompileTimeOne) {
  for (ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    const QuantMhaCase c = RandomQuantMha(dtype, {40, 24, 2, false, true}, 31);
    const QuantMhaCase::Result r = c.Run();
    ASSERT_EQ(r.status, EA_OK);
    const float scale = c.scales.position.scale;
    const int32_t zero_point = c.scales.position.zero_point;
    std::vector<int32_t> want(40 * 24);
    if (dtype == EA_DTYPE_INT8) {
      const auto table = edgeattn::MakeQuantizedSinusoidalTable<int8_t, 40, 24>(scale, zero_point);
      want.assign(table.values, table.values + 40 * 24);
    } else {
      const auto table = edgeattn::MakeQuantizedSinusoidalTable<int16_t, 40, 24>(scale, zero_point);
      want.assign(table.values, table.values + 40 * 24);
    }
    EXPECT_EQ(r.pe, want) << (dtype == EA_DTYPE_INT8 ? "int8" : "int16");
  }
}

class LearnedTablePerTarget : public PerTargetTest {};

TEST_P(LearnedTablePerTarget, LearnedTableIsAddedExactly) {
  const int n = 29, e = 24;
  const MhaModel model(e, 3, true, 1000);
  const std::vector<float> x = RandomTensor(n * e, 1001);
  const std::vector<float> table = RandomTensor(n * e, 1002);
  std::vector<float> x_plus_table(n * e);
  for (int i = 0; i < n * e; ++i) x_plus_table[i] = x[i] + table[i];

  const ea_mha_config learned{EA_DTYPE_F32,
                              n,
                              e,
                              3,
                              EA_MASK_CAUSAL,
                              EA_POSITION_LEARNED,
                              table.data(),
                              EA_WEIGHTS_ROW_MAJOR,
                              ea_parallel_for{},
                              nullptr,
                              nullptr,
                              nullptr};
  const ea_mha_config none{EA_DTYPE_F32,
                           n,
                           e,
                           3,
                           EA_MASK_CAUSAL,
                           EA_POSITION_NONE,
                           nullptr,
                           EA_WEIGHTS_ROW_MAJOR,
                           ea_parallel_for{},
                           nullptr,
                           nullptr,
                           nullptr};
  const RunResult with_table = RunMha(model, learned, x, n, n, false);
  const RunResult pre_added = RunMha(model, none, x_plus_table, n, n, false);
  ASSERT_EQ(with_table.status, EA_OK);
  ASSERT_EQ(pre_added.status, EA_OK);
  EXPECT_EQ(with_table.y, pre_added.y);
}

EA_INSTANTIATE_PER_TARGET(LearnedTablePerTarget);

}  // namespace
}  // namespace edgeattn_test
