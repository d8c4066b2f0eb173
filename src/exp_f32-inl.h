// exp(x) for x <= 0, the one exponential of the float softmax, on every target.
//
// The softmax only ever exponentiates differences s - max <= 0, so the range
// reduction needs no overflow branch: t = x log2(e), clamped at -127, splits
// into n = round(t) and f = t - n in [-0.5, 0.5]; 2^f is a degree-5 polynomial
// (a minimax fit of relative error on [-0.5, 0.5] with p(0) = 1 exactly, so the
// row maximum's weight is exactly 1), and 2^n is built in the exponent bits.
// 13 plain Highway ops, against about twice that for the contrib Exp, whose
// accuracy (8e-8) the 1e-5 attention tolerance does not need.
//
// Accuracy (tests/exp_test.cc, every target): relative error below
// 3e-7 + |x| 2^-23 (the second term: the rounding of x log2(e) and of the
// constant log2(e); the input s - max carries |s| 2^-24 anyway). Results
// below 2^-126 may flush to 0; exp(-inf) = 0; x = 0 gives exactly 1. NaN input
// is not allowed (the softmax never passes one: see online_softmax-inl.h).

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

// exp(x) for x <= 0 or x = -inf, lane by lane.
template <class D>
HWY_INLINE hn::Vec<D> ExpNonPositive(D d, hn::Vec<D> x) {
  const hn::RebindToSigned<D> di;
  // -127 makes 2^n's exponent field 0, i.e. the result exactly 0.
  const auto t = hn::Max(hn::Mul(x, hn::Set(d, 1.44269504f)), hn::Set(d, -127.0f));
  const auto n = hn::Round(t);
  const auto f = hn::Sub(t, n);  // exact: [-0.5, 0.5]
  auto p = hn::Set(d, 1.326472731e-3f);
  p = hn::MulAdd(p, f, hn::Set(d, 9.671512991e-3f));
  p = hn::MulAdd(p, f, hn::Set(d, 5.550733581e-2f));
  p = hn::MulAdd(p, f, hn::Set(d, 2.402224243e-1f));
  p = hn::MulAdd(p, f, hn::Set(d, 6.931470037e-1f));
  p = hn::MulAdd(p, f, hn::Set(d, 1.0f));
  const auto biased = hn::Add(hn::ConvertTo(di, n), hn::Set(di, 127));  // [0, 127]
  return hn::Mul(p, hn::BitCast(d, hn::ShiftLeft<23>(biased)));
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
