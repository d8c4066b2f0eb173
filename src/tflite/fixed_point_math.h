// The Q-format arithmetic of TFLite's int8 softmax (gemmlowp's fixedpoint
// semantics, written here from their definitions): exp of a negative Q5.26
// value and the reciprocal of a Q12.19 sum, both as Q0.31.
//
// Scalar and integer-only: the int8 softmax evaluates exp once per plan for
// each of the 256 possible score differences (softmax_s8.h), and the
// reciprocal once per row, so neither is on a per-element path.
#ifndef EDGEATTN_SRC_TFLITE_FIXED_POINT_MATH_H_
#define EDGEATTN_SRC_TFLITE_FIXED_POINT_MATH_H_

#include <stdint.h>

namespace edgeattn {

// exp(a) for a Q5.26 value a <= 0, as Q0.31 (1.0 saturates to INT32_MAX).
int32_t ExpOnNegativeQ5_26(int32_t a);

// 1 / (1 + x) for a Q0.31 x in [0, 1), as Q0.31: three Newton-Raphson steps.
int32_t OneOverOnePlusX(int32_t x);

// TFLite's GetReciprocal: for a positive sum with `integer_bits` integer bits,
// a Q0.31 scale in [0.5, 1) and the number of bits the sum has above 1.0,
// so that 1/sum = scale * 2^-bits_over_unit.
int32_t Reciprocal(int32_t sum, int integer_bits, int* bits_over_unit);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_TFLITE_FIXED_POINT_MATH_H_
