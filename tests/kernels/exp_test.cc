// The softmax's exponential (src/kernels/f32/exp_f32-inl.h) against double-precision
// exp, on every SIMD target: the accuracy its header promises, at the edges of
// its range and on a dense sweep of it.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/exp_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "kernels/f32/exp_f32-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn_test {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// y[i] = ExpNonPositive(x[i]), whole vectors only (count is a multiple of 64).
void ExpOfEach(const float* x, float* y, size_t count) {
  const hn::ScalableTag<float> d;
  for (size_t i = 0; i < count; i += hn::Lanes(d)) {
    hn::StoreU(edgeattn::HWY_NAMESPACE::ExpNonPositive(d, hn::LoadU(d, x + i)), d, y + i);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn_test
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <float.h>
#include <math.h>

#include <limits>
#include <vector>

#include "runtime/dispatch.h"
#include "simd_targets.h"

namespace edgeattn_test {

EA_EXPORT(ExpOfEach);

namespace {

// Rounded up to whole 64-float vectors (the widest target's), padded with 0.
std::vector<float> ExpOf(std::vector<float> x) {
  x.resize((x.size() + 63) / 64 * 64, 0.0f);
  std::vector<float> y(x.size());
  EA_DISPATCH(ExpOfEach)(x.data(), y.data(), x.size());
  return y;
}

// The header's bound: 3e-7 relative, plus the rounding of x log2(e) and of log2(e).
double RelativeBound(double x) { return 3e-7 + fabs(x) * 0x1p-23; }

// Below this, results may flush to 0 (they are under 2^-126).
constexpr double kLowestNormalArgument = -87.3365447505531;  // log(2^-126)

class ExpNonPositive : public PerTargetTest {};

TEST_P(ExpNonPositive, DenseSweepIsWithinTheRelativeBound) {
  std::vector<float> x;
  for (int i = 0; i <= 400000; ++i) x.push_back(static_cast<float>(-88.0 * i / 400000.0));
  const std::vector<float> y = ExpOf(x);
  double worst = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double exact = exp(static_cast<double>(x[i]));
    if (x[i] >= kLowestNormalArgument) {
      const double error = fabs(y[i] - exact) / exact;
      ASSERT_LE(error, RelativeBound(x[i])) << "x = " << x[i] << ": " << y[i] << " vs " << exact;
      if (x[i] > -1.0f && error > worst) worst = error;
    } else {
      ASSERT_GE(y[i], 0.0f) << "x = " << x[i];
      ASSERT_LE(y[i], 2.0 * exact + 0x1p-149) << "x = " << x[i];
    }
  }
  // Near 0, where the softmax's large weights are, the polynomial alone counts.
  EXPECT_LE(worst, 3e-7);
}

TEST_P(ExpNonPositive, EdgesOfTheRange) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {0.0f,    -0.0f,   -1e-30f, -FLT_MIN, -0.5f,    -88.5f,
                                -100.0f, -105.0f, -1e4f,   -1e30f,   -FLT_MAX, -inf};
  const std::vector<float> y = ExpOf(x);
  EXPECT_EQ(y[0], 1.0f) << "the row maximum's weight is exactly 1";
  EXPECT_EQ(y[1], 1.0f);
  EXPECT_EQ(y[2], 1.0f);
  EXPECT_EQ(y[3], 1.0f);
  EXPECT_NEAR(y[4], exp(-0.5), exp(-0.5) * RelativeBound(-0.5));
  // Below 2^-126: 0 or a denormal near the true value.
  for (size_t i = 5; i <= 6; ++i) {
    EXPECT_GE(y[i], 0.0f) << "x = " << x[i];
    EXPECT_LE(y[i], 2.0 * exp(static_cast<double>(x[i])) + 0x1p-149) << "x = " << x[i];
  }
  for (size_t i = 7; i < x.size(); ++i) EXPECT_EQ(y[i], 0.0f) << "x = " << x[i];
}

TEST_P(ExpNonPositive, EveryLaneIsComputedOnItsOwn) {
  // Neighbouring lanes of very different magnitude must not interact.
  std::vector<float> x(256);
  for (size_t i = 0; i < x.size(); ++i) x[i] = (i % 2 == 0) ? -0.25f * (i % 7) : -80.0f + i % 5;
  const std::vector<float> y = ExpOf(x);
  for (size_t i = 0; i < x.size(); ++i) {
    const double exact = exp(static_cast<double>(x[i]));
    EXPECT_NEAR(y[i], exact, exact * RelativeBound(x[i])) << "lane " << i;
  }
}

EA_INSTANTIATE_PER_TARGET(ExpNonPositive);

}  // namespace
}  // namespace edgeattn_test
#endif  // HWY_ONCE
