// One digest of results that must be bit-identical on every target, printed
// for `make matrix` to compare across host, Arm Linux and Cortex-M builds:
// arena sizes and plan layouts (32- and 64-bit alike), the compile-time
// sinusoidal table and its int8 quantization, fixed-point MHA outputs
// (int8 and int16: TFLite's integers, the same bytes on every target) and the
// KV cache's f16 and int8 records (append converts per target). Float
// attention results are not in it: they are checked per target against the
// reference instead.
#include <gtest/gtest.h>
#include <stdint.h>
#include <stdio.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "edgeattn/edgeattn.hpp"
#include "edgeattn/kv_cache.h"
#include "reference/quant_mha_fixture.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

// 64-bit FNV-1a over values fed as little-endian bytes, whatever the target.
class Digest {
 public:
  void Add(uint64_t value, int bytes = 8) {
    for (int i = 0; i < bytes; ++i) {
      hash_ = (hash_ ^ ((value >> (8 * i)) & 0xFF)) * 0x100000001B3ull;
    }
  }
  uint64_t value() const { return hash_; }

 private:
  uint64_t hash_ = 0xCBF29CE484222325ull;
};

uint32_t FloatBits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

// TFLite's AffineQuantize for int8 with zero point 0: round half away from
// zero of value / scale (a float division), clamped to [-128, 127].
int8_t QuantizeInt8(float value, float scale) {
  const float scaled = std::round(value / scale);
  return static_cast<int8_t>(std::fmin(127.0f, std::fmax(-128.0f, scaled)));
}

// Region offsets of an MHA plan from the arena base: the layout the formula
// promises, independent of pointer width.
void AddMhaLayout(Digest* digest, const ea_mha_config& config) {
  size_t bytes = 0;
  ASSERT_EQ(ea_mha_arena_size(&config, &bytes), EA_OK);
  AlignedBytes storage(bytes);
  ea_arena arena;
  ea_mha_plan plan;
  const std::vector<float> weights(3 * config.d_model * config.d_model, 0.0f);
  const ea_mha_weights w =
      edgeattn_test::InProjWeights(weights.data(), nullptr, weights.data(), nullptr);
  ASSERT_EQ(ea_arena_init(&arena, storage.data(), bytes), EA_OK);
  ASSERT_EQ(ea_mha_init(&plan, &config, &w, &arena), EA_OK);
  // Regions a configuration does not need are NULL: they digest as all ones.
  const auto offset = [&](const void* region) {
    if (region == nullptr) return ~static_cast<uint64_t>(0);
    return static_cast<uint64_t>(static_cast<const uint8_t*>(region) - storage.data());
  };
  digest->Add(bytes);
  digest->Add(offset(plan.position_table));
  digest->Add(offset(plan.x_positioned));
  digest->Add(offset(plan.packed_in_proj));
  digest->Add(offset(plan.packed_out_proj));
  digest->Add(offset(plan.qkv));
  digest->Add(offset(plan.heads_concat));
  digest->Add(offset(plan.core.packed_keys));
  digest->Add(offset(plan.core.score_tile));
}

// The records a KV cache of `storage` and heads of kDim channels holds after
// appending tokens that test its conversion: int8 ties (x.5 at scale 1: each
// head holds 127), heads of tiny, huge, subnormal and non-finite values, and
// spread ones. Every value is an integer times a power of two, exact in float
// on any target.
template <int kDim>
void AddKvCacheRecords(Digest* digest, ea_kv_storage storage) {
  constexpr int kTokens = 100, kHeads = 2;
  const ea_kv_cache_config config{128, kHeads, kHeads, kDim, 1, 0, storage, 0.0f, nullptr};
  AlignedBytes memory(static_cast<size_t>(edgeattn::KvCacheArenaBytes(config)));
  ea_arena arena;
  ea_kv_cache cache;
  ASSERT_EQ(ea_arena_init(&arena, memory.data(), memory.size()), EA_OK);
  ASSERT_EQ(ea_kv_cache_init(&cache, &config, &arena), EA_OK);
  uint32_t state = 2024;
  std::vector<float> k(kHeads * kDim), v(kHeads * kDim);
  for (int token = 0; token < kTokens; ++token) {
    for (int i = 0; i < kHeads * kDim; ++i) {
      state = state * 1664525u + 1013904223u;
      const int32_t low = static_cast<int32_t>(state >> 8 & 0xFFFF) - 32768;
      float x;
      switch (token % 6) {
        case 0:
          x = i % kDim == 0 ? 127.0f : static_cast<float>(low % 127) + 0.5f;
          break;
        case 1:
          x = static_cast<float>(low) * 0x1p-30f;
          break;
        case 2:
          x = static_cast<float>(low) * 0x1p100f;
          break;
        case 3:
          x = static_cast<float>(low) * 0x1p-145f;
          break;  // subnormal
        case 4:
          x = i == 5 ? INFINITY : static_cast<float>(low);
          break;
        default:
          x = static_cast<float>(low) * 0x1p-9f;
          break;
      }
      k[i] = x;
      v[i] = -0.75f * x;
    }
    ASSERT_EQ(ea_kv_cache_append(&cache, k.data(), v.data(), 1), EA_OK);
  }
  const uint64_t bytes = edgeattn::KvBlocks(128) * kHeads * edgeattn::KvRecordBytes(kDim, storage);
  for (uint64_t i = 0; i < bytes; ++i) digest->Add(cache.records[i], 1);
}

TEST(CrossTargetDigest, PrintsDigestOfTargetIndependentResults) {
  Digest digest;
  // Arena sizes: attention at lengths around the 64-key panel, both APIs agree.
  for (int n : {1, 17, 63, 64, 65, 1000}) {
    for (int d : {3, 64}) {
      const ea_attention_config config{
          EA_DTYPE_F32, n, n, d, d, EA_MASK_CAUSAL, 0.0f, ea_parallel_for{}, nullptr, nullptr};
      size_t bytes = 0;
      ASSERT_EQ(ea_attention_arena_size(&config, &bytes), EA_OK);
      ASSERT_EQ(bytes, edgeattn::AttentionArenaBytes(n, d));
      digest.Add(bytes);
    }
  }
  AddMhaLayout(&digest, ea_mha_config{EA_DTYPE_F32, 130, 96, 4, EA_MASK_CAUSAL,
                                      EA_POSITION_SINUSOIDAL, nullptr, EA_WEIGHTS_ROW_MAJOR,
                                      ea_parallel_for{}, nullptr, nullptr, nullptr});
  AddMhaLayout(&digest,
               ea_mha_config{EA_DTYPE_F32, 7, 16, 2, EA_MASK_NONE, EA_POSITION_NONE, nullptr,
                             EA_WEIGHTS_ROW_MAJOR, ea_parallel_for{}, nullptr, nullptr, nullptr});

  // The compile-time table and its int8 quantization (scale 1/127, zero point 0).
  static constexpr auto kTable = edgeattn::MakeSinusoidalTable<64, 32>();
  for (float value : kTable.values) digest.Add(FloatBits(value), 4);
  for (float value : kTable.values) {
    digest.Add(static_cast<uint8_t>(QuantizeInt8(value, 1.0f / 127.0f)), 1);
  }

  // Fixed point: y and the probabilities of random cases whose scales need no
  // libm (spread 1: every jitter is exp(0)) and no position table (whose
  // sinusoid would come from the target's libm).
  const RandomShape fixed_point_shapes[] = {{130, 48, 3, true, false}, {37, 16, 2, false, false}};
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    for (const RandomShape& shape : fixed_point_shapes) {
      const QuantMhaCase::Result r = RandomQuantMha(dtype, shape, 9001, 1.0).Run();
      ASSERT_EQ(r.status, EA_OK);
      for (const int32_t value : r.y) digest.Add(static_cast<uint32_t>(value), 2);
      for (const int32_t value : r.probs) digest.Add(static_cast<uint32_t>(value), 2);
    }
  }

  AddKvCacheRecords<24>(&digest, EA_KV_STORAGE_F16);
  AddKvCacheRecords<24>(&digest, EA_KV_STORAGE_Q8);
  AddKvCacheRecords<72>(&digest, EA_KV_STORAGE_Q4);  // two scale groups: 64 and 8

  printf("[  DIGEST  ] target=%s vector_bits=%u digest=%016llx\n", ea_simd_target(),
         static_cast<unsigned>(ea_simd_vector_bytes() * 8),
         static_cast<unsigned long long>(digest.value()));
  EXPECT_NE(digest.value(), 0u);
}

}  // namespace
}  // namespace edgeattn_test
