// O_rows = O_rows * rescale_r + P_rows V_keys: the P V half of the attention
// step, for up to kGridRows rows of probabilities held in the score tile
// (row stride kScoreTileKeys) against rows of V read in place (contiguous
// along d_v, so no packing is needed).
//
// Micro-kernel: the register grid of register_grid-inl.h over the output
// columns. For each key j, C vectors of V's row j are loaded once and FMA'd
// with p[r][j] broadcast, for R rows; the grid then folds into the output row
// with one MulAdd per vector. Each call's sum starts from zero and reaches the
// row once: adding each key's term straight onto a row that already holds
// thousands of keys' weight let rounding drift the result out of the values'
// hull on long rows (2.4e-4 relative at 32768 flat keys).

#if defined(EDGEATTN_SRC_WEIGHTED_VALUES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_WEIGHTED_VALUES_INL_H_
#undef EDGEATTN_SRC_WEIGHTED_VALUES_INL_H_
#else
#define EDGEATTN_SRC_WEIGHTED_VALUES_INL_H_
#endif

#include <stddef.h>

#include <utility>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "register_grid-inl.h"
#include "vector_tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Operands of one call, shared by every column strip.
struct WeightedValuesArgs {
  const float* probs;  // tile row 0, key first_key at probs[first_key]
  size_t first_key;    // keys [first_key, end_key) of the tile and of values
  size_t end_key;
  const float* values;  // V row of tile key 0
  size_t ld_values;
  const float* rescale;  // one factor per row
  float* out;            // output row 0
  size_t ld_out;
};

// kPartial: one vector of `width` < Lanes(d) columns (the last of a row).
template <bool kPartial, class D>
HWY_INLINE hn::Vec<D> LoadColumns(D d, const float* HWY_RESTRICT p, size_t width) {
  if (kPartial) return LoadTail(d, p, width, 0.0f);
  return hn::LoadU(d, p);
}

template <bool kPartial, class D>
HWY_INLINE void StoreColumns(D d, hn::Vec<D> v, float* HWY_RESTRICT p, size_t width) {
  if (kPartial) {
    StoreTail(d, v, p, width);
  } else {
    hn::StoreU(v, d, p);
  }
}

// One R x C grid of output columns [column, column + C * lanes), or one
// partial vector of `width` columns.
template <size_t kCols, bool kPartial, class D, size_t... I, class... V>
HWY_INLINE void WeightedValuesCells(D d, std::index_sequence<I...> /* cells */,
                                    const WeightedValuesArgs& a, size_t column, size_t width,
                                    V... acc) {
  const size_t lanes = hn::Lanes(d);
  for (size_t j = a.first_key; j < a.end_key; ++j) {
    const float* value_row = a.values + j * a.ld_values + column;
    ((acc = hn::MulAdd(hn::Set(d, a.probs[(I / kCols) * kScoreTileKeys + j]),
                       LoadColumns<kPartial>(d, value_row + (I % kCols) * lanes, width), acc)),
     ...);
  }
  ((StoreColumns<kPartial>(
       d,
       hn::MulAdd(LoadColumns<kPartial>(
                      d, a.out + (I / kCols) * a.ld_out + column + (I % kCols) * lanes, width),
                  hn::Set(d, a.rescale[I / kCols]), acc),
       a.out + (I / kCols) * a.ld_out + column + (I % kCols) * lanes, width)),
   ...);
}

template <size_t kRows, size_t kCols, bool kPartial, class D, size_t... I>
HWY_INLINE void WeightedValuesGrid(D d, std::index_sequence<I...> cells,
                                   const WeightedValuesArgs& a, size_t column, size_t width) {
  WeightedValuesCells<kCols, kPartial>(d, cells, a, column, width, ZeroCell<I>(d)...);
}

// Every column of d_v: strips of kGridCols vectors, then single vectors, then
// the partial last vector.
template <size_t kRows, class D>
HWY_INLINE void WeightedValuesRows(D d, const WeightedValuesArgs& a, size_t d_v) {
  const size_t lanes = hn::Lanes(d);
  size_t c = 0;
  for (; c + kGridCols * lanes <= d_v; c += kGridCols * lanes) {
    WeightedValuesGrid<kRows, kGridCols, false>(d, std::make_index_sequence<kRows * kGridCols>(), a,
                                                c, lanes);
  }
  for (; c + lanes <= d_v; c += lanes) {
    WeightedValuesGrid<kRows, 1, false>(d, std::make_index_sequence<kRows>(), a, c, lanes);
  }
  if (c < d_v) {
    WeightedValuesGrid<kRows, 1, true>(d, std::make_index_sequence<kRows>(), a, c, d_v - c);
  }
}

// out[r][0, d_v) = out[r] * rescale[r] + sum_{j in [first_key, end_key)}
// probs[r][j] * values[j][0, d_v), for r < rows <= kGridRows.
template <class D>
HWY_INLINE void AccumulateWeightedValues(D d, const WeightedValuesArgs& a, size_t rows,
                                         size_t d_v) {
  WithRowCount<kGridRows>(
      rows, [&](auto row_count) { WeightedValuesRows<decltype(row_count)::value>(d, a, d_v); });
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
