// Fixed-point Attention(Q, K, V) (ea_attention_quant_init,
// ea_attention_quant_run_s8 / _s16) against the integer reference's BATCH_MATMUL,
// SOFTMAX and BATCH_MATMUL (tests/reference/tflite_chain_reference.h) on
// every SIMD target: n_q != n_kv with the bottom-right causal mask, d_k != d_v,
// custom softmax scales, and the run's refusals.
#include <gtest/gtest.h>
#include <math.h>
#include <stdint.h>

#include <vector>

#include <algorithm>

#include "data/tflite/golden_cases.h"
#include "edgeattn/edgeattn.h"
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
  std::vector<T> q, k, v;
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

// The reference chain: probabilities (masked: the zero probability) and out.
template <typename T>
void Reference(const Case<T>& c, std::vector<T>* probs, std::vector<T>* out) {
  const ea_attention_config& cfg = c.config;
  constexpr bool kInt8 = sizeof(T) == 1;
  const auto quant = [](ea_quant q) {
    return tflite_ref::TensorQuantization{q.scale, q.zero_point};
  };
  const tflite_ref::TensorQuantization probs_quant =
      kInt8 ? tflite_ref::TensorQuantization{1.0f / 256, -128}
            : tflite_ref::TensorQuantization{1.0f / 32768, 0};
  const float beta = cfg.scale != 0.0f ? cfg.scale : 1.0f / sqrtf(static_cast<float>(cfg.d_k));
  const std::vector<T> scores = tflite_ref::BatchMatMul(
      tflite_ref::PrepareBatchMatMul(quant(c.scales.q), quant(c.scales.k), quant(c.scales.scores)),
      c.q.data(), cfg.n_q, cfg.d_k, c.k.data(), cfg.n_kv);
  probs->assign(static_cast<size_t>(cfg.n_q) * cfg.n_kv, static_cast<T>(kInt8 ? -128 : 0));
  for (int i = 0; i < cfg.n_q; ++i) {
    int32_t visible = cfg.n_kv;
    if (cfg.mask == EA_MASK_CAUSAL) {
      visible = std::max<int32_t>(0, std::min<int32_t>(cfg.n_kv, i + 1 + cfg.n_kv - cfg.n_q));
    }
    if (visible == 0) continue;
    const T* row = scores.data() + static_cast<size_t>(i) * cfg.n_kv;
    T* p = probs->data() + static_cast<size_t>(i) * cfg.n_kv;
    if constexpr (kInt8) {
      tflite_ref::SoftmaxInt8Row(tflite_ref::PrepareSoftmaxInt8(beta, c.scales.scores.scale), row,
                                 visible, p);
    } else {
      tflite_ref::SoftmaxInt16Row(
          tflite_ref::PrepareSoftmaxInt16(
              beta, c.scales.scores.scale,
              static_cast<const int16_t*>(tflite_golden::kSoftmaxExpLut.data),
              static_cast<const int16_t*>(tflite_golden::kSoftmaxOneOverOnePlusXLut.data)),
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
      tflite_ref::PrepareBatchMatMul(probs_quant, quant(c.scales.v), quant(c.scales.output)),
      probs->data(), cfg.n_q, cfg.n_kv, v_t.data(), cfg.d_v);
}

class QuantAttention : public PerTargetTest {};

template <typename T>
void ExpectSameAsReference(const Shape& s, uint64_t seed) {
  Case<T> c = MakeCase<T>(s, seed);
  size_t bytes = 0;
  ASSERT_EQ(ea_attention_quant_arena_size(&c.config, &bytes), EA_OK);
  AlignedBytes storage(bytes);
  ea_arena arena;
  ea_arena_init(&arena, storage.data(), bytes);
  ea_attention_quant_plan plan{};
  ASSERT_EQ(ea_attention_quant_init(&plan, &c.config, &arena), EA_OK);
  EXPECT_EQ(arena.used, bytes);
  std::vector<T> out(static_cast<size_t>(s.n_q) * s.d_v),
      probs(static_cast<size_t>(s.n_q) * s.n_kv);
  ea_status status;
  if constexpr (sizeof(T) == 1) {
    status = ea_attention_quant_run_s8(&plan, c.q.data(), c.k.data(), c.v.data(), out.data(),
                                       probs.data());
  } else {
    status = ea_attention_quant_run_s16(&plan, c.q.data(), c.k.data(), c.v.data(), out.data(),
                                        probs.data());
  }
  ASSERT_EQ(status, EA_OK);
  std::vector<T> want_probs, want_out;
  Reference(c, &want_probs, &want_out);
  EXPECT_EQ(probs, want_probs) << s.n_q << "x" << s.n_kv << " d " << s.d_k << "/" << s.d_v;
  EXPECT_EQ(out, want_out) << s.n_q << "x" << s.n_kv << " d " << s.d_k << "/" << s.d_v;
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
  EXPECT_EQ(ea_attention_quant_run_s8(&plan, nullptr, c.k.data(), c.v.data(), out.data(), nullptr),
            EA_ERR_NULL_POINTER);
  std::vector<int16_t> out16(5 * 8);
  std::vector<int16_t> q16(5 * 8), k16(9 * 8), v16(9 * 8);
  EXPECT_EQ(
      ea_attention_quant_run_s16(&plan, q16.data(), k16.data(), v16.data(), out16.data(), nullptr),
      EA_ERR_BAD_ARGUMENT);  // an int8 plan
  // out over q, and out inside the plan's arena.
  EXPECT_EQ(
      ea_attention_quant_run_s8(&plan, c.q.data(), c.k.data(), c.v.data(), c.q.data(), nullptr),
      EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_attention_quant_run_s8(&plan, c.q.data(), c.k.data(), c.v.data(),
                                      reinterpret_cast<int8_t*>(storage.data()), nullptr),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(out, untouched);
  ea_attention_quant_plan not_ready{};
  EXPECT_EQ(ea_attention_quant_run_s8(&not_ready, c.q.data(), c.k.data(), c.v.data(), out.data(),
                                      nullptr),
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

}  // namespace
}  // namespace edgeattn_test
