// Fixed-point Attention(Q, K, V) (ea_attention_quant_init,
// ea_attention_quant_run_s8 / _s16) against the integer reference's BATCH_MATMUL,
// SOFTMAX and BATCH_MATMUL (tests/reference/tflite_chain_reference.h) on
// every SIMD target: n_q != n_kv with the bottom-right causal mask, d_k != d_v,
// custom softmax scales, and the run's refusals.
#include <gtest/gtest.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <vector>

#include <algorithm>

#include "data/tflite/golden_cases.h"
#include "edgeattn/edgeattn.h"
#include "reference/device_softmax_luts.h"
#include "reference/quant_test_values.h"
#include "reference/random_tensor.h"
#include "reference/tflite_chain_reference.h"
#include "simd_targets.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

struct Shape {
  int n_q, n_kv, d_k, d_v;
  bool causal;
  float scale;  // 0: 1/sqrt(d_k)
};

template <typename T>
struct Case {
  ea_attention_config config{};
  ea_attention_quant_scales scales{};
  ea_attention_quant_params params{};  // where the config gives integers
  std::vector<T> q, k, v;
  // The int16 softmax's tables of the reference (and of params where given).
  const int16_t* exp_lut = TfliteExpLut();
  const int16_t* reciprocal_lut = TfliteReciprocalLut();
};

template <typename T>
Case<T> MakeCase(const Shape& s, uint64_t seed) {
  RandomStream random(seed);
  constexpr bool kInt8 = sizeof(T) == 1;
  const auto draw = [&](int32_t lo, int32_t hi) {
    return static_cast<int32_t>(
        lo + static_cast<int64_t>(random.Uniform() *
                                  (static_cast<double>(hi) - static_cast<double>(lo) + 1.0)));
  };
  const auto zero_point = [&]() { return kInt8 ? draw(-128, 127) : 0; };
  Case<T> c;
  c.config.dtype = kInt8 ? EA_DTYPE_INT8 : EA_DTYPE_INT16;
  c.config.n_q = s.n_q;
  c.config.n_kv = s.n_kv;
  c.config.d_k = s.d_k;
  c.config.d_v = s.d_v;
  c.config.mask = s.causal ? EA_MASK_CAUSAL : EA_MASK_NONE;
  c.config.scale = s.scale;
  const float range = kInt8 ? 74.0f : 18900.0f;  // typical |value| in LSB
  c.scales.q = {0.05f, zero_point()};
  c.scales.k = {0.04f, zero_point()};
  c.scales.v = {0.03f, zero_point()};
  c.scales.scores = {0.05f * 0.04f * range * sqrtf(static_cast<float>(s.d_k)) / 4.0f, zero_point()};
  c.scales.output = {0.03f * 0.7f, zero_point()};
  c.config.quant_scales = &c.scales;
  const int32_t lo = kInt8 ? -128 : -32768, hi = kInt8 ? 127 : 32767;
  for (int i = 0; i < s.n_q * s.d_k; ++i) c.q.push_back(static_cast<T>(draw(lo, hi)));
  for (int i = 0; i < s.n_kv * s.d_k; ++i) c.k.push_back(static_cast<T>(draw(lo, hi)));
  for (int i = 0; i < s.n_kv * s.d_v; ++i) c.v.push_back(static_cast<T>(draw(lo, hi)));
  return c;
}

// The reference chain: probabilities (masked: the zero probability) and out;
// keys from n_valid_keys on are padding, outside every row's softmax.
template <typename T>
void Reference(const Case<T>& c, int32_t n_valid_keys, std::vector<T>* probs, std::vector<T>* out) {
  const ea_attention_config& cfg = c.config;
  constexpr bool kInt8 = sizeof(T) == 1;
  const tflite_ref::TensorQuantization probs_quant =
      kInt8 ? tflite_ref::TensorQuantization{1.0f / 256, -128}
            : tflite_ref::TensorQuantization{1.0f / 32768, 0};
  const float beta = cfg.scale != 0.0f ? cfg.scale : 1.0f / sqrtf(static_cast<float>(cfg.d_k));
  const std::vector<T> scores = tflite_ref::BatchMatMul(
      tflite_ref::PrepareBatchMatMul(RefQuant(c.scales.q), RefQuant(c.scales.k),
                                     RefQuant(c.scales.scores)),
      c.q.data(), cfg.n_q, cfg.d_k, c.k.data(), cfg.n_kv);
  probs->assign(static_cast<size_t>(cfg.n_q) * cfg.n_kv, static_cast<T>(kInt8 ? -128 : 0));
  for (int i = 0; i < cfg.n_q; ++i) {
    const int visible =
        tflite_ref::VisibleKeysOf(cfg.mask == EA_MASK_CAUSAL, cfg.n_q, cfg.n_kv, n_valid_keys, i);
    if (visible == 0) continue;
    const T* row = scores.data() + static_cast<size_t>(i) * cfg.n_kv;
    T* p = probs->data() + static_cast<size_t>(i) * cfg.n_kv;
    if constexpr (kInt8) {
      tflite_ref::SoftmaxInt8Row(tflite_ref::PrepareSoftmaxInt8(beta, c.scales.scores.scale), row,
                                 visible, p);
    } else {
      tflite_ref::SoftmaxInt16Row(
          tflite_ref::PrepareSoftmaxInt16(beta, c.scales.scores.scale, c.exp_lut, c.reciprocal_lut),
          row, visible, p);
    }
  }
  std::vector<T> v_t(static_cast<size_t>(cfg.d_v) * cfg.n_kv);
  for (int j = 0; j < cfg.n_kv; ++j) {
    for (int t = 0; t < cfg.d_v; ++t) {
      v_t[static_cast<size_t>(t) * cfg.n_kv + j] = c.v[static_cast<size_t>(j) * cfg.d_v + t];
    }
  }
  *out = tflite_ref::BatchMatMul(
      tflite_ref::PrepareBatchMatMul(probs_quant, RefQuant(c.scales.v), RefQuant(c.scales.output)),
      probs->data(), cfg.n_q, cfg.n_kv, v_t.data(), cfg.d_v);
}

class QuantAttention : public PerTargetTest {};

// The config's integers from its scales by the reference's Prepare
// (TFLite's), with a device's int16 softmax tables.
void GiveIntegersWithDeviceTables(Case<int16_t>* c) {
  const auto matmul = [](const tflite_ref::BatchMatMulParams& p) {
    return ea_matmul_quant_params{p.lhs_offset, p.rhs_offset, p.output_offset, p.output_multiplier,
                                  p.output_shift};
  };
  c->exp_lut = DeviceExpLut();
  c->reciprocal_lut = DeviceReciprocalLut();
  const float beta =
      c->config.scale != 0.0f ? c->config.scale : 1.0f / sqrtf(static_cast<float>(c->config.d_k));
  c->params.scores = matmul(tflite_ref::PrepareBatchMatMul(
      RefQuant(c->scales.q), RefQuant(c->scales.k), RefQuant(c->scales.scores)));
  const tflite_ref::SoftmaxInt16Params softmax =
      tflite_ref::PrepareSoftmaxInt16(beta, c->scales.scores.scale, c->exp_lut, c->reciprocal_lut);
  c->params.softmax.input_multiplier = softmax.input_multiplier;
  c->params.softmax.input_left_shift = softmax.input_left_shift;
  c->params.softmax.exp_lut = softmax.exp_lut;
  c->params.softmax.one_over_one_plus_x_lut = softmax.one_over_one_plus_x_lut;
  c->params.context =
      matmul(tflite_ref::PrepareBatchMatMul(tflite_ref::TensorQuantization{1.0f / 32768, 0},
                                            RefQuant(c->scales.v), RefQuant(c->scales.output)));
  c->config.quant_params = &c->params;
}

// Plans the case in an arena of ea_attention_quant_arena_size's bytes (and
// checks that init carves them all) and runs it into out and probs, sized
// by the caller.
template <typename T>
ea_status PlanAndRun(const Case<T>& c, int32_t n_valid_keys, std::vector<T>* out,
                     std::vector<T>* probs) {
  size_t bytes = 0;
  ea_status status = ea_attention_quant_arena_size(&c.config, &bytes);
  if (status != EA_OK) return status;
  AlignedBytes storage(bytes);
  ea_arena arena;
  ea_arena_init(&arena, storage.data(), bytes);
  ea_attention_quant_plan plan{};
  status = ea_attention_quant_init(&plan, &c.config, &arena);
  if (status != EA_OK) return status;
  EXPECT_EQ(arena.used, bytes);
  if constexpr (sizeof(T) == 1) {
    return ea_attention_quant_run_s8(&plan, c.q.data(), c.k.data(), c.v.data(), n_valid_keys,
                                     out->data(), probs->data());
  } else {
    return ea_attention_quant_run_s16(&plan, c.q.data(), c.k.data(), c.v.data(), n_valid_keys,
                                      out->data(), probs->data());
  }
}

// n_valid_keys < 0: no padding.
template <typename T>
void ExpectSameAsReference(const Shape& s, uint64_t seed, bool device_tables = false,
                           int32_t n_valid_keys = -1) {
  Case<T> c = MakeCase<T>(s, seed);
  const int32_t valid = n_valid_keys < 0 ? s.n_kv : n_valid_keys;
  if constexpr (sizeof(T) == 2) {
    if (device_tables) GiveIntegersWithDeviceTables(&c);
  }
  std::vector<T> out(static_cast<size_t>(s.n_q) * s.d_v),
      probs(static_cast<size_t>(s.n_q) * s.n_kv);
  ASSERT_EQ(PlanAndRun(c, valid, &out, &probs), EA_OK);
  std::vector<T> want_probs, want_out;
  Reference(c, valid, &want_probs, &want_out);
  EXPECT_EQ(probs, want_probs) << s.n_q << "x" << s.n_kv << " d " << s.d_k << "/" << s.d_v
                               << " valid " << valid;
  EXPECT_EQ(out, want_out) << s.n_q << "x" << s.n_kv << " d " << s.d_k << "/" << s.d_v << " valid "
                           << valid;
}

const Shape kShapes[] = {{1, 1, 4, 4, false, 0.0f},
                         {3, 17, 8, 5, true, 0.0f},
                         {17, 3, 16, 16, true, 0.0f},
                         {40, 100, 64, 32, true, 0.0f},
                         {65, 65, 24, 72, false, 0.3f},
                         {7, 300, 32, 16, false, 0.0f},
                         // d_k past 128: int16 scores in several int32 chunks.
                         {9, 70, 300, 33, true, 0.0f},
                         {5, 31, 129, 17, false, 0.0f}};

TEST_P(QuantAttention, Int8EqualsTheReferenceOps) {
  uint64_t seed = 8100;
  for (const Shape& s : kShapes) ExpectSameAsReference<int8_t>(s, seed++);
}

TEST_P(QuantAttention, Int16EqualsTheReferenceOps) {
  uint64_t seed = 8200;
  for (const Shape& s : kShapes) ExpectSameAsReference<int16_t>(s, seed++);
}

// A TFLite Micro build's int16 softmax tables in the integers: the reference
// with the same tables, bit for bit (DeviceSoftmaxTablesGiveThatBuildsIntegers
// in quant_mha_test.cc shows that they change the integers).
TEST_P(QuantAttention, Int16WithADevicesSoftmaxTables) {
  uint64_t seed = 8250;
  for (const Shape& s : kShapes) ExpectSameAsReference<int16_t>(s, seed++, true);
}

// Key padding, causal or not: no key, one, all but one, a block boundary
// (16, 64) and past the causal diagonal's reach.
TEST_P(QuantAttention, PaddedKeysEqualTheReferenceOps) {
  uint64_t seed = 8270;
  for (const Shape& s : kShapes) {
    for (const int32_t valid : {0, 1, s.n_kv / 2, s.n_kv - 1, 16, 64}) {
      if (valid < 0 || valid > s.n_kv) continue;
      ExpectSameAsReference<int8_t>(s, seed, false, valid);
      ExpectSameAsReference<int16_t>(s, seed, false, valid);
      ++seed;
    }
  }
}

// Rows that see no key (every key padding, or causal with n_q > n_kv): every
// probability at the zero value and the output at its zero point (real 0),
// whatever q, k and v hold: the meaning the headers promise, shown without
// the reference.
template <typename T>
void ExpectRowsWithoutKeysAtZero() {
  constexpr T kZeroProbability = sizeof(T) == 1 ? -128 : 0;
  for (const Shape& s : {Shape{6, 9, 8, 5, false, 0.0f}, Shape{12, 4, 8, 5, true, 0.0f}}) {
    const Case<T> c = MakeCase<T>(s, 8290);
    const int32_t valid = s.causal ? s.n_kv : 0;
    std::vector<T> out(static_cast<size_t>(s.n_q) * s.d_v, 0x55),
        probs(static_cast<size_t>(s.n_q) * s.n_kv, 0x55);
    ASSERT_EQ(PlanAndRun(c, valid, &out, &probs), EA_OK);
    // Causal: query i sees keys up to i + n_kv - n_q, none for i < n_q - n_kv.
    const int32_t blind_rows = s.causal ? s.n_q - s.n_kv : s.n_q;
    for (int32_t i = 0; i < blind_rows; ++i) {
      for (int32_t t = 0; t < s.d_v; ++t) {
        EXPECT_EQ(out[static_cast<size_t>(i) * s.d_v + t], c.scales.output.zero_point) << i;
      }
      for (int32_t j = 0; j < s.n_kv; ++j) {
        EXPECT_EQ(probs[static_cast<size_t>(i) * s.n_kv + j], kZeroProbability) << i << "," << j;
      }
    }
  }
}

TEST_P(QuantAttention, RowsWithoutKeysOutputTheZeroPoint) {
  ExpectRowsWithoutKeysAtZero<int8_t>();
  ExpectRowsWithoutKeysAtZero<int16_t>();
}

EA_INSTANTIATE_PER_TARGET(QuantAttention);

TEST(QuantAttentionRun, RefusalsWriteNothing) {
  Case<int8_t> c = MakeCase<int8_t>({5, 9, 8, 8, false, 0.0f}, 8300);
  size_t bytes = 0;
  ASSERT_EQ(ea_attention_quant_arena_size(&c.config, &bytes), EA_OK);
  AlignedBytes storage(bytes);
  ea_arena arena;
  ea_arena_init(&arena, storage.data(), bytes);
  ea_attention_quant_plan plan{};
  ASSERT_EQ(ea_attention_quant_init(&plan, &c.config, &arena), EA_OK);
  std::vector<int8_t> out(5 * 8, 0x55);
  const std::vector<int8_t> untouched = out;
  EXPECT_EQ(ea_attention_quant_run_s8(&plan, nullptr, c.k.data(), c.v.data(), plan.config.n_kv,
                                      out.data(), nullptr),
            EA_ERR_NULL_POINTER);
  std::vector<int16_t> out16(5 * 8);
  std::vector<int16_t> q16(5 * 8), k16(9 * 8), v16(9 * 8);
  EXPECT_EQ(ea_attention_quant_run_s16(&plan, q16.data(), k16.data(), v16.data(), plan.config.n_kv,
                                       out16.data(), nullptr),
            EA_ERR_BAD_ARGUMENT);  // an int8 plan
  // out over q, and out inside the plan's arena.
  EXPECT_EQ(ea_attention_quant_run_s8(&plan, c.q.data(), c.k.data(), c.v.data(), plan.config.n_kv,
                                      c.q.data(), nullptr),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_attention_quant_run_s8(&plan, c.q.data(), c.k.data(), c.v.data(), plan.config.n_kv,
                                      reinterpret_cast<int8_t*>(storage.data()), nullptr),
            EA_ERR_BAD_ARGUMENT);
  // n_valid_keys outside [0, n_kv].
  const int32_t out_of_range[] = {-1, c.config.n_kv + 1, INT32_MIN, INT32_MAX};
  for (const int32_t valid : out_of_range) {
    EXPECT_EQ(ea_attention_quant_run_s8(&plan, c.q.data(), c.k.data(), c.v.data(), valid,
                                        out.data(), nullptr),
              EA_ERR_BAD_ARGUMENT)
        << valid;
  }
  EXPECT_EQ(out, untouched);
  ea_attention_quant_plan not_ready{};
  EXPECT_EQ(ea_attention_quant_run_s8(&not_ready, c.q.data(), c.k.data(), c.v.data(), c.config.n_kv,
                                      out.data(), nullptr),
            EA_ERR_BAD_ARGUMENT);
  // The float entry point refuses fixed-point dtypes, the quantized one float.
  ea_attention_plan float_plan{};
  EXPECT_EQ(ea_attention_init(&float_plan, &c.config, &arena), EA_ERR_BAD_ARGUMENT);
  ea_attention_config f32 = c.config;
  f32.dtype = EA_DTYPE_F32;
  EXPECT_EQ(ea_attention_quant_init(&plan, &f32, &arena), EA_ERR_BAD_ARGUMENT);
  // A scale that is not positive and finite.
  ea_attention_config bad = c.config;
  ea_attention_quant_scales bad_scales = c.scales;
  bad_scales.v.scale = -1.0f;
  bad.quant_scales = &bad_scales;
  EXPECT_EQ(ea_attention_quant_arena_size(&bad, &bytes), EA_ERR_BAD_ARGUMENT);
}

// The rules of a model's int16 softmax tables (attention.h's
// ea_softmax_quant_params): both or neither, int16 only, entries in
// [0, 32767], exp at 0 at least 16384; outside the arena, and no output
// over them.
TEST(QuantAttentionRun, SoftmaxTablesRules) {
  Case<int16_t> c = MakeCase<int16_t>({5, 9, 8, 8, false, 0.0f}, 8400);
  GiveIntegersWithDeviceTables(&c);
  size_t bytes = 0;
  ASSERT_EQ(ea_attention_quant_arena_size(&c.config, &bytes), EA_OK);
  AlignedBytes storage(bytes + 4096);
  ea_arena arena;
  ea_attention_quant_plan plan{};
  // arena_size's status and init's (a refused init carves nothing).
  struct Statuses {
    ea_status size, init;
  };
  const auto statuses = [&](const ea_attention_quant_params& params) {
    ea_attention_config config = c.config;
    config.quant_params = &params;
    ea_arena_init(&arena, storage.data(), bytes + 4096);
    size_t size = 0;
    Statuses got{ea_attention_quant_arena_size(&config, &size), EA_OK};
    got.init = ea_attention_quant_init(&plan, &config, &arena);
    if (got.init != EA_OK) {
      EXPECT_EQ(arena.used, 0u);
    }
    return got;
  };
  const auto accepted = [&](const ea_attention_quant_params& params) {
    const Statuses got = statuses(params);
    return got.size == EA_OK && got.init == EA_OK;
  };
  const auto refused = [&](const ea_attention_quant_params& params) {
    const Statuses got = statuses(params);
    return got.size == EA_ERR_BAD_ARGUMENT && got.init == EA_ERR_BAD_ARGUMENT;
  };
  EXPECT_TRUE(accepted(c.params));
  ea_attention_quant_params one = c.params;
  one.softmax.one_over_one_plus_x_lut = nullptr;
  EXPECT_TRUE(refused(one));
  one = c.params;
  one.softmax.exp_lut = nullptr;
  EXPECT_TRUE(refused(one));
  std::vector<int16_t> exp(DeviceExpLut(), DeviceExpLut() + 513);
  ea_attention_quant_params edited = c.params;
  edited.softmax.exp_lut = exp.data();
  exp[200] = -1;
  EXPECT_TRUE(refused(edited));
  exp[200] = DeviceExpLut()[200];
  exp[511] = 16000;
  exp[512] = 16400;  // 16000 + round(400 * 127 / 128) = 16397 at 0: enough
  EXPECT_TRUE(accepted(edited));
  exp[512] = 16300;  // 16000 + round(300 * 127 / 128) = 16298 < 16384 at 0
  EXPECT_TRUE(refused(edited));
  // int8 integers with tables.
  Case<int8_t> c8 = MakeCase<int8_t>({5, 9, 8, 8, false, 0.0f}, 8401);
  ea_attention_quant_params params8{};
  params8.scores = {-c8.scales.q.zero_point, -c8.scales.k.zero_point, c8.scales.scores.zero_point,
                    1 << 30, -8};
  params8.softmax = {1 << 30, 20, -64, nullptr, nullptr};
  params8.context = {128, -c8.scales.v.zero_point, c8.scales.output.zero_point, 1 << 30, -8};
  c8.config.quant_params = &params8;
  EXPECT_EQ(ea_attention_quant_arena_size(&c8.config, &bytes), EA_OK);
  params8.softmax.exp_lut = DeviceExpLut();
  params8.softmax.one_over_one_plus_x_lut = DeviceReciprocalLut();
  EXPECT_EQ(ea_attention_quant_arena_size(&c8.config, &bytes), EA_ERR_BAD_ARGUMENT);
  // Tables inside the bytes the plan carves: sized, not planned.
  memcpy(storage.data() + 64, DeviceExpLut(), 513 * sizeof(int16_t));
  edited = c.params;
  edited.softmax.exp_lut = reinterpret_cast<const int16_t*>(storage.data() + 64);
  const Statuses in_carve = statuses(edited);
  EXPECT_EQ(in_carve.size, EA_OK);
  EXPECT_EQ(in_carve.init, EA_ERR_BAD_ARGUMENT);
  // An output over a table: refused, the table as it was.
  std::vector<int16_t> table_and_out(DeviceExpLut(), DeviceExpLut() + 513);
  ea_attention_quant_params over = c.params;
  over.softmax.exp_lut = table_and_out.data();
  ASSERT_TRUE(accepted(over));
  const std::vector<int16_t> before = table_and_out;
  EXPECT_EQ(ea_attention_quant_run_s16(&plan, c.q.data(), c.k.data(), c.v.data(), plan.config.n_kv,
                                       table_and_out.data() + 100, nullptr),
            EA_ERR_BAD_ARGUMENT);
  std::vector<int16_t> out(5 * 8), probs(5 * 9);
  EXPECT_EQ(ea_attention_quant_run_s16(&plan, c.q.data(), c.k.data(), c.v.data(), plan.config.n_kv,
                                       out.data(), table_and_out.data()),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(table_and_out, before);
  EXPECT_EQ(ea_attention_quant_run_s16(&plan, c.q.data(), c.k.data(), c.v.data(), plan.config.n_kv,
                                       out.data(), probs.data()),
            EA_OK);
}

}  // namespace
}  // namespace edgeattn_test
