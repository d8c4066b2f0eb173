// Facts of the mathematics, checked on the library's own outputs on every
// SIMD target (DESIGN section 1):
//  - without positions, self-attention is permutation equivariant; with
//    sinusoidal positions added it is not;
//  - every softmax row sums to 1, and each output row is a convex combination
//    of the value rows;
//  - with a causal mask, output row i depends only on rows 0..i of X.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "model_fixture.h"
#include "reference/random_tensor.h"
#include "simd_targets.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

constexpr int kTokens = 37, kDModel = 32, kHeads = 4;

ea_mha_config Config(ea_mask mask, ea_position position) {
  return ea_mha_config{
      EA_DTYPE_F32,         kTokens,           kDModel, kHeads,  mask,   position, nullptr,
      EA_WEIGHTS_ROW_MAJOR, ea_parallel_for{}, nullptr, nullptr, nullptr};
}

// Rows of x reordered: result row i = x row perm[i].
std::vector<float> PermuteRows(const std::vector<float>& x, const std::vector<int>& perm,
                               int cols) {
  std::vector<float> out(x.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    std::copy_n(x.begin() + static_cast<size_t>(perm[i]) * cols, cols, out.begin() + i * cols);
  }
  return out;
}

std::vector<int> ReversedOrder(int n) {
  std::vector<int> perm(n);
  std::iota(perm.rbegin(), perm.rend(), 0);
  return perm;
}

double MaxAbsDifference(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0.0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(double(a[i]) - b[i]));
  return worst;
}

double MaxAbs(const std::vector<float>& a) {
  double worst = 0.0;
  for (float v : a) worst = std::max(worst, std::fabs(double(v)));
  return worst;
}

class PropertiesPerTarget : public PerTargetTest {};

TEST_P(PropertiesPerTarget, PermutingTokensPermutesOutputsWithoutPositions) {
  const MhaModel model(kDModel, kHeads, true, 900);
  const std::vector<float> x = RandomTensor(kTokens * kDModel, 901);
  const std::vector<int> perm = ReversedOrder(kTokens);
  const RunResult y =
      RunMha(model, Config(EA_MASK_NONE, EA_POSITION_NONE), x, kTokens, kTokens, false);
  const RunResult y_perm = RunMha(model, Config(EA_MASK_NONE, EA_POSITION_NONE),
                                  PermuteRows(x, perm, kDModel), kTokens, kTokens, false);
  ASSERT_EQ(y.status, EA_OK);
  ASSERT_EQ(y_perm.status, EA_OK);
  // Same sums in another order: equal up to float rounding.
  EXPECT_LE(MaxAbsDifference(PermuteRows(y.y, perm, kDModel), y_perm.y),
            kFloatErrorBound * MaxAbs(y.y));
}

TEST_P(PropertiesPerTarget, PositionsBreakPermutationEquivariance) {
  const MhaModel model(kDModel, kHeads, true, 910);
  const std::vector<float> x = RandomTensor(kTokens * kDModel, 911);
  const std::vector<int> perm = ReversedOrder(kTokens);
  const ea_mha_config config = Config(EA_MASK_NONE, EA_POSITION_SINUSOIDAL);
  const RunResult y = RunMha(model, config, x, kTokens, kTokens, false);
  const RunResult y_perm =
      RunMha(model, config, PermuteRows(x, perm, kDModel), kTokens, kTokens, false);
  ASSERT_EQ(y.status, EA_OK);
  ASSERT_EQ(y_perm.status, EA_OK);
  // Far above rounding: position now changes what each token attends to.
  EXPECT_GT(MaxAbsDifference(PermuteRows(y.y, perm, kDModel), y_perm.y), 0.01 * MaxAbs(y.y));
}

TEST_P(PropertiesPerTarget, SoftmaxRowsSumToOneAndOutputsAreConvexCombinations) {
  const int n_q = 45, n_kv = 70, d = 16;
  for (ea_mask mask : {EA_MASK_NONE, EA_MASK_CAUSAL}) {
    const std::vector<float> q = RandomTensor(n_q * d, 920), k = RandomTensor(n_kv * d, 921),
                             v = RandomTensor(n_kv * d, 922);
    const ea_attention_config config{EA_DTYPE_F32,      n_q,     n_kv,   d, d, mask, 0.0f,
                                     ea_parallel_for{}, nullptr, nullptr};
    size_t bytes = 0;
    ASSERT_EQ(ea_attention_arena_size(&config, &bytes), EA_OK);
    AlignedBytes storage(bytes);
    ea_arena arena;
    ea_attention_plan plan;
    ASSERT_EQ(ea_arena_init(&arena, storage.data(), bytes), EA_OK);
    ASSERT_EQ(ea_attention_init(&plan, &config, &arena), EA_OK);
    std::vector<float> out(n_q * d), weights(n_q * n_kv);
    ASSERT_EQ(
        ea_attention_run(&plan, q.data(), k.data(), v.data(), n_kv, out.data(), weights.data()),
        EA_OK);
    for (int i = 0; i < n_q; ++i) {
      double sum = 0.0;
      for (int j = 0; j < n_kv; ++j) {
        ASSERT_GE(weights[i * n_kv + j], 0.0f);
        sum += weights[i * n_kv + j];
      }
      EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << i;
      // Each output column lies within the range of the value column.
      for (int c = 0; c < d; ++c) {
        float low = INFINITY, high = -INFINITY;
        for (int j = 0; j < n_kv; ++j) {
          if (weights[i * n_kv + j] == 0.0f) continue;
          low = std::min(low, v[j * d + c]);
          high = std::max(high, v[j * d + c]);
        }
        EXPECT_GE(out[i * d + c], low - 1e-5f);
        EXPECT_LE(out[i * d + c], high + 1e-5f);
      }
    }
  }
}

TEST_P(PropertiesPerTarget, CausalRowDependsOnlyOnEarlierTokens) {
  const MhaModel model(kDModel, kHeads, true, 930);
  const ea_mha_config config = Config(EA_MASK_CAUSAL, EA_POSITION_SINUSOIDAL);
  const std::vector<float> x = RandomTensor(kTokens * kDModel, 931);
  const RunResult base = RunMha(model, config, x, kTokens, kTokens, false);
  ASSERT_EQ(base.status, EA_OK);
  for (int changed_from : {1, 16, 36}) {
    std::vector<float> x_changed = x;
    const std::vector<float> noise = RandomTensor((kTokens - changed_from) * kDModel, 932);
    for (size_t i = 0; i < noise.size(); ++i) x_changed[changed_from * kDModel + i] += noise[i];
    const RunResult changed = RunMha(model, config, x_changed, kTokens, kTokens, false);
    ASSERT_EQ(changed.status, EA_OK);
    // Rows before the change are bit-identical; the changed row itself differs.
    for (int i = 0; i < changed_from * kDModel; ++i) {
      ASSERT_EQ(base.y[i], changed.y[i])
          << "row " << i / kDModel << " changed_from " << changed_from;
    }
    double row_difference = 0.0;
    for (int c = 0; c < kDModel; ++c) {
      row_difference =
          std::max(row_difference, std::fabs(double(base.y[changed_from * kDModel + c]) -
                                             changed.y[changed_from * kDModel + c]));
    }
    EXPECT_GT(row_difference, 1e-3);
  }
}

EA_INSTANTIATE_PER_TARGET(PropertiesPerTarget);

}  // namespace
}  // namespace edgeattn_test
