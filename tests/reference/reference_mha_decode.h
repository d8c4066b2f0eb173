// Reference for the MHA decoder and cross-attention (edgeattn/decoder.h),
// in double precision from the layer's formulas: x + P, the in_proj
// projection, RoPE, the keys and values as the cache stores them, attention
// per query over the positions it sees (reference_decode.h), out_proj.
#ifndef EDGEATTN_TESTS_REFERENCE_REFERENCE_MHA_DECODE_H_
#define EDGEATTN_TESTS_REFERENCE_REFERENCE_MHA_DECODE_H_

#include <vector>

#include "reference/reference_decode.h"

namespace edgeattn_test {

struct DecoderLayer {
  int d_model;
  int n_heads;
  int n_kv_heads;
  int window;  // 0: none
  StoredAs storage;
  const float* in_proj_weight;   // [(n_heads + 2 n_kv_heads) d_head, d_model], row-major
  const float* in_proj_bias;     // or null
  const float* out_proj_weight;  // [d_model, d_model]
  const float* out_proj_bias;    // or null
  const float* position_table;   // [tokens, d_model] added to x, or null
  double rope_base;              // 0: no RoPE
  bool rope_interleaved;
  const float* alibi_slopes;  // or null
};

// y [tokens, d_model]: every token of x [tokens, d_model] as the causal
// stream from position 0 gives it.
std::vector<double> ReferenceDecoderStream(const DecoderLayer& layer, const std::vector<float>& x,
                                           int tokens);

// y [n_queries, d_model] = nn.MultiheadAttention(x, memory, memory) with the
// memory's keys and values as the cache stores them (layer: n_kv_heads key
// and value heads, no positions, window, RoPE or ALiBi).
std::vector<double> ReferenceCross(const DecoderLayer& layer, const std::vector<float>& x,
                                   int n_queries, const std::vector<float>& memory, int n_memory);

}  // namespace edgeattn_test

#endif  // EDGEATTN_TESTS_REFERENCE_REFERENCE_MHA_DECODE_H_
