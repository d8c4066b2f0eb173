// Arm's dot-product instructions for the fixed-point inner loop (DotS8x4 and
// friends in integer_dot-inl.h), which Highway 1.0.3 does not wrap:
// - NEON with +dotprod (aarch64, Armv8.2+): SDOT adds four int8 x int8
//   products into each int32 lane (vdotq_s32);
// - SVE and SVE2 at every vector length: SDOT likewise for int8 (svdot_s32),
//   and for int16 x int16 into int64 lanes (svdot_s64), exact with no flush.
//
// SDOT takes the bytes as they are, so the zero-point offsets of
// sum_i (a_i + a_off) (b_i + b_off) come from the expansion
//   sum a b + b_off sum a + a_off sum b + n a_off b_off,
// with sum a and sum b as SDOTs against a vector of ones. TFLite's int32
// accumulator wraps modulo 2^32 and so does every term here (uint32), so the
// result is TFLite's integer whatever the order or the lane width.
// Those sums take 5 of the 9 SDOTs of a step. Where one row's sums serve
// many dot products (K's rows for every query row, W's rows for every input
// row), callers hoist them: the raw dot (4 SDOTs per step, DotS8x4Raw*; two
// rows at once, DotS8x2x4Raw*) and the row sums (SumS8*) are separate.
#if defined(EDGEATTN_SRC_KERNELS_INT_ARM_ARM_DOT_PRODUCT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KERNELS_INT_ARM_ARM_DOT_PRODUCT_INL_H_
#undef EDGEATTN_SRC_KERNELS_INT_ARM_ARM_DOT_PRODUCT_INL_H_
#else
#define EDGEATTN_SRC_KERNELS_INT_ARM_ARM_DOT_PRODUCT_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#undef EDGEATTN_SVE_DOT
#undef EDGEATTN_NEON_SDOT
#if HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || \
    HWY_TARGET == HWY_SVE2_128
#define EDGEATTN_SVE_DOT 1
#include <arm_sve.h>
#else
#define EDGEATTN_SVE_DOT 0
#endif
#if HWY_TARGET == HWY_NEON && HWY_ARCH_ARM_A64 && defined(__ARM_FEATURE_DOTPROD)
#define EDGEATTN_NEON_SDOT 1
#include <arm_neon.h>
#else
#define EDGEATTN_NEON_SDOT 0
#endif

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {

// sum_i (a_i + a_off) (b_i + b_off) mod 2^32 from the raw sums over n elements.
HWY_INLINE uint32_t WithOffsets(uint32_t sum_ab, uint32_t sum_a, uint32_t sum_b, size_t n,
                                int32_t a_offset, int32_t b_offset) {
  const uint32_t a_off = static_cast<uint32_t>(a_offset), b_off = static_cast<uint32_t>(b_offset);
  return sum_ab + b_off * sum_a + a_off * sum_b + static_cast<uint32_t>(n) * a_off * b_off;
}

#if EDGEATTN_NEON_SDOT
// 16 bytes per step, one SDOT per row and one per row for its sum; the tail
// (n % 16 elements) is scalar, offsets applied element by element.
HWY_INLINE size_t DotS8x4NeonSdot(const int8_t* HWY_RESTRICT a, int32_t a_offset,
                                  const int8_t* const b[4], int32_t b_offset, size_t n,
                                  uint32_t out[4]) {
  const int8x16_t ones = vdupq_n_s8(1);
  int32x4_t sum_a = vdupq_n_s32(0);
  int32x4_t sum_ab0 = sum_a, sum_ab1 = sum_a, sum_ab2 = sum_a, sum_ab3 = sum_a;
  int32x4_t sum_b0 = sum_a, sum_b1 = sum_a, sum_b2 = sum_a, sum_b3 = sum_a;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const int8x16_t va = vld1q_s8(a + i);
    const int8x16_t b0 = vld1q_s8(b[0] + i);
    const int8x16_t b1 = vld1q_s8(b[1] + i);
    const int8x16_t b2 = vld1q_s8(b[2] + i);
    const int8x16_t b3 = vld1q_s8(b[3] + i);
    sum_a = vdotq_s32(sum_a, va, ones);
    sum_ab0 = vdotq_s32(sum_ab0, va, b0);
    sum_ab1 = vdotq_s32(sum_ab1, va, b1);
    sum_ab2 = vdotq_s32(sum_ab2, va, b2);
    sum_ab3 = vdotq_s32(sum_ab3, va, b3);
    sum_b0 = vdotq_s32(sum_b0, b0, ones);
    sum_b1 = vdotq_s32(sum_b1, b1, ones);
    sum_b2 = vdotq_s32(sum_b2, b2, ones);
    sum_b3 = vdotq_s32(sum_b3, b3, ones);
  }
  // ADDV adds the lanes modulo 2^32, as the lanes themselves wrap.
  const auto lanes = [](int32x4_t v) { return vaddvq_u32(vreinterpretq_u32_s32(v)); };
  const uint32_t a_sum = lanes(sum_a);
  out[0] = WithOffsets(lanes(sum_ab0), a_sum, lanes(sum_b0), i, a_offset, b_offset);
  out[1] = WithOffsets(lanes(sum_ab1), a_sum, lanes(sum_b1), i, a_offset, b_offset);
  out[2] = WithOffsets(lanes(sum_ab2), a_sum, lanes(sum_b2), i, a_offset, b_offset);
  out[3] = WithOffsets(lanes(sum_ab3), a_sum, lanes(sum_b3), i, a_offset, b_offset);
  return i;
}

// sum_i a_i b_r,i mod 2^32 over the 16-byte steps, no offsets: 4 SDOTs per
// step, two steps per iteration into two sets of accumulators (SDOT's
// latency, the loop's overhead). Returns the elements done; the rest is the
// caller's scalar tail.
HWY_INLINE size_t DotS8x4RawNeonSdot(const int8_t* HWY_RESTRICT a, const int8_t* const b[4],
                                     size_t n, uint32_t out[4]) {
  int32x4_t even[4], odd[4];
  for (int r = 0; r < 4; ++r) even[r] = odd[r] = vdupq_n_s32(0);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const int8x16_t va = vld1q_s8(a + i), vb = vld1q_s8(a + i + 16);
#pragma GCC unroll 4
    for (int r = 0; r < 4; ++r) {
      even[r] = vdotq_s32(even[r], va, vld1q_s8(b[r] + i));
      odd[r] = vdotq_s32(odd[r], vb, vld1q_s8(b[r] + i + 16));
    }
  }
  if (i + 16 <= n) {
    const int8x16_t va = vld1q_s8(a + i);
#pragma GCC unroll 4
    for (int r = 0; r < 4; ++r) even[r] = vdotq_s32(even[r], va, vld1q_s8(b[r] + i));
    i += 16;
  }
  for (int r = 0; r < 4; ++r) {
    out[r] = vaddvq_u32(vreinterpretq_u32_s32(vaddq_s32(even[r], odd[r])));
  }
  return i;
}

// DotS8x4RawNeonSdot for two rows a0, a1 against the same four rows of b:
// 8 SDOTs per 16-byte step from 6 loads (one row: 4 from 5), so that each
// load of b serves both rows and the loop is bound by the SDOT pipes, not
// the load ports. Eight accumulators cover SDOT's latency on one step per
// iteration. Returns the elements done; the rest is the caller's tail.
HWY_INLINE size_t DotS8x2x4RawNeonSdot(const int8_t* HWY_RESTRICT a0, const int8_t* HWY_RESTRICT a1,
                                       const int8_t* const b[4], size_t n, uint32_t out0[4],
                                       uint32_t out1[4]) {
  int32x4_t sum0[4], sum1[4];
  for (int r = 0; r < 4; ++r) sum0[r] = sum1[r] = vdupq_n_s32(0);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const int8x16_t x0 = vld1q_s8(a0 + i), x1 = vld1q_s8(a1 + i);
#pragma GCC unroll 4
    for (int r = 0; r < 4; ++r) {
      const int8x16_t vb = vld1q_s8(b[r] + i);
      sum0[r] = vdotq_s32(sum0[r], x0, vb);
      sum1[r] = vdotq_s32(sum1[r], x1, vb);
    }
  }
  for (int r = 0; r < 4; ++r) {
    out0[r] = vaddvq_u32(vreinterpretq_u32_s32(sum0[r]));
    out1[r] = vaddvq_u32(vreinterpretq_u32_s32(sum1[r]));
  }
  return i;
}

// sum_i a_i mod 2^32 over the 16-byte steps (into *sum); returns the
// elements done.
HWY_INLINE size_t SumS8NeonSdot(const int8_t* HWY_RESTRICT a, size_t n, uint32_t* sum) {
  const int8x16_t ones = vdupq_n_s8(1);
  int32x4_t lanes = vdupq_n_s32(0);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) lanes = vdotq_s32(lanes, vld1q_s8(a + i), ones);
  *sum = vaddvq_u32(vreinterpretq_u32_s32(lanes));
  return i;
}
#endif

#if EDGEATTN_SVE_DOT
// The sum of v's lanes modulo 2^32: the unsigned add across lanes wraps like
// the lanes themselves.
HWY_INLINE uint32_t WrappedLaneSum(svint32_t v) {
  return static_cast<uint32_t>(svaddv_u32(svptrue_b32(), svreinterpret_u32_s32(v)));
}

// One vector of bytes per step, the last one predicated (inactive lanes load
// as 0 and add nothing), so there is no scalar tail.
HWY_INLINE void DotS8x4SveSdot(const int8_t* HWY_RESTRICT a, int32_t a_offset,
                               const int8_t* const b[4], int32_t b_offset, size_t n,
                               uint32_t out[4]) {
  const svint8_t ones = svdup_n_s8(1);
  svint32_t sum_a = svdup_n_s32(0);
  svint32_t sum_ab0 = sum_a, sum_ab1 = sum_a, sum_ab2 = sum_a, sum_ab3 = sum_a;
  svint32_t sum_b0 = sum_a, sum_b1 = sum_a, sum_b2 = sum_a, sum_b3 = sum_a;
  for (size_t i = 0; i < n; i += svcntb()) {
    const svbool_t active = svwhilelt_b8_u64(i, n);
    const svint8_t va = svld1_s8(active, a + i);
    const svint8_t b0 = svld1_s8(active, b[0] + i);
    const svint8_t b1 = svld1_s8(active, b[1] + i);
    const svint8_t b2 = svld1_s8(active, b[2] + i);
    const svint8_t b3 = svld1_s8(active, b[3] + i);
    sum_a = svdot_s32(sum_a, va, ones);
    sum_ab0 = svdot_s32(sum_ab0, va, b0);
    sum_ab1 = svdot_s32(sum_ab1, va, b1);
    sum_ab2 = svdot_s32(sum_ab2, va, b2);
    sum_ab3 = svdot_s32(sum_ab3, va, b3);
    sum_b0 = svdot_s32(sum_b0, b0, ones);
    sum_b1 = svdot_s32(sum_b1, b1, ones);
    sum_b2 = svdot_s32(sum_b2, b2, ones);
    sum_b3 = svdot_s32(sum_b3, b3, ones);
  }
  const uint32_t a_sum = WrappedLaneSum(sum_a);
  out[0] =
      WithOffsets(WrappedLaneSum(sum_ab0), a_sum, WrappedLaneSum(sum_b0), n, a_offset, b_offset);
  out[1] =
      WithOffsets(WrappedLaneSum(sum_ab1), a_sum, WrappedLaneSum(sum_b1), n, a_offset, b_offset);
  out[2] =
      WithOffsets(WrappedLaneSum(sum_ab2), a_sum, WrappedLaneSum(sum_b2), n, a_offset, b_offset);
  out[3] =
      WithOffsets(WrappedLaneSum(sum_ab3), a_sum, WrappedLaneSum(sum_b3), n, a_offset, b_offset);
}

// sum_i a_i b_r,i mod 2^32, no offsets: 4 SDOTs per vector of bytes, two
// vectors per iteration into two sets of accumulators (SDOT's latency), the
// last ones predicated (inactive lanes load as 0). SVE types cannot form
// arrays, hence the named accumulators.
HWY_INLINE void DotS8x4RawSveSdot(const int8_t* HWY_RESTRICT a, const int8_t* const b[4], size_t n,
                                  uint32_t out[4]) {
  const size_t bytes = svcntb();
  svint32_t e0 = svdup_n_s32(0), e1 = e0, e2 = e0, e3 = e0;
  svint32_t o0 = e0, o1 = e0, o2 = e0, o3 = e0;
  for (size_t i = 0; i < n; i += 2 * bytes) {
    const svbool_t first = svwhilelt_b8_u64(i, n), second = svwhilelt_b8_u64(i + bytes, n);
    const svint8_t va = svld1_s8(first, a + i), vb = svld1_s8(second, a + i + bytes);
    e0 = svdot_s32(e0, va, svld1_s8(first, b[0] + i));
    e1 = svdot_s32(e1, va, svld1_s8(first, b[1] + i));
    e2 = svdot_s32(e2, va, svld1_s8(first, b[2] + i));
    e3 = svdot_s32(e3, va, svld1_s8(first, b[3] + i));
    o0 = svdot_s32(o0, vb, svld1_s8(second, b[0] + i + bytes));
    o1 = svdot_s32(o1, vb, svld1_s8(second, b[1] + i + bytes));
    o2 = svdot_s32(o2, vb, svld1_s8(second, b[2] + i + bytes));
    o3 = svdot_s32(o3, vb, svld1_s8(second, b[3] + i + bytes));
  }
  const auto lanes = [](svint32_t even, svint32_t odd) {
    const svbool_t all = svptrue_b32();
    return static_cast<uint32_t>(
        svaddv_u32(all, svreinterpret_u32_s32(svadd_s32_x(all, even, odd))));
  };
  out[0] = lanes(e0, o0);
  out[1] = lanes(e1, o1);
  out[2] = lanes(e2, o2);
  out[3] = lanes(e3, o3);
}

// DotS8x4RawSveSdot for two rows a0, a1 against the same four rows of b:
// 8 SDOTs per vector of bytes from 6 loads, each load of b serving both
// rows; eight accumulators cover SDOT's latency.
HWY_INLINE void DotS8x2x4RawSveSdot(const int8_t* HWY_RESTRICT a0, const int8_t* HWY_RESTRICT a1,
                                    const int8_t* const b[4], size_t n, uint32_t out0[4],
                                    uint32_t out1[4]) {
  svint32_t s00 = svdup_n_s32(0), s01 = s00, s02 = s00, s03 = s00;
  svint32_t s10 = s00, s11 = s00, s12 = s00, s13 = s00;
  for (size_t i = 0; i < n; i += svcntb()) {
    const svbool_t active = svwhilelt_b8_u64(i, n);
    const svint8_t x0 = svld1_s8(active, a0 + i), x1 = svld1_s8(active, a1 + i);
    const svint8_t b0 = svld1_s8(active, b[0] + i), b1 = svld1_s8(active, b[1] + i);
    const svint8_t b2 = svld1_s8(active, b[2] + i), b3 = svld1_s8(active, b[3] + i);
    s00 = svdot_s32(s00, x0, b0);
    s10 = svdot_s32(s10, x1, b0);
    s01 = svdot_s32(s01, x0, b1);
    s11 = svdot_s32(s11, x1, b1);
    s02 = svdot_s32(s02, x0, b2);
    s12 = svdot_s32(s12, x1, b2);
    s03 = svdot_s32(s03, x0, b3);
    s13 = svdot_s32(s13, x1, b3);
  }
  out0[0] = WrappedLaneSum(s00);
  out0[1] = WrappedLaneSum(s01);
  out0[2] = WrappedLaneSum(s02);
  out0[3] = WrappedLaneSum(s03);
  out1[0] = WrappedLaneSum(s10);
  out1[1] = WrappedLaneSum(s11);
  out1[2] = WrappedLaneSum(s12);
  out1[3] = WrappedLaneSum(s13);
}

// sum_i a_i mod 2^32.
HWY_INLINE uint32_t SumS8SveSdot(const int8_t* HWY_RESTRICT a, size_t n) {
  const svint8_t ones = svdup_n_s8(1);
  svint32_t lanes = svdup_n_s32(0);
  for (size_t i = 0; i < n; i += svcntb()) {
    lanes = svdot_s32(lanes, svld1_s8(svwhilelt_b8_u64(i, n), a + i), ones);
  }
  return WrappedLaneSum(lanes);
}

// b's values as int16 lanes: int16 as they are, int8 sign-extended as they load.
HWY_INLINE svint16_t LoadAsS16(svbool_t active, const int16_t* b) { return svld1_s16(active, b); }
HWY_INLINE svint16_t LoadAsS16(svbool_t active, const int8_t* b) { return svld1sb_s16(active, b); }

// sum_i a_i b_i exactly for int16 a and int16 or int8 b: SDOT adds four
// products (each below 2^30 in magnitude) into int64 lanes, far from
// overflow for any n the plans allow.
template <typename B>
HWY_INLINE void DotS16x4SveSdot(const int16_t* HWY_RESTRICT a, const B* const b[4], size_t n,
                                int64_t out[4]) {
  svint64_t s0 = svdup_n_s64(0), s1 = s0, s2 = s0, s3 = s0;
  for (size_t i = 0; i < n; i += svcnth()) {
    const svbool_t active = svwhilelt_b16_u64(i, n);
    const svint16_t va = svld1_s16(active, a + i);
    s0 = svdot_s64(s0, va, LoadAsS16(active, b[0] + i));
    s1 = svdot_s64(s1, va, LoadAsS16(active, b[1] + i));
    s2 = svdot_s64(s2, va, LoadAsS16(active, b[2] + i));
    s3 = svdot_s64(s3, va, LoadAsS16(active, b[3] + i));
  }
  const svbool_t all = svptrue_b64();
  out[0] = svaddv_s64(all, s0);
  out[1] = svaddv_s64(all, s1);
  out[2] = svaddv_s64(all, s2);
  out[3] = svaddv_s64(all, s3);
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // include guard
