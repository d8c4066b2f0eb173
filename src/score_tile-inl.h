// Score tile S = scale * Q_rows K_block^T: up to kGridRows query rows against
// a block of packed key panels (transposed_panels.h), into a tile whose rows
// are kScoreTileKeys floats apart.
//
// The tile holds scaled scores, rounded once: the softmax takes its row
// maximum and its exponents from these same values, so the largest key's
// exponent is exactly 0 however large the scores are (a fused
// scale * s - max would leave the rounding residual of scale * s there,
// which reaches +-128 once |scale * s| passes 2^31).
//
// Micro-kernel: the register grid (register_grid-inl.h) with B = a strip of
// C vectors of a key panel, t running over the d_k features.

#if defined(EDGEATTN_SRC_SCORE_TILE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_SCORE_TILE_INL_H_
#undef EDGEATTN_SRC_SCORE_TILE_INL_H_
#else
#define EDGEATTN_SRC_SCORE_TILE_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "register_grid-inl.h"
#include "transposed_panels.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// All strips of `panels` consecutive panels from `first_panel`, kRows rows.
template <size_t kRows, size_t kCols, class D>
HWY_INLINE void ScorePanels(D d, const float* HWY_RESTRICT q, size_t ld_q,
                            const float* HWY_RESTRICT packed, int32_t d_k, int32_t first_panel,
                            int32_t panels, hn::Vec<D> scale, float* HWY_RESTRICT tile) {
  const size_t lanes = hn::Lanes(d);
  for (int32_t p = 0; p < panels; ++p) {
    const float* panel = Panel(packed, d_k, first_panel + p);
    for (size_t c = 0; c < static_cast<size_t>(kKeyBlock); c += kCols * lanes) {
      float* strip_tile = tile + static_cast<size_t>(p) * kKeyBlock + c;
      const GridOperands g{q, ld_q, panel + c, kKeyBlock, 0, static_cast<size_t>(d_k), lanes};
      GridProduct<kRows, kCols, false>(d, g, [&](auto cell, hn::Vec<D> acc) {
        constexpr size_t kCell = decltype(cell)::value;
        hn::Store(
            hn::Mul(acc, scale), d,
            strip_tile + CellRow<kCols>(kCell) * kScoreTileKeys + CellCol<kCols>(kCell) * lanes);
      });
    }
  }
}

// tile[r][j] = scale * q_r . k_(first_panel * 64 + j) for r < rows <= kGridRows
// and j < panels * 64 <= kScoreTileKeys.
template <class D>
HWY_INLINE void ScoreBlock(D d, const float* HWY_RESTRICT q, size_t ld_q, size_t rows,
                           const float* HWY_RESTRICT packed, int32_t d_k, int32_t first_panel,
                           int32_t panels, float scale, float* HWY_RESTRICT tile) {
  const auto vscale = hn::Set(d, scale);
  WithRowCount<kGridRows>(rows, [&](auto row_count) {
    WithPanelStripCols(d, [&](auto col_count) {
      ScorePanels<decltype(row_count)::value, decltype(col_count)::value>(
          d, q, ld_q, packed, d_k, first_panel, panels, vscale, tile);
    });
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
