#include "fixed_point/s16_panels.h"

#include "fixed_point/column_panels.h"

namespace edgeattn {
void PackS16Panels(const int16_t* b, size_t ld, int32_t n_cols, int32_t depth, int16_t* panels) {
  PackColumnPanels<kS16PanelColumns, kS16PairDepth>(b, ld, 1, n_cols, depth, panels);
}

void PackS16PanelsFromS8(const int8_t* b, size_t ld, int32_t n_cols, int32_t depth,
                         int16_t* panels) {
  PackColumnPanels<kS16PanelColumns, kS16PairDepth>(b, ld, 1, n_cols, depth, panels);
}

void PackS16PanelsTransposed(const int16_t* b, size_t ld, int32_t n_cols, int32_t depth,
                             int16_t* panels) {
  PackColumnPanels<kS16PanelColumns, kS16PairDepth>(b, 1, ld, n_cols, depth, panels);
}

}  // namespace edgeattn
