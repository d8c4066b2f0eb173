// The shape rules ea_rope_apply and the fixed-point ea_rope_quant_apply_*
// share (edgeattn/rope.h), in the order their statuses are given: the
// dimensions, the rows' positions inside the table, the layout, then the
// element counts.
#ifndef EDGEATTN_SRC_POSITIONS_ROPE_RULES_H_
#define EDGEATTN_SRC_POSITIONS_ROPE_RULES_H_

#include <stdint.h>

#include "edgeattn/rope.h"
#include "runtime/validation.h"

namespace edgeattn {

inline ea_status CheckRopeShape(int32_t n_tokens, int32_t n_heads, int32_t d_head,
                                int64_t first_position, int32_t table_positions,
                                ea_rope_layout layout) {
  if (n_tokens <= 0 || n_heads <= 0 || d_head <= 0 || d_head % 2 != 0 || table_positions <= 0) {
    return EA_ERR_BAD_DIMENSION;
  }
  if (first_position < 0 || first_position > int64_t{table_positions} - n_tokens) {
    return EA_ERR_BAD_DIMENSION;
  }
  if (layout != EA_ROPE_HALF && layout != EA_ROPE_INTERLEAVED) return EA_ERR_BAD_ARGUMENT;
  if (CheckElements(n_tokens, int64_t{n_heads} * d_head) != EA_OK ||
      CheckElements(table_positions, d_head) != EA_OK) {
    return EA_ERR_DIMENSION_OVERFLOW;
  }
  return EA_OK;
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_POSITIONS_ROPE_RULES_H_
