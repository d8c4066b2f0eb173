// TFLite's Prepare-time arithmetic: real multipliers to (Q31 multiplier,
// shift) pairs, exactly as TFLite computes them (in double, from float
// scales), so that a plan built from scales gets TFLite's integers. Plan time
// only: the run path never sees a float.
#ifndef EDGEATTN_SRC_TFLITE_QUANTIZE_MULTIPLIER_H_
#define EDGEATTN_SRC_TFLITE_QUANTIZE_MULTIPLIER_H_

#include <stdint.h>

namespace edgeattn {

struct QuantizedMultiplier {
  int32_t multiplier;  // Q31 mantissa in [2^30, 2^31), or 0
  int32_t shift;       // real = multiplier * 2^(shift - 31)
};

// TFLite's QuantizeMultiplier: frexp, the mantissa times 2^31 rounded half
// away from zero (2^31 itself becomes 2^30 with the exponent one higher);
// multipliers below 2^-31 become 0; an infinite one, and (single-rounding
// builds, as TFLite's) any above 2^30, saturates at (2^31 - 1, 30). Shifts past
// a requantisation's range are refused by the plan's checks.
QuantizedMultiplier QuantizeMultiplier(double real);

// The int8 softmax's input scaling (TFLite's PreprocessSoftmaxScaling with 5
// integer bits and CalculateInputRadius): multiplier, left shift, diff_min.
struct SoftmaxS8Scaling {
  int32_t multiplier;
  int32_t left_shift;
  int32_t diff_min;
};
SoftmaxS8Scaling PrepareSoftmaxS8(double beta, double input_scale);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_TFLITE_QUANTIZE_MULTIPLIER_H_
