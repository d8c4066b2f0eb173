// The int8 record step's dot products on Arm's SDOT: NEON with +dotprod
// (vdotq) and SVE at every vector length (svdot), four byte products added
// into each 32-bit lane. The quads are laid out for it: a lane's four bytes
// are one key's four channels (scores) or one channel's four keys (P V).
//
// Scores are signed by signed bytes as they lie. P V multiplies unsigned
// probability codes (0..255) by signed value codes: the values are flipped
// to v + 128 on load (one XOR) and UDOT takes them, and 128 times the sum of
// the codes is subtracted once per row (the VNNI kernels' offset, the other
// way round). Exact in 32 bits: sum_j code_j (v_j + 128) < 64 * 255 * 255.
// Operands in int8_record_operands-inl.h.

#if defined(EDGEATTN_SRC_KV_CACHE_INT8_DOTS_SDOT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KV_CACHE_INT8_DOTS_SDOT_INL_H_
#undef EDGEATTN_SRC_KV_CACHE_INT8_DOTS_SDOT_INL_H_
#else
#define EDGEATTN_SRC_KV_CACHE_INT8_DOTS_SDOT_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "kv_cache/int8_record_operands-inl.h"

#if EA_INT8_DOTS == EA_INT8_DOTS_SDOT
#if HWY_TARGET == HWY_NEON
#include <arm_neon.h>
#else
#include <arm_sve.h>
#endif

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// acc + the four-byte dot products of a and b in each lane, signed.
template <class D32, class V8>
HWY_INLINE hn::Vec<D32> AddSignedQuadDots(D32 /* d32 */, hn::Vec<D32> acc, V8 a, V8 b) {
#if HWY_TARGET == HWY_NEON
  return hn::Vec<D32>(vdotq_s32(acc.raw, a.raw, b.raw));
#else
  return svdot_s32(acc, a, b);
#endif
}

// The same, unsigned.
template <class DU32, class VU8>
HWY_INLINE hn::Vec<DU32> AddUnsignedQuadDots(DU32 /* du32 */, hn::Vec<DU32> acc, VU8 a, VU8 b) {
#if HWY_TARGET == HWY_NEON
  return hn::Vec<DU32>(vdotq_u32(acc.raw, a.raw, b.raw));
#else
  return svdot_u32(acc, a, b);
#endif
}

// Four bytes at p, repeated across the vector.
template <class D8>
HWY_INLINE hn::Vec<D8> RepeatedBytes(D8 d8, const void* p) {
  const hn::Repartition<uint32_t, D8> du32;
  uint32_t word;
  memcpy(&word, p, sizeof(word));
  return hn::BitCast(d8, hn::Set(du32, word));
}

// acc0..acc3 + the four vectors of key quads at p times `code`.
template <class D32, class V8>
HWY_INLINE void AddFourKeyGroups(D32 d32, const int8_t* p, size_t stride, V8 code,
                                 hn::Vec<D32>& acc0, hn::Vec<D32>& acc1, hn::Vec<D32>& acc2,
                                 hn::Vec<D32>& acc3) {
  const hn::Repartition<int8_t, D32> d8;
  acc0 = AddSignedQuadDots(d32, acc0, hn::LoadU(d8, p), code);
  acc1 = AddSignedQuadDots(d32, acc1, hn::LoadU(d8, p + stride), code);
  acc2 = AddSignedQuadDots(d32, acc2, hn::LoadU(d8, p + 2 * stride), code);
  acc3 = AddSignedQuadDots(d32, acc3, hn::LoadU(d8, p + 3 * stride), code);
}

// A lane per key: Lanes(d32) keys are the 4 * Lanes(d32) bytes from j * 4
// of each quad row. Four key groups a pass where a record holds them (NEON,
// SVE to 512 bits), even and odd quads apart: eight SDOT chains in flight,
// as two pipes of 3-4 cycles' latency need (tools/arm_mca.sh); one group
// otherwise.
template <class DF>
HWY_INLINE void ScoreRecordS8Sdot(DF df, const QueryRowsS8& q, size_t rows, const int8_t* keys,
                                  size_t quads, size_t key_count, const float* key_scales,
                                  float* tile) {
  const hn::RebindToSigned<DF> d32;
  const hn::Repartition<int8_t, decltype(d32)> d8;
  const size_t lanes = hn::Lanes(d32);
  constexpr size_t kRow = kKeyBlock * 4;  // bytes of one quad row
  auto finish = [&](size_t r, size_t j, hn::Vec<decltype(d32)> dots) {
    StoreScaledScores(df, hn::ConvertTo(df, dots), key_scales + j, q.factors[r],
                      tile + r * kScoreTileKeys + j);
  };
  for (size_t r = 0; r < rows; ++r) {
    const int8_t* codes = q.codes[r];
    size_t j = 0;
    if (4 * lanes <= kKeyBlock) {
      for (; j < key_count; j += 4 * lanes) {
        auto a0 = hn::Zero(d32), a1 = hn::Zero(d32), a2 = hn::Zero(d32), a3 = hn::Zero(d32);
        auto b0 = hn::Zero(d32), b1 = hn::Zero(d32), b2 = hn::Zero(d32), b3 = hn::Zero(d32);
        const int8_t* p = keys + j * 4;
        size_t quad = 0;
        for (; quad + 1 < quads; quad += 2, p += 2 * kRow) {
          AddFourKeyGroups(d32, p, 4 * lanes, RepeatedBytes(d8, codes + quad * 4), a0, a1, a2, a3);
          AddFourKeyGroups(d32, p + kRow, 4 * lanes, RepeatedBytes(d8, codes + quad * 4 + 4), b0,
                           b1, b2, b3);
        }
        if (quad < quads) {
          AddFourKeyGroups(d32, p, 4 * lanes, RepeatedBytes(d8, codes + quad * 4), a0, a1, a2, a3);
        }
        finish(r, j, hn::Add(a0, b0));
        finish(r, j + lanes, hn::Add(a1, b1));
        finish(r, j + 2 * lanes, hn::Add(a2, b2));
        finish(r, j + 3 * lanes, hn::Add(a3, b3));
      }
    }
    for (; j < key_count; j += lanes) {
      auto a0 = hn::Zero(d32);
      const int8_t* p = keys + j * 4;
      for (size_t quad = 0; quad < quads; ++quad, p += kRow) {
        a0 = AddSignedQuadDots(d32, a0, hn::LoadU(d8, p), RepeatedBytes(d8, codes + quad * 4));
      }
      finish(r, j, a0);
    }
  }
}

// A lane per channel: channels [c, c + Lanes(d32)) are the 4 * Lanes(d32)
// bytes from c * 4 of each key quad's row. Four channel groups a pass where
// d holds them (four UDOT chains), then two, then one.
template <class DF>
HWY_INLINE void AccumulateRecordS8Sdot(DF df, float* tile, size_t rows, const WeightedQuadsS8& a) {
  const hn::RebindToSigned<DF> d32;
  const hn::RebindToUnsigned<DF> du32;
  const hn::Repartition<uint8_t, decltype(du32)> du8;
  const size_t lanes = hn::Lanes(d32);
  const size_t row = a.d * 4;  // bytes of one key quad's row
  const auto flip = hn::Set(du8, 0x80);
  for (size_t r = 0; r < rows; ++r) {
    if (!a.usable[r]) continue;
    const uint8_t* codes = WeightCodesOf(tile, r);
    uint32_t code_sum = 0;
    for (size_t k = a.quad_begin * 4; k < a.quad_end * 4; ++k) code_sum += codes[k];
    const auto offset = hn::Set(d32, static_cast<int32_t>(128 * code_sum));
    float* out = a.out + r * a.out_stride;
    auto finish = [&](size_t c, hn::Vec<decltype(du32)> acc, size_t width) {
      const auto sums = hn::Sub(hn::BitCast(d32, acc), offset);
      AddBlockToOutput(df, hn::ConvertTo(df, sums), a.steps[r], a.rescale[r], out + c, width);
    };
    const uint8_t* values = reinterpret_cast<const uint8_t*>(a.values);
    auto flipped = [&](const uint8_t* p) { return hn::Xor(hn::LoadU(du8, p), flip); };
    size_t c = 0;
    for (; c + 4 * lanes <= a.d; c += 4 * lanes) {
      auto a0 = hn::Zero(du32), a1 = hn::Zero(du32), a2 = hn::Zero(du32), a3 = hn::Zero(du32);
      const uint8_t* p = values + a.quad_begin * row + c * 4;
      for (size_t quad = a.quad_begin; quad < a.quad_end; ++quad, p += row) {
        const auto weights = RepeatedBytes(du8, codes + quad * 4);
        a0 = AddUnsignedQuadDots(du32, a0, flipped(p), weights);
        a1 = AddUnsignedQuadDots(du32, a1, flipped(p + 4 * lanes), weights);
        a2 = AddUnsignedQuadDots(du32, a2, flipped(p + 8 * lanes), weights);
        a3 = AddUnsignedQuadDots(du32, a3, flipped(p + 12 * lanes), weights);
      }
      finish(c, a0, lanes);
      finish(c + lanes, a1, lanes);
      finish(c + 2 * lanes, a2, lanes);
      finish(c + 3 * lanes, a3, lanes);
    }
    for (; c + 2 * lanes <= a.d; c += 2 * lanes) {
      auto a0 = hn::Zero(du32), a1 = hn::Zero(du32);
      const uint8_t* p = values + a.quad_begin * row + c * 4;
      for (size_t quad = a.quad_begin; quad < a.quad_end; ++quad, p += row) {
        const auto weights = RepeatedBytes(du8, codes + quad * 4);
        a0 = AddUnsignedQuadDots(du32, a0, flipped(p), weights);
        a1 = AddUnsignedQuadDots(du32, a1, flipped(p + 4 * lanes), weights);
      }
      finish(c, a0, lanes);
      finish(c + lanes, a1, lanes);
    }
    for (; c < a.d; c += lanes) {
      const size_t width = a.d - c < lanes ? a.d - c : lanes;
      auto a0 = hn::Zero(du32);
      for (size_t quad = a.quad_begin; quad < a.quad_end; ++quad) {
        const uint8_t* p = values + quad * row + c * 4;
        // Past d only the row's own bytes are read (lanes past width are
        // not stored).
        HWY_ALIGN uint8_t bytes[HWY_MAX_BYTES] = {};
        if (width < lanes) p = static_cast<const uint8_t*>(memcpy(bytes, p, 4 * width));
        a0 = AddUnsignedQuadDots(du32, a0, flipped(p), RepeatedBytes(du8, codes + quad * 4));
      }
      finish(c, a0, width);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // EA_INT8_DOTS == EA_INT8_DOTS_SDOT

#endif  // EDGEATTN_SRC_KV_CACHE_INT8_DOTS_SDOT_INL_H_
