// ea_set_max_simd_target and EDGEATTN_MAX_SIMD_TARGET: the kernels run on the
// best supported target at or below the cap, ea_simd_target() says which,
// results stay within the float bound there, and bad names change nothing
// (an unknown name in the environment shows in ea_simd_target()).
// Static builds have one target: a cap at or above it is accepted, a lower
// one is EA_ERR_UNSUPPORTED.
#include <gtest/gtest.h>
#include <stdint.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include <hwy/highway.h>
#include <hwy/targets.h>

#include "edgeattn/edgeattn.h"
#include "planned_operation.h"
#include "reference/random_tensor.h"
#include "reference/reference_attention.h"
#include "simd_targets.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

// One small attention on whatever target is in force, against the reference.
double AttentionError() {
  const AttentionProblem p{20, 70, 16, 8, true, 70, 0.0};
  const std::vector<float> q = RandomTensor(20 * 16, 1), k = RandomTensor(70 * 16, 2),
                           v = RandomTensor(70 * 8, 3);
  const PlannedAttention planned = PlanAttention(
      {EA_DTYPE_F32, 20, 70, 16, 8, EA_MASK_CAUSAL, 0.0f, ea_parallel_for{}, nullptr, nullptr});
  EXPECT_EQ(planned.status, EA_OK);
  std::vector<float> out(20 * 8);
  EXPECT_EQ(ea_attention_run(&planned.plan, q.data(), k.data(), v.data(), 70, out.data(), nullptr),
            EA_OK);
  return NormScaledError(out.data(),
                         ReferenceAttention(p, q.data(), 16, k.data(), 16, v.data(), 8).out);
}

std::string Lowercase(std::string name) {
  for (char& c : name) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return name;
}

TEST(SimdTargetCap, UnknownNamesAreRefusedAndChangeNothing) {
  const std::string before = ea_simd_target();
  for (const char* name : {"AVX9", "Unknown", "AVX2 ", "x"}) {
    EXPECT_EQ(ea_set_max_simd_target(name), EA_ERR_BAD_ARGUMENT) << name;
    EXPECT_EQ(before, ea_simd_target()) << name;
  }
  // Another architecture's target is unknown here.
#if HWY_ARCH_X86
  EXPECT_EQ(ea_set_max_simd_target("NEON"), EA_ERR_BAD_ARGUMENT);
#else
  EXPECT_EQ(ea_set_max_simd_target("AVX2"), EA_ERR_BAD_ARGUMENT);
#endif
}

#if defined(EDGEATTN_STATIC_DISPATCH)

TEST(SimdTargetCap, StaticBuildsHaveOneTarget) {
  const char* only = hwy::TargetName(HWY_STATIC_TARGET);
  EXPECT_EQ(ea_set_max_simd_target(only), EA_OK);
  EXPECT_EQ(ea_set_max_simd_target(Lowercase(only).c_str()), EA_OK);
  EXPECT_EQ(ea_set_max_simd_target(nullptr), EA_OK);
  EXPECT_STREQ(ea_simd_target(), only);
  if (HWY_STATIC_TARGET != HWY_SCALAR) {
    EXPECT_EQ(ea_set_max_simd_target("SCALAR"), EA_ERR_UNSUPPORTED);
  }
  EXPECT_STREQ(ea_simd_target(), only);
  EXPECT_LE(AttentionError(), kFloatErrorBound);
}

#else

class SimdTargetCapDynamic : public testing::Test {
 protected:
  void TearDown() override {
    unsetenv("EDGEATTN_MAX_SIMD_TARGET");
    EXPECT_EQ(ea_set_max_simd_target(nullptr), EA_OK);
  }
};

TEST_F(SimdTargetCapDynamic, EachSupportedTargetCanBeTheCap) {
  const std::string best = ea_simd_target();
  for (int64_t target : TargetsUnderTest()) {
    const char* name = hwy::TargetName(target);
    SCOPED_TRACE(name);
    ASSERT_EQ(ea_set_max_simd_target(Lowercase(name).c_str()), EA_OK);
    // The CPU supports this target, so it is the best one at or below itself.
    EXPECT_STREQ(ea_simd_target(), name);
    EXPECT_LE(AttentionError(), kFloatErrorBound);
    EXPECT_STREQ(ea_simd_target(), name);  // planning and running kept it
  }
  ASSERT_EQ(ea_set_max_simd_target(""), EA_OK);
  EXPECT_EQ(best, ea_simd_target());
}

TEST_F(SimdTargetCapDynamic, CapAboveTheCpuKeepsTheBestTarget) {
  const std::string best = ea_simd_target();
  // The best target Highway 1.0.3 knows on x86, supported or not.
  ASSERT_EQ(ea_set_max_simd_target("AVX3_DL"), EA_OK);
  EXPECT_EQ(best, ea_simd_target());
}

TEST_F(SimdTargetCapDynamic, EnvironmentVariableSetsTheCapUntilACallOverrides) {
  const std::vector<int64_t> targets = TargetsUnderTest();
  ASSERT_GE(targets.size(), 2u) << "needs two targets";
  const int64_t lower = targets[1];  // second best
  const std::string best = ea_simd_target();
  ASSERT_EQ(setenv("EDGEATTN_MAX_SIMD_TARGET", hwy::TargetName(lower), 1), 0);
  EXPECT_STREQ(ea_simd_target(), hwy::TargetName(lower));
  EXPECT_LE(AttentionError(), kFloatErrorBound);
  // An explicit call wins over the environment ...
  ASSERT_EQ(ea_set_max_simd_target("SCALAR"), EA_OK);
  EXPECT_STREQ(ea_simd_target(), "SCALAR");
  // ... and NULL hands control back to it.
  ASSERT_EQ(ea_set_max_simd_target(nullptr), EA_OK);
  EXPECT_STREQ(ea_simd_target(), hwy::TargetName(lower));
  ASSERT_EQ(unsetenv("EDGEATTN_MAX_SIMD_TARGET"), 0);
  EXPECT_EQ(best, ea_simd_target());
}

// A name the library does not know, in the environment, sets no cap, and
// ea_simd_target() says so after the target's name (0.9.1 said nothing: a
// benchmark under "AVX512" silently measured AVX3_DL).
TEST_F(SimdTargetCapDynamic, UnknownEnvironmentNamesAreIgnoredVisibly) {
  const std::string best = ea_simd_target();
  const std::string noted = best + " (EDGEATTN_MAX_SIMD_TARGET unknown: ignored)";
  for (const char* typo : {"AVX512", "sse2", "bogus", "AVX2 ", "Unknown"}) {
    SCOPED_TRACE(typo);
    ASSERT_EQ(setenv("EDGEATTN_MAX_SIMD_TARGET", typo, 1), 0);
    EXPECT_EQ(ea_simd_target(), noted);
    EXPECT_LE(AttentionError(), kFloatErrorBound);  // on the best target: no cap
    EXPECT_EQ(ea_simd_target(), noted);
  }
  // An explicit cap is in force instead: the environment is not read, no note.
  const char* lowest = hwy::TargetName(TargetsUnderTest().back());
  ASSERT_EQ(ea_set_max_simd_target(lowest), EA_OK);
  EXPECT_STREQ(ea_simd_target(), lowest);
  ASSERT_EQ(ea_set_max_simd_target(nullptr), EA_OK);
  EXPECT_EQ(ea_simd_target(), noted);
  // A known name, any case, or an empty variable: no note.
  ASSERT_EQ(setenv("EDGEATTN_MAX_SIMD_TARGET", Lowercase(best).c_str(), 1), 0);
  EXPECT_EQ(ea_simd_target(), best);
  ASSERT_EQ(setenv("EDGEATTN_MAX_SIMD_TARGET", "", 1), 0);
  EXPECT_EQ(ea_simd_target(), best);
}

#endif  // EDGEATTN_STATIC_DISPATCH

}  // namespace
}  // namespace edgeattn_test
