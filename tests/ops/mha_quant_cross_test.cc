// Fixed-point cross-attention (ea_cross_quant, edgeattn/cross.h) against the
// integer reference's cross chain (tests/reference/tflite_chain_reference.h,
// ChainShape::n_memory), bit for bit on every target: int8 and int16,
// grouped KV heads, memories of 1 to past a panel block of rows, queries in
// runs of any size; a new memory replaces the old; the config and call
// rules (cross.h) with nothing written on a refusal.
#include <gtest/gtest.h>
#include <stdint.h>

#include <algorithm>
#include <string>
#include <vector>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "planned_operation.h"
#include "reference/device_softmax_luts.h"
#include "reference/quant_mha_fixture.h"
#include "reference/quant_test_values.h"
#include "reference/random_tensor.h"
#include "simd_targets.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

class QuantCrossPerTarget : public PerTargetTest {};

// A random layer (no positions, not causal) over a memory of n_memory
// random rows at a quantization of its own (int8: a zero point too).
QuantMhaCase CrossCase(ea_dtype dtype, RandomShape shape, int n_memory, int kv_heads,
                       uint64_t seed) {
  QuantMhaCase c = RandomQuantMha(dtype, shape, seed);
  if (kv_heads > 0) c = GroupedQueryHeads(c, kv_heads);
  RandomStream random(seed ^ 0x5eed);
  const size_t count = static_cast<size_t>(n_memory) * static_cast<size_t>(shape.d_model);
  if (dtype == EA_DTYPE_INT8) {
    const std::vector<int8_t> codes = RandomCodes<int8_t>(count, &random);
    c.memory.assign(codes.begin(), codes.end());
    c.memory_quant = {c.scales.input.scale * 1.5f, 7};
  } else {
    const std::vector<int16_t> codes = RandomCodes<int16_t>(count, &random);
    c.memory.assign(codes.begin(), codes.end());
    c.memory_quant = {c.scales.input.scale * 1.5f, 0};
  }
  return c;
}

// The case's cross-attention config: its layer, max_memory its memory's
// rows, its KV heads and memory quantization.
ea_cross_quant_config CrossConfig(const QuantMhaLayer& layer, const QuantMhaCase& c) {
  return CrossQuantConfigOf(layer.config, c.NMemory(), c.kv_heads, c.memory_quant);
}

TEST_P(QuantCrossPerTarget, RunsEqualTheCrossChainBitForBit) {
  struct CrossShape {
    RandomShape shape;
    int n_memory, kv_heads;
    std::vector<int> runs;
  };
  const CrossShape shapes[] = {
      {{5, 16, 2, false, false}, 9, 0, {5}},
      {{7, 32, 4, false, false}, 3, 2, {2, 3}},
      {{1, 24, 3, false, false}, 17, 1, {1}},
      {{12, 128, 2, false, false}, 70, 1, {4, 8}},  // more keys than a panel of 64
      {{9, 16, 4, false, false}, 1, 4, {9}},        // one memory row
      {{20, 16, 2, false, false}, 45, 1, {20}},     // memory steps of max_queries 20
  };
  uint64_t seed = 12000;
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    for (const CrossShape& s : shapes) {
      const QuantMhaCase c = CrossCase(dtype, s.shape, s.n_memory, s.kv_heads, seed++);
      SCOPED_TRACE(c.name + " over " + std::to_string(s.n_memory) + " memory rows");
      const QuantMhaCase::Decoded got = c.Cross(s.runs);
      ASSERT_EQ(got.status, EA_OK);
      EXPECT_EQ(got.y, c.Reference().y) << "against the integer reference's cross chain";
      EXPECT_EQ(got.arena_bytes, got.carved_bytes);
      // The memory matters: the queries' own rows give other integers.
      QuantMhaCase self = c;
      self.memory.clear();
      EXPECT_NE(got.y, self.Reference().y);
    }
  }
}

// A memory set after another replaces it, a shorter one too (int8 and
// int16, one and two KV heads); a cross-attention sized for more rows than
// the memory it holds gives the same integers.
TEST_P(QuantCrossPerTarget, ANewMemoryReplacesTheOld) {
  uint64_t seed = 12100;
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    for (const int kv_heads : {1, 2}) {
      const QuantMhaCase first = CrossCase(dtype, {6, 16, 2, false, false}, 20, kv_heads, seed++);
      QuantMhaCase second = first;
      second.memory.resize(static_cast<size_t>(5 * 16));
      for (int32_t& v : second.memory) v = -v / 2;
      SCOPED_TRACE(second.name);
      const QuantMhaCase::Expected want = second.Reference();
      const QuantMhaCase::Decoded roomy = second.Cross({6}, 20);
      ASSERT_EQ(roomy.status, EA_OK);
      EXPECT_EQ(roomy.y, want.y);
      const QuantMhaCase::Decoded replaced = second.Cross({4, 2}, 20, first.memory);
      ASSERT_EQ(replaced.status, EA_OK);
      EXPECT_EQ(replaced.y, want.y) << "20 memory rows, then 5";
      const QuantMhaCase::Decoded longer = first.Cross({6}, 20, second.memory);
      ASSERT_EQ(longer.status, EA_OK);
      EXPECT_EQ(longer.y, first.Reference().y) << "5 memory rows, then 20";
    }
  }
}

// int16 heads deeper than kS16HighByteMaxDepth (128 channels), where the
// scores' row groups read no high bytes.
TEST_P(QuantCrossPerTarget, Int16HeadsPastTheHighByteDepth) {
  const QuantMhaCase c = CrossCase(EA_DTYPE_INT16, {3, 288, 2, false, false}, 9, 1, 12150);
  const QuantMhaCase::Decoded got = c.Cross({2, 1});
  ASSERT_EQ(got.status, EA_OK);
  EXPECT_EQ(got.y, c.Reference().y);
}

// A TFLite-shaped model: W_Q, W_K, W_V as three tensors, a Keras softmax
// beta of 1, and (int16) the device's softmax tables through integers
// derived by ea_cross_quant_derive, with grouped KV heads.
TEST_P(QuantCrossPerTarget, ATfliteShapedModelRunsAsItsChain) {
  uint64_t seed = 12170;
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    QuantMhaCase c = CrossCase(dtype, {7, 32, 4, false, false}, 11, 2, seed++);
    c.separate_projections = true;
    c.scales.softmax_beta = 1.0f;
    if (dtype == EA_DTYPE_INT16) {
      c.softmax_exp_lut = DeviceExpLut();
      c.softmax_reciprocal_lut = DeviceReciprocalLut();
    }
    SCOPED_TRACE(c.name);
    const QuantMhaCase::Decoded got = c.Cross({3, 4});
    ASSERT_EQ(got.status, EA_OK);
    EXPECT_EQ(got.y, c.Reference().y);
    if (dtype == EA_DTYPE_INT16) {
      c.softmax_exp_lut = nullptr;
      c.softmax_reciprocal_lut = nullptr;
      const QuantMhaCase::Decoded built_in = c.Cross({3, 4});
      ASSERT_EQ(built_in.status, EA_OK);
      EXPECT_NE(got.y, built_in.y) << "the tables must matter for this case";
    }
  }
}

EA_INSTANTIATE_PER_TARGET(QuantCrossPerTarget);

// Given integers: ea_cross_quant_derive's take k's and v's input offset
// from the memory, q's from x, and give the scales' integers (KV heads
// all the query heads, and fewer).
TEST(QuantCrossRules, DeriveTakesTheMemorysQuantization) {
  uint64_t seed = 12200;
  for (const int kv_heads : {0, 2}) {
    const QuantMhaCase c = CrossCase(EA_DTYPE_INT8, {4, 16, 2, false, false}, 6, kv_heads, seed++);
    QuantMhaLayer layer(c);
    ea_cross_quant_config config = CrossConfig(layer, c);
    std::vector<int32_t> channels(EA_MHA_QUANT_CHANNEL_INTS(16));
    ea_mha_quant_params params{};
    ASSERT_EQ(ea_cross_quant_derive(&config, &params, channels.data(), channels.size()), EA_OK);
    EXPECT_EQ(params.q_proj.input_offset, -c.scales.input.zero_point);
    EXPECT_EQ(params.k_proj.input_offset, -7);
    EXPECT_EQ(params.v_proj.input_offset, -7);
    config.quant_params = &params;
    config.quant_scales = nullptr;
    PlannedQuantCross planned(ea_cross_quant_arena_size, ea_cross_quant_init, config,
                              layer.weights);
    ASSERT_EQ(planned.status, EA_OK);
    const std::vector<int8_t> memory(c.memory.begin(), c.memory.end());
    const std::vector<int8_t> x(c.x_emb.begin(), c.x_emb.end());
    std::vector<int8_t> y(x.size());
    ASSERT_EQ(ea_cross_quant_set_memory_s8(&planned.plan, memory.data(), 6), EA_OK);
    ASSERT_EQ(ea_cross_quant_run_s8(&planned.plan, x.data(), 4, y.data()), EA_OK);
    EXPECT_EQ(std::vector<int32_t>(y.begin(), y.end()), c.Reference().y) << kv_heads << " KV heads";
  }
}

// A refused derive writes neither the integers nor the channels' ints.
TEST(QuantCrossRules, RefusedDerivesWriteNothing) {
  const QuantMhaCase c = CrossCase(EA_DTYPE_INT16, {4, 16, 2, false, false}, 6, 1, 12250);
  QuantMhaLayer layer(c);
  const ea_cross_quant_config config = CrossConfig(layer, c);
  std::vector<int32_t> channels(EA_MHA_QUANT_CHANNEL_INTS(16), 5);
  const std::vector<int32_t> channels_before = channels;
  ea_mha_quant_params params{};
  params.q_proj.input_offset = 77;
  const auto derive = [&](const ea_cross_quant_config& bad, size_t count) {
    return ea_cross_quant_derive(&bad, &params, channels.data(), count);
  };
  ea_cross_quant_config bad = config;
  bad.quant_scales = nullptr;
  EXPECT_EQ(derive(bad, channels.size()), EA_ERR_NULL_POINTER);
  bad = config;
  bad.memory.zero_point = 3;  // int16 memories have zero point 0
  EXPECT_EQ(derive(bad, channels.size()), EA_ERR_BAD_ARGUMENT);
  bad.memory = {-1.0f, 0};
  EXPECT_EQ(derive(bad, channels.size()), EA_ERR_BAD_ARGUMENT);
  bad = config;
  bad.max_memory = 0;
  EXPECT_EQ(derive(bad, channels.size()), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(derive(config, channels.size() - 1), EA_ERR_ARENA_TOO_SMALL);
  EXPECT_EQ(ea_cross_quant_derive(&config, nullptr, channels.data(), channels.size()),
            EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_cross_quant_derive(&config, &params, nullptr, channels.size()), EA_ERR_NULL_POINTER);
  EXPECT_EQ(params.q_proj.input_offset, 77);
  EXPECT_EQ(channels, channels_before);
  EXPECT_EQ(derive(config, channels.size()), EA_OK);
  EXPECT_NE(channels, channels_before);
}

// A refused init leaves the arena as it was and the cross-attention
// unusable, a ready one included, until an init succeeds.
TEST(QuantCrossRules, ARefusedInitLeavesNothingUsable) {
  const QuantMhaCase c = CrossCase(EA_DTYPE_INT8, {4, 16, 2, false, false}, 6, 0, 12260);
  QuantMhaLayer layer(c);
  const ea_cross_quant_config config = CrossConfig(layer, c);
  PlannedQuantCross planned(ea_cross_quant_arena_size, ea_cross_quant_init, config, layer.weights);
  ASSERT_EQ(planned.status, EA_OK);
  ea_cross_quant& cross = planned.plan;
  const std::vector<int8_t> memory(c.memory.begin(), c.memory.end());
  const std::vector<int8_t> x(c.x_emb.begin(), c.x_emb.end());
  std::vector<int8_t> y(x.size(), 9);
  ASSERT_EQ(ea_cross_quant_set_memory_s8(&cross, memory.data(), 6), EA_OK);

  AlignedBytes other(planned.bytes);
  std::fill(other.data(), other.data() + planned.bytes, uint8_t{0xA5});
  ea_arena arena;
  ea_arena_init(&arena, other.data(), planned.bytes);
  ea_cross_quant_config bad = config;
  bad.memory.scale = 0.0f;
  EXPECT_EQ(ea_cross_quant_init(&cross, &bad, &layer.weights, &arena), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(arena.used, 0u);
  EXPECT_TRUE(
      std::all_of(other.data(), other.data() + planned.bytes, [](uint8_t b) { return b == 0xA5; }));
  ea_arena small;
  ea_arena_init(&small, other.data(), planned.bytes - 1);
  EXPECT_EQ(ea_cross_quant_init(&cross, &config, &layer.weights, &small), EA_ERR_ARENA_TOO_SMALL);
  EXPECT_EQ(small.used, 0u);
  EXPECT_TRUE(
      std::all_of(other.data(), other.data() + planned.bytes, [](uint8_t b) { return b == 0xA5; }));
  EXPECT_EQ(ea_cross_quant_run_s8(&cross, x.data(), 4, y.data()), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_cross_quant_set_memory_s8(&cross, memory.data(), 6), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(y, std::vector<int8_t>(x.size(), 9));
  ASSERT_EQ(ea_cross_quant_init(&cross, &config, &layer.weights, &arena), EA_OK);
  EXPECT_EQ(ea_cross_quant_run_s8(&cross, x.data(), 4, y.data()), EA_ERR_BAD_ARGUMENT)
      << "a new plan holds no memory";
  ASSERT_EQ(ea_cross_quant_set_memory_s8(&cross, memory.data(), 6), EA_OK);
  ASSERT_EQ(ea_cross_quant_run_s8(&cross, x.data(), 4, y.data()), EA_OK);
  EXPECT_EQ(std::vector<int32_t>(y.begin(), y.end()), c.Reference().y);
}

// y may overlap x anywhere: x is read before y is written.
TEST(QuantCrossRules, YMayOverlapX) {
  const QuantMhaCase c = CrossCase(EA_DTYPE_INT16, {4, 16, 2, false, false}, 5, 1, 12270);
  const QuantMhaCase::Decoded want = c.Cross({4});
  ASSERT_EQ(want.status, EA_OK);
  QuantMhaLayer layer(c);
  const ea_cross_quant_config config = CrossConfig(layer, c);
  PlannedQuantCross planned(ea_cross_quant_arena_size, ea_cross_quant_init, config, layer.weights);
  ASSERT_EQ(planned.status, EA_OK);
  const std::vector<int16_t> memory(c.memory.begin(), c.memory.end());
  ASSERT_EQ(ea_cross_quant_set_memory_s16(&planned.plan, memory.data(), 5), EA_OK);
  const size_t rows = c.x_emb.size();
  for (const size_t shift : {size_t{8}, size_t{16}, size_t{40}}) {
    for (const bool y_after_x : {true, false}) {
      std::vector<int16_t> buffer(rows + shift, 0);
      int16_t* x = buffer.data() + (y_after_x ? 0 : shift);
      int16_t* y = buffer.data() + (y_after_x ? shift : 0);
      std::copy(c.x_emb.begin(), c.x_emb.end(), x);
      ASSERT_EQ(ea_cross_quant_run_s16(&planned.plan, x, 4, y), EA_OK);
      EXPECT_EQ(std::vector<int32_t>(y, y + rows), want.y)
          << "y " << (y_after_x ? "after" : "before") << " x by " << shift << " elements";
    }
  }
}

TEST(QuantCrossRules, ConfigsAndCallsAreChecked) {
  const QuantMhaCase c = CrossCase(EA_DTYPE_INT8, {4, 16, 4, false, false}, 6, 2, 12300);
  QuantMhaLayer layer(c);
  const ea_cross_quant_config config = CrossConfig(layer, c);
  size_t bytes = 0;
  ASSERT_EQ(ea_cross_quant_arena_size(&config, &bytes), EA_OK);
  EXPECT_EQ(bytes, edgeattn::CrossQuantArenaBytes(config));
  // A decoder's plan of 6 positions in steps of all 6 memory rows (more
  // than the 4 queries of a run, for which q and the heads' outputs have
  // rows), no positions, no window, 2 KV heads.
  EXPECT_EQ(bytes, edgeattn::DecoderQuantArenaBytes(6, 6, 16, 4, EA_DTYPE_INT8,
                                                    edgeattn::PositionStorage::kNone, 0, 2, 4));
  EXPECT_LT(bytes, edgeattn::DecoderQuantArenaBytes(6, 6, 16, 4, EA_DTYPE_INT8,
                                                    edgeattn::PositionStorage::kNone, 0, 2));
  // The arena as a constant of a config, as firmware sizes a static buffer.
  constexpr ea_cross_quant_config kFirmware = [] {
    ea_cross_quant_config f{};
    f.dtype = EA_DTYPE_INT8;
    f.d_model = 64;
    f.n_heads = 4;
    f.max_queries = 1;
    f.max_memory = 100;
    f.n_kv_heads = 2;
    return f;
  }();
  static_assert(edgeattn::CrossQuantArenaBytes(kFirmware) ==
                    edgeattn::DecoderQuantArenaBytes(100, 16, 64, 4, EA_DTYPE_INT8,
                                                     edgeattn::PositionStorage::kNone, 0, 2, 1),
                "a decoder's plan of max_memory positions in steps of 16 rows, runs of 1");
  static_assert(edgeattn::CrossQuantStepRows(1, 512) == 16, "memory in steps of 16 rows");
  static_assert(edgeattn::CrossQuantStepRows(1, 5) == 5, "or all of a shorter memory");
  static_assert(edgeattn::CrossQuantStepRows(40, 512) == 40, "or a run's queries, if more");
  const auto size_of = [&](ea_cross_quant_config bad) {
    size_t ignored = 0;
    return ea_cross_quant_arena_size(&bad, &ignored);
  };
  ea_cross_quant_config bad = config;
  bad.max_queries = 0;
  EXPECT_EQ(size_of(bad), EA_ERR_BAD_DIMENSION);
  bad.max_queries = -1;
  EXPECT_EQ(size_of(bad), EA_ERR_BAD_DIMENSION);
  bad.max_queries = 65536;
  EXPECT_EQ(size_of(bad), EA_ERR_DIMENSION_OVERFLOW);
  ea_mha_quant_params given{};
  std::vector<int32_t> given_channels(EA_MHA_QUANT_CHANNEL_INTS(16));
  ASSERT_EQ(ea_cross_quant_derive(&config, &given, given_channels.data(), given_channels.size()),
            EA_OK);
  bad = config;
  bad.quant_params = &given;
  EXPECT_EQ(size_of(bad), EA_OK);
  bad = config;
  bad.max_memory = 0;
  EXPECT_EQ(size_of(bad), EA_ERR_BAD_DIMENSION);
  bad.max_memory = 65536;
  EXPECT_EQ(size_of(bad), EA_ERR_DIMENSION_OVERFLOW);
  bad.max_memory = 65535;
  EXPECT_EQ(size_of(bad), EA_OK);
  bad = config;
  bad.n_kv_heads = 3;
  EXPECT_EQ(size_of(bad), EA_ERR_HEADS_MISMATCH);
  bad.n_kv_heads = -1;
  EXPECT_EQ(size_of(bad), EA_ERR_BAD_DIMENSION);
  bad = config;
  bad.memory.scale = 0.0f;
  EXPECT_EQ(size_of(bad), EA_ERR_BAD_ARGUMENT);
  bad = config;
  bad.dtype = EA_DTYPE_F32;
  EXPECT_EQ(size_of(bad), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_cross_quant_arena_size(nullptr, &bytes), EA_ERR_NULL_POINTER);

  PlannedQuantCross planned(ea_cross_quant_arena_size, ea_cross_quant_init, config, layer.weights);
  ASSERT_EQ(planned.status, EA_OK);
  ea_cross_quant& cross = planned.plan;
  const std::vector<int8_t> memory(c.memory.begin(), c.memory.end());
  const std::vector<int8_t> x(c.x_emb.begin(), c.x_emb.end());
  std::vector<int8_t> y(x.size(), 9);
  const std::vector<int8_t> untouched = y;
  EXPECT_EQ(ea_cross_quant_run_s8(&cross, x.data(), 4, y.data()), EA_ERR_BAD_ARGUMENT)
      << "no memory yet";
  EXPECT_EQ(ea_cross_quant_set_memory_s8(&cross, memory.data(), 0), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(ea_cross_quant_set_memory_s8(&cross, memory.data(), 7), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(ea_cross_quant_set_memory_s8(&cross, nullptr, 6), EA_ERR_NULL_POINTER);
  const std::vector<int16_t> wide(memory.begin(), memory.end());
  EXPECT_EQ(ea_cross_quant_set_memory_s16(&cross, wide.data(), 6), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(
      ea_cross_quant_set_memory_s8(&cross, static_cast<const int8_t*>(cross.core.carve) + 64, 6),
      EA_ERR_BAD_ARGUMENT)
      << "a memory in the plan's arena bytes";
  EXPECT_EQ(ea_cross_quant_set_memory_s8(&cross, layer.weights.in_proj_weight, 6),
            EA_ERR_BAD_ARGUMENT)
      << "a memory over the weights";
  EXPECT_EQ(cross.n_memory, 0);
  ASSERT_EQ(ea_cross_quant_set_memory_s8(&cross, memory.data(), 6), EA_OK);
  EXPECT_EQ(ea_cross_quant_run_s8(&cross, x.data(), 0, y.data()), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(ea_cross_quant_run_s8(&cross, x.data(), 5, y.data()), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(ea_cross_quant_run_s8(&cross, x.data(), 4, nullptr), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_cross_quant_run_s8(&cross, x.data(), 4,
                                  static_cast<int8_t*>(const_cast<void*>(cross.core.carve))),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_cross_quant_run_s8(&cross, layer.weights.out_proj_weight, 4, y.data()),
            EA_ERR_BAD_ARGUMENT)
      << "x over the weights";
  EXPECT_EQ(y, untouched);
  ASSERT_EQ(ea_cross_quant_run_s8(&cross, x.data(), 4, y.data()), EA_OK);
  EXPECT_EQ(std::vector<int32_t>(y.begin(), y.end()), c.Reference().y);
  // A refused memory keeps the one held; the other dtype's run is refused.
  EXPECT_EQ(ea_cross_quant_set_memory_s8(&cross, memory.data(), 7), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(ea_cross_quant_set_memory_s8(&cross, layer.weights.in_proj_weight, 6),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(cross.n_memory, 6);
  std::vector<int8_t> again(y.size());
  ASSERT_EQ(ea_cross_quant_run_s8(&cross, x.data(), 4, again.data()), EA_OK);
  EXPECT_EQ(again, y);
  std::vector<int16_t> x16(x.begin(), x.end()), y16(x.size(), 9);
  EXPECT_EQ(ea_cross_quant_run_s16(&cross, x16.data(), 4, y16.data()), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(y16, std::vector<int16_t>(x.size(), 9));
  std::vector<int8_t> in_place = x;
  ASSERT_EQ(ea_cross_quant_run_s8(&cross, in_place.data(), 4, in_place.data()), EA_OK);
  EXPECT_EQ(in_place, y) << "y may be x";
}

}  // namespace
}  // namespace edgeattn_test
