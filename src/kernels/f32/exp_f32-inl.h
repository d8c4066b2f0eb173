// exp(x) for x <= 0, the one exponential of the float softmax, on every target.
//
// The softmax only ever exponentiates differences s - max <= 0, so the range
// reduction needs no overflow branch: t = x log2(e), clamped below, splits
// into n = round(t) and f = t - n in [-0.5, 0.5]; 2^f is a degree-5 polynomial
// (a minimax fit of relative error on [-0.5, 0.5] with p(0) = 1 exactly, so the
// row maximum's weight is exactly 1), and 2^n is applied exactly.
//
// AVX-512 has its own form below (8 instructions, 12 elsewhere; the contrib
// Exp takes about twice that, for an accuracy, 8e-8, that the 1e-5 attention
// tolerance does not need): on a core whose FMAs and other vector
// instructions share two pipes, every one of them is an FMA slot lost.
//
// Accuracy (tests/kernels/exp_test.cc, every target): relative error below
// 3e-7 + |x| 2^-23 (the second term: the rounding of x log2(e) and of the
// constant log2(e); the input s - max carries |s| 2^-24 anyway) for results of
// 2^-126 and above. Smaller results are 0 or a denormal no larger than twice
// the true value plus 2^-149; x <= -105 and x = -inf give exactly 0; x = 0
// gives exactly 1. NaN input is not allowed (the softmax never passes one: see
// kernels/f32/online_softmax-inl.h).

#if defined(EDGEATTN_SRC_KERNELS_F32_EXP_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KERNELS_F32_EXP_F32_INL_H_
#undef EDGEATTN_SRC_KERNELS_F32_EXP_F32_INL_H_
#else
#define EDGEATTN_SRC_KERNELS_F32_EXP_F32_INL_H_
#endif

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Portable: n = round(t) and f = t - n in [-0.5, 0.5], 2^f a degree-5
// minimax polynomial on that interval, 2^n built in the exponent bits. The
// rounding is float arithmetic, not a round and a float-to-int conversion
// (two instructions each on some cores, and undefined for NaN on SCALAR):
// adding kRoundingBias = 1.5 * 2^23 + 127 rounds t to an integer, since
// floats between 2^23 and 2^24 are whole numbers, and leaves n + 127 in the
// low mantissa bits of the sum, which a shift moves into the exponent field
// of 2^n.

// c[0] + c[1] f + ... + c[5] f^5 by Horner's rule: five fused multiply-adds.
template <class D>
HWY_INLINE hn::Vec<D> Polynomial5(D d, hn::Vec<D> f, const float (&c)[6]) {
  auto p = hn::Set(d, c[5]);
  for (int i = 4; i >= 0; --i) p = hn::MulAdd(p, f, hn::Set(d, c[i]));
  return p;
}

// 2^f, minimax fits of relative error with c[0] = 1 (so 2^0 is exactly 1): on
// [-0.5, 0.5], and on [0, 1] with p(1) = 2 exactly in float32 as well.
inline constexpr float kPowerOfTwoOnHalfUnit[6] = {
    1.0f, 6.931470037e-1f, 2.402224243e-1f, 5.550733581e-2f, 9.671512991e-3f, 1.326472731e-3f};
inline constexpr float kPowerOfTwoOnUnit[6] = {
    1.0f, 6.931517124e-1f, 2.401593179e-1f, 5.581867695e-2f, 8.990994655e-3f, 1.879318617e-3f};

// Lowest t = x log2(e) kept: 2^-127 built in the exponent bits is 0 exactly.
inline constexpr float kLowestExponent = -127.0f;
inline constexpr float kRoundingBias = 12583039.0f;  // 0x1.8p23 + 127

// exp(x) for x <= 0 or x = -inf, lane by lane.
template <class D>
HWY_INLINE hn::Vec<D> ExpNonPositive(D d, hn::Vec<D> x) {
  using V = hn::Vec<D>;
  const V t = hn::Max(hn::Mul(x, hn::Set(d, 1.44269504f)), hn::Set(d, kLowestExponent));
  const V biased = hn::Add(t, hn::Set(d, kRoundingBias));              // n + 127 in the low bits
  const V f = hn::Sub(t, hn::Sub(biased, hn::Set(d, kRoundingBias)));  // both exact
  const V p = Polynomial5(d, f, kPowerOfTwoOnHalfUnit);
  // n + 127 is the exponent field of 2^n, 0 for n = -127 (so the product is 0).
  const hn::RebindToUnsigned<D> du;
  return hn::Mul(p, hn::BitCast(d, hn::ShiftLeft<23>(hn::BitCast(du, biased))));
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// AVX-512, whole 512-bit vectors (the softmax's ScalableTag): 8 instructions
// where the portable form takes 12. vreduceps rounding down gives
// f = t - floor(t) in [0, 1] (1 for tiny negative t, where t + 1 rounds to 1),
// 2^f is a degree-5 minimax polynomial on [0, 1] with p(0) = 1 and p(1) = 2
// exactly in float32 (relative error 1.5e-7; so exp(-1e-30) is exactly 1,
// as at x = 0, and p never exceeds 2), and vscalefps multiplies by
// 2^floor(t) itself, exactly, denormals included. No clamp: t = -inf gives
// f = 0 and 2^-inf = 0, and a hugely negative t is integral (f = 0) and
// scales to 0.
HWY_INLINE hn::Vec512<float> ExpNonPositive(hn::Simd<float, 16, 0> d, hn::Vec512<float> x) {
  const auto t = hn::Mul(x, hn::Set(d, 1.44269504f));
  const auto f = hn::Vec512<float>{_mm512_reduce_ps(t.raw, _MM_FROUND_TO_NEG_INF)};
  const auto p = Polynomial5(d, f, kPowerOfTwoOnUnit);
  return hn::Vec512<float>{_mm512_scalef_ps(p.raw, t.raw)};
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
