// C entry points of fixed-point MUL (ea_mul_quant_derive, ea_mul_quant_run_s8 /
// _s16): TFLite's Prepare and the element-wise product of a quantized model
// (RoPE's rotations, gates).
#include <stddef.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"
#include "kernels/int/mul_int.h"
#include "ops/elementwise_run.h"
#include "tflite/mha_quant_params.h"
#include "tflite/mul_quant_params.h"

extern "C" {

ea_status ea_mul_quant_derive(ea_dtype dtype, ea_quant a, ea_quant b, ea_quant out,
                              ea_mul_quant_params* params) {
  // MUL's Prepare is the same for both dtypes.
  const auto prepare = [](ea_dtype, ea_quant x, ea_quant y, ea_quant z) {
    return edgeattn::DeriveMul(x, y, z);
  };
  return edgeattn::DeriveElementwise<ea_mul_quant_params>(dtype, a, b, out, params, prepare,
                                                          edgeattn::CheckMul);
}

ea_status ea_mul_quant_run_s8(const int8_t* a, const int8_t* b, size_t count,
                              const ea_mul_quant_params* params, int8_t* out) {
  return edgeattn::RunElementwise(EA_DTYPE_INT8, a, b, count, params, out, edgeattn::CheckMul,
                                  edgeattn::MulS8);
}

ea_status ea_mul_quant_run_s16(const int16_t* a, const int16_t* b, size_t count,
                               const ea_mul_quant_params* params, int16_t* out) {
  return edgeattn::RunElementwise(EA_DTYPE_INT16, a, b, count, params, out, edgeattn::CheckMul,
                                  edgeattn::MulS16);
}

}  // extern "C"
