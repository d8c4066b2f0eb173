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

#include "tflite/softmax_s16_tables.h"

namespace edgeattn {

// The most keys a fixed-point softmax row may have: the int16 softmax sums up
// to 32767 per key in int32, as TFLite does (the int8 one is bounded by it too,
// so that one limit holds for both dtypes).
inline constexpr int32_t kMaxFixedPointKeys = 65535;

// TFLite's lut_lookup_with_interpolation on a 513-entry Q0.15 table.
int16_t InterpolateTable(int16_t value, const int16_t* table);

// The two tables a row reads: the built-in ones (softmax_s16_tables.h) or a
// model's (ea_softmax_quant_params.exp_lut, one_over_one_plus_x_lut, checked
// at plan time: every entry in [0, 32767], exp at 0 at least 2^14), the exp
// table also as byte planes for the AVX-512 lookups (x86 builds only). Built
// once at plan time into the arena region the int8 softmax's table takes for
// int8 plans. The built-in tables are named only where an int16 row runs, so
// that int8-only firmware does not carry their 2 KB of flash.
struct SoftmaxS16Tables {
  SoftmaxS16ExpBytePlanes exp_planes;  // kFixedPointPanels builds only
  const int16_t* exp;                  // NULL: the built-in exp(x) on [-10, 0]
  const int16_t* reciprocal;           // NULL: the built-in 1 / (1 + x) on [0, 1]

  const int16_t* ExpTable() const { return exp != nullptr ? exp : kSoftmaxS16ExpTable; }
  const int16_t* ReciprocalTable() const {
    return reciprocal != nullptr ? reciprocal : kSoftmaxS16ReciprocalTable;
  }
};
// NULL tables: the built-in ones.
void BuildSoftmaxS16Tables(const int16_t* exp, const int16_t* reciprocal, SoftmaxS16Tables* tables);

// The row's normalisation from its sum of exponentials (>= the max entry's
// exp(0) >= 2^14, so right_shift >= 14): probs = (exp * reciprocal +
// 2^(right_shift - 1)) >> right_shift, clamped to [0, 32767].
struct SoftmaxS16Normalizer {
  int32_t reciprocal;  // Q0.15, from the 1 / (1 + x) table
  int right_shift;
};
SoftmaxS16Normalizer NormalizerOf(int32_t sum, const int16_t* reciprocal_table);

// probs[j] for j < count from scores[j]. input_multiplier / input_left_shift:
// the softmax's TFLite parameters (shift in [-31, 30]). exp_scratch holds
// count values. probs may be scores (in place).
void SoftmaxS16Row(const SoftmaxS16Tables& tables, int32_t input_multiplier,
                   int32_t input_left_shift, const int16_t* scores, size_t count,
                   int16_t* exp_scratch, int16_t* probs);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_SOFTMAX_S16_H_
