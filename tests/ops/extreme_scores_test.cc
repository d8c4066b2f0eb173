// Scores at the edges of float32, on every SIMD target: huge finite scores
// (the FMA targets once took the row maximum and the exponents from
// differently rounded values and gave inf or 0), and non-finite ones (NaN
// or +-inf scores once looked like masked keys, and reached Highway's Exp,
// whose float-to-int conversion is undefined for NaN on SCALAR).
//
// The contract (README, "Numerics contract"): a query row whose visible
// scaled scores are all finite gets a proper softmax at any magnitude; a row
// with a NaN or +-inf visible score gets NaN across its output row and its
// weights row; masked keys never matter; other rows are unaffected.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "edgeattn/edgeattn.h"
#include "planned_operation.h"
#include "reference/random_tensor.h"
#include "reference/reference_attention.h"
#include "simd_targets.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

struct Result {
  ea_status status;
  std::vector<float> out;
  std::vector<float> weights;
};

// One general attention with the default scale (1/sqrt(d_k)) unless given.
Result Attend(int n_q, int n_kv, int d_k, int d_v, const std::vector<float>& q,
              const std::vector<float>& k, const std::vector<float>& v, int n_valid_keys,
              bool causal = false, float scale = 0.0f) {
  ea_attention_config config{};
  config.dtype = EA_DTYPE_F32;
  config.n_q = n_q;
  config.n_kv = n_kv;
  config.d_k = d_k;
  config.d_v = d_v;
  config.mask = causal ? EA_MASK_CAUSAL : EA_MASK_NONE;
  config.scale = scale;
  Result result{EA_OK, std::vector<float>(static_cast<size_t>(n_q) * d_v, -1.0f),
                std::vector<float>(static_cast<size_t>(n_q) * n_kv, -1.0f)};
  const PlannedAttention planned = PlanAttention(config);
  result.status = planned.status;
  if (result.status == EA_OK) {
    result.status = ea_attention_run(&planned.plan, q.data(), k.data(), v.data(), n_valid_keys,
                                     result.out.data(), result.weights.data());
  }
  return result;
}

class ExtremeScores : public PerTargetTest {};

// The outside reproducer: one key, q = k = {x, .., x}, v = {3}. The only key
// must get weight 1 and the output must be 3, whatever x is.
TEST_P(ExtremeScores, HugeFiniteScoresGiveAProperSoftmax) {
  for (int d_k : {2, 8, 32, 128}) {
    for (float x : {2e4f, 4e4f, 1e6f, 1e12f, 1e15f, -1e15f}) {
      SCOPED_TRACE(testing::Message() << "d_k=" << d_k << " x=" << x);
      const std::vector<float> q(static_cast<size_t>(d_k), x);
      const Result r = Attend(1, 1, d_k, 1, q, q, {3.0f}, 1);
      ASSERT_EQ(r.status, EA_OK);
      EXPECT_EQ(r.out[0], 3.0f);
      EXPECT_EQ(r.weights[0], 1.0f);
    }
  }
}

// Two keys with huge scaled scores far apart: the larger one's exponent is
// exactly 0, so it takes all the weight (exp of the gap underflows to 0).
TEST_P(ExtremeScores, HugeScoresPickTheLargerKey) {
  const int d_k = 4;
  const float x = 1e6f;  // scaled scores 4e12 * 0.5 = 2e12 and 1e12
  const std::vector<float> q(d_k, x);
  std::vector<float> k(2 * d_k, x);
  k[d_k] = x * 0.5f;  // second key: a score 2.5e11 lower
  const Result r = Attend(1, 2, d_k, 1, q, k, {3.0f, 5.0f}, 2);
  ASSERT_EQ(r.status, EA_OK);
  EXPECT_EQ(r.weights[0], 1.0f);
  EXPECT_EQ(r.weights[1], 0.0f);
  EXPECT_EQ(r.out[0], 3.0f);
}

// Every score hugely negative (q = -k): still a proper distribution, the
// least negative key winning.
TEST_P(ExtremeScores, HugeNegativeScoresGiveAProperSoftmax) {
  for (float x : {1e6f, 1e15f}) {
    SCOPED_TRACE(testing::Message() << "x=" << x);
    const std::vector<float> q = {x, x};
    const std::vector<float> k = {-x, -x, -x, -2 * x};  // scores -x^2 and -1.5 x^2
    const Result r = Attend(1, 2, 2, 1, q, k, {3.0f, 5.0f}, 2);
    ASSERT_EQ(r.status, EA_OK);
    EXPECT_EQ(r.out[0], 3.0f);
    EXPECT_EQ(r.weights[0], 1.0f);
    EXPECT_EQ(r.weights[1], 0.0f);
  }
}

// Random inputs whose scaled scores reach the thousands, against the double
// reference with the bound the README gives for large scores.
TEST_P(ExtremeScores, LargeRandomScoresMatchTheReference) {
  const AttentionProblem p{33, 150, 16, 8, true, 150, 0.0};
  const std::vector<float> q = RandomTensor(33 * 16, 7, 30.0);
  const std::vector<float> k = RandomTensor(150 * 16, 8, 30.0);
  const std::vector<float> v = RandomTensor(150 * 8, 9);
  const Result r = Attend(p.n_q, p.n_kv, p.d_k, p.d_v, q, k, v, p.n_valid_keys, true);
  ASSERT_EQ(r.status, EA_OK);
  const ReferenceResult want = ReferenceAttention(p, q.data(), 16, k.data(), 16, v.data(), 8);
  const double bound = FloatErrorBound(MaxAbsScaledScore(p, q.data(), k.data()), p.d_k);
  EXPECT_GT(MaxAbsScaledScore(p, q.data(), k.data()), 1000.0);
  EXPECT_LE(NormScaledError(r.out.data(), want.out), bound);
  EXPECT_LE(NormScaledError(r.weights.data(), want.weights), bound);
}

bool AllNaN(const float* values, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (!std::isnan(values[i])) return false;
  }
  return true;
}

bool AllFinite(const float* values, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (!std::isfinite(values[i])) return false;
  }
  return true;
}

// Two query rows against three keys (d_k = 1), keys {0, bad_key, 0}: row 0
// has q = q0, row 1 has q = 1, so row 1 scores bad_key itself in key 1.
struct RowPair {
  Result result;
  bool row0_nan, row1_nan, row0_finite, row1_finite;
};
RowPair TwoRows(float q0, float bad_key, int n_valid_keys = 3) {
  const std::vector<float> q = {q0, 1.0f};
  const std::vector<float> k = {0.0f, bad_key, 0.0f};
  const std::vector<float> v = {1.0f, 100.0f, 3.0f};
  RowPair pair{Attend(2, 3, 1, 1, q, k, v, n_valid_keys), false, false, false, false};
  const Result& r = pair.result;
  pair.row0_nan = AllNaN(&r.out[0], 1) && AllNaN(&r.weights[0], 3);
  pair.row1_nan = AllNaN(&r.out[1], 1) && AllNaN(&r.weights[3], 3);
  pair.row0_finite = AllFinite(&r.out[0], 1) && AllFinite(&r.weights[0], 3);
  pair.row1_finite = AllFinite(&r.out[1], 1) && AllFinite(&r.weights[3], 3);
  return pair;
}

TEST_P(ExtremeScores, NaNKeyMakesEveryRowThatSeesItNaN) {
  const RowPair pair = TwoRows(1.0f, kNaN);
  ASSERT_EQ(pair.result.status, EA_OK);
  EXPECT_TRUE(pair.row0_nan);
  EXPECT_TRUE(pair.row1_nan);
}

TEST_P(ExtremeScores, InfiniteScoresOfEitherSignGiveNaN) {
  for (float key : {kInf, -kInf}) {
    SCOPED_TRACE(testing::Message() << "key=" << key);
    const RowPair pair = TwoRows(1.0f, key);
    ASSERT_EQ(pair.result.status, EA_OK);
    EXPECT_TRUE(pair.row0_nan);
    EXPECT_TRUE(pair.row1_nan);  // 1 * inf is still infinite
  }
}

TEST_P(ExtremeScores, OverflowingDotProductGivesNaN) {
  // q = 1e19, k = 1e20, d_k = 1: the score 1e39 is past FLT_MAX.
  const RowPair pair = TwoRows(1e19f, 1e20f);
  ASSERT_EQ(pair.result.status, EA_OK);
  EXPECT_TRUE(pair.row0_nan);
  EXPECT_TRUE(pair.row1_finite);  // 1 * 1e20 is finite: row 1 is a normal row
  EXPECT_NEAR(pair.result.weights[3 + 1], 1.0f, 1e-6f);
}

TEST_P(ExtremeScores, MaskedNonFiniteKeysDoNotMatter) {
  // Key 1 is NaN but padding for both rows (n_valid_keys = 1).
  const RowPair pair = TwoRows(1.0f, kNaN, 1);
  ASSERT_EQ(pair.result.status, EA_OK);
  EXPECT_EQ(pair.result.out[0], 1.0f);
  EXPECT_EQ(pair.result.out[1], 1.0f);
  EXPECT_EQ(pair.result.weights[0], 1.0f);
  EXPECT_EQ(pair.result.weights[1], 0.0f);

  // Causal: a NaN in the last key poisons only the last row, in a shape that
  // spans several query blocks and key panels.
  const int n = 70, d = 4;
  std::vector<float> q = RandomTensor(n * d, 11), k = RandomTensor(n * d, 12),
                     v = RandomTensor(n * d, 13);
  k[(n - 1) * d + 2] = kNaN;
  const Result causal = Attend(n, n, d, d, q, k, v, n, true);
  ASSERT_EQ(causal.status, EA_OK);
  EXPECT_TRUE(AllFinite(causal.out.data(), static_cast<size_t>(n - 1) * d));
  EXPECT_TRUE(AllFinite(causal.weights.data(), static_cast<size_t>(n - 1) * n));
  EXPECT_TRUE(AllNaN(&causal.out[(n - 1) * d], d));
  EXPECT_TRUE(AllNaN(&causal.weights[(n - 1) * n], n));
}

TEST_P(ExtremeScores, NaNInAnEarlierPanelPoisonsTheWholeRow) {
  // The NaN key sits in the first 64-key panel; the row's maximum grows in a
  // later one (which would rescale a plausible partial result).
  const int n_kv = 200, d = 2;
  std::vector<float> q = {1.0f, 1.0f};
  std::vector<float> k(static_cast<size_t>(n_kv) * d, 0.0f), v(static_cast<size_t>(n_kv), 1.0f);
  k[5 * d] = kNaN;
  k[150 * d] = 10.0f;
  const Result r = Attend(1, n_kv, d, 1, q, k, v, n_kv);
  ASSERT_EQ(r.status, EA_OK);
  EXPECT_TRUE(AllNaN(r.out.data(), 1));
  EXPECT_TRUE(AllNaN(r.weights.data(), n_kv));
}

TEST_P(ExtremeScores, HugeScaleOverflowsToNaNNotToAFiniteGuess) {
  // Finite q.k = 1e30, scale 1e10: the scaled score is infinite.
  const Result r = Attend(1, 2, 1, 1, {1e15f}, {1e15f, 0.0f}, {2.0f, 4.0f}, 2, false, 1e10f);
  ASSERT_EQ(r.status, EA_OK);
  EXPECT_TRUE(AllNaN(r.out.data(), 1));
  EXPECT_TRUE(AllNaN(r.weights.data(), 2));
}

EA_INSTANTIATE_PER_TARGET(ExtremeScores);

}  // namespace
}  // namespace edgeattn_test
