// The AVX512-VNNI int16 P V row's split path (src/fixed_point/vnni_s16-inl.h),
// taken by rows whose probabilities sum to 2^16 or more. A real softmax's sum
// to about 2^15, so only a direct call reaches it: the row function is
// compiled here in Highway's AVX3_DL pass, as attention_sq.cc compiles it, and
// checked against the reference's BATCH_MATMUL with probabilities over
// [20000, 32767] and V over the whole int16 range. Other targets have no such
// path (the test says so and skips).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "vnni_s16_context_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#if HWY_TARGET == HWY_AVX3_DL
#include "fixed_point/vnni_s16-inl.h"
#endif

HWY_BEFORE_NAMESPACE();
namespace edgeattn_test {
namespace HWY_NAMESPACE {

// out[t] = requantised sum_j probs[j] v[j][t] through ContextRowS16; false
// where the target has no such row.
bool ContextRowS16OnTarget(const int16_t* probs, int32_t n_keys, int32_t prob_sum,
                           const int16_t* v_pairs, int32_t d_v, int32_t multiplier, int32_t shift,
                           int16_t* out) {
#if HWY_TARGET == HWY_AVX3_DL
  edgeattn::vnni::ContextRowS16(probs, n_keys, prob_sum, v_pairs,
                                static_cast<size_t>((n_keys + 1) / 2) * 32, d_v,
                                edgeattn::vnni::MakeRequantize64(multiplier, shift), out);
  return true;
#else
  (void)probs, (void)n_keys, (void)prob_sum, (void)v_pairs, (void)d_v, (void)multiplier,
      (void)shift, (void)out;
  return false;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn_test
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <gtest/gtest.h>

#include <vector>

#include "dispatch.h"
#include "fixed_point/fixed_point_kernels.h"
#include "fixed_point/s16_panels.h"
#include "reference/random_tensor.h"
#include "reference/tflite_chain_reference.h"

namespace edgeattn_test {

EA_EXPORT(ContextRowS16OnTarget);

namespace {

int32_t Draw(RandomStream* random, int32_t lo, int32_t hi) {
  return static_cast<int32_t>(lo + random->Uniform() * (static_cast<double>(hi) - lo + 1.0));
}

TEST(VnniS16Context, SplitPathForLargeProbabilitySums) {
  if (!edgeattn::UsesS8Panels()) GTEST_SKIP() << "this CPU has no AVX512-VNNI";
  RandomStream random(5151);
  for (const int n_keys : {1, 2, 131, 300}) {
    const int d_v = 83;  // a pass of 64 columns, one of 16, a tail of 3
    std::vector<int16_t> probs(n_keys), v(static_cast<size_t>(n_keys) * d_v);
    int32_t sum = 0;
    for (int16_t& p : probs) {
      p = static_cast<int16_t>(Draw(&random, 20000, 32767));
      sum += p;
    }
    for (int16_t& x : v) x = static_cast<int16_t>(Draw(&random, -32768, 32767));
    std::vector<int16_t> pairs(edgeattn::S16PanelValues(d_v, n_keys));
    edgeattn::PackS16PanelsTransposed(v.data(), static_cast<size_t>(d_v), d_v, n_keys,
                                      pairs.data());
    std::vector<int16_t> v_t(static_cast<size_t>(d_v) * n_keys);
    for (int j = 0; j < n_keys; ++j) {
      for (int t = 0; t < d_v; ++t) {
        v_t[static_cast<size_t>(t) * n_keys + j] = v[static_cast<size_t>(j) * d_v + t];
      }
    }
    for (const int32_t shift : {-31, -20, -9, 0, 7}) {
      const tflite_ref::BatchMatMulParams ref{0, 0, 0, 1 << 30, shift};
      const std::vector<int16_t> want =
          tflite_ref::BatchMatMul(ref, probs.data(), 1, n_keys, v_t.data(), d_v);
      std::vector<int16_t> out(d_v, 0x5555);
      ASSERT_TRUE(EA_DISPATCH(ContextRowS16OnTarget)(probs.data(), n_keys, sum, pairs.data(), d_v,
                                                     1 << 30, shift, out.data()));
      ASSERT_EQ(out, want) << n_keys << " keys, probabilities summing to " << sum << ", shift "
                           << shift;
    }
  }
}

}  // namespace
}  // namespace edgeattn_test
#endif  // HWY_ONCE
