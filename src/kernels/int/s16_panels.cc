#include "kernels/int/s16_panels.h"

#include "edgeattn/arena_sizes.hpp"
#include "kernels/int/column_panels.h"
#include "kernels/int/s8_panels.h"

namespace edgeattn {
void PackS16Panels(const int16_t* b, size_t ld, int32_t n_cols, int32_t depth, int16_t* panels) {
  PackColumnPanels<kS16PanelColumns, kS16PairDepth>(b, ld, 1, n_cols, depth, panels);
}

uint8_t* S16KeyHighBytes(void* region, int32_t n_kv, int32_t d_k) {
  return static_cast<uint8_t*>(region) + S16PanelRegionBytes(n_kv, d_k);
}

void PackS16HighBytesPlus128(const int16_t* b, size_t ld, int32_t n_cols, int32_t depth,
                             uint8_t* panels) {
  PackColumnPanels<kS8PanelColumns, kS8GroupDepth>(
      b, ld, 1, n_cols, depth, panels,
      [](int16_t value) { return static_cast<uint8_t>((value >> 8) + 128); });
}

void PackS16PanelsTransposed(const int16_t* b, size_t ld, int32_t n_cols, int32_t depth,
                             int16_t* panels) {
  PackColumnPanels<kS16PanelColumns, kS16PairDepth>(b, 1, ld, n_cols, depth, panels);
}

void StoreS16PanelColumn(const int16_t* column, int32_t depth, int32_t c, int16_t* panels) {
  StorePanelColumn<kS16PanelColumns, kS16PairDepth>(column, depth, c, panels);
}

void StoreS16HighBytesColumnPlus128(const int16_t* column, int32_t depth, int32_t c,
                                    uint8_t* panels) {
  StorePanelColumn<kS8PanelColumns, kS8GroupDepth>(
      column, depth, c, panels, uint8_t{0},
      [](int16_t value) { return static_cast<uint8_t>((value >> 8) + 128); });
}

void StoreS16PanelDepthRow(const int16_t* row, int32_t n_cols, int32_t t, int32_t packed_depth,
                           int16_t* panels) {
  StorePanelDepthRow<kS16PanelColumns, kS16PairDepth>(row, n_cols, t, packed_depth, panels);
}

}  // namespace edgeattn
