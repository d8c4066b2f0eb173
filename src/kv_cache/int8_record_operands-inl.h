// What an int8 record step's dot products take (int8_record_dots-inl.h):
// the grid rows' query codes, and the output rows' block of weighted value
// quads, with the tile columns that carry the probability codes.

#if defined(EDGEATTN_SRC_KV_CACHE_INT8_RECORD_OPERANDS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KV_CACHE_INT8_RECORD_OPERANDS_INL_H_
#undef EDGEATTN_SRC_KV_CACHE_INT8_RECORD_OPERANDS_INL_H_
#else
#define EDGEATTN_SRC_KV_CACHE_INT8_RECORD_OPERANDS_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "kernels/f32/register_grid-inl.h"
#include "kernels/vector_tail-inl.h"

// The instruction family of this target's int8 record kernels, one file each:
// AVX-512 VNNI's vpdpbusd (int8_dots_vnni-inl.h); vpmaddwd on the other x86
// targets (int8_dots_pairs-inl.h); Arm's SDOT, NEON with +dotprod and SVE
// (int8_dots_sdot-inl.h); integer words on SCALAR (int8_dots_words-inl.h);
// exact float lanes elsewhere: NEON without dotprod, armv7 (int8_dots_float_lanes-inl.h).
#define EA_INT8_DOTS_VNNI 1
#define EA_INT8_DOTS_PAIRS 2
#define EA_INT8_DOTS_SDOT 3
#define EA_INT8_DOTS_WORDS 4
#define EA_INT8_DOTS_FLOAT_LANES 5
#undef EA_INT8_DOTS
#if HWY_TARGET == HWY_AVX3_DL
#define EA_INT8_DOTS EA_INT8_DOTS_VNNI
#elif HWY_TARGET == HWY_SCALAR
#define EA_INT8_DOTS EA_INT8_DOTS_WORDS
#elif HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128
#define EA_INT8_DOTS EA_INT8_DOTS_PAIRS
#elif HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || \
    HWY_TARGET == HWY_SVE2_128 ||                                                     \
    (HWY_TARGET == HWY_NEON && HWY_ARCH_ARM_A64 && defined(__ARM_FEATURE_DOTPROD))
#define EA_INT8_DOTS EA_INT8_DOTS_SDOT
#else
#define EA_INT8_DOTS EA_INT8_DOTS_FLOAT_LANES
#endif

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The grid rows of one record step: each row's query codes (whole quads),
// the sum of its codes and the factor scale * q_scale of its scores.
struct QueryRowsS8 {
  const int8_t* codes[kGridRows];
  const float* wide_codes[kGridRows];  // the same codes widened (WidenQueryCodes)
  int32_t sums[kGridRows];
  float factors[kGridRows];
};

// The probability codes of tile row r: kKeyBlock bytes in the row's columns
// past the block's scores (a decode step uses columns [0, kKeyBlock)).
inline uint8_t* WeightCodesOf(float* tile, size_t r) {
  return static_cast<uint8_t*>(static_cast<void*>(tile + r * kScoreTileKeys + kKeyBlock));
}
static_assert(kScoreTileKeys >= 2 * kKeyBlock, "the tile rows hold scores and weight codes");

// scores[0, Lanes) = dots * key_scales[0, Lanes) * factor: a vector of one
// row's scores, from its integer sums as float (every family but VNNI).
template <class DF>
HWY_INLINE void StoreScaledScores(DF df, hn::Vec<DF> dots, const float* key_scales, float factor,
                                  float* scores) {
  hn::StoreU(hn::Mul(dots, hn::Mul(hn::LoadU(df, key_scales), hn::Set(df, factor))), df, scores);
}

// out[0, width) = out * rescale + sums * step: a vector of one row's output
// channels after a block, from its integer sums as float (width <= Lanes).
template <class DF>
HWY_INLINE void AddBlockToOutput(DF df, hn::Vec<DF> sums, float step, float rescale, float* out,
                                 size_t width) {
  const auto added = hn::Mul(sums, hn::Set(df, step));
  const auto kept = hn::Set(df, rescale);
  if (width == hn::Lanes(df)) {
    hn::StoreU(hn::MulAdd(hn::LoadU(df, out), kept, added), df, out);
  } else {
    StoreTail(df, hn::MulAdd(LoadTail(df, out, width, 0.0f), kept, added), out, width);
  }
}

// Writes `count` query codes widened as this target's kernels read them, in
// the 4 bytes a code has (QueryCodesView): int16 for vpmaddwd, float for the
// float lanes; the other families read the int8 codes.
inline void WidenQueryCodes(const int8_t* codes, size_t count, float* wide) {
#if EA_INT8_DOTS == EA_INT8_DOTS_PAIRS
  for (size_t c = 0; c < count; ++c) {
    const int16_t code = codes[c];
    memcpy(reinterpret_cast<unsigned char*>(wide) + 2 * c, &code, sizeof(code));
  }
#elif EA_INT8_DOTS == EA_INT8_DOTS_FLOAT_LANES
  for (size_t c = 0; c < count; ++c) wide[c] = static_cast<float>(codes[c]);
#else
  (void)codes;
  (void)count;
  (void)wide;
#endif
}

// The widened codes of one row from code c on, in WidenQueryCodes' layout
// (int16 codes fill the first half of the row's area).
inline const float* WideCodesFrom(const float* wide, size_t c) {
#if EA_INT8_DOTS == EA_INT8_DOTS_PAIRS
  return reinterpret_cast<const float*>(reinterpret_cast<const unsigned char*>(wide) + 2 * c);
#else
  return wide + c;
#endif
}

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
  float* out;         // row r at r * out_stride
  size_t out_stride;  // d_head: int4's groups are channel slices of the rows
};

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // EDGEATTN_SRC_KV_CACHE_INT8_RECORD_OPERANDS_INL_H_
