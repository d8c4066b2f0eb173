// The int8 record step's dot products on AVX3_DL: grids of up to kGridRows
// rows by vpdpbusd, four bytes a lane. vpdpbusd multiplies unsigned by
// signed bytes: the key codes are flipped to k + 128 on load (one XOR) and
// the query's sum times 128 is subtracted once per score; the probability
// codes are unsigned already.

#if defined(EDGEATTN_SRC_KV_CACHE_INT8_DOTS_VNNI_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KV_CACHE_INT8_DOTS_VNNI_INL_H_
#undef EDGEATTN_SRC_KV_CACHE_INT8_DOTS_VNNI_INL_H_
#else
#define EDGEATTN_SRC_KV_CACHE_INT8_DOTS_VNNI_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "kv_cache/int8_record_operands-inl.h"

#if HWY_TARGET == HWY_AVX3_DL
#include <immintrin.h>

#include "kernels/int/x86/vnni_tile-inl.h"  // EA_VNNI_TARGET
#endif

#if EA_INT8_DOTS == EA_INT8_DOTS_VNNI

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Independent accumulator sets for grids of one or two rows: each vpdpbusd
// waits for the previous one into its accumulator (about 5 cycles), and
// 4 or 8 accumulators would leave the pipes idle.
template <int kRows>
inline constexpr int kVnniChains = kRows <= 2 ? 2 : 1;

template <int kChains, int kRows, int kVectors>
EA_VNNI_TARGET __attribute__((always_inline)) inline void ZeroChains(
    __m512i (&acc)[kChains][kRows][kVectors]) {
#pragma GCC unroll 8
  for (int chain = 0; chain < kChains; ++chain) {
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) acc[chain][r][v] = _mm512_setzero_si512();
    }
  }
}

template <int kChains, int kRows, int kVectors>
EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i SumOfChains(
    const __m512i (&acc)[kChains][kRows][kVectors], int r, int v) {
  __m512i sum = acc[0][r][v];
#pragma GCC unroll 8
  for (int chain = 1; chain < kChains; ++chain) sum = _mm512_add_epi32(sum, acc[chain][r][v]);
  return sum;
}

// tile[r][0, 16 kVectors) = (sums - code_offset * row r's code sum) as
// float, times the key scales and row r's factor: the scores' epilogue,
// code_offset the unsigned operand's offset (int8's 128, int4's 8).
template <int kChains, int kRows, int kVectors>
EA_VNNI_TARGET __attribute__((always_inline)) inline void StoreScoreRows(
    const __m512i (&acc)[kChains][kRows][kVectors], const QueryRowsS8& q, int32_t code_offset,
    const float* key_scales, float* tile) {
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    const __m512i offset = _mm512_set1_epi32(q.sums[r] * code_offset);
    const __m512 factor = _mm512_set1_ps(q.factors[r]);
#pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) {
      const __m512i sum = SumOfChains(acc, r, v);
      const __m512 dot = _mm512_cvtepi32_ps(_mm512_sub_epi32(sum, offset));
      const __m512 scales = _mm512_mul_ps(_mm512_loadu_ps(key_scales + 16 * v), factor);
      _mm512_storeu_ps(tile + r * kScoreTileKeys + 16 * v, _mm512_mul_ps(dot, scales));
    }
  }
}

// masks[v]: the lanes of channels [c0 + 16 v, c0 + 16 v + 16) below d.
template <int kVectors>
EA_VNNI_TARGET __attribute__((always_inline)) inline void ChannelMasks(
    size_t d, size_t c0, __mmask16 (&masks)[kVectors]) {
#pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) {
    const size_t c = c0 + 16 * static_cast<size_t>(v);
    const size_t lanes = c >= d ? 0 : d - c >= 16 ? 16 : d - c;
    masks[v] = static_cast<__mmask16>((1u << lanes) - 1u);
  }
}

// out = out * rescale + (sums - offsets[r]) * step for rows first_row + r,
// channels from c0: the P V epilogue (offsets: int4's 8 times the row's
// weight code sum; 0 for int8).
template <int kChains, int kRows, int kVectors>
EA_VNNI_TARGET __attribute__((always_inline)) inline void AddRowsToOutput(
    const __m512i (&acc)[kChains][kRows][kVectors], const __mmask16 (&masks)[kVectors],
    const WeightedQuadsS8& a, size_t first_row, size_t c0, const int32_t (&offsets)[kRows]) {
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    const size_t row = first_row + static_cast<size_t>(r);
    float* out = a.out + row * a.out_stride + c0;
    const __m512 step = _mm512_set1_ps(a.steps[row]);
    const __m512 rescale = _mm512_set1_ps(a.rescale[row]);
    const __m512i offset = _mm512_set1_epi32(offsets[r]);
#pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) {
      const __m512i sum = _mm512_sub_epi32(SumOfChains(acc, r, v), offset);
      const __m512 kept = _mm512_mul_ps(_mm512_maskz_loadu_ps(masks[v], out + 16 * v), rescale);
      const __m512 total = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum), step, kept);
      _mm512_mask_storeu_ps(out + 16 * v, masks[v], total);
    }
  }
}

// acc[r][v] += key quad `quad` (flipped to unsigned) times row r's codes.
template <int kRows, int kVectors>
EA_VNNI_TARGET __attribute__((always_inline)) inline void AddKeyQuad(
    __m512i (&acc)[kRows][kVectors], const QueryRowsS8& q, const int8_t* keys, size_t quad) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const int8_t* panel = keys + quad * kKeyBlock * 4;
  __m512i k[kVectors];
#pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) {
    k[v] = _mm512_xor_si512(_mm512_loadu_si512(panel + 64 * v), flip);
  }
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    int32_t code;
    memcpy(&code, q.codes[r] + quad * 4, sizeof(code));
    const __m512i broadcast = _mm512_set1_epi32(code);
#pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) {
      acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], k[v], broadcast);
    }
  }
}

// ScoreRecordS8FloatLanes for kRows rows at once, all of a record's 64 key
// slots in four 16-lane vectors, by vpdpbusd of the flipped key codes. Every
// loop has a constant trip count, so that the grid stays in registers.
template <int kRows>
EA_VNNI_TARGET void ScoreRecordS8Vnni(const QueryRowsS8& q, const int8_t* keys, size_t quads,
                                      const float* key_scales, float* tile) {
  constexpr int kVectors = kKeyBlock / 16;
  constexpr int kChains = kVnniChains<kRows>;
  __m512i acc[kChains][kRows][kVectors];
  ZeroChains(acc);
  size_t quad = 0;
  for (; quad + kChains <= quads; quad += kChains) {
#pragma GCC unroll 8
    for (int chain = 0; chain < kChains; ++chain) {
      AddKeyQuad<kRows, kVectors>(acc[chain], q, keys, quad + static_cast<size_t>(chain));
    }
  }
  for (; quad < quads; ++quad) AddKeyQuad<kRows, kVectors>(acc[0], q, keys, quad);
  StoreScoreRows(acc, q, 128, key_scales, tile);
}

// acc[r][v] += the value quad `quad` (channels from c0) times the weight
// codes of rows first_row + r.
template <int kRows, int kVectors>
EA_VNNI_TARGET __attribute__((always_inline)) inline void AddValueQuad(
    __m512i (&acc)[kRows][kVectors], const __mmask16 (&masks)[kVectors], float* tile,
    size_t first_row, const WeightedQuadsS8& a, size_t c0, size_t quad) {
  const int8_t* row = a.values + (quad * a.d + c0) * 4;
  __m512i values[kVectors];
#pragma GCC unroll 8
  for (int v = 0; v < kVectors; ++v) {
    values[v] = _mm512_maskz_loadu_epi32(masks[v], row + 64 * v);
  }
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    int32_t codes;
    memcpy(&codes, WeightCodesOf(tile, first_row + static_cast<size_t>(r)) + quad * 4,
           sizeof(codes));
    const __m512i broadcast = _mm512_set1_epi32(codes);
#pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) {
      acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], broadcast, values[v]);
    }
  }
}

// AccumulateRecordS8FloatLanes for kRows rows from first_row, all usable,
// 16 * kVectors channels at a time (masked past d).
template <int kRows, int kVectors>
EA_VNNI_TARGET void AccumulateRecordS8Vnni(float* tile, size_t first_row,
                                           const WeightedQuadsS8& a) {
  constexpr int kChains = kVnniChains<kRows>;
  const int32_t no_offsets[kRows] = {};
  for (size_t c0 = 0; c0 < a.d; c0 += 16 * kVectors) {
    __mmask16 masks[kVectors];
    ChannelMasks(a.d, c0, masks);
    __m512i acc[kChains][kRows][kVectors];
    ZeroChains(acc);
    size_t quad = a.quad_begin;
    for (; quad + kChains <= a.quad_end; quad += kChains) {
#pragma GCC unroll 8
      for (int chain = 0; chain < kChains; ++chain) {
        AddValueQuad<kRows, kVectors>(acc[chain], masks, tile, first_row, a, c0,
                                      quad + static_cast<size_t>(chain));
      }
    }
    for (; quad < a.quad_end; ++quad) {
      AddValueQuad<kRows, kVectors>(acc[0], masks, tile, first_row, a, c0, quad);
    }
    AddRowsToOutput(acc, masks, a, first_row, c0, no_offsets);
  }
}

// kRows rows, in as many vectors as d needs up to four.
template <int kRows>
EA_VNNI_TARGET void AccumulateRowsS8Vnni(float* tile, size_t first_row, const WeightedQuadsS8& a) {
  switch ((a.d + 15) / 16) {
    case 1:
      return AccumulateRecordS8Vnni<kRows, 1>(tile, first_row, a);
    case 2:
      return AccumulateRecordS8Vnni<kRows, 2>(tile, first_row, a);
    case 3:
      return AccumulateRecordS8Vnni<kRows, 3>(tile, first_row, a);
    default:
      return AccumulateRecordS8Vnni<kRows, 4>(tile, first_row, a);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // EA_INT8_DOTS == EA_INT8_DOTS_VNNI

#endif  // EDGEATTN_SRC_KV_CACHE_INT8_DOTS_VNNI_INL_H_
