// The int8 record step's dot products where the target has no integer dot
// product to use: float lanes of widened bytes, exact because every product
// and partial sum is an integer below 2^24 (operands in
// int8_record_operands-inl.h).

#if defined(EDGEATTN_SRC_KV_CACHE_INT8_DOTS_FLOAT_LANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KV_CACHE_INT8_DOTS_FLOAT_LANES_INL_H_
#undef EDGEATTN_SRC_KV_CACHE_INT8_DOTS_FLOAT_LANES_INL_H_
#else
#define EDGEATTN_SRC_KV_CACHE_INT8_DOTS_FLOAT_LANES_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "kv_cache/int8_record_operands-inl.h"

#if EA_INT8_DOTS == EA_INT8_DOTS_FLOAT_LANES

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

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
HWY_INLINE void ScoreRecordS8FloatLanes(DF df, const QueryRowsS8& q, size_t rows,
                                        const int8_t* keys, size_t quads, size_t key_count,
                                        const float* key_scales, float* tile) {
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
        const float* codes = q.wide_codes[r] + q0 * 4;
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
      StoreScaledScores(df, hn::ConvertTo(df, SumLaneQuads(di, s0, s1, s2, s3)), key_scales + j,
                        q.factors[r], tile + r * kScoreTileKeys + j);
    }
  }
}

// The probability codes come as floats from the tile row's first columns
// (QuantizeWeightsS8 leaves them there).
template <class DF>
HWY_INLINE void AccumulateRecordS8FloatLanes(DF df, float* tile, size_t rows,
                                             const WeightedQuadsS8& a) {
  const size_t lanes = hn::Lanes(df);
  for (size_t r = 0; r < rows; ++r) {
    if (!a.usable[r]) continue;
    const float* codes = tile + r * kScoreTileKeys;
    float* out = a.out + r * a.out_stride;
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
      AddBlockToOutput(df, SumLaneQuads(df, a0, a1, a2, a3), a.steps[r], a.rescale[r], out + c,
                       width);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // EA_INT8_DOTS == EA_INT8_DOTS_FLOAT_LANES

#endif  // EDGEATTN_SRC_KV_CACHE_INT8_DOTS_FLOAT_LANES_INL_H_
