// The float32 grids for Cortex-M cores, which Highway 1.0.3 serves with its
// SCALAR target only: one float at a time, and GCC 12 keeps one or two of
// that grid's accumulators in registers (about 4 instructions per
// multiply-add on a Cortex-M4). Three kernels with the operands and results
// of their Highway counterparts:
// - LinearCortexM: y = x W^T + b over the packed panels (kernels/f32/linear_f32-inl.h);
// - ScoreBlockCortexM: the scaled score tile against packed key panels
//   (kernels/f32/score_tile-inl.h), scale applied once to each finished dot product;
// - WeightedValuesCortexM: out = out * rescale + P V (kernels/f32/weighted_values-inl.h),
//   each sum from zero, then one fused multiply-add onto the row.
// Each is a 2 x 2 grid of four-float packs (two rows of A, eight columns of
// B): per step t two pack loads of B, two scalars of A and four
// pack-by-scalar fused multiply-adds. On Helium (Cortex-M55) a pack is a
// float32x4_t and the FMA one VFMA (vector by scalar), 6 of the 8 Q
// registers: GCC 12 makes it 11 instructions per 16 multiply-adds with the
// pointer step and LE. With a scalar FPU (Cortex-M4F, M7) a pack is four
// floats in S registers (16 accumulators of 32): 10 loads and 16 VFMAs.
// Every output is the same sequential fused chain over t as the SCALAR
// loop's, however the rows are split between tasks; columns past the end are
// neither loaded nor stored.
#if defined(EDGEATTN_SRC_KERNELS_F32_CORTEX_M_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KERNELS_F32_CORTEX_M_F32_INL_H_
#undef EDGEATTN_SRC_KERNELS_F32_CORTEX_M_F32_INL_H_
#else
#define EDGEATTN_SRC_KERNELS_F32_CORTEX_M_F32_INL_H_
#endif

#include <stddef.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "kernels/f32/rescale_factor.h"
#include "kernels/f32/transposed_panels.h"

// 1: Helium with floating point; 2: a scalar single-precision FPU with FMA.
#if HWY_TARGET == HWY_SCALAR && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2) && \
    !defined(__aarch64__)
#define EDGEATTN_CORTEX_M_F32 1
#include <arm_mve.h>
#elif HWY_TARGET == HWY_SCALAR && defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M' && \
    defined(__ARM_FP) && (__ARM_FP & 4) && defined(__ARM_FEATURE_FMA)
#define EDGEATTN_CORTEX_M_F32 2
#else
#define EDGEATTN_CORTEX_M_F32 0
#endif

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {

#if EDGEATTN_CORTEX_M_F32
#if EDGEATTN_CORTEX_M_F32 == 1
using Pack4 = float32x4_t;
HWY_INLINE Pack4 ZeroPack() { return vdupq_n_f32(0.0f); }
HWY_INLINE Pack4 LoadPack(const float* p) { return vld1q_f32(p); }
// The first `count` (<= 4) floats of p, the rest 0.
HWY_INLINE Pack4 LoadFirst(const float* p, size_t count) {
  return vldrwq_z_f32(p, vctp32q(static_cast<uint32_t>(count)));
}
HWY_INLINE void StoreFirst(float* p, Pack4 v, size_t count) {
  vstrwq_p_f32(p, v, vctp32q(static_cast<uint32_t>(count)));
}
// acc + b * x
HWY_INLINE Pack4 FmaPack(Pack4 acc, Pack4 b, float x) { return vfmaq_n_f32(acc, b, x); }
HWY_INLINE Pack4 MulPack(Pack4 v, float x) { return vmulq_n_f32(v, x); }
HWY_INLINE Pack4 AddPacks(Pack4 a, Pack4 b) { return vaddq_f32(a, b); }
#else
struct Pack4 {
  float v0, v1, v2, v3;
};
HWY_INLINE Pack4 ZeroPack() { return {0.0f, 0.0f, 0.0f, 0.0f}; }
HWY_INLINE Pack4 LoadPack(const float* p) { return {p[0], p[1], p[2], p[3]}; }
HWY_INLINE Pack4 LoadFirst(const float* p, size_t count) {
  return {p[0], count > 1 ? p[1] : 0.0f, count > 2 ? p[2] : 0.0f, count > 3 ? p[3] : 0.0f};
}
HWY_INLINE void StoreFirst(float* p, Pack4 v, size_t count) {
  p[0] = v.v0;
  if (count > 1) p[1] = v.v1;
  if (count > 2) p[2] = v.v2;
  if (count > 3) p[3] = v.v3;
}
HWY_INLINE Pack4 FmaPack(Pack4 acc, Pack4 b, float x) {
  return {__builtin_fmaf(b.v0, x, acc.v0), __builtin_fmaf(b.v1, x, acc.v1),
          __builtin_fmaf(b.v2, x, acc.v2), __builtin_fmaf(b.v3, x, acc.v3)};
}
HWY_INLINE Pack4 MulPack(Pack4 v, float x) { return {v.v0 * x, v.v1 * x, v.v2 * x, v.v3 * x}; }
HWY_INLINE Pack4 AddPacks(Pack4 a, Pack4 b) {
  return {a.v0 + b.v0, a.v1 + b.v1, a.v2 + b.v2, a.v3 + b.v3};
}
#endif

// The 2 x 2 grid of one strip: rows a0, a1 (a1 may repeat a0) against B's
// eight columns b + t * ld_b, for t < depth. kPartial: only the first
// `columns` (< 8) of them exist and are loaded (under a VCTP predicate on
// Helium, which costs the loop a predicate move per load, so whole strips
// load without one). pack[2 r + k]: row r, columns 4k .. 4k + 3.
struct GridPacks {
  Pack4 pack[4];
};

template <bool kPartial>
HWY_INLINE GridPacks GridProductCortexM(const float* a0, const float* a1, const float* b,
                                        size_t ld_b, size_t depth, size_t columns) {
  const size_t low = columns < 4 ? columns : 4, high = columns > 4 ? columns - 4 : 0;
  Pack4 acc00 = ZeroPack(), acc01 = acc00, acc10 = acc00, acc11 = acc00;
  for (size_t t = 0; t < depth; ++t, b += ld_b) {
    const Pack4 b0 = kPartial ? LoadFirst(b, low) : LoadPack(b);
    const Pack4 b1 = kPartial ? (high > 0 ? LoadFirst(b + 4, high) : ZeroPack()) : LoadPack(b + 4);
    const float x0 = a0[t], x1 = a1[t];
    acc00 = FmaPack(acc00, b0, x0);
    acc01 = FmaPack(acc01, b1, x0);
    acc10 = FmaPack(acc10, b0, x1);
    acc11 = FmaPack(acc11, b1, x1);
  }
  return {{acc00, acc01, acc10, acc11}};
}

// out[0, count) for the `count` (<= 8) valid columns of row `row` of a grid,
// after `finish` maps each vector (given its first column).
template <typename Finish>
HWY_INLINE void StoreRowCortexM(const GridPacks& grid, size_t row, size_t count, float* out,
                                const Finish& finish) {
  StoreFirst(out, finish(grid.pack[2 * row], 0), count < 4 ? count : 4);
  if (count > 4) StoreFirst(out + 4, finish(grid.pack[2 * row + 1], 4), count - 4);
}

// y[r][o] = bias[o] + x_r . w_o for r < rows, o < n_out; W in packed panels.
HWY_INLINE void LinearCortexM(const float* x, size_t ld_x, size_t rows, size_t n_in,
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
      const auto add_bias = [&](Pack4 acc, size_t k) {
        if (bias == nullptr) return acc;
        const size_t valid = count - k < 4 ? count - k : 4;
        return AddPacks(acc, LoadFirst(bias + o + k, valid));
      };
      for (size_t r = 0; r < rows; r += 2) {
        const float* x0 = x + r * ld_x;
        const bool pair = r + 1 < rows;
        const GridPacks grid =
            GridProductCortexM<false>(x0, pair ? x0 + ld_x : x0, panel + c, kKeyBlock, n_in, 8);
        float* y0 = y + r * ld_y + o;
        StoreRowCortexM(grid, 0, count, y0, add_bias);
        if (pair) StoreRowCortexM(grid, 1, count, y0 + ld_y, add_bias);
      }
    }
  }
}

// tile[r][j] = scale * q_r . k_(first_panel * 64 + j), r < rows, j < keys.
HWY_INLINE void ScoreBlockCortexM(const float* q, size_t ld_q, size_t rows, const float* packed,
                                  int32_t d_k, int32_t first_panel, size_t keys, float scale,
                                  float* tile) {
  const auto scaled = [scale](Pack4 acc, size_t) { return MulPack(acc, scale); };
  for (size_t start = 0; start < keys; start += kKeyBlock) {
    const float* panel = Panel(packed, d_k, first_panel + static_cast<int32_t>(start / kKeyBlock));
    const size_t in_panel =
        keys - start < static_cast<size_t>(kKeyBlock) ? keys - start : kKeyBlock;
    for (size_t c = 0; c < in_panel; c += 8) {
      const size_t count = in_panel - c < 8 ? in_panel - c : 8;
      for (size_t r = 0; r < rows; r += 2) {
        const float* q0 = q + r * ld_q;
        const bool pair = r + 1 < rows;
        const GridPacks grid = GridProductCortexM<false>(q0, pair ? q0 + ld_q : q0, panel + c,
                                                         kKeyBlock, static_cast<size_t>(d_k), 8);
        float* out = tile + r * kScoreTileKeys + start + c;
        StoreRowCortexM(grid, 0, count, out, scaled);
        if (pair) StoreRowCortexM(grid, 1, count, out + kScoreTileKeys, scaled);
      }
    }
  }
}

// out[r][0, d_v) = out[r] * rescale[r] + sum_{j in [first_key, end_key)}
// probs[r][j] values[j][0, d_v), r < rows; rescale[r] = 0 writes the sum
// without reading out[r], as AccumulateWeightedValues does.
HWY_INLINE void WeightedValuesCortexM(const float* probs, size_t first_key, size_t end_key,
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
      const GridPacks grid = count == 8
                                 ? GridProductCortexM<false>(p0, p1, v, ld_values, keys, count)
                                 : GridProductCortexM<true>(p0, p1, v, ld_values, keys, count);
      for (size_t i = 0; i < (pair ? 2u : 1u); ++i) {
        float* row = out + (r + i) * ld_out + c;
        const float factor = rescale[r + i];
        StoreRowCortexM(grid, i, count, row, [&](Pack4 acc, size_t k) {
          if (StartsOutputRow(factor)) return acc;  // the row is not read (see the header)
          const size_t valid = count - k < 4 ? count - k : 4;
          const Pack4 old = LoadFirst(row + k, valid);
          return FmaPack(acc, old, factor);
        });
      }
    }
  }
}
#endif  // EDGEATTN_CORTEX_M_F32

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // include guard
