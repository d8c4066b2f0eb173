// The shape of the register-blocked micro-kernels (score_tile-inl.h,
// weighted_values-inl.h): an R x C grid of vector accumulators, R rows of
// the left operand broadcast lane by lane against C vectors of the right one.
//
// Sizing from the register file: the grid needs R*C accumulators, C operand
// vectors and one broadcast. With 32 vector registers (AVX-512, AArch64 NEON
// and SVE) 6 x 4 uses 24 + 4 + 1; with 16 (SSE4, AVX2, armv7 NEON, SCALAR)
// 6 x 2 uses 12 + 2 + 1. R*C must cover FMA latency x FMA pipes (4 x 2 on
// current x86 and Arm big cores): 24 and 12 both do, 4 x 2 = 8 starves.
//
// The accumulators are a function parameter pack, one per grid cell, indexed
// by a std::index_sequence: the compiler unrolls the fold expressions into
// R*C independent registers. Arrays cannot hold them: SVE vectors are
// sizeless types.

#if defined(EDGEATTN_SRC_REGISTER_GRID_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_REGISTER_GRID_INL_H_
#undef EDGEATTN_SRC_REGISTER_GRID_INL_H_
#else
#define EDGEATTN_SRC_REGISTER_GRID_INL_H_
#endif

#include <stddef.h>

#include <type_traits>
#include <utility>

#include <hwy/highway.h>

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

inline constexpr size_t kGridRows = 6;
inline constexpr size_t kGridCols = kVectorRegisters >= 32 ? 4 : 2;

// Calls body(std::integral_constant<size_t, rows>()) for 1 <= rows <= kMax, so
// that a remainder of rows still runs a grid with compile-time R.
template <size_t kMax, class Body>
HWY_INLINE void WithRowCount(size_t rows, const Body& body) {
  if constexpr (kMax > 1) {
    if (rows < kMax) return WithRowCount<kMax - 1>(rows, body);
  }
  body(std::integral_constant<size_t, kMax>());
}

// The starting value of grid cell I: expanded over the cells' index pack, it
// makes one zero accumulator per cell.
template <size_t I, class D>
HWY_INLINE hn::Vec<D> ZeroCell(D d) {
  return hn::Zero(d);
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
