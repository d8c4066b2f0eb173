// The one packing loop behind s8_panels and s16_panels: B [n_cols, depth] as
// panels of kColumns columns, each a run of groups of kGroup consecutive depth
// values per column (zero-padded past n_cols and depth), so that one group of
// all the panel's columns is one vector of the dot-product instruction.
#ifndef EDGEATTN_SRC_FIXED_POINT_COLUMN_PANELS_H_
#define EDGEATTN_SRC_FIXED_POINT_COLUMN_PANELS_H_

#include <stdint.h>

namespace edgeattn {

// element(c, t) gives B[c][t] for c < n_cols, t < depth.
template <int32_t kColumns, int32_t kGroup, typename T, class Element>
void PackColumnPanels(int32_t n_cols, int32_t depth, T* panels, Element element) {
  const int32_t groups = (depth + kGroup - 1) / kGroup;
  const int32_t n_panels = (n_cols + kColumns - 1) / kColumns;
  T* out = panels;
  for (int32_t p = 0; p < n_panels; ++p) {
    for (int32_t g = 0; g < groups; ++g) {
      for (int32_t c = p * kColumns; c < (p + 1) * kColumns; ++c) {
        for (int32_t k = 0; k < kGroup; ++k) {
          const int32_t t = g * kGroup + k;
          *out++ = c < n_cols && t < depth ? element(c, t) : T{0};
        }
      }
    }
  }
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_FIXED_POINT_COLUMN_PANELS_H_
