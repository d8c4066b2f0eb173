// V's int8 panels for the P V tile (PackS8PanelsTransposed's layout,
// s8_panels.h), packed with AVX512-VBMI: the panel's 16 columns of 4
// consecutive rows are one 64-byte load set, and one vpermb interleaves them
// into the 4-byte groups the dot-product instruction reads. V is packed on
// every call, where the portable byte-by-byte gather cost about 4 % of a short
// int8 MHA run. Only the AVX3_DL target (whose CPUs have VBMI) includes this.
#ifndef EDGEATTN_SRC_FIXED_POINT_VNNI_VALUE_PANELS_INL_H_
#define EDGEATTN_SRC_FIXED_POINT_VNNI_VALUE_PANELS_INL_H_

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "fixed_point/avx512_requantize-inl.h"  // FirstLanes, EA_VNNI_TARGET
#include "fixed_point/s8_panels.h"

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

}  // namespace vnni
}  // namespace edgeattn

#endif  // EDGEATTN_SRC_FIXED_POINT_VNNI_VALUE_PANELS_INL_H_
