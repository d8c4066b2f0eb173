// Fixed-point MHA test cases: a golden TFLite case or a random one, in the
// form both the library (ea_mha_quant_init) and the integer reference
// (tests/reference/tflite_chain_reference.h) take, and a plan-and-run helper
// that returns every tensor the library exposes.
#ifndef EDGEATTN_TESTS_REFERENCE_QUANT_MHA_FIXTURE_H_
#define EDGEATTN_TESTS_REFERENCE_QUANT_MHA_FIXTURE_H_

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

#include "data/tflite/golden_cases.h"
#include "edgeattn/edgeattn.h"
#include "reference/tflite_chain_reference.h"

namespace edgeattn_test {

// One case of the chain. Activations are stored as int32 whatever the dtype
// (converted at the API boundary), weights as int8, biases as int64.
struct QuantMhaCase {
  std::string name;
  ea_dtype dtype = EA_DTYPE_INT8;
  int n = 1, d_model = 1, heads = 1;
  bool causal = false;
  int n_valid_keys = -1;  // keys from here on are padding (-1: none)
  bool positions = true;  // sinusoidal, quantized at plan time
  ea_mha_quant_scales scales{};
  std::vector<float> in_scales, out_scales;  // per channel
  std::vector<int32_t> x_emb;                // [n, d_model]
  std::vector<int8_t> in_proj, out_proj;     // [E + 2 KvWidth(), E], [E, E]
  std::vector<int64_t> in_bias, out_bias;    // [E + 2 KvWidth()], [E]
  // Grouped-query heads (Decode and Reference only; 0: heads): W_K and W_V
  // (their rows in in_proj, biases and in_scales) have KvWidth() channels.
  int kv_heads = 0;
  int parallel_workers = 1;  // > 1: a backwards test hook
  int plan_tokens = 0;       // the plan's max_tokens (0: n)
  // Give W_Q, W_K, W_V, their biases and their scales to the library as
  // three separate tensors each (copies in buffers of their own, as a TFLite
  // model's three FULLY_CONNECTED ops hold them), not as in_proj.
  bool separate_projections = false;
  // The biases in the other form than the weights' (the forms are
  // independent): three weights with one in_proj_bias (PyTorch's kdim
  // form), or in_proj with three biases.
  bool other_bias_form = false;
  // Causal cases: a sliding window of this many keys (0: none) for Decode
  // (the decoder's window) and Reference; Run (ea_mha_quant) has none.
  int window = 0;
  // RoPE for Decode and Reference (Run has none): tflite_ref::kRopeHalf or
  // kRopeInterleaved (0: none). q and k rotated after their projections with
  // the tables of quant_rope_tables.h (RopeTable()), the products at 2 and
  // 1.5 times q's and k's scales, the rotated tensors at 3 times, int8 zero
  // points of their own (RopeScales()).
  int rope = 0;
  // Cross-attention for Cross and Reference (empty: self-attention): the
  // memory's rows [NMemory(), d_model] at memory_quant; k and v are its
  // projections, the queries x_emb's (no positions, not causal; n_valid_keys
  // then counts memory rows).
  std::vector<int32_t> memory;
  ea_quant memory_quant{};
  // int16, both or neither: the softmax's tables handed to the library (in
  // integers derived from the scales: ea_mha_quant_derive, then
  // quant_params) and to the reference. NULL: the library's built-in tables,
  // the reference TFLite's (the golden data's).
  const int16_t* softmax_exp_lut = nullptr;
  const int16_t* softmax_reciprocal_lut = nullptr;

  // The chain as the library computed it.
  struct Result {
    ea_status status = EA_ERR_BAD_ARGUMENT;
    std::vector<int32_t> pe, o, y;  // plan regions and the output
    // Q, K, V as the plan holds them after the run: columns [qkv_first_column,
    // + qkv_columns) of each ([n, d_model] on x86, the last head's elsewhere).
    std::vector<int32_t> q, k, v;
    int qkv_first_column = 0, qkv_columns = 0;
    std::vector<int32_t> probs;  // [heads, n, n]
  };
  Result Run() const;
  // The same run through ea_mha_quant_trace_s8 / _s16 with every tap.
  struct Traced {
    ea_status status = EA_ERR_BAD_ARGUMENT;
    std::vector<int32_t> positioned, q, k, v, context, y;  // [n, d_model]
    std::vector<int32_t> scores, probs;                    // [heads, n, n]
  };
  Traced Trace() const;
  // The run's n_valid_keys: n_valid_keys, or n where it is -1.
  int ValidKeys() const { return n_valid_keys < 0 ? n : n_valid_keys; }
  int KvHeads() const { return kv_heads == 0 ? heads : kv_heads; }
  // The channels of k and v: KvHeads() * d_k.
  int KvWidth() const { return KvHeads() * (d_model / heads); }
  int NMemory() const { return static_cast<int>(memory.size() / static_cast<size_t>(d_model)); }

  // The same layer through ea_decoder_quant (a causal case): x_emb
  // stepped in steps of steps[0], steps[1], ... tokens, cycling (the last
  // step cut to the sequence).
  struct Decoded {
    ea_status status = EA_ERR_BAD_ARGUMENT;
    size_t arena_bytes = 0, carved_bytes = 0;  // ea_decoder_quant_arena_size, what init used
    std::vector<int32_t> y;
  };
  Decoded Decode(const std::vector<int>& steps) const;

  // A cross case through ea_cross_quant: the memory set once (max_memory:
  // memory_rows, or NMemory() where 0), then x_emb's rows in runs of
  // runs[0], runs[1], ... queries, cycling (max_tokens: the largest run).
  // earlier_memory, where not empty: rows set first, which the memory must
  // replace (at most max_memory of them).
  Decoded Cross(const std::vector<int>& runs, int memory_rows = 0,
                const std::vector<int32_t>& earlier_memory = {}) const;

  // The same chain through the integer reference, from the same scales
  // (probs concatenated over heads, as the library's attn_weights).
  struct Expected {
    std::vector<int32_t> pe, x, q, k, v, o, y, probs;
    std::vector<std::vector<int32_t>> scores;  // per head [n, n], unmasked
  };
  Expected Reference() const;

  // The reference's integer parameters for these scales.
  tflite_ref::ChainQuantization Quantization(std::vector<float>* channel_scales) const;

  // With rope: q's and k's rotations as the decoder takes them, and the
  // model's tables C (cos) or S ([PlanTokens(), d_k] codes, as int32).
  void RopeScales(ea_rope_quant_scales scales[2]) const;
  std::vector<int32_t> RopeTable(bool sin) const;
  int PlanTokens() const { return plan_tokens > 0 ? plan_tokens : n; }
};

// A case as the library's plans take it: the layer's config (sinusoidal
// positions filled at plan time, from the case's scales) and weights (int32
// biases for INT8, int64 for INT16). Both point into this object and the
// case, which must outlive it.
class QuantMhaLayer {
 public:
  explicit QuantMhaLayer(const QuantMhaCase& c);
  QuantMhaLayer(const QuantMhaLayer&) = delete;
  QuantMhaLayer& operator=(const QuantMhaLayer&) = delete;

  ea_mha_config config{};
  ea_mha_quant_weights weights{};

 private:
  void SeparateProjections(const QuantMhaCase& c);
  // The case's softmax_exp_lut and softmax_reciprocal_lut, through
  // integers derived for the case's layer.
  void GiveSoftmaxTables(const QuantMhaCase& c);

  ea_mha_quant_scales scales_;
  ea_mha_quant_params params_{};
  std::vector<int32_t> channel_ints_;
  int32_t workers_;
  int32_t kv_heads_;  // the case's KvHeads()
  std::vector<int32_t> in_bias32_, out_bias32_;
  // separate_projections: W_Q, W_K, W_V and their scales, each copied out of
  // in_proj into its own buffer; their biases (as the dtype stores them) too,
  // or instead with other_bias_form.
  std::vector<int8_t> part_weights_[3];
  std::vector<uint8_t> part_biases_[3];
  std::vector<float> part_scales_[3];
};

// An MHA layer's config as the fixed-point decoder's: streams of
// layer.max_tokens positions, steps of one token, no window, no RoPE
// (the layer's mask, parallel and float fields have no counterpart).
ea_decoder_quant_config DecoderQuantConfigOf(const ea_mha_config& layer, int32_t n_kv_heads = 0);
// ... and as the cross-attention's: runs of up to layer.max_tokens queries
// over up to max_memory rows of the given quantization (the layer's mask and
// positions have no counterpart: a cross-attention has neither).
ea_cross_quant_config CrossQuantConfigOf(const ea_mha_config& layer, int32_t max_memory,
                                         int32_t n_kv_heads, ea_quant memory);

// The golden case as a QuantMhaCase (inputs, weights, biases, scales).
QuantMhaCase FromGolden(const tflite_golden::GoldenCase& golden);

// A random case: int8 or int16, scales chosen so that every tensor spans a
// good part of its range (scale_spread > 1 lets some saturate), zero points
// drawn over the whole int8 range.
struct RandomShape {
  int n, d_model, heads;
  bool causal;
  bool positions;
};
QuantMhaCase RandomQuantMha(ea_dtype dtype, RandomShape shape, uint64_t seed,
                            double scale_spread = 2.0);

// The case with grouped-query heads: KV head g's W_K and W_V rows, biases
// and channel scales are those of the case's query head g * group (group =
// heads / kv_heads), as a model trained with grouped heads would hold them.
QuantMhaCase GroupedQueryHeads(const QuantMhaCase& c, int kv_heads);

// Columns [first, first + count) of a [rows, width] tensor (empty stays empty):
// the part of Q, K or V a plan holds (QuantMhaCase::Result).
std::vector<int32_t> Columns(const std::vector<int32_t>& tensor, int width, int first, int count);

// Tensors of the golden blob as int32.
std::vector<int32_t> GoldenValues(const tflite_golden::GoldenCase& golden,
                                  const tflite_golden::Blob& blob);

}  // namespace edgeattn_test

#endif  // EDGEATTN_TESTS_REFERENCE_QUANT_MHA_FIXTURE_H_
