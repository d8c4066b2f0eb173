// The integer dot products of an int8 KV cache's decode: scores of int8
// query codes against a record's key quads, and the block's probabilities,
// rounded to 8 bits, against its value quads (layouts in arena_sizes.hpp).
//
// Numerics (kv_cache.h, "INT8"): a score is the exact integer sum
// sum_c q_code[c] k_code[c][j], converted to float once and multiplied by
// k_scale[j] * (scale * q_scale). The probabilities p_j of a 64-key block,
// times v_scale[j], are rounded to codes 0..255 against the block's largest
// (step = largest / 255); the output row adds step * sum_j code_j v_code[j][c]
// (an exact integer) after its rescale. Integer sums do not depend on their
// order, so every target computes the same integers: AVX3_DL by vpdpbusd,
// four bytes a lane; SCALAR (Cortex-M) by integer products of the bytes of
// 32-bit words; the other targets by float lanes of widened bytes, whose
// products and partial sums are integers below 2^24 and so exact (below).
//
// vpdpbusd multiplies unsigned by signed bytes: the key codes are flipped to
// k + 128 on load (one XOR) and the query's sum times 128 is subtracted once
// per score; the probability codes are unsigned already.

#if defined(EDGEATTN_SRC_KV_CACHE_INT8_RECORD_DOTS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KV_CACHE_INT8_RECORD_DOTS_INL_H_
#undef EDGEATTN_SRC_KV_CACHE_INT8_RECORD_DOTS_INL_H_
#else
#define EDGEATTN_SRC_KV_CACHE_INT8_RECORD_DOTS_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <limits>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "online_softmax-inl.h"
#include "register_grid-inl.h"
#include "vector_tail-inl.h"

#if HWY_TARGET == HWY_AVX3_DL
#include <immintrin.h>

#include "fixed_point/vnni_tile-inl.h"  // EA_VNNI_TARGET
#endif

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The grid rows of one record step: each row's query codes (whole quads),
// the sum of its codes and the factor scale * q_scale of its scores.
struct QueryRowsS8 {
  const int8_t* codes[kGridRows];
  const float* float_codes[kGridRows];  // the same codes as float
  int32_t sums[kGridRows];
  float factors[kGridRows];
};

// The probability codes of tile row r: kKeyBlock bytes in the row's columns
// past the block's scores (a decode step uses columns [0, kKeyBlock)).
inline uint8_t* WeightCodesOf(float* tile, size_t r) {
  return static_cast<uint8_t*>(static_cast<void*>(tile + r * kScoreTileKeys + kKeyBlock));
}
static_assert(kScoreTileKeys >= 2 * kKeyBlock, "the tile rows hold scores and weight codes");

// The output rows' step of one block: out_r[c] = out_r[c] * rescale[r] +
// steps[r] * sum_j codes_r[j] values[j][c], keys of quads [quad_begin,
// quad_end), for the rows with usable[r].
struct WeightedQuadsS8 {
  const int8_t* values;  // key quads [kKeyBlock / 4][d][4]
  size_t d;
  size_t quad_begin, quad_end;
  const float* steps;
  const float* rescale;
  const bool* usable;
  float* out;  // row r at r * d
};

#if HWY_TARGET == HWY_SCALAR

// One lane (the microcontrollers' target): integer products, the four bytes
// of a 32-bit word isolated by shifts, sign-extended.
template <int kByte>
inline int32_t WordByte(int32_t word) {
  return static_cast<int32_t>(static_cast<uint32_t>(word) << (24 - 8 * kByte)) >> 24;
}

inline int32_t QuadProducts(const int8_t* p, const int32_t factor[4]) {
  int32_t word;
  memcpy(&word, p, sizeof(word));
  return WordByte<0>(word) * factor[0] + WordByte<1>(word) * factor[1] +
         WordByte<2>(word) * factor[2] + WordByte<3>(word) * factor[3];
}

// tile[r][j] = float(sum_c codes_r[c] keys[c][j]) * (key_scales[j] *
// factor_r) for keys j < key_count, over `quads` channel quads.
template <class DF>
HWY_INLINE void ScoreRecordS8Portable(DF /* df */, const QueryRowsS8& q, size_t rows,
                                      const int8_t* keys, size_t quads, size_t key_count,
                                      const float* key_scales, float* tile) {
  for (size_t r = 0; r < rows; ++r) {
    for (size_t j = 0; j < key_count; ++j) {
      int32_t dot = 0;
      for (size_t quad = 0; quad < quads; ++quad) {
        const int8_t* code = q.codes[r] + quad * 4;
        const int32_t factor[4] = {code[0], code[1], code[2], code[3]};
        dot += QuadProducts(keys + (quad * kKeyBlock + j) * 4, factor);
      }
      tile[r * kScoreTileKeys + j] = static_cast<float>(dot) * (key_scales[j] * q.factors[r]);
    }
  }
}

template <class DF>
HWY_INLINE void AccumulateRecordS8Portable(DF /* df */, float* tile, size_t rows,
                                           const WeightedQuadsS8& a) {
  for (size_t r = 0; r < rows; ++r) {
    if (!a.usable[r]) continue;
    const uint8_t* codes = WeightCodesOf(tile, r);
    float* out = a.out + r * a.d;
    for (size_t c = 0; c < a.d; ++c) {
      int32_t sum = 0;
      for (size_t quad = a.quad_begin; quad < a.quad_end; ++quad) {
        const uint8_t* code = codes + quad * 4;
        const int32_t factor[4] = {code[0], code[1], code[2], code[3]};
        sum += QuadProducts(a.values + (quad * a.d + c) * 4, factor);
      }
      out[c] = out[c] * a.rescale[r] + static_cast<float>(sum) * a.steps[r];
    }
  }
}

#else

// Targets without an int8 dot product: a vector of Lanes bytes widened to
// float holds Lanes / 4 keys (or channels) of four codes each, as the quads
// lie in the record, and is multiplied by the other side's four codes
// repeated (LoadDup128 of four floats). Every product and partial sum is an
// integer below 2^24, exact in float (the key side moves its sums to int32
// every kExactQuads quads); four such vectors' adjacent lanes are summed at
// the end (SumLaneQuads), in key (channel) order. Per 4 codes, as the
// float grid did for f32: a widening load, a conversion and an FMA.
inline constexpr size_t kExactQuads = 1024;  // per lane: 1024 * 127 * 127 < 2^24

// v[i] = a[4i] + a[4i+1] + a[4i+2] + a[4i+3] over the lanes of a0..a3 in
// turn: the sums of four vectors' quads, in order.
template <class D>
HWY_INLINE hn::Vec<D> SumLaneQuads(D d, hn::Vec<D> a0, hn::Vec<D> a1, hn::Vec<D> a2,
                                   hn::Vec<D> a3) {
  const auto pairs01 = hn::Add(hn::ConcatEven(d, a1, a0), hn::ConcatOdd(d, a1, a0));
  const auto pairs23 = hn::Add(hn::ConcatEven(d, a3, a2), hn::ConcatOdd(d, a3, a2));
  return hn::Add(hn::ConcatEven(d, pairs23, pairs01), hn::ConcatOdd(d, pairs23, pairs01));
}

// Lanes int8 values from p widened to float.
template <class DF>
HWY_INLINE hn::Vec<DF> WidenBytes(DF df, const int8_t* p) {
  const hn::RebindToSigned<DF> di;
  const hn::Rebind<int8_t, decltype(di)> d8;
  return hn::ConvertTo(df, hn::PromoteTo(di, hn::LoadU(d8, p)));
}

// a0..a3 += the four vectors of bytes from p, one after the other, widened
// and multiplied by `codes`.
template <class DF, class V>
HWY_INLINE void AddFourWidened(DF df, const int8_t* p, V codes, V& a0, V& a1, V& a2, V& a3) {
  const size_t lanes = hn::Lanes(df);
  a0 = hn::MulAdd(WidenBytes(df, p), codes, a0);
  a1 = hn::MulAdd(WidenBytes(df, p + lanes), codes, a1);
  a2 = hn::MulAdd(WidenBytes(df, p + 2 * lanes), codes, a2);
  a3 = hn::MulAdd(WidenBytes(df, p + 3 * lanes), codes, a3);
}

// WidenBytes of the first `count` bytes, the other lanes 0.
template <class DF>
HWY_INLINE hn::Vec<DF> WidenBytesTail(DF df, const int8_t* p, size_t count) {
  const hn::RebindToSigned<DF> di;
  const hn::Rebind<int8_t, decltype(di)> d8;
  // HWY_MAX_BYTES, not MaxLanes(d8): on SVE, Highway 1.0.3 gives 16 for
  // this quarter-width tag whatever the vector length.
  HWY_ALIGN int8_t bytes[HWY_MAX_BYTES] = {};
  memcpy(bytes, p, count);
  return hn::ConvertTo(df, hn::PromoteTo(di, hn::Load(d8, bytes)));
}

template <class DF>
HWY_INLINE void ScoreRecordS8Portable(DF df, const QueryRowsS8& q, size_t rows, const int8_t* keys,
                                      size_t quads, size_t key_count, const float* key_scales,
                                      float* tile) {
  const hn::RebindToSigned<DF> di;
  const size_t lanes = hn::Lanes(df);
  for (size_t r = 0; r < rows; ++r) {
    // Keys [j, j + lanes) are the 4 * lanes bytes from j * 4 of each quad row.
    for (size_t j = 0; j < key_count; j += lanes) {
      auto s0 = hn::Zero(di), s1 = hn::Zero(di), s2 = hn::Zero(di), s3 = hn::Zero(di);
      for (size_t q0 = 0; q0 < quads; q0 += kExactQuads) {
        const size_t q1 = quads - q0 < kExactQuads ? quads : q0 + kExactQuads;
        // Even and odd quads into two sets of accumulators: eight chains
        // of FMAs, not four, keep two FMA pipes busy through their latency.
        auto a0 = hn::Zero(df), a1 = hn::Zero(df), a2 = hn::Zero(df), a3 = hn::Zero(df);
        auto b0 = hn::Zero(df), b1 = hn::Zero(df), b2 = hn::Zero(df), b3 = hn::Zero(df);
        const float* codes = q.float_codes[r] + q0 * 4;
        const int8_t* p = keys + (q0 * kKeyBlock + j) * 4;
        constexpr size_t kRow = kKeyBlock * 4;  // bytes of one quad row
        size_t quad = q0;
        for (; quad + 1 < q1; quad += 2, codes += 8, p += 2 * kRow) {
          AddFourWidened(df, p, hn::LoadDup128(df, codes), a0, a1, a2, a3);
          AddFourWidened(df, p + kRow, hn::LoadDup128(df, codes + 4), b0, b1, b2, b3);
        }
        if (quad < q1) AddFourWidened(df, p, hn::LoadDup128(df, codes), a0, a1, a2, a3);
        s0 = hn::Add(s0, hn::Add(hn::ConvertTo(di, a0), hn::ConvertTo(di, b0)));
        s1 = hn::Add(s1, hn::Add(hn::ConvertTo(di, a1), hn::ConvertTo(di, b1)));
        s2 = hn::Add(s2, hn::Add(hn::ConvertTo(di, a2), hn::ConvertTo(di, b2)));
        s3 = hn::Add(s3, hn::Add(hn::ConvertTo(di, a3), hn::ConvertTo(di, b3)));
      }
      const auto dots = hn::ConvertTo(df, SumLaneQuads(di, s0, s1, s2, s3));
      const auto scales = hn::Mul(hn::LoadU(df, key_scales + j), hn::Set(df, q.factors[r]));
      hn::StoreU(hn::Mul(dots, scales), df, tile + r * kScoreTileKeys + j);
    }
  }
}

// The probability codes come as floats from the tile row's first columns
// (QuantizeWeightsS8 leaves them there).
template <class DF>
HWY_INLINE void AccumulateRecordS8Portable(DF df, float* tile, size_t rows,
                                           const WeightedQuadsS8& a) {
  const size_t lanes = hn::Lanes(df);
  for (size_t r = 0; r < rows; ++r) {
    if (!a.usable[r]) continue;
    const float* codes = tile + r * kScoreTileKeys;
    float* out = a.out + r * a.d;
    // Channels [c, c + lanes) are the 4 * lanes bytes from c * 4 of each
    // key quad's row; past d only the row's own bytes are read.
    for (size_t c = 0; c < a.d; c += lanes) {
      const size_t width = a.d - c < lanes ? a.d - c : lanes;
      auto a0 = hn::Zero(df), a1 = hn::Zero(df), a2 = hn::Zero(df), a3 = hn::Zero(df);
      if (width == lanes) {
        // Even and odd quads into two sets of accumulators, as above.
        auto b0 = hn::Zero(df), b1 = hn::Zero(df), b2 = hn::Zero(df), b3 = hn::Zero(df);
        const size_t row = a.d * 4;  // bytes of one key quad's row
        size_t quad = a.quad_begin;
        for (; quad + 1 < a.quad_end; quad += 2) {
          const int8_t* p = a.values + quad * row + c * 4;
          AddFourWidened(df, p, hn::LoadDup128(df, codes + quad * 4), a0, a1, a2, a3);
          AddFourWidened(df, p + row, hn::LoadDup128(df, codes + quad * 4 + 4), b0, b1, b2, b3);
        }
        if (quad < a.quad_end) {
          AddFourWidened(df, a.values + quad * row + c * 4, hn::LoadDup128(df, codes + quad * 4),
                         a0, a1, a2, a3);
        }
        a0 = hn::Add(a0, b0);
        a1 = hn::Add(a1, b1);
        a2 = hn::Add(a2, b2);
        a3 = hn::Add(a3, b3);
      } else {
        size_t counts[4];
        for (size_t i = 0; i < 4; ++i) {
          const size_t begin = i * lanes, valid = 4 * width;
          counts[i] = valid <= begin ? 0 : valid - begin < lanes ? valid - begin : lanes;
        }
        for (size_t quad = a.quad_begin; quad < a.quad_end; ++quad) {
          const auto weights = hn::LoadDup128(df, codes + quad * 4);
          const int8_t* p = a.values + (quad * a.d + c) * 4;
          a0 = hn::MulAdd(WidenBytesTail(df, p, counts[0]), weights, a0);
          a1 = hn::MulAdd(WidenBytesTail(df, p + lanes, counts[1]), weights, a1);
          a2 = hn::MulAdd(WidenBytesTail(df, p + 2 * lanes, counts[2]), weights, a2);
          a3 = hn::MulAdd(WidenBytesTail(df, p + 3 * lanes, counts[3]), weights, a3);
        }
      }
      const auto added = hn::Mul(SumLaneQuads(df, a0, a1, a2, a3), hn::Set(df, a.steps[r]));
      const auto rescale = hn::Set(df, a.rescale[r]);
      if (width == lanes) {
        hn::StoreU(hn::MulAdd(hn::LoadU(df, out + c), rescale, added), df, out + c);
      } else {
        StoreTail(df, hn::MulAdd(LoadTail(df, out + c, width, 0.0f), rescale, added), out + c,
                  width);
      }
    }
  }
}

#endif  // HWY_TARGET == HWY_SCALAR

// Rounds row r's weights w_j = tile[r][j] * value_scales[j], j in [first,
// end), to codes 0..255 against their largest (WeightCodesOf; 0 outside the
// range) and sets steps[r] = largest / 255: 0 when every weight is 0, NaN
// when one is NaN (a NaN value scale: the row's output becomes NaN).
// Largest weights under 2^-64 are scaled up by 2^64 first, so that 255 /
// largest stays finite.
//
// Two passes: the first overwrites the probabilities with the weights (0
// outside the range) and takes their largest as an integer maximum of the
// bits with the sign cleared, which orders weights (>= 0) as floats do and
// puts NaN above every number; the second rounds, and leaves the codes as
// floats in the row too (AccumulateRecordS8Portable's operands).
template <class DF>
HWY_INLINE void QuantizeWeightsS8(DF df, float* tile, size_t rows, size_t first, size_t end,
                                  const float* value_scales, const bool* usable, float* steps) {
  const hn::RebindToSigned<DF> di;
  const hn::Rebind<uint8_t, decltype(di)> du8;
  const size_t lanes = hn::Lanes(df);
  const size_t start = first - first % lanes;
  const bool whole_vectors = first % lanes == 0 && end % lanes == 0;
  const auto iota = hn::Iota(di, 0);
  const auto magnitude = hn::Set(di, 0x7FFFFFFF);
  for (size_t r = 0; r < rows; ++r) {
    if (!usable[r]) continue;
    float* weights = tile + r * kScoreTileKeys;
    uint8_t* codes = WeightCodesOf(tile, r);
    memset(codes, 0, kKeyBlock);
    auto largest_bits = hn::Zero(di);
    for (size_t j = start; j < end; j += lanes) {
      auto w = hn::Mul(hn::LoadU(df, weights + j), hn::LoadU(df, value_scales + j));
      if (!whole_vectors) {
        const auto index = hn::Add(iota, hn::Set(di, static_cast<int32_t>(j)));
        const auto seen =
            hn::RebindMask(df, hn::And(hn::Lt(hn::Set(di, static_cast<int32_t>(first) - 1), index),
                                       hn::Lt(index, hn::Set(di, static_cast<int32_t>(end)))));
        w = hn::IfThenElseZero(seen, w);
      }
      hn::StoreU(w, df, weights + j);
      largest_bits = hn::Max(largest_bits, hn::And(hn::BitCast(di, w), magnitude));
    }
    const int32_t bits = hn::GetLane(hn::MaxOfLanes(di, largest_bits));
    if (bits >= 0x7F800000) {  // NaN (inf cannot occur: p <= 1, v_scale <= FLT_MAX / 127)
      steps[r] = std::numeric_limits<float>::quiet_NaN();
      continue;
    }
    float most;
    memcpy(&most, &bits, sizeof(most));
    steps[r] = most / 255.0f;
    if (!(most > 0.0f)) continue;
    // (w * boost) * (255 / (largest * boost)): exact powers of two keep
    // 255 / largest finite for the smallest weights.
    const float boost = most < 0x1p-64f ? 0x1p64f : 1.0f;
    const auto boost_v = hn::Set(df, boost);
    const auto factor = hn::Set(df, 255.0f / (most * boost));
    const auto half = hn::Set(df, 0.5f);
    const auto top = hn::Set(di, 255);
    for (size_t j = start; j < end; j += lanes) {
      // w * factor lies in [0, 255]: +0.5 and truncation round half up.
      const auto w = hn::Mul(hn::LoadU(df, weights + j), boost_v);
      const auto code = hn::Min(hn::ConvertTo(di, hn::MulAdd(w, factor, half)), top);
      hn::StoreU(hn::DemoteTo(du8, code), du8, codes + j);
      hn::StoreU(hn::ConvertTo(df, code), df, weights + j);  // for the float-lane P V
    }
  }
}

#if HWY_TARGET == HWY_AVX3_DL

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

// ScoreRecordS8Portable for kRows rows at once, all of a record's 64 key
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
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    const __m512i offset = _mm512_set1_epi32(q.sums[r] * 128);
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

// AccumulateRecordS8Portable for kRows rows from first_row, all usable,
// 16 * kVectors channels at a time (masked past d).
template <int kRows, int kVectors>
EA_VNNI_TARGET void AccumulateRecordS8Vnni(float* tile, size_t first_row,
                                           const WeightedQuadsS8& a) {
  constexpr int kChains = kVnniChains<kRows>;
  const size_t d = a.d;
  for (size_t c0 = 0; c0 < d; c0 += 16 * kVectors) {
    __mmask16 masks[kVectors];
#pragma GCC unroll 8
    for (int v = 0; v < kVectors; ++v) {
      const size_t c = c0 + 16 * static_cast<size_t>(v);
      const size_t lanes = c >= d ? 0 : d - c >= 16 ? 16 : d - c;
      masks[v] = static_cast<__mmask16>((1u << lanes) - 1u);
    }
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
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      const size_t row = first_row + static_cast<size_t>(r);
      float* out = a.out + row * d + c0;
      const __m512 step = _mm512_set1_ps(a.steps[row]);
      const __m512 rescale = _mm512_set1_ps(a.rescale[row]);
#pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) {
        const __m512i sum = SumOfChains(acc, r, v);
        const __m512 kept = _mm512_mul_ps(_mm512_maskz_loadu_ps(masks[v], out + 16 * v), rescale);
        const __m512 total = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum), step, kept);
        _mm512_mask_storeu_ps(out + 16 * v, masks[v], total);
      }
    }
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

#endif  // HWY_TARGET == HWY_AVX3_DL

// The record's scores for `rows` grid rows: keys [0, key_count), rounded up
// to whole vectors (a record always holds kKeyBlock key slots).
template <class DF>
HWY_INLINE void ScoreRecordS8(DF df, const QueryRowsS8& q, size_t rows, const int8_t* keys,
                              size_t quads, size_t key_count, const float* key_scales,
                              float* tile) {
#if HWY_TARGET == HWY_AVX3_DL
  (void)df;
  (void)key_count;
  switch (rows) {
    case 1:
      return ScoreRecordS8Vnni<1>(q, keys, quads, key_scales, tile);
    case 2:
      return ScoreRecordS8Vnni<2>(q, keys, quads, key_scales, tile);
    case 3:
      return ScoreRecordS8Vnni<3>(q, keys, quads, key_scales, tile);
    case 4:
      return ScoreRecordS8Vnni<4>(q, keys, quads, key_scales, tile);
    case 5:
      return ScoreRecordS8Vnni<5>(q, keys, quads, key_scales, tile);
    default:
      return ScoreRecordS8Vnni<6>(q, keys, quads, key_scales, tile);
  }
#else
  ScoreRecordS8Portable(df, q, rows, keys, quads, key_count, key_scales, tile);
#endif
}

template <class DF>
HWY_INLINE void AccumulateRecordS8(DF df, float* tile, size_t rows, const WeightedQuadsS8& a) {
#if HWY_TARGET == HWY_AVX3_DL
  (void)df;
  bool all_usable = true;
  for (size_t r = 0; r < rows; ++r) all_usable = all_usable && a.usable[r];
  if (!all_usable) {
    for (size_t r = 0; r < rows; ++r) {
      if (a.usable[r]) AccumulateRowsS8Vnni<1>(tile, r, a);
    }
    return;
  }
  switch (rows) {
    case 1:
      return AccumulateRowsS8Vnni<1>(tile, 0, a);
    case 2:
      return AccumulateRowsS8Vnni<2>(tile, 0, a);
    case 3:
      return AccumulateRowsS8Vnni<3>(tile, 0, a);
    case 4:
      return AccumulateRowsS8Vnni<4>(tile, 0, a);
    case 5:
      return AccumulateRowsS8Vnni<5>(tile, 0, a);
    default:
      return AccumulateRowsS8Vnni<6>(tile, 0, a);
  }
#else
  AccumulateRecordS8Portable(df, tile, rows, a);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // EDGEATTN_SRC_KV_CACHE_INT8_RECORD_DOTS_INL_H_
