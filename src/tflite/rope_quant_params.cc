#include "tflite/rope_quant_params.h"

#include <initializer_list>

#include "tflite/mha_quant_params.h"
#include "tflite/mul_quant_params.h"

namespace edgeattn {

ea_status DeriveRope(ea_dtype dtype, const ea_rope_quant_scales& s, ea_rope_quant_params* params) {
  if (dtype != EA_DTYPE_INT8 && dtype != EA_DTYPE_INT16) return EA_ERR_BAD_ARGUMENT;
  for (const ea_quant& q :
       {s.x, s.cos_table, s.sin_table, s.cos_product, s.sin_product, s.rotated}) {
    if (!IsValidQuant(dtype, q)) return EA_ERR_BAD_ARGUMENT;
  }
  ea_rope_quant_params p{};
  p.cos = DeriveMul(s.x, s.cos_table, s.cos_product);
  p.sin = DeriveMul(s.x, s.sin_table, s.sin_product);
  p.add = DeriveAdd(dtype, s.cos_product, s.sin_product, s.rotated);
  if (CheckRope(dtype, p) != EA_OK) return EA_ERR_BAD_ARGUMENT;
  *params = p;
  return EA_OK;
}

ea_status CheckRope(ea_dtype dtype, const ea_rope_quant_params& p) {
  const bool ok = CheckMul(dtype, p.cos) == EA_OK && CheckMul(dtype, p.sin) == EA_OK &&
                  CheckAdd(dtype, p.add) == EA_OK;
  return ok ? EA_OK : EA_ERR_BAD_ARGUMENT;
}

}  // namespace edgeattn
