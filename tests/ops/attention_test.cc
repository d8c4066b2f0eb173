// Attention(Q, K, V) against the double-precision reference on every SIMD
// target: shapes that are not multiples of any vector or block size, causal
// and padding masks, n_q != n_kv, fully masked rows, large scores, and the
// optional attention-weights output.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "reference/random_tensor.h"
#include "reference/reference_attention.h"
#include "simd_targets.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

struct AttentionRun {
  ea_status status;
  std::vector<float> out;
  std::vector<float> weights;
};

// Plans and runs one attention with the given inputs; weights are requested
// when want_weights.
AttentionRun RunAttention(const AttentionProblem& p, const std::vector<float>& q,
                          const std::vector<float>& k, const std::vector<float>& v,
                          bool want_weights) {
  const ea_attention_config config{EA_DTYPE_F32,
                                   p.n_q,
                                   p.n_kv,
                                   p.d_k,
                                   p.d_v,
                                   p.causal ? EA_MASK_CAUSAL : EA_MASK_NONE,
                                   static_cast<float>(p.scale),
                                   ea_parallel_for{},
                                   nullptr,
                                   nullptr};
  AttentionRun run{EA_OK, std::vector<float>(static_cast<size_t>(p.n_q) * p.d_v, NAN),
                   std::vector<float>(want_weights ? static_cast<size_t>(p.n_q) * p.n_kv : 0, NAN)};
  size_t bytes = 0;
  run.status = ea_attention_arena_size(&config, &bytes);
  if (run.status != EA_OK) return run;
  AlignedBytes storage(bytes);
  ea_arena arena;
  ea_attention_plan plan;
  run.status = ea_arena_init(&arena, storage.data(), storage.size());
  if (run.status == EA_OK) run.status = ea_attention_init(&plan, &config, &arena);
  if (run.status == EA_OK) {
    run.status = ea_attention_run(&plan, q.data(), k.data(), v.data(), p.n_valid_keys,
                                  run.out.data(), want_weights ? run.weights.data() : nullptr);
  }
  return run;
}

// Random inputs for a problem, scaled by `magnitude`.
struct Inputs {
  std::vector<float> q, k, v;
};
Inputs MakeInputs(const AttentionProblem& p, uint64_t seed, double magnitude = 1.0) {
  return Inputs{RandomTensor(static_cast<size_t>(p.n_q) * p.d_k, seed, magnitude),
                RandomTensor(static_cast<size_t>(p.n_kv) * p.d_k, seed + 1, magnitude),
                RandomTensor(static_cast<size_t>(p.n_kv) * p.d_v, seed + 2)};
}

// Runs p on the library and the reference and checks output and weights.
void ExpectMatchesReference(const AttentionProblem& p, uint64_t seed, double magnitude = 1.0) {
  SCOPED_TRACE(testing::Message() << "n_q=" << p.n_q << " n_kv=" << p.n_kv << " d_k=" << p.d_k
                                  << " d_v=" << p.d_v << " causal=" << p.causal
                                  << " valid=" << p.n_valid_keys << " scale=" << p.scale);
  const Inputs in = MakeInputs(p, seed, magnitude);
  const AttentionRun run = RunAttention(p, in.q, in.k, in.v, /*want_weights=*/true);
  ASSERT_EQ(run.status, EA_OK);
  const ReferenceResult want =
      ReferenceAttention(p, in.q.data(), p.d_k, in.k.data(), p.d_k, in.v.data(), p.d_v);
  const double bound = FloatErrorBound(MaxAbsScaledScore(p, in.q.data(), in.k.data()), p.d_k);
  EXPECT_LE(NormScaledError(run.out.data(), want.out), bound);
  EXPECT_LE(NormScaledError(run.weights.data(), want.weights), bound);
}

class AttentionPerTarget : public PerTargetTest {};

TEST_P(AttentionPerTarget, MatchesReferenceOnOddShapes) {
  // 520 = 2 x 256 + 8: rows over three score tiles (kScoreTileKeys), the last
  // partial, at a quarter of the cost of 1000 under emulation (CI's qemu);
  // 264, two tiles, where doubles are software (kSoftwareDouble).
  const int longest = kSoftwareDouble ? 264 : 520;
  const int lengths[] = {1, 3, 17, 63, 64, 65, 255, longest};
  const int feature_pairs[][2] = {{64, 64}, {3, 5}, {17, 33}};
  uint64_t seed = 100;
  for (int n : lengths) {
    for (const auto& dims : feature_pairs) {
      // The longest rows only with the widest features: they are the costly ones.
      if (n == longest && dims[0] != 64) continue;
      for (bool causal : {false, true}) {
        ExpectMatchesReference({n, n, dims[0], dims[1], causal, n, 0.0}, seed++);
      }
    }
  }
}

TEST_P(AttentionPerTarget, MatchesReferenceWithKeyPadding) {
  ExpectMatchesReference({65, 65, 16, 16, false, 40, 0.0}, 1);
  ExpectMatchesReference({65, 65, 16, 16, true, 40, 0.0}, 2);
  ExpectMatchesReference({130, 130, 8, 24, false, 64, 0.0}, 3);
  ExpectMatchesReference({7, 200, 32, 8, false, 129, 0.0}, 4);
}

TEST_P(AttentionPerTarget, QueriesAndKeysOfDifferentLengths) {
  // Fewer queries than keys: the queries are the last positions (bottom-right causal).
  ExpectMatchesReference({5, 77, 16, 16, true, 77, 0.0}, 10);
  ExpectMatchesReference({5, 77, 16, 16, false, 77, 0.0}, 11);
  ExpectMatchesReference({1, 300, 64, 64, true, 300, 0.0}, 12);
  // More queries than keys: the first n_q - n_kv rows see no key.
  ExpectMatchesReference({77, 5, 16, 16, true, 5, 0.0}, 13);
  ExpectMatchesReference({100, 31, 9, 70, false, 31, 0.0}, 14);
}

// Up to four queries (decode) read K in place instead of packing it; five
// pack. Both sides of that boundary, key counts around the 4-key groups and
// the 256-key blocks, features around the vector width, masks and padding.
TEST_P(AttentionPerTarget, FewQueriesReadKeysInPlace) {
  uint64_t seed = 300;
  for (int n_q : {1, 2, 3, 4, 5}) {
    for (int n_kv : {1, 6, 257, 520}) {
      for (int d_k : {1, 17, 64, 128}) {
        ExpectMatchesReference({n_q, n_kv, d_k, 24, true, n_kv, 0.0}, seed++);
        ExpectMatchesReference({n_q, n_kv, d_k, 24, false, (n_kv + 1) / 2, 0.0}, seed++);
      }
    }
  }
}

TEST_P(AttentionPerTarget, CustomScaleAndLargeScoresStayFinite) {
  ExpectMatchesReference({33, 47, 16, 16, false, 47, 0.05}, 20);
  // Scores in the hundreds: a naive exp would overflow; the running max keeps
  // every exponent <= 0. The bound grows with the scores (FloatErrorBound).
  ExpectMatchesReference({65, 129, 32, 32, true, 129, 0.0}, 21, /*magnitude=*/12.0);
}

TEST_P(AttentionPerTarget, ScoresFarBelowZeroStillFormADistribution) {
  // Scaled scores of -2e30 and -3e30: below any "large negative" sentinel a
  // running maximum might start from; the first key must still win.
  const AttentionProblem p{1, 2, 1, 1, false, 2, 1.0};
  const std::vector<float> q = {1e15f}, k = {-2e15f, -3e15f}, v = {5.0f, 7.0f};
  const AttentionRun run = RunAttention(p, q, k, v, true);
  ASSERT_EQ(run.status, EA_OK);
  EXPECT_EQ(run.out[0], 5.0f);
  EXPECT_EQ(run.weights[0], 1.0f);
  EXPECT_EQ(run.weights[1], 0.0f);
}

// Prefill's twin of the KV cache's case: a NaN value among the first score
// tile's keys (kScoreTileKeys), a key in the second 500 above the rest. The
// first tile's factor underflows to 0 and 0 * NaN is NaN, as in
// softmax(Q K^T) V computed whole.
TEST_P(AttentionPerTarget, NonFiniteValueOutlivesAnUnderflowedRescale) {
  const int high = edgeattn::kScoreTileKeys + 10;
  const AttentionProblem p{3, high + 1, 4, 4, false, high + 1, 0.5};
  std::vector<float> q(static_cast<size_t>(p.n_q) * 4, 0.0f),
      k(static_cast<size_t>(p.n_kv) * 4, 0.0f);
  std::vector<float> v(static_cast<size_t>(p.n_kv) * 4, 1.0f);
  for (int i = 0; i < p.n_q; ++i) q[static_cast<size_t>(i) * 4] = 1.0f;
  k[static_cast<size_t>(high) * 4] = 1000.0f;
  v[0] = NAN;
  for (int c = 0; c < 4; ++c) v[static_cast<size_t>(high) * 4 + c] = 5.0f + c;
  const AttentionRun run = RunAttention(p, q, k, v, false);
  ASSERT_EQ(run.status, EA_OK);
  for (int i = 0; i < p.n_q; ++i) {
    EXPECT_TRUE(std::isnan(run.out[static_cast<size_t>(i) * 4])) << "row " << i;
    for (int c = 1; c < 4; ++c) {
      EXPECT_NEAR(run.out[static_cast<size_t>(i) * 4 + c], 5.0f + c, 1e-5) << "row " << i;
    }
  }
}

TEST_P(AttentionPerTarget, FullyMaskedRowsAreZeroNotNaN) {
  const AttentionProblem p{20, 70, 8, 12, false, 0, 0.0};  // every key is padding
  const Inputs in = MakeInputs(p, 30);
  const AttentionRun run = RunAttention(p, in.q, in.k, in.v, true);
  ASSERT_EQ(run.status, EA_OK);
  for (float value : run.out) ASSERT_EQ(value, 0.0f);
  for (float value : run.weights) ASSERT_EQ(value, 0.0f);

  // Causal with more queries than keys: rows 0..n_q-n_kv-1 see nothing.
  const AttentionProblem causal{40, 10, 8, 8, true, 10, 0.0};
  const Inputs in2 = MakeInputs(causal, 31);
  const AttentionRun run2 = RunAttention(causal, in2.q, in2.k, in2.v, false);
  ASSERT_EQ(run2.status, EA_OK);
  for (int i = 0; i < 30; ++i) {
    for (int c = 0; c < 8; ++c) ASSERT_EQ(run2.out[i * 8 + c], 0.0f) << "row " << i;
  }
  for (int i = 30; i < 40; ++i) EXPECT_NE(run2.out[i * 8], 0.0f) << "row " << i;
}

TEST_P(AttentionPerTarget, WeightsOutputDoesNotChangeTheResult) {
  const AttentionProblem p{70, 90, 24, 40, true, 90, 0.0};
  const Inputs in = MakeInputs(p, 40);
  const AttentionRun with = RunAttention(p, in.q, in.k, in.v, true);
  const AttentionRun without = RunAttention(p, in.q, in.k, in.v, false);
  ASSERT_EQ(with.status, EA_OK);
  ASSERT_EQ(without.status, EA_OK);
  EXPECT_EQ(with.out, without.out);
}

TEST_P(AttentionPerTarget, LongRowsStayInsideTheValuesHull) {
  // Row 0 has q = 0: a flat softmax over every key, so with every value row
  // equal the output must be that row. Row 1 is a random row. Per-key
  // accumulation onto the output once drifted by 2.4e-4 at 32768 keys.
  for (int n_kv : {4096, 16384, 32768, 65535}) {
    SCOPED_TRACE(testing::Message() << "n_kv=" << n_kv);
    const AttentionProblem p{2, n_kv, 2, 3, false, n_kv, 0.0};
    std::vector<float> q = RandomTensor(2 * 2, 60);
    q[0] = q[1] = 0.0f;
    const std::vector<float> k = RandomTensor(static_cast<size_t>(n_kv) * 2, 61);
    std::vector<float> v(static_cast<size_t>(n_kv) * 3);
    for (size_t j = 0; j < v.size(); j += 3) {
      v[j] = 0.3f;
      v[j + 1] = -1.7f;
      v[j + 2] = 5.0f;
    }
    const AttentionRun run = RunAttention(p, q, k, v, /*want_weights=*/false);
    ASSERT_EQ(run.status, EA_OK);
    const float want[3] = {0.3f, -1.7f, 5.0f};
    const double bound = LongRowErrorBound(n_kv);
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(run.out[c], want[c], bound * std::fabs(want[c])) << "column " << c;
      EXPECT_NEAR(run.out[3 + c], want[c], bound * std::fabs(want[c])) << "column " << c;
    }
    const std::vector<float> v_random = RandomTensor(static_cast<size_t>(n_kv) * 3, 62);
    const AttentionRun random = RunAttention(p, q, k, v_random, false);
    ASSERT_EQ(random.status, EA_OK);
    const ReferenceResult ref = ReferenceAttention(p, q.data(), 2, k.data(), 2, v_random.data(), 3);
    EXPECT_LE(NormScaledError(random.out.data(), ref.out), bound);
  }
}

EA_INSTANTIATE_PER_TARGET(AttentionPerTarget);

}  // namespace
}  // namespace edgeattn_test
