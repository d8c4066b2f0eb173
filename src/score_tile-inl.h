// Score tile S = scale * Q_block K_panel^T: up to kQueryBlock query rows
// against one packed panel of kKeyBlock keys (see pack_keys.h).
//
// The tile holds scaled scores, rounded once: the softmax takes its row
// maximum and its exponents from these same values, so the largest key's
// exponent is exactly 0 however large the scores are (a fused
// scale * s - max would leave the rounding residual of scale * s there,
// which reaches +-128 once |scale * s| passes 2^31).
//
// Register blocking: four query rows share every K vector load; each row's
// q[t] is broadcast and FMA'd into one accumulator per row. The column strip
// is one vector wide, so the loop over strips covers the 64 keys on any vector
// width (1 lane on SCALAR, 16 on AVX-512, 64 on SVE-2048). Widths that do not
// divide 64 would finish with a partial strip (a guard: Highway 1.0.3 rounds
// SVE lane counts down to a power of two).

#if defined(EDGEATTN_SRC_SCORE_TILE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_SCORE_TILE_INL_H_
#undef EDGEATTN_SRC_SCORE_TILE_INL_H_
#else
#define EDGEATTN_SRC_SCORE_TILE_INL_H_
#endif

#include <stddef.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "vector_tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One vector-wide strip of panel columns [c, c + width), loaded whole or as a
// tail.
template <bool kPartial, class D>
HWY_INLINE hn::Vec<D> LoadPanelStrip(D d, const float* HWY_RESTRICT row, size_t width) {
  if (kPartial) return LoadTail(d, row, width, 0.0f);
  return hn::Load(d, row);
}

template <bool kPartial, class D>
HWY_INLINE void StoreTileStrip(D d, hn::Vec<D> v, float* HWY_RESTRICT row, size_t width) {
  if (kPartial) {
    StoreTail(d, v, row, width);
  } else {
    hn::Store(v, d, row);
  }
}

template <bool kPartial, class D>
HWY_INLINE void ScoreStrip(D d, const float* HWY_RESTRICT q, size_t ld_q, size_t rows,
                           const float* HWY_RESTRICT panel, size_t d_k, hn::Vec<D> scale,
                           float* HWY_RESTRICT tile, size_t column, size_t width) {
  const float* strip = panel + column;
  size_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const float* q0 = q + r * ld_q;
    const float* q1 = q0 + ld_q;
    const float* q2 = q1 + ld_q;
    const float* q3 = q2 + ld_q;
    auto acc0 = hn::Zero(d);
    auto acc1 = hn::Zero(d);
    auto acc2 = hn::Zero(d);
    auto acc3 = hn::Zero(d);
    for (size_t t = 0; t < d_k; ++t) {
      const auto keys = LoadPanelStrip<kPartial>(d, strip + t * kKeyBlock, width);
      acc0 = hn::MulAdd(hn::Set(d, q0[t]), keys, acc0);
      acc1 = hn::MulAdd(hn::Set(d, q1[t]), keys, acc1);
      acc2 = hn::MulAdd(hn::Set(d, q2[t]), keys, acc2);
      acc3 = hn::MulAdd(hn::Set(d, q3[t]), keys, acc3);
    }
    float* out = tile + r * kKeyBlock + column;
    StoreTileStrip<kPartial>(d, hn::Mul(acc0, scale), out, width);
    StoreTileStrip<kPartial>(d, hn::Mul(acc1, scale), out + kKeyBlock, width);
    StoreTileStrip<kPartial>(d, hn::Mul(acc2, scale), out + 2 * kKeyBlock, width);
    StoreTileStrip<kPartial>(d, hn::Mul(acc3, scale), out + 3 * kKeyBlock, width);
  }
  for (; r < rows; ++r) {
    const float* q_row = q + r * ld_q;
    auto acc = hn::Zero(d);
    for (size_t t = 0; t < d_k; ++t) {
      acc = hn::MulAdd(hn::Set(d, q_row[t]),
                       LoadPanelStrip<kPartial>(d, strip + t * kKeyBlock, width), acc);
    }
    StoreTileStrip<kPartial>(d, hn::Mul(acc, scale), tile + r * kKeyBlock + column, width);
  }
}

// tile[r][c] = scale * sum_t q[r * ld_q + t] * panel[t][c], r < rows, c < kKeyBlock.
template <class D>
HWY_INLINE void ScoreTile(D d, const float* HWY_RESTRICT q, size_t ld_q, size_t rows,
                          const float* HWY_RESTRICT panel, size_t d_k, float scale,
                          float* HWY_RESTRICT tile) {
  const size_t lanes = hn::Lanes(d);
  const auto vscale = hn::Set(d, scale);
  size_t column = 0;
  for (; column + lanes <= static_cast<size_t>(kKeyBlock); column += lanes) {
    ScoreStrip<false>(d, q, ld_q, rows, panel, d_k, vscale, tile, column, lanes);
  }
  if (column < static_cast<size_t>(kKeyBlock)) {
    ScoreStrip<true>(d, q, ld_q, rows, panel, d_k, vscale, tile, column, kKeyBlock - column);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
