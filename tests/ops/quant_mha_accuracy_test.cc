// Accuracy of the fixed-point chain against float: for every golden case,
// the library's int8/int16 y dequantized, against the library's float32 MHA
// on the same dequantized inputs (x_emb, the quantized position table as a
// learned table, weights, biases), in output LSBs. Prints one line per case
// and checks it against the TFLite golden data's own float32 comparison.
#include <gtest/gtest.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "data/tflite/golden_cases.h"
#include "edgeattn/edgeattn.h"
#include "reference/quant_mha_fixture.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

using tflite_golden::GoldenCase;

float Dequantized(int32_t q, ea_quant quant) {
  return quant.scale * static_cast<float>(q - quant.zero_point);
}

// The float32 engine on the case's dequantized tensors.
std::vector<float> FloatMha(const QuantMhaCase& c, const std::vector<int32_t>& pe) {
  const size_t e = static_cast<size_t>(c.d_model);
  const size_t n = static_cast<size_t>(c.n);
  std::vector<float> x(n * e), table(n * e), in_w(3 * e * e), in_b(3 * e), out_w(e * e), out_b(e);
  for (size_t i = 0; i < n * e; ++i) {
    x[i] = Dequantized(c.x_emb[i], c.scales.input);
    table[i] = Dequantized(pe[i], c.scales.position);
  }
  const float s_x = c.scales.positioned.scale;
  for (size_t r = 0; r < 3 * e; ++r) {
    for (size_t i = 0; i < e; ++i) in_w[r * e + i] = c.in_proj[r * e + i] * c.in_scales[r];
    in_b[r] = static_cast<float>(c.in_bias[r]) * (s_x * c.in_scales[r]);
  }
  for (size_t r = 0; r < e; ++r) {
    for (size_t i = 0; i < e; ++i) out_w[r * e + i] = c.out_proj[r * e + i] * c.out_scales[r];
    out_b[r] = static_cast<float>(c.out_bias[r]) * (c.scales.context.scale * c.out_scales[r]);
  }
  ea_mha_config config{};
  config.dtype = EA_DTYPE_F32;
  config.max_tokens = c.n;
  config.d_model = c.d_model;
  config.n_heads = c.heads;
  config.mask = c.causal ? EA_MASK_CAUSAL : EA_MASK_NONE;
  config.position = EA_POSITION_LEARNED;
  config.position_table = table.data();
  size_t bytes = 0;
  EXPECT_EQ(ea_mha_arena_size(&config, &bytes), EA_OK);
  AlignedBytes storage(bytes);
  ea_arena arena;
  ea_arena_init(&arena, storage.data(), bytes);
  ea_mha_plan plan{};
  const ea_mha_weights weights =
      edgeattn_test::InProjWeights(in_w.data(), in_b.data(), out_w.data(), out_b.data());
  EXPECT_EQ(ea_mha_init(&plan, &config, &weights, &arena), EA_OK);
  std::vector<float> y(n * e);
  EXPECT_EQ(ea_mha_run(&plan, x.data(), c.n, c.n, y.data(), nullptr), EA_OK);
  return y;
}

class QuantMhaAccuracy : public testing::TestWithParam<int> {};

TEST_P(QuantMhaAccuracy, OutputLsbsAgainstTheFloatEngineAreTflitesOwn) {
  const GoldenCase& g = tflite_golden::kGoldenCases[GetParam()];
  if (g.blobs.x_emb.data == nullptr || g.blobs.y.data == nullptr) {
    GTEST_SKIP() << g.name << ": not embedded in this small-memory build";
  }
  const QuantMhaCase c = FromGolden(g);
  const QuantMhaCase::Result fixed = c.Run();
  ASSERT_EQ(fixed.status, EA_OK);
  const std::vector<float> y_float = FloatMha(c, fixed.pe);
  double max_lsb = 0, sum_lsb = 0;
  for (size_t i = 0; i < y_float.size(); ++i) {
    const double lsb =
        std::fabs(Dequantized(fixed.y[i], c.scales.output) - y_float[i]) / c.scales.output.scale;
    max_lsb = std::max(max_lsb, lsb);
    sum_lsb += lsb;
  }
  const double mean_lsb = sum_lsb / static_cast<double>(y_float.size());
  printf("[ accuracy ] %-40s %s y vs edgeattn float32: max %.2f, mean %.2f LSB\n", g.name,
         c.dtype == EA_DTYPE_INT8 ? "int8 " : "int16", max_lsb, mean_lsb);
  // The same comparison TFLite's golden data made with its own float32
  // attention: the integers are identical, so only float rounding (far below
  // an output LSB) may separate the two.
  EXPECT_NEAR(max_lsb, g.y_vs_float_max_lsb, 0.05 + 1e-3 * g.y_vs_float_max_lsb) << g.name;
  EXPECT_NEAR(mean_lsb, g.y_vs_float_mean_lsb, 0.01 + 1e-3 * g.y_vs_float_mean_lsb) << g.name;
}

INSTANTIATE_TEST_SUITE_P(Tflite, QuantMhaAccuracy,
                         testing::Range(0, tflite_golden::kGoldenCaseCount),
                         [](const testing::TestParamInfo<int>& info) {
                           return std::string(tflite_golden::kGoldenCases[info.param].name);
                         });

}  // namespace
}  // namespace edgeattn_test
