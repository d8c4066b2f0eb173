// The fixed-point MHA decoder (edgeattn/decoder.h): a stream of
// steps gives, bit for bit, the integers of the project's TFLite chain
// reference over the whole causal sequence, and those of one causal
// ea_mha_quant_run_s8 / _s16, on every SIMD target; its refusals leave y and the
// stream untouched, and its arena is the formula.
#include <gtest/gtest.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/decoder.h"
#include "edgeattn/edgeattn.h"
#include "planned_operation.h"
#include "reference/device_softmax_luts.h"
#include "reference/quant_mha_fixture.h"
#include "simd_targets.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

class QuantDecoderPerTarget : public PerTargetTest {};

struct StreamCase {
  ea_dtype dtype;
  RandomShape shape;  // causal
  std::vector<int> steps;
};

std::string Describe(const StreamCase& s) {
  std::string steps;
  for (const int n : s.steps) steps += std::to_string(n) + ",";
  return std::string(s.dtype == EA_DTYPE_INT8 ? "int8" : "int16") + " n" +
         std::to_string(s.shape.n) + " d" + std::to_string(s.shape.d_model) + " h" +
         std::to_string(s.shape.heads) + (s.shape.positions ? " positions" : " no positions") +
         " steps " + steps;
}

std::vector<StreamCase> StreamCases() {
  std::vector<StreamCase> cases;
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    cases.push_back({dtype, {9, 8, 1, true, true}, {1}});
    cases.push_back({dtype, {37, 32, 4, true, true}, {1, 2, 3, 4, 5}});
    cases.push_back({dtype, {70, 24, 3, true, false}, {1}});
    cases.push_back({dtype, {65, 20, 5, true, true}, {7, 1}});
    cases.push_back({dtype, {130, 16, 2, true, true}, {64, 1, 3}});
    cases.push_back({dtype, {17, 12, 3, true, true}, {17}});  // one step: the full run
    // Heads of 64 (four 16-key K panels and more), and of 5 (a depth group cut).
    cases.push_back({dtype, {100, 128, 2, true, true}, {1, 3, 16}});
    cases.push_back({dtype, {40, 15, 3, true, false}, {2, 1}});
    // A head of 160: int16 scores without K's high bytes (past 128).
    cases.push_back({dtype, {24, 160, 1, true, false}, {5, 1}});
  }
  return cases;
}

TEST_P(QuantDecoderPerTarget, StreamEqualsTheCausalChainBitForBit) {
  uint64_t seed = 9100;
  for (const StreamCase& s : StreamCases()) {
    SCOPED_TRACE(Describe(s));
    const QuantMhaCase c = RandomQuantMha(s.dtype, s.shape, seed++);
    const QuantMhaCase::Decoded decoded = c.Decode(s.steps);
    ASSERT_EQ(decoded.status, EA_OK);
    const QuantMhaCase::Expected want = c.Reference();
    EXPECT_EQ(decoded.y, want.y) << "against the integer reference";
    const QuantMhaCase::Result full = c.Run();
    ASSERT_EQ(full.status, EA_OK);
    EXPECT_EQ(decoded.y, full.y) << "against one causal ea_mha_run";
    EXPECT_EQ(decoded.arena_bytes, decoded.carved_bytes);
  }
}

// With a sliding window the cache is a ring of window + max_step_tokens - 1
// positions that a long stream wraps many times; the stream equals the
// causal chain whose softmax row i sees keys i - window + 1 .. i, bit for
// bit: windows of one key, inside and across the kernels' key blocks, and
// steps that wrap the ring mid-step.
TEST_P(QuantDecoderPerTarget, WindowedStreamEqualsTheWindowedChainBitForBit) {
  struct WindowCase {
    RandomShape shape;
    int window;
    std::vector<int> steps;
  };
  const WindowCase cases[] = {
      {{40, 16, 2, true, true}, 1, {1, 2}},
      {{70, 24, 3, true, false}, 5, {1, 2, 3}},
      {{65, 20, 5, true, true}, 16, {7, 1}},
      {{90, 64, 4, true, false}, 17, {16, 1, 3}},  // heads of 16: int16 row groups
      {{100, 128, 2, true, true}, 33, {1, 3, 16}},
      {{24, 160, 1, true, false}, 7, {5, 1}},  // int16 without K's high bytes
      {{29, 16, 2, true, true}, 20, {16, 1}},  // 20 + 16 - 1 >= 29: a window, no ring
  };
  uint64_t seed = 9700;
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    for (const WindowCase& w : cases) {
      QuantMhaCase c = RandomQuantMha(dtype, w.shape, seed++);
      c.window = w.window;
      const QuantMhaCase::Decoded decoded = c.Decode(w.steps);
      SCOPED_TRACE(Describe({dtype, w.shape, w.steps}) + " window " + std::to_string(w.window));
      ASSERT_EQ(decoded.status, EA_OK);
      EXPECT_EQ(decoded.y, c.Reference().y);
      EXPECT_EQ(decoded.arena_bytes, decoded.carved_bytes);
      // A ring that holds fewer positions than the stream: a smaller arena.
      c.window = 0;
      const QuantMhaCase::Decoded unwindowed = c.Decode(w.steps);
      ASSERT_EQ(unwindowed.status, EA_OK);
      const int max_step = *std::max_element(w.steps.begin(), w.steps.end());
      if (w.window + max_step - 1 < w.shape.n) {
        EXPECT_LT(decoded.arena_bytes, unwindowed.arena_bytes);
      } else {
        EXPECT_EQ(decoded.arena_bytes, unwindowed.arena_bytes);
      }
      EXPECT_NE(decoded.y, unwindowed.y) << "the window must matter for this case";
    }
  }
}

// A window at least as long as the stream is none: the ring never wraps and
// the stream is the plain causal run's.
TEST_P(QuantDecoderPerTarget, AWindowAsLongAsTheStreamChangesNothing) {
  uint64_t seed = 9800;
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    QuantMhaCase c = RandomQuantMha(dtype, {29, 32, 2, true, true}, seed++);
    const QuantMhaCase::Result full = c.Run();
    ASSERT_EQ(full.status, EA_OK);
    for (const int window : {29, 30, 1000}) {
      c.window = window;
      const QuantMhaCase::Decoded decoded = c.Decode({1, 4});
      ASSERT_EQ(decoded.status, EA_OK);
      EXPECT_EQ(decoded.y, full.y) << "window " << window;
    }
  }
}

// The plain MHA layer a grouped-query case is by definition: every query
// head's W_K and W_V rows, biases and scales are its KV head's, repeated.
QuantMhaCase RepeatedKvHeads(const QuantMhaCase& grouped) {
  QuantMhaCase c = grouped;
  c.kv_heads = 0;
  const size_t e = static_cast<size_t>(c.d_model);
  const size_t d_k = e / static_cast<size_t>(c.heads);
  const size_t group = static_cast<size_t>(c.heads / grouped.KvHeads());
  const size_t kv = static_cast<size_t>(grouped.KvWidth());
  c.in_proj.resize(e * e);
  c.in_bias.resize(grouped.in_bias.empty() ? 0 : e);
  c.in_scales.resize(e);
  for (size_t which = 1; which <= 2; ++which) {
    for (size_t channel = 0; channel < e; ++channel) {
      const size_t from = e + (which - 1) * kv + channel / d_k / group * d_k + channel % d_k;
      c.in_proj.insert(c.in_proj.end(), grouped.in_proj.begin() + static_cast<ptrdiff_t>(from * e),
                       grouped.in_proj.begin() + static_cast<ptrdiff_t>((from + 1) * e));
      if (!grouped.in_bias.empty()) c.in_bias.push_back(grouped.in_bias[from]);
      c.in_scales.push_back(grouped.in_scales[from]);
    }
  }
  return c;
}

// Grouped-query heads: the cache holds n_kv_heads heads of k and v, each
// read by its group of query heads. The stream equals, bit for bit, the
// grouped chain of the integer reference and one causal ea_mha_quant run of
// the layer with each KV head repeated for its group (what grouped-query
// attention is by definition), with and without a window, in_proj and
// separate projections; its arena is smaller than plain MHA's.
TEST_P(QuantDecoderPerTarget, GroupedQueryStreamEqualsTheRepeatedLayerBitForBit) {
  struct GroupedCase {
    RandomShape shape;
    int kv_heads, window;
    std::vector<int> steps;
    bool separate;
  };
  const GroupedCase cases[] = {
      {{37, 32, 4, true, true}, 2, 0, {1, 2, 3, 4, 5}, false},
      {{30, 32, 4, true, false}, 1, 0, {3, 1}, true},  // one KV head (multi-query)
      {{65, 24, 6, true, true}, 3, 0, {7, 1}, false},
      {{45, 24, 6, true, false}, 2, 9, {4, 1}, false},       // a window: a ring of 12
      {{90, 128, 8, true, true}, 2, 17, {16, 1, 3}, true},   // heads of 16: int16 row groups
      {{50, 128, 2, true, false}, 1, 0, {1, 3, 16}, false},  // heads of 64: four K panels
  };
  uint64_t seed = 9900;
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    for (const GroupedCase& g : cases) {
      const QuantMhaCase mha = RandomQuantMha(dtype, g.shape, seed++);
      QuantMhaCase c = GroupedQueryHeads(mha, g.kv_heads);
      c.window = g.window;
      c.separate_projections = g.separate;
      SCOPED_TRACE(Describe({dtype, g.shape, g.steps}) + " kv heads " + std::to_string(g.kv_heads) +
                   " window " + std::to_string(g.window));
      const QuantMhaCase::Decoded decoded = c.Decode(g.steps);
      ASSERT_EQ(decoded.status, EA_OK);
      EXPECT_EQ(decoded.y, c.Reference().y) << "against the grouped integer reference";
      EXPECT_EQ(decoded.arena_bytes, decoded.carved_bytes);
      QuantMhaCase repeated = RepeatedKvHeads(c);
      const QuantMhaCase::Decoded plain = repeated.Decode(g.steps);
      ASSERT_EQ(plain.status, EA_OK);
      EXPECT_EQ(decoded.y, plain.y) << "against the plain decoder of the repeated layer";
      EXPECT_LT(decoded.arena_bytes, plain.arena_bytes);
      if (g.window == 0) {
        const QuantMhaCase::Result full = repeated.Run();
        ASSERT_EQ(full.status, EA_OK);
        EXPECT_EQ(decoded.y, full.y) << "against one causal ea_mha_quant run, repeated";
      }
    }
  }
}

// The model's int16 softmax tables with grouped-query heads: integers from
// ea_decoder_quant_derive (W_K's and W_V's scales of the KV width), then the
// tables, give the reference's integers with those tables.
TEST_P(QuantDecoderPerTarget, GroupedQueryHeadsTakeTheModelsSoftmaxTables) {
  QuantMhaCase c =
      GroupedQueryHeads(RandomQuantMha(EA_DTYPE_INT16, {29, 32, 4, true, true}, 9950), 2);
  c.softmax_exp_lut = DeviceExpLut();
  c.softmax_reciprocal_lut = DeviceReciprocalLut();
  const QuantMhaCase::Decoded decoded = c.Decode({1, 3});
  ASSERT_EQ(decoded.status, EA_OK);
  EXPECT_EQ(decoded.y, c.Reference().y);
  c.softmax_exp_lut = nullptr;
  c.softmax_reciprocal_lut = nullptr;
  EXPECT_NE(decoded.y, c.Decode({1, 3}).y) << "the tables must matter for this case";
}

// W_Q, W_K, W_V as three tensors (a TFLite model's three FULLY_CONNECTED
// ops), with three biases or with in_proj_bias (PyTorch's kdim form): the
// stream still equals the causal chain of the in_proj form.
TEST_P(QuantDecoderPerTarget, SeparateProjectionsStreamAsInProj) {
  uint64_t seed = 9300;
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    QuantMhaCase c = RandomQuantMha(dtype, {29, 32, 2, true, true}, seed++);
    const QuantMhaCase::Result full = c.Run();
    ASSERT_EQ(full.status, EA_OK);
    c.separate_projections = true;
    for (const bool in_proj_bias : {false, true}) {
      c.other_bias_form = in_proj_bias;
      const QuantMhaCase::Decoded decoded = c.Decode({1, 3});
      ASSERT_EQ(decoded.status, EA_OK);
      EXPECT_EQ(decoded.y, full.y)
          << (dtype == EA_DTYPE_INT8 ? "int8" : "int16") << " in_proj_bias " << in_proj_bias;
    }
  }
}

// The int16 decoder reads a device's softmax tables as the plan does.
TEST_P(QuantDecoderPerTarget, DeviceSoftmaxTablesStreamAsTheFullRun) {
  QuantMhaCase c = RandomQuantMha(EA_DTYPE_INT16, {29, 32, 2, true, true}, 9400);
  c.softmax_exp_lut = DeviceExpLut();
  c.softmax_reciprocal_lut = DeviceReciprocalLut();
  const QuantMhaCase::Result full = c.Run();
  ASSERT_EQ(full.status, EA_OK);
  const QuantMhaCase::Decoded decoded = c.Decode({1, 3});
  ASSERT_EQ(decoded.status, EA_OK);
  EXPECT_EQ(decoded.y, full.y);
  EXPECT_EQ(full.y, c.Reference().y);
}

// A decoder built by hand on an int8 or int16 case (its window and KV
// heads), for the rules' tests.
template <typename T>
struct Decoder {
  Decoder(const QuantMhaCase& c, int32_t max_step_tokens) : layer(c) {
    config = DecoderQuantConfigOf(layer.config, c.kv_heads);
    config.max_step_tokens = max_step_tokens;
    config.window = c.window;
    status = ea_decoder_quant_arena_size(&config, &bytes);
    if (status != EA_OK) return;
    storage = AlignedBytes(bytes);
    ea_arena_init(&arena, storage.data(), bytes);
    status = ea_decoder_quant_init(&decoder, &config, &layer.weights, &arena);
  }
  ea_status Step(const T* x, int32_t n, T* y) {
    if constexpr (sizeof(T) == 1) {
      return ea_decoder_quant_step_s8(&decoder, x, n, y);
    } else {
      return ea_decoder_quant_step_s16(&decoder, x, n, y);
    }
  }
  QuantMhaLayer layer;
  ea_decoder_quant_config config{};
  size_t bytes = 0;
  AlignedBytes storage{0};
  ea_arena arena{};
  ea_decoder_quant decoder{};
  ea_status status = EA_ERR_BAD_ARGUMENT;
};

std::vector<int8_t> Int8Rows(const QuantMhaCase& c, int first, int n) {
  const size_t e = static_cast<size_t>(c.d_model);
  return std::vector<int8_t>(c.x_emb.begin() + first * e, c.x_emb.begin() + (first + n) * e);
}

TEST_P(QuantDecoderPerTarget, ResetStartsANewStream) {
  const QuantMhaCase c = RandomQuantMha(EA_DTYPE_INT8, {12, 16, 2, true, true}, 9200);
  const QuantMhaCase::Expected want = c.Reference();
  Decoder<int8_t> d(c, 4);
  ASSERT_EQ(d.status, EA_OK);
  const std::vector<int8_t> x = Int8Rows(c, 0, 12);
  std::vector<int8_t> y(x.size());
  ASSERT_EQ(d.Step(x.data() + 5 * 16, 4, y.data()), EA_OK);  // another stream's start
  ASSERT_EQ(ea_decoder_quant_reset(&d.decoder), EA_OK);
  EXPECT_EQ(d.decoder.length, 0);
  for (int t = 0; t < 12; t += 3) ASSERT_EQ(d.Step(x.data() + t * 16, 3, y.data() + t * 16), EA_OK);
  EXPECT_EQ(std::vector<int32_t>(y.begin(), y.end()), want.y);
  EXPECT_EQ(d.decoder.length, 12);
}

// A reset forgets a ring that has wrapped: the next stream sees none of the
// old keys (grouped heads, a window of 5 in a ring of 8 slots).
TEST_P(QuantDecoderPerTarget, AResetRingStartsANewStream) {
  QuantMhaCase c =
      GroupedQueryHeads(RandomQuantMha(EA_DTYPE_INT16, {16, 16, 4, true, true}, 9970), 2);
  c.window = 5;
  const QuantMhaCase::Expected want = c.Reference();
  Decoder<int16_t> d(c, 4);
  ASSERT_EQ(d.status, EA_OK);
  const std::vector<int16_t> x(c.x_emb.begin(), c.x_emb.end());
  std::vector<int16_t> y(x.size());
  for (int t = 12; t > 0; t -= 4) ASSERT_EQ(d.Step(x.data() + t * 16, 4, y.data()), EA_OK);
  ASSERT_EQ(ea_decoder_quant_reset(&d.decoder), EA_OK);
  for (int t = 0; t < 16; t += 3) {
    const int n = t + 3 <= 16 ? 3 : 16 - t;
    ASSERT_EQ(d.Step(x.data() + t * 16, n, y.data() + t * 16), EA_OK);
  }
  EXPECT_EQ(std::vector<int32_t>(y.begin(), y.end()), want.y);
}

TEST_P(QuantDecoderPerTarget, GivenIntegersGiveTheDerivedOnesResults) {
  const QuantMhaCase c = RandomQuantMha(EA_DTYPE_INT16, {20, 24, 3, true, true}, 9300);
  const QuantMhaCase::Expected want = c.Reference();
  Decoder<int16_t> derived(c, 5);
  ASSERT_EQ(derived.status, EA_OK);
  std::vector<int32_t> channels(EA_MHA_QUANT_CHANNEL_INTS(c.d_model));
  ea_mha_quant_params params{};
  ASSERT_EQ(ea_mha_quant_derive(&derived.layer.config, &params, channels.data(), channels.size()),
            EA_OK);
  // Given integers alone: the sinusoidal table filled at init takes its
  // quantization from them (params.position), with no quant_scales.
  QuantMhaLayer given_layer(c);
  ea_decoder_quant_config config = DecoderQuantConfigOf(given_layer.config);
  config.max_step_tokens = 5;
  config.quant_params = &params;
  config.quant_scales = nullptr;
  PlannedQuantDecoder planned = PlanQuantDecoder(config, given_layer.weights);
  ASSERT_EQ(planned.status, EA_OK);
  EXPECT_EQ(planned.bytes, derived.bytes);
  ea_decoder_quant& decoder = planned.plan;
  memset(channels.data(), 0, channels.size() * sizeof(int32_t));  // the plan keeps its own copy
  std::vector<int16_t> x(c.x_emb.begin(), c.x_emb.end()), y(x.size());
  for (int t = 0; t < 20; t += 5) {
    ASSERT_EQ(ea_decoder_quant_step_s16(&decoder, x.data() + t * 24, 5, y.data() + t * 24), EA_OK);
  }
  EXPECT_EQ(std::vector<int32_t>(y.begin(), y.end()), want.y);
}

// RoPE: q and k rotated after their projections (k where the cache stores
// it, before the panels copy it), the scores on the rotated tensors. The
// stream equals the integer reference's RoPE chain bit for bit: both
// layouts, grouped KV heads, windows whose ring wraps mid-step, heads of
// more pairs than the rope kernel's block, in_proj and separate
// projections; and RoPE matters (the stream without it differs).
TEST_P(QuantDecoderPerTarget, RopeStreamEqualsTheRopeChainBitForBit) {
  struct RopeCase {
    RandomShape shape;
    int kv_heads, window;
    std::vector<int> steps;
    bool separate;
  };
  const RopeCase cases[] = {
      {{20, 16, 2, true, true}, 2, 0, {1}, false},
      {{37, 32, 4, true, false}, 2, 0, {1, 2, 3}, true},
      {{45, 24, 6, true, true}, 3, 9, {4, 1}, false},         // a ring of 12
      {{40, 128, 2, true, false}, 1, 17, {16, 1, 3}, false},  // heads of 64: one block of pairs
      {{12, 256, 2, true, false}, 1, 0, {3, 1}, false},       // heads of 128: two blocks
      {{24, 12, 1, true, false}, 1, 0, {5, 1}, true},
  };
  uint64_t seed = 9500;
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    for (const int rope : {tflite_ref::kRopeHalf, tflite_ref::kRopeInterleaved}) {
      for (const RopeCase& r : cases) {
        QuantMhaCase c = GroupedQueryHeads(RandomQuantMha(dtype, r.shape, seed++), r.kv_heads);
        c.window = r.window;
        c.separate_projections = r.separate;
        c.rope = rope;
        SCOPED_TRACE(Describe({dtype, r.shape, r.steps}) + " kv heads " +
                     std::to_string(r.kv_heads) + " window " + std::to_string(r.window) +
                     (rope == tflite_ref::kRopeHalf ? " half" : " interleaved"));
        const QuantMhaCase::Decoded decoded = c.Decode(r.steps);
        ASSERT_EQ(decoded.status, EA_OK);
        EXPECT_EQ(decoded.y, c.Reference().y) << "against the integer reference's RoPE chain";
        EXPECT_EQ(decoded.arena_bytes, decoded.carved_bytes);
        c.rope = 0;
        const QuantMhaCase::Decoded plain = c.Decode(r.steps);
        ASSERT_EQ(plain.status, EA_OK);
        EXPECT_EQ(plain.arena_bytes, decoded.arena_bytes) << "RoPE needs no arena";
        EXPECT_NE(plain.y, decoded.y) << "RoPE must matter for this case";
      }
    }
  }
}

// RoPE with given integers: ea_decoder_quant_derive's (the scores from the
// rotated scales) and ea_rope_quant_derive's give the scales' stream, both
// dtypes and layouts; a reset starts again at position 0.
template <typename T>
void ExpectRopeTakesGivenIntegers(int rope) {
  const ea_dtype dtype = sizeof(T) == 1 ? EA_DTYPE_INT8 : EA_DTYPE_INT16;
  QuantMhaCase c = GroupedQueryHeads(RandomQuantMha(dtype, {18, 32, 4, true, true}, 9550), 2);
  c.rope = rope;
  const QuantMhaCase::Expected want = c.Reference();
  QuantMhaLayer layer(c);
  const std::vector<int32_t> cos32 = c.RopeTable(false), sin32 = c.RopeTable(true);
  const std::vector<T> cos(cos32.begin(), cos32.end()), sin(sin32.begin(), sin32.end());
  ea_rope_quant_scales rope_scales[2];
  c.RopeScales(rope_scales);
  ea_decoder_quant_config config = DecoderQuantConfigOf(layer.config);
  config.max_step_tokens = 3;
  config.n_kv_heads = 2;
  config.rope_layout = rope == tflite_ref::kRopeInterleaved ? EA_ROPE_INTERLEAVED : EA_ROPE_HALF;
  config.rope_cos_table = cos.data();
  config.rope_sin_table = sin.data();
  config.rope_scales = rope_scales;
  std::vector<int32_t> channels(EA_MHA_QUANT_CHANNEL_INTS(c.d_model));
  ea_mha_quant_params params{};
  ASSERT_EQ(ea_decoder_quant_derive(&config, &params, channels.data(), channels.size()), EA_OK);
  ea_rope_quant_params rope_params[2];
  ASSERT_EQ(ea_rope_quant_derive(dtype, &rope_scales[0], &rope_params[0]), EA_OK);
  ASSERT_EQ(ea_rope_quant_derive(dtype, &rope_scales[1], &rope_params[1]), EA_OK);
  config.quant_params = &params;
  config.quant_scales = nullptr;
  config.rope_scales = nullptr;
  config.rope_params = rope_params;
  PlannedQuantDecoder planned = PlanQuantDecoder(config, layer.weights);
  ASSERT_EQ(planned.status, EA_OK);
  ea_decoder_quant& decoder = planned.plan;
  memset(rope_params, 0, sizeof(rope_params));  // the plan keeps its own copy
  const size_t e = static_cast<size_t>(c.d_model);
  std::vector<T> x(c.x_emb.begin(), c.x_emb.end()), y(x.size());
  for (size_t t = 0; t < 18; t += 3) {
    if constexpr (sizeof(T) == 1) {
      ASSERT_EQ(ea_decoder_quant_step_s8(&decoder, x.data() + t * e, 3, y.data() + t * e), EA_OK);
    } else {
      ASSERT_EQ(ea_decoder_quant_step_s16(&decoder, x.data() + t * e, 3, y.data() + t * e), EA_OK);
    }
  }
  EXPECT_EQ(std::vector<int32_t>(y.begin(), y.end()), want.y);
  // A reset starts the rotation at position 0 again.
  ASSERT_EQ(ea_decoder_quant_reset(&decoder), EA_OK);
  std::vector<T> again(y.size());
  for (size_t t = 0; t < 18; t += 3) {
    if constexpr (sizeof(T) == 1) {
      ASSERT_EQ(ea_decoder_quant_step_s8(&decoder, x.data() + t * e, 3, again.data() + t * e),
                EA_OK);
    } else {
      ASSERT_EQ(ea_decoder_quant_step_s16(&decoder, x.data() + t * e, 3, again.data() + t * e),
                EA_OK);
    }
  }
  EXPECT_EQ(again, y) << "after a reset";
}

TEST_P(QuantDecoderPerTarget, RopeTakesGivenIntegers) {
  for (const int rope : {tflite_ref::kRopeHalf, tflite_ref::kRopeInterleaved}) {
    SCOPED_TRACE(rope == tflite_ref::kRopeHalf ? "half" : "interleaved");
    ExpectRopeTakesGivenIntegers<int8_t>(rope);
    ExpectRopeTakesGivenIntegers<int16_t>(rope);
  }
}

TEST_P(QuantDecoderPerTarget, YMayBeX) {
  const QuantMhaCase c = RandomQuantMha(EA_DTYPE_INT8, {10, 16, 4, true, false}, 9400);
  const QuantMhaCase::Expected want = c.Reference();
  Decoder<int8_t> d(c, 2);
  ASSERT_EQ(d.status, EA_OK);
  std::vector<int8_t> xy = Int8Rows(c, 0, 10);
  for (int t = 0; t < 10; t += 2)
    ASSERT_EQ(d.Step(xy.data() + t * 16, 2, xy.data() + t * 16), EA_OK);
  EXPECT_EQ(std::vector<int32_t>(xy.begin(), xy.end()), want.y);
}

INSTANTIATE_TEST_SUITE_P(Targets, QuantDecoderPerTarget, testing::ValuesIn(TargetsUnderTest()),
                         TargetParamName);

// The stream of case c in steps of 4, step i on target i of the targets
// under test (round robin).
template <typename T>
std::vector<int32_t> StreamOnRotatingTargets(const QuantMhaCase& c) {
  const std::vector<int64_t> targets = TargetsUnderTest();
  const int n = c.n, e = c.d_model;
  Decoder<T> d(c, 4);
  EXPECT_EQ(d.status, EA_OK);
  const std::vector<T> x(c.x_emb.begin(), c.x_emb.end());
  std::vector<T> y(x.size());
  for (int t = 0, step = 0; t < n && d.status == EA_OK; t += 4, ++step) {
    ForceTarget(targets[static_cast<size_t>(step) % targets.size()]);
    EXPECT_EQ(d.Step(x.data() + t * e, n - t < 4 ? n - t : 4, y.data() + t * e), EA_OK);
  }
  ForceTarget(0);
  return std::vector<int32_t>(y.begin(), y.end());
}

// A stream whose steps run on different targets gives the same integers: a
// decoder on x86 adds each step's keys both to the rows the portable kernels
// read and to the panels AVX3_DL's attention reads, whatever target the step
// runs on.
TEST(QuantDecoderTargets, EachStepMayRunOnAnotherTarget) {
  const QuantMhaCase c8 = RandomQuantMha(EA_DTYPE_INT8, {45, 64, 2, true, true}, 9700);
  EXPECT_EQ(StreamOnRotatingTargets<int8_t>(c8), c8.Reference().y);
  const QuantMhaCase c16 = RandomQuantMha(EA_DTYPE_INT16, {45, 64, 2, true, true}, 9701);
  EXPECT_EQ(StreamOnRotatingTargets<int16_t>(c16), c16.Reference().y);
}

TEST(QuantDecoderRules, RefusedStepsLeaveYAndTheStreamUntouched) {
  const QuantMhaCase c = RandomQuantMha(EA_DTYPE_INT8, {8, 16, 2, true, true}, 9500);
  const QuantMhaCase::Expected want = c.Reference();
  Decoder<int8_t> d(c, 3);
  ASSERT_EQ(d.status, EA_OK);
  const std::vector<int8_t> x = Int8Rows(c, 0, 8);
  std::vector<int8_t> y(x.size(), int8_t{0x5A});
  const std::vector<int8_t> untouched = y;
  int8_t* inside_arena = reinterpret_cast<int8_t*>(d.arena.base) + 64;
  const int8_t* weights = d.layer.weights.in_proj_weight;
  EXPECT_EQ(d.Step(x.data(), 0, y.data()), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(d.Step(x.data(), 4, y.data()), EA_ERR_BAD_DIMENSION);  // > max_step_tokens
  EXPECT_EQ(d.Step(x.data(), 3, inside_arena), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(d.Step(inside_arena, 3, y.data()), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(d.Step(x.data(), 3, const_cast<int8_t*>(weights)), EA_ERR_BAD_ARGUMENT);
  // x over the weights: the header's rule (0.9.1 checked only the arena).
  EXPECT_EQ(d.Step(weights, 3, y.data()), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(d.Step(d.layer.weights.out_proj_weight + 5, 1, y.data()), EA_ERR_BAD_ARGUMENT);
  // ... and over a bias (the decoder fuzz family's case: x over in_proj_bias).
  ASSERT_NE(d.layer.weights.in_proj_bias, nullptr);
  EXPECT_EQ(d.Step(static_cast<const int8_t*>(d.layer.weights.in_proj_bias), 3, y.data()),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(d.Step(nullptr, 3, y.data()), EA_ERR_NULL_POINTER);
  int16_t y16[48];
  EXPECT_EQ(
      ea_decoder_quant_step_s16(&d.decoder, reinterpret_cast<const int16_t*>(x.data()), 1, y16),
      EA_ERR_BAD_ARGUMENT);  // an INT8 decoder
  EXPECT_EQ(y, untouched);
  EXPECT_EQ(d.decoder.length, 0);
  for (int t = 0; t < 8; t += 2) ASSERT_EQ(d.Step(x.data() + t * 16, 2, y.data() + t * 16), EA_OK);
  EXPECT_EQ(std::vector<int32_t>(y.begin(), y.end()), want.y);
  // The stream holds 8 positions (layer.max_tokens): a ninth is refused.
  const std::vector<int8_t> before = y;
  EXPECT_EQ(d.Step(x.data(), 1, y.data()), EA_ERR_CACHE_FULL);
  EXPECT_EQ(y, before);
  EXPECT_EQ(d.decoder.length, 8);
}

TEST(QuantDecoderRules, ConfigsAndPlansAreChecked) {
  const QuantMhaCase c = RandomQuantMha(EA_DTYPE_INT8, {8, 16, 2, true, true}, 9600);
  QuantMhaLayer layer(c);
  ea_decoder_quant_config config = DecoderQuantConfigOf(layer.config);
  config.max_step_tokens = 2;
  size_t bytes = 0;
  ASSERT_EQ(ea_decoder_quant_arena_size(&config, &bytes), EA_OK);
  EXPECT_EQ(bytes, edgeattn::DecoderQuantArenaBytes(config));
  EXPECT_EQ(bytes, edgeattn::DecoderQuantArenaBytes(8, 2, 16, 2, EA_DTYPE_INT8,
                                                    edgeattn::PositionStorage::kArena));
  const auto refused = [&](ea_decoder_quant_config bad) {
    size_t ignored = 0;
    return ea_decoder_quant_arena_size(&bad, &ignored);
  };
  ea_decoder_quant_config bad = config;
  bad.max_step_tokens = 0;
  EXPECT_EQ(refused(bad), EA_ERR_BAD_DIMENSION);
  bad.max_step_tokens = 9;
  EXPECT_EQ(refused(bad), EA_ERR_BAD_DIMENSION);
  bad = config;
  bad.window = -1;
  EXPECT_EQ(refused(bad), EA_ERR_BAD_DIMENSION);
  bad.window = INT32_MIN;
  EXPECT_EQ(refused(bad), EA_ERR_BAD_DIMENSION);
  // A window past any stream is no window: the same arena.
  bad.window = INT32_MAX;
  size_t wide = 0;
  EXPECT_EQ(ea_decoder_quant_arena_size(&bad, &wide), EA_OK);
  EXPECT_EQ(wide, bytes);
  // KV heads: 0 is n_heads (the arena above); else they divide n_heads.
  bad = config;
  bad.n_kv_heads = 2;
  size_t same = 0;
  EXPECT_EQ(ea_decoder_quant_arena_size(&bad, &same), EA_OK);
  EXPECT_EQ(same, bytes);
  bad.n_kv_heads = 1;
  size_t grouped = 0;
  EXPECT_EQ(ea_decoder_quant_arena_size(&bad, &grouped), EA_OK);
  EXPECT_EQ(grouped, edgeattn::DecoderQuantArenaBytes(8, 2, 16, 2, EA_DTYPE_INT8,
                                                      edgeattn::PositionStorage::kArena, 0, 1));
  EXPECT_LT(grouped, bytes);
  bad.n_kv_heads = 3;
  EXPECT_EQ(refused(bad), EA_ERR_HEADS_MISMATCH);
  bad.n_kv_heads = 4;  // more KV heads than heads
  EXPECT_EQ(refused(bad), EA_ERR_HEADS_MISMATCH);
  bad.n_kv_heads = -1;
  EXPECT_EQ(refused(bad), EA_ERR_BAD_DIMENSION);
  bad.n_kv_heads = INT32_MIN;
  EXPECT_EQ(refused(bad), EA_ERR_BAD_DIMENSION);
  bad = config;
  bad.dtype = EA_DTYPE_F32;
  EXPECT_EQ(refused(bad), EA_ERR_BAD_ARGUMENT);
  bad = config;
  bad.n_heads = 3;
  EXPECT_EQ(refused(bad), EA_ERR_HEADS_MISMATCH);
  bad = config;
  bad.max_positions = 65536;
  EXPECT_EQ(refused(bad), EA_ERR_DIMENSION_OVERFLOW);
  bad.max_positions = 0;
  EXPECT_EQ(refused(bad), EA_ERR_BAD_DIMENSION);
  bad.max_positions = 1;  // shorter than a step
  EXPECT_EQ(refused(bad), EA_ERR_BAD_DIMENSION);
  bad = config;
  bad.quant_scales = nullptr;
  EXPECT_NE(refused(bad), EA_OK);
  EXPECT_EQ(ea_decoder_quant_arena_size(nullptr, &bytes), EA_ERR_NULL_POINTER);

  // One byte short, and a failed re-init: the old decoder is not usable.
  AlignedBytes storage(bytes);
  ea_arena arena;
  ea_arena_init(&arena, storage.data(), bytes - 1);
  ea_decoder_quant decoder{};
  EXPECT_EQ(ea_decoder_quant_init(&decoder, &config, &layer.weights, &arena),
            EA_ERR_ARENA_TOO_SMALL);
  EXPECT_EQ(arena.used, 0u);
  ea_arena_init(&arena, storage.data(), bytes);
  ASSERT_EQ(ea_decoder_quant_init(&decoder, &config, &layer.weights, &arena), EA_OK);
  EXPECT_EQ(arena.used, bytes);
  ea_arena_init(&arena, storage.data(), bytes);
  EXPECT_EQ(ea_decoder_quant_init(&decoder, &bad, &layer.weights, &arena), EA_ERR_NULL_POINTER);
  int8_t x[16] = {0}, y[16];
  EXPECT_EQ(ea_decoder_quant_step_s8(&decoder, x, 1, y), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_decoder_quant_reset(&decoder), EA_ERR_BAD_ARGUMENT);
  ea_decoder_quant never_planned{};
  EXPECT_EQ(ea_decoder_quant_step_s8(&never_planned, x, 1, y), EA_ERR_BAD_ARGUMENT);

  // Weights inside the arena the plan would carve.
  ea_arena_init(&arena, storage.data(), bytes);
  ea_mha_quant_weights inside = layer.weights;
  inside.out_proj_weight = reinterpret_cast<const int8_t*>(storage.data()) + 128;
  EXPECT_EQ(ea_decoder_quant_init(&decoder, &config, &inside, &arena), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(arena.used, 0u);
}

// A small RoPE decoder's config (steps of up to 2 tokens) on the fixture's
// tables and rope scales, for the rules' tests.
template <typename T>
struct RopeDecoderSetup {
  explicit RopeDecoderSetup(const QuantMhaCase& rope_case) : c(rope_case), layer(c) {
    const std::vector<int32_t> cos32 = c.RopeTable(false), sin32 = c.RopeTable(true);
    cos.assign(cos32.begin(), cos32.end());
    sin.assign(sin32.begin(), sin32.end());
    c.RopeScales(scales);
    config = DecoderQuantConfigOf(layer.config);
    config.max_step_tokens = 2;
    config.rope_layout =
        c.rope == tflite_ref::kRopeInterleaved ? EA_ROPE_INTERLEAVED : EA_ROPE_HALF;
    config.rope_cos_table = cos.data();
    config.rope_sin_table = sin.data();
    config.rope_scales = scales;
  }
  QuantMhaCase c;
  QuantMhaLayer layer;
  std::vector<T> cos, sin;
  ea_rope_quant_scales scales[2];
  ea_decoder_quant_config config{};
};

QuantMhaCase WithRope(QuantMhaCase c, int rope) {
  c.rope = rope;
  return c;
}

// RoPE's rules (decoder.h), each alone; tables inside the arena or under a
// step's x or y are refused with nothing written.
TEST(QuantDecoderRules, RopeConfigsAreChecked) {
  RopeDecoderSetup<int8_t> setup(
      WithRope(RandomQuantMha(EA_DTYPE_INT8, {8, 16, 2, true, true}, 9610), tflite_ref::kRopeHalf));
  const QuantMhaCase& c = setup.c;
  const QuantMhaLayer& layer = setup.layer;
  const std::vector<int8_t>& cos = setup.cos;
  const std::vector<int8_t>& sin = setup.sin;
  const ea_rope_quant_scales* scales = setup.scales;
  const ea_decoder_quant_config& config = setup.config;
  size_t bytes = 0;
  ASSERT_EQ(ea_decoder_quant_arena_size(&config, &bytes), EA_OK);
  const auto refused = [&](ea_decoder_quant_config bad) {
    size_t ignored = 0;
    return ea_decoder_quant_arena_size(&bad, &ignored);
  };
  ea_decoder_quant_config bad = config;
  bad.rope_sin_table = nullptr;
  EXPECT_EQ(refused(bad), EA_ERR_BAD_ARGUMENT);
  bad = config;
  bad.rope_cos_table = nullptr;
  EXPECT_EQ(refused(bad), EA_ERR_BAD_ARGUMENT);
  bad = config;
  bad.rope_cos_table = bad.rope_sin_table = nullptr;  // no RoPE, but its scales given
  EXPECT_EQ(refused(bad), EA_ERR_BAD_ARGUMENT);
  bad.rope_scales = nullptr;
  EXPECT_EQ(refused(bad), EA_OK);
  bad = config;
  bad.rope_layout = static_cast<ea_rope_layout>(2);
  EXPECT_EQ(refused(bad), EA_ERR_BAD_ARGUMENT);
  bad = config;
  bad.rope_scales = nullptr;
  EXPECT_EQ(refused(bad), EA_ERR_NULL_POINTER);
  ea_rope_quant_scales other[2] = {scales[0], scales[1]};
  other[1].x.zero_point += 1;  // not k's quantization
  bad = config;
  bad.rope_scales = other;
  EXPECT_EQ(refused(bad), EA_ERR_BAD_ARGUMENT);
  other[1] = scales[1];
  other[0].cos_product.scale = 1e-30f;  // MUL's multiplier past its range
  EXPECT_EQ(refused(bad), EA_ERR_BAD_ARGUMENT);
  other[0] = scales[0];
  other[0].rotated.scale = 1e-30f;  // no ADD (nor scores) multiplier takes it
  EXPECT_EQ(refused(bad), EA_ERR_BAD_ARGUMENT);
  ea_rope_quant_params params[2]{};
  std::vector<int32_t> channels(EA_MHA_QUANT_CHANNEL_INTS(c.d_model));
  ea_mha_quant_params given{};
  ASSERT_EQ(ea_decoder_quant_derive(&config, &given, channels.data(), channels.size()), EA_OK);
  bad = config;
  bad.quant_params = &given;
  bad.rope_params = nullptr;
  EXPECT_EQ(refused(bad), EA_ERR_NULL_POINTER);
  ASSERT_EQ(ea_rope_quant_derive(EA_DTYPE_INT8, &scales[0], &params[0]), EA_OK);
  ASSERT_EQ(ea_rope_quant_derive(EA_DTYPE_INT8, &scales[1], &params[1]), EA_OK);
  bad.rope_params = params;
  EXPECT_EQ(refused(bad), EA_OK);
  bad.rope_cos_table = bad.rope_sin_table = nullptr;  // no RoPE, but its integers given
  EXPECT_EQ(refused(bad), EA_ERR_BAD_ARGUMENT);
  bad.rope_cos_table = cos.data();
  bad.rope_sin_table = sin.data();
  params[1].add.left_shift = 21;
  EXPECT_EQ(refused(bad), EA_ERR_BAD_ARGUMENT);
  // An odd head width.
  QuantMhaCase odd = RandomQuantMha(EA_DTYPE_INT8, {8, 6, 2, true, true}, 9611);
  QuantMhaLayer odd_layer(odd);
  bad = config;
  bad.d_model = odd_layer.config.d_model;  // d_k 3
  bad.quant_scales = odd_layer.config.quant_scales;
  EXPECT_EQ(refused(bad), EA_ERR_BAD_DIMENSION);

  // A table inside the carve (each of them); a step's y or x over a table.
  AlignedBytes storage(bytes + 4096);
  ea_arena arena;
  ea_arena_init(&arena, storage.data(), bytes);
  ea_decoder_quant decoder{};
  for (const bool sin_table : {false, true}) {
    bad = config;
    (sin_table ? bad.rope_sin_table : bad.rope_cos_table) = storage.data() + 64;
    EXPECT_EQ(ea_decoder_quant_init(&decoder, &bad, &layer.weights, &arena), EA_ERR_BAD_ARGUMENT);
    EXPECT_EQ(arena.used, 0u);
  }
  ASSERT_EQ(ea_decoder_quant_init(&decoder, &config, &layer.weights, &arena), EA_OK);
  std::vector<int8_t> x(16, 1), y(16, 5);
  std::vector<int8_t> table_copy = cos;
  EXPECT_EQ(ea_decoder_quant_step_s8(&decoder, x.data(), 1, const_cast<int8_t*>(cos.data())),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(cos, table_copy);
  EXPECT_EQ(ea_decoder_quant_step_s8(&decoder, sin.data(), 1, y.data()), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(y, std::vector<int8_t>(16, 5));
  EXPECT_EQ(decoder.length, 0);
}

// int16 RoPE: tables aligned to their elements, rope scales with zero
// points 0 (int16 activations have none).
TEST(QuantDecoderRules, Int16RopeTablesAndScalesAreChecked) {
  RopeDecoderSetup<int16_t> setup(WithRope(
      RandomQuantMha(EA_DTYPE_INT16, {8, 16, 2, true, true}, 9612), tflite_ref::kRopeInterleaved));
  const ea_decoder_quant_config& config = setup.config;
  const ea_rope_quant_scales* scales = setup.scales;
  size_t bytes = 0;
  ASSERT_EQ(ea_decoder_quant_arena_size(&config, &bytes), EA_OK);
  ea_decoder_quant_config bad = config;
  bad.rope_cos_table = reinterpret_cast<const uint8_t*>(setup.cos.data()) + 1;  // never read
  EXPECT_EQ(ea_decoder_quant_arena_size(&bad, &bytes), EA_ERR_BAD_ARGUMENT);
  ea_rope_quant_scales other[2] = {scales[0], scales[1]};
  other[1].sin_product.zero_point = 1;
  bad = config;
  bad.rope_scales = other;
  EXPECT_EQ(ea_decoder_quant_arena_size(&bad, &bytes), EA_ERR_BAD_ARGUMENT);
}

// With RoPE the scores' BATCH_MATMUL reads the rotated q and k only: a
// scores quantization that fits them is accepted even where the unrotated
// q and k would need a multiplier past the int16 range (shift above 7).
TEST(QuantDecoderRules, RopeScoresReadOnlyTheRotatedScales) {
  QuantMhaCase c = RandomQuantMha(EA_DTYPE_INT16, {8, 16, 2, true, true}, 9613);
  c.rope = tflite_ref::kRopeHalf;
  QuantMhaLayer layer(c);
  const std::vector<int32_t> cos32 = c.RopeTable(false), sin32 = c.RopeTable(true);
  const std::vector<int16_t> cos(cos32.begin(), cos32.end()), sin(sin32.begin(), sin32.end());
  ea_mha_quant_scales scales = *layer.config.quant_scales;
  scales.q.scale = scales.k.scale = 1.0f;  // q k / scores = 1000: shift 10
  scales.scores.scale = 1e-3f;
  ea_rope_quant_scales rope[2];
  c.RopeScales(rope);
  for (int i = 0; i < 2; ++i) {
    rope[i].x = i == 0 ? scales.q : scales.k;
    rope[i].cos_product.scale = rope[i].sin_product.scale = rope[i].rotated.scale = 1e-2f;
  }
  ea_decoder_quant_config config = DecoderQuantConfigOf(layer.config);
  config.quant_scales = &scales;
  config.max_step_tokens = 2;
  std::vector<int32_t> channels(EA_MHA_QUANT_CHANNEL_INTS(c.d_model));
  ea_mha_quant_params params{};
  EXPECT_EQ(ea_decoder_quant_derive(&config, &params, channels.data(), channels.size()),
            EA_ERR_BAD_ARGUMENT)
      << "without RoPE the scores read the unrotated q and k";
  config.rope_layout = EA_ROPE_HALF;
  config.rope_cos_table = cos.data();
  config.rope_sin_table = sin.data();
  config.rope_scales = rope;
  ASSERT_EQ(ea_decoder_quant_derive(&config, &params, channels.data(), channels.size()), EA_OK);
  // 1e-2 * 1e-2 / 1e-3 = 0.1 = 0.8 * 2^-3 (TFLite's QuantizeMultiplier).
  EXPECT_EQ(params.scores.output_shift, -3);
  PlannedQuantDecoder planned = PlanQuantDecoder(config, layer.weights);
  EXPECT_EQ(planned.status, EA_OK);
}

// ea_decoder_quant_derive: the decoder's own Prepare, with W_K's and W_V's
// KV width. It validates the config as _arena_size does, ignores its
// quant_params, and on a refusal writes neither output.
TEST(QuantDecoderRules, DeriveTakesTheKvWidth) {
  const QuantMhaCase c =
      GroupedQueryHeads(RandomQuantMha(EA_DTYPE_INT8, {8, 16, 4, true, true}, 9960), 2);
  QuantMhaLayer layer(c);
  ea_decoder_quant_config config = DecoderQuantConfigOf(layer.config);
  config.max_step_tokens = 2;
  config.n_kv_heads = 2;
  std::vector<int32_t> ints(EA_MHA_QUANT_CHANNEL_INTS(16), -7);
  ea_mha_quant_params params{};
  ASSERT_EQ(ea_decoder_quant_derive(&config, &params, ints.data(), ints.size()), EA_OK);
  // q and out: 16 channels each, k and v: 8 (two KV heads of 4), one after another.
  EXPECT_EQ(params.q_proj.output_multiplier, ints.data());
  EXPECT_EQ(params.k_proj.output_multiplier, ints.data() + 32);
  EXPECT_EQ(params.v_proj.output_multiplier, ints.data() + 48);
  EXPECT_EQ(params.out_proj.output_shift, ints.data() + 80);
  EXPECT_EQ(ints[96], -7) << "past the channels the layer has";
  // The k_proj integers are TFLite's Prepare of W_K's KV-width scales.
  std::vector<float> scales;
  const tflite_ref::ChainQuantization q = c.Quantization(&scales);
  const tflite_ref::ChainParamsInt8 want = tflite_ref::PrepareChainInt8(q, 16, 8);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(params.k_proj.output_multiplier[i], want.fc_k.multiplier[i]) << i;
    EXPECT_EQ(params.v_proj.output_shift[i], want.fc_v.shift[i]) << i;
  }
  // Refusals write nothing.
  const std::vector<int32_t> before = ints;
  ea_mha_quant_params untouched{};
  untouched.scores.output_shift = 99;
  ea_mha_quant_params out = untouched;
  EXPECT_EQ(ea_decoder_quant_derive(&config, &out, ints.data(), 8 * 16 - 1),
            EA_ERR_ARENA_TOO_SMALL);
  ea_decoder_quant_config bad = config;
  bad.n_kv_heads = 3;
  EXPECT_EQ(ea_decoder_quant_derive(&bad, &out, ints.data(), ints.size()), EA_ERR_HEADS_MISMATCH);
  bad = config;
  bad.quant_scales = nullptr;
  EXPECT_EQ(ea_decoder_quant_derive(&bad, &out, ints.data(), ints.size()), EA_ERR_NULL_POINTER);
  EXPECT_EQ(out.scores.output_shift, 99);
  EXPECT_EQ(ints, before);
  EXPECT_EQ(ea_decoder_quant_derive(nullptr, &out, ints.data(), ints.size()), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_decoder_quant_derive(&config, nullptr, ints.data(), ints.size()),
            EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_decoder_quant_derive(&config, &out, nullptr, ints.size()), EA_ERR_NULL_POINTER);
  // Given integers (quant_params) are ignored: the scales are derived.
  bad = config;
  bad.quant_params = &untouched;
  EXPECT_EQ(ea_decoder_quant_derive(&bad, &out, ints.data(), ints.size()), EA_OK);
  EXPECT_EQ(out.k_proj.output_multiplier[3], want.fc_k.multiplier[3]);

  // W_V's scales follow W_K's kv_width ones in in_proj's array: a bad one
  // there is refused (nothing written); one past d_model + 2 kv_width (where
  // MHA's W_V would go on) is not read.
  std::vector<float> in_scales = c.in_scales;
  in_scales.resize(3 * 16, -1.0f);
  ea_mha_quant_scales tail_scales = *layer.config.quant_scales;
  tail_scales.in_proj_weight_scales = in_scales.data();
  bad = config;
  bad.quant_scales = &tail_scales;
  EXPECT_EQ(ea_decoder_quant_derive(&bad, &out, ints.data(), ints.size()), EA_OK)
      << "a bad scale past the layer's rows";
  in_scales[16 + 8 + 5] = 0.0f;  // W_V's channel 5
  out = untouched;
  const std::vector<int32_t> derived = ints;
  EXPECT_EQ(ea_decoder_quant_derive(&bad, &out, ints.data(), ints.size()), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(out.scores.output_shift, 99);
  EXPECT_EQ(ints, derived);
}

// What a grouped decoder keeps, and x and y must miss: W_K's and W_V's
// kv_width rows of in_proj (and their biases), not rows past them.
TEST(QuantDecoderRules, AGroupedDecoderKeepsItsOwnRows) {
  const QuantMhaCase c =
      GroupedQueryHeads(RandomQuantMha(EA_DTYPE_INT8, {6, 16, 4, true, false}, 9980), 2);
  QuantMhaLayer layer(c);
  // in_proj's 16 + 2 * 8 rows, then 16 rows more that are not the layer's.
  std::vector<int8_t> in_proj(c.in_proj);
  in_proj.resize(in_proj.size() + 16 * 16, int8_t{3});
  std::vector<int32_t> bias(c.in_bias.begin(), c.in_bias.end());
  bias.resize(bias.size() + 16, 0);
  layer.weights.in_proj_weight = in_proj.data();
  layer.weights.in_proj_bias = bias.data();
  ea_decoder_quant_config config = DecoderQuantConfigOf(layer.config);
  config.max_step_tokens = 1;
  config.n_kv_heads = 2;
  PlannedQuantDecoder planned = PlanQuantDecoder(config, layer.weights);
  ASSERT_EQ(planned.status, EA_OK);
  ea_decoder_quant& decoder = planned.plan;
  const std::vector<int8_t> x = Int8Rows(c, 0, 1);
  int8_t* w_v_rows = in_proj.data() + (16 + 8) * 16 + 3;
  int8_t* past_the_rows = in_proj.data() + (16 + 16) * 16;
  int8_t* w_v_bias = reinterpret_cast<int8_t*>(bias.data() + 16 + 8);
  int8_t* past_the_bias = reinterpret_cast<int8_t*>(bias.data() + 16 + 16);
  EXPECT_EQ(ea_decoder_quant_step_s8(&decoder, x.data(), 1, w_v_rows), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_decoder_quant_step_s8(&decoder, x.data(), 1, w_v_bias), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(decoder.length, 0);
  std::vector<int8_t> y(16);
  ASSERT_EQ(ea_decoder_quant_step_s8(&decoder, x.data(), 1, y.data()), EA_OK);
  ASSERT_EQ(ea_decoder_quant_reset(&decoder), EA_OK);
  ASSERT_EQ(ea_decoder_quant_step_s8(&decoder, x.data(), 1, past_the_rows), EA_OK);
  EXPECT_EQ(std::vector<int8_t>(past_the_rows, past_the_rows + 16), y);
  ASSERT_EQ(ea_decoder_quant_reset(&decoder), EA_OK);
  ASSERT_EQ(ea_decoder_quant_step_s8(&decoder, x.data(), 1, past_the_bias), EA_OK);
  EXPECT_EQ(std::vector<int8_t>(past_the_bias, past_the_bias + 16), y);
}

}  // namespace
}  // namespace edgeattn_test
