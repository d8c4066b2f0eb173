// Fixed-point RoPE as a quantized model's graph computes it:
// y = ADD(MUL(x, C), MUL(swap(x), S)) per head, on TFLite's MUL and ADD
// kernels (mul_int.h, add_int.h), so the integers are theirs. A pair's two
// outputs depend on its two inputs only, so the head is rotated in place a
// block of pairs at a time, gathered into small stack buffers (no arena).
#ifndef EDGEATTN_SRC_KERNELS_INT_ROPE_INT_H_
#define EDGEATTN_SRC_KERNELS_INT_ROPE_INT_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"

namespace edgeattn {

// x [n_tokens, n_heads * d_head] in place; row t reads row t of the tables
// (the caller offsets them to the first position). Arguments validated.
void RopeS8(int8_t* x, int32_t n_tokens, int32_t n_heads, int32_t d_head, const int8_t* cos_rows,
            const int8_t* sin_rows, ea_rope_layout layout, const ea_rope_quant_params& params);
void RopeS16(int16_t* x, int32_t n_tokens, int32_t n_heads, int32_t d_head, const int16_t* cos_rows,
             const int16_t* sin_rows, ea_rope_layout layout, const ea_rope_quant_params& params);

// The same, by the activations' type.
inline void RopeRows(int8_t* x, int32_t n_tokens, int32_t n_heads, int32_t d_head,
                     const int8_t* cos_rows, const int8_t* sin_rows, ea_rope_layout layout,
                     const ea_rope_quant_params& params) {
  RopeS8(x, n_tokens, n_heads, d_head, cos_rows, sin_rows, layout, params);
}
inline void RopeRows(int16_t* x, int32_t n_tokens, int32_t n_heads, int32_t d_head,
                     const int16_t* cos_rows, const int16_t* sin_rows, ea_rope_layout layout,
                     const ea_rope_quant_params& params) {
  RopeS16(x, n_tokens, n_heads, d_head, cos_rows, sin_rows, layout, params);
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_ROPE_INT_H_
