// The shell of the element-wise entry points (ADD, MUL), in one place.
// derive: the dtype, the three quantizations, then the op's Prepare, whose
// integers must land in the op's ranges. run: NULL pointers, the count, the
// integers' ranges, then out equal to an input or apart from both (element
// i is read before it is written, so out may be a or b; a partial overlap
// would read values already overwritten). The headers give the rules, not
// an order among them. On any refusal *params / out is not written.
#ifndef EDGEATTN_SRC_OPS_ELEMENTWISE_RUN_H_
#define EDGEATTN_SRC_OPS_ELEMENTWISE_RUN_H_

#include <stddef.h>

#include "edgeattn/edgeattn.h"
#include "runtime/validation.h"
#include "tflite/mha_quant_params.h"

namespace edgeattn {

inline bool AliasesOrApart(const void* out, const void* in, size_t bytes) {
  return out == in || !Overlaps(out, bytes, in, bytes);
}

// prepare(dtype, a, b, out) is the op's Prepare, check(dtype, params) its
// range check.
template <typename Params>
ea_status DeriveElementwise(ea_dtype dtype, ea_quant a, ea_quant b, ea_quant out, Params* params,
                            Params (*prepare)(ea_dtype, ea_quant, ea_quant, ea_quant),
                            ea_status (*check)(ea_dtype, const Params&)) {
  if (params == nullptr) return EA_ERR_NULL_POINTER;
  if (dtype != EA_DTYPE_INT8 && dtype != EA_DTYPE_INT16) return EA_ERR_BAD_ARGUMENT;
  if (!IsValidQuant(dtype, a) || !IsValidQuant(dtype, b) || !IsValidQuant(dtype, out)) {
    return EA_ERR_BAD_ARGUMENT;
  }
  const Params derived = prepare(dtype, a, b, out);
  if (check(dtype, derived) != EA_OK) return EA_ERR_BAD_ARGUMENT;
  *params = derived;
  return EA_OK;
}

// check(dtype, params) is the op's range check; kernel(a, b, params, out,
// count) its kernel for T.
template <typename T, typename Params>
ea_status RunElementwise(ea_dtype dtype, const T* a, const T* b, size_t count, const Params* params,
                         T* out, ea_status (*check)(ea_dtype, const Params&),
                         void (*kernel)(const T*, const T*, const Params&, T*, size_t)) {
  if (a == nullptr || b == nullptr || params == nullptr || out == nullptr) {
    return EA_ERR_NULL_POINTER;
  }
  if (count == 0) return EA_ERR_BAD_DIMENSION;
  if (count > static_cast<size_t>(EA_MAX_ELEMENTS)) return EA_ERR_DIMENSION_OVERFLOW;
  if (check(dtype, *params) != EA_OK) return EA_ERR_BAD_ARGUMENT;
  const size_t bytes = count * sizeof(T);
  if (!AliasesOrApart(out, a, bytes) || !AliasesOrApart(out, b, bytes)) return EA_ERR_BAD_ARGUMENT;
  kernel(a, b, *params, out, count);
  return EA_OK;
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_OPS_ELEMENTWISE_RUN_H_
