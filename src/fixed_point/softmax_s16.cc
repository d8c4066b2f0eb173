// The int16 softmax row (see the header).
#include "fixed_point/softmax_s16.h"

#include "fixed_point/requantize.h"
#include "fixed_point/softmax_s16_tables.h"

namespace edgeattn {

int16_t InterpolateTable(int16_t value, const int16_t* table) {
  const int index = 256 + (value >> 7);  // arithmetic shift: 0..511
  const int offset = value & 0x7F;
  const int base = table[index];
  const int slope = static_cast<int16_t>(table[index + 1] - table[index]);
  return static_cast<int16_t>(base + ((slope * offset + 64) >> 7));
}

void SoftmaxS16Row(int32_t input_multiplier, int32_t input_left_shift, const int16_t* scores,
                   size_t count, int16_t* exp_scratch, int16_t* probs) {
  int32_t max = INT16_MIN;
  for (size_t j = 0; j < count; ++j) max = scores[j] > max ? scores[j] : max;
  int32_t sum = 0;  // Q16.15; count <= 2^16 keeps it in range
  for (size_t j = 0; j < count; ++j) {
    const int32_t scaled = Requantize(scores[j] - max, input_multiplier, input_left_shift);
    const int16_t centred = static_cast<int16_t>(Clamp(scaled + 32767, -32768, 32767));
    exp_scratch[j] = InterpolateTable(centred, kSoftmaxS16ExpTable);
    sum += exp_scratch[j];
  }
  const SoftmaxS16Normalizer normalizer = NormalizerOf(sum);
  const int64_t round = int64_t{1} << (normalizer.right_shift - 1);
  for (size_t j = 0; j < count; ++j) {
    const int64_t p = (static_cast<int64_t>(exp_scratch[j]) * normalizer.reciprocal + round) >>
                      normalizer.right_shift;
    probs[j] = static_cast<int16_t>(p < 0 ? 0 : (p > 32767 ? 32767 : p));
  }
}

SoftmaxS16Normalizer NormalizerOf(int32_t sum) {
  const int headroom_plus_one = __builtin_clz(static_cast<uint32_t>(sum));
  const int32_t shifted_sum = static_cast<int32_t>(
      ((static_cast<int64_t>(sum) << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
  const int32_t centred_sum = shifted_sum - ((1 << 15) + (1 << 16));
  const int16_t reciprocal = InterpolateTable(
      static_cast<int16_t>(Clamp(centred_sum, -32768, 32767)), kSoftmaxS16ReciprocalTable);
  return {reciprocal, 31 - headroom_plus_one};
}

}  // namespace edgeattn
