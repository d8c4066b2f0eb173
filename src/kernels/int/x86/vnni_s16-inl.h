// The AVX512-VNNI int16 attention rows (AVX3_DL only, beside vnni_tile-inl.h;
// the int16 FULLY_CONNECTED is vnni_linear_s16-inl.h): 16 keys or 16 output
// columns per 512-bit vector, with vpdpwssd (32 int16 products per
// instruction) on the pair panels of s16_panels.h, four query rows per pass
// where the caller has them (each K or V load then serves four rows: one row at a time
// streamed all of K and V from L2 per row and ran at 0.3-0.5 vpdpwssd per
// cycle on Zen 4), one row otherwise. Same integers as the scalar row kernels:
// - scores q . k in int64, then TFLite's 64-bit requantisation
//   (avx512_requantize-inl.h). Row groups (d_k <= 128): the whole pairs'
//   sum modulo 2^32 (vpdpwssd wraps) and an estimate from the high bytes of
//   q and k (vpdpbusd, four products a lane) within 2^31 of the sum, which
//   together give it exactly; one row: q is split as 256 * high + low, so
//   every pair of products with K is below 2^24 in magnitude, and the int32
//   lanes take 64 pairs (< 2^30) before they are added into int64 ones;
// - softmax: the scaled differences, then the exp table's interpolation in
//   int16 lanes, its entries picked from byte planes of the table with
//   vpermt2b (a 32-bit gather per 16 lanes took most of the softmax's time);
//   the sum in int32 as TFLite; the reciprocal is the scalar code's
//   (softmax_s16.h), the normalisation in 16-bit lanes where the sum allows;
// - P V: probabilities are >= 0, so |sum_j p_j v_j| <= (sum_j p_j) * 2^15 and
//   every partial sum of a lane is as small: a row whose probabilities sum
//   below 2^16 accumulates whole in int32 exactly; any other row splits p into
//   its high and low bytes like K (never seen in practice: the probabilities
//   sum to about 2^15).
#ifndef EDGEATTN_SRC_KERNELS_INT_X86_VNNI_S16_INL_H_
#define EDGEATTN_SRC_KERNELS_INT_X86_VNNI_S16_INL_H_

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/int/s16_panels.h"
#include "kernels/int/softmax_s16.h"
#include "kernels/int/x86/avx512_requantize-inl.h"
#include "kernels/int/x86/vnni_tile-inl.h"
#include "tflite/requantize.h"
#include "tflite/softmax_s16_tables.h"

namespace edgeattn {
namespace vnni {

// Pairs an int32 lane may take before it could overflow (see above).
inline constexpr int32_t kS16PairsPerFlush = 64;

// Two int16 of `values` from `pair` * 2 on, as one int32 to broadcast; the
// second is 0 past `count` (an odd count's last pair).
inline int32_t PairAt(const int16_t* values, int32_t pair, int32_t count) {
  const int32_t first = 2 * pair;
  if (first + 1 < count) {
    int32_t both;
    memcpy(&both, values + first, sizeof both);
    return both;
  }
  return static_cast<int32_t>(static_cast<uint16_t>(values[first]));
}

// The first `count` of 32 lanes (all for count >= 32, none for count <= 0).
inline __mmask32 FirstLanes32(int32_t count) {
  return count >= 32 ? ~__mmask32{0} : count <= 0 ? 0 : (__mmask32{1} << count) - 1;
}

// Key or column blocks one pass over the pairs handles: independent
// accumulator chains hide vpdpwssd's latency and share each broadcast.
inline constexpr int32_t kS16BlocksPerPass = 4;

// acc += the pairwise products of the int16 lanes of a and b (vpdpwssd), in
// place. GCC 12 routes the intrinsic's accumulators in the score loop
// through second registers (two moves per vpdpwssd); the asm ties them.
#define EA_ADD_PAIR_PRODUCTS(acc, a, b) __asm__("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b))

// Adds 256 * high + low (int32 lanes) into the int64 lanes of 16 columns.
EA_VNNI_TARGET __attribute__((always_inline)) inline void AddSplit(__m512i high, __m512i low,
                                                                   __m512i* sum_lo8,
                                                                   __m512i* sum_hi8) {
  const __m512i high_lo8 = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(high));
  const __m512i high_hi8 = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(high, 1));
  const __m512i low_lo8 = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(low));
  const __m512i low_hi8 = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(low, 1));
  *sum_lo8 = _mm512_add_epi64(*sum_lo8, _mm512_add_epi64(_mm512_slli_epi64(high_lo8, 8), low_lo8));
  *sum_hi8 = _mm512_add_epi64(*sum_hi8, _mm512_add_epi64(_mm512_slli_epi64(high_hi8, 8), low_hi8));
}

// AddSplit for StoreGridS16 below.
struct AddSplitSums {
  EA_VNNI_TARGET __attribute__((always_inline)) void operator()(__m512i high, __m512i low,
                                                                __m512i* sum_lo8,
                                                                __m512i* sum_hi8) const {
    AddSplit(high, low, sum_lo8, sum_hi8);
  }
};

// 16 requantised int16 values from two int64 halves, stored to out[0, count).
EA_VNNI_TARGET __attribute__((always_inline)) inline void StoreS16(__m512i lo8, __m512i hi8,
                                                                   const Requantize64Params& p,
                                                                   int16_t* out, int32_t count) {
  const __m256i both = _mm256_inserti128_si256(_mm256_castsi128_si256(Requantize64ToS16(lo8, p)),
                                               Requantize64ToS16(hi8, p), 1);
  _mm256_mask_storeu_epi16(out, static_cast<__mmask16>(FirstLanes(count)), both);
}

// Every accumulator of a kRows x kBlocks grid set to zero.
template <int kRows, int kBlocks>
EA_VNNI_TARGET __attribute__((always_inline)) inline void SetZero(__m512i (&grid)[kRows][kBlocks]) {
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int b = 0; b < kBlocks; ++b) grid[r][b] = _mm512_setzero_si512();
  }
}

// Columns [c0, c0 + 16 kBlocks) of kRows rows, whose int64 sums
// AddSums{}(first[r][b], second[r][b], &sum_lo8, &sum_hi8) adds from the
// two grids, requantised to out[r][c0, n).
template <int kRows, int kBlocks, typename AddSums>
EA_VNNI_TARGET __attribute__((always_inline)) inline void StoreGridS16(
    const __m512i (&first)[kRows][kBlocks], const __m512i (&second)[kRows][kBlocks],
    const AddSums& add_sums, int32_t c0, int32_t n, const Requantize64Params& requantize,
    int16_t* const* out) {
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int b = 0; b < kBlocks; ++b) {
      const int32_t c = c0 + b * kS16PanelColumns;
      __m512i sum_lo8 = _mm512_setzero_si512(), sum_hi8 = sum_lo8;
      add_sums(first[r][b], second[r][b], &sum_lo8, &sum_hi8);
      StoreS16(sum_lo8, sum_hi8, requantize, out[r] + c,
               n - c < kS16PanelColumns ? n - c : kS16PanelColumns);
    }
  }
}

// A query row's pairs split as q = 256 * high + low (high = q >> 8 in
// [-128, 127], low = q & 255), pairs [p0, p0 + count) of them, as the int32
// broadcasts of vpdpwssd. Each pair of products with K is then below 2^23
// (high) or 2^24 (low) in magnitude.
struct SplitPairs {
  alignas(64) int32_t high[kS16PairsPerFlush];
  alignas(64) int32_t low[kS16PairsPerFlush];
};
EA_VNNI_TARGET __attribute__((always_inline)) inline void SplitQueryPairs(const int16_t* q,
                                                                          int32_t d_k, int32_t p0,
                                                                          int32_t count,
                                                                          SplitPairs* split) {
  const int32_t values = 2 * count < d_k - 2 * p0 ? 2 * count : d_k - 2 * p0;
  for (int32_t i = 0; i < 2 * count; i += 32) {
    const __m512i v = _mm512_maskz_loadu_epi16(FirstLanes32(values - i), q + 2 * p0 + i);
    _mm512_store_si512(split->high + i / 2, _mm512_srai_epi16(v, 8));
    _mm512_store_si512(split->low + i / 2, _mm512_and_si512(v, _mm512_set1_epi16(255)));
  }
}

// Scores of kBlocks blocks of 16 keys from key j0 on (n_keys in all).
template <int kBlocks>  // 1 or 4
EA_VNNI_TARGET __attribute__((always_inline)) inline void ScoreBlocksS16(
    const SplitPairs* split, int32_t pairs, const int16_t* q, int32_t d_k, const int16_t* k_pairs,
    int32_t j0, int32_t n_keys, const Requantize64Params& requantize, int16_t* scores) {
  const size_t panel_values = static_cast<size_t>(pairs) * 32;
  const size_t first = static_cast<size_t>(j0 / kS16PanelColumns) * panel_values;
  SplitPairs local;
  __m512i sum_lo8[kBlocks], sum_hi8[kBlocks];
  for (int b = 0; b < kBlocks; ++b) sum_lo8[b] = sum_hi8[b] = _mm512_setzero_si512();
  for (int32_t p0 = 0; p0 < pairs; p0 += kS16PairsPerFlush) {
    const int32_t count = pairs - p0 < kS16PairsPerFlush ? pairs - p0 : kS16PairsPerFlush;
    const SplitPairs* chunk = split;
    if (chunk == nullptr) {  // more than one chunk: split this one here
      SplitQueryPairs(q, d_k, p0, count, &local);
      chunk = &local;
    }
    // Named accumulators (not arrays): GCC keeps them in registers.
    __m512i h0 = _mm512_setzero_si512(), h1 = h0, h2 = h0, h3 = h0;
    __m512i l0 = h0, l1 = h0, l2 = h0, l3 = h0;
    const int16_t* k = k_pairs + first + 32 * static_cast<size_t>(p0);
    for (int32_t i = 0; i < count; ++i, k += 32) {
      const __m512i qh = _mm512_set1_epi32(chunk->high[i]);
      const __m512i ql = _mm512_set1_epi32(chunk->low[i]);
      const __m512i k0 = _mm512_loadu_si512(k);
      EA_ADD_PAIR_PRODUCTS(h0, qh, k0);
      EA_ADD_PAIR_PRODUCTS(l0, ql, k0);
      if (kBlocks == 4) {
        const __m512i k1 = _mm512_loadu_si512(k + panel_values);
        const __m512i k2 = _mm512_loadu_si512(k + 2 * panel_values);
        const __m512i k3 = _mm512_loadu_si512(k + 3 * panel_values);
        EA_ADD_PAIR_PRODUCTS(h1, qh, k1);
        EA_ADD_PAIR_PRODUCTS(l1, ql, k1);
        EA_ADD_PAIR_PRODUCTS(h2, qh, k2);
        EA_ADD_PAIR_PRODUCTS(l2, ql, k2);
        EA_ADD_PAIR_PRODUCTS(h3, qh, k3);
        EA_ADD_PAIR_PRODUCTS(l3, ql, k3);
      }
    }
    const __m512i high[4] = {h0, h1, h2, h3}, low[4] = {l0, l1, l2, l3};
    for (int b = 0; b < kBlocks; ++b) AddSplit(high[b], low[b], &sum_lo8[b], &sum_hi8[b]);
  }
  for (int b = 0; b < kBlocks; ++b) {
    const int32_t j = j0 + b * kS16PanelColumns;
    const int32_t count = n_keys - j < kS16PanelColumns ? n_keys - j : kS16PanelColumns;
    StoreS16(sum_lo8[b], sum_hi8[b], requantize, scores + j, count);
  }
}

// scores[j] for j < n_keys: q (d_k values) against K's pair panels.
EA_VNNI_TARGET inline void ScoreRowS16(const int16_t* q, int32_t d_k, const int16_t* k_pairs,
                                       int32_t n_keys, const Requantize64Params& requantize,
                                       int16_t* scores) {
  const int32_t pairs = (d_k + 1) / 2;
  // One chunk (d_k <= 128): split once for the whole row.
  SplitPairs once;
  const SplitPairs* split = nullptr;
  if (pairs <= kS16PairsPerFlush) {
    SplitQueryPairs(q, d_k, 0, pairs, &once);
    split = &once;
  }
  constexpr int32_t kPass = kS16BlocksPerPass * kS16PanelColumns;
  int32_t j = 0;
  for (; j + kPass <= n_keys; j += kPass) {
    ScoreBlocksS16<kS16BlocksPerPass>(split, pairs, q, d_k, k_pairs, j, n_keys, requantize, scores);
  }
  for (; j < n_keys; j += kS16PanelColumns) {
    ScoreBlocksS16<1>(split, pairs, q, d_k, k_pairs, j, n_keys, requantize, scores);
  }
}

// Query rows the row-group kernels below handle in one pass. One row at a
// time streams all of K (and V) from L2 per row and ran at 0.3-0.5 vpdpwssd
// per cycle (Zen 4); with four rows each K or V load serves four.
inline constexpr int32_t kS16RowsPerPass = 4;

// A query row of the row-group score kernel (d_k <= kS16HighByteMaxDepth):
// its pairs whole, zero past d_k (the int32 broadcasts of vpdpwssd), its
// high bytes q >> 8 (four at a time the broadcasts of vpdpbusd against K's
// high-byte panels, which hold k >> 8 plus 128), and 128 sum_t (q[t] >> 8),
// the term those 128s add.
struct QueryWithHighBytes {
  alignas(64) int16_t values[2 * kS16PairsPerFlush];
  alignas(64) int8_t high_bytes[2 * kS16PairsPerFlush];
  int32_t high_offset;
};
EA_VNNI_TARGET __attribute__((always_inline)) inline void PrepareQueryRow(const int16_t* q,
                                                                          int32_t d_k,
                                                                          QueryWithHighBytes* row) {
  int32_t high_sum = 0;
  for (int32_t t = 0; t < 2 * kS16PairsPerFlush; ++t) {
    const int16_t value = t < d_k ? q[t] : 0;
    row->values[t] = value;
    row->high_bytes[t] = static_cast<int8_t>(value >> 8);
    high_sum += value >> 8;
  }
  row->high_offset = 128 * high_sum;
}

// Four consecutive int8 (or two int16) of `values` from byte `offset` on, as
// one int32 to broadcast.
inline int32_t WordAt(const void* values, size_t offset) {
  int32_t word;
  memcpy(&word, static_cast<const uint8_t*>(values) + offset, sizeof word);
  return word;
}

// acc += the products of the unsigned bytes of a with the signed bytes of b,
// four to a lane (vpdpbusd), in place (see EA_ADD_PAIR_PRODUCTS).
#define EA_ADD_BYTE_PRODUCTS(acc, a, b) __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b))

// The exact int64 sum S of q . k for 8 + 8 lanes from its int32 residue
// `wrapped` (S mod 2^32, the whole pairs' vpdpwssd, which wraps) and
// `estimate` = sum_t (q[t] >> 8)(k[t] >> 8): S - 2^16 estimate is the sum of
// 2^8 ((q >> 8)(k & 255) + (q & 255)(k >> 8)) + (q & 255)(k & 255) over d_k
// <= 128 terms, each of magnitude below 2^24 - 2^8, so |S - 2^16 estimate| <
// 2^31 and S = wrapped + 2^32 round((2^16 estimate - wrapped) / 2^32).
EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i ExactFromEstimate(__m256i wrapped,
                                                                               __m256i estimate) {
  const __m512i residue = _mm512_cvtepi32_epi64(wrapped);
  const __m512i distance = _mm512_add_epi64(
      _mm512_sub_epi64(_mm512_slli_epi64(_mm512_cvtepi32_epi64(estimate), 16), residue),
      _mm512_set1_epi64(int64_t{1} << 31));
  // floor(distance / 2^32) * 2^32: the low 32 bits cleared.
  return _mm512_add_epi64(residue,
                          _mm512_and_si512(distance, _mm512_set1_epi64(~int64_t{0xFFFFFFFF})));
}
struct AddWrappedWithEstimate {
  EA_VNNI_TARGET __attribute__((always_inline)) void operator()(__m512i wrapped, __m512i estimate,
                                                                __m512i* sum_lo8,
                                                                __m512i* sum_hi8) const {
    *sum_lo8 = _mm512_add_epi64(*sum_lo8, ExactFromEstimate(_mm512_castsi512_si256(wrapped),
                                                            _mm512_castsi512_si256(estimate)));
    *sum_hi8 =
        _mm512_add_epi64(*sum_hi8, ExactFromEstimate(_mm512_extracti64x4_epi64(wrapped, 1),
                                                     _mm512_extracti64x4_epi64(estimate, 1)));
  }
};

// wrapped[r][b] += pair i of rows[r] times pair i of kBlocks K panels from
// k (panel_values apart), modulo 2^32.
template <int kRows, int kBlocks>
EA_VNNI_TARGET __attribute__((always_inline)) inline void AddWholePair(
    const QueryWithHighBytes* rows, int32_t i, const int16_t* k, size_t panel_values,
    __m512i (&wrapped)[kRows][kBlocks]) {
  __m512i keys[kBlocks];
#pragma GCC unroll 4
  for (int b = 0; b < kBlocks; ++b) keys[b] = _mm512_loadu_si512(k + 32 * i + b * panel_values);
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
    const __m512i qp = _mm512_set1_epi32(WordAt(rows[r].values, 4 * static_cast<size_t>(i)));
#pragma GCC unroll 4
    for (int b = 0; b < kBlocks; ++b) EA_ADD_PAIR_PRODUCTS(wrapped[r][b], qp, keys[b]);
  }
}

// Scores of kRows query rows against kBlocks blocks of 16 keys from j0 on
// (n_keys in all), to scores[r][j0, ...): the whole pairs with vpdpwssd
// (S mod 2^32) and the high bytes with vpdpbusd, four products a lane (the
// estimate), 3 instructions per 4 values and key where splitting q into
// two bytes took 4.
template <int kRows, int kBlocks>
EA_VNNI_TARGET __attribute__((always_inline)) inline void ScoreRowsBlocksS16(
    const QueryWithHighBytes* rows, int32_t pairs, const int16_t* k_pairs,
    const uint8_t* k_high_bytes, int32_t j0, int32_t n_keys, const Requantize64Params& requantize,
    int16_t* const* scores) {
  const int32_t groups = (pairs + 1) / 2;
  const size_t panel_values = static_cast<size_t>(pairs) * 32;
  const size_t high_panel_bytes = static_cast<size_t>(groups) * 64;
  const size_t block = static_cast<size_t>(j0 / kS16PanelColumns);
  const int16_t* k = k_pairs + block * panel_values;
  const uint8_t* k_high = k_high_bytes + block * high_panel_bytes;
  __m512i wrapped[kRows][kBlocks], estimate[kRows][kBlocks];
  SetZero(wrapped);
  SetZero(estimate);
  for (int32_t g = 0; g < groups; ++g) {
    AddWholePair(rows, 2 * g, k, panel_values, wrapped);
    if (2 * g + 1 < pairs) AddWholePair(rows, 2 * g + 1, k, panel_values, wrapped);
    __m512i keys[kBlocks];
#pragma GCC unroll 4
    for (int b = 0; b < kBlocks; ++b) {
      keys[b] = _mm512_loadu_si512(k_high + 64 * static_cast<size_t>(g) + b * high_panel_bytes);
    }
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      const __m512i qh = _mm512_set1_epi32(WordAt(rows[r].high_bytes, 4 * static_cast<size_t>(g)));
#pragma GCC unroll 4
      for (int b = 0; b < kBlocks; ++b) EA_ADD_BYTE_PRODUCTS(estimate[r][b], keys[b], qh);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
    const __m512i offset = _mm512_set1_epi32(rows[r].high_offset);
#pragma GCC unroll 4
    for (int b = 0; b < kBlocks; ++b) estimate[r][b] = _mm512_sub_epi32(estimate[r][b], offset);
  }
  StoreGridS16(wrapped, estimate, AddWrappedWithEstimate{}, j0, n_keys, requantize, scores);
}

// scores[r][j] for r < kS16RowsPerPass, j < n_keys: query rows q[r] (d_k <=
// kS16HighByteMaxDepth values each) against K's pair panels and high-byte
// panels.
EA_VNNI_TARGET inline void ScoreRowsS16(const int16_t* const* q, int32_t d_k,
                                        const int16_t* k_pairs, const uint8_t* k_high_bytes,
                                        int32_t n_keys, const Requantize64Params& requantize,
                                        int16_t* const* scores) {
  const int32_t pairs = (d_k + 1) / 2;
  QueryWithHighBytes rows[kS16RowsPerPass];
  for (int32_t r = 0; r < kS16RowsPerPass; ++r) PrepareQueryRow(q[r], d_k, &rows[r]);
  // 16 accumulators; per 4 values of d_k, 6 key vectors and 3 broadcasts a row.
  constexpr int32_t kBlocks = 2;
  constexpr int32_t kPass = kBlocks * kS16PanelColumns;
  int32_t j = 0;
  for (; j + kPass <= n_keys; j += kPass) {
    ScoreRowsBlocksS16<kS16RowsPerPass, kBlocks>(rows, pairs, k_pairs, k_high_bytes, j, n_keys,
                                                 requantize, scores);
  }
  for (; j < n_keys; j += kS16PanelColumns) {
    ScoreRowsBlocksS16<kS16RowsPerPass, 1>(rows, pairs, k_pairs, k_high_bytes, j, n_keys,
                                           requantize, scores);
  }
}

// 16 int16 entries of row from j on (count of them) as int32 lanes; the others
// are `fill`.
EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i LoadS16AsS32(const int16_t* row,
                                                                          int32_t count,
                                                                          int16_t fill) {
  return _mm512_cvtepi16_epi32(_mm256_mask_loadu_epi16(
      _mm256_set1_epi16(fill), static_cast<__mmask16>(FirstLanes(count)), row));
}

// clamp(requantised (x - row_max) + 32767) to int16, as 16 int16 lanes:
// the scaled difference lies in [INT32_MIN, 0] (the multiplier is below
// 2^31), so the add cannot wrap and only the lower end binds.
EA_VNNI_TARGET __attribute__((always_inline)) inline __m256i CentredDifference(__m512i x,
                                                                               __m512i row_max,
                                                                               int32_t multiplier,
                                                                               int32_t left_shift) {
  const __m512i diff = _mm512_sub_epi32(x, row_max);
  // diff <= 0, so the saturating diff * 2^left_shift can only saturate
  // below, to INT32_MIN, which clamping diff first at -2^(31 - left_shift)
  // gives as well: one max instead of two compares and two blends.
  const __m512i scaled =
      left_shift > 0 && left_shift < 31
          ? DoublingHighMul(
                _mm512_sll_epi32(
                    _mm512_max_epi32(diff, _mm512_set1_epi32(-(int32_t{1} << (31 - left_shift)))),
                    _mm_cvtsi32_si128(left_shift)),
                _mm512_set1_epi32(multiplier))
          : RequantizeLanes(diff, multiplier, left_shift);
  return _mm512_cvtepi32_epi16(_mm512_max_epi32(_mm512_add_epi32(scaled, _mm512_set1_epi32(32767)),
                                                _mm512_set1_epi32(-32768)));
}

// One byte plane of the exp table (SoftmaxS16Tables::exp_planes) at 64 indices
// in [0, 511]: vpermt2b picks from each 128-byte window by the index's low
// seven bits (`low8`, whose bit 7 is the index's), then the index's bits 7
// (`bit7`) and 8 (clear where `below_256`) choose among the four picks.
EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i LookUpBytePlane(const uint8_t* plane,
                                                                             __m512i low8,
                                                                             __mmask64 bit7,
                                                                             __mmask64 below_256) {
  __m512i picks[4];
#pragma GCC unroll 4
  for (int w = 0; w < 4; ++w) {
    picks[w] = _mm512_permutex2var_epi8(_mm512_load_si512(plane + 128 * w), low8,
                                        _mm512_load_si512(plane + 128 * w + 64));
  }
  const __m512i low_half = _mm512_mask_blend_epi8(bit7, picks[0], picks[1]);
  const __m512i high_half = _mm512_mask_blend_epi8(bit7, picks[2], picks[3]);
  return _mm512_mask_blend_epi8(below_256, high_half, low_half);
}

// The exp table's entries index and index + 1 of 64 values, index = 256 +
// (centred >> 7) in [0, 511] as InterpolateTable's, values 32 h + i in lane
// i of centred[h], base[h] and next[h]. Per 64 entries, 21 permutes and 12
// blends where a 16-bit lookup took 32 vpermt2w and 28 blends (plus a copy
// of each table register a vpermt2w overwrites): most of the softmax's
// instructions.
struct ExpTableEntries {
  __m512i base[2], next[2];
};
EA_VNNI_TARGET __attribute__((always_inline)) inline ExpTableEntries LookUpExpTable(
    const SoftmaxS16ExpBytePlanes& planes, const __m512i (&centred)[2]) {
  // The index's bits 0-7 are centred's bits 7-14, the high bytes of
  // centred << 1; its bit 8 is clear where centred < 0.
  alignas(64) static constexpr uint8_t kHighBytes[64] = {
      1,  3,  5,   7,   9,   11,  13,  15,  17,  19,  21,  23,  25,  27,  29,  31,
      33, 35, 37,  39,  41,  43,  45,  47,  49,  51,  53,  55,  57,  59,  61,  63,
      65, 67, 69,  71,  73,  75,  77,  79,  81,  83,  85,  87,  89,  91,  93,  95,
      97, 99, 101, 103, 105, 107, 109, 111, 113, 115, 117, 119, 121, 123, 125, 127};
  const __m512i low8 =
      _mm512_permutex2var_epi8(_mm512_slli_epi16(centred[0], 1), _mm512_load_si512(kHighBytes),
                               _mm512_slli_epi16(centred[1], 1));
  const __mmask64 bit7 = _mm512_movepi8_mask(low8);
  const __mmask64 below_256 =
      _mm512_kunpackd(_mm512_movepi16_mask(centred[1]), _mm512_movepi16_mask(centred[0]));
  const __m512i base_low = LookUpBytePlane(planes.base_low, low8, bit7, below_256);
  const __m512i base_high = LookUpBytePlane(planes.base_high, low8, bit7, below_256);
  const __m512i next_low = LookUpBytePlane(planes.next_low, low8, bit7, below_256);
  const __m512i next_high = LookUpBytePlane(planes.next_high, low8, bit7, below_256);
  // Lane i of half h: low byte 32 h + i, high byte 64 + 32 h + i.
  alignas(64) static constexpr uint8_t kInterleave[2][64] = {
      {0,  64, 1,  65, 2,  66, 3,  67, 4,  68, 5,  69, 6,  70, 7,  71, 8,  72, 9,  73, 10, 74,
       11, 75, 12, 76, 13, 77, 14, 78, 15, 79, 16, 80, 17, 81, 18, 82, 19, 83, 20, 84, 21, 85,
       22, 86, 23, 87, 24, 88, 25, 89, 26, 90, 27, 91, 28, 92, 29, 93, 30, 94, 31, 95},
      {32, 96,  33, 97,  34, 98,  35, 99,  36, 100, 37, 101, 38, 102, 39, 103,
       40, 104, 41, 105, 42, 106, 43, 107, 44, 108, 45, 109, 46, 110, 47, 111,
       48, 112, 49, 113, 50, 114, 51, 115, 52, 116, 53, 117, 54, 118, 55, 119,
       56, 120, 57, 121, 58, 122, 59, 123, 60, 124, 61, 125, 62, 126, 63, 127}};
  ExpTableEntries entries;
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
    const __m512i order = _mm512_load_si512(kInterleave[h]);
    entries.base[h] = _mm512_permutex2var_epi8(base_low, order, base_high);
    entries.next[h] = _mm512_permutex2var_epi8(next_low, order, next_high);
  }
  return entries;
}

// SoftmaxS16Row (softmax_s16.cc) in place on row[0, count), count >= 1, with
// exp_scratch[0, count) for the exponentials. Returns the probabilities' sum.
EA_VNNI_TARGET inline int32_t SoftmaxRowS16(const SoftmaxS16Tables& tables, int32_t multiplier,
                                            int32_t left_shift, int16_t* row, int32_t count,
                                            int16_t* exp_scratch) {
  __m512i max16 = _mm512_set1_epi16(INT16_MIN);
  for (int32_t j = 0; j < count; j += 32) {
    max16 =
        _mm512_max_epi16(max16, _mm512_mask_loadu_epi16(max16, FirstLanes32(count - j), row + j));
  }
  const __m512i row_max = _mm512_set1_epi32(_mm512_reduce_max_epi32(
      _mm512_max_epi32(_mm512_cvtepi16_epi32(_mm512_castsi512_si256(max16)),
                       _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(max16, 1)))));
  __m512i sum = _mm512_setzero_si512();
  for (int32_t j = 0; j < count; j += 64) {
    const __mmask32 valid[2] = {FirstLanes32(count - j), FirstLanes32(count - j - 32)};
    __m512i centred[2];
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      const __m512i scores =
          _mm512_mask_loadu_epi16(_mm512_set1_epi16(INT16_MIN), valid[h], row + j + 32 * h);
      centred[h] = _mm512_inserti64x4(
          _mm512_castsi256_si512(
              CentredDifference(_mm512_cvtepi16_epi32(_mm512_castsi512_si256(scores)), row_max,
                                multiplier, left_shift)),
          CentredDifference(_mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(scores, 1)), row_max,
                            multiplier, left_shift),
          1);
    }
    const ExpTableEntries entries = LookUpExpTable(tables.exp_planes, centred);
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      // InterpolateTable: (slope * low7 + 64) >> 7 = round(slope * (low7 <<
      // 8) / 2^15), which is what vpmulhrsw computes (low7 << 8 < 2^15); the
      // int16 adds wrap as the scalar code's static_cast<int16_t>.
      const __m512i low7_high =
          _mm512_slli_epi16(_mm512_and_si512(centred[h], _mm512_set1_epi16(0x7F)), 8);
      const __m512i value = _mm512_add_epi16(
          entries.base[h],
          _mm512_mulhrs_epi16(_mm512_sub_epi16(entries.next[h], entries.base[h]), low7_high));
      _mm512_mask_storeu_epi16(exp_scratch + j + 32 * h, valid[h], value);
      sum = _mm512_add_epi32(
          sum, _mm512_madd_epi16(_mm512_maskz_mov_epi16(valid[h], value), _mm512_set1_epi16(1)));
    }
  }
  const SoftmaxS16Normalizer normalizer =
      NormalizerOf(_mm512_reduce_add_epi32(sum), tables.ReciprocalTable());
  __m512i prob_sum = _mm512_setzero_si512();
  if (normalizer.right_shift >= 17) {
    // (e * r + 2^(s - 1)) >> s with e * r = 2^16 H + L, L < 2^16, s >= 17:
    // (2^16 (H + 2^(s - 17)) + L) >> s = (H + 2^(s - 17)) >> (s - 16), as L
    // only adds a fraction below 1 to an integer. H = vpmulhuw(e, r) < 2^14
    // (both below 2^15), so 16-bit lanes hold every step and p < 2^13 needs
    // no clamp.
    const __m512i reciprocal = _mm512_set1_epi16(static_cast<int16_t>(normalizer.reciprocal));
    const __m512i round =
        _mm512_set1_epi16(static_cast<int16_t>(1 << (normalizer.right_shift - 17)));
    const __m128i shift = _mm_cvtsi32_si128(normalizer.right_shift - 16);
    for (int32_t j = 0; j < count; j += 32) {
      const __mmask32 valid = FirstLanes32(count - j);
      const __m512i e = _mm512_maskz_loadu_epi16(valid, exp_scratch + j);
      const __m512i p =
          _mm512_srl_epi16(_mm512_add_epi16(_mm512_mulhi_epu16(e, reciprocal), round), shift);
      _mm512_mask_storeu_epi16(row + j, valid, p);
      prob_sum = _mm512_add_epi32(prob_sum, _mm512_madd_epi16(p, _mm512_set1_epi16(1)));
    }
    return _mm512_reduce_add_epi32(prob_sum);
  }
  const __m512i reciprocal = _mm512_set1_epi32(normalizer.reciprocal);
  const __m512i round = _mm512_set1_epi32(int32_t{1} << (normalizer.right_shift - 1));
  const __m128i shift = _mm_cvtsi32_si128(normalizer.right_shift);
  for (int32_t j = 0; j < count; j += 16) {
    const int32_t n = count - j < 16 ? count - j : 16;
    const __mmask16 valid = static_cast<__mmask16>(FirstLanes(n));
    // exp and reciprocal lie in [0, 32767], so 0 <= exp * reciprocal < 2^30
    // and round <= 2^29: int32 holds the sum and p >= 0.
    const __m512i e = LoadS16AsS32(exp_scratch + j, n, 0);
    __m512i p = _mm512_sra_epi32(_mm512_add_epi32(_mm512_mullo_epi32(e, reciprocal), round), shift);
    p = _mm512_min_epi32(p, _mm512_set1_epi32(32767));
    _mm256_mask_storeu_epi16(row + j, valid, _mm512_cvtepi32_epi16(p));
    prob_sum = _mm512_mask_add_epi32(prob_sum, valid, prob_sum, p);
  }
  return _mm512_reduce_add_epi32(prob_sum);
}

// acc[r][b] += pairs [begin, end) of x[r] (n_x values each) times kBlocks
// pair panels from first (panel_values apart): each panel load serves every
// row. The caller keeps end - begin small enough for int32 lanes.
template <int kRows, int kBlocks>
EA_VNNI_TARGET __attribute__((always_inline)) inline void AddRowPairsTimesPanels(
    const int16_t* const* x, int32_t n_x, int32_t begin, int32_t end, const int16_t* first,
    size_t panel_values, __m512i (&acc)[kRows][kBlocks]) {
  for (int32_t p = begin; p < end; ++p) {
    const int16_t* panel = first + 32 * static_cast<size_t>(p);
    __m512i columns[kBlocks];
#pragma GCC unroll 4
    for (int b = 0; b < kBlocks; ++b) columns[b] = _mm512_loadu_si512(panel + b * panel_values);
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      const __m512i xp = _mm512_set1_epi32(PairAt(x[r], p, n_x));
#pragma GCC unroll 4
      for (int b = 0; b < kBlocks; ++b) EA_ADD_PAIR_PRODUCTS(acc[r][b], xp, columns[b]);
    }
  }
}

// Outputs of kBlocks blocks of 16 columns from t0 on (d_v in all).
template <int kBlocks>  // 1 or 4
EA_VNNI_TARGET __attribute__((always_inline)) inline void ContextBlocksS16(
    const int16_t* probs, int32_t n_keys, bool whole, const int16_t* v_pairs, size_t panel_values,
    int32_t t0, int32_t d_v, const Requantize64Params& requantize, int16_t* out) {
  const int32_t pairs = (n_keys + 1) / 2;
  const int16_t* first = v_pairs + static_cast<size_t>(t0 / kS16PanelColumns) * panel_values;
  __m512i sum_lo8[kBlocks], sum_hi8[kBlocks];
  for (int b = 0; b < kBlocks; ++b) sum_lo8[b] = sum_hi8[b] = _mm512_setzero_si512();
  if (whole) {
    __m512i acc[1][kBlocks];
    SetZero(acc);
    AddRowPairsTimesPanels<1, kBlocks>(&probs, n_keys, 0, pairs, first, panel_values, acc);
    for (int b = 0; b < kBlocks; ++b)
      AddSplit(_mm512_setzero_si512(), acc[0][b], &sum_lo8[b], &sum_hi8[b]);
  } else {
    for (int32_t p0 = 0; p0 < pairs; p0 += kS16PairsPerFlush) {
      const int32_t end = pairs - p0 < kS16PairsPerFlush ? pairs : p0 + kS16PairsPerFlush;
      __m512i high[kBlocks], low[kBlocks];
      for (int b = 0; b < kBlocks; ++b) high[b] = low[b] = _mm512_setzero_si512();
      for (int32_t p = p0; p < end; ++p) {
        const int32_t pair = PairAt(probs, p, n_keys);  // both >= 0
        const __m512i pp_high = _mm512_set1_epi32((pair >> 8) & 0x00FF00FF);
        const __m512i pp_low = _mm512_set1_epi32(pair & 0x00FF00FF);
        for (int b = 0; b < kBlocks; ++b) {
          const __m512i v =
              _mm512_loadu_si512(first + b * panel_values + 32 * static_cast<size_t>(p));
          high[b] = _mm512_dpwssd_epi32(high[b], pp_high, v);
          low[b] = _mm512_dpwssd_epi32(low[b], pp_low, v);
        }
      }
      for (int b = 0; b < kBlocks; ++b) AddSplit(high[b], low[b], &sum_lo8[b], &sum_hi8[b]);
    }
  }
  for (int b = 0; b < kBlocks; ++b) {
    const int32_t t = t0 + b * kS16PanelColumns;
    const int32_t count = d_v - t < kS16PanelColumns ? d_v - t : kS16PanelColumns;
    StoreS16(sum_lo8[b], sum_hi8[b], requantize, out + t, count);
  }
}

// out[t] for t < d_v: probs (n_keys values, sum prob_sum) against V's pair
// panels (columns t, depth keys, panel_values int16 per 16 columns).
EA_VNNI_TARGET inline void ContextRowS16(const int16_t* probs, int32_t n_keys, int32_t prob_sum,
                                         const int16_t* v_pairs, size_t panel_values, int32_t d_v,
                                         const Requantize64Params& requantize, int16_t* out) {
  const bool whole = prob_sum < (1 << 16);
  constexpr int32_t kPass = kS16BlocksPerPass * kS16PanelColumns;
  int32_t t = 0;
  for (; t + kPass <= d_v; t += kPass) {
    ContextBlocksS16<kS16BlocksPerPass>(probs, n_keys, whole, v_pairs, panel_values, t, d_v,
                                        requantize, out);
  }
  for (; t < d_v; t += kS16PanelColumns) {
    ContextBlocksS16<1>(probs, n_keys, whole, v_pairs, panel_values, t, d_v, requantize, out);
  }
}

// Outputs of kRows rows, kBlocks blocks of 16 columns from t0 on (d_v in
// all): probs[r] (pairs pairs, zero past the row's keys, every row's
// probabilities summing below 2^16 so that int32 lanes hold the sums, as in
// ContextBlocksS16's whole case) against V's pair panels.
template <int kRows, int kBlocks>
EA_VNNI_TARGET __attribute__((always_inline)) inline void ContextRowsBlocksS16(
    const int16_t* const* probs, int32_t pairs, const int16_t* v_pairs, size_t panel_values,
    int32_t t0, int32_t d_v, const Requantize64Params& requantize, int16_t* const* out) {
  const int16_t* v = v_pairs + static_cast<size_t>(t0 / kS16PanelColumns) * panel_values;
  __m512i acc[kRows][kBlocks];
  SetZero(acc);
  // Every row is zero past its keys, so its pairs are whole (n_x even).
  AddRowPairsTimesPanels<kRows, kBlocks>(probs, 2 * pairs, 0, pairs, v, panel_values, acc);
  __m512i none[kRows][kBlocks];
  SetZero(none);
  StoreGridS16(none, acc, AddSplitSums{}, t0, d_v, requantize, out);
}

// out[r][t] for r < kS16RowsPerPass, t < d_v: probs[r] (n_keys values each,
// zero past the row's visible keys and at n_keys when n_keys is odd, each
// row summing below 2^16) against V's pair panels.
EA_VNNI_TARGET inline void ContextRowsS16(const int16_t* const* probs, int32_t n_keys,
                                          const int16_t* v_pairs, size_t panel_values, int32_t d_v,
                                          const Requantize64Params& requantize,
                                          int16_t* const* out) {
  const int32_t pairs = (n_keys + 1) / 2;
  constexpr int32_t kPass = kS16BlocksPerPass * kS16PanelColumns;
  int32_t t = 0;
  for (; t + kPass <= d_v; t += kPass) {
    ContextRowsBlocksS16<kS16RowsPerPass, kS16BlocksPerPass>(probs, pairs, v_pairs, panel_values, t,
                                                             d_v, requantize, out);
  }
  for (; t < d_v; t += kS16PanelColumns) {
    ContextRowsBlocksS16<kS16RowsPerPass, 1>(probs, pairs, v_pairs, panel_values, t, d_v,
                                             requantize, out);
  }
}

}  // namespace vnni
}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_X86_VNNI_S16_INL_H_
