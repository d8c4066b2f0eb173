#include "fixed_point/s8_panels.h"

#include "fixed_point/column_panels.h"

namespace edgeattn {
namespace {

template <class Element>
void Pack(int32_t n_cols, int32_t depth, int8_t* panels, Element element) {
  PackColumnPanels<kS8PanelColumns, kS8GroupDepth>(n_cols, depth, panels, element);
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
