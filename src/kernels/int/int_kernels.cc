// Per-target instantiation and dispatch of the fixed-point kernels
// (int_kernels.h): the dot products are Highway code
// (integer_dot-inl.h); softmax and requantisation are scalar integer code
// shared by every target, so the integers cannot differ between targets.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/int/int_kernels.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "kernels/int/arm/dsp_dot_s16.h"
#include "kernels/int/arm/dsp_dot_s8.h"
#include "kernels/int/arm/mve_dot_s8.h"
#include "kernels/int/arm/mve_requantize.h"
#include "kernels/int/attention_rows.h"
#include "kernels/int/int_kernels.h"
#include "kernels/int/integer_dot-inl.h"
#include "kernels/int/s8_panels.h"
#include "kernels/int/softmax_s16.h"
#include "kernels/int/softmax_s8.h"
#include "tflite/requantize.h"
#if HWY_TARGET == HWY_AVX3_DL
#include "kernels/int/x86/avx512_requantize-inl.h"
#include "kernels/int/x86/vnni_kv_panels-inl.h"
#include "kernels/int/x86/vnni_linear_s16-inl.h"
#include "kernels/int/x86/vnni_s16-inl.h"
#include "kernels/int/x86/vnni_tile-inl.h"
#endif

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {

template <typename T>
HWY_INLINE FourRows<T> RowsFrom(const T* first, size_t ld, int32_t available) {
  FourRows<T> rows;
  for (int32_t r = 0; r < 4; ++r) {
    rows.row[r] = first + static_cast<size_t>(r < available ? r : available - 1) * ld;
  }
  return rows;
}

#if HWY_TARGET == HWY_AVX3_DL
// The packed projection: W's panels hold w + 128 (vpdpbusd's unsigned
// operand), x is the signed one, so
//   bias + sum w (x + x_offset) = sum (w + 128) x - 128 sum x + x_offset sum w + bias,
// modulo 2^32: a term per row and a term per column, where the tile starts.
// Columns go in chunks of kLinearS8Chunk, whose column terms and
// requantizers are made once for all rows (128: as fast as 256 here, and a
// 7 KB stack frame instead of 12 KB).
inline constexpr int32_t kLinearS8Chunk = 128;

EA_VNNI_TARGET void LinearS8Packed(const LinearQArgs<int8_t>& a) {
  const int32_t* bias = static_cast<const int32_t*>(a.bias);
  constexpr int32_t kTile = vnni::kTileColumns;
  static_assert(kLinearS8Chunk % kTile == 0, "whole tiles per chunk");
  alignas(64) int32_t tile[vnni::kTileRows * kTile];
  alignas(64) int32_t column_term[kLinearS8Chunk];
  vnni::S8LaneRequantizer requantizers[kLinearS8Chunk / 16];
  const size_t panel_bytes = static_cast<size_t>(RoundUp(static_cast<uint64_t>(a.n_in), 4)) * 16;
  const __m512i x_offset = _mm512_set1_epi32(a.input_offset);
  for (int32_t chunk = 0; chunk < a.n_out; chunk += kLinearS8Chunk) {
    const int32_t chunk_width = a.n_out - chunk < kLinearS8Chunk ? a.n_out - chunk : kLinearS8Chunk;
    for (int32_t c = 0; c < chunk_width; c += 16) {
      const __mmask16 lanes = vnni::FirstLanes(chunk_width - c);
      __m512i term = _mm512_mullo_epi32(
          _mm512_maskz_loadu_epi32(lanes, a.w_column_sums + chunk + c), x_offset);
      if (bias != nullptr)
        term = _mm512_add_epi32(term, _mm512_maskz_loadu_epi32(lanes, bias + chunk + c));
      _mm512_store_si512(column_term + c, term);
      requantizers[c / 16] = vnni::MakeS8LaneRequantizer(
          a.multiplier + chunk + c, a.shift + chunk + c, chunk_width - c, a.output_offset);
    }
    for (int32_t r0 = 0; r0 < a.rows; r0 += vnni::kTileRows) {
      const int32_t m = a.rows - r0 < vnni::kTileRows ? a.rows - r0 : vnni::kTileRows;
      const int8_t* x = a.x + static_cast<size_t>(r0) * a.ld_x;
      int32_t row_term[vnni::kTileRows];
      for (int32_t i = 0; i < m; ++i) {
        row_term[i] = static_cast<int32_t>(
            0u - 128u * vnni::SumOfRow(x + static_cast<size_t>(i) * a.ld_x, a.n_in));
      }
      for (int32_t c0 = 0; c0 < chunk_width; c0 += kTile) {
        const int32_t width = chunk_width - c0 < kTile ? chunk_width - c0 : kTile;
        vnni::AnyTile<true>(m, (width + 15) / 16, reinterpret_cast<const uint8_t*>(x), a.ld_x,
                            a.n_in,
                            a.w_panels + static_cast<size_t>((chunk + c0) / 16) * panel_bytes,
                            panel_bytes, tile, kTile, {column_term + c0, row_term});
        for (int32_t i = 0; i < m; ++i) {
          vnni::StoreRequantizedRow(tile + i * kTile, width, requantizers + c0 / 16, 1,
                                    a.y + static_cast<size_t>(r0 + i) * a.ld_y + chunk + c0);
        }
      }
    }
  }
}
#endif

#if HWY_TARGET == HWY_SCALAR && EDGEATTN_DSP_DOT_S8
// Cortex-M4/M7 (dsp_dot_s8.h): one or two rows of A widened once with their
// offset, then the assembly loops against B's rows; the depth % 4 tail in C.

// a[0] (and a[1] when rows == 2) widened for the loop of that many rows.
HWY_INLINE void DspWiden(const int8_t* const a[2], int32_t rows, int32_t offset, int32_t n,
                         uint32_t* pairs) {
  if (rows == 2) {
    WidenS8PairsTwoRows(a[0], a[1], offset, n, pairs);
  } else {
    WidenS8Pairs(a[0], offset, n, pairs);
  }
}

// sum_{t in [from, n)} (a[t] + offset) * b[t] modulo 2^32: the depth the
// loops leave.
HWY_INLINE uint32_t DspTail(const int8_t* a, int32_t offset, const int8_t* b, int32_t from,
                            int32_t n) {
  uint32_t sum = 0;
  for (int32_t t = from; t < n; ++t) sum += static_cast<uint32_t>((a[t] + offset) * b[t]);
  return sum;
}

// The widened rows (`rows` of them, 1 or 2) against B rows b + j * ld_b for
// j < n_b: emit(i, j, acc) per row i and B row j, acc over 4 * groups depth.
template <typename Emit>
HWY_INLINE void DspRowProducts(const uint32_t* pairs, int32_t rows, int32_t groups, const int8_t* b,
                               size_t ld_b, int32_t n_b, const Emit& emit) {
  if (rows == 2) {
    for (int32_t j = 0; j < n_b; j += 2) {
      const int32_t last = j + 1 < n_b ? j + 1 : j;
      const int8_t* const b_rows[2] = {b + static_cast<size_t>(j) * ld_b,
                                       b + static_cast<size_t>(last) * ld_b};
      int32_t acc[4] = {0, 0, 0, 0};
      edgeattn_dsp_dot_s8_2x2(pairs, b_rows, groups, acc);
      emit(0, j, acc[0]);
      emit(1, j, acc[1]);
      if (last != j) {
        emit(0, last, acc[2]);
        emit(1, last, acc[3]);
      }
    }
    return;
  }
  for (int32_t j = 0; j < n_b; j += 4) {
    const FourRows<int8_t> b_rows = RowsFrom(b + static_cast<size_t>(j) * ld_b, ld_b, n_b - j);
    int32_t acc[4] = {0, 0, 0, 0};
    edgeattn_dsp_dot_s8_1x4(pairs, b_rows.row, groups, acc);
    for (int32_t jj = 0; jj < 4 && j + jj < n_b; ++jj) emit(0, j + jj, acc[jj]);
  }
}

void LinearS8Dsp(const LinearQArgs<int8_t>& a) {
  alignas(8) uint32_t pairs[kDspWidenedMax];
  const int32_t* bias = static_cast<const int32_t*>(a.bias);
  const size_t n_in = static_cast<size_t>(a.n_in);
  const int32_t groups = a.n_in / 4;
  for (int32_t r = 0; r < a.rows; r += 2) {
    const int32_t rows = a.rows - r < 2 ? 1 : 2;
    const int8_t* const x[2] = {a.x + static_cast<size_t>(r) * a.ld_x,
                                a.x + static_cast<size_t>(r + rows - 1) * a.ld_x};
    DspWiden(x, rows, a.input_offset, a.n_in, pairs);
    DspRowProducts(pairs, rows, groups, a.w, n_in, a.n_out, [&](int32_t i, int32_t c, int32_t acc) {
      const uint32_t total =
          static_cast<uint32_t>(acc) + (bias != nullptr ? static_cast<uint32_t>(bias[c]) : 0u) +
          DspTail(x[i], a.input_offset, a.w + static_cast<size_t>(c) * n_in, 4 * groups, a.n_in);
      a.y[static_cast<size_t>(r + i) * a.ld_y + static_cast<size_t>(c)] =
          OutputS8(total, a.multiplier[c], a.shift[c], a.output_offset);
    });
  }
}
// int16 x int8 (dsp_dot_s16.h): x's rows rearranged into pairs, the same
// loops; their int32 sums are exact for n_in <= kDspWidenedMax.
void LinearS16Dsp(const LinearQArgs<int16_t>& a) {
  alignas(8) uint32_t pairs[kDspWidenedMax];
  const int64_t* bias = static_cast<const int64_t*>(a.bias);
  const size_t n_in = static_cast<size_t>(a.n_in);
  const int32_t groups = a.n_in / 4;
  for (int32_t r = 0; r < a.rows; r += 2) {
    const int32_t rows = a.rows - r < 2 ? 1 : 2;
    const int16_t* const x[2] = {a.x + static_cast<size_t>(r) * a.ld_x,
                                 a.x + static_cast<size_t>(r + rows - 1) * a.ld_x};
    if (rows == 2) {
      WidenS16PairsTwoRows(x[0], x[1], a.n_in, pairs);
    } else {
      WidenS16Pairs(x[0], a.n_in, pairs);
    }
    DspRowProducts(pairs, rows, groups, a.w, n_in, a.n_out, [&](int32_t i, int32_t c, int32_t acc) {
      const int8_t* w = a.w + static_cast<size_t>(c) * n_in;
      int64_t total = acc + (bias != nullptr ? bias[c] : 0);
      for (int32_t t = 4 * groups; t < a.n_in; ++t) total += static_cast<int64_t>(x[i][t]) * w[t];
      a.y[static_cast<size_t>(r + i) * a.ld_y + static_cast<size_t>(c)] =
          OutputS16(total, FactorsOf(a.multiplier[c], a.shift[c]));
    });
  }
}
#endif

#if HWY_TARGET == HWY_SCALAR && EDGEATTN_MVE_DOT_S8
// Cortex-M55 (mve_dot_s8.h). Requantised products of A rows (stride ld_a)
// and B rows (b + j * ld_b) over `depth` bytes:
//   out[i * ld_out + j] = requantize(sum a_i b_j + row_term[i] + column_term(j, sum b_j),
//                                    quant(j)) + zero_point, saturated to int8,
// for i < rows, j < n_b. Blocks of four A rows run the 4 x 1 loop and
// requantise their four sums as one vector; fewer rows run 1 x 2 and the
// scalar OutputS8.
struct MveQuant {
  int32_t multiplier, shift;
};

// OutputS8 on four lanes (mve_requantize.h), for shift <= 0.
HWY_INLINE int32x4_t MveRequantizeS8(int32x4_t sums, MveQuant quant, int32_t zero_point) {
  return MveOffsetClamp(MveRequantize(sums, quant.multiplier, quant.shift), zero_point, -128, 127);
}

template <typename ColumnTerm, typename ColumnQuant>
HWY_INLINE void MveProductsS8(const int8_t* a, size_t ld_a, int32_t rows, int32_t depth,
                              const int8_t* b, size_t ld_b, int32_t n_b, const uint32_t row_term[4],
                              const ColumnTerm& column_term, const ColumnQuant& quant,
                              int32_t zero_point, int8_t* out, size_t ld_out) {
  if (rows == 4) {
    const int8_t* const a_rows[4] = {a, a + ld_a, a + 2 * ld_a, a + 3 * ld_a};
    const uint32_t lane_offsets[4] = {0, static_cast<uint32_t>(ld_out),
                                      static_cast<uint32_t>(2 * ld_out),
                                      static_cast<uint32_t>(3 * ld_out)};
    const uint32x4_t offsets = vld1q_u32(lane_offsets);
    const int32x4_t row_terms = vreinterpretq_s32_u32(vld1q_u32(row_term));
    for (int32_t j = 0; j < n_b; ++j) {
      alignas(16) int32_t sums[5];
      edgeattn_mve_dot_s8_4x1(a_rows, b + static_cast<size_t>(j) * ld_b, depth, sums);
      const MveQuant q = quant(j);
      const int32x4_t totals = vaddq_n_s32(vaddq_s32(vld1q_s32(sums), row_terms),
                                           static_cast<int32_t>(column_term(j, sums[4])));
      if (q.shift <= 0) {
        vstrbq_scatter_offset_s32(out + j, offsets, MveRequantizeS8(totals, q, zero_point));
      } else {
        for (int32_t i = 0; i < 4; ++i) {
          out[static_cast<size_t>(i) * ld_out + static_cast<size_t>(j)] =
              OutputS8(static_cast<uint32_t>(sums[i]) + row_term[i] + column_term(j, sums[4]),
                       q.multiplier, q.shift, zero_point);
        }
      }
    }
    return;
  }
  for (int32_t i = 0; i < rows; ++i) {
    for (int32_t j = 0; j < n_b; j += 2) {
      const int32_t last = j + 1 < n_b ? j + 1 : j;
      const int8_t* const b_rows[2] = {b + static_cast<size_t>(j) * ld_b,
                                       b + static_cast<size_t>(last) * ld_b};
      int32_t sums[4];
      edgeattn_mve_dot_s8_1x2(a + static_cast<size_t>(i) * ld_a, b_rows, depth, sums);
      for (int32_t c = 0; c <= last - j; ++c) {
        const MveQuant q = quant(j + c);
        out[static_cast<size_t>(i) * ld_out + static_cast<size_t>(j + c)] =
            OutputS8(static_cast<uint32_t>(sums[c]) + row_term[i] + column_term(j + c, sums[2 + c]),
                     q.multiplier, q.shift, zero_point);
      }
    }
  }
}

// sum (x + input_offset) w = sum x w + input_offset sum w.
void LinearS8Mve(const LinearQArgs<int8_t>& a) {
  const int32_t* bias = static_cast<const int32_t*>(a.bias);
  const uint32_t x_offset = static_cast<uint32_t>(a.input_offset);
  const uint32_t no_row_term[4] = {0, 0, 0, 0};
  for (int32_t r = 0; r < a.rows; r += 4) {
    const int32_t rows = a.rows - r < 4 ? a.rows - r : 4;
    MveProductsS8(
        a.x + static_cast<size_t>(r) * a.ld_x, a.ld_x, rows, a.n_in, a.w,
        static_cast<size_t>(a.n_in), a.n_out, no_row_term,
        [&](int32_t c, int32_t w_sum) {
          return x_offset * static_cast<uint32_t>(w_sum) +
                 (bias != nullptr ? static_cast<uint32_t>(bias[c]) : 0u);
        },
        [&](int32_t c) {
          return MveQuant{a.multiplier[c], a.shift[c]};
        },
        a.output_offset, a.y + static_cast<size_t>(r) * a.ld_y, a.ld_y);
  }
}
#endif

void LinearS8Target(const LinearQArgs<int8_t>& a) {
#if HWY_TARGET == HWY_AVX3_DL
  if (a.w_panels != nullptr) return LinearS8Packed(a);
#endif
#if HWY_TARGET == HWY_SCALAR && EDGEATTN_DSP_DOT_S8
  if (a.n_in <= kDspWidenedMax) return LinearS8Dsp(a);
#endif
#if HWY_TARGET == HWY_SCALAR && EDGEATTN_MVE_DOT_S8
  return LinearS8Mve(a);
#endif
  const int32_t* bias = static_cast<const int32_t*>(a.bias);
  const size_t n_in = static_cast<size_t>(a.n_in);
  if (kHoistS8OffsetSums && a.rows > 1) {
    // Channels outer, rows inner: sum (x + x_offset) w = sum x w + x_offset
    // sum w, each channel's sum w once for all rows.
    const uint32_t x_offset = static_cast<uint32_t>(a.input_offset);
    for (int32_t c = 0; c < a.n_out; c += 4) {
      const FourRows<int8_t> w = RowsFrom(a.w + static_cast<size_t>(c) * n_in, n_in, a.n_out - c);
      uint32_t channel_term[4];
      for (int32_t i = 0; i < 4; ++i) {
        channel_term[i] =
            x_offset * SumS8(w.row[i], n_in) +
            (bias != nullptr && c + i < a.n_out ? static_cast<uint32_t>(bias[c + i]) : 0u);
      }
      // Rows in pairs: each load of W serves two rows.
      for (int32_t r = 0; r < a.rows; r += 2) {
        const int8_t* x = a.x + static_cast<size_t>(r) * a.ld_x;
        const int32_t pair_rows = a.rows - r < 2 ? a.rows - r : 2;
        uint32_t acc[2][4];
        if (pair_rows == 2) {
          DotS8x2x4Raw(x, x + a.ld_x, w, n_in, acc[0], acc[1]);
        } else {
          DotS8x4Raw(x, w, n_in, acc[0]);
        }
        for (int32_t k = 0; k < pair_rows; ++k) {
          int8_t* y = a.y + static_cast<size_t>(r + k) * a.ld_y;
          for (int32_t i = 0; i < 4 && c + i < a.n_out; ++i) {
            y[c + i] = OutputS8(acc[k][i] + channel_term[i], a.multiplier[c + i], a.shift[c + i],
                                a.output_offset);
          }
        }
      }
    }
    return;
  }
  for (int32_t r = 0; r < a.rows; ++r) {
    const int8_t* x = a.x + static_cast<size_t>(r) * a.ld_x;
    int8_t* y = a.y + static_cast<size_t>(r) * a.ld_y;
    for (int32_t c = 0; c < a.n_out; c += 4) {
      uint32_t acc[4];
      DotS8x4(x, a.input_offset, RowsFrom(a.w + static_cast<size_t>(c) * n_in, n_in, a.n_out - c),
              0, n_in, acc);
      for (int32_t i = 0; i < 4 && c + i < a.n_out; ++i) {
        const uint32_t total = acc[i] + (bias != nullptr ? static_cast<uint32_t>(bias[c + i]) : 0u);
        y[c + i] = OutputS8(total, a.multiplier[c + i], a.shift[c + i], a.output_offset);
      }
    }
  }
}

void LinearS16Target(const LinearQArgs<int16_t>& a) {
  const int64_t* bias = static_cast<const int64_t*>(a.bias);
#if HWY_TARGET == HWY_AVX3_DL
  if (a.w_panels != nullptr) return vnni::LinearS16Packed(a);
#endif
#if HWY_TARGET == HWY_SCALAR && EDGEATTN_DSP_DOT_S8
  if (a.n_in <= kDspWidenedMax) return LinearS16Dsp(a);
#endif
  const size_t n_in = static_cast<size_t>(a.n_in);
  for (int32_t r = 0; r < a.rows; ++r) {
    const int16_t* x = a.x + static_cast<size_t>(r) * a.ld_x;
    int16_t* y = a.y + static_cast<size_t>(r) * a.ld_y;
    for (int32_t c = 0; c < a.n_out; c += 4) {
      int64_t acc[4];
      DotS16S8x4(x, RowsFrom(a.w + static_cast<size_t>(c) * n_in, n_in, a.n_out - c), n_in, acc);
      for (int32_t i = 0; i < 4 && c + i < a.n_out; ++i) {
        // Biases were checked to lie within +-2^47 at plan time.
        const int64_t total = acc[i] + (bias != nullptr ? bias[c + i] : 0);
        y[c + i] = OutputS16(total, FactorsOf(a.multiplier[c + i], a.shift[c + i]));
      }
    }
  }
}

// Row r's int8 scores (in row, its `scored` keys) become its probabilities
// in place: kept first if the caller asked for the scores, then TFLite's
// softmax over the visible keys, -128 (probability 0) for the others, then
// copied out (-128 past them too) if asked for.
HWY_INLINE void ScoresToProbsS8(const AttentionQArgs<int8_t>& a, int32_t r, int8_t* row,
                                int32_t scored) {
  const VisibleRun run = VisibleRunOf(a, r);
  KeepScores(a, r, row, run);
  ProbabilitiesOfRun(row, run, int8_t{-128}, static_cast<uint8_t*>(nullptr), [&](int32_t at) {
    SoftmaxS8Row(*a.softmax_s8, row + at, static_cast<size_t>(run.count), row + at);
  });
  if (a.probs != nullptr) {
    int8_t* probs = a.probs + static_cast<size_t>(r) * a.ld_probs;
    for (int32_t j = 0; j < a.n_kv; ++j) probs[j] = j < scored ? row[j] : int8_t{-128};
  }
}

#if HWY_TARGET == HWY_AVX3_DL
bool UsesS8PanelsTarget() { return true; }

EA_VNNI_TARGET void PackValuePanelsS8Target(const int8_t* v, size_t ld_v, int32_t d_v, int32_t n_kv,
                                            int8_t* panels) {
  vnni::PackS8PanelsTransposed(v, ld_v, d_v, n_kv, panels);
}

EA_VNNI_TARGET void PackKeyPanelsS8Target(const int8_t* k, size_t ld_k, int32_t n_kv, int32_t d_k,
                                          uint8_t* panels, int32_t* sums) {
  if (!vnni::GathersReach(ld_k, d_k)) return PackS8PanelsPlus128(k, ld_k, n_kv, d_k, panels, sums);
  vnni::PackS8PanelsPlus128(k, ld_k, n_kv, d_k, panels, sums);
}

// The packed path: micro blocks of 6 query rows. Q K^T runs with K's panels
// holding k + 128 (vpdpbusd's unsigned operand) and q as the signed one:
//   sum (q + q_offset)(k + k_offset) = sum q (k + 128) + (k_offset - 128) sum q
//     + q_offset sum k + depth q_offset k_offset,
// all modulo 2^32 like TFLite's int32 accumulator. P V reads a' = p + 128
// (uint8) against V's int8 panels, which is 0 for masked keys:
//   sum (p + 128)(v + v_offset) = sum a' v + v_offset sum a'.
EA_VNNI_TARGET void AttendRowsS8Packed(const AttentionQArgs<int8_t>& a, int32_t first_row,
                                       int32_t rows, void* scratch) {
  const QuantScratchLayout layout = QuantScratch(a.n_kv);
  uint8_t* base = static_cast<uint8_t*>(scratch);
  int8_t* scores = reinterpret_cast<int8_t*>(base + layout.scores);
  uint8_t* p_rows = base + layout.probs;
  alignas(64) int32_t tile[vnni::kTileRows * vnni::kTileColumns];
  const size_t ld_scores = static_cast<size_t>(a.n_kv);
  const size_t ld_p = static_cast<size_t>(RoundUp(static_cast<uint64_t>(a.n_kv), 4));
  const size_t k_panel_bytes = static_cast<size_t>(RoundUp(static_cast<uint64_t>(a.d_k), 4)) * 16;
  const size_t v_panel_bytes = a.v_panel_stride;
  const uint32_t q_offset = static_cast<uint32_t>(a.q_offset);
  const uint32_t k_offset = static_cast<uint32_t>(a.k_offset);
  const vnni::S8Requantizer score_requantizer =
      vnni::MakeS8Requantizer(a.score_multiplier, a.score_shift, a.score_zero_point);
  const vnni::S8Requantizer out_requantizer =
      vnni::MakeS8Requantizer(a.out_multiplier, a.out_shift, a.out_zero_point);
  constexpr int32_t kTile = vnni::kTileColumns;
  for (int32_t r0 = first_row; r0 < first_row + rows; r0 += vnni::kTileRows) {
    const int32_t m =
        first_row + rows - r0 < vnni::kTileRows ? first_row + rows - r0 : vnni::kTileRows;
    int32_t row_term[vnni::kTileRows];
    for (int32_t i = 0; i < m; ++i) {
      const uint32_t sum = vnni::SumOfRow(a.q + static_cast<size_t>(r0 + i) * a.ld_q, a.d_k);
      row_term[i] = static_cast<int32_t>((k_offset - 128u) * sum +
                                         static_cast<uint32_t>(a.d_k) * q_offset * k_offset);
    }
    const uint8_t* q_rows =
        reinterpret_cast<const uint8_t*>(a.q + static_cast<size_t>(r0) * a.ld_q);
    const int32_t most_scored = ScoredKeys(a, r0 + m - 1);
    for (int32_t j0 = 0; j0 < most_scored; j0 += kTile) {
      const int32_t width = most_scored - j0 < kTile ? most_scored - j0 : kTile;
      vnni::AnyTile<true>(m, (width + 15) / 16, q_rows, a.ld_q, a.d_k,
                          a.k_panels + static_cast<size_t>(j0 / 16) * k_panel_bytes, k_panel_bytes,
                          tile, kTile, {a.k_column_sums + j0, row_term});
      for (int32_t i = 0; i < m; ++i) {
        const int32_t limit =
            ScoredKeys(a, r0 + i) < j0 + width ? ScoredKeys(a, r0 + i) : j0 + width;
        if (limit > j0) {
          vnni::StoreRequantizedRow(tile + i * kTile, limit - j0, &score_requantizer, 0,
                                    scores + static_cast<size_t>(i) * ld_scores + j0);
        }
      }
    }
    uint32_t p_sums[vnni::kTileRows];
    const size_t p_width = static_cast<size_t>(RoundUp(static_cast<uint64_t>(most_scored), 4));
    for (int32_t i = 0; i < m; ++i) {
      const int32_t r = r0 + i;
      const int32_t scored = ScoredKeys(a, r);
      const VisibleRun run = VisibleRunOf(a, r);
      int8_t* row = scores + static_cast<size_t>(i) * ld_scores;
      KeepScores(a, r, row, run);
      uint8_t* p_row = p_rows + static_cast<size_t>(i) * ld_p;
      p_sums[i] = 0;
      // p + 128: 0 for the keys the softmax does not write.
      for (size_t j = 0; j < p_width; ++j) p_row[j] = 0;
      ProbabilitiesOfRun(row, run, int8_t{-128}, p_row, [&](int32_t at) {
        p_sums[i] = vnni::SoftmaxS8Row(*a.softmax_s8, row + at, run.count, p_row + at);
      });
      if (a.probs != nullptr) {
        int8_t* probs = a.probs + static_cast<size_t>(r) * a.ld_probs;
        for (int32_t j = 0; j < a.n_kv; ++j) probs[j] = j < scored ? row[j] : int8_t{-128};
      }
    }
    int32_t v_term[vnni::kTileRows];
    for (int32_t i = 0; i < m; ++i) {
      v_term[i] = static_cast<int32_t>(static_cast<uint32_t>(a.v_offset) * p_sums[i]);
    }
    for (int32_t t0 = 0; t0 < a.d_v; t0 += kTile) {
      const int32_t width = a.d_v - t0 < kTile ? a.d_v - t0 : kTile;
      // Depth p_width is 0 where no row sees a key: the tile is then v_term.
      vnni::AnyTile<false>(m, (width + 15) / 16, p_rows, ld_p, static_cast<int32_t>(p_width),
                           reinterpret_cast<const uint8_t*>(a.v_panels) +
                               static_cast<size_t>(t0 / 16) * v_panel_bytes,
                           v_panel_bytes, tile, kTile, {nullptr, v_term});
      for (int32_t i = 0; i < m; ++i) {
        vnni::StoreRequantizedRow(tile + i * kTile, width, &out_requantizer, 0,
                                  a.out + static_cast<size_t>(r0 + i) * a.ld_out + t0);
      }
    }
  }
}

// The packed int16 rows (vnni_s16-inl.h): groups of kS16PackedRowGroup query
// rows share each K and V load; each row then has its own softmax. A group
// scores up to its last visible key and its P V runs that far too, with each
// row's probabilities zero past its own visible keys (the same sums). Rows
// outside whole groups and every row when K's high bytes are not packed
// (d_k over kS16HighByteMaxDepth) take the one-row kernels; a group whose
// rows' probabilities sum to 2^16 or more takes the one-row P V (see
// vnni_s16-inl.h). Scratch
// (QuantScratch): the group's score rows, S16PackedScratchRowValues apart,
// then the exponentials.
EA_VNNI_TARGET void AttendRowsS16Packed(const AttentionQArgs<int16_t>& a, int32_t first_row,
                                        int32_t rows, void* scratch) {
  constexpr int32_t kGroup = kS16PackedRowGroup;
  static_assert(kGroup == vnni::kS16RowsPerPass, "the scratch holds one kernel pass of rows");
  const size_t stride = static_cast<size_t>(S16PackedScratchRowValues(a.n_kv));
  int16_t* const first_buffer = static_cast<int16_t*>(scratch);
  int16_t* buffers[kGroup];
  for (int32_t i = 0; i < kGroup; ++i) buffers[i] = first_buffer + i * stride;
  int16_t* exp_scratch = first_buffer + kGroup * stride;
  const vnni::Requantize64Params score_requantize =
      vnni::MakeRequantize64(a.score_multiplier, a.score_shift);
  const vnni::Requantize64Params out_requantize =
      vnni::MakeRequantize64(a.out_multiplier, a.out_shift);
  const size_t v_panel_values = a.v_panel_stride;
  // Softmax of a row's `scored` keys in place (0 where it does not see
  // them); returns its probabilities' sum.
  const auto softmax = [&](int32_t r, int16_t* row, int32_t scored) {
    const VisibleRun run = VisibleRunOf(a, r);
    KeepScores(a, r, row, run);
    int32_t prob_sum = 0;
    ProbabilitiesOfRun(row, run, int16_t{0}, static_cast<int16_t*>(nullptr), [&](int32_t at) {
      int16_t* keys = row + at;
#if defined(EDGEATTN_SINGLE_ROUNDING)  // the vector requantisation rounds twice
      SoftmaxS16Row(*a.softmax_s16, a.softmax_multiplier, a.softmax_left_shift, keys,
                    static_cast<size_t>(run.count), exp_scratch, keys);
      for (int32_t j = 0; j < run.count; ++j) prob_sum += keys[j];
#else
      prob_sum = vnni::SoftmaxRowS16(*a.softmax_s16, a.softmax_multiplier, a.softmax_left_shift,
                                     keys, run.count, exp_scratch);
#endif
    });
    KeepProbsS16(a, r, row, scored);
    return prob_sum;
  };
  const auto one_row = [&](int32_t r) {
    const int32_t scored = ScoredKeys(a, r);
    vnni::ScoreRowS16(a.q + static_cast<size_t>(r) * a.ld_q, a.d_k, a.k_pairs, scored,
                      score_requantize, buffers[0]);
    const int32_t prob_sum = softmax(r, buffers[0], scored);
    vnni::ContextRowS16(buffers[0], scored, prob_sum, a.v_pairs, v_panel_values, a.d_v,
                        out_requantize, a.out + static_cast<size_t>(r) * a.ld_out);
  };
  static_assert(kS16HighByteMaxDepth <= 2 * vnni::kS16PairsPerFlush,
                "a row group's query rows hold kS16HighByteMaxDepth values");
  const bool grouped = a.k_high_bytes != nullptr && a.d_k <= kS16HighByteMaxDepth;
  int32_t r = first_row;
  for (; grouped && r + kGroup <= first_row + rows; r += kGroup) {
    const int16_t* q[kGroup];
    int16_t* out[kGroup];
    int32_t scored[kGroup], prob_sum[kGroup];
    int32_t most = 0;
    for (int32_t i = 0; i < kGroup; ++i) {
      q[i] = a.q + static_cast<size_t>(r + i) * a.ld_q;
      out[i] = a.out + static_cast<size_t>(r + i) * a.ld_out;
      scored[i] = ScoredKeys(a, r + i);
      most = scored[i] > most ? scored[i] : most;
    }
    vnni::ScoreRowsS16(q, a.d_k, a.k_pairs, a.k_high_bytes, most, score_requantize, buffers);
    bool whole = true;
    for (int32_t i = 0; i < kGroup; ++i) {
      prob_sum[i] = softmax(r + i, buffers[i], scored[i]);
      whole = whole && prob_sum[i] < (1 << 16);
      // Zero past the row's keys up to the group's last pair.
      for (int32_t j = scored[i]; j < most + (most & 1); ++j) buffers[i][j] = 0;
    }
    if (whole) {
      vnni::ContextRowsS16(buffers, most, a.v_pairs, v_panel_values, a.d_v, out_requantize, out);
      continue;
    }
    for (int32_t i = 0; i < kGroup; ++i) {
      vnni::ContextRowS16(buffers[i], scored[i], prob_sum[i], a.v_pairs, v_panel_values, a.d_v,
                          out_requantize, out[i]);
    }
  }
  for (; r < first_row + rows; ++r) one_row(r);
}
#else
bool UsesS8PanelsTarget() { return false; }

void PackValuePanelsS8Target(const int8_t* v, size_t ld_v, int32_t d_v, int32_t n_kv,
                             int8_t* panels) {
  PackS8PanelsTransposed(v, ld_v, d_v, n_kv, panels);
}

void PackKeyPanelsS8Target(const int8_t* k, size_t ld_k, int32_t n_kv, int32_t d_k, uint8_t* panels,
                           int32_t* sums) {
  PackS8PanelsPlus128(k, ld_k, n_kv, d_k, panels, sums);
}
#endif

#if HWY_TARGET == HWY_SCALAR && EDGEATTN_DSP_DOT_S8
// Cortex-M4/M7: query rows in pairs (DspRowProducts).
//   Scores: sum (q + q_offset)(k + k_offset) = sum (q + q_offset) k + k_offset sum (q + q_offset).
//   P V: the rows' probabilities widened as p' = p + 128, zero past a row's
//   visible keys (p = -128 there), so both rows run to the pair's last
//   visible key: sum p' (v + v_offset) = sum p' v + v_offset sum p'.
// All modulo 2^32 as the row kernels' sums. Scratch (QuantScratch: at least
// 6 RoundUp(n_kv, 4) bytes): the two rows' scores and probabilities, then
// the widened probabilities.
void AttendRowsS8Dsp(const AttentionQArgs<int8_t>& a, int32_t first_row, int32_t rows,
                     void* scratch) {
  alignas(8) uint32_t q_pairs[kDspWidenedMax];
  const size_t row_bytes = static_cast<size_t>(RoundUp(static_cast<uint64_t>(a.n_kv), 4));
  int8_t* const buffers[2] = {static_cast<int8_t*>(scratch),
                              static_cast<int8_t*>(scratch) + row_bytes};
  uint32_t* const p_pairs = static_cast<uint32_t*>(static_cast<void*>(buffers[0] + 2 * row_bytes));
  const int32_t groups = a.d_k / 4;
  for (int32_t r = first_row; r < first_row + rows; r += 2) {
    const int32_t pair = first_row + rows - r < 2 ? 1 : 2;
    const int8_t* const q[2] = {a.q + static_cast<size_t>(r) * a.ld_q,
                                a.q + static_cast<size_t>(r + pair - 1) * a.ld_q};
    const int32_t scored[2] = {ScoredKeys(a, r), ScoredKeys(a, r + pair - 1)};
    const int32_t most = scored[0] > scored[1] ? scored[0] : scored[1];
    uint32_t key_term[2] = {0, 0};
    for (int32_t i = 0; i < pair; ++i) {
      uint32_t q_sum = 0;
      for (int32_t t = 0; t < a.d_k; ++t) q_sum += static_cast<uint32_t>(q[i][t] + a.q_offset);
      key_term[i] = q_sum * static_cast<uint32_t>(a.k_offset);
    }
    DspWiden(q, pair, a.q_offset, a.d_k, q_pairs);
    DspRowProducts(
        q_pairs, pair, groups, a.k, a.ld_k, most, [&](int32_t i, int32_t j, int32_t acc) {
          if (j >= scored[i]) return;
          const uint32_t total =
              static_cast<uint32_t>(acc) + key_term[i] +
              DspTail(q[i], a.q_offset, a.k + static_cast<size_t>(j) * a.ld_k, 4 * groups, a.d_k);
          buffers[i][j] = OutputS8(total, a.score_multiplier, a.score_shift, a.score_zero_point);
        });
    uint32_t value_term[2] = {0, 0};
    for (int32_t i = 0; i < pair; ++i) {
      int8_t* row = buffers[i];
      ScoresToProbsS8(a, r + i, row, scored[i]);
      uint32_t p_sum = 0;
      for (int32_t j = 0; j < scored[i]; ++j) p_sum += static_cast<uint32_t>(row[j] + 128);
      for (int32_t j = scored[i]; j < most; ++j) row[j] = -128;
      value_term[i] = p_sum * static_cast<uint32_t>(a.v_offset);
    }
    const int32_t key_groups = most / 4;
    DspWiden(buffers, pair, 128, most, p_pairs);
    DspRowProducts(p_pairs, pair, key_groups, a.v_transposed, a.ld_vt, a.d_v,
                   [&](int32_t i, int32_t t, int32_t acc) {
                     const uint32_t total =
                         static_cast<uint32_t>(acc) + value_term[i] +
                         DspTail(buffers[i], 128, a.v_transposed + static_cast<size_t>(t) * a.ld_vt,
                                 4 * key_groups, most);
                     a.out[static_cast<size_t>(r + i) * a.ld_out + static_cast<size_t>(t)] =
                         OutputS8(total, a.out_multiplier, a.out_shift, a.out_zero_point);
                   });
  }
}
#endif

#if HWY_TARGET == HWY_SCALAR && EDGEATTN_MVE_DOT_S8
// Cortex-M55: query rows in blocks of four (MveRowProducts).
//   Scores: sum (q + q_offset)(k + k_offset)
//     = sum q k + k_offset sum q + q_offset sum k + d_k q_offset k_offset.
//   P V over the block's last visible key, probabilities padded with -128
//   (p + 128 = 0) past a row's visible keys: sum (p + 128)(v + v_offset)
//     = sum p v + v_offset sum p + 128 sum v + keys 128 v_offset.
// All modulo 2^32 as the row kernels' sums. Scratch (QuantScratch: at least
// 6 RoundUp(n_kv, 4) bytes): the four rows' scores, then probabilities.
void AttendRowsS8Mve(const AttentionQArgs<int8_t>& a, int32_t first_row, int32_t rows,
                     void* scratch) {
  const size_t row_bytes = static_cast<size_t>(RoundUp(static_cast<uint64_t>(a.n_kv), 4));
  int8_t* const buffers = static_cast<int8_t*>(scratch);
  const uint32_t q_offset = static_cast<uint32_t>(a.q_offset);
  const uint32_t k_offset = static_cast<uint32_t>(a.k_offset);
  const uint32_t v_offset = static_cast<uint32_t>(a.v_offset);
  const uint32_t score_constant = static_cast<uint32_t>(a.d_k) * q_offset * k_offset;
  for (int32_t r = first_row; r < first_row + rows; r += 4) {
    const int32_t block = first_row + rows - r < 4 ? first_row + rows - r : 4;
    const int8_t* q = a.q + static_cast<size_t>(r) * a.ld_q;
    int32_t scored[4];
    uint32_t key_term[4] = {0, 0, 0, 0};
    int32_t most = 0;
    for (int32_t i = 0; i < block; ++i) {
      scored[i] = ScoredKeys(a, r + i);
      most = scored[i] > most ? scored[i] : most;
      key_term[i] = k_offset * static_cast<uint32_t>(edgeattn_mve_sum_s8(
                                   q + static_cast<size_t>(i) * a.ld_q, a.d_k)) +
                    score_constant;
    }
    const MveQuant score_quant{a.score_multiplier, a.score_shift};
    MveProductsS8(
        q, a.ld_q, block, a.d_k, a.k, a.ld_k, most, key_term,
        [&](int32_t, int32_t k_sum) { return q_offset * static_cast<uint32_t>(k_sum); },
        [&](int32_t) { return score_quant; }, a.score_zero_point, buffers, row_bytes);
    uint32_t value_term[4] = {0, 0, 0, 0};
    for (int32_t i = 0; i < block; ++i) {
      int8_t* row = buffers + static_cast<size_t>(i) * row_bytes;
      ScoresToProbsS8(a, r + i, row, scored[i]);
      for (int32_t j = scored[i]; j < most; ++j) row[j] = -128;
      value_term[i] = v_offset * static_cast<uint32_t>(edgeattn_mve_sum_s8(row, most)) +
                      static_cast<uint32_t>(most) * 128u * v_offset;
    }
    const MveQuant out_quant{a.out_multiplier, a.out_shift};
    MveProductsS8(
        buffers, row_bytes, block, most, a.v_transposed, a.ld_vt, a.d_v, value_term,
        [](int32_t, int32_t v_sum) { return 128u * static_cast<uint32_t>(v_sum); },
        [&](int32_t) { return out_quant; }, a.out_zero_point,
        a.out + static_cast<size_t>(r) * a.ld_out, a.ld_out);
  }
}
#endif

void AttendRowsS8Target(const AttentionQArgs<int8_t>& a, int32_t first_row, int32_t rows,
                        void* scratch) {
#if HWY_TARGET == HWY_AVX3_DL
  if (a.k_panels != nullptr) return AttendRowsS8Packed(a, first_row, rows, scratch);
#endif
#if HWY_TARGET == HWY_SCALAR && EDGEATTN_DSP_DOT_S8
  if (a.d_k <= kDspWidenedMax) return AttendRowsS8Dsp(a, first_row, rows, scratch);
#endif
#if HWY_TARGET == HWY_SCALAR && EDGEATTN_MVE_DOT_S8
  return AttendRowsS8Mve(a, first_row, rows, scratch);
#endif
  int8_t* row_buffer = static_cast<int8_t*>(scratch);  // [n_kv] scores, then probabilities
  const size_t d_k = static_cast<size_t>(a.d_k);
  // Where hoisting pays (kHoistS8OffsetSums) and several rows share them,
  // q_offset sum k of each key visible to a row of the call, once, in the
  // scratch's probability rows (which this path does not use; they hold
  // at least 6 n_kv bytes): sum (q + q_offset)(k + k_offset) = sum q k +
  // k_offset sum q + q_offset sum k + d_k q_offset k_offset.
  const bool hoist = kHoistS8OffsetSums && rows > 1;
  uint32_t* const key_terms =
      reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(scratch) + QuantScratch(a.n_kv).probs);
  const uint32_t q_offset = static_cast<uint32_t>(a.q_offset);
  const uint32_t k_offset = static_cast<uint32_t>(a.k_offset);
  if (hoist) {
    for (int32_t j = 0; j < ScoredKeys(a, first_row + rows - 1); ++j) {
      key_terms[j] = q_offset * SumS8(a.k + static_cast<size_t>(j) * a.ld_k, d_k);
    }
  }
  const auto row_term_of = [&](const int8_t* q) {
    return hoist ? k_offset * SumS8(q, d_k) + static_cast<uint32_t>(d_k) * q_offset * k_offset : 0u;
  };
  // acc[i]: the dot product of a row with key j + i (raw where hoisted).
  const auto store_scores = [&](const uint32_t acc[4], uint32_t row_term, int32_t j, int32_t scored,
                                int8_t* scores) {
    for (int32_t i = 0; i < 4 && j + i < scored; ++i) {
      const uint32_t score = hoist ? acc[i] + row_term + key_terms[j + i] : acc[i];
      scores[j + i] = OutputS8(score, a.score_multiplier, a.score_shift, a.score_zero_point);
    }
  };
  // Scores of query row q for keys [first_key, visible).
  const auto score_keys = [&](const int8_t* q, uint32_t row_term, int32_t first_key, int32_t scored,
                              int8_t* scores) {
    for (int32_t j = first_key; j < scored; j += 4) {
      uint32_t acc[4];
      const FourRows<int8_t> keys =
          RowsFrom(a.k + static_cast<size_t>(j) * a.ld_k, a.ld_k, scored - j);
      if (hoist) {
        DotS8x4Raw(q, keys, d_k, acc);
      } else {
        DotS8x4(q, a.q_offset, keys, a.k_offset, d_k, acc);
      }
      store_scores(acc, row_term, j, scored, scores);
    }
  };
  // P V of row r from its probabilities in `row`.
  const auto output_row = [&](int32_t r, int32_t scored, const int8_t* row) {
    int8_t* out = a.out + static_cast<size_t>(r) * a.ld_out;
    for (int32_t t = 0; t < a.d_v; t += 4) {
      uint32_t acc[4] = {0, 0, 0, 0};
      if (scored > 0) {
        DotS8x4(row, 128,
                RowsFrom(a.v_transposed + static_cast<size_t>(t) * a.ld_vt, a.ld_vt, a.d_v - t),
                a.v_offset, static_cast<size_t>(scored), acc);
      }
      for (int32_t i = 0; i < 4 && t + i < a.d_v; ++i) {
        out[t + i] = OutputS8(acc[i], a.out_multiplier, a.out_shift, a.out_zero_point);
      }
    }
  };
  // P V of row pairs hoists its offsets too, where the scratch's free score
  // rows hold a sum per column of V: sum (p + 128)(v + v_offset) = sum p v +
  // v_offset sum p + 128 sum v + visible 128 v_offset (WithOffsets). The
  // column sums run over the keys the pair's first row sees and grow with
  // them (rows come in order, so their visible keys never shrink).
  const size_t n_kv = static_cast<size_t>(a.n_kv);
  const size_t value_sums_at = static_cast<size_t>(RoundUp(2 * n_kv, 4));
  const bool hoist_values = hoist && 4 * static_cast<size_t>(a.d_v) <= 6 * n_kv - value_sums_at;
  uint32_t* const value_sums =
      reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(scratch) + value_sums_at);
  int32_t summed_keys = 0;  // value_sums cover keys [0, summed_keys)
  if (hoist_values) {
    for (int32_t t = 0; t < a.d_v; ++t) value_sums[t] = 0;
  }
  const auto sum_values_to = [&](int32_t scored) {
    if (scored <= summed_keys) return;
    for (int32_t t = 0; t < a.d_v; ++t) {
      value_sums[t] += SumS8(a.v_transposed + static_cast<size_t>(t) * a.ld_vt + summed_keys,
                             static_cast<size_t>(scored - summed_keys));
    }
    summed_keys = scored;
  };
  // Rows r and r + 1 (visible0 <= visible1 keys): both rows' keys
  // [0, visible0) through DotS8x2x4Raw, the second row's others with
  // DotS8x4 (offsets included).
  const auto output_pair = [&](int32_t r, const int8_t* p0, int32_t scored0, const int8_t* p1,
                               int32_t scored1) {
    sum_values_to(scored0);
    const size_t shared = static_cast<size_t>(scored0);
    const uint32_t p_sum0 = SumS8(p0, shared), p_sum1 = SumS8(p1, shared);
    int8_t* out0 = a.out + static_cast<size_t>(r) * a.ld_out;
    int8_t* out1 = out0 + a.ld_out;
    for (int32_t t = 0; t < a.d_v; t += 4) {
      const FourRows<int8_t> columns =
          RowsFrom(a.v_transposed + static_cast<size_t>(t) * a.ld_vt, a.ld_vt, a.d_v - t);
      uint32_t acc0[4], acc1[4], rest[4] = {0, 0, 0, 0};
      DotS8x2x4Raw(p0, p1, columns, shared, acc0, acc1);
      if (scored1 > scored0) {
        FourRows<int8_t> later = columns;
        for (const int8_t*& column : later.row) column += shared;
        DotS8x4(p1 + shared, 128, later, a.v_offset, static_cast<size_t>(scored1) - shared, rest);
      }
      for (int32_t i = 0; i < 4 && t + i < a.d_v; ++i) {
        const uint32_t v_sum = value_sums[t + i];
        out0[t + i] = OutputS8(WithOffsets(acc0[i], p_sum0, v_sum, shared, 128, a.v_offset),
                               a.out_multiplier, a.out_shift, a.out_zero_point);
        out1[t + i] =
            OutputS8(WithOffsets(acc1[i], p_sum1, v_sum, shared, 128, a.v_offset) + rest[i],
                     a.out_multiplier, a.out_shift, a.out_zero_point);
      }
    }
  };
  int32_t r = first_row;
  if (hoist) {
    // Query rows in pairs: the groups of four keys both rows see go through
    // DotS8x2x4Raw (each key load serves two rows), the rest row by row. The
    // second row's scores use the scratch's second score row.
    int8_t* const pair_buffer = row_buffer + a.n_kv;
    for (; r + 1 < first_row + rows; r += 2) {
      const int8_t* q0 = a.q + static_cast<size_t>(r) * a.ld_q;
      const int8_t* q1 = q0 + a.ld_q;
      const int32_t scored0 = ScoredKeys(a, r), scored1 = ScoredKeys(a, r + 1);
      const uint32_t term0 = row_term_of(q0), term1 = row_term_of(q1);
      const int32_t shared = (scored0 < scored1 ? scored0 : scored1) / 4 * 4;
      for (int32_t j = 0; j < shared; j += 4) {
        uint32_t acc0[4], acc1[4];
        DotS8x2x4Raw(q0, q1, RowsFrom(a.k + static_cast<size_t>(j) * a.ld_k, a.ld_k, 4), d_k, acc0,
                     acc1);
        store_scores(acc0, term0, j, scored0, row_buffer);
        store_scores(acc1, term1, j, scored1, pair_buffer);
      }
      score_keys(q0, term0, shared, scored0, row_buffer);
      score_keys(q1, term1, shared, scored1, pair_buffer);
      ScoresToProbsS8(a, r, row_buffer, scored0);
      ScoresToProbsS8(a, r + 1, pair_buffer, scored1);
      if (hoist_values) {
        output_pair(r, row_buffer, scored0, pair_buffer, scored1);
      } else {
        output_row(r, scored0, row_buffer);
        output_row(r + 1, scored1, pair_buffer);
      }
    }
  }
  for (; r < first_row + rows; ++r) {
    const int8_t* q = a.q + static_cast<size_t>(r) * a.ld_q;
    const int32_t scored = ScoredKeys(a, r);
    score_keys(q, row_term_of(q), 0, scored, row_buffer);
    ScoresToProbsS8(a, r, row_buffer, scored);
    output_row(r, scored, row_buffer);
  }
}

void AttendRowsS16Target(const AttentionQArgs<int16_t>& a, int32_t first_row, int32_t rows,
                         void* scratch) {
#if HWY_TARGET == HWY_AVX3_DL
  if (a.k_pairs != nullptr) return AttendRowsS16Packed(a, first_row, rows, scratch);
#endif
  int16_t* row_buffer = static_cast<int16_t*>(scratch);  // [n_kv] scores, then probabilities
  int16_t* exp_scratch = row_buffer + a.n_kv;            // [n_kv]
  const size_t d_k = static_cast<size_t>(a.d_k);
  const Requantize64Factors score_factors = FactorsOf(a.score_multiplier, a.score_shift);
  const Requantize64Factors out_factors = FactorsOf(a.out_multiplier, a.out_shift);
  for (int32_t r = first_row; r < first_row + rows; ++r) {
    const int16_t* q = a.q + static_cast<size_t>(r) * a.ld_q;
    const int32_t scored = ScoredKeys(a, r);
    for (int32_t j = 0; j < scored; j += 4) {
      int64_t acc[4];
      DotS16x4(q, RowsFrom(a.k + static_cast<size_t>(j) * a.ld_k, a.ld_k, scored - j), d_k, acc);
      for (int32_t i = 0; i < 4 && j + i < scored; ++i) {
        row_buffer[j + i] = OutputS16(acc[i], score_factors);
      }
    }
    const VisibleRun run = VisibleRunOf(a, r);
    KeepScores(a, r, row_buffer, run);
    ProbabilitiesOfRun(
        row_buffer, run, int16_t{0}, static_cast<int16_t*>(nullptr), [&](int32_t at) {
          SoftmaxS16Row(*a.softmax_s16, a.softmax_multiplier, a.softmax_left_shift, row_buffer + at,
                        static_cast<size_t>(run.count), exp_scratch, row_buffer + at);
        });
    KeepProbsS16(a, r, row_buffer, scored);
    int16_t* out = a.out + static_cast<size_t>(r) * a.ld_out;
    for (int32_t t = 0; t < a.d_v; t += 4) {
      int64_t acc[4] = {0, 0, 0, 0};
      if (scored > 0) {
        DotS16x4(row_buffer,
                 RowsFrom(a.v_transposed + static_cast<size_t>(t) * a.ld_vt, a.ld_vt, a.d_v - t),
                 static_cast<size_t>(scored), acc);
      }
      for (int32_t i = 0; i < 4 && t + i < a.d_v; ++i) {
        out[t + i] = OutputS16(acc[i], out_factors);
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "runtime/dispatch.h"

namespace edgeattn {

EA_EXPORT(LinearS8Target);
EA_EXPORT(LinearS16Target);
EA_EXPORT(AttendRowsS8Target);
EA_EXPORT(AttendRowsS16Target);
EA_EXPORT(UsesS8PanelsTarget);
EA_EXPORT(PackValuePanelsS8Target);
EA_EXPORT(PackKeyPanelsS8Target);

bool UsesS8Panels() { return EA_DISPATCH(UsesS8PanelsTarget)(); }

void PackValuePanelsS8(const int8_t* v, size_t ld_v, int32_t d_v, int32_t n_kv, int8_t* panels) {
  EA_DISPATCH(PackValuePanelsS8Target)(v, ld_v, d_v, n_kv, panels);
}

void PackKeyPanelsS8(const int8_t* k, size_t ld_k, int32_t n_kv, int32_t d_k, uint8_t* panels,
                     int32_t* sums) {
  EA_DISPATCH(PackKeyPanelsS8Target)(k, ld_k, n_kv, d_k, panels, sums);
}

void LinearS8(const LinearQArgs<int8_t>& args) { EA_DISPATCH(LinearS8Target)(args); }
void LinearS16(const LinearQArgs<int16_t>& args) { EA_DISPATCH(LinearS16Target)(args); }

void AttendRowsS8(const AttentionQArgs<int8_t>& args, int32_t first_row, int32_t rows,
                  void* scratch) {
  EA_DISPATCH(AttendRowsS8Target)(args, first_row, rows, scratch);
}
void AttendRowsS16(const AttentionQArgs<int16_t>& args, int32_t first_row, int32_t rows,
                   void* scratch) {
  EA_DISPATCH(AttendRowsS16Target)(args, first_row, rows, scratch);
}

namespace {
template <typename T>
void TransposeBlock(const T* src, size_t ld_src, int32_t rows, int32_t cols, T* dst,
                    size_t ld_dst) {
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t c = 0; c < cols; ++c) {
      dst[static_cast<size_t>(c) * ld_dst + static_cast<size_t>(r)] =
          src[static_cast<size_t>(r) * ld_src + static_cast<size_t>(c)];
    }
  }
}
}  // namespace

void TransposeS8(const int8_t* src, size_t ld_src, int32_t rows, int32_t cols, int8_t* dst,
                 size_t ld_dst) {
  TransposeBlock(src, ld_src, rows, cols, dst, ld_dst);
}
void TransposeS16(const int16_t* src, size_t ld_src, int32_t rows, int32_t cols, int16_t* dst,
                  size_t ld_dst) {
  TransposeBlock(src, ld_src, rows, cols, dst, ld_dst);
}

}  // namespace edgeattn
#endif  // HWY_ONCE
