// PyTorch as an outside oracle for multi-head attention. tests/reference/ is our
// own reading of the formulas; these golden values come from
// torch.nn.MultiheadAttention itself (tools/gen_torch_golden.py), so a shared
// misreading of the weight layout, head split, scale or mask direction would
// still be caught. Every case runs on every SIMD target.
#include <gtest/gtest.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <vector>

#include "edgeattn/edgeattn.h"
#include "reference/reference_attention.h"
#include "simd_targets.h"
#include "test_support.h"

namespace {

#include "golden/torch_mha_cases.inc"

using torch_golden::kTorchMhaCases;
using torch_golden::TorchMhaCase;

// The documented float32 bound (test_support.h) holds against float64 PyTorch too.
using edgeattn_test::kFloatErrorBound;

std::vector<double> ToDouble(const float* values, size_t count) {
  return std::vector<double>(values, values + count);
}

class TorchGoldenMhaTest : public edgeattn_test::PerTargetTest {};

TEST_P(TorchGoldenMhaTest, MatchesTorchMultiheadAttention) {
  for (const TorchMhaCase& c : kTorchMhaCases) {
    SCOPED_TRACE(c.name);
    const size_t n = static_cast<size_t>(c.n);
    const size_t e = static_cast<size_t>(c.d_model);
    const size_t weight_count = static_cast<size_t>(c.heads) * n * n;

    ea_mha_config config{};
    config.dtype = EA_DTYPE_F32;
    config.max_tokens = c.n;
    config.d_model = c.d_model;
    config.n_heads = c.heads;
    config.mask = c.causal ? EA_MASK_CAUSAL : EA_MASK_NONE;
    config.position = EA_POSITION_NONE;
    config.position_table = nullptr;

    ea_mha_weights weights{};
    weights.in_proj_weight = c.in_proj_weight;
    weights.in_proj_bias = c.in_proj_bias;
    weights.out_proj_weight = c.out_proj_weight;
    weights.out_proj_bias = c.out_proj_bias;

    size_t arena_bytes = 0;
    ASSERT_EQ(ea_mha_arena_size(&config, &arena_bytes), EA_OK);
    edgeattn_test::AlignedBytes buffer(arena_bytes);
    ea_arena arena{};
    ASSERT_EQ(ea_arena_init(&arena, buffer.data(), arena_bytes), EA_OK);
    ea_mha_plan plan{};
    ASSERT_EQ(ea_mha_init(&plan, &config, &weights, &arena), EA_OK);

    std::vector<float> y(n * e, -1.0f);
    std::vector<float> attn_weights(weight_count, -1.0f);
    ASSERT_EQ(ea_mha_run(&plan, c.x, c.n, c.n, y.data(), attn_weights.data()), EA_OK);

    const double y_error = edgeattn_test::NormScaledError(y.data(), ToDouble(c.y, n * e));
    const double w_error =
        edgeattn_test::NormScaledError(attn_weights.data(), ToDouble(c.attn_weights, weight_count));
    printf("[ torch    ] %-8s %-26s y err %.3g, weights err %.3g\n", ea_simd_target(), c.name,
           y_error, w_error);
    EXPECT_LE(y_error, kFloatErrorBound);
    EXPECT_LE(w_error, kFloatErrorBound);
  }
}

EA_INSTANTIATE_PER_TARGET(TorchGoldenMhaTest);

}  // namespace
