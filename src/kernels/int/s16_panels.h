// The packed int16 layout of the AVX512-VNNI int16 kernels' right-hand
// operand (vpdpwssd): B [n_cols, depth] cut into panels of 16 columns, each
// panel depth / 2 pairs of 16 columns x 2 consecutive depth values,
// zero-padded. One pair is one 512-bit vector: lane c holds column c's two
// int16, so a broadcast of two int16 of A and one instruction add 32 products
// into 16 column accumulators.
//
// int16 x int16 pairs can reach 2^31 and their sums overflow int32: the
// one-row kernels split the other operand, the row groups add an estimate
// from K's high bytes (below); B's pairs stay whole (vnni_s16-inl.h).
//
// Scalar and target independent, as s8_panels.h.
#ifndef EDGEATTN_SRC_KERNELS_INT_S16_PANELS_H_
#define EDGEATTN_SRC_KERNELS_INT_S16_PANELS_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/arena_sizes.hpp"

namespace edgeattn {

inline constexpr int32_t kS16PanelColumns = 16;
inline constexpr int32_t kS16PairDepth = 2;

// int16 values of B [n_cols, depth] packed.
constexpr size_t S16PanelValues(int32_t n_cols, int32_t depth) {
  return static_cast<size_t>((n_cols + kS16PanelColumns - 1) / kS16PanelColumns) *
         static_cast<size_t>((depth + kS16PairDepth - 1) / kS16PairDepth) *
         (kS16PanelColumns * kS16PairDepth);
}

// Packs B[c][t] = b[c * ld + t] (K: rows are keys) into
// S16PanelValues(n_cols, depth) values.
void PackS16Panels(const int16_t* b, size_t ld, int32_t n_cols, int32_t depth, int16_t* panels);

// K's high bytes for the row-group score kernel (vnni_s16-inl.h): k >> 8
// plus 128 (the unsigned operand of vpdpbusd) in s8_panels.h's layout of
// 16 keys x 4-byte groups. With them q . k costs one vpdpwssd per pair (the
// sum modulo 2^32) and one vpdpbusd per 4 values (an estimate within 2^31
// while d_k <= kS16HighByteMaxDepth, arena_sizes.hpp) instead of two
// vpdpwssd per pair. Where they start in a S16KeyPanelRegionBytes(n_kv, d_k)
// region (d_k <= kS16HighByteMaxDepth):
uint8_t* S16KeyHighBytes(void* region, int32_t n_kv, int32_t d_k);
// Packs (b[c * ld + t] >> 8) + 128 for c < n_cols, t < depth (0 in the
// padding, where q's high bytes are 0).
void PackS16HighBytesPlus128(const int16_t* b, size_t ld, int32_t n_cols, int32_t depth,
                             uint8_t* panels);
// Packs B[c][t] = b[t * ld + c] (V: columns are features, depth keys).
void PackS16PanelsTransposed(const int16_t* b, size_t ld, int32_t n_cols, int32_t depth,
                             int16_t* panels);

// One key or one value row added in place, as s8_panels.h's stores: column
// c of PackS16Panels' K [*, depth], and of PackS16HighBytesPlus128's; depth
// row t of PackS16PanelsTransposed's V [n_cols, packed_depth].
void StoreS16PanelColumn(const int16_t* column, int32_t depth, int32_t c, int16_t* panels);
void StoreS16HighBytesColumnPlus128(const int16_t* column, int32_t depth, int32_t c,
                                    uint8_t* panels);
void StoreS16PanelDepthRow(const int16_t* row, int32_t n_cols, int32_t t, int32_t packed_depth,
                           int16_t* panels);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_S16_PANELS_H_
