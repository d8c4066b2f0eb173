#include "fixed_point/s16_panels.h"

#include "fixed_point/column_panels.h"

namespace edgeattn {
namespace {

template <class Element>
void Pack(int32_t n_cols, int32_t depth, int16_t* panels, Element element) {
  PackColumnPanels<kS16PanelColumns, kS16PairDepth>(n_cols, depth, panels, element);
}

}  // namespace

void PackS16Panels(const int16_t* b, size_t ld, int32_t n_cols, int32_t depth, int16_t* panels) {
  Pack(n_cols, depth, panels, [&](int32_t c, int32_t t) {
    return b[static_cast<size_t>(c) * ld + static_cast<size_t>(t)];
  });
}

void PackS16PanelsFromS8(const int8_t* b, size_t ld, int32_t n_cols, int32_t depth,
                         int16_t* panels) {
  Pack(n_cols, depth, panels, [&](int32_t c, int32_t t) {
    return static_cast<int16_t>(b[static_cast<size_t>(c) * ld + static_cast<size_t>(t)]);
  });
}

void PackS16PanelsTransposed(const int16_t* b, size_t ld, int32_t n_cols, int32_t depth,
                             int16_t* panels) {
  Pack(n_cols, depth, panels, [&](int32_t c, int32_t t) {
    return b[static_cast<size_t>(t) * ld + static_cast<size_t>(c)];
  });
}

}  // namespace edgeattn
