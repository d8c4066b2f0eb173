// Projection y = x W^T + b with W in [out, in] layout (nn.Linear, TFLite FC).
//
// Each output is a dot product of an x row with a W row, both contiguous, so
// the kernel vectorises along the input dimension: one x row against four W
// rows at a time (the x vector is loaded once for four FMAs), horizontal sums
// at the end. Weights are used in place; packing them into panels at plan time
// belongs to the speed work (see docs/ARCHITECTURE.md).

#if defined(EDGEATTN_SRC_LINEAR_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_LINEAR_F32_INL_H_
#undef EDGEATTN_SRC_LINEAR_F32_INL_H_
#else
#define EDGEATTN_SRC_LINEAR_F32_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#include "vector_tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Dot products of x with `kOutputs` consecutive W rows (stride n_in), written
// to y[0..kOutputs), each plus its bias.
template <size_t kOutputs, class D>
HWY_INLINE void DotWithRows(D d, const float* HWY_RESTRICT x, const float* HWY_RESTRICT w,
                            size_t n_in, const float* HWY_RESTRICT bias, float* HWY_RESTRICT y) {
  static_assert(kOutputs == 1 || kOutputs == 4, "one row or a block of four");
  const size_t lanes = hn::Lanes(d);
  auto acc0 = hn::Zero(d);
  auto acc1 = hn::Zero(d);
  auto acc2 = hn::Zero(d);
  auto acc3 = hn::Zero(d);
  size_t i = 0;
  for (; i + lanes <= n_in; i += lanes) {
    const auto xv = hn::LoadU(d, x + i);
    acc0 = hn::MulAdd(xv, hn::LoadU(d, w + i), acc0);
    if (kOutputs == 4) {
      acc1 = hn::MulAdd(xv, hn::LoadU(d, w + n_in + i), acc1);
      acc2 = hn::MulAdd(xv, hn::LoadU(d, w + 2 * n_in + i), acc2);
      acc3 = hn::MulAdd(xv, hn::LoadU(d, w + 3 * n_in + i), acc3);
    }
  }
  if (i < n_in) {
    const size_t rest = n_in - i;
    const auto xv = LoadTail(d, x + i, rest, 0.0f);
    acc0 = hn::MulAdd(xv, LoadTail(d, w + i, rest, 0.0f), acc0);
    if (kOutputs == 4) {
      acc1 = hn::MulAdd(xv, LoadTail(d, w + n_in + i, rest, 0.0f), acc1);
      acc2 = hn::MulAdd(xv, LoadTail(d, w + 2 * n_in + i, rest, 0.0f), acc2);
      acc3 = hn::MulAdd(xv, LoadTail(d, w + 3 * n_in + i, rest, 0.0f), acc3);
    }
  }
  y[0] = hn::GetLane(hn::SumOfLanes(d, acc0)) + (bias ? bias[0] : 0.0f);
  if (kOutputs == 4) {
    y[1] = hn::GetLane(hn::SumOfLanes(d, acc1)) + (bias ? bias[1] : 0.0f);
    y[2] = hn::GetLane(hn::SumOfLanes(d, acc2)) + (bias ? bias[2] : 0.0f);
    y[3] = hn::GetLane(hn::SumOfLanes(d, acc3)) + (bias ? bias[3] : 0.0f);
  }
}

HWY_INLINE void LinearRows(const float* HWY_RESTRICT x, size_t ld_x, int32_t rows, int32_t n_in,
                           const float* HWY_RESTRICT w, const float* HWY_RESTRICT bias,
                           int32_t n_out, float* HWY_RESTRICT y, size_t ld_y) {
  const hn::ScalableTag<float> d;
  const size_t in = static_cast<size_t>(n_in);
  const size_t out = static_cast<size_t>(n_out);
  for (size_t r = 0; r < static_cast<size_t>(rows); ++r) {
    const float* x_row = x + r * ld_x;
    float* y_row = y + r * ld_y;
    size_t o = 0;
    for (; o + 4 <= out; o += 4) {
      DotWithRows<4>(d, x_row, w + o * in, in, bias ? bias + o : nullptr, y_row + o);
    }
    for (; o < out; ++o) {
      DotWithRows<1>(d, x_row, w + o * in, in, bias ? bias + o : nullptr, y_row + o);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
