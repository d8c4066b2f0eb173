// A row-major matrix's rows packed as transposed panels of kKeyBlock (64)
// rows: the layout the register-grid micro-kernels stream as their right
// operand. The rows are the keys of K (kernels/f32/score_tile-inl.h) or the output rows of
// a weight matrix W [out, in] (kernels/f32/linear_f32-inl.h). Panel p holds rows
// p*64 .. p*64+63 as n_cols rows of 64 floats, so a kernel loads whole vectors
// of consecutive rows for one column t. Rows past n_rows are zero.
// Keys are packed once per call (O(n_kv * d_k)), weights once per plan or
// ahead of time (ea_linear_pack_weights, edgeattn::PackLinearWeights), never
// per tile. The packing itself is edgeattn/packed_weights.hpp's PackPanels.
#ifndef EDGEATTN_SRC_KERNELS_F32_TRANSPOSED_PANELS_H_
#define EDGEATTN_SRC_KERNELS_F32_TRANSPOSED_PANELS_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/arena_sizes.hpp"

namespace edgeattn {

// Writes n_cols * RoundUp(n_rows, kKeyBlock) floats to packed.
void PackTransposedPanels(const float* rows, size_t ld_rows, int32_t n_rows, int32_t n_cols,
                          float* packed);

// Panels that hold n_rows rows.
inline int32_t PanelCount(int32_t n_rows) { return (n_rows + kKeyBlock - 1) / kKeyBlock; }

// Start of panel `panel` of a packed matrix with n_cols columns.
inline const float* Panel(const float* packed, int32_t n_cols, int32_t panel) {
  return packed + static_cast<size_t>(panel) * static_cast<size_t>(n_cols) * kKeyBlock;
}
inline float* Panel(float* packed, int32_t n_cols, int32_t panel) {
  return packed + static_cast<size_t>(panel) * static_cast<size_t>(n_cols) * kKeyBlock;
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_F32_TRANSPOSED_PANELS_H_
