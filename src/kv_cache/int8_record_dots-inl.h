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
// order, so every target computes the same integers, each by the family of
// instructions it has (EA_INT8_DOTS, int8_record_operands-inl.h): vpdpbusd,
// vpmaddwd, SDOT, integer words or exact float lanes. This file rounds the
// weights and picks the target's kernels.

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
#include "kv_cache/int4_dots_vnni-inl.h"
#include "kv_cache/int8_dots_float_lanes-inl.h"
#include "kv_cache/int8_dots_pairs-inl.h"
#include "kv_cache/int8_dots_sdot-inl.h"
#include "kv_cache/int8_dots_vnni-inl.h"
#include "kv_cache/int8_dots_words-inl.h"
#include "kv_cache/int8_record_operands-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

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
// puts NaN above every number; the second rounds, and leaves the codes
// widened in the row too where the target's P V reads them so: int16 from
// the row's first byte (vpmaddwd), or float (the float lanes).
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
#if EA_INT8_DOTS == EA_INT8_DOTS_PAIRS
      // Codes [j, j + lanes) as int16 overwrite floats below j + lanes / 2:
      // weights this loop has read already.
      const hn::Rebind<int16_t, decltype(di)> d16;
      hn::StoreU(hn::DemoteTo(d16, code), d16, reinterpret_cast<int16_t*>(weights) + j);
#elif EA_INT8_DOTS == EA_INT8_DOTS_FLOAT_LANES
      hn::StoreU(hn::ConvertTo(df, code), df, weights + j);
#endif
    }
  }
}

#undef EA_INT4_READS_PACKED
#if EA_INT8_DOTS == EA_INT8_DOTS_VNNI
// int4 records: AVX3_DL's kernels read the packed nibbles
// (int4_dots_vnni-inl.h); the other targets widen each record to int8 codes
// first (int4_record_widen-inl.h).
#define EA_INT4_READS_PACKED 1

// The VNNI kernels of `rows` grid rows: int8 quads, or int4's packed pairs
// of quads (`quads` of them, an even count).
template <bool kPacked, int kRows>
EA_VNNI_TARGET void ScoreRowsVnni(const QueryRowsS8& q, const void* keys, size_t quads,
                                  const float* key_scales, float* tile) {
  if constexpr (kPacked) {
    ScoreRecordS4Vnni<kRows>(q, static_cast<const uint8_t*>(keys), quads / 2, key_scales, tile);
  } else {
    ScoreRecordS8Vnni<kRows>(q, static_cast<const int8_t*>(keys), quads, key_scales, tile);
  }
}
template <bool kPacked>
HWY_INLINE void ScoreRecordVnni(const QueryRowsS8& q, size_t rows, const void* keys, size_t quads,
                                const float* key_scales, float* tile) {
  switch (rows) {
    case 1:
      return ScoreRowsVnni<kPacked, 1>(q, keys, quads, key_scales, tile);
    case 2:
      return ScoreRowsVnni<kPacked, 2>(q, keys, quads, key_scales, tile);
    case 3:
      return ScoreRowsVnni<kPacked, 3>(q, keys, quads, key_scales, tile);
    case 4:
      return ScoreRowsVnni<kPacked, 4>(q, keys, quads, key_scales, tile);
    case 5:
      return ScoreRowsVnni<kPacked, 5>(q, keys, quads, key_scales, tile);
    default:
      return ScoreRowsVnni<kPacked, 6>(q, keys, quads, key_scales, tile);
  }
}

template <bool kPacked, int kRows>
EA_VNNI_TARGET void AccumulateRowsVnni(float* tile, size_t first_row, const WeightedQuadsS8& a) {
  if constexpr (kPacked) {
    AccumulateRowsS4Vnni<kRows>(tile, first_row, a);
  } else {
    AccumulateRowsS8Vnni<kRows>(tile, first_row, a);
  }
}
template <bool kPacked>
HWY_INLINE void AccumulateRecordVnni(float* tile, size_t rows, const WeightedQuadsS8& a) {
  bool all_usable = true;
  for (size_t r = 0; r < rows; ++r) all_usable = all_usable && a.usable[r];
  if (!all_usable) {
    for (size_t r = 0; r < rows; ++r) {
      if (a.usable[r]) AccumulateRowsVnni<kPacked, 1>(tile, r, a);
    }
    return;
  }
  switch (rows) {
    case 1:
      return AccumulateRowsVnni<kPacked, 1>(tile, 0, a);
    case 2:
      return AccumulateRowsVnni<kPacked, 2>(tile, 0, a);
    case 3:
      return AccumulateRowsVnni<kPacked, 3>(tile, 0, a);
    case 4:
      return AccumulateRowsVnni<kPacked, 4>(tile, 0, a);
    case 5:
      return AccumulateRowsVnni<kPacked, 5>(tile, 0, a);
    default:
      return AccumulateRowsVnni<kPacked, 6>(tile, 0, a);
  }
}

// One scale group of a packed int4 record: its `quads` quads of keys (in
// pairs), and its values (a.values: the group's pairs of key quads).
HWY_INLINE void ScoreRecordS4Packed(const QueryRowsS8& q, size_t rows, const uint8_t* keys,
                                    size_t quads, const float* key_scales, float* tile) {
  ScoreRecordVnni<true>(q, rows, keys, quads, key_scales, tile);
}
HWY_INLINE void AccumulateRecordS4Packed(float* tile, size_t rows, const WeightedQuadsS8& a) {
  AccumulateRecordVnni<true>(tile, rows, a);
}
#else
#define EA_INT4_READS_PACKED 0
#endif

// The record's scores for `rows` grid rows: keys [0, key_count), rounded up
// to whole vectors (a record always holds kKeyBlock key slots).
template <class DF>
HWY_INLINE void ScoreRecordS8(DF df, const QueryRowsS8& q, size_t rows, const int8_t* keys,
                              size_t quads, size_t key_count, const float* key_scales,
                              float* tile) {
#if EA_INT8_DOTS == EA_INT8_DOTS_VNNI
  (void)df;
  (void)key_count;
  ScoreRecordVnni<false>(q, rows, keys, quads, key_scales, tile);
#elif EA_INT8_DOTS == EA_INT8_DOTS_PAIRS
  ScoreRecordS8Pairs(df, q, rows, keys, quads, key_count, key_scales, tile);
#elif EA_INT8_DOTS == EA_INT8_DOTS_SDOT
  ScoreRecordS8Sdot(df, q, rows, keys, quads, key_count, key_scales, tile);
#elif EA_INT8_DOTS == EA_INT8_DOTS_WORDS
  ScoreRecordS8Words(df, q, rows, keys, quads, key_count, key_scales, tile);
#else
  ScoreRecordS8FloatLanes(df, q, rows, keys, quads, key_count, key_scales, tile);
#endif
}

template <class DF>
HWY_INLINE void AccumulateRecordS8(DF df, float* tile, size_t rows, const WeightedQuadsS8& a) {
#if EA_INT8_DOTS == EA_INT8_DOTS_VNNI
  (void)df;
  AccumulateRecordVnni<false>(tile, rows, a);
#elif EA_INT8_DOTS == EA_INT8_DOTS_PAIRS
  AccumulateRecordS8Pairs(df, tile, rows, a);
#elif EA_INT8_DOTS == EA_INT8_DOTS_SDOT
  AccumulateRecordS8Sdot(df, tile, rows, a);
#elif EA_INT8_DOTS == EA_INT8_DOTS_WORDS
  AccumulateRecordS8Words(df, tile, rows, a);
#else
  AccumulateRecordS8FloatLanes(df, tile, rows, a);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // EDGEATTN_SRC_KV_CACHE_INT8_RECORD_DOTS_INL_H_
