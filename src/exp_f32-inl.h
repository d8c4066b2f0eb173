// exp(x) for x <= 0, the one exponential of the float softmax, on every target.
//
// The softmax only ever exponentiates differences s - max <= 0, so the range
// reduction needs no overflow branch: t = x log2(e), clamped below, splits
// into n = round(t) and f = t - n in [-0.5, 0.5]; 2^f is a degree-5 polynomial
// (a minimax fit of relative error on [-0.5, 0.5] with p(0) = 1 exactly, so the
// row maximum's weight is exactly 1), and 2^n is applied exactly.
//
// Two named steps have a better instruction on AVX-512: vreduceps gives f in
// one instruction, vscalefps multiplies by 2^n without building exponent bits
// (10 ops per vector there, 13 elsewhere; the contrib Exp takes about twice
// that, for an accuracy, 8e-8, that the 1e-5 attention tolerance does not
// need). Elsewhere 2^n is built in the exponent bits.
//
// Accuracy (tests/exp_test.cc, every target): relative error below
// 3e-7 + |x| 2^-23 (the second term: the rounding of x log2(e) and of the
// constant log2(e); the input s - max carries |s| 2^-24 anyway) for results of
// 2^-126 and above. Smaller results are 0 or a denormal no larger than twice
// the true value plus 2^-149; x <= -105 and x = -inf give exactly 0; x = 0
// gives exactly 1. NaN input is not allowed (the softmax never passes one: see
// online_softmax-inl.h).

#if defined(EDGEATTN_SRC_EXP_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_EXP_F32_INL_H_
#undef EDGEATTN_SRC_EXP_F32_INL_H_
#else
#define EDGEATTN_SRC_EXP_F32_INL_H_
#endif

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Portable steps.

// Lowest t = x log2(e) kept: 2^-127 built in the exponent bits is 0 exactly.
inline constexpr float kLowestExponent = -127.0f;

// t - round(t), in [-0.5, 0.5] (exact).
template <class V>
HWY_INLINE V FractionOfExponent(V t) {
  return hn::Sub(t, hn::Round(t));
}

// p * 2^n for an integral n in [kLowestExponent, 0]: n + 127 is the exponent
// field of 2^n, 0 for n = -127 (so the product is 0).
template <class V>
HWY_INLINE V TimesPowerOfTwo(V p, V n) {
  const hn::DFromV<V> d;
  const hn::RebindToSigned<decltype(d)> di;
  const auto biased = hn::Add(hn::ConvertTo(di, n), hn::Set(di, 127));
  return hn::Mul(p, hn::BitCast(d, hn::ShiftLeft<23>(biased)));
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// AVX-512 steps, for whole 512-bit vectors (the softmax's ScalableTag).

// vscalefps gives denormals down to 2^-149: from t = -151 the product of
// 2^n and p <= sqrt(2) rounds to 0.
inline constexpr float kLowestExponentScalef = -151.0f;

// vreduceps with 0 fraction bits, round to nearest: t - round(t).
HWY_INLINE hn::Vec512<float> FractionOfExponent(hn::Vec512<float> t) {
  return hn::Vec512<float>{_mm512_reduce_ps(t.raw, _MM_FROUND_TO_NEAREST_INT)};
}

// vscalefps: p * 2^floor(n), exact for integral n.
HWY_INLINE hn::Vec512<float> TimesPowerOfTwo(hn::Vec512<float> p, hn::Vec512<float> n) {
  return hn::Vec512<float>{_mm512_scalef_ps(p.raw, n.raw)};
}

template <class V>
constexpr float LowestExponentFor() {
  return sizeof(V) == 64 ? kLowestExponentScalef : kLowestExponent;
}
#else
template <class V>
constexpr float LowestExponentFor() {
  return kLowestExponent;
}
#endif

// exp(x) for x <= 0 or x = -inf, lane by lane.
template <class D>
HWY_INLINE hn::Vec<D> ExpNonPositive(D d, hn::Vec<D> x) {
  using V = hn::Vec<D>;
  const V t = hn::Max(hn::Mul(x, hn::Set(d, 1.44269504f)), hn::Set(d, LowestExponentFor<V>()));
  const V f = FractionOfExponent(t);
  const V n = hn::Sub(t, f);  // exact: an integer
  V p = hn::Set(d, 1.326472731e-3f);
  p = hn::MulAdd(p, f, hn::Set(d, 9.671512991e-3f));
  p = hn::MulAdd(p, f, hn::Set(d, 5.550733581e-2f));
  p = hn::MulAdd(p, f, hn::Set(d, 2.402224243e-1f));
  p = hn::MulAdd(p, f, hn::Set(d, 6.931470037e-1f));
  p = hn::MulAdd(p, f, hn::Set(d, 1.0f));
  return TimesPowerOfTwo(p, n);
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
