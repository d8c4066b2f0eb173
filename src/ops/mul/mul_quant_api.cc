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
  if (params == nullptr) return EA_ERR_NULL_POINTER;
  if (dtype != EA_DTYPE_INT8 && dtype != EA_DTYPE_INT16) return EA_ERR_BAD_ARGUMENT;
  if (!edgeattn::IsValidQuant(dtype, a) || !edgeattn::IsValidQuant(dtype, b) ||
      !edgeattn::IsValidQuant(dtype, out)) {
    return EA_ERR_BAD_ARGUMENT;
  }
  const ea_mul_quant_params derived = edgeattn::DeriveMul(a, b, out);
  if (edgeattn::CheckMul(dtype, derived) != EA_OK) return EA_ERR_BAD_ARGUMENT;
  *params = derived;
  return EA_OK;
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
