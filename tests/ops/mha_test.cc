// Multi-head and single-head self-attention against the double-precision
// reference on every SIMD target: with and without biases, causal, key
// padding, runs shorter than the planned maximum, and each kind of position
// table (none, sinusoidal filled at plan time, sinusoidal from a constant
// table, learned).
#include <gtest/gtest.h>

#include <vector>

#include "edgeattn/edgeattn.hpp"
#include "model_fixture.h"
#include "reference/random_tensor.h"
#include "reference/reference_attention.h"
#include "simd_targets.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

struct MhaCase {
  int n, d_model, heads;
};

class MhaPerTarget : public PerTargetTest {};

TEST_P(MhaPerTarget, MatchesReferenceAcrossShapesMasksAndBiases) {
  const MhaCase cases[] = {{1, 8, 1}, {17, 32, 4}, {63, 48, 3}, {65, 64, 2}, {255, 64, 4}};
  uint64_t seed = 500;
  for (const MhaCase& c : cases) {
    for (bool causal : {false, true}) {
      for (bool bias : {false, true}) {
        SCOPED_TRACE(testing::Message() << "n=" << c.n << " E=" << c.d_model << " h=" << c.heads
                                        << " causal=" << causal << " bias=" << bias);
        const MhaModel model(c.d_model, c.heads, bias, seed);
        const std::vector<float> x = RandomTensor(static_cast<size_t>(c.n) * c.d_model, seed + 9);
        seed += 10;
        const ea_mha_config config{EA_DTYPE_F32,
                                   c.n,
                                   c.d_model,
                                   c.heads,
                                   causal ? EA_MASK_CAUSAL : EA_MASK_NONE,
                                   EA_POSITION_NONE,
                                   nullptr,
                                   EA_WEIGHTS_ROW_MAJOR,
                                   ea_parallel_for{},
                                   nullptr,
                                   nullptr,
                                   nullptr};
        const RunResult run = RunMha(model, config, x, c.n, c.n, /*want_weights=*/true);
        ASSERT_EQ(run.status, EA_OK);
        const ReferenceResult want =
            ReferenceMha(model.Problem(c.n, causal, c.n, nullptr), x.data());
        EXPECT_LE(NormScaledError(run.y.data(), want.out), kFloatErrorBound);
        EXPECT_LE(NormScaledError(run.weights.data(), want.weights), kFloatErrorBound);
      }
    }
  }
}

// W_Q, W_K and W_V as three tensors in buffers of their own (a TFLite
// model's or a Hugging Face checkpoint's form) with no biases, three biases,
// or PyTorch's kdim form's one in_proj_bias: the in_proj matrix's bits, for
// widths whose Q/K and K/V boundaries fall inside a weight panel (48), on
// panel edges (128) and all in one panel (8).
TEST_P(MhaPerTarget, ThreeProjectionTensorsGiveTheInProjBits) {
  const MhaCase cases[] = {{37, 48, 3}, {20, 128, 4}, {5, 8, 1}};
  enum BiasForm { kNoBias, kThreeBiases, kInProjBias };
  uint64_t seed = 550;
  for (const MhaCase& c : cases) {
    for (const BiasForm form : {kNoBias, kThreeBiases, kInProjBias}) {
      const bool bias = form != kNoBias;
      SCOPED_TRACE(testing::Message() << "n=" << c.n << " E=" << c.d_model << " h=" << c.heads
                                      << " bias form=" << form);
      const MhaModel model(c.d_model, c.heads, bias, seed);
      const SeparateProjections three(model.in_proj_weight.data(),
                                      form == kThreeBiases ? model.in_proj_bias.data() : nullptr,
                                      c.d_model, c.d_model);
      ea_mha_weights separate =
          three.View(model.out_proj_weight.data(), bias ? model.out_proj_bias.data() : nullptr);
      if (form == kInProjBias) separate.in_proj_bias = model.in_proj_bias.data();
      const std::vector<float> x = RandomTensor(static_cast<size_t>(c.n) * c.d_model, seed + 9);
      seed += 10;
      ea_mha_config config{};
      config.dtype = EA_DTYPE_F32;
      config.max_tokens = c.n;
      config.d_model = c.d_model;
      config.n_heads = c.heads;
      config.mask = EA_MASK_CAUSAL;
      config.position = EA_POSITION_SINUSOIDAL;
      const RunResult in_proj = RunMha(model, config, x, c.n, c.n, true);
      const RunResult three_tensors = RunMha(model, config, x, c.n, c.n, true, &separate);
      ASSERT_EQ(in_proj.status, EA_OK);
      ASSERT_EQ(three_tensors.status, EA_OK);
      EXPECT_EQ(three_tensors.y, in_proj.y);
      EXPECT_EQ(three_tensors.weights, in_proj.weights);
      const std::vector<double> table = ReferenceSinusoidal(c.n, c.d_model);
      const std::vector<float> table_f(table.begin(), table.end());
      const ReferenceResult want =
          ReferenceMha(model.Problem(c.n, true, c.n, table_f.data()), x.data());
      EXPECT_LE(NormScaledError(three_tensors.y.data(), want.out), kFloatErrorBound);
    }
  }
}

TEST_P(MhaPerTarget, ShorterRunsAndKeyPaddingUseThePlannedArena) {
  const MhaModel model(32, 4, true, 600);
  const ea_mha_config config{EA_DTYPE_F32,
                             100,
                             32,
                             4,
                             EA_MASK_CAUSAL,
                             EA_POSITION_SINUSOIDAL,
                             nullptr,
                             EA_WEIGHTS_ROW_MAJOR,
                             ea_parallel_for{},
                             nullptr,
                             nullptr,
                             nullptr};
  const std::vector<double> table = ReferenceSinusoidal(100, 32);
  const std::vector<float> table_f(table.begin(), table.end());
  const std::vector<float> x = RandomTensor(100 * 32, 601);
  for (int n : {1, 37, 100}) {
    for (int valid : {0, n / 2, n}) {
      SCOPED_TRACE(testing::Message() << "n=" << n << " valid=" << valid);
      const RunResult run = RunMha(model, config, x, n, valid, true);
      ASSERT_EQ(run.status, EA_OK);
      const ReferenceResult want =
          ReferenceMha(model.Problem(n, true, valid, table_f.data()), x.data());
      EXPECT_LE(NormScaledError(run.y.data(), want.out), kFloatErrorBound);
      EXPECT_LE(NormScaledError(run.weights.data(), want.weights), kFloatErrorBound);
    }
  }
}

TEST_P(MhaPerTarget, EveryKindOfPositionTable) {
  constexpr int kTokens = 48, kDModel = 24, kHeads = 2;
  static constexpr auto kConstantTable = edgeattn::MakeSinusoidalTable<kTokens, kDModel>();
  const MhaModel model(kDModel, kHeads, true, 700);
  const std::vector<float> x = RandomTensor(kTokens * kDModel, 701);
  const std::vector<double> sinusoid = ReferenceSinusoidal(kTokens, kDModel);
  const std::vector<float> sinusoid_f(sinusoid.begin(), sinusoid.end());
  const std::vector<float> learned = RandomTensor(kTokens * kDModel, 702, 0.5);

  struct Variant {
    const char* name;
    ea_position position;
    const float* config_table;
    const float* reference_table;
  } variants[] = {
      {"none", EA_POSITION_NONE, nullptr, nullptr},
      {"sinusoidal in arena", EA_POSITION_SINUSOIDAL, nullptr, sinusoid_f.data()},
      {"sinusoidal constant", EA_POSITION_SINUSOIDAL, kConstantTable.values, sinusoid_f.data()},
      {"learned", EA_POSITION_LEARNED, learned.data(), learned.data()},
  };
  for (const Variant& v : variants) {
    SCOPED_TRACE(v.name);
    const ea_mha_config config{EA_DTYPE_F32,      kTokens,    kDModel,        kHeads,
                               EA_MASK_NONE,      v.position, v.config_table, EA_WEIGHTS_ROW_MAJOR,
                               ea_parallel_for{}, nullptr,    nullptr,        nullptr};
    const RunResult run = RunMha(model, config, x, kTokens, kTokens, false);
    ASSERT_EQ(run.status, EA_OK);
    const ReferenceResult want =
        ReferenceMha(model.Problem(kTokens, false, kTokens, v.reference_table), x.data());
    EXPECT_LE(NormScaledError(run.y.data(), want.out), kFloatErrorBound);
  }
}

TEST_P(MhaPerTarget, SelfAttentionMatchesReference) {
  struct Case {
    int n, d_model, d_k, d_v;
  } cases[] = {{1, 16, 8, 8}, {17, 20, 7, 13}, {65, 64, 64, 64}, {130, 32, 17, 5}};
  uint64_t seed = 800;
  for (const Case& c : cases) {
    for (bool causal : {false, true}) {
      for (ea_position position : {EA_POSITION_NONE, EA_POSITION_SINUSOIDAL, EA_POSITION_LEARNED}) {
        SCOPED_TRACE(testing::Message()
                     << "n=" << c.n << " d_model=" << c.d_model << " d_k=" << c.d_k
                     << " d_v=" << c.d_v << " causal=" << causal << " position=" << position);
        const SelfAttentionModel model(c.d_model, c.d_k, c.d_v, causal, seed);
        const std::vector<float> x = RandomTensor(static_cast<size_t>(c.n) * c.d_model, seed + 7);
        const std::vector<float> learned =
            RandomTensor(static_cast<size_t>(c.n) * c.d_model, seed + 8, 0.5);
        seed += 10;
        const std::vector<double> sinusoid = ReferenceSinusoidal(c.n, c.d_model);
        const std::vector<float> sinusoid_f(sinusoid.begin(), sinusoid.end());
        const float* reference_table = position == EA_POSITION_NONE      ? nullptr
                                       : position == EA_POSITION_LEARNED ? learned.data()
                                                                         : sinusoid_f.data();
        const ea_self_attention_config config{
            EA_DTYPE_F32,
            c.n,
            c.d_model,
            c.d_k,
            c.d_v,
            causal ? EA_MASK_CAUSAL : EA_MASK_NONE,
            position,
            position == EA_POSITION_LEARNED ? learned.data() : nullptr,
            EA_WEIGHTS_ROW_MAJOR,
            ea_parallel_for{},
            nullptr,
            nullptr,
            nullptr};
        const int valid = c.n - c.n / 4;
        const RunResult run = RunSelfAttention(model, config, x, c.n, valid, true);
        ASSERT_EQ(run.status, EA_OK);
        const ReferenceResult want = model.Reference(x.data(), c.n, causal, valid, reference_table);
        EXPECT_LE(NormScaledError(run.y.data(), want.out), kFloatErrorBound);
        EXPECT_LE(NormScaledError(run.weights.data(), want.weights), kFloatErrorBound);
      }
    }
  }
}

EA_INSTANTIATE_PER_TARGET(MhaPerTarget);

}  // namespace
}  // namespace edgeattn_test
