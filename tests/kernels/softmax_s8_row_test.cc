// The int8 softmax row against TFLite's reference row (tflite_chain_reference.h):
// the portable SoftmaxS8Row (softmax_s8.cc) and the AVX-512 one
// (vnni::SoftmaxS8Row in avx512_requantize-inl.h, with its uint8 p + 128 row
// and their sum), at lengths around the 64-entry vector and the 256-entry
// per-difference table, over rows whose differences stay below 128, reach
// exactly 128 or span all 256, and at input scales from one where only the
// first block of 16 differences has a non-zero probability to one where no
// block is cut (diff_min cuts the table instead), and rows flat enough to pass
// TFLite's abort limit. Compiled here in Highway's AVX3_DL pass, as
// int_kernels.cc compiles it; other targets have no such function (the test
// says so and skips).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/softmax_s8_row_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "kernels/int/softmax_s8.h"

#if HWY_TARGET == HWY_AVX3_DL
#include "kernels/int/x86/avx512_requantize-inl.h"
#endif

HWY_BEFORE_NAMESPACE();
namespace edgeattn_test {
namespace HWY_NAMESPACE {

// row's probabilities in place, p_row = them + 128, *sum = the sum of p_row;
// false where the target has no such function.
#if HWY_TARGET == HWY_AVX3_DL
EA_VNNI_TARGET bool SoftmaxS8RowOnTarget(const edgeattn::SoftmaxS8Table& table, int8_t* row,
                                         int32_t count, uint8_t* p_row, uint32_t* sum) {
  *sum = edgeattn::vnni::SoftmaxS8Row(table, row, count, p_row);
  return true;
}
#else
bool SoftmaxS8RowOnTarget(const edgeattn::SoftmaxS8Table&, int8_t*, int32_t, uint8_t*, uint32_t*) {
  return false;
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn_test
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <gtest/gtest.h>
#include <stdint.h>

#include <string>
#include <vector>

#include "kernels/int/int_kernels.h"
#include "reference/random_tensor.h"
#include "reference/tflite_chain_reference.h"
#include "runtime/dispatch.h"

namespace edgeattn_test {

EA_EXPORT(SoftmaxS8RowOnTarget);

namespace {

// A row of `count` scores: uniform over [low, low + span), with the largest
// value `low + span - 1` at one random place so that max - min is span - 1
// (for span >= 2 and count >= 2).
std::vector<int8_t> Row(int32_t count, int32_t low, int32_t span, RandomStream* random) {
  std::vector<int8_t> row(static_cast<size_t>(count));
  for (int8_t& x : row) x = static_cast<int8_t>(low + Draw(random, 0, span - 1));
  if (count >= 2) {
    row[static_cast<size_t>(Draw(random, 0, count - 1))] = static_cast<int8_t>(low);
    row[static_cast<size_t>(Draw(random, 0, count - 1))] = static_cast<int8_t>(low + span - 1);
  }
  return row;
}

struct RowCase {
  float input_scale;
  int32_t count, low, span;
};

std::string Describe(const RowCase& c) {
  return "scale " + std::to_string(c.input_scale) + " count " + std::to_string(c.count) + " low " +
         std::to_string(c.low) + " span " + std::to_string(c.span);
}

std::vector<RowCase> Cases() {
  std::vector<RowCase> cases;
  // 0.005: every difference has a non-zero share, no block is cut; 0.06:
  // blocks cut past a few; 0.5: only the first block; 2.0: diff_min cuts.
  for (const float scale : {0.005f, 0.06f, 0.5f, 2.0f}) {
    for (const int32_t count : {1, 2, 63, 64, 65, 127, 200, 256, 257, 1000, 4097}) {
      for (const int32_t span : {1, 40, 128, 129, 256}) {
        cases.push_back({scale, count, span == 256 ? -128 : 127 - span + 1, span});
        if (span == 129) cases.push_back({scale, count, -128, span});
      }
    }
  }
  return cases;
}

// TFLite's parameters for an input scale (beta 1), and the plan's table of them.
struct SoftmaxAt {
  explicit SoftmaxAt(float input_scale)
      : params(tflite_ref::PrepareSoftmaxInt8(1.0f, input_scale)) {
    edgeattn::BuildSoftmaxS8Table(params.input_multiplier, params.input_left_shift, params.diff_min,
                                  &table);
  }
  tflite_ref::SoftmaxInt8Params params;
  edgeattn::SoftmaxS8Table table;
};

TEST(SoftmaxS8Row, PortableMatchesTheReference) {
  RandomStream random(4242);
  for (const RowCase& c : Cases()) {
    const SoftmaxAt softmax(c.input_scale);
    const std::vector<int8_t> row = Row(c.count, c.low, c.span, &random);
    std::vector<int8_t> want(row.size()), got(row.size());
    tflite_ref::SoftmaxInt8Row(softmax.params, row.data(), c.count, want.data());
    edgeattn::SoftmaxS8Row(softmax.table, row.data(), row.size(), got.data());
    ASSERT_EQ(got, want) << Describe(c);
  }
}

TEST(SoftmaxS8Row, Avx512MatchesTheReference) {
  if (!edgeattn::UsesS8Panels()) GTEST_SKIP() << "this CPU has no AVX512-VNNI";
  RandomStream random(4243);
  int saturated_rows = 0;
  for (const RowCase& c : Cases()) {
    const SoftmaxAt softmax(c.input_scale);
    const std::vector<int8_t> row = Row(c.count, c.low, c.span, &random);
    std::vector<int8_t> want(row.size());
    const tflite_ref::SoftmaxInt8RowInfo info =
        tflite_ref::SoftmaxInt8Row(softmax.params, row.data(), c.count, want.data());
    saturated_rows += info.beyond_tflite ? 1 : 0;
    std::vector<int8_t> got = row;
    std::vector<uint8_t> p_row(row.size() + 64, 0xAA);  // past count: never written
    uint32_t sum = 0;
    ASSERT_TRUE(
        EA_DISPATCH(SoftmaxS8RowOnTarget)(softmax.table, got.data(), c.count, p_row.data(), &sum));
    ASSERT_EQ(got, want) << Describe(c);
    uint32_t want_sum = 0;
    for (size_t j = 0; j < row.size(); ++j) {
      ASSERT_EQ(p_row[j], static_cast<uint8_t>(want[j] + 128)) << Describe(c) << " entry " << j;
      want_sum += static_cast<uint32_t>(want[j] + 128);
    }
    for (size_t j = row.size(); j < p_row.size(); ++j) ASSERT_EQ(p_row[j], 0xAA) << Describe(c);
    ASSERT_EQ(sum, want_sum) << Describe(c);
  }
  EXPECT_GT(saturated_rows, 0) << "no row reached TFLite's abort limit";
}

}  // namespace
}  // namespace edgeattn_test
#endif  // HWY_ONCE
