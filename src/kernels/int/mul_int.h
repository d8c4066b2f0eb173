// TFLite's integer MUL (no activation): reference_integer_ops::Mul's
// MulElementwise, int8 and int16 alike: (a + offset1) * (b + offset2) in
// int32, MultiplyByQuantizedMultiplier (tflite/requantize.h: a left shift
// saturates where TFLite's int32 would overflow), + output offset, clamp.
#ifndef EDGEATTN_SRC_KERNELS_INT_MUL_INT_H_
#define EDGEATTN_SRC_KERNELS_INT_MUL_INT_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"

namespace edgeattn {

void MulS8(const int8_t* a, const int8_t* b, const ea_mul_quant_params& params, int8_t* out,
           size_t count);
void MulS16(const int16_t* a, const int16_t* b, const ea_mul_quant_params& params, int16_t* out,
            size_t count);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_MUL_INT_H_
