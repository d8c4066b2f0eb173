// The float32 grids on Helium's float lanes (Cortex-M55, MVE with floating
// point), which Highway 1.0.3 has no target for: its static Cortex-M build
// is SCALAR, one float at a time. Three kernels with the operands and
// results of their Highway counterparts:
// - LinearMveF32: y = x W^T + b over the packed panels (linear_f32-inl.h);
// - ScoreBlockMve: the scaled score tile against packed key panels
//   (score_tile-inl.h), scale applied once to each finished dot product;
// - WeightedValuesMve: out = out * rescale + P V (weighted_values-inl.h),
//   each sum from zero, then one fused multiply-add onto the row.
// Each is a 2 x 2 grid of float32x4 accumulators (two rows of A, eight
// columns of B): per step t two vector loads of B, two scalars of A in core
// registers and four vector-by-scalar VFMAs in 6 of the 8 Q registers: GCC
// 12 makes it 11 instructions per 16 multiply-adds with the pointer step and
// LE (the SCALAR grid: about 3). Every output is the same
// sequential fused chain over t as the SCALAR loop's, however the rows are
// split between tasks; columns past the end are neither loaded nor stored
// (predicated by VCTP).
#if defined(EDGEATTN_SRC_MVE_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_MVE_F32_INL_H_
#undef EDGEATTN_SRC_MVE_F32_INL_H_
#else
#define EDGEATTN_SRC_MVE_F32_INL_H_
#endif

#include <stddef.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "transposed_panels.h"

#if HWY_TARGET == HWY_SCALAR && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2) && \
    !defined(__aarch64__)
#define EDGEATTN_MVE_F32 1
#include <arm_mve.h>
#else
#define EDGEATTN_MVE_F32 0
#endif

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {

#if EDGEATTN_MVE_F32
// The 2 x 2 grid of one strip: rows a0, a1 (a1 may repeat a0) against B's
// eight columns b + t * ld_b, for t < depth. kPartial: only the first
// `columns` (< 8) of them exist, loaded under a VCTP predicate (which costs
// the loop a predicate move per load, so whole strips load without one).
// acc[2 r + k]: row r, columns 4k .. 4k + 3.
struct MveGrid {
  float32x4_t acc[4];
};

template <bool kPartial>
HWY_INLINE MveGrid MveGridProduct(const float* a0, const float* a1, const float* b, size_t ld_b,
                                  size_t depth, size_t columns) {
  const mve_pred16_t low = vctp32q(static_cast<uint32_t>(columns < 4 ? columns : 4));
  const mve_pred16_t high = vctp32q(static_cast<uint32_t>(columns > 4 ? columns - 4 : 0));
  float32x4_t acc00 = vdupq_n_f32(0.0f), acc01 = acc00, acc10 = acc00, acc11 = acc00;
  for (size_t t = 0; t < depth; ++t, b += ld_b) {
    const float32x4_t b0 = kPartial ? vldrwq_z_f32(b, low) : vld1q_f32(b);
    const float32x4_t b1 = kPartial ? vldrwq_z_f32(b + 4, high) : vld1q_f32(b + 4);
    const float x0 = a0[t], x1 = a1[t];
    acc00 = vfmaq_n_f32(acc00, b0, x0);
    acc01 = vfmaq_n_f32(acc01, b1, x0);
    acc10 = vfmaq_n_f32(acc10, b0, x1);
    acc11 = vfmaq_n_f32(acc11, b1, x1);
  }
  return {{acc00, acc01, acc10, acc11}};
}

// out[0, count) for the `count` (<= 8) valid columns of row `row` of a grid,
// after `finish` maps each vector (given its first column).
template <typename Finish>
HWY_INLINE void MveStoreRow(const MveGrid& grid, size_t row, size_t count, float* out,
                            const Finish& finish) {
  vstrwq_p_f32(out, finish(grid.acc[2 * row], 0),
               vctp32q(static_cast<uint32_t>(count < 4 ? count : 4)));
  if (count > 4) {
    vstrwq_p_f32(out + 4, finish(grid.acc[2 * row + 1], 4),
                 vctp32q(static_cast<uint32_t>(count - 4)));
  }
}

// y[r][o] = bias[o] + x_r . w_o for r < rows, o < n_out; W in packed panels.
HWY_INLINE void LinearMveF32(const float* x, size_t ld_x, size_t rows, size_t n_in,
                             const float* packed, const float* bias, size_t n_out, float* y,
                             size_t ld_y) {
  for (size_t first_out = 0; first_out < n_out; first_out += kKeyBlock) {
    const float* panel =
        Panel(packed, static_cast<int32_t>(n_in), static_cast<int32_t>(first_out / kKeyBlock));
    const size_t columns =
        n_out - first_out < static_cast<size_t>(kKeyBlock) ? n_out - first_out : kKeyBlock;
    for (size_t c = 0; c < columns; c += 8) {
      const size_t count = columns - c < 8 ? columns - c : 8;
      const size_t o = first_out + c;
      const auto add_bias = [&](float32x4_t acc, size_t k) {
        if (bias == nullptr) return acc;
        const size_t valid = count - k < 4 ? count - k : 4;
        return vaddq_f32(acc, vldrwq_z_f32(bias + o + k, vctp32q(static_cast<uint32_t>(valid))));
      };
      for (size_t r = 0; r < rows; r += 2) {
        const float* x0 = x + r * ld_x;
        const bool pair = r + 1 < rows;
        const MveGrid grid =
            MveGridProduct<false>(x0, pair ? x0 + ld_x : x0, panel + c, kKeyBlock, n_in, 8);
        float* y0 = y + r * ld_y + o;
        MveStoreRow(grid, 0, count, y0, add_bias);
        if (pair) MveStoreRow(grid, 1, count, y0 + ld_y, add_bias);
      }
    }
  }
}

// tile[r][j] = scale * q_r . k_(first_panel * 64 + j), r < rows, j < keys.
HWY_INLINE void ScoreBlockMve(const float* q, size_t ld_q, size_t rows, const float* packed,
                              int32_t d_k, int32_t first_panel, size_t keys, float scale,
                              float* tile) {
  const auto scaled = [scale](float32x4_t acc, size_t) { return vmulq_n_f32(acc, scale); };
  for (size_t start = 0; start < keys; start += kKeyBlock) {
    const float* panel = Panel(packed, d_k, first_panel + static_cast<int32_t>(start / kKeyBlock));
    const size_t in_panel =
        keys - start < static_cast<size_t>(kKeyBlock) ? keys - start : kKeyBlock;
    for (size_t c = 0; c < in_panel; c += 8) {
      const size_t count = in_panel - c < 8 ? in_panel - c : 8;
      for (size_t r = 0; r < rows; r += 2) {
        const float* q0 = q + r * ld_q;
        const bool pair = r + 1 < rows;
        const MveGrid grid = MveGridProduct<false>(q0, pair ? q0 + ld_q : q0, panel + c, kKeyBlock,
                                                   static_cast<size_t>(d_k), 8);
        float* out = tile + r * kScoreTileKeys + start + c;
        MveStoreRow(grid, 0, count, out, scaled);
        if (pair) MveStoreRow(grid, 1, count, out + kScoreTileKeys, scaled);
      }
    }
  }
}

// out[r][0, d_v) = out[r] * rescale[r] + sum_{j in [first_key, end_key)}
// probs[r][j] values[j][0, d_v), r < rows.
HWY_INLINE void WeightedValuesMve(const float* probs, size_t first_key, size_t end_key,
                                  const float* values, size_t ld_values, const float* rescale,
                                  float* out, size_t ld_out, size_t rows, size_t d_v) {
  const size_t keys = end_key - first_key;
  for (size_t c = 0; c < d_v; c += 8) {
    const size_t count = d_v - c < 8 ? d_v - c : 8;
    for (size_t r = 0; r < rows; r += 2) {
      const float* p0 = probs + r * kScoreTileKeys + first_key;
      const bool pair = r + 1 < rows;
      const float* p1 = pair ? p0 + kScoreTileKeys : p0;
      const float* v = values + first_key * ld_values + c;
      const MveGrid grid = count == 8 ? MveGridProduct<false>(p0, p1, v, ld_values, keys, count)
                                      : MveGridProduct<true>(p0, p1, v, ld_values, keys, count);
      for (size_t i = 0; i < (pair ? 2u : 1u); ++i) {
        float* row = out + (r + i) * ld_out + c;
        const float factor = rescale[r + i];
        MveStoreRow(grid, i, count, row, [&](float32x4_t acc, size_t k) {
          const size_t valid = count - k < 4 ? count - k : 4;
          const float32x4_t old = vldrwq_z_f32(row + k, vctp32q(static_cast<uint32_t>(valid)));
          return vfmaq_n_f32(acc, old, factor);
        });
      }
    }
  }
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // include guard
