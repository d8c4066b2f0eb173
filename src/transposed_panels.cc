#include "transposed_panels.h"

#include "edgeattn/arena_sizes.hpp"

namespace edgeattn {

void PackTransposedPanels(const float* rows, size_t ld_rows, int32_t n_rows, int32_t n_cols,
                          float* packed) {
  const int32_t panels = PanelCount(n_rows);
  for (int32_t p = 0; p < panels; ++p) {
    float* panel = Panel(packed, n_cols, p);
    const int32_t first = p * kKeyBlock;
    const int32_t count = n_rows - first < kKeyBlock ? n_rows - first : kKeyBlock;
    const float* source = rows + static_cast<size_t>(first) * ld_rows;
    // Column by column: the writes are contiguous, the reads stride over at
    // most 64 rows, which stay in L1.
    for (int32_t t = 0; t < n_cols; ++t) {
      float* out = panel + static_cast<size_t>(t) * kKeyBlock;
      for (int32_t c = 0; c < count; ++c) out[c] = source[static_cast<size_t>(c) * ld_rows + t];
      for (int32_t c = count; c < kKeyBlock; ++c) out[c] = 0.0f;
    }
  }
}

}  // namespace edgeattn
