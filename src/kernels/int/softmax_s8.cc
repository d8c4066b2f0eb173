// The int8 softmax row (see the header for the table and the saturation).
#include "kernels/int/softmax_s8.h"

#include "edgeattn/arena_sizes.hpp"
#include "tflite/fixed_point_math.h"
#include "tflite/requantize.h"

namespace edgeattn {

static_assert(sizeof(SoftmaxS8Table) == kSoftmaxS8TableBytes, "the arena formula's table size");

namespace {

// Q12.19 accumulator bits, and the sum (512.0) from which TFLite's reference
// aborts.
constexpr int kAccumulatorIntegerBits = 12;
constexpr int64_t kAbortSum = int64_t{1} << 28;

// The int8 output (zero point -128) of exponential e with the row's scale.
inline int8_t Probability(int32_t scale, int32_t e, int exponent) {
  const int32_t p = RoundingDivideByPowerOfTwo(RoundingDoublingHighMul(scale, e), exponent) - 128;
  return static_cast<int8_t>(p > 127 ? 127 : p);
}

// A probability depends on the row only through d = max - score, one of
// kDifferences values: a longer row requantises each d once, up to the first
// block from which every probability is 0, and looks its scores up. Out of
// line, so that shorter rows (Cortex-M's) keep their frame.
constexpr size_t kDifferences = 256;
__attribute__((noinline)) void ProbabilitiesByDifference(const SoftmaxS8Table& table, int32_t scale,
                                                         int exponent, int32_t max,
                                                         const int8_t* scores, size_t count,
                                                         int8_t* probs) {
  int8_t by_difference[kDifferences];
  size_t d = 0;
  for (; d < kDifferences; ++d) {
    if (d % kSoftmaxS8Block == 0 &&
        ZeroFromBlock(table, static_cast<int32_t>(d) / kSoftmaxS8Block, scale, exponent)) {
      break;
    }
    by_difference[d] = Probability(scale, table.exp_q31[d], exponent);
  }
  for (; d < kDifferences; ++d) by_difference[d] = -128;
  for (size_t j = 0; j < count; ++j) probs[j] = by_difference[max - scores[j]];
}

}  // namespace

void BuildSoftmaxS8Table(int32_t input_multiplier, int32_t input_left_shift, int32_t diff_min,
                         SoftmaxS8Table* table) {
  for (int32_t d = 0; d < 256; ++d) {
    const int32_t diff = -d;
    if (diff < diff_min) {
      table->exp_q31[d] = 0;  // skipped by the reference: no share of the sum, output -128
      continue;
    }
    // diff * 2^left_shift fits int32 (validated); left_shift may be 31.
    const int32_t scaled = RoundingDoublingHighMul(
        static_cast<int32_t>(static_cast<int64_t>(diff) * (int64_t{1} << input_left_shift)),
        input_multiplier);  // Q5.26
    table->exp_q31[d] = ExpOnNegativeQ5_26(scaled);
  }
  for (int32_t d = 0; d < 256; ++d) {
    table->sum_term[d] = RoundingDivideByPowerOfTwo(table->exp_q31[d], kAccumulatorIntegerBits);
    for (int plane = 0; plane < 3; ++plane) {
      table->sum_term_bytes[plane][d] = static_cast<uint8_t>(table->sum_term[d] >> (8 * plane));
    }
  }
  int32_t largest = 0;  // exp_q31 >= 0
  for (int32_t d = 255; d >= 0; --d) {
    largest = table->exp_q31[d] > largest ? table->exp_q31[d] : largest;
    if (d % kSoftmaxS8Block == 0) table->exp_max_from_block[d / kSoftmaxS8Block] = largest;
  }
}

void SoftmaxS8Row(const SoftmaxS8Table& table, const int8_t* scores, size_t count, int8_t* probs) {
  int32_t max = -128;
  for (size_t j = 0; j < count; ++j) max = scores[j] > max ? scores[j] : max;
  int64_t sum = 0;  // Q12.19, exact
  for (size_t j = 0; j < count; ++j) {
    sum += table.sum_term[max - scores[j]];
  }
  if (sum >= kAbortSum) {  // every probability below half an LSB (see the header)
    for (size_t j = 0; j < count; ++j) probs[j] = -128;
    return;
  }
  int bits_over_unit = 0;
  const int32_t scale =
      Reciprocal(static_cast<int32_t>(sum), kAccumulatorIntegerBits, &bits_over_unit);
  const int exponent = bits_over_unit + 31 - 8;
  if (count > kDifferences) {
    ProbabilitiesByDifference(table, scale, exponent, max, scores, count, probs);
    return;
  }
  for (size_t j = 0; j < count; ++j) {
    probs[j] = Probability(scale, table.exp_q31[max - scores[j]], exponent);
  }
}

}  // namespace edgeattn
