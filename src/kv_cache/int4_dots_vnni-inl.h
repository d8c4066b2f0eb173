// The int4 record step's dot products on AVX3_DL, on the packed nibbles
// (arena_sizes.hpp) without widening the record first: one 64-byte load
// gives two quads of codes stored as code + 8 (0..15), the low nibbles by a
// mask and the high ones by a shift and the mask. Both are valid operands of
// vpdpbusd as they are: unsigned against the query's signed codes (scores),
// and signed (0..15 is positive) against the unsigned weight codes (P V).
// The + 8 comes off once per sum: 8 times the query's code sum, or 8 times
// the row's weight code sum. One group's channels at a time (the caller
// points at the group's rows); the integers equal int8's on the widened
// record, so every target still computes the same ones.

#if defined(EDGEATTN_SRC_KV_CACHE_INT4_DOTS_VNNI_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KV_CACHE_INT4_DOTS_VNNI_INL_H_
#undef EDGEATTN_SRC_KV_CACHE_INT4_DOTS_VNNI_INL_H_
#else
#define EDGEATTN_SRC_KV_CACHE_INT4_DOTS_VNNI_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "kv_cache/int8_dots_vnni-inl.h"
#include "kv_cache/int8_record_operands-inl.h"

#if EA_INT8_DOTS == EA_INT8_DOTS_VNNI

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {

// The code + 8 offset of int4's stored nibbles.
inline constexpr int32_t kInt4Offset = 8;

// low = the low nibbles of x, high = its high nibbles.
EA_VNNI_TARGET __attribute__((always_inline)) inline void SplitNibbles(__m512i x, __m512i* low,
                                                                       __m512i* high) {
  const __m512i mask = _mm512_set1_epi8(0x0F);
  *low = _mm512_and_si512(x, mask);
  *high = _mm512_and_si512(_mm512_srli_epi16(x, 4), mask);
}

// acc[0] += the pair's low quad (quad 2 pair) times row r's codes, and
// acc[kChains - 1] += its high quad (quad 2 pair + 1).
template <int kChains, int kRows, int kVectors>
EA_VNNI_TARGET __attribute__((always_inline)) inline void AddKeyPair(
    __m512i (&acc)[kChains][kRows][kVectors], const QueryRowsS8& q, const uint8_t* keys,
    size_t pair) {
  const uint8_t* panel = keys + pair * kKeyBlock * 4;
  __m512i low[kVectors], high[kVectors];
#pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) {
    SplitNibbles(_mm512_loadu_si512(panel + 64 * v), &low[v], &high[v]);
  }
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    int32_t codes[2];
    memcpy(codes, q.codes[r] + pair * 8, sizeof(codes));
    const __m512i low_codes = _mm512_set1_epi32(codes[0]);
    const __m512i high_codes = _mm512_set1_epi32(codes[1]);
#pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) {
      acc[0][r][v] = _mm512_dpbusd_epi32(acc[0][r][v], low[v], low_codes);
      acc[kChains - 1][r][v] = _mm512_dpbusd_epi32(acc[kChains - 1][r][v], high[v], high_codes);
    }
  }
}

// ScoreRecordS8Vnni on `pairs` packed pairs of quads of one scale group.
template <int kRows>
EA_VNNI_TARGET void ScoreRecordS4Vnni(const QueryRowsS8& q, const uint8_t* keys, size_t pairs,
                                      const float* key_scales, float* tile) {
  constexpr int kVectors = kKeyBlock / 16;
  constexpr int kChains = kVnniChains<kRows>;
  __m512i acc[kChains][kRows][kVectors];
  ZeroChains(acc);
  for (size_t pair = 0; pair < pairs; ++pair) {
    AddKeyPair<kChains, kRows, kVectors>(acc, q, keys, pair);
  }
  StoreScoreRows(acc, q, kInt4Offset, key_scales, tile);
}

// The sum of row r's kKeyBlock weight codes (0 outside the block's range).
EA_VNNI_TARGET inline int32_t WeightCodeSum(float* tile, size_t r) {
  const __m512i codes = _mm512_loadu_si512(WeightCodesOf(tile, r));
  static_assert(kKeyBlock == 64, "one vector of weight codes");
  return static_cast<int32_t>(
      _mm512_reduce_add_epi64(_mm512_sad_epu8(codes, _mm512_setzero_si512())));
}

// acc[0] += the value pair's low quad (key quad 2 pair) times the weight
// codes of rows first_row + r, acc[kChains - 1] += its high quad.
template <int kChains, int kRows, int kVectors>
EA_VNNI_TARGET __attribute__((always_inline)) inline void AddValuePair(
    __m512i (&acc)[kChains][kRows][kVectors], const __mmask16 (&masks)[kVectors], float* tile,
    size_t first_row, const WeightedQuadsS8& a, size_t c0, size_t pair) {
  const uint8_t* row = reinterpret_cast<const uint8_t*>(a.values) + (pair * a.d + c0) * 4;
  __m512i low[kVectors], high[kVectors];
#pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) {
    SplitNibbles(_mm512_maskz_loadu_epi32(masks[v], row + 64 * v), &low[v], &high[v]);
  }
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    int32_t codes[2];
    memcpy(codes, WeightCodesOf(tile, first_row + static_cast<size_t>(r)) + pair * 8,
           sizeof(codes));
    const __m512i low_codes = _mm512_set1_epi32(codes[0]);
    const __m512i high_codes = _mm512_set1_epi32(codes[1]);
#pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) {
      acc[0][r][v] = _mm512_dpbusd_epi32(acc[0][r][v], low_codes, low[v]);
      acc[kChains - 1][r][v] = _mm512_dpbusd_epi32(acc[kChains - 1][r][v], high_codes, high[v]);
    }
  }
}

// AccumulateRecordS8Vnni on one scale group's packed value pairs
// [kKeyBlock / 8][d][4]: every pair that holds a quad of [quad_begin,
// quad_end) (the codes outside the range are 0).
template <int kRows, int kVectors>
EA_VNNI_TARGET void AccumulateRecordS4Vnni(float* tile, size_t first_row,
                                           const WeightedQuadsS8& a) {
  constexpr int kChains = kVnniChains<kRows>;
  int32_t offsets[kRows];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    offsets[r] = kInt4Offset * WeightCodeSum(tile, first_row + static_cast<size_t>(r));
  }
  for (size_t c0 = 0; c0 < a.d; c0 += 16 * kVectors) {
    __mmask16 masks[kVectors];
    ChannelMasks(a.d, c0, masks);
    __m512i acc[kChains][kRows][kVectors];
    ZeroChains(acc);
    for (size_t pair = a.quad_begin / 2; pair < (a.quad_end + 1) / 2; ++pair) {
      AddValuePair<kChains, kRows, kVectors>(acc, masks, tile, first_row, a, c0, pair);
    }
    AddRowsToOutput(acc, masks, a, first_row, c0, offsets);
  }
}

template <int kRows>
EA_VNNI_TARGET void AccumulateRowsS4Vnni(float* tile, size_t first_row, const WeightedQuadsS8& a) {
  switch ((a.d + 15) / 16) {
    case 1:
      return AccumulateRecordS4Vnni<kRows, 1>(tile, first_row, a);
    case 2:
      return AccumulateRecordS4Vnni<kRows, 2>(tile, first_row, a);
    case 3:
      return AccumulateRecordS4Vnni<kRows, 3>(tile, first_row, a);
    default:
      return AccumulateRecordS4Vnni<kRows, 4>(tile, first_row, a);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // EA_INT8_DOTS == EA_INT8_DOTS_VNNI

#endif  // EDGEATTN_SRC_KV_CACHE_INT4_DOTS_VNNI_INL_H_
