// Runs a test on every SIMD target the library was compiled for and this CPU
// supports (SCALAR, SSSE3, SSE4, AVX2, AVX3, AVX3_DL on an AVX-512 VNNI host),
// not only on the one dynamic dispatch would pick. Static-dispatch builds
// (firmware, cross targets) have exactly one target: the one -march chose.
#ifndef EDGEATTN_TESTS_SIMD_TARGETS_H_
#define EDGEATTN_TESTS_SIMD_TARGETS_H_

#include <gtest/gtest.h>
#include <stdint.h>

#include <string>
#include <vector>

#include <hwy/highway.h>  // HWY_STATIC_TARGET
#include <hwy/targets.h>

#include "edgeattn/edgeattn.h"

namespace edgeattn_test {

#if defined(EDGEATTN_STATIC_DISPATCH)
inline std::vector<int64_t> TargetsUnderTest() { return {HWY_STATIC_TARGET}; }
inline void ForceTarget(int64_t) {}
#else
// Test-suite parameter: a Highway target bit.
inline std::vector<int64_t> TargetsUnderTest() { return hwy::SupportedAndGeneratedTargets(); }
// 0 lifts the restriction.
inline void ForceTarget(int64_t target) { hwy::SetSupportedTargetsForTest(target); }
#endif

inline std::string TargetParamName(const testing::TestParamInfo<int64_t>& info) {
  return hwy::TargetName(info.param);
}

// Fixture base: forces the target for the test body and checks that the
// library's dispatcher really runs it.
class PerTargetTest : public testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override {
    ForceTarget(GetParam());
    ASSERT_STREQ(ea_simd_target(), hwy::TargetName(GetParam()));
  }
  void TearDown() override { ForceTarget(0); }
};

#define EA_INSTANTIATE_PER_TARGET(suite)                                                           \
  INSTANTIATE_TEST_SUITE_P(Targets, suite, testing::ValuesIn(::edgeattn_test::TargetsUnderTest()), \
                           ::edgeattn_test::TargetParamName)

}  // namespace edgeattn_test

#endif  // EDGEATTN_TESTS_SIMD_TARGETS_H_
