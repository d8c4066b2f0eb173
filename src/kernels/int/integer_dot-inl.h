// Integer dot products of one row of A against four rows of B, the inner loop
// of every fixed-point kernel (projections, scores, P V), written once for
// every Highway target.
//
// Operands are widened to int16 and multiplied pairwise into int32 lanes
// (ReorderWidenMulAccumulate: vpmaddwd on x86, smlal on NEON). Integer sums do
// not depend on their order, so any vector width gives the same result as
// TFLite's sequential loop:
// - int8 x int8 (with zero-point offsets, |term| < 2^16): int32 lanes that
//   wrap exactly as TFLite's int32 accumulator would, i.e. modulo 2^32;
// - int16 x int8 (|term| < 2^22) and int16 x int16 (split as
//   b = 256 * (b >> 8) + (b & 255), |term| < 2^23): int32 lanes flushed into
//   int64 every kFlushSteps vector steps, before they can overflow.
// Tails (and whole rows shorter than a vector) run a scalar loop.
#if defined(EDGEATTN_SRC_KERNELS_INT_INTEGER_DOT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KERNELS_INT_INTEGER_DOT_INL_H_
#undef EDGEATTN_SRC_KERNELS_INT_INTEGER_DOT_INL_H_
#else
#define EDGEATTN_SRC_KERNELS_INT_INTEGER_DOT_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#include "kernels/int/arm/arm_dot_product-inl.h"
#include "kernels/int/arm/dsp_dot_s16.h"
#include "kernels/int/arm/mve_dot_s16.h"

#if HWY_TARGET == HWY_SCALAR && defined(__ARM_FEATURE_MVE)
#include <arm_mve.h>
#elif HWY_TARGET == HWY_SCALAR && defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#endif

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DotD32 = hn::ScalableTag<int32_t>;
// SCALAR cannot repartition one int32 lane into two int16 lanes.
#if HWY_TARGET == HWY_SCALAR
using DotD16 = hn::Rebind<int16_t, DotD32>;
#else
using DotD16 = hn::Repartition<int16_t, DotD32>;
#endif
using DotD8 = hn::Rebind<int8_t, DotD16>;

// Vector steps between int64 flushes: each step adds at most two terms below
// 2^23 to a lane, so 64 steps stay below 2^30.
inline constexpr size_t kFlushSteps = 64;

// The four B rows of one dot-product call.
template <typename T>
struct FourRows {
  const T* row[4];
};

// Adds the lanes of sum0 + sum1 to total (int64).
HWY_INLINE void FlushLanes(DotD32 d32, hn::Vec<DotD32> sum0, hn::Vec<DotD32> sum1, int64_t* total) {
  HWY_ALIGN int32_t lanes[HWY_MAX_BYTES / sizeof(int32_t)];
  hn::Store(hn::Add(sum0, sum1), d32, lanes);
  int64_t sum = 0;
  for (size_t i = 0; i < hn::Lanes(d32); ++i) sum += lanes[i];
  *total += sum;
}

// The same lanes modulo 2^32.
HWY_INLINE uint32_t WrappedLanes(DotD32 d32, hn::Vec<DotD32> sum0, hn::Vec<DotD32> sum1) {
  HWY_ALIGN int32_t lanes[HWY_MAX_BYTES / sizeof(int32_t)];
  hn::Store(hn::Add(sum0, sum1), d32, lanes);
  uint32_t sum = 0;
  for (size_t i = 0; i < hn::Lanes(d32); ++i) sum += static_cast<uint32_t>(lanes[i]);
  return sum;
}

// The scalar tail of DotS8x4 from element `first` on.
HWY_INLINE void DotS8x4Tail(const int8_t* HWY_RESTRICT a, int32_t a_offset, FourRows<int8_t> b,
                            int32_t b_offset, size_t first, size_t n, uint32_t out[4]) {
  for (size_t i = first; i < n; ++i) {
    const int32_t ai = a[i] + a_offset;
    for (int r = 0; r < 4; ++r) out[r] += static_cast<uint32_t>(ai * (b.row[r][i] + b_offset));
  }
}

// out[r] = sum_i (a[i] + a_offset) * (b.row[r][i] + b_offset) mod 2^32 for
// r < 4; offsets in [-255, 255] (TFLite's -zero_point terms).
HWY_INLINE void DotS8x4Highway(const int8_t* HWY_RESTRICT a, int32_t a_offset, FourRows<int8_t> b,
                               int32_t b_offset, size_t n, uint32_t out[4]) {
  const DotD32 d32;
  const DotD16 d16;
  const DotD8 d8;
  const size_t lanes = hn::Lanes(d16);
  const auto va_offset = hn::Set(d16, static_cast<int16_t>(a_offset));
  const auto vb_offset = hn::Set(d16, static_cast<int16_t>(b_offset));
  auto s0 = hn::Zero(d32), s1 = hn::Zero(d32), s2 = hn::Zero(d32), s3 = hn::Zero(d32);
  auto t0 = hn::Zero(d32), t1 = hn::Zero(d32), t2 = hn::Zero(d32), t3 = hn::Zero(d32);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto va = hn::Add(hn::PromoteTo(d16, hn::LoadU(d8, a + i)), va_offset);
    const auto b0 = hn::Add(hn::PromoteTo(d16, hn::LoadU(d8, b.row[0] + i)), vb_offset);
    const auto b1 = hn::Add(hn::PromoteTo(d16, hn::LoadU(d8, b.row[1] + i)), vb_offset);
    const auto b2 = hn::Add(hn::PromoteTo(d16, hn::LoadU(d8, b.row[2] + i)), vb_offset);
    const auto b3 = hn::Add(hn::PromoteTo(d16, hn::LoadU(d8, b.row[3] + i)), vb_offset);
    s0 = hn::ReorderWidenMulAccumulate(d32, va, b0, s0, t0);
    s1 = hn::ReorderWidenMulAccumulate(d32, va, b1, s1, t1);
    s2 = hn::ReorderWidenMulAccumulate(d32, va, b2, s2, t2);
    s3 = hn::ReorderWidenMulAccumulate(d32, va, b3, s3, t3);
  }
  out[0] = WrappedLanes(d32, s0, t0);
  out[1] = WrappedLanes(d32, s1, t1);
  out[2] = WrappedLanes(d32, s2, t2);
  out[3] = WrappedLanes(d32, s3, t3);
  DotS8x4Tail(a, a_offset, b, b_offset, i, n, out);
}

#if HWY_TARGET == HWY_SCALAR && defined(__ARM_FEATURE_MVE)
// Cortex-M55 (Helium): 8 int8 widened to int16 with their offsets, and one
// VMLADAVA (multiply, add across the vector, accumulate) per row.
HWY_INLINE void DotS8x4Mve(const int8_t* HWY_RESTRICT a, int32_t a_offset, FourRows<int8_t> b,
                           int32_t b_offset, size_t n, uint32_t out[4]) {
  int32_t acc[4] = {0, 0, 0, 0};
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const int16x8_t va = vaddq_n_s16(vldrbq_s16(a + i), static_cast<int16_t>(a_offset));
    for (int r = 0; r < 4; ++r) {
      const int16x8_t vb = vaddq_n_s16(vldrbq_s16(b.row[r] + i), static_cast<int16_t>(b_offset));
      acc[r] = vmladavaq_s16(acc[r], va, vb);
    }
  }
  for (int r = 0; r < 4; ++r) out[r] = static_cast<uint32_t>(acc[r]);
  DotS8x4Tail(a, a_offset, b, b_offset, i, n, out);
}
#endif

#if HWY_TARGET == HWY_SCALAR && !defined(__ARM_FEATURE_MVE) && defined(__ARM_FEATURE_DSP)
// Cortex-M4/M7 (DSP extension): 4 int8 per word split into even and odd
// bytes as int16 pairs (SXTB16), offsets added pairwise (SADD16, no
// overflow: |value + offset| < 2^9), then two dual 16-bit MACs (SMLAD).
HWY_INLINE void DotS8x4Dsp(const int8_t* HWY_RESTRICT a, int32_t a_offset, FourRows<int8_t> b,
                           int32_t b_offset, size_t n, uint32_t out[4]) {
  const auto pair = [](int32_t offset) {
    return static_cast<int32_t>((static_cast<uint32_t>(offset) & 0xFFFFu) |
                                (static_cast<uint32_t>(offset) << 16));
  };
  const auto odd_bytes = [](int32_t word) {  // ROR #8: bytes 1 and 3 to the SXTB16 lanes
    const uint32_t bits = static_cast<uint32_t>(word);
    return static_cast<int32_t>((bits >> 8) | (bits << 24));
  };
  const int32_t a_offsets = pair(a_offset), b_offsets = pair(b_offset);
  int32_t acc[4] = {0, 0, 0, 0};
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    int32_t a_word;
    __builtin_memcpy(&a_word, a + i, sizeof a_word);
    const int32_t a_even = __sadd16(__sxtb16(a_word), a_offsets);
    const int32_t a_odd = __sadd16(__sxtb16(odd_bytes(a_word)), a_offsets);
    for (int r = 0; r < 4; ++r) {
      int32_t b_word;
      __builtin_memcpy(&b_word, b.row[r] + i, sizeof b_word);
      const int32_t b_even = __sadd16(__sxtb16(b_word), b_offsets);
      const int32_t b_odd = __sadd16(__sxtb16(odd_bytes(b_word)), b_offsets);
      acc[r] = __smlad(a_odd, b_odd, __smlad(a_even, b_even, acc[r]));
    }
  }
  for (int r = 0; r < 4; ++r) out[r] = static_cast<uint32_t>(acc[r]);
  DotS8x4Tail(a, a_offset, b, b_offset, i, n, out);
}
#endif

// out[r] = sum_i (a[i] + a_offset) * (b.row[r][i] + b_offset) mod 2^32 for
// r < 4; offsets in [-255, 255] (TFLite's -zero_point terms). Arm cores with
// SDOT (NEON +dotprod, SVE: arm_dot_product-inl.h) and Cortex-M cores with
// Helium or the DSP extension use their instructions (Highway has no op or
// target for them), every other target the Highway loop; all give the same
// integers.
HWY_INLINE void DotS8x4(const int8_t* HWY_RESTRICT a, int32_t a_offset, FourRows<int8_t> b,
                        int32_t b_offset, size_t n, uint32_t out[4]) {
#if EDGEATTN_SVE_DOT
  DotS8x4SveSdot(a, a_offset, b.row, b_offset, n, out);
#elif EDGEATTN_NEON_SDOT
  const size_t done = DotS8x4NeonSdot(a, a_offset, b.row, b_offset, n, out);
  DotS8x4Tail(a, a_offset, b, b_offset, done, n, out);
#elif HWY_TARGET == HWY_SCALAR && defined(__ARM_FEATURE_MVE)
  DotS8x4Mve(a, a_offset, b, b_offset, n, out);
#elif HWY_TARGET == HWY_SCALAR && defined(__ARM_FEATURE_DSP)
  DotS8x4Dsp(a, a_offset, b, b_offset, n, out);
#else
  DotS8x4Highway(a, a_offset, b, b_offset, n, out);
#endif
}

// Whether DotS8x4Raw plus hoisted row sums (SumS8) costs less than DotS8x4:
// on Arm's SDOT targets, where DotS8x4 spends 5 of its 9 SDOTs per step on
// the offsets' sums. Elsewhere the offsets ride along the widening for free.
#if EDGEATTN_SVE_DOT || EDGEATTN_NEON_SDOT
inline constexpr bool kHoistS8OffsetSums = true;
#else
inline constexpr bool kHoistS8OffsetSums = false;
#endif

// out[r] = sum_i a[i] * b.row[r][i] mod 2^32 (no offsets).
HWY_INLINE void DotS8x4Raw(const int8_t* HWY_RESTRICT a, FourRows<int8_t> b, size_t n,
                           uint32_t out[4]) {
#if EDGEATTN_SVE_DOT
  DotS8x4RawSveSdot(a, b.row, n, out);
#elif EDGEATTN_NEON_SDOT
  const size_t done = DotS8x4RawNeonSdot(a, b.row, n, out);
  DotS8x4Tail(a, 0, b, 0, done, n, out);
#else
  DotS8x4(a, 0, b, 0, n, out);
#endif
}

// DotS8x4Raw of two rows a0 and a1 against the same four rows of b
// (out0, out1): on the SDOT targets each load of b serves both rows.
HWY_INLINE void DotS8x2x4Raw(const int8_t* HWY_RESTRICT a0, const int8_t* HWY_RESTRICT a1,
                             FourRows<int8_t> b, size_t n, uint32_t out0[4], uint32_t out1[4]) {
#if EDGEATTN_SVE_DOT
  DotS8x2x4RawSveSdot(a0, a1, b.row, n, out0, out1);
#elif EDGEATTN_NEON_SDOT
  const size_t done = DotS8x2x4RawNeonSdot(a0, a1, b.row, n, out0, out1);
  DotS8x4Tail(a0, 0, b, 0, done, n, out0);
  DotS8x4Tail(a1, 0, b, 0, done, n, out1);
#else
  DotS8x4Raw(a0, b, n, out0);
  DotS8x4Raw(a1, b, n, out1);
#endif
}

// sum_i a[i] mod 2^32.
HWY_INLINE uint32_t SumS8(const int8_t* HWY_RESTRICT a, size_t n) {
#if EDGEATTN_SVE_DOT
  return SumS8SveSdot(a, n);
#else
  uint32_t sum = 0;
  size_t i = 0;
#if EDGEATTN_NEON_SDOT
  i = SumS8NeonSdot(a, n, &sum);
#endif
  for (; i < n; ++i) sum += static_cast<uint32_t>(a[i]);
  return sum;
#endif
}

// out[r] = sum_i a[i] * b.row[r][i] for int16 a and int8 b (exact, int64).
HWY_INLINE void DotS16S8x4Highway(const int16_t* HWY_RESTRICT a, FourRows<int8_t> b, size_t n,
                                  int64_t out[4]) {
  const DotD32 d32;
  const DotD16 d16;
  const DotD8 d8;
  const size_t lanes = hn::Lanes(d16);
  for (int r = 0; r < 4; ++r) out[r] = 0;
  size_t i = 0;
  while (i + lanes <= n) {
    auto s0 = hn::Zero(d32), s1 = hn::Zero(d32), s2 = hn::Zero(d32), s3 = hn::Zero(d32);
    auto t0 = hn::Zero(d32), t1 = hn::Zero(d32), t2 = hn::Zero(d32), t3 = hn::Zero(d32);
    for (size_t step = 0; step < kFlushSteps && i + lanes <= n; ++step, i += lanes) {
      const auto va = hn::LoadU(d16, a + i);
      s0 = hn::ReorderWidenMulAccumulate(d32, va, hn::PromoteTo(d16, hn::LoadU(d8, b.row[0] + i)),
                                         s0, t0);
      s1 = hn::ReorderWidenMulAccumulate(d32, va, hn::PromoteTo(d16, hn::LoadU(d8, b.row[1] + i)),
                                         s1, t1);
      s2 = hn::ReorderWidenMulAccumulate(d32, va, hn::PromoteTo(d16, hn::LoadU(d8, b.row[2] + i)),
                                         s2, t2);
      s3 = hn::ReorderWidenMulAccumulate(d32, va, hn::PromoteTo(d16, hn::LoadU(d8, b.row[3] + i)),
                                         s3, t3);
    }
    FlushLanes(d32, s0, t0, &out[0]);
    FlushLanes(d32, s1, t1, &out[1]);
    FlushLanes(d32, s2, t2, &out[2]);
    FlushLanes(d32, s3, t3, &out[3]);
  }
  for (; i < n; ++i) {
    for (int r = 0; r < 4; ++r) out[r] += static_cast<int64_t>(a[i]) * b.row[r][i];
  }
}

// out[r] = sum_i a[i] * b.row[r][i] for int16 a and b (exact, int64). Each b
// is split into a signed high byte and an unsigned low byte so that every
// product stays below 2^23.
HWY_INLINE void DotS16x4Highway(const int16_t* HWY_RESTRICT a, FourRows<int16_t> b, size_t n,
                                int64_t out[4]) {
  const DotD32 d32;
  const DotD16 d16;
  const size_t lanes = hn::Lanes(d16);
  const auto low_byte = hn::Set(d16, int16_t{0xFF});
  int64_t high[4] = {0, 0, 0, 0};
  for (int r = 0; r < 4; ++r) out[r] = 0;
  size_t i = 0;
  while (i + lanes <= n) {
    auto h0 = hn::Zero(d32), h1 = hn::Zero(d32), h2 = hn::Zero(d32), h3 = hn::Zero(d32);
    auto l0 = hn::Zero(d32), l1 = hn::Zero(d32), l2 = hn::Zero(d32), l3 = hn::Zero(d32);
    auto g0 = hn::Zero(d32), g1 = hn::Zero(d32), g2 = hn::Zero(d32), g3 = hn::Zero(d32);
    auto m0 = hn::Zero(d32), m1 = hn::Zero(d32), m2 = hn::Zero(d32), m3 = hn::Zero(d32);
    for (size_t step = 0; step < kFlushSteps && i + lanes <= n; ++step, i += lanes) {
      const auto va = hn::LoadU(d16, a + i);
      const auto b0 = hn::LoadU(d16, b.row[0] + i);
      const auto b1 = hn::LoadU(d16, b.row[1] + i);
      const auto b2 = hn::LoadU(d16, b.row[2] + i);
      const auto b3 = hn::LoadU(d16, b.row[3] + i);
      h0 = hn::ReorderWidenMulAccumulate(d32, va, hn::ShiftRight<8>(b0), h0, g0);
      h1 = hn::ReorderWidenMulAccumulate(d32, va, hn::ShiftRight<8>(b1), h1, g1);
      h2 = hn::ReorderWidenMulAccumulate(d32, va, hn::ShiftRight<8>(b2), h2, g2);
      h3 = hn::ReorderWidenMulAccumulate(d32, va, hn::ShiftRight<8>(b3), h3, g3);
      l0 = hn::ReorderWidenMulAccumulate(d32, va, hn::And(b0, low_byte), l0, m0);
      l1 = hn::ReorderWidenMulAccumulate(d32, va, hn::And(b1, low_byte), l1, m1);
      l2 = hn::ReorderWidenMulAccumulate(d32, va, hn::And(b2, low_byte), l2, m2);
      l3 = hn::ReorderWidenMulAccumulate(d32, va, hn::And(b3, low_byte), l3, m3);
    }
    FlushLanes(d32, h0, g0, &high[0]);
    FlushLanes(d32, h1, g1, &high[1]);
    FlushLanes(d32, h2, g2, &high[2]);
    FlushLanes(d32, h3, g3, &high[3]);
    FlushLanes(d32, l0, m0, &out[0]);
    FlushLanes(d32, l1, m1, &out[1]);
    FlushLanes(d32, l2, m2, &out[2]);
    FlushLanes(d32, l3, m3, &out[3]);
  }
  for (int r = 0; r < 4; ++r) out[r] += high[r] * 256;
  for (; i < n; ++i) {
    for (int r = 0; r < 4; ++r) out[r] += static_cast<int64_t>(a[i]) * b.row[r][i];
  }
}

#if HWY_TARGET == HWY_SCALAR && EDGEATTN_DSP_DOT_S8
// Cortex-M4/M7: the 1 x 2 SMLALD loop twice (dsp_dot_s16.h) where a and the
// four rows are word aligned, the Highway loop otherwise (same integers).
HWY_INLINE void DotS16x4Dsp(const int16_t* HWY_RESTRICT a, FourRows<int16_t> b, size_t n,
                            int64_t out[4]) {
  uintptr_t addresses = reinterpret_cast<uintptr_t>(a);
  for (int r = 0; r < 4; ++r) addresses |= reinterpret_cast<uintptr_t>(b.row[r]);
  if ((addresses & 3) != 0) return DotS16x4Highway(a, b, n, out);
  const int32_t groups = static_cast<int32_t>(n / 4);
  for (int r = 0; r < 4; ++r) out[r] = 0;
  edgeattn_dsp_dot_s16_1x2(a, b.row, groups, out);
  edgeattn_dsp_dot_s16_1x2(a, b.row + 2, groups, out + 2);
  for (size_t i = 4 * static_cast<size_t>(groups); i < n; ++i) {
    for (int r = 0; r < 4; ++r) out[r] += static_cast<int64_t>(a[i]) * b.row[r][i];
  }
}
#endif

// The int16 dot products: SVE's 64-bit SDOT, Helium's VMLALDAVA
// (mve_dot_s16.h) or the DSP's SMLALD where the target has them, else the
// Highway loops above (identical integers: every path sums exactly).
HWY_INLINE void DotS16S8x4(const int16_t* HWY_RESTRICT a, FourRows<int8_t> b, size_t n,
                           int64_t out[4]) {
#if EDGEATTN_SVE_DOT
  DotS16x4SveSdot(a, b.row, n, out);
#elif HWY_TARGET == HWY_SCALAR && EDGEATTN_MVE_DOT_S8
  edgeattn_mve_dot_s8s16_4x1(b.row, a, static_cast<int32_t>(n), out);
#else
  DotS16S8x4Highway(a, b, n, out);
#endif
}

HWY_INLINE void DotS16x4(const int16_t* HWY_RESTRICT a, FourRows<int16_t> b, size_t n,
                         int64_t out[4]) {
#if EDGEATTN_SVE_DOT
  DotS16x4SveSdot(a, b.row, n, out);
#elif HWY_TARGET == HWY_SCALAR && EDGEATTN_MVE_DOT_S8
  edgeattn_mve_dot_s16_4x1(b.row, a, static_cast<int32_t>(n), out);
#elif HWY_TARGET == HWY_SCALAR && EDGEATTN_DSP_DOT_S8
  DotS16x4Dsp(a, b, n, out);
#else
  DotS16x4Highway(a, b, n, out);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // include guard
