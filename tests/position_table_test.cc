// Position tables: the run-time sinusoidal fill and the compile-time constant
// table against double sin/cos, and a learned table added exactly (running
// with the table equals running without it on X + P computed here).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "edgeattn/edgeattn.hpp"
#include "model_fixture.h"
#include "reference/random_tensor.h"
#include "reference/reference_attention.h"
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
