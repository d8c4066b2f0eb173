// Fixed-point MHA (ea_mha_quant_init, ea_mha_quant_run_s8 / _s16) against
// TensorFlow Lite's integers: every golden case (TFLite Micro's reference
// kernels, tests/data/tflite) tensor by tensor, and random shapes, seeds and
// quantizations against the project's integer reference of the same chain
// (tests/reference/tflite_chain_reference.h), on every SIMD target.
#include <gtest/gtest.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "data/tflite/golden_cases.h"
#include "edgeattn/edgeattn.h"
#include "reference/device_softmax_luts.h"
#include "reference/quant_mha_fixture.h"
#include "simd_targets.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

using tflite_golden::GoldenCase;
using tflite_golden::kGoldenCaseCount;
using tflite_golden::kGoldenCases;

// Equal element for element, with the first difference in the message.
::testing::AssertionResult SameValues(const std::string& what, const std::vector<int32_t>& got,
                                      const std::vector<int32_t>& want) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure()
           << what << ": " << got.size() << " values, expected " << want.size();
  }
  size_t differing = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i] && differing++ == 0) first = i;
  }
  if (differing == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": " << differing << " of " << got.size() << " differ; first at " << first
         << ": " << got[first] << " instead of " << want[first];
}

// The golden cases on every target: the library's plan-time quantized table,
// ADD, projections, probabilities, head outputs and y, bit for bit.
class QuantMhaGolden : public testing::TestWithParam<std::tuple<int64_t, int>> {
 protected:
  void SetUp() override { ForceTarget(std::get<0>(GetParam())); }
  void TearDown() override { ForceTarget(0); }
};

TEST_P(QuantMhaGolden, EveryTensorMatchesTfliteBitForBit) {
  ASSERT_STREQ(ea_simd_target(), hwy::TargetName(std::get<0>(GetParam())));
  const GoldenCase& g = kGoldenCases[std::get<1>(GetParam())];
  if (g.blobs.x_emb.data == nullptr || g.blobs.y.data == nullptr) {
    GTEST_SKIP() << g.name << ": not embedded in this small-memory build";
  }
  const QuantMhaCase c = FromGolden(g);
  const QuantMhaCase::Result r = c.Run();
  ASSERT_EQ(r.status, EA_OK);
  EXPECT_TRUE(SameValues("pe", r.pe, GoldenValues(g, g.blobs.pe)));
  // ADD(x_emb, P) lives in y until W_O overwrites it: o and y check it.
  const auto held = [&](const tflite_golden::Blob& blob) {
    return Columns(GoldenValues(g, blob), g.d_model, r.qkv_first_column, r.qkv_columns);
  };
  EXPECT_TRUE(SameValues("q", r.q, held(g.blobs.q)));
  EXPECT_TRUE(SameValues("k", r.k, held(g.blobs.k)));
  EXPECT_TRUE(SameValues("v", r.v, held(g.blobs.v)));
  const size_t head_values = static_cast<size_t>(g.n) * g.n;
  for (int h = 0; h < g.heads; ++h) {
    if (g.blobs.probs[h].data == nullptr) continue;  // n = 600: o checks them
    const std::vector<int32_t> probs(r.probs.begin() + h * head_values,
                                     r.probs.begin() + (h + 1) * head_values);
    EXPECT_TRUE(
        SameValues("probs_h" + std::to_string(h), probs, GoldenValues(g, g.blobs.probs[h])));
  }
  EXPECT_TRUE(SameValues("o", r.o, GoldenValues(g, g.blobs.o)));
  EXPECT_TRUE(SameValues("y", r.y, GoldenValues(g, g.blobs.y)));
}

// The layer as a TFLite model stores it: W_Q, W_K, W_V as three tensors of
// their own and, for int16, the softmax's tables handed in (the golden
// data's, TFLite Micro's own) with the integers: TFLite's output, bit for bit.
TEST_P(QuantMhaGolden, AsATfliteModelStoresItGivesTheSameOutput) {
  const GoldenCase& g = kGoldenCases[std::get<1>(GetParam())];
  if (g.blobs.x_emb.data == nullptr || g.blobs.y.data == nullptr) {
    GTEST_SKIP() << g.name << ": not embedded in this small-memory build";
  }
  QuantMhaCase c = FromGolden(g);
  c.separate_projections = true;
  if (c.dtype == EA_DTYPE_INT16) {
    c.softmax_exp_lut = TfliteExpLut();
    c.softmax_reciprocal_lut = TfliteReciprocalLut();
  }
  const QuantMhaCase::Result r = c.Run();
  ASSERT_EQ(r.status, EA_OK);
  EXPECT_TRUE(SameValues("o", r.o, GoldenValues(g, g.blobs.o)));
  EXPECT_TRUE(SameValues("y", r.y, GoldenValues(g, g.blobs.y)));
}

std::string GoldenName(const testing::TestParamInfo<std::tuple<int64_t, int>>& info) {
  return std::string(hwy::TargetName(std::get<0>(info.param))) + "_" +
         kGoldenCases[std::get<1>(info.param)].name;
}
INSTANTIATE_TEST_SUITE_P(Tflite, QuantMhaGolden,
                         testing::Combine(testing::ValuesIn(TargetsUnderTest()),
                                          testing::Range(0, kGoldenCaseCount)),
                         GoldenName);

// Plan time: TFLite's Prepare from the float scales gives the manifest's integers.
TEST(QuantMhaDerive, GoldenScalesGiveTflitesIntegers) {
  for (const GoldenCase& g : kGoldenCases) {
    if (g.channel_scales.w_q == nullptr || g.ops.fc_q.multiplier == nullptr) continue;
    QuantMhaCase c = FromGolden(g);
    ea_mha_quant_scales scales = c.scales;
    scales.in_proj_weight_scales = c.in_scales.data();
    scales.out_proj_weight_scales = c.out_scales.data();
    ea_mha_config config{};
    config.dtype = c.dtype;
    config.max_tokens = g.n;
    config.d_model = g.d_model;
    config.n_heads = g.heads;
    config.position = EA_POSITION_SINUSOIDAL;
    config.quant_scales = &scales;
    std::vector<int32_t> channels(EA_MHA_QUANT_CHANNEL_INTS(g.d_model));
    ea_mha_quant_params p{};
    ASSERT_EQ(ea_mha_quant_derive(&config, &p, channels.data(), channels.size()), EA_OK) << g.name;
    const auto& a = g.ops.add;
    EXPECT_EQ(
        std::vector<int32_t>({p.add.left_shift, p.add.input1_offset, p.add.input1_multiplier,
                              p.add.input1_shift, p.add.input2_offset, p.add.input2_multiplier,
                              p.add.input2_shift, p.add.output_offset, p.add.output_multiplier,
                              p.add.output_shift}),
        std::vector<int32_t>({a.left_shift, a.input1_offset, a.input1_multiplier, a.input1_shift,
                              a.input2_offset, a.input2_multiplier, a.input2_shift, a.output_offset,
                              a.output_multiplier, a.output_shift}))
        << g.name;
    const std::pair<const ea_linear_quant_params*, const tflite_golden::FullyConnectedOp*> fcs[] = {
        {&p.q_proj, &g.ops.fc_q},
        {&p.k_proj, &g.ops.fc_k},
        {&p.v_proj, &g.ops.fc_v},
        {&p.out_proj, &g.ops.fc_o}};
    for (const auto& fc : fcs) {
      EXPECT_EQ(fc.first->input_offset, fc.second->input_offset) << g.name;
      EXPECT_EQ(fc.first->output_offset, fc.second->output_offset) << g.name;
      for (int i = 0; i < g.d_model; ++i) {
        EXPECT_EQ(fc.first->output_multiplier[i], fc.second->multiplier[i]) << g.name << " " << i;
        EXPECT_EQ(fc.first->output_shift[i], fc.second->shift[i]) << g.name << " " << i;
      }
    }
    const std::pair<const ea_matmul_quant_params*, const tflite_golden::BatchMatMulOp*> mms[] = {
        {&p.scores, &g.ops.bmm_scores}, {&p.context, &g.ops.bmm_context}};
    for (const auto& mm : mms) {
      EXPECT_EQ(mm.first->input_offset, mm.second->input_offset) << g.name;
      EXPECT_EQ(mm.first->weights_offset, mm.second->weights_offset) << g.name;
      EXPECT_EQ(mm.first->output_offset, mm.second->output_offset) << g.name;
      EXPECT_EQ(mm.first->output_multiplier, mm.second->output_multiplier) << g.name;
      EXPECT_EQ(mm.first->output_shift, mm.second->output_shift) << g.name;
    }
    EXPECT_EQ(p.softmax.input_multiplier, g.ops.softmax.input_multiplier) << g.name;
    EXPECT_EQ(p.softmax.input_left_shift, g.ops.softmax.input_left_shift) << g.name;
    if (c.dtype == EA_DTYPE_INT8) {
      EXPECT_EQ(p.softmax.diff_min, g.ops.softmax.diff_min) << g.name;
    }
    // The plan-time table's quantization rides along (its QUANTIZE's output).
    EXPECT_EQ(p.position.scale, scales.position.scale) << g.name;
    EXPECT_EQ(p.position.zero_point, scales.position.zero_point) << g.name;
  }
}

// Random cases against the integer reference: odd sizes, 1..1000 tokens,
// several widths and head counts, causal and not, with and without
// positions, zero points over the whole int8 range.
struct RandomCase {
  ea_dtype dtype;
  RandomShape shape;
  uint64_t seed;
};

std::vector<RandomCase> RandomCases() {
  std::vector<RandomCase> cases;
  const RandomShape shapes[] = {
    {1, 8, 1, false, true},
    {2, 4, 2, true, false},
    {3, 16, 2, true, true},
    {5, 12, 3, false, true},
    {17, 24, 3, false, true},
    {33, 20, 5, true, false},
    {63, 32, 4, true, true},
    {65, 48, 2, false, true},
    {130, 40, 5, true, true},
    {255, 16, 1, true, true},
    {257, 64, 4, false, false},
#if !defined(EDGEATTN_TEST_SMALL_MEMORY)
    {1000, 32, 2, true, true},
    {700, 24, 1, false, true},
#endif
  };
  uint64_t seed = 7001;
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    for (const RandomShape& s : shapes) cases.push_back({dtype, s, seed++});
  }
  return cases;
}

// The reference of a case, computed once for all targets (host builds test
// six); small-memory boards keep only the latest.
const QuantMhaCase::Expected& ReferenceOf(const QuantMhaCase& c) {
  static std::map<std::string, QuantMhaCase::Expected> cache;
#if defined(EDGEATTN_TEST_SMALL_MEMORY)
  if (cache.count(c.name) == 0) cache.clear();
#endif
  auto found = cache.find(c.name);
  if (found == cache.end()) found = cache.emplace(c.name, c.Reference()).first;
  return found->second;
}

void ExpectSameAsReference(const QuantMhaCase& c) {
  const QuantMhaCase::Result r = c.Run();
  ASSERT_EQ(r.status, EA_OK) << c.name;
  const QuantMhaCase::Expected& want = ReferenceOf(c);
  EXPECT_TRUE(SameValues(c.name + " pe", r.pe, want.pe));
  const auto held = [&](const std::vector<int32_t>& whole) {
    return Columns(whole, c.d_model, r.qkv_first_column, r.qkv_columns);
  };
  EXPECT_TRUE(SameValues(c.name + " q", r.q, held(want.q)));
  EXPECT_TRUE(SameValues(c.name + " k", r.k, held(want.k)));
  EXPECT_TRUE(SameValues(c.name + " v", r.v, held(want.v)));
  EXPECT_TRUE(SameValues(c.name + " probs", r.probs, want.probs));
  EXPECT_TRUE(SameValues(c.name + " o", r.o, want.o));
  EXPECT_TRUE(SameValues(c.name + " y", r.y, want.y));
}

class QuantMhaRandom : public PerTargetTest {};

TEST_P(QuantMhaRandom, EqualsTheIntegerReference) {
  for (const RandomCase& rc : RandomCases()) {
    QuantMhaCase c = RandomQuantMha(rc.dtype, rc.shape, rc.seed);
    c.name += "_seed" + std::to_string(rc.seed);
    ExpectSameAsReference(c);
  }
}

// A plan made for more tokens than the run has: K and V's panels (on
// AVX512-VNNI the int16 K's high bytes after pairs sized for the plan's
// tokens) and the row scratch are carved for max_tokens and filled for n.
TEST_P(QuantMhaRandom, RunsShorterThanThePlan) {
  const RandomShape shapes[] = {{37, 32, 2, true, true}, {130, 64, 2, false, true}};
  uint64_t seed = 7200;
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    for (const RandomShape& shape : shapes) {
      QuantMhaCase c = RandomQuantMha(dtype, shape, seed++);
      c.name += "_plan_for_" + std::to_string(c.n + 45);
      c.plan_tokens = c.n + 45;
      ExpectSameAsReference(c);
    }
  }
}

// Key padding (n_valid_keys), causal or not, int8 and int16: no valid key,
// one, half, all but one; every head's softmax over the valid keys alone.
TEST_P(QuantMhaRandom, PaddedKeysEqualTheIntegerReference) {
  const RandomShape shapes[] = {{37, 32, 2, true, true}, {70, 48, 3, false, true}};
  uint64_t seed = 7250;
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    for (const RandomShape& shape : shapes) {
      for (const int valid : {0, 1, shape.n / 2, shape.n - 1}) {
        QuantMhaCase c = RandomQuantMha(dtype, shape, seed++);
        c.name += "_valid" + std::to_string(valid);
        c.n_valid_keys = valid;
        ExpectSameAsReference(c);
      }
    }
  }
}

// What padding means without the reference: the valid tokens' outputs and
// probabilities do not depend on the padded tokens. Padded rows of x changed
// (each value v to -1 - v, which keeps its range and spread) leave rows
// [0, n_valid_keys) of y and of every head's attn_weights as they were
// (without the causal mask only padding hides the later tokens from them),
// and no row of any head gives a padded key a probability other than the
// zero value (with the causal mask the rows past n_valid_keys would see them).
TEST_P(QuantMhaRandom, PaddedTokensDoNotReachTheValidRows) {
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    for (const bool causal : {false, true}) {
      QuantMhaCase c = RandomQuantMha(dtype, {29, 32, 2, causal, true}, 7280 + causal);
      c.n_valid_keys = 18;
      // No biases: the random int16 ones (up to 2^28) saturate q, k and v
      // whatever x holds, so a change of x would not show.
      std::fill(c.in_bias.begin(), c.in_bias.end(), 0);
      std::fill(c.out_bias.begin(), c.out_bias.end(), 0);
      const QuantMhaCase::Result first = c.Run();
      ASSERT_EQ(first.status, EA_OK);
      const size_t padded_from = static_cast<size_t>(c.n_valid_keys) * c.d_model;
      for (size_t i = padded_from; i < c.x_emb.size(); ++i) c.x_emb[i] = -1 - c.x_emb[i];
      const QuantMhaCase::Result second = c.Run();
      ASSERT_EQ(second.status, EA_OK);
      EXPECT_NE(first.y, second.y) << "the padded rows' own outputs should change";
      EXPECT_TRUE(std::equal(first.y.begin(), first.y.begin() + padded_from, second.y.begin()))
          << (causal ? "causal" : "full");
      const size_t rows = static_cast<size_t>(c.n_valid_keys) * c.n;  // per head
      const int32_t zero_probability = dtype == EA_DTYPE_INT8 ? -128 : 0;
      for (int h = 0; h < c.heads; ++h) {
        const size_t head = static_cast<size_t>(h) * c.n * c.n;
        EXPECT_TRUE(std::equal(first.probs.begin() + head, first.probs.begin() + head + rows,
                               second.probs.begin() + head))
            << "head " << h << (causal ? " causal" : " full");
        for (int i = 0; i < c.n; ++i) {
          for (int j = c.n_valid_keys; j < c.n; ++j) {
            EXPECT_EQ(second.probs[head + static_cast<size_t>(i) * c.n + j], zero_probability)
                << "head " << h << " row " << i << " padded key " << j;
          }
        }
      }
    }
  }
}

// A TFLite model's layer as it stores it: W_Q, W_K and W_V (with their
// biases and per-channel scales) as three tensors in buffers of their own,
// read in place; and the biases in the other form than the weights' (three
// weights with in_proj_bias, PyTorch's kdim form; in_proj with three
// biases). The integers are the reference's and in_proj's, bit for bit.
TEST_P(QuantMhaRandom, SeparateProjectionsGiveTheInProjIntegers) {
  const RandomShape shapes[] = {{37, 32, 2, true, true}, {19, 48, 3, false, false}};
  const struct {
    bool separate_weights, other_bias_form;
    const char* name;
  } forms[] = {{true, false, "_separate"},
               {true, true, "_separate_weights_in_proj_bias"},
               {false, true, "_in_proj_separate_biases"}};
  uint64_t seed = 7700;
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    for (const RandomShape& shape : shapes) {
      const QuantMhaCase base = RandomQuantMha(dtype, shape, seed++);
      const QuantMhaCase::Result in_proj = base.Run();
      ASSERT_EQ(in_proj.status, EA_OK) << base.name;
      for (const auto& form : forms) {
        QuantMhaCase c = base;
        c.separate_projections = form.separate_weights;
        c.other_bias_form = form.other_bias_form;
        c.name += form.name;
        ExpectSameAsReference(c);
        const QuantMhaCase::Result separate = c.Run();
        ASSERT_EQ(separate.status, EA_OK) << c.name;
        EXPECT_EQ(separate.y, in_proj.y) << c.name;
        EXPECT_EQ(separate.probs, in_proj.probs) << c.name;
      }
    }
  }
}

// The debug taps of ea_mha_quant_trace_s8 / _s16 are the chain's tensors
// (the integer reference, op by op): ADD(x, P), q, k, v, each head's scores
// where a softmax reads them (the dtype's minimum where none does), the
// probabilities and the context; y is the plain run's, bit for bit. Causal
// and padded rows, positions or none, both dtypes.
TEST_P(QuantMhaRandom, TraceTapsAreTheChainsTensors) {
  const RandomShape shapes[] = {{37, 32, 2, true, true}, {19, 48, 3, false, false}};
  uint64_t seed = 7750;
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    for (const RandomShape& shape : shapes) {
      QuantMhaCase c = RandomQuantMha(dtype, shape, seed++);
      c.n_valid_keys = c.n - 4;
      SCOPED_TRACE(c.name);
      const QuantMhaCase::Traced traced = c.Trace();
      ASSERT_EQ(traced.status, EA_OK);
      const QuantMhaCase::Expected want = c.Reference();
      EXPECT_EQ(traced.positioned, c.positions ? want.x : c.x_emb);
      EXPECT_EQ(traced.q, want.q);
      EXPECT_EQ(traced.k, want.k);
      EXPECT_EQ(traced.v, want.v);
      EXPECT_EQ(traced.probs, want.probs);
      EXPECT_EQ(traced.context, want.o);
      EXPECT_EQ(traced.y, want.y);
      const int32_t minimum = dtype == EA_DTYPE_INT8 ? -128 : -32768;
      const size_t n = static_cast<size_t>(c.n);
      for (size_t h = 0; h < static_cast<size_t>(c.heads); ++h) {
        for (size_t i = 0; i < n; ++i) {
          const int visible =
              tflite_ref::VisibleKeysOf(c.causal, c.n, c.n, c.ValidKeys(), static_cast<int>(i));
          for (size_t j = 0; j < n; ++j) {
            const int32_t expected =
                static_cast<int>(j) < visible ? want.scores[h][i * n + j] : minimum;
            ASSERT_EQ(traced.scores[(h * n + i) * n + j], expected)
                << "head " << h << " row " << i << " key " << j;
          }
        }
      }
      const QuantMhaCase::Result run = c.Run();
      ASSERT_EQ(run.status, EA_OK);
      EXPECT_EQ(traced.y, run.y);
      EXPECT_EQ(traced.probs, run.probs);
    }
  }
}

// The softmax integers a layer's scales derive (TFLite's Prepare).
ea_softmax_quant_params DerivedSoftmax(const QuantMhaCase& c) {
  const QuantMhaLayer layer(c);
  std::vector<int32_t> channel_ints(EA_MHA_QUANT_CHANNEL_INTS(c.d_model));
  ea_mha_quant_params params{};
  EXPECT_EQ(ea_mha_quant_derive(&layer.config, &params, channel_ints.data(), channel_ints.size()),
            EA_OK);
  return params.softmax;
}

// A softmax beta other than 1/sqrt(d_k), as Keras exports (beta 1) and
// models that scale their queries before the softmax carry: TFLite's SOFTMAX
// with that beta, bit for bit, from integers that differ from the default's.
TEST_P(QuantMhaRandom, SoftmaxBetaOfTheModel) {
  uint64_t seed = 7800;
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    for (const float beta : {1.0f, 0.02f}) {
      QuantMhaCase c = RandomQuantMha(dtype, {33, 32, 2, true, false}, seed++);
      const ea_softmax_quant_params textbook = DerivedSoftmax(c);
      c.scales.softmax_beta = beta;
      c.name += beta == 1.0f ? "_beta1" : "_beta0.02";
      ExpectSameAsReference(c);
      // (beta 1 is 4x the default's 1/4 here: the same multiplier, a larger shift.)
      const ea_softmax_quant_params given = DerivedSoftmax(c);
      EXPECT_TRUE(given.input_multiplier != textbook.input_multiplier ||
                  given.input_left_shift != textbook.input_left_shift)
          << c.name;
    }
  }
}

// A TFLite Micro build's int16 softmax tables (filled at Prepare with the
// device's expf) handed in with the integers: the chain with those tables,
// bit for bit, in either form of W_Q, W_K, W_V, and other integers than the
// built-in tables give (the tables are read, not ignored).
TEST_P(QuantMhaRandom, DeviceSoftmaxTablesGiveThatBuildsIntegers) {
  const RandomShape shapes[] = {{37, 32, 2, true, true}, {70, 48, 3, false, false}};
  uint64_t seed = 7900;
  for (const RandomShape& shape : shapes) {
    for (const bool separate : {false, true}) {
      QuantMhaCase c = RandomQuantMha(EA_DTYPE_INT16, shape, seed++);
      c.separate_projections = separate;
      const QuantMhaCase::Result built_in = c.Run();
      ASSERT_EQ(built_in.status, EA_OK);
      c.softmax_exp_lut = DeviceExpLut();
      c.softmax_reciprocal_lut = DeviceReciprocalLut();
      c.name += separate ? "_device_tables_separate" : "_device_tables";
      ExpectSameAsReference(c);
      EXPECT_NE(c.Run().probs, built_in.probs) << c.name;
    }
  }
}

// The parallel-for splits into the same tasks for any worker count: three
// workers in reverse order give the same integers.
TEST_P(QuantMhaRandom, WorkersAndScheduleDoNotChangeTheIntegers) {
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    QuantMhaCase c = RandomQuantMha(dtype, {130, 32, 2, true, true}, 7100 + dtype);
    c.name += "_workers";
    c.parallel_workers = 3;
    ExpectSameAsReference(c);
  }
}

// Edge cases, each against the reference and its own property.
TEST_P(QuantMhaRandom, EqualScoresGiveEqualProbabilities) {
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    QuantMhaCase c = RandomQuantMha(dtype, {40, 16, 2, true, false}, 7200 + dtype);
    c.name += "_ties";
    // W_K = 0: every key is its bias, so every score of a row is the same.
    std::fill(c.in_proj.begin() + 16 * 16, c.in_proj.begin() + 2 * 16 * 16, int8_t{0});
    ExpectSameAsReference(c);
    const QuantMhaCase::Result r = c.Run();
    for (int h = 0; h < c.heads; ++h) {
      for (int i = 0; i < c.n; ++i) {
        const int32_t* row = r.probs.data() + (static_cast<size_t>(h) * c.n + i) * c.n;
        for (int j = 1; j <= i; ++j) ASSERT_EQ(row[j], row[0]) << c.name << " row " << i;
      }
    }
  }
}

TEST_P(QuantMhaRandom, LongFlatRowsPastTflitesAbortLimitSaturateAtZero) {
  // n equal scores, n > 512: TFLite's int8 softmax would abort (sum of exps
  // n >= 512); every exact probability is 1/n < half an LSB, so each is 0 (-128).
  constexpr int kKeys = 520;
  QuantMhaCase c = RandomQuantMha(EA_DTYPE_INT8, {kKeys, 16, 1, false, false}, 7300);
  c.name += "_flat";
  std::fill(c.in_proj.begin() + 16 * 16, c.in_proj.begin() + 2 * 16 * 16, int8_t{0});
  ExpectSameAsReference(c);
  const QuantMhaCase::Result r = c.Run();
  for (const int32_t p : r.probs) ASSERT_EQ(p, -128);
  // Causal rows reach the limit at key 512: row 510 (511 keys) still sums
  // below it, the last row does not.
  QuantMhaCase causal = c;
  causal.causal = true;
  causal.name += "_causal";
  ExpectSameAsReference(causal);
  const QuantMhaCase::Result rc = causal.Run();
  EXPECT_EQ(rc.probs[static_cast<size_t>(510) * kKeys], -127);  // 1/511 rounds to 1 LSB
  EXPECT_EQ(rc.probs[static_cast<size_t>(kKeys - 1) * kKeys], -128);
}

TEST_P(QuantMhaRandom, ExtremeZeroPointsAndSaturatingOutputs) {
  for (const int32_t zp : {-128, 127}) {
    QuantMhaCase c = RandomQuantMha(EA_DTYPE_INT8, {31, 24, 3, true, true}, 7400 + zp);
    c.name += "_zp" + std::to_string(zp);
    for (ea_quant* q :
         {&c.scales.input, &c.scales.position, &c.scales.positioned, &c.scales.q, &c.scales.k,
          &c.scales.v, &c.scales.scores, &c.scales.context, &c.scales.output}) {
      q->zero_point = zp;
    }
    ExpectSameAsReference(c);
  }
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    QuantMhaCase c = RandomQuantMha(dtype, {19, 16, 2, false, true}, 7500 + dtype);
    c.name += "_saturating";
    c.scales.output.scale *= 1e-3f;  // y far outside its range
    c.scales.scores.scale *= 1e-2f;  // scores too: most differences below the cut-off
    ExpectSameAsReference(c);
    const QuantMhaCase::Result r = c.Run();
    size_t saturated = 0;
    for (const int32_t y : r.y) saturated += (y == -128 || y == 127 || y == -32768 || y == 32767);
    EXPECT_GT(saturated, r.y.size() / 2) << c.name;
  }
}

// The run keeps ADD(x, P) in y and (head by head) reads x until the last
// head: in place it computes what it computes apart; y partly over x, and
// attn_weights over x, are refused with nothing written.
TEST_P(QuantMhaRandom, InPlaceEqualsApartAndPartialOverlapsAreRefused) {
  const QuantMhaCase c = RandomQuantMha(EA_DTYPE_INT8, {23, 24, 3, true, true}, 7600);
  const QuantMhaLayer layer(c);
  size_t bytes = 0;
  ASSERT_EQ(ea_mha_quant_arena_size(&layer.config, &bytes), EA_OK);
  AlignedBytes storage(bytes);
  ea_arena arena;
  ea_mha_quant_plan plan{};
  ASSERT_EQ(ea_arena_init(&arena, storage.data(), bytes), EA_OK);
  ASSERT_EQ(ea_mha_quant_init(&plan, &layer.config, &layer.weights, &arena), EA_OK);
  const size_t count = static_cast<size_t>(c.n) * c.d_model;
  std::vector<int8_t> x(c.x_emb.begin(), c.x_emb.end());
  std::vector<int8_t> y(count);
  ASSERT_EQ(ea_mha_quant_run_s8(&plan, x.data(), c.n, c.n, y.data(), nullptr), EA_OK);
  EXPECT_TRUE(SameValues("y", std::vector<int32_t>(y.begin(), y.end()), ReferenceOf(c).y));

  const size_t attn_count = static_cast<size_t>(c.heads) * c.n * c.n;
  std::vector<int8_t> memory(2 * count + attn_count);
  memcpy(memory.data(), x.data(), count);
  ASSERT_EQ(ea_mha_quant_run_s8(&plan, memory.data(), c.n, c.n, memory.data(), nullptr), EA_OK);
  EXPECT_EQ(0, memcmp(memory.data(), y.data(), count)) << "in place";

  for (const size_t shift : {size_t{1}, count / 2, count - 1}) {
    memcpy(memory.data() + shift, x.data(), count);
    const std::vector<int8_t> before = memory;
    EXPECT_EQ(ea_mha_quant_run_s8(&plan, memory.data() + shift, c.n, c.n, memory.data(), nullptr),
              EA_ERR_BAD_ARGUMENT)
        << "y partly before x, by " << shift;
    EXPECT_EQ(ea_mha_quant_run_s8(&plan, memory.data(), c.n, c.n, memory.data() + shift, nullptr),
              EA_ERR_BAD_ARGUMENT)
        << "y partly after x, by " << shift;
    std::vector<int8_t> y_apart(count);
    EXPECT_EQ(
        ea_mha_quant_run_s8(&plan, memory.data() + shift, c.n, c.n, y_apart.data(), memory.data()),
        EA_ERR_BAD_ARGUMENT)
        << "attn_weights over x, by " << shift;
    EXPECT_EQ(before, memory) << "written on a refusal";
  }
}

EA_INSTANTIATE_PER_TARGET(QuantMhaRandom);

}  // namespace
}  // namespace edgeattn_test
