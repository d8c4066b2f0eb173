// The AVX512-VNNI int16 FULLY_CONNECTED (AVX3_DL only). W stays int8, packed
// in the 4-byte groups of s8_panels.h (PackS8Panels, with W's column sums),
// so a row reads one byte per weight, not the two of W widened to int16
// pairs: a decoder's one-row steps stream every weight once per token and
// were bound by those bytes (0.20.0: 60 % of an int16 step at 512
// positions). Each input is offset to u = x + 32768 in [0, 65535] and split
// into two unsigned bytes, u = 256 * high + low, and the two rows of bytes go
// through the int8 micro-tile (vnni_tile-inl.h, unsigned A) as rows of their
// own: T_high = sum high * w, T_low = sum low * w, exact in int32 over
// kSplitDepth values (2048 * 255 * 128 < 2^31). So
//   sum x * w = 256 * T_high + T_low - 32768 * sum w,
// added in int64 lanes, then the bias and TFLite's 64-bit requantisation:
// the same integers as the scalar kernel. A tile of 6 byte rows takes 3
// input rows, split kSplitDepth values at a time.
#ifndef EDGEATTN_SRC_KERNELS_INT_X86_VNNI_LINEAR_S16_INL_H_
#define EDGEATTN_SRC_KERNELS_INT_X86_VNNI_LINEAR_S16_INL_H_

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/int/int_kernels.h"
#include "kernels/int/s8_panels.h"
#include "kernels/int/x86/avx512_requantize-inl.h"
#include "kernels/int/x86/vnni_s16-inl.h"
#include "kernels/int/x86/vnni_tile-inl.h"
#include "tflite/requantize.h"

namespace edgeattn {
namespace vnni {

// Input values one split of a row holds. SplitRowsS16 writes whole blocks of
// 64 bytes, so the split's rows hold whole blocks too.
inline constexpr int32_t kSplitDepth = 2048;
static_assert(kSplitDepth % 64 == 0, "whole 64-byte blocks per split row");
// Input rows per tile: their high and low byte rows fill kTileRows.
inline constexpr int32_t kS16LinearRows = kTileRows / 2;

// What the epilogue of 16 channels [c, c + 16) of an int16 FULLY_CONNECTED
// needs per lane, made once per block of channels and used for every row:
// the int64 bias (zero without one), and Requantize64's reduced multiplier,
// rounding term and total shift, for the two halves of 8 channels. Lanes past
// n_out are zero and never stored.
struct ChannelsS16 {
  int32_t c, count;
  __m512i bias[2], reduced[2], round[2], total[2];
};
EA_VNNI_TARGET __attribute__((always_inline)) inline ChannelsS16 MakeChannelsS16(
    const int64_t* bias, const int32_t* multiplier, const int32_t* shift, int32_t c,
    int32_t n_out) {
  ChannelsS16 ch;
  ch.c = c;
  ch.count = n_out - c < kS16PanelColumns ? n_out - c : kS16PanelColumns;
  for (int half = 0; half < 2; ++half) {
    const int32_t n = ch.count - 8 * half;
    const __mmask8 valid =
        n >= 8 ? __mmask8{0xFF} : static_cast<__mmask8>(n > 0 ? (1u << n) - 1 : 0u);
    const int32_t first = c + 8 * half;
    // checked to lie within +-2^47 at plan time
    ch.bias[half] =
        bias != nullptr ? _mm512_maskz_loadu_epi64(valid, bias + first) : _mm512_setzero_si512();
    const __m512i m = _mm512_cvtepi32_epi64(_mm256_maskz_loadu_epi32(valid, multiplier + first));
    ch.total[half] =
        _mm512_sub_epi64(_mm512_set1_epi64(15),
                         _mm512_cvtepi32_epi64(_mm256_maskz_loadu_epi32(valid, shift + first)));
    const __mmask8 cut = _mm512_cmplt_epi64_mask(m, _mm512_set1_epi64(0x7FFF0000));
    ch.reduced[half] = _mm512_mask_mov_epi64(
        _mm512_set1_epi64(0x7FFF), cut,
        _mm512_srai_epi64(_mm512_add_epi64(m, _mm512_set1_epi64(1 << 15)), 16));
    ch.round[half] = _mm512_sllv_epi64(_mm512_set1_epi64(1),
                                       _mm512_sub_epi64(ch.total[half], _mm512_set1_epi64(1)));
  }
  return ch;
}

// Requantize64 to int16 of one half of 8 channels' int64 sums plus bias.
EA_VNNI_TARGET __attribute__((always_inline)) inline __m128i Requantize64ToS16PerLane(
    __m512i x, const ChannelsS16& ch, int half) {
  x = _mm512_add_epi64(x, ch.bias[half]);
  x = _mm512_max_epi64(_mm512_min_epi64(x, _mm512_set1_epi64(kRequantize64Limit - 1)),
                       _mm512_set1_epi64(-kRequantize64Limit));
  return _mm512_cvtsepi64_epi16(_mm512_srav_epi64(
      _mm512_add_epi64(_mm512_mullo_epi64(x, ch.reduced[half]), ch.round[half]), ch.total[half]));
}

// The channels' outputs of one row from their int64 sums (two halves of 8),
// to y[c, n_out).
EA_VNNI_TARGET __attribute__((always_inline)) inline void StoreLinearS16(__m512i lo8, __m512i hi8,
                                                                         const ChannelsS16& ch,
                                                                         int16_t* y) {
  const __m256i both =
      _mm256_inserti128_si256(_mm256_castsi128_si256(Requantize64ToS16PerLane(lo8, ch, 0)),
                              Requantize64ToS16PerLane(hi8, ch, 1), 1);
  _mm256_mask_storeu_epi16(y + ch.c, static_cast<__mmask16>(FirstLanes(ch.count)), both);
}

// vpermt2b indexes of the high (first = 1) or low (first = 0) bytes of 64
// int16 lanes held in two vectors.
struct ByteIndexes {
  alignas(64) uint8_t index[64];
};
constexpr ByteIndexes EveryOtherByte(int first) {
  ByteIndexes indexes{};
  for (int i = 0; i < 64; ++i) indexes.index[i] = static_cast<uint8_t>(2 * i + first);
  return indexes;
}
inline constexpr ByteIndexes kHighByteIndexes = EveryOtherByte(1);
inline constexpr ByteIndexes kLowByteIndexes = EveryOtherByte(0);

// Rows x[r][d0, d0 + depth) for r < rows, offset by 32768, split into byte
// rows split[2r * kSplitDepth] (high) and split[(2r + 1) * kSplitDepth]
// (low), 64 values at a time: one vpermt2b gathers the high bytes of two
// vectors, one the low bytes (whole 64-byte blocks are written; the tile
// never reads past depth).
EA_VNNI_TARGET inline void SplitRowsS16(const int16_t* const* x, int32_t rows, int32_t d0,
                                        int32_t depth, uint8_t* split) {
  const __m512i high_bytes = _mm512_load_si512(kHighByteIndexes.index);
  const __m512i low_bytes = _mm512_load_si512(kLowByteIndexes.index);
  const __m512i offset = _mm512_set1_epi16(-32768);
  for (int32_t r = 0; r < rows; ++r) {
    uint8_t* high = split + static_cast<size_t>(2 * r) * kSplitDepth;
    uint8_t* low = high + kSplitDepth;
    for (int32_t t = 0; t < depth; t += 64) {
      const __m512i first = _mm512_xor_si512(
          _mm512_maskz_loadu_epi16(FirstLanes32(depth - t), x[r] + d0 + t), offset);
      const __m512i second = _mm512_xor_si512(
          _mm512_maskz_loadu_epi16(FirstLanes32(depth - t - 32), x[r] + d0 + t + 32), offset);
      _mm512_store_si512(high + t, _mm512_permutex2var_epi8(first, high_bytes, second));
      _mm512_store_si512(low + t, _mm512_permutex2var_epi8(first, low_bytes, second));
    }
  }
}

// y = FULLY_CONNECTED(x) for all of a's rows and channels; a.w_panels
// (PackS8Panels) and a.w_column_sums are W's. Per tile of 64 channels the
// requantisation's terms are made once for all rows, -32768 * sum w folded
// into the bias; rows go kS16LinearRows at a time.
EA_VNNI_TARGET inline void LinearS16Packed(const LinearQArgs<int16_t>& a) {
  alignas(64) uint8_t split[kTileRows * kSplitDepth];
  alignas(64) int32_t tile[kTileRows * kTileColumns];
  const int64_t* bias = static_cast<const int64_t*>(a.bias);
  const size_t panel_bytes = S8PanelBytes(kS8PanelColumns, a.n_in);
  for (int32_t c0 = 0; c0 < a.n_out; c0 += kTileColumns) {
    const int vectors = (a.n_out - c0 < kTileColumns ? a.n_out - c0 + 15 : kTileColumns) / 16;
    ChannelsS16 channels[kTileVectors];
    for (int v = 0; v < vectors; ++v) {
      const int32_t c = c0 + 16 * v;
      channels[v] = MakeChannelsS16(bias, a.multiplier, a.shift, c, a.n_out);
      const __m512i sums = _mm512_maskz_loadu_epi32(FirstLanes(a.n_out - c), a.w_column_sums + c);
      channels[v].bias[0] = _mm512_sub_epi64(
          channels[v].bias[0],
          _mm512_slli_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(sums)), 15));
      channels[v].bias[1] = _mm512_sub_epi64(
          channels[v].bias[1],
          _mm512_slli_epi64(_mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(sums, 1)), 15));
    }
    for (int32_t r0 = 0; r0 < a.rows; r0 += kS16LinearRows) {
      const int32_t rows = a.rows - r0 < kS16LinearRows ? a.rows - r0 : kS16LinearRows;
      const int16_t* x[kS16LinearRows];
      for (int32_t r = 0; r < rows; ++r) x[r] = a.x + static_cast<size_t>(r0 + r) * a.ld_x;
      // 256 T_high + T_low per row and channel, in two int64 halves of 8,
      // kept here between splits of a row longer than kSplitDepth.
      alignas(64) int64_t sums[kS16LinearRows][kTileVectors][16];
      for (int32_t d0 = 0; d0 < a.n_in; d0 += kSplitDepth) {
        const int32_t depth = a.n_in - d0 < kSplitDepth ? a.n_in - d0 : kSplitDepth;
        SplitRowsS16(x, rows, d0, depth, split);
        AnyTile<false>(2 * rows, vectors, split, kSplitDepth, depth,
                       a.w_panels + static_cast<size_t>(c0 / kS8PanelColumns) * panel_bytes +
                           static_cast<size_t>(d0 / kS8GroupDepth) * 64,
                       panel_bytes, tile, kTileColumns);
        const bool first = d0 == 0, last = a.n_in - d0 <= kSplitDepth;
        for (int32_t r = 0; r < rows; ++r) {
          int16_t* y = a.y + static_cast<size_t>(r0 + r) * a.ld_y;
          for (int v = 0; v < vectors; ++v) {
            __m512i lo8 = first ? _mm512_setzero_si512() : _mm512_load_si512(sums[r][v]);
            __m512i hi8 = first ? _mm512_setzero_si512() : _mm512_load_si512(sums[r][v] + 8);
            AddSplit(_mm512_load_si512(tile + (2 * r) * kTileColumns + 16 * v),
                     _mm512_load_si512(tile + (2 * r + 1) * kTileColumns + 16 * v), &lo8, &hi8);
            if (last) {
              StoreLinearS16(lo8, hi8, channels[v], y);
            } else {
              _mm512_store_si512(sums[r][v], lo8);
              _mm512_store_si512(sums[r][v] + 8, hi8);
            }
          }
        }
      }
    }
  }
}

}  // namespace vnni
}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_X86_VNNI_LINEAR_S16_INL_H_
