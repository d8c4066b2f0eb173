// QuantizeHeadS8 and QuantizeHeadS4 (quantize_head.h) per SIMD target. With the int8 cache at
// short lengths, the append's quantization was most of a decode step (43 %
// of the reversal model's int8-cache decoding under perf, scalar).
//
// Same bytes as the scalar loop, by construction: max|x| is exact in any
// order; the division is IEEE (divps, AArch64 fdiv, SVE fdiv); rounding is
// truncation plus the exact remainder compared with +-0.5, never the FPU's
// rounding mode. armv7 NEON's float division in Highway 1.0.3 is a
// reciprocal estimate, so armv7 and SCALAR (Cortex-M) keep the scalar loop.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kv_cache/quantize_head.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <hwy/highway.h>

#include "kernels/f32/online_softmax-inl.h"
#include "kernels/vector_tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The head of zeros a non-finite or underflowing head stores.
inline float StoreZeroHead(size_t d, int8_t* q, size_t stride, bool non_finite) {
  for (size_t c = 0; c < d; ++c) q[c * stride] = 0;
  uint32_t nan_bits = 0x7FC00000u;
  float nan;
  memcpy(&nan, &nan_bits, sizeof(nan));
  return non_finite ? nan : 0.0f;
}

#if HWY_TARGET == HWY_SCALAR || HWY_ARCH_ARM_V7

// Nearest integer, ties to even, for |value| < 2^23: truncation and the
// exact remainder, selections rather than branches (the remainder's sign and
// size are random).
inline int32_t RoundToEven(float value) {
  const int32_t whole = static_cast<int32_t>(value);
  const float fraction = value - static_cast<float>(whole);
  const int32_t odd = whole & 1;
  const int32_t up =
      static_cast<int32_t>(fraction > 0.5f) | (static_cast<int32_t>(fraction == 0.5f) & odd);
  const int32_t down =
      static_cast<int32_t>(fraction < -0.5f) | (static_cast<int32_t>(fraction == -0.5f) & odd);
  return whole + up - down;
}

float QuantizeHeadTarget(const float* x, size_t d, int8_t* q, size_t stride, int32_t limit) {
  float largest = 0.0f;
  bool non_finite = false;
  for (size_t c = 0; c < d; ++c) {
    uint32_t bits;
    memcpy(&bits, &x[c], sizeof(bits));
    non_finite |= (bits & 0x7F800000u) == 0x7F800000u;
    const float magnitude = x[c] < 0.0f ? -x[c] : x[c];
    largest = magnitude > largest ? magnitude : largest;
  }
  const float scale = largest / static_cast<float>(limit);
  if (non_finite || !(scale > 0.0f)) return StoreZeroHead(d, q, stride, non_finite);
  for (size_t c = 0; c < d; ++c) {
    int32_t value = RoundToEven(x[c] / scale);
    value = value > limit ? limit : value < -limit ? -limit : value;
    q[c * stride] = static_cast<int8_t>(value);
  }
  return scale;
}

#else

// x / scale rounded as RoundToEven above, clamped, into `width` int8 values.
template <class D>
HWY_INLINE void QuantizeLanes(D d, hn::Vec<D> x, hn::Vec<D> scale, int32_t limit, size_t width,
                              int8_t* q, size_t stride) {
  const hn::RebindToSigned<D> di;
  const auto value = hn::Div(x, scale);
  const auto whole = hn::ConvertTo(di, value);  // truncates toward zero
  const auto fraction = hn::Sub(value, hn::ConvertTo(d, whole));
  const auto odd = hn::RebindMask(d, hn::Eq(hn::And(whole, hn::Set(di, 1)), hn::Set(di, 1)));
  const auto half = hn::Set(d, 0.5f);
  const auto up = hn::Or(hn::Gt(fraction, half), hn::And(hn::Eq(fraction, half), odd));
  const auto minus_half = hn::Neg(half);
  const auto down =
      hn::Or(hn::Lt(fraction, minus_half), hn::And(hn::Eq(fraction, minus_half), odd));
  // A true mask lane is -1: whole + up - down.
  auto rounded = hn::Add(hn::Sub(whole, hn::VecFromMask(di, hn::RebindMask(di, up))),
                         hn::VecFromMask(di, hn::RebindMask(di, down)));
  rounded = hn::Min(hn::Max(rounded, hn::Set(di, -limit)), hn::Set(di, limit));
  HWY_ALIGN int32_t lanes[hn::MaxLanes(di)];
  hn::Store(rounded, di, lanes);
  for (size_t i = 0; i < width; ++i) q[i * stride] = static_cast<int8_t>(lanes[i]);
}

float QuantizeHeadTarget(const float* x, size_t d, int8_t* q, size_t stride, int32_t limit) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const size_t lanes = hn::Lanes(df);
  auto largest = hn::Zero(df);
  auto non_finite = hn::Zero(di);
  size_t c = 0;
  for (; c + lanes <= d; c += lanes) {
    const auto v = hn::LoadU(df, x + c);
    largest = hn::Max(largest, hn::Abs(v));
    non_finite = hn::Or(non_finite, NonFiniteLanes(df, v));
  }
  if (c < d) {
    const auto v = LoadTail(df, x + c, d - c, 0.0f);
    largest = hn::Max(largest, hn::Abs(v));
    non_finite = hn::Or(non_finite, NonFiniteLanes(df, v));
  }
  const bool any_non_finite = !hn::AllFalse(di, hn::Ne(non_finite, hn::Zero(di)));
  const float scale = hn::GetLane(hn::MaxOfLanes(df, largest)) / static_cast<float>(limit);
  if (any_non_finite || !(scale > 0.0f)) return StoreZeroHead(d, q, stride, any_non_finite);
  const auto vscale = hn::Set(df, scale);
  for (c = 0; c + lanes <= d; c += lanes) {
    QuantizeLanes(df, hn::LoadU(df, x + c), vscale, limit, lanes, q + c * stride, stride);
  }
  if (c < d) {
    QuantizeLanes(df, LoadTail(df, x + c, d - c, 0.0f), vscale, limit, d - c, q + c * stride,
                  stride);
  }
  return scale;
}

#endif

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kv_cache/quantize_head.h"
#include "runtime/dispatch.h"

namespace edgeattn {

EA_EXPORT(QuantizeHeadTarget);

float QuantizeHeadS8(const float* x, size_t d, int8_t* q, size_t stride) {
  return EA_DISPATCH(QuantizeHeadTarget)(x, d, q, stride, kInt8CodeLimit);
}

float QuantizeHeadS4(const float* x, size_t d, int8_t* q, size_t stride) {
  return EA_DISPATCH(QuantizeHeadTarget)(x, d, q, stride, kInt4CodeLimit);
}

}  // namespace edgeattn
#endif  // HWY_ONCE
