// TFLite's int16 softmax (output scale 1/32768, zero point 0) over one row of
// int16 scores: the LUT-based reference, integer-only.
//
// Each difference x - max is scaled so that [-65535, 0] maps onto [-10, 0],
// then exp comes from a 513-entry table with linear interpolation. Differences
// below -10 saturate at the table's first entry, exp(-10) ~ 2/32768, and still
// add to the row's sum: that floor is part of TFLite's integers and is kept.
// The reciprocal of the sum comes from the 1 / (1 + x) table.
#ifndef EDGEATTN_SRC_KERNELS_INT_SOFTMAX_S16_H_
#define EDGEATTN_SRC_KERNELS_INT_SOFTMAX_S16_H_

#include <stddef.h>
#include <stdint.h>

namespace edgeattn {

// The most keys a fixed-point softmax row may have: the int16 softmax sums up
// to 32767 per key in int32, as TFLite does (the int8 one is bounded by it too,
// so that one limit holds for both dtypes).
inline constexpr int32_t kMaxFixedPointKeys = 65535;

// TFLite's lut_lookup_with_interpolation on a 513-entry Q0.15 table.
int16_t InterpolateTable(int16_t value, const int16_t* table);

// The row's normalisation from its sum of exponentials (>= the max entry's
// exp(0), so right_shift >= 14): probs = (exp * reciprocal + 2^(right_shift -
// 1)) >> right_shift, clamped to [0, 32767].
struct SoftmaxS16Normalizer {
  int32_t reciprocal;  // Q0.15, from the 1 / (1 + x) table
  int right_shift;
};
SoftmaxS16Normalizer NormalizerOf(int32_t sum);

// probs[j] for j < count from scores[j]. input_multiplier / input_left_shift:
// the softmax's TFLite parameters (shift in [-31, 30]). exp_scratch holds
// count values. probs may be scores (in place).
void SoftmaxS16Row(int32_t input_multiplier, int32_t input_left_shift, const int16_t* scores,
                   size_t count, int16_t* exp_scratch, int16_t* probs);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_SOFTMAX_S16_H_
