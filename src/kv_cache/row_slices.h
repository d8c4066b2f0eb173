// Column slices of a row-major matrix copied into rows of their own: the
// projections write Q, K and V side by side in one row per token, and the
// KV cache and RoPE take each as rows of heads.
#ifndef EDGEATTN_SRC_KV_CACHE_ROW_SLICES_H_
#define EDGEATTN_SRC_KV_CACHE_ROW_SLICES_H_

#include <stddef.h>
#include <string.h>

namespace edgeattn {

// out[r][0, cols) = in[r * ld_in + first, ... + cols) for r < rows.
inline void CopyColumns(const float* in, size_t ld_in, size_t first, size_t cols, size_t rows,
                        float* out) {
  for (size_t r = 0; r < rows; ++r) {
    memcpy(out + r * cols, in + r * ld_in + first, cols * sizeof(float));
  }
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KV_CACHE_ROW_SLICES_H_
