// Score tile S = scale * Q_rows K_block^T: up to kGridRows query rows against
// a block of packed key panels (transposed_panels.h), into a tile whose rows are
// kScoreTileKeys floats apart.
//
// The tile holds scaled scores, rounded once: the softmax takes its row
// maximum and its exponents from these same values, so the largest key's
// exponent is exactly 0 however large the scores are (a fused
// scale * s - max would leave the rounding residual of scale * s there,
// which reaches +-128 once |scale * s| passes 2^31).
//
// Micro-kernel: the register grid of register_grid-inl.h. For each feature t,
// C vectors of consecutive keys are loaded from the panel once and FMA'd with
// q[r][t] broadcast, for R rows. A panel of 64 keys is a whole number of
// C-vector strips on every target (lane counts are powers of two up to 64);
// where C vectors are wider than the panel (SVE at 1024 and 2048 bits), the
// strip narrows to the panel.

#if defined(EDGEATTN_SRC_SCORE_TILE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_SCORE_TILE_INL_H_
#undef EDGEATTN_SRC_SCORE_TILE_INL_H_
#else
#define EDGEATTN_SRC_SCORE_TILE_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <utility>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "register_grid-inl.h"
#include "transposed_panels.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One R x C grid: tile[r][c] = scale * sum_t q[r][t] * strip[t][c] for the
// strip of C vectors starting at `strip` (a panel row is kKeyBlock floats).
template <size_t kCols, class D, size_t... I, class... V>
HWY_INLINE void ScoreGridCells(D d, std::index_sequence<I...> /* cells */,
                               const float* HWY_RESTRICT q, size_t ld_q,
                               const float* HWY_RESTRICT strip, size_t d_k, hn::Vec<D> scale,
                               float* HWY_RESTRICT tile, V... acc) {
  const size_t lanes = hn::Lanes(d);
  for (size_t t = 0; t < d_k; ++t) {
    const float* keys = strip + t * kKeyBlock;
    ((acc = hn::MulAdd(hn::Set(d, q[(I / kCols) * ld_q + t]),
                       hn::Load(d, keys + (I % kCols) * lanes), acc)),
     ...);
  }
  (hn::Store(hn::Mul(acc, scale), d, tile + (I / kCols) * kScoreTileKeys + (I % kCols) * lanes),
   ...);
}

template <size_t kRows, size_t kCols, class D, size_t... I>
HWY_INLINE void ScoreGrid(D d, std::index_sequence<I...> cells, const float* HWY_RESTRICT q,
                          size_t ld_q, const float* HWY_RESTRICT strip, size_t d_k,
                          hn::Vec<D> scale, float* HWY_RESTRICT tile) {
  ScoreGridCells<kCols>(d, cells, q, ld_q, strip, d_k, scale, tile, ZeroCell<I>(d)...);
}

// All strips of `panels` consecutive panels from `first_panel`, kRows rows.
template <size_t kRows, size_t kCols, class D>
HWY_INLINE void ScorePanels(D d, const float* HWY_RESTRICT q, size_t ld_q,
                            const float* HWY_RESTRICT packed, int32_t d_k, int32_t first_panel,
                            int32_t panels, hn::Vec<D> scale, float* HWY_RESTRICT tile) {
  const size_t strip_width = kCols * hn::Lanes(d);
  for (int32_t p = 0; p < panels; ++p) {
    const float* panel = Panel(packed, d_k, first_panel + p);
    float* tile_panel = tile + static_cast<size_t>(p) * kKeyBlock;
    for (size_t c = 0; c < static_cast<size_t>(kKeyBlock); c += strip_width) {
      ScoreGrid<kRows, kCols>(d, std::make_index_sequence<kRows * kCols>(), q, ld_q, panel + c,
                              static_cast<size_t>(d_k), scale, tile_panel + c);
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
  const size_t lanes = hn::Lanes(d);
  WithRowCount<kGridRows>(rows, [&](auto row_count) {
    constexpr size_t kRows = decltype(row_count)::value;
    if (kGridCols * lanes <= static_cast<size_t>(kKeyBlock)) {
      ScorePanels<kRows, kGridCols>(d, q, ld_q, packed, d_k, first_panel, panels, vscale, tile);
    } else if (2 * lanes <= static_cast<size_t>(kKeyBlock)) {
      ScorePanels<kRows, 2>(d, q, ld_q, packed, d_k, first_panel, panels, vscale, tile);
    } else {
      ScorePanels<kRows, 1>(d, q, ld_q, packed, d_k, first_panel, panels, vscale, tile);
    }
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
