// The sinusoidal position table quantized once, at plan time, to its own
// scale and zero point with TFLite's QUANTIZE arithmetic (AffineQuantize:
// round(value / scale) half away from zero, plus the zero point, clamped;
// the division in float32; edgeattn::QuantizePositionValue, which the
// compile-time MakeQuantizedSinusoidalTable shares).
#ifndef EDGEATTN_SRC_POSITIONS_QUANTIZED_POSITION_TABLE_H_
#define EDGEATTN_SRC_POSITIONS_QUANTIZED_POSITION_TABLE_H_

#include <stdint.h>

#include "edgeattn/edgeattn.h"

namespace edgeattn {

void FillQuantizedSinusoidS8(int32_t n_positions, int32_t d_model, ea_quant quant, int8_t* table);
void FillQuantizedSinusoidS16(int32_t n_positions, int32_t d_model, ea_quant quant, int16_t* table);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_POSITIONS_QUANTIZED_POSITION_TABLE_H_
