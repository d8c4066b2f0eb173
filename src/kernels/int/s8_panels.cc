#include "kernels/int/s8_panels.h"

#include <string.h>

#include "kernels/int/column_panels.h"

namespace edgeattn {
namespace {

// sum_t row[t] for t < depth, modulo 2^32. Eight bytes at a time, read as
// unsigned (b + 128) into four 16-bit lanes, which 128 words cannot overflow
// (128 * 2 * 255 < 2^16): a third of the scalar loop's instructions, on
// every target.
uint32_t SumOfBytes(const int8_t* row, int32_t depth) {
  constexpr uint64_t kSignBits = 0x8080808080808080u;
  constexpr uint64_t kEvenBytes = 0x00FF00FF00FF00FFu;
  uint32_t sum = 0;
  int32_t t = 0;
  while (depth - t >= 8) {
    uint64_t lanes = 0;
    int32_t words = 0;
    for (; words < 128 && depth - t >= 8; ++words, t += 8) {
      uint64_t word;
      memcpy(&word, row + t, sizeof word);
      word ^= kSignBits;
      lanes += (word & kEvenBytes) + ((word >> 8) & kEvenBytes);
    }
    const uint64_t lane_sum =
        (lanes & 0xFFFF) + ((lanes >> 16) & 0xFFFF) + ((lanes >> 32) & 0xFFFF) + (lanes >> 48);
    sum += static_cast<uint32_t>(lane_sum) - 128u * 8u * static_cast<uint32_t>(words);
  }
  for (; t < depth; ++t) sum += static_cast<uint32_t>(row[t]);
  return sum;
}

}  // namespace

void PackS8Panels(const int8_t* b, size_t ld, int32_t n_cols, int32_t depth, int8_t* panels,
                  int32_t* column_sums) {
  PackColumnPanels<kS8PanelColumns, kS8GroupDepth>(b, ld, 1, n_cols, depth, panels);
  for (int32_t c = 0; c < n_cols; ++c) {
    column_sums[c] = static_cast<int32_t>(SumOfBytes(b + static_cast<size_t>(c) * ld, depth));
  }
}

void PackS8PanelsPlus128(const int8_t* b, size_t ld, int32_t n_cols, int32_t depth, uint8_t* panels,
                         int32_t* column_sums) {
  int8_t* signed_panels = reinterpret_cast<int8_t*>(panels);
  PackS8Panels(b, ld, n_cols, depth, signed_panels, column_sums);
  const size_t bytes = S8PanelBytes(n_cols, depth);  // a whole number of 64-byte groups
  for (size_t i = 0; i < bytes; i += 8) {
    uint64_t word;
    memcpy(&word, panels + i, sizeof word);
    word ^= 0x8080808080808080u;
    memcpy(panels + i, &word, sizeof word);
  }
}

void PackS8PanelsTransposed(const int8_t* b, size_t ld, int32_t n_cols, int32_t depth,
                            int8_t* panels) {
  PackColumnPanels<kS8PanelColumns, kS8GroupDepth>(b, 1, ld, n_cols, depth, panels);
}

void StoreS8PanelColumnPlus128(const int8_t* column, int32_t depth, int32_t c, uint8_t* panels,
                               int32_t* column_sums) {
  StorePanelColumn<kS8PanelColumns, kS8GroupDepth>(
      column, depth, c, panels, uint8_t{0x80},
      [](int8_t value) { return static_cast<uint8_t>(static_cast<uint8_t>(value) ^ 0x80u); });
  column_sums[c] = static_cast<int32_t>(SumOfBytes(column, depth));
}

void StoreS8PanelDepthRow(const int8_t* row, int32_t n_cols, int32_t t, int32_t packed_depth,
                          int8_t* panels) {
  StorePanelDepthRow<kS8PanelColumns, kS8GroupDepth>(row, n_cols, t, packed_depth, panels);
}

}  // namespace edgeattn
