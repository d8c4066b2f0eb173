// C entry points of fixed-point ADD (ea_add_quant_derive, ea_add_quant_run_s8 /
// _s16): TFLite's Prepare and the element-wise kernel the position ADD of
// the fixed-point plans runs, for the residual connections of a model.
#include <stddef.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"
#include "kernels/int/add_int.h"
#include "ops/elementwise_run.h"
#include "tflite/mha_quant_params.h"

extern "C" {

ea_status ea_add_quant_derive(ea_dtype dtype, ea_quant a, ea_quant b, ea_quant out,
                              ea_add_quant_params* params) {
  return edgeattn::DeriveElementwise(dtype, a, b, out, params, edgeattn::DeriveAdd,
                                     edgeattn::CheckAdd);
}

ea_status ea_add_quant_run_s8(const int8_t* a, const int8_t* b, size_t count,
                              const ea_add_quant_params* params, int8_t* out) {
  return edgeattn::RunElementwise(EA_DTYPE_INT8, a, b, count, params, out, edgeattn::CheckAdd,
                                  edgeattn::AddS8);
}

ea_status ea_add_quant_run_s16(const int16_t* a, const int16_t* b, size_t count,
                               const ea_add_quant_params* params, int16_t* out) {
  return edgeattn::RunElementwise(EA_DTYPE_INT16, a, b, count, params, out, edgeattn::CheckAdd,
                                  edgeattn::AddS16);
}

}  // extern "C"
