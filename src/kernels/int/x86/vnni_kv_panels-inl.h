// K's and V's int8 panels for the VNNI tiles (s8_panels.h's layouts), packed
// with AVX-512 on every call, where the portable loops (a word or a byte per
// element) cost 4-8 % of a short int8 MHA run:
// - K + 128 (PackS8PanelsPlus128): a group of 16 keys' 4 depth bytes is one
//   vpgatherdd; vpdpbusd by ones adds each key's bytes into its sum.
// - V (PackS8PanelsTransposed): the panel's 16 columns of 4 consecutive rows
//   are four 16-byte loads, and one vpermb (VBMI) interleaves them into groups.
// Only the AVX3_DL target (whose CPUs have VNNI and VBMI) includes this.
#ifndef EDGEATTN_SRC_KERNELS_INT_X86_VNNI_KV_PANELS_INL_H_
#define EDGEATTN_SRC_KERNELS_INT_X86_VNNI_KV_PANELS_INL_H_

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/int/s8_panels.h"
#include "kernels/int/x86/avx512_requantize-inl.h"  // FirstLanes, EA_VNNI_TARGET

namespace edgeattn {
namespace vnni {

// Byte i of a group comes from row i % 4, column i / 4 of the 4 x 16 rows
// loaded one after another.
inline constexpr uint8_t kGroupInterleave[64] = {
    0,  16, 32, 48, 1,  17, 33, 49, 2,  18, 34, 50, 3,  19, 35, 51, 4,  20, 36, 52, 5,  21,
    37, 53, 6,  22, 38, 54, 7,  23, 39, 55, 8,  24, 40, 56, 9,  25, 41, 57, 10, 26, 42, 58,
    11, 27, 43, 59, 12, 28, 44, 60, 13, 29, 45, 61, 14, 30, 46, 62, 15, 31, 47, 63};

// B[c][t] = b[t * ld + c] for c < n_cols, t < depth, zero past them; the
// loads are masked to B, so nothing past it is read.
EA_VNNI_TARGET inline void PackS8PanelsTransposed(const int8_t* b, size_t ld, int32_t n_cols,
                                                  int32_t depth, int8_t* panels) {
  static_assert(kS8PanelColumns == 16 && kS8GroupDepth == 4, "a group is 4 rows of 16 bytes");
  const __m512i interleave = _mm512_loadu_si512(kGroupInterleave);
  int8_t* out = panels;
  for (int32_t c0 = 0; c0 < n_cols; c0 += kS8PanelColumns) {
    const __mmask16 columns = FirstLanes(n_cols - c0);
    for (int32_t t0 = 0; t0 < depth; t0 += kS8GroupDepth, out += 64) {
      __m128i rows[kS8GroupDepth];
#pragma GCC unroll 4
      for (int32_t k = 0; k < kS8GroupDepth; ++k) {
        rows[k] = t0 + k < depth
                      ? _mm_maskz_loadu_epi8(columns, b + static_cast<size_t>(t0 + k) * ld + c0)
                      : _mm_setzero_si128();
      }
      const __m512i group = _mm512_inserti32x4(
          _mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(rows[0]), rows[1], 1),
                             rows[2], 2),
          rows[3], 3);
      _mm512_storeu_si512(out, _mm512_permutexvar_epi8(interleave, group));
    }
  }
}

// Where a panel's 16 row offsets fit the gather's int32 indices.
inline bool GathersReach(size_t ld, int32_t depth) {
  return ld <= (static_cast<size_t>(INT32_MAX) - static_cast<size_t>(depth)) / kS8PanelColumns;
}

// One group of 16 columns' 4 bytes: stored + 128, and added into the
// columns' sums (vpdpbusd of ones, unsigned, by the bytes, signed).
EA_VNNI_TARGET __attribute__((always_inline)) inline void StoreGroupPlus128(__m512i group,
                                                                            uint8_t* out,
                                                                            __m512i* sums) {
  *sums = _mm512_dpbusd_epi32(*sums, _mm512_set1_epi8(1), group);
  _mm512_storeu_si512(out, _mm512_xor_si512(group, _mm512_set1_epi8(-128)));
}

// PackS8PanelsPlus128 (s8_panels.h): B[c][t] = b[c * ld + t] + 128 as uint8
// (128 past n_cols and depth) and column_sums[c] = sum_t B[c][t] - 128 depth
// modulo 2^32 (the sums of b). GathersReach(ld, depth) must hold.
EA_VNNI_TARGET inline void PackS8PanelsPlus128(const int8_t* b, size_t ld, int32_t n_cols,
                                               int32_t depth, uint8_t* panels,
                                               int32_t* column_sums) {
  const __m512i offsets =
      _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                         _mm512_set1_epi32(static_cast<int32_t>(ld)));
  const int32_t full_groups = depth / kS8GroupDepth;
  uint8_t* out = panels;
  for (int32_t c0 = 0; c0 < n_cols; c0 += kS8PanelColumns) {
    const __mmask16 columns = FirstLanes(n_cols - c0);
    const int8_t* first = b + static_cast<size_t>(c0) * ld;
    __m512i sums = _mm512_setzero_si512();
    for (int32_t g = 0; g < full_groups; ++g) {
      StoreGroupPlus128(
          _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), columns, offsets,
                                      first + static_cast<size_t>(g) * kS8GroupDepth, 1),
          out, &sums);
      out += 64;
    }
    if (depth % kS8GroupDepth != 0) {  // the last group's bytes past depth are 0
      alignas(64) int8_t tail[kS8PanelColumns][kS8GroupDepth] = {};
      for (int32_t c = 0; c < kS8PanelColumns && c0 + c < n_cols; ++c) {
        for (int32_t t = full_groups * kS8GroupDepth; t < depth; ++t) {
          tail[c][t - full_groups * kS8GroupDepth] = first[static_cast<size_t>(c) * ld + t];
        }
      }
      StoreGroupPlus128(_mm512_load_si512(tail), out, &sums);
      out += 64;
    }
    _mm512_mask_storeu_epi32(column_sums + c0, columns, sums);
  }
}

}  // namespace vnni
}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_X86_VNNI_KV_PANELS_INL_H_
