// Packing into transposed panels (kernels/f32/transposed_panels.h) four keys x four
// features at a time: four 128-bit row loads, a 4 x 4 transpose in registers
// (interleaves of 32- then 64-bit lanes), four 128-bit stores into the panel.
// The scalar PackPanels (edgeattn/packed_weights.hpp) reads and writes one
// float at a time; packing is most of a short run's overhead (8 % of a causal
// n = 128 attention). Edges (fewer than four keys or features left, the zero
// padding) and targets without 128-bit vectors (SCALAR) or with only
// length-agnostic ones (SVE) take the scalar path. The result is the same
// floats either way (tests/kernels/pack_panels_test.cc, every target).

#if defined(EDGEATTN_SRC_KERNELS_F32_PACK_PANELS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KERNELS_F32_PACK_PANELS_INL_H_
#undef EDGEATTN_SRC_KERNELS_F32_PACK_PANELS_INL_H_
#else
#define EDGEATTN_SRC_KERNELS_F32_PACK_PANELS_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/packed_weights.hpp"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || \
    HWY_TARGET == HWY_SVE_256 || HWY_TARGET == HWY_SVE2_128
inline void PackPanelsFast(const float* rows, size_t ld_rows, int32_t n_rows, int32_t n_cols,
                           float* packed) {
  PackPanels(rows, ld_rows, n_rows, n_cols, packed);
}
#else
// Rows r..r+3, features t..t+3 of `source` into panel rows t..t+3, columns
// c..c+3 (c = the rows' offset in their panel).
HWY_INLINE void TransposeFourByFour(const float* HWY_RESTRICT source, size_t ld_rows, size_t t,
                                    float* HWY_RESTRICT out) {
  const hn::FixedTag<float, 4> d;
  const hn::Repartition<uint64_t, decltype(d)> d64;
  const auto r0 = hn::LoadU(d, source + t);
  const auto r1 = hn::LoadU(d, source + ld_rows + t);
  const auto r2 = hn::LoadU(d, source + 2 * ld_rows + t);
  const auto r3 = hn::LoadU(d, source + 3 * ld_rows + t);
  const auto low01 = hn::BitCast(d64, hn::InterleaveLower(d, r0, r1));   // r0[0] r1[0] r0[1] r1[1]
  const auto low23 = hn::BitCast(d64, hn::InterleaveLower(d, r2, r3));   // r2[0] r3[0] r2[1] r3[1]
  const auto high01 = hn::BitCast(d64, hn::InterleaveUpper(d, r0, r1));  // r0[2] r1[2] r0[3] r1[3]
  const auto high23 = hn::BitCast(d64, hn::InterleaveUpper(d, r2, r3));
  hn::StoreU(hn::BitCast(d, hn::InterleaveLower(d64, low01, low23)), d, out);
  hn::StoreU(hn::BitCast(d, hn::InterleaveUpper(d64, low01, low23)), d, out + kKeyBlock);
  hn::StoreU(hn::BitCast(d, hn::InterleaveLower(d64, high01, high23)), d, out + 2 * kKeyBlock);
  hn::StoreU(hn::BitCast(d, hn::InterleaveUpper(d64, high01, high23)), d, out + 3 * kKeyBlock);
}

inline void PackPanelsFast(const float* rows, size_t ld_rows, int32_t n_rows, int32_t n_cols,
                           float* packed) {
  const size_t cols = static_cast<size_t>(n_cols);
  for (int32_t first = 0; first < n_rows; first += kKeyBlock) {
    float* panel = packed + static_cast<size_t>(first) * cols;
    const size_t count =
        static_cast<size_t>(n_rows - first < kKeyBlock ? n_rows - first : kKeyBlock);
    const float* source = rows + static_cast<size_t>(first) * ld_rows;
    const size_t whole_rows = count & ~size_t{3};
    const size_t whole_cols = cols & ~size_t{3};
    for (size_t c = 0; c < whole_rows; c += 4) {
      for (size_t t = 0; t < whole_cols; t += 4) {
        TransposeFourByFour(source + c * ld_rows, ld_rows, t, panel + t * kKeyBlock + c);
      }
      for (size_t t = whole_cols; t < cols; ++t) {
        for (size_t i = 0; i < 4; ++i) panel[t * kKeyBlock + c + i] = source[(c + i) * ld_rows + t];
      }
    }
    for (size_t t = 0; t < cols; ++t) {
      float* out = panel + t * kKeyBlock;
      for (size_t c = whole_rows; c < count; ++c) out[c] = source[c * ld_rows + t];
      for (size_t c = count; c < static_cast<size_t>(kKeyBlock); ++c) out[c] = 0.0f;
    }
  }
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
