#include "fixed_point/s8_panels.h"

namespace edgeattn {
namespace {

template <class Element>
void Pack(int32_t n_cols, int32_t depth, int8_t* panels, Element element) {
  const int32_t groups = (depth + kS8GroupDepth - 1) / kS8GroupDepth;
  const int32_t n_panels = (n_cols + kS8PanelColumns - 1) / kS8PanelColumns;
  int8_t* out = panels;
  for (int32_t p = 0; p < n_panels; ++p) {
    for (int32_t g = 0; g < groups; ++g) {
      for (int32_t c = p * kS8PanelColumns; c < (p + 1) * kS8PanelColumns; ++c) {
        for (int32_t k = 0; k < kS8GroupDepth; ++k) {
          const int32_t t = g * kS8GroupDepth + k;
          *out++ = c < n_cols && t < depth ? element(c, t) : int8_t{0};
        }
      }
    }
  }
}

}  // namespace

void PackS8Panels(const int8_t* b, size_t ld, int32_t n_cols, int32_t depth, int8_t* panels,
                  int32_t* column_sums) {
  Pack(n_cols, depth, panels, [&](int32_t c, int32_t t) {
    return b[static_cast<size_t>(c) * ld + static_cast<size_t>(t)];
  });
  for (int32_t c = 0; c < n_cols; ++c) {
    uint32_t sum = 0;  // modulo 2^32, as every int8 accumulator
    for (int32_t t = 0; t < depth; ++t) {
      sum += static_cast<uint32_t>(b[static_cast<size_t>(c) * ld + static_cast<size_t>(t)]);
    }
    column_sums[c] = static_cast<int32_t>(sum);
  }
}

void PackS8PanelsTransposed(const int8_t* b, size_t ld, int32_t n_cols, int32_t depth,
                            int8_t* panels) {
  Pack(n_cols, depth, panels, [&](int32_t c, int32_t t) {
    return b[static_cast<size_t>(t) * ld + static_cast<size_t>(c)];
  });
}

}  // namespace edgeattn
