// Scores of a few query rows (n_q <= kFewQueryRows, kernels/f32/f32_kernels.h: decode) against keys
// read in place, row-major: tile[r][j] = scale * q_r . k_j as dot products along d_k, with no
// packing. Packing K costs a pass over the whole cache, as much as the scores themselves when only
// one to four queries use it; here each key row is read once and feeds every query row.
//
// Micro-kernel: a kRows x 4 grid of vector accumulators (query row x key),
// t running over d_k one vector at a time, then one horizontal sum per cell.
// The tile holds scaled scores rounded once, as kernels/f32/score_tile-inl.h's does, so
// the softmax's maximum and exponents come from the same values.

#if defined(EDGEATTN_SRC_KERNELS_F32_SCORE_ROWS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KERNELS_F32_SCORE_ROWS_INL_H_
#undef EDGEATTN_SRC_KERNELS_F32_SCORE_ROWS_INL_H_
#else
#define EDGEATTN_SRC_KERNELS_F32_SCORE_ROWS_INL_H_
#endif

#include <stddef.h>

#include <utility>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "kernels/f32/f32_kernels.h"
#include "kernels/f32/register_grid-inl.h"
#include "kernels/vector_tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

inline constexpr size_t kKeysPerGroup = 4;

// Operands of one group of up to kKeysPerGroup keys.
struct KeyGroup {
  const float* q;  // query row 0
  size_t ld_q;
  const float* keys[kKeysPerGroup];  // key rows; a short group repeats its last key
  size_t d_k;
  size_t count;  // keys of the group to store
  float scale;
  float* tile;  // tile column of the group's first key, row 0
};

template <class D, size_t... I, class... V>
HWY_INLINE void KeyGroupCells(D d, std::index_sequence<I...> /* cells */, const KeyGroup& g,
                              V... acc) {
  const size_t lanes = hn::Lanes(d);
  size_t t = 0;
  for (; t + lanes <= g.d_k; t += lanes) {
    ((acc = hn::MulAdd(hn::LoadU(d, g.q + CellRow<kKeysPerGroup>(I) * g.ld_q + t),
                       hn::LoadU(d, g.keys[CellCol<kKeysPerGroup>(I)] + t), acc)),
     ...);
  }
  if constexpr (HWY_TARGET != HWY_SCALAR) {  // SCALAR's one lane leaves no tail
    if (t < g.d_k) {
      const size_t rest = g.d_k - t;
      ((acc = hn::MulAdd(LoadTail(d, g.q + CellRow<kKeysPerGroup>(I) * g.ld_q + t, rest, 0.0f),
                         LoadTail(d, g.keys[CellCol<kKeysPerGroup>(I)] + t, rest, 0.0f), acc)),
       ...);
    }
  }
  ((CellCol<kKeysPerGroup>(I) < g.count
        ? static_cast<void>(
              g.tile[CellRow<kKeysPerGroup>(I) * kScoreTileKeys + CellCol<kKeysPerGroup>(I)] =
                  g.scale * hn::GetLane(hn::SumOfLanes(d, acc)))
        : static_cast<void>(0)),
   ...);
}

template <size_t kRows, class D, size_t... I>
HWY_INLINE void KeyGroupGrid(D d, std::index_sequence<I...> cells, const KeyGroup& g) {
  KeyGroupCells(d, cells, g, ZeroCell<I>(d)...);
}

// tile[r][j] = scale * q_r . k_(first_key + j) for r < rows <= kFewQueryRows,
// j < keys <= kScoreTileKeys, K rows `ld_k` floats apart.
template <class D>
HWY_INLINE void ScoreRowsInPlace(D d, const float* HWY_RESTRICT q, size_t ld_q, size_t rows,
                                 const float* HWY_RESTRICT k, size_t ld_k, size_t d_k,
                                 size_t first_key, size_t keys, float scale,
                                 float* HWY_RESTRICT tile) {
  WithCount<static_cast<size_t>(kFewQueryRows)>(rows, [&](auto row_count) {
    constexpr size_t kRows = decltype(row_count)::value;
    for (size_t j = 0; j < keys; j += kKeysPerGroup) {
      KeyGroup g;
      g.q = q;
      g.ld_q = ld_q;
      g.count = keys - j < kKeysPerGroup ? keys - j : kKeysPerGroup;
      for (size_t c = 0; c < kKeysPerGroup; ++c) {
        const size_t key = first_key + j + (c < g.count ? c : g.count - 1);
        g.keys[c] = k + key * ld_k;
      }
      g.d_k = d_k;
      g.scale = scale;
      g.tile = tile + j;
      KeyGroupGrid<kRows>(d, std::make_index_sequence<kRows * kKeysPerGroup>(), g);
    }
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
