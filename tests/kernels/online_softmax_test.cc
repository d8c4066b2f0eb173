// The online softmax (src/kernels/f32/online_softmax-inl.h) on every SIMD
// target, against double precision: rows streamed block by block keep the
// running maximum and sum of the whole row, each block's probabilities and
// rescale factor are those of the exact maths within the exponential's bound,
// a P V accumulated with them is the softmax-weighted sum, rows taken side by
// side give the bits each gives alone, and rows that see no key or a
// non-finite score take no step (0 and NaN at the end, as the header says).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/online_softmax_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <stddef.h>

#include <hwy/highway.h>

#include "kernels/f32/online_softmax-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn_test {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace ea = edgeattn::HWY_NAMESPACE;

// OnlineSoftmaxRows on `rows` rows of `tile`, the states as plain arrays so
// that the call can cross the dispatch.
void SoftmaxStep(float* tile, size_t row_stride, size_t rows, const size_t* counts, float* maxima,
                 float* sums, bool* non_finite, float* rescale, bool* usable) {
  const hn::ScalableTag<float> d;
  ea::RowState states[ea::kMaxSoftmaxRows];
  for (size_t r = 0; r < rows; ++r) states[r] = ea::RowState{maxima[r], sums[r], non_finite[r]};
  ea::OnlineSoftmaxRows(d, tile, row_stride, rows, counts, states, rescale, usable);
  for (size_t r = 0; r < rows; ++r) {
    maxima[r] = states[r].max;
    sums[r] = states[r].sum;
    non_finite[r] = states[r].non_finite;
  }
}

// WriteProbabilities of one row segment.
void Probabilities(const float* scores, size_t visible, size_t width, float max, float sum,
                   bool non_finite, float* out) {
  const hn::ScalableTag<float> d;
  ea::WriteProbabilities(d, scores, visible, width, ea::RowState{max, sum, non_finite}, out);
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn_test
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <math.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "reference/random_tensor.h"
#include "runtime/dispatch.h"
#include "simd_targets.h"

namespace edgeattn_test {

EA_EXPORT(SoftmaxStep);
EA_EXPORT(Probabilities);

namespace {

// The kernel's own constants (the same on every target; these are the
// static target's).
constexpr size_t kMaxRows = edgeattn::HWY_NAMESPACE::kMaxSoftmaxRows;
constexpr float kLowest = edgeattn::HWY_NAMESPACE::kInitialRowMax;
constexpr size_t kStride = 256;

// The exponential's relative bound (exp_f32-inl.h) for |x| up to 40, with
// room for the sums of a few hundred terms.
constexpr double kRelative = 2e-6;

// One row as the kernel's caller keeps it: its state, and an output row of
// kValueWidth channels accumulated as O = O * rescale + sum_j p_j v_j.
constexpr size_t kValueWidth = 3;
struct StreamedRow {
  float max = kLowest;
  float sum = 0.0f;
  bool non_finite = false;
  double out[kValueWidth] = {};
};

// Streams the rows' scores through the kernel in blocks of the given sizes
// (row r's block b takes blocks[b][r] scores; its values are value(r, key)),
// `rows` at a time. Returns each row's state and output.
struct Stream {
  std::vector<std::vector<float>> scores;   // per row, all its keys
  std::vector<std::vector<size_t>> blocks;  // per block, per row: keys in it
};

double Value(size_t row, size_t key, size_t channel) {
  return sin(0.37 * static_cast<double>(key) + 1.3 * static_cast<double>(channel) +
             static_cast<double>(row));
}

std::vector<StreamedRow> RunStream(const Stream& s, size_t rows) {
  std::vector<StreamedRow> state(rows);
  std::vector<size_t> done(rows, 0);
  std::vector<float> tile(kMaxRows * kStride);
  for (const std::vector<size_t>& block : s.blocks) {
    size_t counts[kMaxRows];
    float maxima[kMaxRows], sums[kMaxRows], rescale[kMaxRows];
    bool non_finite[kMaxRows], usable[kMaxRows];
    for (size_t r = 0; r < rows; ++r) {
      counts[r] = block[r];
      std::copy(s.scores[r].begin() + done[r], s.scores[r].begin() + done[r] + block[r],
                tile.begin() + r * kStride);
      maxima[r] = state[r].max;
      sums[r] = state[r].sum;
      non_finite[r] = state[r].non_finite;
    }
    EA_DISPATCH(SoftmaxStep)
    (tile.data(), kStride, rows, counts, maxima, sums, non_finite, rescale, usable);
    for (size_t r = 0; r < rows; ++r) {
      state[r].max = maxima[r];
      state[r].sum = sums[r];
      state[r].non_finite = non_finite[r];
      if (usable[r]) {
        for (size_t c = 0; c < kValueWidth; ++c) {
          double total = state[r].out[c] * rescale[r];
          for (size_t j = 0; j < block[r]; ++j) {
            total += tile[r * kStride + j] * Value(r, done[r] + j, c);
          }
          state[r].out[c] = total;
        }
      }
      done[r] += block[r];
    }
  }
  return state;
}

// Rows of random scores of spread `spread`, cut into blocks of sizes that
// cross every vector width: 0, 1, 3, 17, 63, 64, 65, 200 keys.
Stream RandomScoreStream(size_t rows, float spread, uint64_t seed) {
  static const size_t kSizes[] = {0, 1, 3, 17, 63, 64, 65, 200};
  RandomStream random(seed);
  Stream s;
  s.scores.resize(rows);
  for (size_t b = 0; b < 6; ++b) {
    std::vector<size_t> block(rows);
    for (size_t r = 0; r < rows; ++r) {
      block[r] = kSizes[(b * 3 + r * 5) % 8];
      for (size_t j = 0; j < block[r]; ++j) {
        // A rising trend in some rows, so that later blocks raise the maximum.
        const float trend = (r % 2 == 0) ? 0.5f * static_cast<float>(b) : 0.0f;
        s.scores[r].push_back(spread * static_cast<float>(random.Uniform() * 2.0 - 1.0) + trend);
      }
    }
    s.blocks.push_back(block);
  }
  return s;
}

class OnlineSoftmax : public PerTargetTest {};

TEST_P(OnlineSoftmax, StreamedRowsKeepTheWholeRowsMaximumSumAndWeightedValues) {
  for (float spread : {0.5f, 8.0f, 30.0f}) {
    const Stream s = RandomScoreStream(kMaxRows, spread, 4100 + static_cast<uint64_t>(spread));
    const std::vector<StreamedRow> got = RunStream(s, kMaxRows);
    for (size_t r = 0; r < kMaxRows; ++r) {
      SCOPED_TRACE(testing::Message() << "spread " << spread << ", row " << r);
      const std::vector<float>& row = s.scores[r];
      if (row.empty()) {
        EXPECT_EQ(got[r].sum, 0.0f);
        EXPECT_EQ(got[r].max, kLowest);
        continue;
      }
      const double max = *std::max_element(row.begin(), row.end());
      EXPECT_EQ(got[r].max, static_cast<float>(max)) << "the running maximum is the row's";
      double sum = 0.0;
      double weighted[kValueWidth] = {};
      for (size_t j = 0; j < row.size(); ++j) {
        const double p = exp(static_cast<double>(row[j]) - max);
        sum += p;
        for (size_t c = 0; c < kValueWidth; ++c) weighted[c] += p * Value(r, j, c);
      }
      EXPECT_NEAR(got[r].sum, sum, kRelative * sum) << "sum of exp(s - max)";
      EXPECT_FALSE(got[r].non_finite);
      for (size_t c = 0; c < kValueWidth; ++c) {
        // |Value| <= 1, so each output is within the bound of sum, times 1.
        EXPECT_NEAR(got[r].out[c] / got[r].sum, weighted[c] / sum, 4 * kRelative)
            << "channel " << c;
      }
    }
  }
}

TEST_P(OnlineSoftmax, RowsSideBySideGiveTheBitsOfEachRowAlone) {
  const Stream s = RandomScoreStream(kMaxRows, 8.0f, 4200);
  const std::vector<StreamedRow> together = RunStream(s, kMaxRows);
  for (size_t r = 0; r < kMaxRows; ++r) {
    Stream alone;
    alone.scores = {s.scores[r]};
    for (const std::vector<size_t>& block : s.blocks) alone.blocks.push_back({block[r]});
    const StreamedRow single = RunStream(alone, 1)[0];
    // Row r's values are Value(r, ...); alone it is row 0: compare state only.
    EXPECT_EQ(single.max, together[r].max) << "row " << r;
    EXPECT_EQ(single.sum, together[r].sum) << "row " << r;
  }
}

TEST_P(OnlineSoftmax, ANonFiniteScoreStopsTheRowAndOnlyThatRow) {
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity()}) {
    std::vector<float> tile(2 * kStride, 0.0f);
    for (size_t j = 0; j < 5; ++j) tile[j] = tile[kStride + j] = 0.1f * static_cast<float>(j);
    tile[3] = bad;  // row 0 only
    const size_t counts[2] = {5, 5};
    float maxima[2] = {kLowest, kLowest}, sums[2] = {0.0f, 0.0f}, rescale[2];
    bool non_finite[2] = {false, false}, usable[2];
    EA_DISPATCH(SoftmaxStep)
    (tile.data(), kStride, 2, counts, maxima, sums, non_finite, rescale, usable);
    EXPECT_TRUE(non_finite[0]) << bad;
    EXPECT_FALSE(usable[0]) << bad;
    EXPECT_TRUE(usable[1]) << bad;
    EXPECT_FALSE(non_finite[1]) << bad;
    EXPECT_NEAR(sums[1], 1.0 + exp(-0.1) + exp(-0.2) + exp(-0.3) + exp(-0.4), 1e-5);
    // A later finite block leaves the row stopped.
    for (size_t j = 0; j < 5; ++j) tile[j] = 1.0f;
    EA_DISPATCH(SoftmaxStep)
    (tile.data(), kStride, 1, counts, maxima, sums, non_finite, rescale, usable);
    EXPECT_FALSE(usable[0]);
    EXPECT_TRUE(non_finite[0]);
    std::vector<float> out(7, 1.0f);
    EA_DISPATCH(Probabilities)(tile.data(), 5, 7, maxima[0], sums[0], true, out.data());
    for (float p : out) EXPECT_TRUE(std::isnan(p)) << "a non-finite row's weights are NaN";
  }
}

TEST_P(OnlineSoftmax, ABlockWithoutKeysTakesNoStep) {
  std::vector<float> tile(kStride, 7.0f);
  const size_t counts[1] = {0};
  float maxima[1] = {2.0f}, sums[1] = {3.0f}, rescale[1] = {-1.0f};
  bool non_finite[1] = {false}, usable[1] = {true};
  EA_DISPATCH(SoftmaxStep)
  (tile.data(), kStride, 1, counts, maxima, sums, non_finite, rescale, usable);
  EXPECT_FALSE(usable[0]);
  EXPECT_EQ(rescale[0], 1.0f);
  EXPECT_EQ(maxima[0], 2.0f);
  EXPECT_EQ(sums[0], 3.0f);
  EXPECT_EQ(tile[0], 7.0f) << "no score was touched";
}

TEST_P(OnlineSoftmax, ProbabilitiesAreTheNormalisedExponentialsThenZeros) {
  for (size_t visible : {0u, 1u, 3u, 17u, 64u, 65u, 130u}) {
    std::vector<float> scores(visible);
    for (size_t j = 0; j < visible; ++j) scores[j] = -0.25f * static_cast<float>(j % 40);
    const float max = visible == 0 ? kLowest : 0.0f;
    double sum = 0.0;
    for (float s : scores) sum += exp(static_cast<double>(s) - max);
    const size_t width = visible + 9;
    std::vector<float> out(width, -1.0f);
    EA_DISPATCH(Probabilities)
    (scores.data(), visible, width, max, static_cast<float>(sum), false, out.data());
    for (size_t j = 0; j < width; ++j) {
      const double want = j < visible ? exp(static_cast<double>(scores[j]) - max) / sum : 0.0;
      EXPECT_NEAR(out[j], want, kRelative * want + 1e-9) << "visible " << visible << ", j " << j;
    }
  }
}

EA_INSTANTIATE_PER_TARGET(OnlineSoftmax);

}  // namespace
}  // namespace edgeattn_test
#endif  // HWY_ONCE
