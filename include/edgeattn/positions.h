/* edgeattn absolute positions: X_final = X_emb + P, from a sinusoidal table
 * or the caller's learned one (rotary positions: edgeattn/rope.h). */
#ifndef EDGEATTN_POSITIONS_H_
#define EDGEATTN_POSITIONS_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The absolute positions a plan adds to x before its projections. */
typedef enum ea_position {
  EA_POSITION_NONE = 0,       /* attention alone: permutation equivariant */
  EA_POSITION_SINUSOIDAL = 1, /* PE(p,2i)=sin(p/10000^(2i/d)), PE(p,2i+1)=cos(same) */
  EA_POSITION_LEARNED = 2,    /* caller's [max_tokens, d_model] table */
  EA_POSITION_RANGE_MIN_ = EA_ENUM_RANGE_MIN_,
  EA_POSITION_RANGE_MAX_ = EA_ENUM_RANGE_MAX_
} ea_position;

/* Fills table [n_positions, d_model] with the sinusoidal encoding (computed in
 * double, rounded to float). No arena needed. */
ea_status ea_sinusoidal_table_fill(float* table, int32_t n_positions, int32_t d_model);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_POSITIONS_H_ */
