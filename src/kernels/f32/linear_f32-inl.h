// Projection y = x W^T + b, W [out, in] packed as transposed panels of 64
// output rows (kernels/f32/transposed_panels.h): a packed-panel GEMM on the register grid
// (kernels/f32/register_grid-inl.h), A = x rows, B = a strip of C vectors of a panel, t
// running over the inputs; the epilogue adds the bias and stores, the last
// panel's columns past n_out masked.
//
// Loop order: blocks of kRowBlock x rows, then panels, then micro tiles of
// kGridRows rows: a panel (n_in x 64 floats, 64 KiB at n_in = 256) stays in
// L2 while every micro tile of the block reuses it, and a micro tile's x rows
// stay in L1 across the panel's strips.

#if defined(EDGEATTN_SRC_KERNELS_F32_LINEAR_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KERNELS_F32_LINEAR_F32_INL_H_
#undef EDGEATTN_SRC_KERNELS_F32_LINEAR_F32_INL_H_
#else
#define EDGEATTN_SRC_KERNELS_F32_LINEAR_F32_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "kernels/f32/register_grid-inl.h"
#include "kernels/f32/transposed_panels.h"
#include "kernels/vector_tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

inline constexpr size_t kLinearRowBlock = kGridRows * 10;

// Operands of one call.
struct LinearArgs {
  const float* x;
  size_t ld_x;
  size_t n_in;
  const float* packed;  // the whole packed W
  const float* bias;    // NULL or [n_out]
  size_t n_out;
  float* y;
  size_t ld_y;
};

// y[r][o] = bias[o] + acc for the `count` <= lanes columns from o.
template <class D>
HWY_INLINE void StoreOutputs(D d, hn::Vec<D> acc, const float* HWY_RESTRICT bias, size_t o,
                             size_t count, float* HWY_RESTRICT out) {
  const size_t lanes = hn::Lanes(d);
  if (count >= lanes) {
    hn::StoreU(bias != nullptr ? hn::Add(acc, hn::LoadU(d, bias + o)) : acc, d, out);
    return;
  }
  if constexpr (HWY_TARGET != HWY_SCALAR) {  // SCALAR's one lane is never partial
    if (count > 0) {
      StoreTail(d, bias != nullptr ? hn::Add(acc, LoadTail(d, bias + o, count, 0.0f)) : acc, out,
                count);
    }
  }
}

// Rows [first_row, first_row + kRows) against panel `panel`.
template <size_t kRows, size_t kCols, class D>
HWY_INLINE void LinearPanel(D d, const LinearArgs& a, size_t first_row, int32_t panel) {
  const size_t lanes = hn::Lanes(d);
  const size_t first_out = static_cast<size_t>(panel) * kKeyBlock;
  const size_t columns = a.n_out - first_out < static_cast<size_t>(kKeyBlock)
                             ? a.n_out - first_out
                             : static_cast<size_t>(kKeyBlock);
  const float* panel_start = Panel(a.packed, static_cast<int32_t>(a.n_in), panel);
  const float* x = a.x + first_row * a.ld_x;
  for (size_t c = 0; c < columns; c += kCols * lanes) {
    const GridOperands g{x, a.ld_x, panel_start + c, kKeyBlock, 0, a.n_in, lanes};
    GridProduct<kRows, kCols, false>(d, g, [&](auto cell, hn::Vec<D> acc) {
      constexpr size_t kCell = decltype(cell)::value;
      const size_t column = c + CellCol<kCols>(kCell) * lanes;  // within the panel
      const size_t count = column < columns ? columns - column : 0;
      StoreOutputs(d, acc, a.bias, first_out + column, count,
                   a.y + (first_row + CellRow<kCols>(kCell)) * a.ld_y + first_out + column);
    });
  }
}

HWY_INLINE void LinearPacked(const LinearArgs& a, size_t rows) {
  const hn::ScalableTag<float> d;
  const int32_t panels = PanelCount(static_cast<int32_t>(a.n_out));
  for (size_t block = 0; block < rows; block += kLinearRowBlock) {
    const size_t block_end = rows - block < kLinearRowBlock ? rows : block + kLinearRowBlock;
    for (int32_t p = 0; p < panels; ++p) {
      for (size_t m = block; m < block_end; m += kGridRows) {
        const size_t tile_rows = block_end - m < kGridRows ? block_end - m : kGridRows;
        WithCount<kGridRows>(tile_rows, [&](auto row_count) {
          WithPanelStripCols<decltype(row_count)::value>(d, [&](auto col_count) {
            LinearPanel<decltype(row_count)::value, decltype(col_count)::value>(d, a, m, p);
          });
        });
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
