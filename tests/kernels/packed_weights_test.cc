// Packed weights (ea_linear_pack_weights, EA_WEIGHTS_PACKED): the packing
// against the layout the header documents, its bad input, and model plans
// fed packed weights against the same weights row-major, on every target.
#include <gtest/gtest.h>
#include <stdint.h>

#include <cstring>
#include <iterator>
#include <vector>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "edgeattn/packed_weights.hpp"
#include "model_fixture.h"
#include "planned_operation.h"
#include "reference/random_tensor.h"
#include "simd_targets.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

// The header's words: W [n_out, n_in] transposed in panels of 64 output rows,
// n_in x 64 floats each, the last panel padded with zeros.
std::vector<float> PackedByTheDocumentedLayout(const std::vector<float>& w, int n_out, int n_in) {
  const int panels = (n_out + 63) / 64;
  std::vector<float> packed(static_cast<size_t>(panels) * n_in * 64, 0.0f);
  for (int o = 0; o < n_out; ++o) {
    for (int i = 0; i < n_in; ++i) {
      packed[(static_cast<size_t>(o / 64) * n_in + i) * 64 + o % 64] =
          w[static_cast<size_t>(o) * n_in + i];
    }
  }
  return packed;
}

std::vector<float> Packed(const std::vector<float>& w, int n_out, int n_in) {
  size_t floats = 0;
  EXPECT_EQ(ea_linear_packed_size(n_out, n_in, &floats), EA_OK);
  std::vector<float> packed(floats, -1.0f);
  EXPECT_EQ(ea_linear_pack_weights(w.data(), n_out, n_in, packed.data(), floats), EA_OK);
  return packed;
}

// Packed by the compiler: the same floats as ea_linear_pack_weights, and a
// constant expression (firmware puts it in flash).
constexpr float kSmallW[3 * 5] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
constexpr auto kSmallPacked = edgeattn::PackLinearWeights<3, 5>(kSmallW);
static_assert(kSmallPacked.kFloats == 5 * 64, "");
static_assert(kSmallPacked.values[0] == 1 && kSmallPacked.values[1] == 6 &&
                  kSmallPacked.values[2] == 11 && kSmallPacked.values[3] == 0 &&
                  kSmallPacked.values[64] == 2,
              "panel row t holds feature t of each output");

TEST(PackedWeights, CompileTimePackingIsTheRunTimeOne) {
  std::vector<float> w(std::begin(kSmallW), std::end(kSmallW));
  const std::vector<float> run_time = Packed(w, 3, 5);
  ASSERT_EQ(run_time.size(), kSmallPacked.kFloats);
  EXPECT_EQ(0, memcmp(run_time.data(), kSmallPacked.values, run_time.size() * sizeof(float)));
  // Across a panel boundary: 70 outputs.
  static constexpr struct Big {
    float w[70 * 3];
  } kBig = [] {
    Big big{};
    for (int i = 0; i < 70 * 3; ++i) big.w[i] = static_cast<float>(i) * 0.5f - 7.0f;
    return big;
  }();
  static constexpr auto kBigPacked = edgeattn::PackLinearWeights<70, 3>(kBig.w);
  const std::vector<float> big_run_time =
      Packed(std::vector<float>(std::begin(kBig.w), std::end(kBig.w)), 70, 3);
  ASSERT_EQ(big_run_time.size(), kBigPacked.kFloats);
  EXPECT_EQ(0, memcmp(big_run_time.data(), kBigPacked.values, big_run_time.size() * sizeof(float)));
}

TEST(PackedWeights, BadInputIsRefusedAndWritesNothing) {
  const std::vector<float> w(3 * 2, 1.0f);
  std::vector<float> packed(2 * 64 + 8, -7.0f);
  const std::vector<float> untouched = packed;
  size_t floats = 123;
  EXPECT_EQ(ea_linear_packed_size(3, 2, nullptr), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_linear_packed_size(0, 2, &floats), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(ea_linear_packed_size(3, -1, &floats), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(ea_linear_packed_size(1 << 20, 1 << 9, &floats), EA_ERR_DIMENSION_OVERFLOW);
  EXPECT_EQ(floats, 123u) << "a refused size call wrote its output";
  EXPECT_EQ(ea_linear_pack_weights(nullptr, 3, 2, packed.data(), packed.size()),
            EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_linear_pack_weights(w.data(), 3, 2, nullptr, packed.size()), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_linear_pack_weights(w.data(), 3, 0, packed.data(), packed.size()),
            EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(ea_linear_pack_weights(w.data(), 3, 2, packed.data(), 2 * 64 - 1),
            EA_ERR_ARENA_TOO_SMALL);
  EXPECT_EQ(packed, untouched);
  // The packed copy may not start inside the weights, nor end inside them.
  std::vector<float> shared(256, 1.0f);
  const std::vector<float> shared_before = shared;
  EXPECT_EQ(ea_linear_pack_weights(shared.data(), 3, 1, shared.data() + 2, 128),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_linear_pack_weights(shared.data() + 64, 3, 1, shared.data() + 1, 64),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(shared, shared_before);
  // Right behind the weights is fine.
  EXPECT_EQ(ea_linear_pack_weights(shared.data(), 3, 1, shared.data() + 3, 64), EA_OK);
}

class PackedWeightsPerTarget : public PerTargetTest {};

ea_mha_config MhaConfig(int n, int d_model, int heads, ea_mask mask, ea_position position,
                        ea_weights_layout layout) {
  return ea_mha_config{EA_DTYPE_F32, n,      d_model,           heads,   mask,    position,
                       nullptr,      layout, ea_parallel_for{}, nullptr, nullptr, nullptr};
}

// Every target's packing (4 x 4 transposes where it has 128-bit vectors)
// against the documented layout: shapes with key and feature tails.
TEST_P(PackedWeightsPerTarget, LayoutIsTheDocumentedOne) {
  const int shapes[][2] = {{1, 1},  {3, 6},  {4, 4},    {64, 5},
                           {65, 2}, {67, 9}, {130, 17}, {768, 256}};
  for (const auto& shape : shapes) {
    const int n_out = shape[0], n_in = shape[1];
    const std::vector<float> w = RandomTensor(static_cast<size_t>(n_out) * n_in, 7);
    size_t floats = 0;
    ASSERT_EQ(ea_linear_packed_size(n_out, n_in, &floats), EA_OK);
    EXPECT_EQ(floats, static_cast<size_t>(n_in) * ((n_out + 63) / 64 * 64));
    EXPECT_EQ(floats, edgeattn::PackedLinearFloats(n_out, n_in));
    EXPECT_EQ(Packed(w, n_out, n_in), PackedByTheDocumentedLayout(w, n_out, n_in))
        << n_out << " x " << n_in;
  }
}

// Same weights, packed by the caller or by init: the same kernel reads
// the same floats, so the outputs are bit-identical.
TEST_P(PackedWeightsPerTarget, MhaGivesTheRowMajorResultBitForBit) {
  struct Case {
    int n, d_model, heads;
    ea_mask mask;
    ea_position position;
  };
  for (const Case& c : {Case{17, 12, 4, EA_MASK_NONE, EA_POSITION_NONE},
                        Case{65, 34, 2, EA_MASK_CAUSAL, EA_POSITION_SINUSOIDAL},
                        Case{130, 96, 4, EA_MASK_NONE, EA_POSITION_SINUSOIDAL}}) {
    const MhaModel model(c.d_model, c.heads, true, 11);
    const std::vector<float> x = RandomTensor(static_cast<size_t>(c.n) * c.d_model, 12);
    const std::vector<float> in_proj = Packed(model.in_proj_weight, 3 * c.d_model, c.d_model);
    const std::vector<float> out_proj = Packed(model.out_proj_weight, c.d_model, c.d_model);
    ea_mha_weights packed_weights = model.Weights();
    packed_weights.in_proj_weight = in_proj.data();
    packed_weights.out_proj_weight = out_proj.data();

    PlannedMha row_major =
        PlanMha(MhaConfig(c.n, c.d_model, c.heads, c.mask, c.position, EA_WEIGHTS_ROW_MAJOR),
                model.Weights());
    PlannedMha packed = PlanMha(
        MhaConfig(c.n, c.d_model, c.heads, c.mask, c.position, EA_WEIGHTS_PACKED), packed_weights);
    ASSERT_EQ(row_major.status, EA_OK);
    ASSERT_EQ(packed.status, EA_OK);
    EXPECT_EQ(row_major.bytes - packed.bytes,
              edgeattn::FloatRegionBytes(edgeattn::PackedLinearFloats(3 * c.d_model, c.d_model)) +
                  edgeattn::FloatRegionBytes(edgeattn::PackedLinearFloats(c.d_model, c.d_model)));
    EXPECT_EQ(packed.plan.packed_in_proj, in_proj.data()) << "packed weights are used in place";

    std::vector<float> y_row_major(x.size()), y_packed(x.size());
    ASSERT_EQ(ea_mha_run(&row_major.plan, x.data(), c.n, c.n, y_row_major.data(), nullptr), EA_OK);
    ASSERT_EQ(ea_mha_run(&packed.plan, x.data(), c.n, c.n, y_packed.data(), nullptr), EA_OK);
    EXPECT_EQ(0, memcmp(y_row_major.data(), y_packed.data(), x.size() * sizeof(float)))
        << "n " << c.n << " d_model " << c.d_model;
  }
}

TEST_P(PackedWeightsPerTarget, SelfAttentionGivesTheRowMajorResultBitForBit) {
  const int n = 33, d_model = 20, d_k = 17, d_v = 65;
  const SelfAttentionModel model(d_model, d_k, d_v, true, 21);
  const std::vector<float> x = RandomTensor(static_cast<size_t>(n) * d_model, 22);
  const std::vector<float> w_q = Packed(model.w_q, d_k, d_model);
  const std::vector<float> w_k = Packed(model.w_k, d_k, d_model);
  const std::vector<float> w_v = Packed(model.w_v, d_v, d_model);
  ea_self_attention_weights packed_weights = model.Weights();
  packed_weights.w_q = w_q.data();
  packed_weights.w_k = w_k.data();
  packed_weights.w_v = w_v.data();
  ea_self_attention_config config{EA_DTYPE_F32,
                                  n,
                                  d_model,
                                  d_k,
                                  d_v,
                                  EA_MASK_CAUSAL,
                                  EA_POSITION_SINUSOIDAL,
                                  nullptr,
                                  EA_WEIGHTS_ROW_MAJOR,
                                  ea_parallel_for{},
                                  nullptr,
                                  nullptr,
                                  nullptr};
  PlannedSelfAttention row_major = PlanSelfAttention(config, model.Weights());
  config.weights_layout = EA_WEIGHTS_PACKED;
  PlannedSelfAttention packed = PlanSelfAttention(config, packed_weights);
  ASSERT_EQ(row_major.status, EA_OK);
  ASSERT_EQ(packed.status, EA_OK);
  std::vector<float> y_row_major(static_cast<size_t>(n) * d_v), y_packed(y_row_major.size());
  ASSERT_EQ(ea_self_attention_run(&row_major.plan, x.data(), n, n, y_row_major.data(), nullptr),
            EA_OK);
  ASSERT_EQ(ea_self_attention_run(&packed.plan, x.data(), n, n, y_packed.data(), nullptr), EA_OK);
  EXPECT_EQ(0, memcmp(y_row_major.data(), y_packed.data(), y_packed.size() * sizeof(float)));
}

// ROW_MAJOR weights are packed once, at init: what the caller does to
// them afterwards does not reach the plan.
TEST_P(PackedWeightsPerTarget, RowMajorWeightsAreReadOnlyAtPlanTime) {
  const int n = 9, d_model = 8, heads = 2;
  MhaModel model(d_model, heads, true, 31);
  const std::vector<float> x = RandomTensor(static_cast<size_t>(n) * d_model, 32);
  PlannedMha planned =
      PlanMha(MhaConfig(n, d_model, heads, EA_MASK_NONE, EA_POSITION_NONE, EA_WEIGHTS_ROW_MAJOR),
              model.Weights());
  ASSERT_EQ(planned.status, EA_OK);
  std::vector<float> before(x.size()), after(x.size());
  ASSERT_EQ(ea_mha_run(&planned.plan, x.data(), n, n, before.data(), nullptr), EA_OK);
  for (float& w : model.in_proj_weight) w = 0.0f;
  for (float& w : model.out_proj_weight) w = 0.0f;
  ASSERT_EQ(ea_mha_run(&planned.plan, x.data(), n, n, after.data(), nullptr), EA_OK);
  EXPECT_EQ(before, after);
}

// The memory rules count a packed matrix at its packed size.
TEST_P(PackedWeightsPerTarget, OutputsOverPackedWeightsAreRefused) {
  const int n = 9, d_model = 8, heads = 2;
  const MhaModel model(d_model, heads, true, 41);
  const std::vector<float> x = RandomTensor(static_cast<size_t>(n) * d_model, 42);
  std::vector<float> in_proj = Packed(model.in_proj_weight, 3 * d_model, d_model);
  const std::vector<float> out_proj = Packed(model.out_proj_weight, d_model, d_model);
  ea_mha_weights weights = model.Weights();
  weights.in_proj_weight = in_proj.data();
  weights.out_proj_weight = out_proj.data();
  PlannedMha planned = PlanMha(
      MhaConfig(n, d_model, heads, EA_MASK_NONE, EA_POSITION_NONE, EA_WEIGHTS_PACKED), weights);
  ASSERT_EQ(planned.status, EA_OK);
  // Past the row-major size (3 * 8 * 8 floats) but inside the packed one.
  const size_t tail = in_proj.size() - x.size();
  ASSERT_GT(tail, static_cast<size_t>(3 * d_model * d_model));
  const std::vector<float> before = in_proj;
  EXPECT_EQ(ea_mha_run(&planned.plan, x.data(), n, n, in_proj.data() + tail, nullptr),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(in_proj, before);
}

EA_INSTANTIATE_PER_TARGET(PackedWeightsPerTarget);

}  // namespace
}  // namespace edgeattn_test
