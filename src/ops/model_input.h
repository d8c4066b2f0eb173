// The input side of self-attention and MHA: X' = X + P (when a position table
// is configured), and the packed weights of the projections. Shared by both
// operations.
#ifndef EDGEATTN_SRC_OPS_MODEL_INPUT_H_
#define EDGEATTN_SRC_OPS_MODEL_INPUT_H_

#include <stdint.h>

#include "edgeattn/edgeattn.h"

namespace edgeattn {

// Token count, model width, position kind and table of an operation.
ea_status ValidateModelInput(int32_t max_tokens, int32_t d_model, ea_position position,
                             const float* table);

// Carves the position table (sinusoidal without a caller table: filled now)
// and the X + P buffer. Outputs NULL where no region is needed.
void CarvePositions(ea_position position, const float* caller_table, int32_t max_tokens,
                    int32_t d_model, ea_arena* arena, const float** table, float** x_positioned);

// The rows the projections read: x itself, or x + table written to
// x_positioned.
const float* PositionedInput(const float* x, const float* table, float* x_positioned,
                             int32_t n_tokens, int32_t d_model);

// The packed copy of a weight matrix W [n_out, d_model] the projections
// read: the caller's (EA_WEIGHTS_PACKED), or one carved from the arena and
// packed now (EA_WEIGHTS_ROW_MAJOR).
const float* ResolvePackedWeights(const float* w, int32_t n_out, int32_t d_model,
                                  ea_weights_layout layout, ea_arena* arena);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_OPS_MODEL_INPUT_H_
