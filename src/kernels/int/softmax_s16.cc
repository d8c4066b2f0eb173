// The int16 softmax row (see the header).
#include "kernels/int/softmax_s16.h"

#include "edgeattn/arena_sizes.hpp"
#include "tflite/requantize.h"
#include "tflite/softmax_s16_tables.h"

namespace edgeattn {

int16_t InterpolateTable(int16_t value, const int16_t* table) {
  const int index = 256 + (value >> 7);  // arithmetic shift: 0..511
  const int offset = value & 0x7F;
  const int base = table[index];
  const int slope = static_cast<int16_t>(table[index + 1] - table[index]);
  return static_cast<int16_t>(base + ((slope * offset + 64) >> 7));
}

void BuildSoftmaxS16Tables(const int16_t* exp, const int16_t* reciprocal,
                           SoftmaxS16Tables* tables) {
  tables->exp = exp;
  tables->reciprocal = reciprocal;
  if constexpr (kFixedPointPanels) SplitExpTable(tables->ExpTable(), &tables->exp_planes);
}

namespace {

// exp of each score below the row max into exp_scratch; returns their sum
// (Q16.15; count <= 2^16 keeps it in range). `scaled` maps d = score - max
// in [-65535, 0] to Requantize(d, multiplier, left_shift).
template <typename Scaled>
inline int32_t ExpRow(const int16_t* exp_table, const int16_t* scores, size_t count, int32_t max,
                      const Scaled& scaled, int16_t* exp_scratch) {
  int32_t sum = 0;
  for (size_t j = 0; j < count; ++j) {
    const int16_t centred =
        static_cast<int16_t>(Clamp(scaled(scores[j] - max) + 32767, -32768, 32767));
    exp_scratch[j] = InterpolateTable(centred, exp_table);
    sum += exp_scratch[j];
  }
  return sum;
}

}  // namespace

void SoftmaxS16Row(const SoftmaxS16Tables& tables, int32_t input_multiplier,
                   int32_t input_left_shift, const int16_t* scores, size_t count,
                   int16_t* exp_scratch, int16_t* probs) {
  int32_t max = INT16_MIN;
  for (size_t j = 0; j < count; ++j) max = scores[j] > max ? scores[j] : max;
  int32_t sum;
  if (input_left_shift >= 1 && input_left_shift <= 15) {
    // d << left_shift fits int32 and is never INT32_MIN, so TFLite's
    // SaturatingShiftLeft and RoundingDoublingHighMul reduce to a shift and
    // one rounded 64-bit product (SMLAL on Arm): the same integers in a
    // third of the general path's instructions. The usual case: the
    // multiplier of a score scale times beta over 10 / 65535.
    const int32_t scale = int32_t{1} << input_left_shift;
    sum = ExpRow(
        tables.ExpTable(), scores, count, max,
        [input_multiplier, scale](int32_t d) {
          return static_cast<int32_t>(
              (static_cast<int64_t>(d * scale) * input_multiplier + (int64_t{1} << 30)) >> 31);
        },
        exp_scratch);
  } else {
    sum = ExpRow(
        tables.ExpTable(), scores, count, max,
        [input_multiplier, input_left_shift](int32_t d) {
          return Requantize(d, input_multiplier, input_left_shift);
        },
        exp_scratch);
  }
  // Both tables hold Q0.15 values in [0, 32767] (so does every value
  // interpolated between two entries; a model's tables are checked at plan
  // time), so exp * reciprocal < 2^30 and the rounded product fits 32
  // unsigned bits.
  const SoftmaxS16Normalizer normalizer = NormalizerOf(sum, tables.ReciprocalTable());
  const uint32_t reciprocal = static_cast<uint32_t>(normalizer.reciprocal);
  const uint32_t round = uint32_t{1} << (normalizer.right_shift - 1);
  for (size_t j = 0; j < count; ++j) {
    const uint32_t p =
        (static_cast<uint32_t>(exp_scratch[j]) * reciprocal + round) >> normalizer.right_shift;
    probs[j] = static_cast<int16_t>(p > 32767 ? 32767 : p);
  }
}

SoftmaxS16Normalizer NormalizerOf(int32_t sum, const int16_t* reciprocal_table) {
  const int headroom_plus_one = __builtin_clz(static_cast<uint32_t>(sum));
  const int32_t shifted_sum = static_cast<int32_t>(
      ((static_cast<int64_t>(sum) << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
  const int32_t centred_sum = shifted_sum - ((1 << 15) + (1 << 16));
  const int16_t reciprocal =
      InterpolateTable(static_cast<int16_t>(Clamp(centred_sum, -32768, 32767)), reciprocal_table);
  return {reciprocal, 31 - headroom_plus_one};
}

}  // namespace edgeattn
