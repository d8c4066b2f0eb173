#include "transposed_panels.h"

#include "edgeattn/packed_weights.hpp"

namespace edgeattn {

void PackTransposedPanels(const float* rows, size_t ld_rows, int32_t n_rows, int32_t n_cols,
                          float* packed) {
  PackPanels(rows, ld_rows, n_rows, n_cols, packed);
}

}  // namespace edgeattn
