// TFLite's Prepare for MUL (CalculateOpDataMul) and the ranges its integers
// must lie in before a run uses them, derived or given.
#ifndef EDGEATTN_SRC_TFLITE_MUL_QUANT_PARAMS_H_
#define EDGEATTN_SRC_TFLITE_MUL_QUANT_PARAMS_H_

#include "edgeattn/edgeattn.h"

namespace edgeattn {

// (double)s_a * (double)s_b / (double)s_out through QuantizeMultiplier; the
// offsets -zero_point (inputs) and zero_point (output). Scales and zero
// points already valid (IsValidQuant).
ea_mul_quant_params DeriveMul(ea_quant a, ea_quant b, ea_quant out);

// EA_ERR_BAD_ARGUMENT outside quant.h's ranges: multiplier >= 0, shift in
// [-31, 30], int8 input offsets in [-127, 128] and output offset in
// [-128, 127], int16 offsets 0.
ea_status CheckMul(ea_dtype dtype, const ea_mul_quant_params& params);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_TFLITE_MUL_QUANT_PARAMS_H_
