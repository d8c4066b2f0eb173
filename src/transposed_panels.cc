#include "transposed_panels.h"

#include "edgeattn/arena_sizes.hpp"

namespace edgeattn {

void PackTransposedPanels(const float* rows, size_t ld_rows, int32_t n_rows, int32_t n_cols,
                          float* packed) {
  const int32_t panels = PanelCount(n_rows);
  for (int32_t p = 0; p < panels; ++p) {
    float* panel = Panel(packed, n_cols, p);
    for (int32_t c = 0; c < kKeyBlock; ++c) {
      const int32_t row = p * kKeyBlock + c;
      if (row < n_rows) {
        const float* source = rows + static_cast<size_t>(row) * ld_rows;
        for (int32_t t = 0; t < n_cols; ++t)
          panel[static_cast<size_t>(t) * kKeyBlock + c] = source[t];
      } else {
        for (int32_t t = 0; t < n_cols; ++t) panel[static_cast<size_t>(t) * kKeyBlock + c] = 0.0f;
      }
    }
  }
}

}  // namespace edgeattn
