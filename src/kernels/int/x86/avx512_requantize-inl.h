// AVX-512 versions of the scalar integer steps the packed int8 path runs
// per element (requantize.h, softmax_s8.cc): the same arithmetic, 16 lanes at
// a time, so the results are the scalar ones bit for bit. Only the AVX3_DL
// target includes this file (next to vnni_tile-inl.h).
#ifndef EDGEATTN_SRC_KERNELS_INT_X86_AVX512_REQUANTIZE_INL_H_
#define EDGEATTN_SRC_KERNELS_INT_X86_AVX512_REQUANTIZE_INL_H_

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/int/softmax_s16.h"  // kMaxFixedPointKeys
#include "kernels/int/softmax_s8.h"
#include "kernels/int/x86/vnni_tile-inl.h"
#include "tflite/fixed_point_math.h"
#include "tflite/requantize.h"

namespace edgeattn {
namespace vnni {

// gemmlowp's (product + nudge) / 2^31 truncated toward zero, nudge 2^30 for
// product >= 0 and 1 - 2^30 below, per 64-bit lane. For a negative product
// that truncation is a ceiling, ceil((p + 1 - 2^30) / 2^31) =
// floor((p + 2^30) / 2^31), which is the non-negative case's floor: one add
// and one arithmetic shift for every sign.
EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i HighHalf(__m512i product) {
  return _mm512_srai_epi64(_mm512_add_epi64(product, _mm512_set1_epi64(int64_t{1} << 30)), 31);
}

// RoundingDoublingHighMul(x, m) per lane for m >= 0 (no MIN * MIN case).
EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i DoublingHighMul(__m512i x, __m512i m) {
  const __m512i even = HighHalf(_mm512_mul_epi32(x, m));
  const __m512i odd =
      HighHalf(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), _mm512_srli_epi64(m, 32)));
  return _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
}

// RoundingDivideByPowerOfTwo(x, exponent) per lane, exponent in [0, 31].
EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i DivideByPowerOfTwo(__m512i x,
                                                                                int exponent) {
  const __m512i mask = _mm512_set1_epi32(static_cast<int32_t>((int64_t{1} << exponent) - 1));
  const __m512i remainder = _mm512_and_si512(x, mask);
  const __mmask16 negative = _mm512_cmplt_epi32_mask(x, _mm512_setzero_si512());
  const __m512i threshold = _mm512_mask_add_epi32(_mm512_srai_epi32(mask, 1), negative,
                                                  _mm512_srai_epi32(mask, 1), _mm512_set1_epi32(1));
  const __mmask16 up = _mm512_cmpgt_epi32_mask(remainder, threshold);
  const __m512i shifted = _mm512_sra_epi32(x, _mm_cvtsi32_si128(exponent));
  return _mm512_mask_add_epi32(shifted, up, shifted, _mm512_set1_epi32(1));
}

// Requantize(x, multiplier, shift) per lane (double rounding; single-rounding
// builds take the scalar epilogues), multiplier >= 0.
EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i RequantizeLanes(__m512i x,
                                                                             int32_t multiplier,
                                                                             int32_t shift) {
  if (shift > 0) {  // saturating x * 2^shift
    const __m512i limit = _mm512_set1_epi32(INT32_MAX >> shift);
    const __mmask16 high = _mm512_cmpgt_epi32_mask(x, limit);
    const __mmask16 low =
        _mm512_cmplt_epi32_mask(x, _mm512_set1_epi32(-(int32_t{1} << (31 - shift))));
    x = _mm512_sll_epi32(x, _mm_cvtsi32_si128(shift));
    x = _mm512_mask_mov_epi32(x, high, _mm512_set1_epi32(INT32_MAX));
    x = _mm512_mask_mov_epi32(x, low, _mm512_set1_epi32(INT32_MIN));
  }
  const __m512i y = DoublingHighMul(x, _mm512_set1_epi32(multiplier));
  return shift < 0 ? DivideByPowerOfTwo(y, -shift) : y;
}

// Requantize(x, multiplier, shift) + zero_point, 16 lanes, as int32 lanes
// whose saturation to int8 is the result (the Wide functions below are the
// same: their callers narrow 16 or 64 lanes at once). Beyond +-2^24 the int8
// result is saturated either way: clamped first so that adding the zero
// point cannot wrap.
EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i RequantizeToS8Wide(
    __m512i x, int32_t multiplier, int32_t shift, int32_t zero_point) {
  __m512i y = RequantizeLanes(x, multiplier, shift);
  y = _mm512_max_epi32(_mm512_min_epi32(y, _mm512_set1_epi32(1 << 24)),
                       _mm512_set1_epi32(-(1 << 24)));
  return _mm512_add_epi32(y, _mm512_set1_epi32(zero_point));
}

// RequantizeToS8Wide with the per-call constants made once. For shift in
// [-22, -1] (scores and P V outputs in practice) TFLite's two roundings are
// one: with p = x m in 64 bits, SRDHM is h = floor((p + 2^30) / 2^31) and
// the rounding divide floor((h + 2^(e-1) - [h < 0]) / 2^e) for e = -shift,
// and floor(floor(a / 2^31) / 2^e) = floor(a / 2^(31+e)) for integer a, so
//   result + zero_point = floor((p + 2^30 + 2^(30+e) - [p < -2^30] 2^31
//                                + zero_point 2^(31+e)) / 2^(31+e)),
// 12 instructions per 16 lanes instead of 20, before the narrowing.
// |p| < 2^62 and e <= 22 keep the sum inside int64 and the result inside
// int32, so the even lanes' results are their int64 lanes' low halves, and
// the odd lanes', shifted by e - 1 only, their high halves: one blend puts
// the 16 in order as int32, whose saturation to int8 (NarrowFourToS8, or
// VPMOVSDB for a short row) is the result. Other shifts take
// RequantizeToS8Wide.
struct S8Requantizer {
  int32_t multiplier, shift, zero_point;
  bool single_shift;
  __m512i wide_multiplier, bias;
  __m128i total_shift, odd_shift;  // 31 + e, and 31 + e - 32 for the high halves
};

EA_VNNI_TARGET inline S8Requantizer MakeS8Requantizer(int32_t multiplier, int32_t shift,
                                                      int32_t zero_point) {
  S8Requantizer q{};
  q.multiplier = multiplier;
  q.shift = shift;
  q.zero_point = zero_point;
  q.single_shift = shift <= -1 && shift >= -22;
  if (q.single_shift) {
    const int e = -shift;
    q.wide_multiplier = _mm512_set1_epi64(multiplier);
    q.bias = _mm512_set1_epi64((int64_t{1} << 30) + (int64_t{1} << (30 + e)) +
                               static_cast<int64_t>(zero_point) * (int64_t{1} << (31 + e)));
    q.total_shift = _mm_cvtsi32_si128(31 + e);
    q.odd_shift = _mm_cvtsi32_si128(e - 1);
  }
  return q;
}

// p + bias - [p < -2^30] 2^31 of 8 products p (64-bit lanes), the
// numerator above.
EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i Biased(__m512i product, __m512i bias) {
  return _mm512_mask_sub_epi64(
      _mm512_add_epi64(product, bias),
      _mm512_cmplt_epi64_mask(product, _mm512_set1_epi64(-(int64_t{1} << 30))),
      _mm512_add_epi64(product, bias), _mm512_set1_epi64(int64_t{1} << 31));
}

// The 16 results of the even lanes (rounded in their low halves) and the odd
// ones (in their high halves), in lane order, as int32.
EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i MergeEvenOdd(__m512i even,
                                                                          __m512i odd) {
  return _mm512_mask_blend_epi32(0xAAAA, even, odd);
}

EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i RequantizeWide(
    __m512i x, const S8Requantizer& q) {
  if (!q.single_shift) return RequantizeToS8Wide(x, q.multiplier, q.shift, q.zero_point);
  const __m512i even = _mm512_mul_epi32(x, q.wide_multiplier);
  const __m512i odd = _mm512_mul_epi32(_mm512_srli_epi64(x, 32), q.wide_multiplier);
  return MergeEvenOdd(_mm512_sra_epi64(Biased(even, q.bias), q.total_shift),
                      _mm512_sra_epi64(Biased(odd, q.bias), q.odd_shift));
}

// Requantize64 (requantize.h) of 8 int64 lanes, saturated to int16: x
// clamped to TFLite's +-2^47, times the 16-bit multiplier (|product| < 2^62),
// one rounding shift by 15 - shift in [8, 46], then VPMOVSQW's saturation.
struct Requantize64Params {
  __m512i reduced_multiplier, round, lower, upper;
  __m128i total_shift;
};
EA_VNNI_TARGET inline Requantize64Params MakeRequantize64(int32_t multiplier, int32_t shift) {
  const int64_t reduced = multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
  const int total_shift = 15 - shift;
  return {_mm512_set1_epi64(reduced), _mm512_set1_epi64(int64_t{1} << (total_shift - 1)),
          _mm512_set1_epi64(-kRequantize64Limit), _mm512_set1_epi64(kRequantize64Limit - 1),
          _mm_cvtsi32_si128(total_shift)};
}
EA_VNNI_TARGET __attribute__((always_inline)) inline __m128i Requantize64ToS16(
    __m512i x, const Requantize64Params& p) {
  x = _mm512_max_epi64(_mm512_min_epi64(x, p.upper), p.lower);
  const __m512i y = _mm512_sra_epi64(
      _mm512_add_epi64(_mm512_mullo_epi64(x, p.reduced_multiplier), p.round), p.total_shift);
  return _mm512_cvtsepi64_epi16(y);
}

// The same with a multiplier and shift per lane (per-channel projections).
EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i RequantizeToS8PerLaneWide(
    __m512i x, __m512i multiplier, __m512i shift, int32_t zero_point) {
  const __m512i zero = _mm512_setzero_si512();
  const __m512i left = _mm512_max_epi32(shift, zero);
  const __m512i right = _mm512_max_epi32(_mm512_sub_epi32(zero, shift), zero);
  const __mmask16 high =
      _mm512_cmpgt_epi32_mask(x, _mm512_srav_epi32(_mm512_set1_epi32(INT32_MAX), left));
  const __mmask16 low =
      _mm512_cmplt_epi32_mask(x, _mm512_srav_epi32(_mm512_set1_epi32(INT32_MIN), left));
  x = _mm512_sllv_epi32(x, left);
  x = _mm512_mask_mov_epi32(x, high, _mm512_set1_epi32(INT32_MAX));
  x = _mm512_mask_mov_epi32(x, low, _mm512_set1_epi32(INT32_MIN));
  const __m512i y = DoublingHighMul(x, multiplier);
  const __m512i mask =
      _mm512_sub_epi32(_mm512_sllv_epi32(_mm512_set1_epi32(1), right), _mm512_set1_epi32(1));
  const __mmask16 negative = _mm512_cmplt_epi32_mask(y, zero);
  const __m512i half = _mm512_srai_epi32(mask, 1);
  const __m512i threshold = _mm512_mask_add_epi32(half, negative, half, _mm512_set1_epi32(1));
  const __mmask16 up = _mm512_cmpgt_epi32_mask(_mm512_and_si512(y, mask), threshold);
  __m512i rounded = _mm512_srav_epi32(y, right);
  rounded = _mm512_mask_add_epi32(rounded, up, rounded, _mm512_set1_epi32(1));
  rounded = _mm512_max_epi32(_mm512_min_epi32(rounded, _mm512_set1_epi32(1 << 24)),
                             _mm512_set1_epi32(-(1 << 24)));
  return _mm512_add_epi32(rounded, _mm512_set1_epi32(zero_point));
}

// Bytes [0, count) of a 16-byte block, count in [0, 16].
inline __mmask16 FirstLanes(int32_t count) {
  return static_cast<__mmask16>(count >= 16 ? 0xFFFF : (1u << count) - 1);
}

// S8Requantizer's single rounding with a multiplier and shift per lane (a
// projection's channels), for 16 channels whose shifts all lie in [-22, -1]
// and whose multipliers are >= 0; any other block takes
// RequantizeToS8PerLaneWide. The per-lane constants are made once per block of
// channels and serve every row: 13 instructions per 16 lanes instead of 27.
struct S8LaneRequantizer {
  bool single_shift;
  __m512i multiplier, shift;  // as loaded, for the fallback
  int32_t zero_point;
  __m512i odd_multiplier, even_bias, odd_bias, even_shift, odd_shift;
};

EA_VNNI_TARGET __attribute__((always_inline)) inline S8LaneRequantizer MakeS8LaneRequantizer(
    const int32_t* multiplier, const int32_t* shift, int32_t count, int32_t zero_point) {
  S8LaneRequantizer q;
  const __mmask16 lanes = FirstLanes(count);
  // Lanes past count get multiplier 0 and shift -1: valid, and never stored.
  q.multiplier = _mm512_maskz_loadu_epi32(lanes, multiplier);
  q.shift = _mm512_mask_loadu_epi32(_mm512_set1_epi32(-1), lanes, shift);
  q.zero_point = zero_point;
  const __mmask16 in_range = _mm512_cmple_epi32_mask(q.shift, _mm512_set1_epi32(-1)) &
                             _mm512_cmpge_epi32_mask(q.shift, _mm512_set1_epi32(-22)) &
                             _mm512_cmpge_epi32_mask(q.multiplier, _mm512_setzero_si512());
  q.single_shift = in_range == 0xFFFF;
  // e = -shift of the even and odd int32 lanes, as int64 lanes; the bias
  // 2^30 + 2^(30+e) + zero_point 2^(31+e) = 2^30 + (1 + 2 zero_point) 2^(30+e).
  const __m512i e = _mm512_sub_epi32(_mm512_setzero_si512(), q.shift);
  const __m512i even_e = _mm512_srai_epi64(_mm512_slli_epi64(e, 32), 32);
  const __m512i odd_e = _mm512_srai_epi64(e, 32);
  const __m512i odd_one_plus = _mm512_set1_epi64(1 + 2 * static_cast<int64_t>(zero_point));
  const __m512i quarter = _mm512_set1_epi64(int64_t{1} << 30);
  q.odd_multiplier = _mm512_srli_epi64(q.multiplier, 32);
  q.even_bias = _mm512_add_epi64(
      quarter, _mm512_sllv_epi64(odd_one_plus, _mm512_add_epi64(even_e, _mm512_set1_epi64(30))));
  q.odd_bias = _mm512_add_epi64(
      quarter, _mm512_sllv_epi64(odd_one_plus, _mm512_add_epi64(odd_e, _mm512_set1_epi64(30))));
  q.even_shift = _mm512_add_epi64(even_e, _mm512_set1_epi64(31));
  q.odd_shift = _mm512_sub_epi64(odd_e, _mm512_set1_epi64(1));  // high halves, as above
  return q;
}

EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i RequantizeWide(
    __m512i x, const S8LaneRequantizer& q) {
  if (!q.single_shift) return RequantizeToS8PerLaneWide(x, q.multiplier, q.shift, q.zero_point);
  const __m512i even = _mm512_mul_epi32(x, q.multiplier);
  const __m512i odd = _mm512_mul_epi32(_mm512_srli_epi64(x, 32), q.odd_multiplier);
  return MergeEvenOdd(_mm512_srav_epi64(Biased(even, q.even_bias), q.even_shift),
                      _mm512_srav_epi64(Biased(odd, q.odd_bias), q.odd_shift));
}

// 64 int32 lanes (a, b, c, d in order) saturated to int8 in order: two
// VPACKSSDW and a VPACKSSWB (saturating twice is saturating once) leave
// 128-bit lane L holding 4 bytes each of a, b, c and d from lane L, and one
// VPERMD puts those dwords in order. Four VPMOVSDB took two uops each on the
// shuffle port (Intel's port 5) and 2.5 cycles each on Zen 4 (llvm-mca).
EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i NarrowFourToS8(__m512i a, __m512i b,
                                                                            __m512i c, __m512i d) {
  const __m512i packed = _mm512_packs_epi16(_mm512_packs_epi32(a, b), _mm512_packs_epi32(c, d));
  // Result dword 4 g + L (g: a, b, c, d) is packed dword 4 L + g.
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_permutexvar_epi32(order, packed);
}

// out[j] = the int8 result of lanes[j] for j < count, count in
// [1, 64]: one row of a tile, whose 16-lane block b takes requantizer
// q[b * q_step] (q_step 0: one requantizer for the row). Rows of more than
// 48 lanes narrow their four blocks at once.
template <class Requantizer>
EA_VNNI_TARGET __attribute__((always_inline)) inline void StoreRequantizedRow(
    const int32_t* lanes, int32_t count, const Requantizer* q, size_t q_step, int8_t* out) {
  if (count > 48) {
    const __m512i bytes =
        NarrowFourToS8(RequantizeWide(_mm512_loadu_si512(lanes), q[0]),
                       RequantizeWide(_mm512_loadu_si512(lanes + 16), q[q_step]),
                       RequantizeWide(_mm512_loadu_si512(lanes + 32), q[2 * q_step]),
                       RequantizeWide(_mm512_loadu_si512(lanes + 48), q[3 * q_step]));
    _mm512_mask_storeu_epi8(out, FirstBytes(count), bytes);
    return;
  }
  for (int32_t j = 0; j < count; j += 16) {
    _mm_mask_storeu_epi8(
        out + j, FirstLanes(count - j),
        _mm512_cvtsepi32_epi8(RequantizeWide(_mm512_loadu_si512(lanes + j),
                                             q[static_cast<size_t>(j / 16) * q_step])));
  }
}

// A 256-entry byte table in four registers, and its lookup for 64 indices:
// vpermi2b picks from 128 entries by the index's low 7 bits, bit 7 picks the half.
struct ByteTable {
  __m512i quarter[4];
};

EA_VNNI_TARGET __attribute__((always_inline)) inline ByteTable LoadByteTable(const uint8_t* t) {
  return {{_mm512_loadu_si512(t), _mm512_loadu_si512(t + 64), _mm512_loadu_si512(t + 128),
           _mm512_loadu_si512(t + 192)}};
}

EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i Lookup(const ByteTable& t,
                                                                    __m512i index) {
  const __m512i low = _mm512_permutex2var_epi8(t.quarter[0], index, t.quarter[1]);
  const __m512i high = _mm512_permutex2var_epi8(t.quarter[2], index, t.quarter[3]);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(index), low, high);
}

// The largest and the smallest of 64 signed bytes.
struct ByteRange {
  int32_t max, min;
};
EA_VNNI_TARGET inline ByteRange RangeOfBytes(__m512i max_bytes, __m512i min_bytes) {
  const __m256i hi =
      _mm256_max_epi8(_mm512_castsi512_si256(max_bytes), _mm512_extracti64x4_epi64(max_bytes, 1));
  const __m256i lo =
      _mm256_min_epi8(_mm512_castsi512_si256(min_bytes), _mm512_extracti64x4_epi64(min_bytes, 1));
  __m128i h = _mm_max_epi8(_mm256_castsi256_si128(hi), _mm256_extracti128_si256(hi, 1));
  __m128i l = _mm_min_epi8(_mm256_castsi256_si128(lo), _mm256_extracti128_si256(lo, 1));
  h = _mm_max_epi8(h, _mm_bsrli_si128(h, 8));
  l = _mm_min_epi8(l, _mm_bsrli_si128(l, 8));
  h = _mm_max_epi8(h, _mm_bsrli_si128(h, 4));
  l = _mm_min_epi8(l, _mm_bsrli_si128(l, 4));
  h = _mm_max_epi8(h, _mm_bsrli_si128(h, 2));
  l = _mm_min_epi8(l, _mm_bsrli_si128(l, 2));
  h = _mm_max_epi8(h, _mm_bsrli_si128(h, 1));
  l = _mm_min_epi8(l, _mm_bsrli_si128(l, 1));
  return {static_cast<int8_t>(_mm_cvtsi128_si32(h)), static_cast<int8_t>(_mm_cvtsi128_si32(l))};
}

// A byte table's lookup for the lanes of `lanes` (the others 0). kLowHalf:
// every kept index is below 128, or every entry from 128 on is 0; one
// vpermt2b over the first 128 entries, with the lanes whose index has bit 7
// set zeroed, is then the lookup.
template <bool kLowHalf>
EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i LookupLanes(const ByteTable& t,
                                                                         __m512i index,
                                                                         __mmask64 lanes) {
  if (kLowHalf) {
    return _mm512_maskz_permutex2var_epi8(lanes & ~_mm512_movepi8_mask(index), t.quarter[0], index,
                                          t.quarter[1]);
  }
  return _mm512_maskz_mov_epi8(lanes, Lookup(t, index));
}

// 4-byte sums of 64 unsigned bytes, added into 16 int32 lanes (vpdpbusd by
// ones: one instruction where vpsadbw needs an add).
EA_VNNI_TARGET __attribute__((always_inline)) inline __m512i AddBytes(__m512i sums, __m512i bytes) {
  return _mm512_dpbusd_epi32(sums, bytes, _mm512_set1_epi8(1));
}

// A row's count is at most kMaxFixedPointKeys, so every int32 lane below
// (at most 256 per entry) and every total fits.
static_assert(int64_t{256} * kMaxFixedPointKeys < (int64_t{1} << 31), "int32 sums of a row");

// The row's sum of exponentials (Q12.19, below 2^20 per entry) from the
// plan's three byte planes of its terms, d = max - x per entry.
template <bool kLowHalf>
EA_VNNI_TARGET inline int64_t SumOfExponentials(const SoftmaxS8Table& table, const int8_t* row,
                                                int32_t count, __m512i vmax) {
  const ByteTable planes[3] = {LoadByteTable(table.sum_term_bytes[0]),
                               LoadByteTable(table.sum_term_bytes[1]),
                               LoadByteTable(table.sum_term_bytes[2])};
  __m512i sums[3] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
  for (int32_t j = 0; j < count; j += 64) {
    const __mmask64 lanes = FirstBytes(count - j);
    const __m512i d = _mm512_sub_epi8(vmax, _mm512_maskz_loadu_epi8(lanes, row + j));
    // Unrolled, so that the tables and sums stay in registers (GCC's -O2
    // kept them in memory).
#pragma GCC unroll 3
    for (int plane = 0; plane < 3; ++plane) {
      sums[plane] = AddBytes(sums[plane], LookupLanes<kLowHalf>(planes[plane], d, lanes));
    }
  }
  return _mm512_reduce_add_epi32(sums[0]) + 256 * int64_t{_mm512_reduce_add_epi32(sums[1])} +
         65536 * int64_t{_mm512_reduce_add_epi32(sums[2])};
}

// The outputs from the row's table of p + 128 per d: into p_row as uint8
// and into row as int8 (p + 128 - 256 = the int8 probability, by xor); returns
// the sum of p + 128.
template <bool kLowHalf>
EA_VNNI_TARGET inline uint32_t WriteProbabilities(const ByteTable& outputs, int8_t* row,
                                                  int32_t count, __m512i vmax, uint8_t* p_row) {
  __m512i sums = _mm512_setzero_si512();
  for (int32_t j = 0; j < count; j += 64) {
    const __mmask64 lanes = FirstBytes(count - j);
    const __m512i d = _mm512_sub_epi8(vmax, _mm512_maskz_loadu_epi8(lanes, row + j));
    const __m512i p_plus_128 = LookupLanes<kLowHalf>(outputs, d, lanes);
    sums = AddBytes(sums, p_plus_128);
    _mm512_mask_storeu_epi8(p_row + j, lanes, p_plus_128);
    _mm512_mask_storeu_epi8(row + j, lanes, _mm512_xor_si512(p_plus_128, _mm512_set1_epi8(-128)));
  }
  return static_cast<uint32_t>(_mm512_reduce_add_epi32(sums));
}

// SoftmaxS8Row (softmax_s8.cc) 64 entries at a time, in place on `row`, plus
// the probabilities + 128 as uint8 into p_row (the next dot product's left
// operand); returns their sum. count in [1, kMaxFixedPointKeys]. Every
// per-entry value depends only on d = max - x in [0, 255]: the sum's terms
// come from the plan's byte planes, and the outputs from a 256-byte table
// built for the row, over the differences the row has (d <= max - min) and
// only up to the first block of 16 from which every output is probability 0.
// Where no d of the row reaches 128, or every output from 128 on is 0, each
// lookup is one permute instead of two and a blend.
EA_VNNI_TARGET inline uint32_t SoftmaxS8Row(const SoftmaxS8Table& table, int8_t* row, int32_t count,
                                            uint8_t* p_row) {
  __m512i max_bytes = _mm512_set1_epi8(-128);
  __m512i min_bytes = _mm512_set1_epi8(127);
  for (int32_t j = 0; j < count; j += 64) {
    const __mmask64 lanes = FirstBytes(count - j);
    max_bytes =
        _mm512_max_epi8(max_bytes, _mm512_mask_loadu_epi8(_mm512_set1_epi8(-128), lanes, row + j));
    min_bytes =
        _mm512_min_epi8(min_bytes, _mm512_mask_loadu_epi8(_mm512_set1_epi8(127), lanes, row + j));
  }
  const ByteRange range = RangeOfBytes(max_bytes, min_bytes);
  const int32_t max = range.max;
  const int32_t largest_d = max - range.min;
  const __m512i vmax = _mm512_set1_epi8(static_cast<int8_t>(max));
  const int64_t sum = largest_d < 128 ? SumOfExponentials<true>(table, row, count, vmax)
                                      : SumOfExponentials<false>(table, row, count, vmax);
  if (sum >= int64_t{1} << 28) {  // past TFLite's abort limit: all 0 (softmax_s8.h)
    for (int32_t j = 0; j < count; ++j) {
      row[j] = -128;
      p_row[j] = 0;
    }
    return 0;
  }
  int bits_over_unit = 0;
  const int32_t scale_q31 = Reciprocal(static_cast<int32_t>(sum), 12, &bits_over_unit);
  const __m512i scale = _mm512_set1_epi32(scale_q31);
  const int exponent = bits_over_unit + 31 - 8;
  // The row's output table: p + 128 for every d the row has, probability 1
  // clamped to 255, up to the first block from which every p + 128 is 0;
  // entries past that block or past max - min stay 0 (never looked up for a
  // lane that is kept, or probability 0).
  alignas(64) uint8_t outputs[256];
  for (int d = 0; d < 256; d += 64) _mm512_store_si512(outputs + d, _mm512_setzero_si512());
  static_assert(kSoftmaxS8Block == 16, "one block of differences per vector");
  int32_t end = 0;  // the table's entries from `end` on are 0
  for (; end <= largest_d; end += 16) {
    if (ZeroFromBlock(table, end / kSoftmaxS8Block, scale_q31, exponent)) break;
    const __m512i e = _mm512_loadu_si512(table.exp_q31 + end);
    const __m512i p_plus_128 = _mm512_min_epi32(
        DivideByPowerOfTwo(DoublingHighMul(scale, e), exponent), _mm512_set1_epi32(255));
    _mm_store_si128(reinterpret_cast<__m128i*>(outputs + end), _mm512_cvtepi32_epi8(p_plus_128));
  }
  const ByteTable output_table = LoadByteTable(outputs);
  return end <= 128 ? WriteProbabilities<true>(output_table, row, count, vmax, p_row)
                    : WriteProbabilities<false>(output_table, row, count, vmax, p_row);
}

}  // namespace vnni
}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_X86_AVX512_REQUANTIZE_INL_H_
