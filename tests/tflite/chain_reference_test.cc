// The integer chain reference's grouped-query heads, sliding window and RoPE
// (tests/reference/tflite_chain_reference.h), shown by properties before the
// fixed-point decoder relies on them (docs/FIXED_POINT_DECODER.md, stage 1):
// KV heads repeated for their group give plain MHA's integers, and a row of
// the windowed causal chain is the last row of the causal chain over only
// its window's tokens (every op before the softmax works row by row), and
// with RoPE q and k are the library's fixed-point RoPE of the plain chain's;
// cross-attention reads its memory as attention must.
#include <gtest/gtest.h>
#include <stdint.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "reference/device_softmax_luts.h"
#include "reference/quant_mha_fixture.h"
#include "reference/quant_rope_tables.h"
#include "reference/quant_test_values.h"
#include "reference/random_tensor.h"
#include "reference/tflite_chain_reference.h"

namespace edgeattn_test {
namespace {

using tflite_ref::ChainQuantization;
using tflite_ref::ChainShape;

// One layer's tensors as the reference takes them (no positions), in the
// dtype's activations and biases; W_K and W_V of `kv_heads` heads.
template <typename T, typename Bias>
struct Layer {
  std::vector<T> x;
  std::vector<int8_t> w_q, w_k, w_v, w_o;
  std::vector<Bias> b_q, b_k, b_v, b_o;
  std::vector<float> s_q, s_k, s_v, s_o;  // d_model channel scales each

  tflite_ref::ChainInputs<T, Bias> Inputs() const {
    return {x.data(),   nullptr,    w_q.data(), w_k.data(), w_v.data(),
            w_o.data(), b_q.data(), b_k.data(), b_v.data(), b_o.data()};
  }
  ChainQuantization With(ChainQuantization q) const {
    q.w_q_scales = s_q.data();
    q.w_k_scales = s_k.data();
    q.w_v_scales = s_v.data();
    q.w_o_scales = s_o.data();
    return q;
  }
};

// The library's fixed-point RoPE from position 0 over tables of n rows.
ea_status ApplyRope(int8_t* x, int32_t n, int32_t heads, int32_t d_k, const int8_t* cos,
                    const int8_t* sin, ea_rope_layout layout, const ea_rope_quant_params* p) {
  return ea_rope_quant_apply_s8(x, n, heads, d_k, 0, cos, sin, n, layout, p);
}
ea_status ApplyRope(int16_t* x, int32_t n, int32_t heads, int32_t d_k, const int16_t* cos,
                    const int16_t* sin, ea_rope_layout layout, const ea_rope_quant_params* p) {
  return ea_rope_quant_apply_s16(x, n, heads, d_k, 0, cos, sin, n, layout, p);
}

template <typename T>
using BiasOf = std::conditional_t<sizeof(T) == 1, int32_t, int64_t>;

template <typename T>
tflite_ref::ChainTensors<T> RunChain(const ChainShape& shape, const ChainQuantization& q,
                                     const tflite_ref::ChainInputs<T, BiasOf<T>>& in) {
  const int kv_width = shape.kv_heads * (shape.d_model / shape.heads);
  if constexpr (sizeof(T) == 1) {
    return tflite_ref::RunChainInt8(shape, tflite_ref::PrepareChainInt8(q, shape.d_model, kv_width),
                                    in);
  } else {
    return tflite_ref::RunChainInt16(
        shape,
        tflite_ref::PrepareChainInt16(q, shape.d_model, kv_width, TfliteExpLut(),
                                      TfliteReciprocalLut()),
        in);
  }
}

// The random case's layer, with W_K and W_V (rows, biases, scales) of KV head
// g taken from the case's head g * group (group = heads / kv_heads), and, when
// `repeat`, written back out for every query head of its group: the plain
// MHA layer that grouped-query attention is by definition.
template <typename T>
Layer<T, BiasOf<T>> LayerOf(const QuantMhaCase& c, int kv_heads, bool repeat) {
  using Bias = BiasOf<T>;
  const size_t e = static_cast<size_t>(c.d_model);
  const size_t d_k = e / static_cast<size_t>(c.heads);
  const size_t group = static_cast<size_t>(c.heads / kv_heads);
  Layer<T, Bias> l;
  l.x.assign(c.x_emb.begin(), c.x_emb.end());
  l.w_q.assign(c.in_proj.begin(), c.in_proj.begin() + static_cast<ptrdiff_t>(e * e));
  l.w_o = c.out_proj;
  l.b_q.assign(c.in_bias.begin(), c.in_bias.begin() + static_cast<ptrdiff_t>(e));
  l.b_o.assign(c.out_bias.begin(), c.out_bias.end());
  l.s_q.assign(c.in_scales.begin(), c.in_scales.begin() + static_cast<ptrdiff_t>(e));
  l.s_o = c.out_scales;
  // Channel `channel` of the grouped (or repeated) W_K / W_V: the case's channel.
  const auto source_channel = [&](size_t channel) {
    const size_t kv_head = repeat ? channel / d_k / group : channel / d_k;
    return kv_head * group * d_k + channel % d_k;
  };
  const size_t channels = repeat ? e : static_cast<size_t>(kv_heads) * d_k;
  for (size_t which = 1; which <= 2; ++which) {
    std::vector<int8_t>& w = which == 1 ? l.w_k : l.w_v;
    std::vector<Bias>& b = which == 1 ? l.b_k : l.b_v;
    std::vector<float>& s = which == 1 ? l.s_k : l.s_v;
    for (size_t channel = 0; channel < channels; ++channel) {
      const size_t from = which * e + source_channel(channel);
      w.insert(w.end(), c.in_proj.begin() + static_cast<ptrdiff_t>(from * e),
               c.in_proj.begin() + static_cast<ptrdiff_t>((from + 1) * e));
      b.push_back(static_cast<Bias>(c.in_bias[from]));
      s.push_back(c.in_scales[from]);
    }
  }
  return l;
}

template <typename T>
void ExpectGroupedEqualsRepeated(ea_dtype dtype) {
  const struct {
    int heads, kv_heads;
    bool causal;
  } shapes[] = {{4, 2, true}, {4, 1, false}, {6, 3, true}, {6, 2, false}};
  uint64_t seed = 9900;
  for (const auto& s : shapes) {
    SCOPED_TRACE(std::to_string(s.heads) + " heads on " + std::to_string(s.kv_heads));
    const int n = 11, d_model = 4 * s.heads;
    const QuantMhaCase c = RandomQuantMha(dtype, {n, d_model, s.heads, s.causal, false}, seed++);
    std::vector<float> channel_scales;
    const ChainQuantization q = c.Quantization(&channel_scales);
    const auto grouped = LayerOf<T>(c, s.kv_heads, false);
    const auto repeated = LayerOf<T>(c, s.kv_heads, true);
    const auto t_grouped = RunChain<T>({n, d_model, s.heads, s.causal, n, s.kv_heads, 0},
                                       grouped.With(q), grouped.Inputs());
    const auto t_repeated = RunChain<T>({n, d_model, s.heads, s.causal, n, s.heads, 0},
                                        repeated.With(q), repeated.Inputs());
    EXPECT_EQ(t_grouped.k.size(), static_cast<size_t>(n * s.kv_heads * 4));
    EXPECT_EQ(t_grouped.probs, t_repeated.probs);
    EXPECT_EQ(t_grouped.o, t_repeated.o);
    EXPECT_EQ(t_grouped.y, t_repeated.y);
    // The case's own heads (unshared) give other integers: the grouping is used.
    const auto own = LayerOf<T>(c, s.heads, false);
    const auto t_own =
        RunChain<T>({n, d_model, s.heads, s.causal, n, s.heads, 0}, own.With(q), own.Inputs());
    EXPECT_NE(t_own.o, t_grouped.o);
  }
}

TEST(ChainReference, GroupedKvHeadsAreTheirHeadsRepeated) {
  ExpectGroupedEqualsRepeated<int8_t>(EA_DTYPE_INT8);
  ExpectGroupedEqualsRepeated<int16_t>(EA_DTYPE_INT16);
}

template <typename T>
void ExpectWindowRowsAreShortCausalChains(ea_dtype dtype) {
  const int n = 19, d_model = 16, heads = 2;
  const size_t e = static_cast<size_t>(d_model);
  const T zero_probability = static_cast<T>(sizeof(T) == 1 ? -128 : 0);
  uint64_t seed = 9950;
  for (const int window : {1, 4, 7, n}) {
    SCOPED_TRACE("window " + std::to_string(window));
    const QuantMhaCase c = RandomQuantMha(dtype, {n, d_model, heads, true, false}, seed++);
    std::vector<float> channel_scales;
    const ChainQuantization q = c.Quantization(&channel_scales);
    auto layer = LayerOf<T>(c, heads, false);
    const auto windowed =
        RunChain<T>({n, d_model, heads, true, n, heads, window}, layer.With(q), layer.Inputs());
    const auto causal =
        RunChain<T>({n, d_model, heads, true, n, heads, 0}, layer.With(q), layer.Inputs());
    if (window >= n) {
      EXPECT_EQ(windowed.y, causal.y);
    }
    const std::vector<T> x = layer.x;
    for (int i = 0; i < n; ++i) {
      const int first = std::max(0, i - window + 1), len = i - first + 1;
      layer.x.assign(x.begin() + static_cast<ptrdiff_t>(first * e),
                     x.begin() + static_cast<ptrdiff_t>((i + 1) * e));
      const auto alone =
          RunChain<T>({len, d_model, heads, true, len, heads, 0}, layer.With(q), layer.Inputs());
      const size_t last = static_cast<size_t>(len - 1);
      for (size_t col = 0; col < e; ++col) {
        ASSERT_EQ(windowed.y[static_cast<size_t>(i) * e + col], alone.y[last * e + col])
            << "row " << i << " column " << col;
      }
      for (int h = 0; h < heads; ++h) {
        for (int j = 0; j < n; ++j) {
          const T want =
              j < first || j > i ? zero_probability : alone.probs[h][last * len + (j - first)];
          ASSERT_EQ(windowed.probs[h][static_cast<size_t>(i) * n + j], want)
              << "head " << h << " row " << i << " key " << j;
        }
      }
    }
  }
}

// Rows of n_q queries over n_kv keys (a decoder's step over its cache): row i
// sits at key position i + n_kv - n_q and sees back `window` keys from it,
// and the padding cap still applies.
TEST(ChainReference, WindowRowsOfAStepOverLongerKeys) {
  // 2 queries over 10 keys, window 3: rows at positions 8 and 9.
  EXPECT_EQ(tflite_ref::FirstVisibleKeyOf(true, 3, 2, 10, 0), 6);
  EXPECT_EQ(tflite_ref::VisibleKeysOf(true, 2, 10, 10, 0), 9);
  EXPECT_EQ(tflite_ref::FirstVisibleKeyOf(true, 3, 2, 10, 1), 7);
  EXPECT_EQ(tflite_ref::VisibleKeysOf(true, 2, 10, 10, 1), 10);
  // Padding from key 8 on: the second row sees keys 7 only.
  EXPECT_EQ(tflite_ref::VisibleKeysOf(true, 2, 10, 8, 1), 8);
  // No window, or not causal: from key 0.
  EXPECT_EQ(tflite_ref::FirstVisibleKeyOf(true, 0, 2, 10, 1), 0);
  EXPECT_EQ(tflite_ref::FirstVisibleKeyOf(false, 3, 2, 10, 1), 0);
  // A window wider than the keys before the row: from key 0.
  EXPECT_EQ(tflite_ref::FirstVisibleKeyOf(true, 12, 2, 10, 1), 0);
}

TEST(ChainReference, WindowedRowsAreCausalChainsOverTheirWindow) {
  ExpectWindowRowsAreShortCausalChains<int8_t>(EA_DTYPE_INT8);
  ExpectWindowRowsAreShortCausalChains<int16_t>(EA_DTYPE_INT16);
}

// RoPE in the chain: q (every head) and k (every KV head) rotated after their
// FULLY_CONNECTED, row i at position i, are what the library's
// ea_rope_quant_apply_* makes of the plain chain's q and k (the op against
// the reference's own composition); v is untouched, and the scores change.
template <typename T>
void ExpectRopeRotatesQAndK(ea_dtype dtype, bool interleaved) {
  const int n = 9, d_model = 24, heads = 4, kv_heads = 2, d_k = d_model / heads;
  const QuantMhaCase c = RandomQuantMha(dtype, {n, d_model, heads, true, false}, 9970);
  std::vector<float> channel_scales;
  ChainQuantization q = c.Quantization(&channel_scales);
  const ea_quant table = RopeTableQuant<T>();
  // Products and results of their own quantization each (int8: zero points
  // too), so that cos and sin, or ADD's operands, cannot be mixed up unseen.
  const int32_t zp = sizeof(T) == 1 ? 3 : 0;
  const auto rope_of = [&](tflite_ref::TensorQuantization x) {
    const tflite_ref::TensorQuantization t{table.scale, table.zero_point};
    return tflite_ref::RopeQuantization{
        x, t, t, {2 * x.scale, zp}, {1.5f * x.scale, -zp}, {3 * x.scale, 2 * zp}};
  };
  auto layer = LayerOf<T>(c, kv_heads, false);
  const RopeTables exact = ExactRopeTables(n, d_k, interleaved);
  const std::vector<T> cos = QuantizeTable<T>(exact.cos, table);
  const std::vector<T> sin = QuantizeTable<T>(exact.sin, table);
  const ChainShape plain_shape{n, d_model, heads, true, n, kv_heads, 0};
  ChainShape rope_shape = plain_shape;
  rope_shape.rope = interleaved ? tflite_ref::kRopeInterleaved : tflite_ref::kRopeHalf;
  const auto plain = RunChain<T>(plain_shape, layer.With(q), layer.Inputs());
  q.rope = true;
  q.rope_q = rope_of(q.q);
  q.rope_k = rope_of(q.k);
  auto inputs = layer.Inputs();
  inputs.rope_cos = cos.data();
  inputs.rope_sin = sin.data();
  const auto rotated = RunChain<T>(rope_shape, layer.With(q), inputs);

  const ea_rope_layout layout = interleaved ? EA_ROPE_INTERLEAVED : EA_ROPE_HALF;
  for (const bool is_k : {false, true}) {
    const tflite_ref::RopeQuantization& r = is_k ? q.rope_k : q.rope_q;
    const auto quant = [](tflite_ref::TensorQuantization t) {
      return ea_quant{t.scale, t.zero_point};
    };
    const ea_rope_quant_scales scales{quant(r.x),           quant(r.cos_table),
                                      quant(r.sin_table),   quant(r.cos_product),
                                      quant(r.sin_product), quant(r.rotated)};
    ea_rope_quant_params params{};
    ASSERT_EQ(ea_rope_quant_derive(dtype, &scales, &params), EA_OK);
    std::vector<T> want = is_k ? plain.k : plain.q;
    ASSERT_EQ(ApplyRope(want.data(), n, is_k ? kv_heads : heads, d_k, cos.data(), sin.data(),
                        layout, &params),
              EA_OK);
    EXPECT_EQ(is_k ? rotated.k : rotated.q, want) << (is_k ? "k" : "q");
  }
  EXPECT_EQ(rotated.v, plain.v);
  // The scores: BATCH_MATMUL of the rotated q and k, on their quantization.
  const tflite_ref::BatchMatMulParams bmm =
      tflite_ref::PrepareBatchMatMul(q.rope_q.rotated, q.rope_k.rotated, q.scores);
  const auto head_of = [&](const std::vector<T>& m, int heads_in_m, int head) {
    std::vector<T> part;
    for (int r = 0; r < n; ++r) {
      const auto row = m.begin() + static_cast<ptrdiff_t>((r * heads_in_m + head) * d_k);
      part.insert(part.end(), row, row + d_k);
    }
    return part;
  };
  ASSERT_EQ(rotated.scores.size(), static_cast<size_t>(heads));
  for (int h = 0; h < heads; ++h) {
    const std::vector<T> q_h = head_of(rotated.q, heads, h);
    const std::vector<T> k_h = head_of(rotated.k, kv_heads, h / (heads / kv_heads));
    EXPECT_EQ(rotated.scores[h], tflite_ref::BatchMatMul(bmm, q_h.data(), n, d_k, k_h.data(), n))
        << "head " << h;
  }
}

TEST(ChainReference, RopeRotatesQAndKAsTheOpDoes) {
  for (const bool interleaved : {false, true}) {
    SCOPED_TRACE(interleaved ? "interleaved" : "half");
    ExpectRopeRotatesQAndK<int8_t>(EA_DTYPE_INT8, interleaved);
    ExpectRopeRotatesQAndK<int16_t>(EA_DTYPE_INT16, interleaved);
  }
}

// Cross-attention (ChainShape::n_memory): k and v from a memory of other
// rows and its own quantization. Shown by what attention without positions
// must give: on the queries' own rows (same quantization) it is the unmasked
// self-attention chain; permuting the memory's rows changes nothing (integer
// sums and the softmax's max and sum do not depend on order); permuting the
// queries permutes y's rows; keys past n_valid_keys are as if absent;
// grouped KV heads are their heads repeated. A shape that disagrees with the
// params or inputs gives no tensors.
template <typename T>
void ExpectCrossChainProperties(ea_dtype dtype) {
  const struct {
    int heads, kv_heads, n, n_memory;
  } shapes[] = {{2, 2, 5, 9}, {4, 2, 7, 3}, {3, 1, 1, 17}, {4, 4, 6, 6}};
  uint64_t seed = 9980;
  for (const auto& s : shapes) {
    SCOPED_TRACE(std::to_string(s.n) + " queries over " + std::to_string(s.n_memory) +
                 " memory rows, " + std::to_string(s.heads) + " heads on " +
                 std::to_string(s.kv_heads));
    const int n = s.n, d_model = 4 * s.heads, kv_width = 4 * s.kv_heads;
    const size_t e = static_cast<size_t>(d_model);
    const QuantMhaCase c = RandomQuantMha(dtype, {n, d_model, s.heads, false, false}, seed);
    RandomStream random(seed++);
    std::vector<float> channel_scales;
    const ChainQuantization self_q = c.Quantization(&channel_scales);
    ChainQuantization q = self_q;
    q.cross = true;
    q.memory = {self_q.x.scale * 1.5f, sizeof(T) == 1 ? 7 : 0};
    const auto layer = LayerOf<T>(c, s.kv_heads, false);
    const std::vector<T> memory = RandomCodes<T>(static_cast<size_t>(s.n_memory) * e, &random);
    auto inputs = layer.Inputs();
    inputs.memory = memory.data();
    ChainShape shape{n, d_model, s.heads, false, s.n_memory, s.kv_heads, 0};
    shape.n_memory = s.n_memory;
    const auto t = RunChain<T>(shape, layer.With(q), inputs);
    ASSERT_EQ(t.k.size(), static_cast<size_t>(s.n_memory * kv_width));
    ASSERT_EQ(t.probs.size(), static_cast<size_t>(s.heads));
    ASSERT_EQ(t.probs[0].size(), static_cast<size_t>(n * s.n_memory));
    ASSERT_EQ(t.y.size(), static_cast<size_t>(n) * e);

    // The memory's rows in another order (rotated by one, then reversed).
    std::vector<T> shuffled(memory.size());
    for (int r = 0; r < s.n_memory; ++r) {
      const int from = (s.n_memory - 1 - r + 1) % s.n_memory;
      std::copy_n(memory.begin() + static_cast<ptrdiff_t>(from * e), e,
                  shuffled.begin() + static_cast<ptrdiff_t>(r * e));
    }
    auto shuffled_inputs = inputs;
    shuffled_inputs.memory = shuffled.data();
    EXPECT_EQ(RunChain<T>(shape, layer.With(q), shuffled_inputs).y, t.y) << "memory permuted";

    // The queries reversed: y's rows reversed.
    auto reversed_layer = layer;
    for (int r = 0; r < n; ++r) {
      std::copy_n(layer.x.begin() + static_cast<ptrdiff_t>((n - 1 - r) * e), e,
                  reversed_layer.x.begin() + static_cast<ptrdiff_t>(r * e));
    }
    auto reversed_inputs = reversed_layer.Inputs();
    reversed_inputs.memory = memory.data();
    const auto reversed = RunChain<T>(shape, reversed_layer.With(q), reversed_inputs);
    for (int r = 0; r < n; ++r) {
      EXPECT_TRUE(std::equal(reversed.y.begin() + static_cast<ptrdiff_t>(r * e),
                             reversed.y.begin() + static_cast<ptrdiff_t>((r + 1) * e),
                             t.y.begin() + static_cast<ptrdiff_t>((n - 1 - r) * e)))
          << "query row " << r;
    }

    // Padding: the memory's first rows alone.
    if (s.n_memory > 1) {
      ChainShape padded = shape;
      padded.n_valid_keys = s.n_memory - 2 > 0 ? s.n_memory - 2 : 1;
      ChainShape shorter = shape;
      shorter.n_memory = shorter.n_valid_keys = padded.n_valid_keys;
      EXPECT_EQ(RunChain<T>(padded, layer.With(q), inputs).y,
                RunChain<T>(shorter, layer.With(q), inputs).y)
          << "keys past n_valid_keys";
    }

    // Grouped KV heads: the plain layer with each KV head repeated.
    const auto repeated = LayerOf<T>(c, s.kv_heads, true);
    auto repeated_inputs = repeated.Inputs();
    repeated_inputs.memory = memory.data();
    ChainShape plain = shape;
    plain.kv_heads = s.heads;
    EXPECT_EQ(RunChain<T>(plain, repeated.With(q), repeated_inputs).y, t.y) << "KV heads repeated";

    // On the queries' own rows and quantization: the unmasked self-attention chain.
    if (s.n_memory == n) {
      ChainQuantization own = q;
      own.memory = self_q.x;
      auto own_inputs = inputs;
      own_inputs.memory = layer.x.data();
      const auto self_t = RunChain<T>({n, d_model, s.heads, false, n, s.kv_heads, 0},
                                      layer.With(self_q), layer.Inputs());
      const auto cross_t = RunChain<T>(shape, layer.With(own), own_inputs);
      EXPECT_EQ(cross_t.probs, self_t.probs);
      EXPECT_EQ(cross_t.y, self_t.y);
      EXPECT_NE(t.y, self_t.y) << "the memory must matter for this case";
    }

    // Disagreements: no tensors.
    EXPECT_TRUE(RunChain<T>(shape, layer.With(self_q), inputs).y.empty()) << "params not cross";
    EXPECT_TRUE(RunChain<T>(shape, layer.With(q), layer.Inputs()).y.empty()) << "no memory";
    ChainShape causal = shape;
    causal.causal = true;
    EXPECT_TRUE(RunChain<T>(causal, layer.With(q), inputs).y.empty()) << "causal cross";
  }
}

TEST(ChainReference, CrossAttentionReadsTheMemoryAsAttentionMust) {
  ExpectCrossChainProperties<int8_t>(EA_DTYPE_INT8);
  ExpectCrossChainProperties<int16_t>(EA_DTYPE_INT16);
}

}  // namespace
}  // namespace edgeattn_test
