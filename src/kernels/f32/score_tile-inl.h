// Score tile S = scale * Q_rows K_block^T: up to kGridRows query rows against
// a block of packed key panels (kernels/f32/transposed_panels.h), into a tile whose rows
// are kScoreTileKeys floats apart.
//
// The tile holds scaled scores, rounded once: the softmax takes its row
// maximum and its exponents from these same values, so the largest key's
// exponent is exactly 0 however large the scores are (a fused
// scale * s - max would leave the rounding residual of scale * s there,
// which reaches +-128 once |scale * s| passes 2^31).
//
// Micro-kernel: the register grid (kernels/f32/register_grid-inl.h) with B = a strip of
// C vectors of a key panel, t running over the d_k features.

#if defined(EDGEATTN_SRC_KERNELS_F32_SCORE_TILE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KERNELS_F32_SCORE_TILE_INL_H_
#undef EDGEATTN_SRC_KERNELS_F32_SCORE_TILE_INL_H_
#else
#define EDGEATTN_SRC_KERNELS_F32_SCORE_TILE_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "kernels/f32/cortex_m_f32-inl.h"
#include "kernels/f32/register_grid-inl.h"
#include "kernels/f32/transposed_panels.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One strip of kCols vectors: tile columns [c, c + kCols * lanes) of the
// panel starting at tile column 0. Panels hold float, or (the KV cache) f16
// or int8 keys that the grid widens as it loads them (kernels/f32/grid_operand_loads-inl.h).
template <size_t kRows, size_t kCols, class D, class TK>
HWY_INLINE void ScoreStrip(D d, const float* HWY_RESTRICT q, size_t ld_q,
                           const TK* HWY_RESTRICT panel, size_t d_k, hn::Vec<D> scale,
                           float* HWY_RESTRICT tile_panel, size_t c) {
  const size_t lanes = hn::Lanes(d);
  float* strip_tile = tile_panel + c;
  const GridOperandsOf<TK> g{q, ld_q, panel + c, kKeyBlock, 0, d_k, lanes};
  GridProduct<kRows, kCols, false>(d, g, [&](auto cell, hn::Vec<D> acc) {
    constexpr size_t kCell = decltype(cell)::value;
    hn::Store(hn::Mul(acc, scale), d,
              strip_tile + CellRow<kCols>(kCell) * kScoreTileKeys + CellCol<kCols>(kCell) * lanes);
  });
}

// Keys [0, keys) of the panels from `first_panel`, kRows rows, in strips of
// kCols vectors. The last strip narrows to the vectors that hold keys, so a
// causal diagonal block scores little past the diagonal (columns past `keys`
// up to the next vector are scored too; the tile leaves the rest unwritten).
template <size_t kRows, size_t kCols, class D, class TK>
HWY_INLINE void ScorePanels(D d, const float* HWY_RESTRICT q, size_t ld_q,
                            const TK* HWY_RESTRICT packed, int32_t d_k, int32_t first_panel,
                            size_t keys, hn::Vec<D> scale, float* HWY_RESTRICT tile) {
  const size_t lanes = hn::Lanes(d);
  const size_t strip = kCols * lanes;
  for (size_t start = 0; start < keys; start += kKeyBlock) {
    const size_t p = static_cast<size_t>(first_panel) + start / kKeyBlock;
    const TK* panel = packed + p * static_cast<size_t>(d_k) * kKeyBlock;
    float* tile_panel = tile + start;
    const size_t in_panel = keys - start < static_cast<size_t>(kKeyBlock)
                                ? keys - start
                                : static_cast<size_t>(kKeyBlock);
    size_t c = 0;
    for (; c + strip <= in_panel; c += strip) {
      ScoreStrip<kRows, kCols>(d, q, ld_q, panel, static_cast<size_t>(d_k), scale, tile_panel, c);
    }
    if (c < in_panel) {
      const size_t vectors = (in_panel - c + lanes - 1) / lanes;  // < kCols
      WithCount<kCols>(vectors, [&](auto col_count) {
        ScoreStrip<kRows, decltype(col_count)::value>(d, q, ld_q, panel, static_cast<size_t>(d_k),
                                                      scale, tile_panel, c);
      });
    }
  }
}

// tile[r][j] = scale * q_r . k_(first_panel * 64 + j) for r < rows <= kGridRows
// and j < keys <= kScoreTileKeys (and up to the end of the vector holding the
// last key).
template <class D, class TK>
HWY_INLINE void ScoreBlock(D d, const float* HWY_RESTRICT q, size_t ld_q, size_t rows,
                           const TK* HWY_RESTRICT packed, int32_t d_k, int32_t first_panel,
                           size_t keys, float scale, float* HWY_RESTRICT tile) {
#if EDGEATTN_CORTEX_M_F32
  if constexpr (hwy::IsSame<TK, float>()) {
    return ScoreBlockCortexM(q, ld_q, rows, packed, d_k, first_panel, keys, scale, tile);
  }
#endif
  const auto vscale = hn::Set(d, scale);
  WithCount<kGridRows>(rows, [&](auto row_count) {
    WithPanelStripCols<decltype(row_count)::value>(d, [&](auto col_count) {
      ScorePanels<decltype(row_count)::value, decltype(col_count)::value>(
          d, q, ld_q, packed, d_k, first_panel, keys, vscale, tile);
    });
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
