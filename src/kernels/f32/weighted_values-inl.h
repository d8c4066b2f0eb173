// O_rows = O_rows * rescale_r + P_rows V_keys: the P V half of the attention
// step, for up to kGridRows rows of probabilities held in the score tile
// (row stride kScoreTileKeys) against rows of V read in place (contiguous
// along d_v, so no packing is needed).
//
// Micro-kernel: the register grid (kernels/f32/register_grid-inl.h) with A = the
// probabilities, B = V's rows, t running over the keys; strips of C vectors
// across d_v, then single vectors, then a partial one. Each call's sum starts
// from zero and reaches the output row once, through the epilogue's MulAdd:
// adding each key's term straight onto a row that already holds thousands of
// keys' weight let rounding drift the result out of the values' hull on long
// rows (2.4e-4 relative at 32768 flat keys).

#if defined(EDGEATTN_SRC_KERNELS_F32_WEIGHTED_VALUES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KERNELS_F32_WEIGHTED_VALUES_INL_H_
#undef EDGEATTN_SRC_KERNELS_F32_WEIGHTED_VALUES_INL_H_
#else
#define EDGEATTN_SRC_KERNELS_F32_WEIGHTED_VALUES_INL_H_
#endif

#include <stddef.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "kernels/f32/cortex_m_f32-inl.h"
#include "kernels/f32/register_grid-inl.h"
#include "kernels/f32/rescale_factor.h"
#include "kernels/vector_tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Operands of one call, shared by every column strip. Values are float, or
// (the KV cache) f16 or int8 that the grid widens as it loads them.
template <class TV>
struct WeightedValuesArgsOf {
  const float* probs;  // tile row 0, key first_key at probs[first_key]
  size_t first_key;    // keys [first_key, end_key) of the tile and of values
  size_t end_key;
  const TV* values;  // V row of tile key 0
  size_t ld_values;
  const float* rescale;  // one factor per row
  float* out;            // output row 0
  size_t ld_out;
};
using WeightedValuesArgs = WeightedValuesArgsOf<float>;

// Output columns [column, column + kCols * lanes), or (kPartial) the `width`
// columns from `column`.
template <size_t kRows, size_t kCols, bool kPartial, class D, class TV>
HWY_INLINE void WeightedValuesStrip(D d, const WeightedValuesArgsOf<TV>& a, size_t column,
                                    size_t width) {
  const size_t lanes = hn::Lanes(d);
  const GridOperandsOf<TV> g{a.probs,   kScoreTileKeys, a.values + column, a.ld_values, a.first_key,
                             a.end_key, width};
  GridProduct<kRows, kCols, kPartial>(d, g, [&](auto cell, hn::Vec<D> acc) {
    constexpr size_t kCell = decltype(cell)::value;
    constexpr size_t kRow = CellRow<kCols>(kCell);
    float* out = a.out + kRow * a.ld_out + column + CellCol<kCols>(kCell) * lanes;
    const float factor = a.rescale[kRow];
    const auto sum = StartsOutputRow(factor) ? acc
                                             : hn::MulAdd(LoadGridOperand<kPartial>(d, out, width),
                                                          hn::Set(d, factor), acc);
    if (kPartial) {
      StoreTail(d, sum, out, width);
    } else {
      hn::StoreU(sum, d, out);
    }
  });
}

// Columns [column, d_v) in strips of kCols vectors, then of halves of that
// (kCols is WidestStripCols<kRows>(): a decode step's single row takes the
// whole of d_v = 64 in one strip on AVX2), then a partial vector.
template <size_t kRows, size_t kCols, class D, class TV>
HWY_INLINE void WeightedValuesStrips(D d, const WeightedValuesArgsOf<TV>& a, size_t column,
                                     size_t d_v) {
  const size_t lanes = hn::Lanes(d);
  for (; column + kCols * lanes <= d_v; column += kCols * lanes) {
    WeightedValuesStrip<kRows, kCols, false>(d, a, column, lanes);
  }
  if constexpr (kCols > 1) {
    WeightedValuesStrips<kRows, kCols / 2>(d, a, column, d_v);
  } else if constexpr (HWY_TARGET != HWY_SCALAR) {  // SCALAR's one lane leaves no partial vector
    if (column < d_v) WeightedValuesStrip<kRows, 1, true>(d, a, column, d_v - column);
  }
}

template <size_t kRows, class D, class TV>
HWY_INLINE void WeightedValuesRows(D d, const WeightedValuesArgsOf<TV>& a, size_t d_v) {
  WeightedValuesStrips<kRows, WidestStripCols<kRows>()>(d, a, 0, d_v);
}

// out[r][0, d_v) = out[r] * rescale[r] + sum_{j in [first_key, end_key)}
// probs[r][j] * values[j][0, d_v), for r < rows <= kGridRows. rescale[r] = +0
// writes the sum without reading out[r] (out need not hold anything yet): a
// row's first block starts it, so no pass zeroes the output beforehand; -0,
// a later block's underflowed factor, reads it (rescale_factor.h).
template <class D, class TV>
HWY_INLINE void AccumulateWeightedValues(D d, const WeightedValuesArgsOf<TV>& a, size_t rows,
                                         size_t d_v) {
#if EDGEATTN_CORTEX_M_F32
  if constexpr (hwy::IsSame<TV, float>()) {
    return WeightedValuesCortexM(a.probs, a.first_key, a.end_key, a.values, a.ld_values, a.rescale,
                                 a.out, a.ld_out, rows, d_v);
  }
#endif
  WithCount<kGridRows>(
      rows, [&](auto row_count) { WeightedValuesRows<decltype(row_count)::value>(d, a, d_v); });
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
