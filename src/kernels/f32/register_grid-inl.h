// The register-blocked micro-kernel every float product runs on (scores
// Q K^T in kernels/f32/score_tile-inl.h, P V in kernels/f32/weighted_values-inl.h, projections X
// W^T in kernels/f32/linear_f32-inl.h): an R x C grid of vector accumulators,
//
//   acc[r][c] = sum_t a[r][t] * b[t][c * lanes .. (c + 1) * lanes),
//
// one element of each of R rows of A broadcast against C vectors of a row of
// B, loaded once per t. Each caller supplies the epilogue that stores a cell.
//
// Sizing from the register file: the grid needs R*C accumulators, C operand
// vectors and one broadcast. With 32 vector registers (AVX-512, SVE) 6 x 4
// uses 24 + 4 + 1; with 16 (SSE4, AVX2, SCALAR) 6 x 2 uses 12 + 2 + 1; NEON
// is the exception below. R*C must cover FMA latency x FMA pipes (4 x 2 on
// current x86 and Arm big cores): 24 and 12 both do, 4 x 2 = 8 starves.
//
// The accumulators are a function parameter pack, one per grid cell, indexed
// by a std::index_sequence: the compiler unrolls the fold expressions into
// R*C independent registers. Arrays cannot hold them: SVE vectors are
// sizeless types.

#if defined(EDGEATTN_SRC_KERNELS_F32_REGISTER_GRID_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KERNELS_F32_REGISTER_GRID_INL_H_
#undef EDGEATTN_SRC_KERNELS_F32_REGISTER_GRID_INL_H_
#else
#define EDGEATTN_SRC_KERNELS_F32_REGISTER_GRID_INL_H_
#endif

#include <stddef.h>

#include <type_traits>
#include <utility>

#include <hwy/highway.h>

#include "kernels/f32/grid_operand_loads-inl.h"
#include "kernels/vector_tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_SSSE3 || HWY_TARGET == HWY_SSE4 || \
    HWY_TARGET == HWY_AVX2 || (HWY_ARCH_ARM_V7 && HWY_TARGET == HWY_NEON)
inline constexpr size_t kVectorRegisters = 16;
#else
inline constexpr size_t kVectorRegisters = 32;
#endif

// NEON has no broadcast-from-memory FMA: GCC keeps each row's a[r][t] in a
// register of its own for by-element FMAs, so R broadcasts cost R registers,
// not one. 6 x 4 then needs 24 + 4 + 6 = 34 of AArch64's 32 and spills (see
// bench/README.md, "Arm: predicted by llvm-mca"); 5 x 4 needs 29. armv7's 16
// registers take 4 x 2 (8 + 2 + 4), still 8 accumulators for its single
// FMA pipe's 4-cycle latency. Every grid row count divides kQueryBlockRows.
// SCALAR (Cortex-M, the portable fallback) has one-float "vectors" and no
// wide FMA pipes to feed: 4 x 1 hides a scalar FMA's latency and keeps the
// number of grid shapes, hence the code size on flash, small.
#if HWY_TARGET == HWY_NEON && HWY_ARCH_ARM_A64
inline constexpr size_t kGridRows = 5;
#elif HWY_TARGET == HWY_NEON || HWY_TARGET == HWY_SCALAR
inline constexpr size_t kGridRows = 4;
#else
inline constexpr size_t kGridRows = 6;
#endif
#if HWY_TARGET == HWY_SCALAR
inline constexpr size_t kGridCols = 1;
#else
inline constexpr size_t kGridCols = kVectorRegisters >= 32 ? 4 : 2;
#endif

// Calls body(std::integral_constant<size_t, count>()) for 1 <= count <= kMax,
// so that a remainder of rows (or a narrower last strip) still runs a grid of
// compile-time shape.
template <size_t kMax, class Body>
HWY_INLINE void WithCount(size_t count, const Body& body) {
  if constexpr (kMax > 1) {
    if (count < kMax) return WithCount<kMax - 1>(count, body);
  }
  body(std::integral_constant<size_t, kMax>());
}

// The starting value of grid cell I: expanded over the cells' index pack, it
// makes one zero accumulator per cell.
template <size_t I, class D>
HWY_INLINE hn::Vec<D> ZeroCell(D d) {
  return hn::Zero(d);
}

// Fewer rows, wider strips: a grid of kRows < kGridRows rows (a decode step's
// queries of one KV head, a remainder of rows) spends the full grid's
// kGridRows * kGridCols accumulators on more columns. One pass over t then
// reads a whole 64-key panel row (256 bytes) or a whole row of V, not one
// cache line of it: four strided passes of one line each were more than the
// hardware prefetchers followed (Zen 3, AVX2, decode at L = 4096: 29 % of the
// read bandwidth with 1 x 2 strips). x86 FMAs take B from memory, so there
// only the accumulators count; elsewhere the C operands and the broadcasts
// (NEON: one per row, see above) need registers too. Powers of two, so that
// strips tile a panel. SCALAR keeps its one column: Cortex-M has no lines to
// stream, and fewer grid shapes keep its flash image small. A cell sums over
// t in the same order whatever the grid's shape: results are the same bits.
template <size_t kRows>
constexpr size_t WidestStripCols() {
  if (HWY_TARGET == HWY_SCALAR) return kGridCols;
  constexpr size_t kBroadcasts = HWY_TARGET == HWY_NEON ? kRows : 1;
  size_t cols = 1;
  for (;;) {
    const size_t wider = 2 * cols;
    if (kRows * wider > kGridRows * kGridCols) break;
    if (!HWY_ARCH_X86 && kRows * wider + wider + kBroadcasts > kVectorRegisters) break;
    cols = wider;
  }
  return cols;
}
static_assert(WidestStripCols<kGridRows>() == kGridCols, "a full grid keeps its shape");

// Calls body(std::integral_constant<size_t, cols>()) with the widest strip of
// at most kCols vectors that fits a 64-wide panel (kernels/f32/transposed_panels.h):
// WidestStripCols<kRows>() vectors, halved while they do not fit (SVE at
// 1024 and 2048 bits, wide strips of few rows).
template <size_t kRows, size_t kCols = WidestStripCols<kRows>(), class D, class Body>
HWY_INLINE void WithPanelStripCols(D d, const Body& body) {
  if constexpr (kCols > 1) {
    if (kCols * hn::Lanes(d) > 64) return WithPanelStripCols<kRows, kCols / 2>(d, body);
  }
  body(std::integral_constant<size_t, kCols>());
}

// Grid cell I's row and column.
template <size_t kCols>
constexpr size_t CellRow(size_t cell) {
  return cell / kCols;
}
template <size_t kCols>
constexpr size_t CellCol(size_t cell) {
  return cell % kCols;
}

// Operands of one grid product: A rows a + r * ld_a, B rows b + t * ld_b
// (ld_b in elements of TB), t in [first, end); `width` is the lane count of a
// partial column.
template <class TB>
struct GridOperandsOf {
  const float* a;
  size_t ld_a;
  const TB* b;
  size_t ld_b;
  size_t first;
  size_t end;
  size_t width;
};
using GridOperands = GridOperandsOf<float>;

template <size_t kCols, bool kPartial, class D, class TB, class Epilogue, size_t... I, class... V>
HWY_INLINE void GridProductCells(D d, std::index_sequence<I...> /* cells */,
                                 const GridOperandsOf<TB>& g, const Epilogue& epilogue, V... acc) {
  const size_t lanes = hn::Lanes(d);
  for (size_t t = g.first; t < g.end; ++t) {
    const TB* b_row = g.b + t * g.ld_b;
    ((acc = hn::MulAdd(hn::Set(d, g.a[CellRow<kCols>(I) * g.ld_a + t]),
                       LoadGridOperand<kPartial>(d, b_row + CellCol<kCols>(I) * lanes, g.width),
                       acc)),
     ...);
  }
  (epilogue(std::integral_constant<size_t, I>(), acc), ...);
}

template <size_t kCols, bool kPartial, class D, class TB, class Epilogue, size_t... I>
HWY_INLINE void GridProductStart(D d, std::index_sequence<I...> cells, const GridOperandsOf<TB>& g,
                                 const Epilogue& epilogue) {
  GridProductCells<kCols, kPartial>(d, cells, g, epilogue, ZeroCell<I>(d)...);
}

// Runs a kRows x kCols grid (kPartial: kCols = 1 and a partial column), then
// epilogue(std::integral_constant<size_t, cell>, accumulator) for each cell.
template <size_t kRows, size_t kCols, bool kPartial, class D, class TB, class Epilogue>
HWY_INLINE void GridProduct(D d, const GridOperandsOf<TB>& g, const Epilogue& epilogue) {
  static_assert(!kPartial || kCols == 1, "a partial column is a single vector");
  GridProductStart<kCols, kPartial>(d, std::make_index_sequence<kRows * kCols>(), g, epilogue);
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
