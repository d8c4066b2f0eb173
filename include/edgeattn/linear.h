/* edgeattn linear weights: how a model's weight matrices are given (row-major
 * or packed ahead of time), and the packing itself. */
#ifndef EDGEATTN_LINEAR_H_
#define EDGEATTN_LINEAR_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a model plan's weight matrices W [out, in] are given. */
typedef enum ea_weights_layout {
  /* Row-major, as PyTorch and TFLite store them. init packs them into
   * the arena (their share of the arena formula), so a plan does not see
   * later changes to them: plan again. */
  EA_WEIGHTS_ROW_MAJOR = 0,
  /* Already packed by ea_linear_pack_weights (offline, or at start-up), e.g.
   * constant data in flash: the plan reads them in place, no arena for them. */
  EA_WEIGHTS_PACKED = 1,
  EA_WEIGHTS_RANGE_MIN_ = EA_ENUM_RANGE_MIN_,
  EA_WEIGHTS_RANGE_MAX_ = EA_ENUM_RANGE_MAX_
} ea_weights_layout;

/* The layout the projection kernel streams: W [n_out, n_in] transposed in
 * panels of 64 output rows, n_in x 64 floats each, the last panel padded with
 * zeros. *floats = n_in * roundup(n_out, 64). */
ea_status ea_linear_packed_size(int32_t n_out, int32_t n_in, size_t* floats);
/* Packs row-major w [n_out, n_in] into packed, which holds packed_floats
 * floats (at least ea_linear_packed_size's) and does not overlap w. Any
 * alignment works; 64 bytes is fastest. */
ea_status ea_linear_pack_weights(const float* w, int32_t n_out, int32_t n_in, float* packed,
                                 size_t packed_floats);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_LINEAR_H_ */
