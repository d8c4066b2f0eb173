// The int8 record step's dot products on the x86 targets without VNNI
// (AVX3, AVX2, SSE4, SSSE3): codes widened to int16 and multiplied by
// vpmaddwd, which adds adjacent products into each int32 lane; the two lanes
// of a quad are added once per group of keys or channels. Per 16 code
// products a widening load, a vpmaddwd and an add, where float lanes take a
// widening load, a conversion and an FMA per 8. Highway's ReorderWidenMulAccumulate adds
// adjacent pairs into a lane on x86 only (Arm's lanes hold other pairs), so
// this family is x86's alone. Operands in int8_record_operands-inl.h.

#if defined(EDGEATTN_SRC_KV_CACHE_INT8_DOTS_PAIRS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KV_CACHE_INT8_DOTS_PAIRS_INL_H_
#undef EDGEATTN_SRC_KV_CACHE_INT8_DOTS_PAIRS_INL_H_
#else
#define EDGEATTN_SRC_KV_CACHE_INT8_DOTS_PAIRS_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "kv_cache/int8_record_operands-inl.h"

#if EA_INT8_DOTS == EA_INT8_DOTS_PAIRS

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Four codes as int16 from `bytes` (8 bytes), repeated across the vector.
template <class D16>
HWY_INLINE hn::Vec<D16> RepeatedQuad(D16 d16, const unsigned char* bytes) {
  const hn::Repartition<uint64_t, D16> d64;
  uint64_t quad;
  memcpy(&quad, bytes, sizeof(quad));
  return hn::BitCast(d16, hn::Set(d64, quad));
}

// Lanes(d16) int8 values from p widened to int16.
template <class D16>
HWY_INLINE hn::Vec<D16> WidenToInt16(D16 d16, const int8_t* p) {
  const hn::Rebind<int8_t, D16> d8;
  return hn::PromoteTo(d16, hn::LoadU(d8, p));
}

// acc += a * b by int16 pairs: lane i gets a[2i] b[2i] + a[2i+1] b[2i+1].
template <class D32, class V16>
HWY_INLINE hn::Vec<D32> AddPairProducts(D32 d32, V16 a, V16 b, hn::Vec<D32> acc) {
  hn::Vec<D32> unused = hn::Zero(d32);  // x86 adds every pair into acc
  return hn::ReorderWidenMulAccumulate(d32, a, b, acc, unused);
}

// The sums of quads: lanes 2i and 2i + 1 of lo, then of hi, added in order.
template <class D32>
HWY_INLINE hn::Vec<D32> SumLanePairs(D32 d32, hn::Vec<D32> lo, hn::Vec<D32> hi) {
  return hn::Add(hn::ConcatEven(d32, hi, lo), hn::ConcatOdd(d32, hi, lo));
}

// A pass takes 2 * Lanes(d32) keys (8 bytes a key pair as int16, four
// vectors of key quads) against one broadcast query quad: per 16 code
// products a widening load, a vpmaddwd and an add. Records hold kKeyBlock
// key slots, a multiple of every pass.
template <class DF>
HWY_INLINE void ScoreRecordS8Pairs(DF df, const QueryRowsS8& q, size_t rows, const int8_t* keys,
                                   size_t quads, size_t key_count, const float* key_scales,
                                   float* tile) {
  const hn::RebindToSigned<DF> d32;
  const hn::Repartition<int16_t, decltype(d32)> d16;
  const size_t n16 = hn::Lanes(d16);
  const size_t keys_per_pass = 2 * hn::Lanes(d32);
  constexpr size_t kRow = kKeyBlock * 4;  // bytes of one quad row
  for (size_t r = 0; r < rows; ++r) {
    const unsigned char* codes = reinterpret_cast<const unsigned char*>(q.wide_codes[r]);
    for (size_t j = 0; j < key_count; j += keys_per_pass) {
      auto a0 = hn::Zero(d32), a1 = hn::Zero(d32), a2 = hn::Zero(d32), a3 = hn::Zero(d32);
      const int8_t* p = keys + j * 4;
      for (size_t quad = 0; quad < quads; ++quad, p += kRow) {
        const auto code = RepeatedQuad(d16, codes + quad * 8);
        a0 = AddPairProducts(d32, WidenToInt16(d16, p), code, a0);
        a1 = AddPairProducts(d32, WidenToInt16(d16, p + n16), code, a1);
        a2 = AddPairProducts(d32, WidenToInt16(d16, p + 2 * n16), code, a2);
        a3 = AddPairProducts(d32, WidenToInt16(d16, p + 3 * n16), code, a3);
      }
      const size_t half = hn::Lanes(d32);
      float* row = tile + r * kScoreTileKeys + j;
      StoreScaledScores(df, hn::ConvertTo(df, SumLanePairs(d32, a0, a1)), key_scales + j,
                        q.factors[r], row);
      StoreScaledScores(df, hn::ConvertTo(df, SumLanePairs(d32, a2, a3)), key_scales + j + half,
                        q.factors[r], row + half);
    }
  }
}

// out[c, c + width) after the block, from the quad sums of lo, hi.
template <class DF, class V32>
HWY_INLINE void AddChannelSums(DF df, V32 lo, V32 hi, const WeightedQuadsS8& a, size_t r,
                               float* out, size_t width) {
  const hn::RebindToSigned<DF> d32;
  AddBlockToOutput(df, hn::ConvertTo(df, SumLanePairs(d32, lo, hi)), a.steps[r], a.rescale[r], out,
                   width);
}

// The probability codes come as int16 from the tile row's first columns
// (QuantizeWeightsS8 leaves them there); channels [c, c + Lanes(d32)) are
// the 4 * Lanes(d32) bytes from c * 4 of each key quad's row. Two channel
// groups a pass share each broadcast of the codes.
template <class DF>
HWY_INLINE void AccumulateRecordS8Pairs(DF df, float* tile, size_t rows, const WeightedQuadsS8& a) {
  const hn::RebindToSigned<DF> d32;
  const hn::Repartition<int16_t, decltype(d32)> d16;
  const size_t lanes = hn::Lanes(d32), n16 = hn::Lanes(d16);
  const size_t row = a.d * 4;  // bytes of one key quad's row
  for (size_t r = 0; r < rows; ++r) {
    if (!a.usable[r]) continue;
    const unsigned char* codes = reinterpret_cast<const unsigned char*>(tile + r * kScoreTileKeys);
    float* out = a.out + r * a.out_stride;
    size_t c = 0;
    for (; c + 2 * lanes <= a.d; c += 2 * lanes) {
      auto a0 = hn::Zero(d32), a1 = hn::Zero(d32), a2 = hn::Zero(d32), a3 = hn::Zero(d32);
      const int8_t* p = a.values + a.quad_begin * row + c * 4;
      for (size_t quad = a.quad_begin; quad < a.quad_end; ++quad, p += row) {
        const auto weights = RepeatedQuad(d16, codes + quad * 8);
        a0 = AddPairProducts(d32, WidenToInt16(d16, p), weights, a0);
        a1 = AddPairProducts(d32, WidenToInt16(d16, p + n16), weights, a1);
        a2 = AddPairProducts(d32, WidenToInt16(d16, p + 2 * n16), weights, a2);
        a3 = AddPairProducts(d32, WidenToInt16(d16, p + 3 * n16), weights, a3);
      }
      AddChannelSums(df, a0, a1, a, r, out + c, lanes);
      AddChannelSums(df, a2, a3, a, r, out + c + lanes, lanes);
    }
    for (; c < a.d; c += lanes) {
      const size_t width = a.d - c < lanes ? a.d - c : lanes;
      auto a0 = hn::Zero(d32), a1 = hn::Zero(d32);
      for (size_t quad = a.quad_begin; quad < a.quad_end; ++quad) {
        const auto weights = RepeatedQuad(d16, codes + quad * 8);
        // Past d only the row's own bytes are read.
        HWY_ALIGN int8_t bytes[2 * HWY_MAX_BYTES] = {};
        memcpy(bytes, a.values + quad * row + c * 4, 4 * width);
        a0 = AddPairProducts(d32, WidenToInt16(d16, bytes), weights, a0);
        a1 = AddPairProducts(d32, WidenToInt16(d16, bytes + n16), weights, a1);
      }
      AddChannelSums(df, a0, a1, a, r, out + c, width);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // EA_INT8_DOTS == EA_INT8_DOTS_PAIRS

#endif  // EDGEATTN_SRC_KV_CACHE_INT8_DOTS_PAIRS_INL_H_
