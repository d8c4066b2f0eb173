// TFLite's integer ADD (no activation) for the positional encoding,
// x = ADD(x_emb, P): both inputs rescaled to a common 2^left_shift-finer
// grid, summed, requantised to the output. int8 is
// reference_integer_ops::Add, int16 the general-scale path TFLite Micro takes
// (AddElementwise<int16_t>); the arithmetic is the same.
#ifndef EDGEATTN_SRC_KERNELS_INT_ADD_INT_H_
#define EDGEATTN_SRC_KERNELS_INT_ADD_INT_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"

namespace edgeattn {

void AddS8(const int8_t* a, const int8_t* b, const ea_add_quant_params& params, int8_t* out,
           size_t count);
void AddS16(const int16_t* a, const int16_t* b, const ea_add_quant_params& params, int16_t* out,
            size_t count);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_ADD_INT_H_
