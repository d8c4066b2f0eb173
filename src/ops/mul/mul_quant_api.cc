// C entry points of fixed-point MUL (ea_mul_quant_derive, ea_mul_quant_run_s8 /
// _s16): TFLite's Prepare and the element-wise product of a quantized model
// (RoPE's rotations, gates).
#include <stddef.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"
#include "kernels/int/mul_int.h"
#include "runtime/validation.h"
#include "tflite/mha_quant_params.h"
#include "tflite/mul_quant_params.h"

namespace edgeattn {
namespace {

void Mul(const int8_t* a, const int8_t* b, const ea_mul_quant_params& p, int8_t* out,
         size_t count) {
  MulS8(a, b, p, out, count);
}
void Mul(const int16_t* a, const int16_t* b, const ea_mul_quant_params& p, int16_t* out,
         size_t count) {
  MulS16(a, b, p, out, count);
}

// Element i is read before it is written, so out may be an input; a partial
// overlap would read values already overwritten.
bool AliasesOrApart(const void* out, const void* in, size_t bytes) {
  return out == in || !Overlaps(out, bytes, in, bytes);
}

template <typename T>
ea_status CheckedMul(ea_dtype dtype, const T* a, const T* b, size_t count,
                     const ea_mul_quant_params* params, T* out) {
  if (a == nullptr || b == nullptr || params == nullptr || out == nullptr) {
    return EA_ERR_NULL_POINTER;
  }
  if (count == 0) return EA_ERR_BAD_DIMENSION;
  if (count > static_cast<size_t>(EA_MAX_ELEMENTS)) return EA_ERR_DIMENSION_OVERFLOW;
  if (CheckMul(dtype, *params) != EA_OK) return EA_ERR_BAD_ARGUMENT;
  const size_t bytes = count * sizeof(T);
  if (!AliasesOrApart(out, a, bytes) || !AliasesOrApart(out, b, bytes)) return EA_ERR_BAD_ARGUMENT;
  Mul(a, b, *params, out, count);
  return EA_OK;
}

}  // namespace
}  // namespace edgeattn

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
  return edgeattn::CheckedMul(EA_DTYPE_INT8, a, b, count, params, out);
}

ea_status ea_mul_quant_run_s16(const int16_t* a, const int16_t* b, size_t count,
                               const ea_mul_quant_params* params, int16_t* out) {
  return edgeattn::CheckedMul(EA_DTYPE_INT16, a, b, count, params, out);
}

}  // extern "C"
