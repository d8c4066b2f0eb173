// The C API from C: examples/c_usage.c is compiled as C11 with -pedantic
// (proving the public header is plain C) and its result is checked against
// the double-precision reference. Also pins the version macros.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "../examples/c_usage.h"
#include "edgeattn/edgeattn.h"
#include "reference/random_tensor.h"
#include "reference/reference_attention.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

TEST(CApi, ReadmeExampleMatchesReference) {
  const int n = C_USAGE_TOKENS, e = C_USAGE_D_MODEL, h = C_USAGE_HEADS;
  const std::vector<float> in_w = RandomTensor(3 * e * e, 1, 0.25);
  const std::vector<float> in_b = RandomTensor(3 * e, 2, 0.1);
  const std::vector<float> out_w = RandomTensor(e * e, 3, 0.25);
  const std::vector<float> out_b = RandomTensor(e, 4, 0.1);
  const std::vector<float> x = RandomTensor(n * e, 5);
  const ea_mha_weights weights =
      edgeattn_test::InProjWeights(in_w.data(), in_b.data(), out_w.data(), out_b.data());

  const ea_mha_config config{EA_DTYPE_F32,
                             n,
                             e,
                             h,
                             EA_MASK_CAUSAL,
                             EA_POSITION_SINUSOIDAL,
                             nullptr,
                             EA_WEIGHTS_ROW_MAJOR,
                             ea_parallel_for{},
                             nullptr,
                             nullptr,
                             nullptr};
  size_t needed = 0;
  ASSERT_EQ(ea_mha_arena_size(&config, &needed), EA_OK);
  EXPECT_LE(needed, c_usage_arena_capacity());

  std::vector<float> y(n * e, NAN);
  ASSERT_EQ(c_usage_mha(&weights, x.data(), y.data()), EA_OK);

  const std::vector<double> table = ReferenceSinusoidal(n, e);
  const std::vector<float> table_f(table.begin(), table.end());
  const ReferenceMhaProblem problem{
      n, e, h, true, n, in_w.data(), in_b.data(), out_w.data(), out_b.data(), table_f.data()};
  EXPECT_LE(NormScaledError(y.data(), ReferenceMha(problem, x.data()).out), kFloatErrorBound);
}

TEST(CApi, VersionMacrosAgree) {
  char expected[32];
  std::snprintf(expected, sizeof expected, "%d.%d.%d", EDGEATTN_VERSION_MAJOR,
                EDGEATTN_VERSION_MINOR, EDGEATTN_VERSION_PATCH);
  EXPECT_STREQ(EDGEATTN_VERSION_STRING, expected);
  EXPECT_EQ(EDGEATTN_VERSION,
            EDGEATTN_VERSION_MAJOR * 10000 + EDGEATTN_VERSION_MINOR * 100 + EDGEATTN_VERSION_PATCH);
}

}  // namespace
}  // namespace edgeattn_test
