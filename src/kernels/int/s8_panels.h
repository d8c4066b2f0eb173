// The packed int8 layout of the dot-product kernels' right-hand operand
// (VNNI's vpdpbusd, Arm's SDOT): B [n_cols, depth] cut into panels of 16
// columns, each panel depth / 4 groups of 16 columns x 4 consecutive depth
// bytes, zero-padded. One group is one 512-bit vector: lane c holds column
// c's 4 bytes, so a broadcast of 4 bytes of A and one instruction add 64
// products into 16 column accumulators, with no horizontal sums.
//
// Scalar and target independent: packed weights made at plan time on one
// target are valid on every other.
#ifndef EDGEATTN_SRC_KERNELS_INT_S8_PANELS_H_
#define EDGEATTN_SRC_KERNELS_INT_S8_PANELS_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/arena_sizes.hpp"

namespace edgeattn {

inline constexpr int32_t kS8PanelColumns = 16;
inline constexpr int32_t kS8GroupDepth = 4;

// Bytes of B [n_cols, depth] packed.
constexpr size_t S8PanelBytes(int32_t n_cols, int32_t depth) {
  return static_cast<size_t>((n_cols + kS8PanelColumns - 1) / kS8PanelColumns) *
         static_cast<size_t>((depth + kS8GroupDepth - 1) / kS8GroupDepth) *
         (kS8PanelColumns * kS8GroupDepth);
}

// The column sums of a packed matrix, stored after its panels in one
// S8PanelRegionBytes(n_cols, depth) region (arena_sizes.hpp).
inline int32_t* S8PanelColumnSums(void* region, int32_t n_cols, int32_t depth) {
  return static_cast<int32_t*>(static_cast<void*>(
      static_cast<uint8_t*>(region) + ByteRegionBytes(RoundUp(static_cast<uint64_t>(n_cols), 16) *
                                                      RoundUp(static_cast<uint64_t>(depth), 4))));
}

inline const int32_t* S8PanelColumnSumsOf(const void* region, int32_t n_cols, int32_t depth) {
  return S8PanelColumnSums(const_cast<void*>(region), n_cols, depth);
}

// Packs B[c][t] = b[c * ld + t] (rows are columns of the product: K, W) and
// writes column_sums[c] = sum_t B[c][t] for c < n_cols.
void PackS8Panels(const int8_t* b, size_t ld, int32_t n_cols, int32_t depth, int8_t* panels,
                  int32_t* column_sums);

// The same, but the panels hold B[c][t] + 128 as uint8 (B[c][t] ^ 0x80): the
// unsigned operand of VNNI's vpdpbusd, so that signed int8 rows of A can be
// its signed operand, broadcast from memory, with no flip per broadcast.
void PackS8PanelsPlus128(const int8_t* b, size_t ld, int32_t n_cols, int32_t depth, uint8_t* panels,
                         int32_t* column_sums);
// Packs B[c][t] = b[t * ld + c] (the transpose: V, whose columns are
// features and whose depth is keys).
void PackS8PanelsTransposed(const int8_t* b, size_t ld, int32_t n_cols, int32_t depth,
                            int8_t* panels);

// One column or one depth row added to matrices packed as above, in place
// among the others: a decoder's cache grows by a key at a time.
//
// Column c of PackS8PanelsPlus128's B [*, depth]: its bytes (zero-padded to
// the group, plus 128) into lane c % 16 of its panel, and column_sums[c].
void StoreS8PanelColumnPlus128(const int8_t* column, int32_t depth, int32_t c, uint8_t* panels,
                               int32_t* column_sums);
// Depth row t of PackS8PanelsTransposed's B [n_cols, packed_depth] (row t of
// V: B[c][t] = row[c]), the panels' lanes past n_cols zero.
void StoreS8PanelDepthRow(const int8_t* row, int32_t n_cols, int32_t t, int32_t packed_depth,
                          int8_t* panels);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_S8_PANELS_H_
