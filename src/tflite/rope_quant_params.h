// TFLite's Prepare of fixed-point RoPE's graph (MUL, MUL, ADD) and the
// ranges its integers must lie in, for ea_rope_quant_* and the decoder.
#ifndef EDGEATTN_SRC_TFLITE_ROPE_QUANT_PARAMS_H_
#define EDGEATTN_SRC_TFLITE_ROPE_QUANT_PARAMS_H_

#include "edgeattn/edgeattn.h"

namespace edgeattn {

// EA_ERR_BAD_ARGUMENT for a dtype that is not fixed point, a scale or zero
// point out of rule, or integers outside MUL's and ADD's ranges; *params
// written only on EA_OK.
ea_status DeriveRope(ea_dtype dtype, const ea_rope_quant_scales& scales,
                     ea_rope_quant_params* params);

// EA_ERR_BAD_ARGUMENT outside MUL's and ADD's ranges for the dtype.
ea_status CheckRope(ea_dtype dtype, const ea_rope_quant_params& params);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_TFLITE_ROPE_QUANT_PARAMS_H_
