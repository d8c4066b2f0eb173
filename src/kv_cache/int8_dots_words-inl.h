// The int8 record step's dot products on SCALAR, the microcontrollers'
// target: integer products of the bytes of 32-bit words, isolated by shifts
// and sign-extended (operands in int8_record_operands-inl.h).

#if defined(EDGEATTN_SRC_KV_CACHE_INT8_DOTS_WORDS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KV_CACHE_INT8_DOTS_WORDS_INL_H_
#undef EDGEATTN_SRC_KV_CACHE_INT8_DOTS_WORDS_INL_H_
#else
#define EDGEATTN_SRC_KV_CACHE_INT8_DOTS_WORDS_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "kv_cache/int8_record_operands-inl.h"

#if EA_INT8_DOTS == EA_INT8_DOTS_WORDS

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

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
HWY_INLINE void ScoreRecordS8Words(DF /* df */, const QueryRowsS8& q, size_t rows,
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
HWY_INLINE void AccumulateRecordS8Words(DF /* df */, float* tile, size_t rows,
                                        const WeightedQuadsS8& a) {
  for (size_t r = 0; r < rows; ++r) {
    if (!a.usable[r]) continue;
    const uint8_t* codes = WeightCodesOf(tile, r);
    float* out = a.out + r * a.out_stride;
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

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // EA_INT8_DOTS == EA_INT8_DOTS_WORDS

#endif  // EDGEATTN_SRC_KV_CACHE_INT8_DOTS_WORDS_INL_H_
