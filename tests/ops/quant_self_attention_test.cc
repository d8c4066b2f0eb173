// Fixed-point single-head self-attention (ea_self_attention_quant_init,
// ea_self_attention_quant_run_s8 / _s16) on every SIMD target:
// - the one-head golden cases: with W_Q, W_K, W_V and the scales of TFLite
//   Micro's chain, y is the golden context o bit for bit (the chain up to the
//   output projection);
// - random shapes with d_k != d_v != d_model against the integer reference's
//   ADD, FULLY_CONNECTED, BATCH_MATMUL and SOFTMAX
//   (tests/reference/tflite_chain_reference.h), causal and not, positions
//   sinusoidal, learned or none, integers derived or given;
// - the refusals of plan and run, which write nothing.
#include <gtest/gtest.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "data/tflite/golden_cases.h"
#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "planned_operation.h"
#include "reference/device_softmax_luts.h"
#include "reference/quant_mha_fixture.h"
#include "reference/quant_test_values.h"
#include "reference/random_tensor.h"
#include "reference/tflite_chain_reference.h"
#include "simd_targets.h"
#include "test_support.h"
#include "untouched_bytes.h"

namespace edgeattn_test {
namespace {

enum class Positions { kNone, kSinusoidal, kLearned };

struct Shape {
  int n, d_model, d_k, d_v;
  bool causal;
  Positions positions;
};

// One case, activations as int32 whatever the dtype, biases as int64.
struct Case {
  ea_dtype dtype = EA_DTYPE_INT8;
  Shape shape{};
  ea_self_attention_quant_scales scales{};
  std::vector<float> w_q_scales, w_k_scales, w_v_scales;
  std::vector<int32_t> x_emb, learned_table;
  std::vector<int8_t> w_q, w_k, w_v;
  std::vector<int64_t> b_q, b_k, b_v;
  bool give_integers = false;  // pass ea_self_attention_quant_derive's integers
  bool device_tables = false;  // int16, with give_integers: a device's softmax tables
  int n_valid_keys = -1;       // keys from here on are padding (-1: none)
  int ValidKeys() const { return n_valid_keys < 0 ? shape.n : n_valid_keys; }
};

bool IsInt8(ea_dtype dtype) { return dtype == EA_DTYPE_INT8; }
int32_t MinOf(ea_dtype dtype) { return IsInt8(dtype) ? -128 : -32768; }
int32_t MaxOf(ea_dtype dtype) { return IsInt8(dtype) ? 127 : 32767; }

Case RandomCase(ea_dtype dtype, const Shape& shape, uint64_t seed) {
  RandomStream random(seed);
  const auto integer = [&](int32_t lo, int32_t hi) {
    return static_cast<int32_t>(
        lo + static_cast<int64_t>(random.Uniform() *
                                  (static_cast<double>(hi) - static_cast<double>(lo) + 1.0)));
  };
  const auto jitter = [&]() {
    return static_cast<float>(exp(log(2.0) * (2 * random.Uniform() - 1)));
  };
  const bool int8 = IsInt8(dtype);
  const auto zero_point = [&]() { return int8 ? integer(-128, 127) : 0; };
  Case c;
  c.dtype = dtype;
  c.shape = shape;
  const double spread_lsb = int8 ? 74.0 : 18900.0;  // typical |activation| in LSB
  const double sqrt_d = sqrt(static_cast<double>(shape.d_model));
  c.scales.input = {0.02f * jitter(), zero_point()};
  c.scales.position = {static_cast<float>(1.0 / MaxOf(dtype)) * jitter(), zero_point()};
  c.scales.positioned = {(c.scales.input.scale + 0.5f * c.scales.position.scale) * jitter(),
                         zero_point()};
  const float s_in =
      shape.positions != Positions::kNone ? c.scales.positioned.scale : c.scales.input.scale;
  const auto channel_scales = [&](int count, std::vector<float>* out) {
    for (int i = 0; i < count; ++i) out->push_back(static_cast<float>(jitter() / (127.0 * sqrt_d)));
  };
  channel_scales(shape.d_k, &c.w_q_scales);
  channel_scales(shape.d_k, &c.w_k_scales);
  channel_scales(shape.d_v, &c.w_v_scales);
  const auto projection_scale = [&]() { return 2.0f * 74.0f / 127.0f * s_in * jitter(); };
  c.scales.q = {projection_scale(), zero_point()};
  c.scales.k = {projection_scale(), zero_point()};
  c.scales.v = {projection_scale(), zero_point()};
  c.scales.scores = {static_cast<float>(sqrt(static_cast<double>(shape.d_k)) * 0.5 * spread_lsb *
                                        c.scales.q.scale * c.scales.k.scale * jitter()),
                     zero_point()};
  c.scales.output = {c.scales.v.scale * jitter(), zero_point()};
  const int32_t lo = MinOf(dtype), hi = MaxOf(dtype);
  const size_t inputs = static_cast<size_t>(shape.n) * shape.d_model;
  for (size_t i = 0; i < inputs; ++i) c.x_emb.push_back(integer(lo, hi));
  if (shape.positions == Positions::kLearned) {
    for (size_t i = 0; i < inputs; ++i) c.learned_table.push_back(integer(lo, hi));
  }
  const auto weights = [&](int rows, std::vector<int8_t>* w) {
    for (int i = 0; i < rows * shape.d_model; ++i)
      w->push_back(static_cast<int8_t>(integer(-127, 127)));
  };
  weights(shape.d_k, &c.w_q);
  weights(shape.d_k, &c.w_k);
  weights(shape.d_v, &c.w_v);
  const int32_t bias_range = int8 ? (1 << 14) : (1 << 28);
  for (int i = 0; i < shape.d_k; ++i) c.b_q.push_back(integer(-bias_range, bias_range));
  for (int i = 0; i < shape.d_k; ++i) c.b_k.push_back(integer(-bias_range, bias_range));
  for (int i = 0; i < shape.d_v; ++i) c.b_v.push_back(integer(-bias_range, bias_range));
  return c;
}

// The one-head golden case as a self-attention case whose output is o.
Case FromGoldenHead(const tflite_golden::GoldenCase& g) {
  const QuantMhaCase m = FromGolden(g);
  Case c;
  c.dtype = m.dtype;
  c.shape = {m.n, m.d_model, m.d_model, m.d_model, m.causal, Positions::kSinusoidal};
  c.scales.input = m.scales.input;
  c.scales.position = m.scales.position;
  c.scales.positioned = m.scales.positioned;
  c.scales.q = m.scales.q;
  c.scales.k = m.scales.k;
  c.scales.v = m.scales.v;
  c.scales.scores = m.scales.scores;
  c.scales.output = m.scales.context;
  const size_t e = static_cast<size_t>(m.d_model);
  c.w_q_scales.assign(m.in_scales.begin(), m.in_scales.begin() + e);
  c.w_k_scales.assign(m.in_scales.begin() + e, m.in_scales.begin() + 2 * e);
  c.w_v_scales.assign(m.in_scales.begin() + 2 * e, m.in_scales.end());
  c.x_emb = m.x_emb;
  c.w_q.assign(m.in_proj.begin(), m.in_proj.begin() + e * e);
  c.w_k.assign(m.in_proj.begin() + e * e, m.in_proj.begin() + 2 * e * e);
  c.w_v.assign(m.in_proj.begin() + 2 * e * e, m.in_proj.end());
  c.b_q.assign(m.in_bias.begin(), m.in_bias.begin() + e);
  c.b_k.assign(m.in_bias.begin() + e, m.in_bias.begin() + 2 * e);
  c.b_v.assign(m.in_bias.begin() + 2 * e, m.in_bias.end());
  return c;
}

struct Result {
  ea_status status = EA_ERR_BAD_ARGUMENT;
  std::vector<int32_t> y, probs;
};

// Everything a plan needs, kept alive together.
template <typename T, typename Bias>
struct Planned {
  ea_self_attention_config config{};
  ea_self_attention_quant_scales scales{};
  ea_self_attention_quant_params params{};
  std::vector<int32_t> channel_ints;
  std::vector<T> table;
  std::vector<Bias> b_q, b_k, b_v;
  ea_self_attention_quant_weights weights{};

  explicit Planned(const Case& c) {
    const Shape& s = c.shape;
    config.dtype = c.dtype;
    config.max_tokens = s.n;
    config.d_model = s.d_model;
    config.d_k = s.d_k;
    config.d_v = s.d_v;
    config.mask = s.causal ? EA_MASK_CAUSAL : EA_MASK_NONE;
    config.position = s.positions == Positions::kNone         ? EA_POSITION_NONE
                      : s.positions == Positions::kSinusoidal ? EA_POSITION_SINUSOIDAL
                                                              : EA_POSITION_LEARNED;
    scales = c.scales;
    scales.w_q_scales = c.w_q_scales.data();
    scales.w_k_scales = c.w_k_scales.data();
    scales.w_v_scales = c.w_v_scales.data();
    config.quant_scales = &scales;
    table.assign(c.learned_table.begin(), c.learned_table.end());
    if (s.positions == Positions::kLearned) config.quant_position_table = table.data();
    b_q.assign(c.b_q.begin(), c.b_q.end());
    b_k.assign(c.b_k.begin(), c.b_k.end());
    b_v.assign(c.b_v.begin(), c.b_v.end());
    weights = {c.w_q.data(), c.w_k.data(), c.w_v.data(), b_q.data(), b_k.data(), b_v.data()};
  }
};

template <typename T, typename Bias>
Result RunTyped(const Case& c) {
  Result result;
  Planned<T, Bias> p(c);
  if (c.give_integers) {
    p.channel_ints.resize(EA_SELF_ATTENTION_QUANT_CHANNEL_INTS(c.shape.d_k, c.shape.d_v));
    result.status = ea_self_attention_quant_derive(&p.config, &p.params, p.channel_ints.data(),
                                                   p.channel_ints.size());
    if (result.status != EA_OK) return result;
    p.config.quant_params = &p.params;
    p.config.quant_scales = nullptr;  // a sinusoid's quantization is in the integers
    if (c.device_tables) {
      p.params.attention.softmax.exp_lut = DeviceExpLut();
      p.params.attention.softmax.one_over_one_plus_x_lut = DeviceReciprocalLut();
    }
  }
  size_t bytes = 0;
  result.status = ea_self_attention_quant_arena_size(&p.config, &bytes);
  if (result.status != EA_OK) return result;
  AlignedBytes storage(bytes);
  ea_arena arena;
  ea_arena_init(&arena, storage.data(), bytes);
  ea_self_attention_quant_plan plan{};
  result.status = ea_self_attention_quant_init(&plan, &p.config, &p.weights, &arena);
  if (result.status != EA_OK) return result;
  EXPECT_EQ(arena.used, bytes);
  const std::vector<T> x(c.x_emb.begin(), c.x_emb.end());
  const size_t n = static_cast<size_t>(c.shape.n);
  std::vector<T> y(n * c.shape.d_v), probs(n * n);
  if constexpr (sizeof(T) == 1) {
    result.status = ea_self_attention_quant_run_s8(&plan, x.data(), c.shape.n, c.ValidKeys(),
                                                   y.data(), probs.data());
  } else {
    result.status = ea_self_attention_quant_run_s16(&plan, x.data(), c.shape.n, c.ValidKeys(),
                                                    y.data(), probs.data());
  }
  result.y.assign(y.begin(), y.end());
  result.probs.assign(probs.begin(), probs.end());
  return result;
}

Result RunCase(const Case& c) {
  return IsInt8(c.dtype) ? RunTyped<int8_t, int32_t>(c) : RunTyped<int16_t, int64_t>(c);
}

// The chain through the reference's ops, from the same scales.
template <typename T, typename Bias>
Result ReferenceTyped(const Case& c) {
  const Shape& s = c.shape;
  const size_t n = static_cast<size_t>(s.n);
  std::vector<T> x(c.x_emb.begin(), c.x_emb.end());
  if (s.positions != Positions::kNone) {
    std::vector<T> table(c.learned_table.begin(), c.learned_table.end());
    if (s.positions == Positions::kSinusoidal) {
      std::vector<float> sinusoid(n * s.d_model);
      EXPECT_EQ(ea_sinusoidal_table_fill(sinusoid.data(), s.n, s.d_model), EA_OK);
      for (float value : sinusoid) {
        table.push_back(static_cast<T>(tflite_ref::AffineQuantize(value, c.scales.position.scale,
                                                                  c.scales.position.zero_point,
                                                                  MinOf(c.dtype), MaxOf(c.dtype))));
      }
    }
    const tflite_ref::AddParams add =
        tflite_ref::PrepareAdd(RefQuant(c.scales.input), RefQuant(c.scales.position),
                               RefQuant(c.scales.positioned), IsInt8(c.dtype) ? 20 : 15);
    x = tflite_ref::Add(add, x.data(), table.data(), x.size());
  }
  const ea_quant x_quant = s.positions != Positions::kNone ? c.scales.positioned : c.scales.input;
  const auto project = [&](const std::vector<int8_t>& w, const std::vector<float>& scales,
                           const std::vector<int64_t>& bias, ea_quant out, int channels) {
    const std::vector<Bias> b(bias.begin(), bias.end());
    return tflite_ref::FullyConnectedPerChannel(
        tflite_ref::PrepareFullyConnectedPerChannel(RefQuant(x_quant), scales.data(), channels,
                                                    RefQuant(out)),
        x.data(), s.n, s.d_model, w.data(), b.data(), channels);
  };
  const std::vector<T> q = project(c.w_q, c.w_q_scales, c.b_q, c.scales.q, s.d_k);
  const std::vector<T> k = project(c.w_k, c.w_k_scales, c.b_k, c.scales.k, s.d_k);
  const std::vector<T> v = project(c.w_v, c.w_v_scales, c.b_v, c.scales.v, s.d_v);
  const std::vector<T> scores = tflite_ref::BatchMatMul(
      tflite_ref::PrepareBatchMatMul(RefQuant(c.scales.q), RefQuant(c.scales.k),
                                     RefQuant(c.scales.scores)),
      q.data(), s.n, s.d_k, k.data(), s.n);
  const float beta = 1.0f / sqrtf(static_cast<float>(s.d_k));
  std::vector<T> probs(n * n, static_cast<T>(MinOf(c.dtype) == -128 ? -128 : 0));
  for (int i = 0; i < s.n; ++i) {
    const int visible = tflite_ref::VisibleKeysOf(s.causal, s.n, s.n, c.ValidKeys(), i);
    if (visible == 0) continue;  // every probability at the zero value
    const T* row = scores.data() + static_cast<size_t>(i) * n;
    T* p = probs.data() + static_cast<size_t>(i) * n;
    if constexpr (sizeof(T) == 1) {
      tflite_ref::SoftmaxInt8Row(tflite_ref::PrepareSoftmaxInt8(beta, c.scales.scores.scale), row,
                                 visible, p);
    } else {
      tflite_ref::SoftmaxInt16Row(
          tflite_ref::PrepareSoftmaxInt16(
              beta, c.scales.scores.scale, c.device_tables ? DeviceExpLut() : TfliteExpLut(),
              c.device_tables ? DeviceReciprocalLut() : TfliteReciprocalLut()),
          row, visible, p);
    }
  }
  std::vector<T> v_t(static_cast<size_t>(s.d_v) * n);
  for (size_t j = 0; j < n; ++j) {
    for (int t = 0; t < s.d_v; ++t) v_t[t * n + j] = v[j * s.d_v + t];
  }
  const tflite_ref::TensorQuantization probs_quant =
      IsInt8(c.dtype) ? tflite_ref::TensorQuantization{1.0f / 256, -128}
                      : tflite_ref::TensorQuantization{1.0f / 32768, 0};
  const std::vector<T> y = tflite_ref::BatchMatMul(
      tflite_ref::PrepareBatchMatMul(probs_quant, RefQuant(c.scales.v), RefQuant(c.scales.output)),
      probs.data(), s.n, s.n, v_t.data(), s.d_v);
  Result r;
  r.status = EA_OK;
  r.y.assign(y.begin(), y.end());
  r.probs.assign(probs.begin(), probs.end());
  return r;
}

Result ReferenceCase(const Case& c) {
  return IsInt8(c.dtype) ? ReferenceTyped<int8_t, int32_t>(c) : ReferenceTyped<int16_t, int64_t>(c);
}

std::string Describe(const Case& c) {
  const Shape& s = c.shape;
  return std::string(IsInt8(c.dtype) ? "s8" : "s16") + " n" + std::to_string(s.n) + " d_model " +
         std::to_string(s.d_model) + " d_k " + std::to_string(s.d_k) + " d_v " +
         std::to_string(s.d_v) + (s.causal ? " causal" : " full") +
         (s.positions == Positions::kNone         ? " no positions"
          : s.positions == Positions::kSinusoidal ? " sinusoid"
                                                  : " learned") +
         (c.give_integers ? " given integers" : "") + (c.device_tables ? ", device tables" : "") +
         " valid keys " + std::to_string(c.ValidKeys());
}

class QuantSelfAttention : public PerTargetTest {};

TEST_P(QuantSelfAttention, OneHeadGoldenCasesGiveTflitesContext) {
  int checked = 0;
  for (size_t i = 0; i < tflite_golden::kGoldenCaseCount; ++i) {
    const tflite_golden::GoldenCase& g = tflite_golden::kGoldenCases[i];
    if (g.heads != 1 || g.blobs.x_emb.data == nullptr || g.blobs.o.data == nullptr) continue;
    const Case c = FromGoldenHead(g);
    const Result r = RunCase(c);
    ASSERT_EQ(r.status, EA_OK) << g.name;
    EXPECT_EQ(r.y, GoldenValues(g, g.blobs.o)) << g.name;
    if (g.blobs.probs[0].data != nullptr) {
      EXPECT_EQ(r.probs, GoldenValues(g, g.blobs.probs[0])) << g.name;
    }
    ++checked;
  }
  if (checked == 0)
    GTEST_SKIP() << "no one-head golden case is embedded in this small-memory build";
}

const Shape kShapes[] = {
    {1, 4, 4, 4, false, Positions::kSinusoidal},    {3, 16, 8, 5, true, Positions::kNone},
    {17, 12, 20, 7, true, Positions::kLearned},     {63, 32, 16, 48, false, Positions::kSinusoidal},
    {65, 24, 64, 24, true, Positions::kSinusoidal}, {130, 48, 33, 17, false, Positions::kLearned},
};

TEST_P(QuantSelfAttention, RandomShapesEqualTheReferenceOps) {
  uint64_t seed = 9100;
  for (ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    for (const Shape& s : kShapes) {
      // The given integers of int16 cases also with a device's softmax tables.
      for (int variant = 0; variant < (dtype == EA_DTYPE_INT16 ? 3 : 2); ++variant) {
        Case c = RandomCase(dtype, s, seed++);
        c.give_integers = variant > 0;
        c.device_tables = variant == 2;
        const Result r = RunCase(c);
        ASSERT_EQ(r.status, EA_OK) << Describe(c);
        const Result want = ReferenceCase(c);
        EXPECT_EQ(r.probs, want.probs) << Describe(c);
        EXPECT_EQ(r.y, want.y) << Describe(c);
      }
    }
  }
}

// Key padding: none valid, one, half, all but one.
TEST_P(QuantSelfAttention, PaddedKeysEqualTheReferenceOps) {
  uint64_t seed = 9150;
  for (ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    for (const Shape& s : kShapes) {
      for (const int valid : {0, 1, s.n / 2, s.n - 1}) {
        Case c = RandomCase(dtype, s, seed++);
        c.n_valid_keys = valid;
        const Result r = RunCase(c);
        ASSERT_EQ(r.status, EA_OK) << Describe(c);
        const Result want = ReferenceCase(c);
        EXPECT_EQ(r.probs, want.probs) << Describe(c);
        EXPECT_EQ(r.y, want.y) << Describe(c);
      }
    }
  }
}

EA_INSTANTIATE_PER_TARGET(QuantSelfAttention);

// The tables are read in place, as the weights: not from the bytes the plan
// carves, and never under an output.
TEST(QuantSelfAttentionTables, KeptOutOfTheArenaAndTheOutputs) {
  const Case c = RandomCase(EA_DTYPE_INT16, {6, 8, 4, 5, true, Positions::kNone}, 9160);
  Planned<int16_t, int64_t> p(c);
  p.channel_ints.resize(EA_SELF_ATTENTION_QUANT_CHANNEL_INTS(4, 5));
  ASSERT_EQ(ea_self_attention_quant_derive(&p.config, &p.params, p.channel_ints.data(),
                                           p.channel_ints.size()),
            EA_OK);
  p.config.quant_params = &p.params;
  std::vector<int16_t> tables(DeviceExpLut(), DeviceExpLut() + 513);
  tables.insert(tables.end(), DeviceReciprocalLut(), DeviceReciprocalLut() + 513);
  p.params.attention.softmax.exp_lut = tables.data();
  p.params.attention.softmax.one_over_one_plus_x_lut = tables.data() + 513;
  size_t bytes = 0;
  ASSERT_EQ(ea_self_attention_quant_arena_size(&p.config, &bytes), EA_OK);
  AlignedBytes storage(bytes + 2048);
  ea_arena arena;
  ea_self_attention_quant_plan plan{};
  // The reciprocal table copied into the carve.
  memcpy(storage.data() + 128, tables.data() + 513, 513 * sizeof(int16_t));
  p.params.attention.softmax.one_over_one_plus_x_lut =
      reinterpret_cast<const int16_t*>(storage.data() + 128);
  ea_arena_init(&arena, storage.data(), bytes + 2048);
  EXPECT_STATUS(ea_self_attention_quant_init(&plan, &p.config, &p.weights, &arena),
                EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(arena.used, 0u);
  p.params.attention.softmax.one_over_one_plus_x_lut = tables.data() + 513;
  ASSERT_EQ(ea_self_attention_quant_init(&plan, &p.config, &p.weights, &arena), EA_OK);
  const std::vector<int16_t> x(c.x_emb.begin(), c.x_emb.end()), before = tables;
  EXPECT_STATUS(
      ea_self_attention_quant_run_s16(&plan, x.data(), 6, 6, tables.data() + 300, nullptr),
      EA_ERR_BAD_ARGUMENT);
  std::vector<int16_t> y(6 * 5);
  EXPECT_STATUS(
      ea_self_attention_quant_run_s16(&plan, x.data(), 6, 6, y.data(), tables.data() + 900),
      EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(tables, before);
  EXPECT_STATUS(ea_self_attention_quant_run_s16(&plan, x.data(), 6, 6, y.data(), nullptr), EA_OK);
}

// A valid int8 plan and its buffers, for the refusals.
struct Refusals : testing::Test {
  Case c = RandomCase(EA_DTYPE_INT8, {6, 8, 4, 5, true, Positions::kSinusoidal}, 9300);
  Planned<int8_t, int32_t> p{c};
  size_t bytes = 0;
  AlignedBytes storage{edgeattn::SelfAttentionQuantArenaBytes(6, 8, 4, 5, EA_DTYPE_INT8,
                                                              edgeattn::PositionStorage::kArena)};
  ea_arena arena{};
  ea_self_attention_quant_plan plan{};
  std::vector<int8_t> x = std::vector<int8_t>(c.x_emb.begin(), c.x_emb.end());

  void SetUp() override {
    ASSERT_EQ(ea_self_attention_quant_arena_size(&p.config, &bytes), EA_OK);
    ASSERT_EQ(bytes, storage.size());
    ea_arena_init(&arena, storage.data(), bytes);
    ASSERT_EQ(ea_self_attention_quant_init(&plan, &p.config, &p.weights, &arena), EA_OK);
  }

  // init on a fresh arena must refuse `config` with `expected` and write
  // neither the plan's fields past `ready`, nor the arena.
  void ExpectPlanRefused(const ea_self_attention_config& config,
                         const ea_self_attention_quant_weights& weights, ea_status expected) {
    AlignedBytes fresh(1 << 14, kCanaryByte);
    ea_arena a{};
    ea_arena_init(&a, fresh.data(), fresh.size());
    ea_self_attention_quant_plan refused{};
    UntouchedBytes watched;
    watched.FillWithCanary("plan", &refused, sizeof(refused));
    watched.Remember("arena", fresh.data(), fresh.size());
    watched.Remember("arena struct", &a, sizeof(a));
    EXPECT_STATUS(ea_self_attention_quant_init(&refused, &config, &weights, &a), expected);
    memset(&refused.ready, kCanaryByte, sizeof(refused.ready));  // cleared by design
    watched.ExpectUntouched();
  }
};

TEST_F(Refusals, PlanInitRefusesBadConfigsAndWritesNothing) {
  ea_self_attention_config config = p.config;
  ea_self_attention_quant_scales scales = p.scales;
  config.quant_scales = &scales;
  scales.v.scale = 0.0f;
  ExpectPlanRefused(config, p.weights, EA_ERR_BAD_ARGUMENT);
  scales = p.scales;
  scales.scores.zero_point = 128;
  ExpectPlanRefused(config, p.weights, EA_ERR_BAD_ARGUMENT);
  scales = p.scales;
  scales.w_k_scales = nullptr;
  ExpectPlanRefused(config, p.weights, EA_ERR_NULL_POINTER);
  scales = p.scales;
  std::vector<float> huge(c.w_v_scales.size(), 1e30f);  // a shift past 30
  scales.w_v_scales = huge.data();
  ExpectPlanRefused(config, p.weights, EA_ERR_BAD_ARGUMENT);
  config = p.config;
  config.quant_scales = nullptr;
  ExpectPlanRefused(config, p.weights, EA_ERR_NULL_POINTER);
  config = p.config;
  config.max_tokens = 65536;
  ExpectPlanRefused(config, p.weights, EA_ERR_DIMENSION_OVERFLOW);
  config = p.config;
  config.d_v = 0;
  ExpectPlanRefused(config, p.weights, EA_ERR_BAD_DIMENSION);
  config = p.config;
  config.position = EA_POSITION_LEARNED;  // without a quantized table
  ExpectPlanRefused(config, p.weights, EA_ERR_NULL_POINTER);
  config = p.config;
  config.dtype = EA_DTYPE_F32;
  ExpectPlanRefused(config, p.weights, EA_ERR_BAD_ARGUMENT);
  ea_self_attention_quant_weights weights = p.weights;
  weights.w_v = nullptr;
  ExpectPlanRefused(p.config, weights, EA_ERR_NULL_POINTER);
  // Given integers are range-checked as derived ones.
  std::vector<int32_t> ints(EA_SELF_ATTENTION_QUANT_CHANNEL_INTS(4, 5));
  ea_self_attention_quant_params params{};
  ASSERT_EQ(ea_self_attention_quant_derive(&p.config, &params, ints.data(), ints.size()), EA_OK);
  config = p.config;
  config.quant_params = &params;
  ints[2 * 4 + 1] = -1;  // a negative multiplier of k_proj's channel 1
  ExpectPlanRefused(config, p.weights, EA_ERR_BAD_ARGUMENT);
  ints[2 * 4 + 1] = 1 << 30;
  params.attention.context.input_offset = 0;  // int8 probabilities' offset is 128
  ExpectPlanRefused(config, p.weights, EA_ERR_BAD_ARGUMENT);
  // Too few channel ints for derive, and derive writes nothing then.
  std::vector<int32_t> few(ints.size() - 1, 7);
  EXPECT_STATUS(ea_self_attention_quant_derive(&p.config, &params, few.data(), few.size()),
                EA_ERR_ARENA_TOO_SMALL);
  EXPECT_EQ(few, std::vector<int32_t>(ints.size() - 1, 7));
  // The float plan refuses fixed-point configs.
  ea_self_attention_plan float_plan{};
  const std::vector<float> w(8 * 8);
  const ea_self_attention_weights float_weights{w.data(), w.data(), w.data(),
                                                nullptr,  nullptr,  nullptr};
  EXPECT_STATUS(ea_self_attention_init(&float_plan, &p.config, &float_weights, &arena),
                EA_ERR_BAD_ARGUMENT);
}

TEST_F(Refusals, Int16PlansRefuseZeroPointsAndBiasesOutsideTflitesDomain) {
  Case c16 = RandomCase(EA_DTYPE_INT16, {5, 8, 4, 4, false, Positions::kNone}, 9301);
  Planned<int16_t, int64_t> p16(c16);
  ea_self_attention_quant_scales scales = p16.scales;
  ea_self_attention_config config = p16.config;
  config.quant_scales = &scales;
  scales.q.zero_point = 1;
  ExpectPlanRefused(config, p16.weights, EA_ERR_BAD_ARGUMENT);
  std::vector<int64_t> bias = p16.b_v;
  bias[3] = int64_t{1} << 47;
  ea_self_attention_quant_weights weights = p16.weights;
  weights.b_v = bias.data();
  ExpectPlanRefused(p16.config, weights, EA_ERR_BAD_ARGUMENT);
}

// Biases and the table are void* in the C API: a misaligned one is legal C,
// refused before the plan reads it (an int64 bias, an int16 table).
template <typename T, typename Bias>
void ExpectMisalignedTensorsRefused(Refusals* test, const Case& c) {
  Planned<T, Bias> p(c);
  AlignedBytes loose(4096, 0);
  for (size_t skew = 1; skew < sizeof(Bias); ++skew) {
    SCOPED_TRACE(testing::Message() << "bias skew " << skew);
    void* b_k = loose.data() + skew;
    memcpy(b_k, p.b_k.data(), p.b_k.size() * sizeof(Bias));
    ea_self_attention_quant_weights weights = p.weights;
    weights.b_k = b_k;
    test->ExpectPlanRefused(p.config, weights, EA_ERR_BAD_ARGUMENT);
  }
  void* table = loose.data() + 1;
  memcpy(table, p.table.data(), p.table.size() * sizeof(T));
  ea_self_attention_config config = p.config;
  config.quant_position_table = table;
  if (sizeof(T) > 1) test->ExpectPlanRefused(config, p.weights, EA_ERR_BAD_ARGUMENT);
}

TEST_F(Refusals, MisalignedBiasesAndTablesAreRefused) {
  const Shape shape{5, 8, 4, 4, false, Positions::kLearned};
  ExpectMisalignedTensorsRefused<int8_t, int32_t>(this, RandomCase(EA_DTYPE_INT8, shape, 9302));
  ExpectMisalignedTensorsRefused<int16_t, int64_t>(this, RandomCase(EA_DTYPE_INT16, shape, 9303));
}

TEST_F(Refusals, RunRefusesAndWritesNothing) {
  std::vector<int8_t> y(6 * 5, 0x55), probs(36, 0x55);
  const std::vector<int8_t> y0 = y, probs0 = probs;
  EXPECT_STATUS(ea_self_attention_quant_run_s8(&plan, nullptr, 6, 6, y.data(), nullptr),
                EA_ERR_NULL_POINTER);
  EXPECT_STATUS(ea_self_attention_quant_run_s8(&plan, x.data(), 0, 0, y.data(), probs.data()),
                EA_ERR_BAD_DIMENSION);
  EXPECT_STATUS(ea_self_attention_quant_run_s8(&plan, x.data(), 7, 7, y.data(), probs.data()),
                EA_ERR_BAD_DIMENSION);
  EXPECT_STATUS(ea_self_attention_quant_run_s8(&plan, x.data(), 6, -1, y.data(), probs.data()),
                EA_ERR_BAD_ARGUMENT);  // n_valid_keys outside [0, n_tokens]
  EXPECT_STATUS(ea_self_attention_quant_run_s8(&plan, x.data(), 6, 7, y.data(), probs.data()),
                EA_ERR_BAD_ARGUMENT);
  std::vector<int16_t> x16(6 * 8), y16(6 * 5);
  EXPECT_STATUS(ea_self_attention_quant_run_s16(&plan, x16.data(), 6, 6, y16.data(), nullptr),
                EA_ERR_BAD_ARGUMENT);  // an int8 plan
  EXPECT_STATUS(ea_self_attention_quant_run_s8(&plan, x.data(), 6, 6,
                                               reinterpret_cast<int8_t*>(storage.data()), nullptr),
                EA_ERR_BAD_ARGUMENT);  // y inside the plan's arena
  EXPECT_STATUS(ea_self_attention_quant_run_s8(&plan, x.data(), 6, 6, y.data(), y.data() + 4),
                EA_ERR_BAD_ARGUMENT);  // y and the probabilities overlap
  EXPECT_STATUS(ea_self_attention_quant_run_s8(&plan, x.data(), 6, 6,
                                               const_cast<int8_t*>(c.w_q.data()), nullptr),
                EA_ERR_BAD_ARGUMENT);  // y over the weights
  EXPECT_EQ(y, y0);
  EXPECT_EQ(probs, probs0);
  ea_self_attention_quant_plan not_ready{};
  EXPECT_STATUS(ea_self_attention_quant_run_s8(&not_ready, x.data(), 6, 6, y.data(), nullptr),
                EA_ERR_BAD_ARGUMENT);
}

// A sinusoid filled at plan time is quantized with the integers' position
// (derive fills it) without quant_scales, and wins over the scales'; all
// zero, the scales' is read; the plan from the scales alone gives the same
// bits. Bad ones are refused by the size call and init, and ignored where no
// table is filled. (int16: every random case with given integers runs
// without scales against the reference, RandomShapesEqualTheReferenceOps.)
TEST_F(Refusals, PlanTimeTableQuantizationFromTheIntegersOrTheScales) {
  const auto plan_and_run = [this](const ea_self_attention_config& config) {
    std::vector<int8_t> y(6 * 5, 0x55);
    edgeattn_test::Planned<ea_self_attention_quant_plan, ea_self_attention_config,
                           ea_self_attention_quant_weights>
        own(ea_self_attention_quant_arena_size, ea_self_attention_quant_init, config, p.weights);
    EXPECT_STATUS(own.status, EA_OK);
    EXPECT_STATUS(ea_self_attention_quant_run_s8(&own.plan, x.data(), 6, 6, y.data(), nullptr),
                  EA_OK);
    // And ADD(x, P) as the plan kept it: the table's quantization shows there.
    if (own.plan.x_positioned != nullptr) {
      const int8_t* positioned = static_cast<const int8_t*>(own.plan.x_positioned);
      y.insert(y.end(), positioned, positioned + 6 * 8);
    }
    return y;
  };
  std::vector<int8_t> want(6 * 5);
  ASSERT_EQ(ea_self_attention_quant_run_s8(&plan, x.data(), 6, 6, want.data(), nullptr), EA_OK);
  ASSERT_NE(plan.x_positioned, nullptr);
  const int8_t* positioned = static_cast<const int8_t*>(plan.x_positioned);
  want.insert(want.end(), positioned, positioned + 6 * 8);
  std::vector<int32_t> channels(EA_SELF_ATTENTION_QUANT_CHANNEL_INTS(4, 5));
  ea_self_attention_quant_params given{};
  ASSERT_EQ(ea_self_attention_quant_derive(&p.config, &given, channels.data(), channels.size()),
            EA_OK);
  EXPECT_EQ(given.position.scale, p.scales.position.scale);
  EXPECT_EQ(given.position.zero_point, p.scales.position.zero_point);
  ea_self_attention_config config = p.config;
  config.quant_params = &given;
  config.quant_scales = nullptr;
  EXPECT_EQ(plan_and_run(config), want);
  ea_self_attention_quant_scales doubled = p.scales;
  doubled.position.scale *= 2.0f;
  config.quant_scales = &doubled;  // not read: the integers carry the table's
  EXPECT_EQ(plan_and_run(config), want);
  const ea_quant derived_position = given.position;
  given.position = ea_quant{};  // not given: the (doubled) scales' is read
  EXPECT_NE(plan_and_run(config), want);
  config.quant_scales = &p.scales;
  EXPECT_EQ(plan_and_run(config), want);
  config.quant_scales = nullptr;
  ExpectPlanRefused(config, p.weights, EA_ERR_NULL_POINTER);
  size_t need = 0;
  EXPECT_STATUS(ea_self_attention_quant_arena_size(&config, &need), EA_ERR_NULL_POINTER);
  given.position = derived_position;
  ea_self_attention_config with_table = config;  // a precomputed table: position not read
  const std::vector<int8_t> table(6 * 8, 3);
  with_table.quant_position_table = table.data();
  const std::vector<int8_t> with_table_y = plan_and_run(with_table);
  for (const ea_quant bad : {ea_quant{std::numeric_limits<float>::quiet_NaN(), 0},
                             ea_quant{0.0f, 1}, ea_quant{-0.0f, 0}, ea_quant{1.0f / 128, 128}}) {
    given.position = bad;
    ExpectPlanRefused(config, p.weights, EA_ERR_BAD_ARGUMENT);
    EXPECT_STATUS(ea_self_attention_quant_arena_size(&config, &need), EA_ERR_BAD_ARGUMENT);
    EXPECT_EQ(plan_and_run(with_table), with_table_y);
  }
}

TEST_F(Refusals, InPlaceRunEqualsTheSeparateOne) {
  // d_v < d_model: y over the start of x, as a firmware buffer reused in place.
  std::vector<int8_t> y(6 * 5);
  ASSERT_EQ(ea_self_attention_quant_run_s8(&plan, x.data(), 6, 6, y.data(), nullptr), EA_OK);
  std::vector<int8_t> buffer = x;
  ASSERT_EQ(ea_self_attention_quant_run_s8(&plan, buffer.data(), 6, 6, buffer.data(), nullptr),
            EA_OK);
  EXPECT_EQ(std::vector<int8_t>(buffer.begin(), buffer.begin() + 30), y);
}

}  // namespace
}  // namespace edgeattn_test
