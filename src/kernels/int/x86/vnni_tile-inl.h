// The AVX512-VNNI micro-tile of the int8 kernels: up to 6 rows of A against
// up to 64 packed columns of B (s8_panels.h), vpdpbusd into
// 6 x 4 vectors of int32. Highway 1.0.3 has no int8 dot-product op and its
// AVX3_DL target string lacks avx512vnni, so this is the intrinsic in a
// function of its own with the ISA named; only the AVX3_DL target (whose CPUs
// have VNNI and VBMI) includes it.
#ifndef EDGEATTN_SRC_KERNELS_INT_X86_VNNI_TILE_INL_H_
#define EDGEATTN_SRC_KERNELS_INT_X86_VNNI_TILE_INL_H_

#include <hwy/highway.h>
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/int/s8_panels.h"

// The AVX3_DL target's own ISA list plus avx512vnni, so that these functions
// may inline everything the target's code may.
#define EA_VNNI_TARGET __attribute__((target(HWY_TARGET_STR ",avx512vnni")))

namespace edgeattn {
namespace vnni {

inline constexpr int kTileRows = 6;
inline constexpr int kTileVectors = 4;  // 64 columns
inline constexpr int kTileColumns = kTileVectors * kS8PanelColumns;

// Where a tile's sums start: start.column[j] + start.row[r] modulo 2^32 (the
// offset terms of the caller's sum, added once per tile instead of once per
// element after it), a null pointer's terms being 0. column holds
// 16 * kVectors values, whole vectors even past the last column (callers pad
// to 16: the key sums' region, S8PanelRegionBytes, and LinearS8Packed's
// chunk terms).
struct TileStart {
  const int32_t* column;
  const int32_t* row;  // kRows values
};

// c[r * ld_c + j] = sum_t a[r * ld_a + t] * B'[first_column + j][t] for
// r < kRows, j < 16 * kVectors, t < depth. vpdpbusd multiplies unsigned bytes
// by signed ones, so the operands go in one of two ways:
// - kSignedA: A's rows are int8 and the panels (PackS8PanelsPlus128) hold
//   B' = B + 128 as uint8; A is the signed operand, broadcast from memory
//   with no instruction of its own (a flip of A per broadcast took an
//   instruction per 4 dot products from the vector pipes).
// - otherwise A's rows are uint8 and the panels hold B as int8.
// B's panels start at `panels` (the one holding first_column), panel_bytes
// apart; A is never read past depth, its last group padded with zeros, so B's
// padding never counts. The sums start from `start` (TileStart).

// One group of 4 depth bytes: acc[r][v] += quads[r] . B group.
template <int kRows, int kVectors, bool kSignedA>
EA_VNNI_TARGET __attribute__((always_inline)) inline void Step(const uint8_t* group,
                                                               size_t panel_bytes,
                                                               const uint8_t* const* quads,
                                                               __m512i (&acc)[kRows][kVectors]) {
  __m512i b[kVectors];
#pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) b[v] = _mm512_loadu_si512(group + v * panel_bytes);
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    int32_t quad;
    __builtin_memcpy(&quad, quads[r], sizeof quad);
    const __m512i broadcast = _mm512_set1_epi32(quad);
#pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) {
      acc[r][v] = kSignedA ? _mm512_dpbusd_epi32(acc[r][v], b[v], broadcast)
                           : _mm512_dpbusd_epi32(acc[r][v], broadcast, b[v]);
    }
  }
}

template <int kRows, int kVectors, bool kSignedA>
EA_VNNI_TARGET inline void Tile(const uint8_t* a, size_t ld_a, int32_t depth, const uint8_t* panels,
                                size_t panel_bytes, int32_t* c, size_t ld_c, TileStart start) {
  __m512i acc[kRows][kVectors];
  if (start.column == nullptr && start.row == nullptr) {
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) acc[r][v] = _mm512_setzero_si512();
    }
  } else {
    __m512i column[kVectors];
#pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) {
      column[v] = start.column != nullptr ? _mm512_loadu_si512(start.column + 16 * v)
                                          : _mm512_setzero_si512();
    }
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      const __m512i row = _mm512_set1_epi32(start.row != nullptr ? start.row[r] : 0);
#pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) acc[r][v] = _mm512_add_epi32(column[v], row);
    }
  }
  const int32_t full_groups = depth / 4;
  const uint8_t* quads[kRows];
  for (int32_t g = 0; g < full_groups; ++g) {
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) quads[r] = a + r * ld_a + static_cast<size_t>(g) * 4;
    Step<kRows, kVectors, kSignedA>(panels + static_cast<size_t>(g) * 64, panel_bytes, quads, acc);
  }
  if (depth % 4 != 0) {  // the last group's bytes past depth are zeros
    uint8_t tail[kRows][4] = {};
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      for (int32_t t = 4 * full_groups; t < depth; ++t) {
        tail[r][t - 4 * full_groups] = a[r * ld_a + static_cast<size_t>(t)];
      }
      quads[r] = tail[r];
    }
    Step<kRows, kVectors, kSignedA>(panels + static_cast<size_t>(full_groups) * 64, panel_bytes,
                                    quads, acc);
  }
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) {
      _mm512_storeu_si512(c + r * ld_c + v * 16, acc[r][v]);
    }
  }
}

template <int kRows, bool kSignedA>
EA_VNNI_TARGET inline void TileRows(int vectors, const uint8_t* a, size_t ld_a, int32_t depth,
                                    const uint8_t* panels, size_t panel_bytes, int32_t* c,
                                    size_t ld_c, TileStart start) {
  switch (vectors) {
    case 1:
      return Tile<kRows, 1, kSignedA>(a, ld_a, depth, panels, panel_bytes, c, ld_c, start);
    case 2:
      return Tile<kRows, 2, kSignedA>(a, ld_a, depth, panels, panel_bytes, c, ld_c, start);
    case 3:
      return Tile<kRows, 3, kSignedA>(a, ld_a, depth, panels, panel_bytes, c, ld_c, start);
    default:
      return Tile<kRows, 4, kSignedA>(a, ld_a, depth, panels, panel_bytes, c, ld_c, start);
  }
}

// Lanes [0, count) of a 64-byte block, count >= 0: BZHI keeps that many low
// bits (all 64 from 64 on), with no branch in the loops that end in a
// partial block.
EA_VNNI_TARGET __attribute__((always_inline)) inline __mmask64 FirstBytes(int32_t count) {
  return _bzhi_u64(~uint64_t{0}, static_cast<uint32_t>(count < 64 ? count : 64));
}

// sum_t row[t] for t < n, modulo 2^32: the zero-point term of a signed row
// of A. vpsadbw adds the bytes + 128 (masked lanes 0), less 128 n.
EA_VNNI_TARGET inline uint32_t SumOfRow(const int8_t* row, int32_t n) {
  __m512i sums = _mm512_setzero_si512();
  for (int32_t t = 0; t < n; t += 64) {
    const __mmask64 lanes = FirstBytes(n - t);
    const __m512i plus_128 =
        _mm512_xor_si512(_mm512_maskz_loadu_epi8(lanes, row + t), _mm512_set1_epi8(-128));
    sums = _mm512_add_epi64(
        sums, _mm512_sad_epu8(_mm512_maskz_mov_epi8(lanes, plus_128), _mm512_setzero_si512()));
  }
  return static_cast<uint32_t>(_mm512_reduce_add_epi64(sums)) - 128u * static_cast<uint32_t>(n);
}

// rows in [1, 6], vectors in [1, 4].
template <bool kSignedA>
EA_VNNI_TARGET inline void AnyTile(int rows, int vectors, const uint8_t* a, size_t ld_a,
                                   int32_t depth, const uint8_t* panels, size_t panel_bytes,
                                   int32_t* c, size_t ld_c, TileStart start = {nullptr, nullptr}) {
  switch (rows) {
    case 1:
      return TileRows<1, kSignedA>(vectors, a, ld_a, depth, panels, panel_bytes, c, ld_c, start);
    case 2:
      return TileRows<2, kSignedA>(vectors, a, ld_a, depth, panels, panel_bytes, c, ld_c, start);
    case 3:
      return TileRows<3, kSignedA>(vectors, a, ld_a, depth, panels, panel_bytes, c, ld_c, start);
    case 4:
      return TileRows<4, kSignedA>(vectors, a, ld_a, depth, panels, panel_bytes, c, ld_c, start);
    case 5:
      return TileRows<5, kSignedA>(vectors, a, ld_a, depth, panels, panel_bytes, c, ld_c, start);
    default:
      return TileRows<6, kSignedA>(vectors, a, ld_a, depth, panels, panel_bytes, c, ld_c, start);
  }
}

}  // namespace vnni
}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_X86_VNNI_TILE_INL_H_
