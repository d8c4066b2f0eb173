#include "reference/reference_mha_decode.h"

#include <stddef.h>

#include "reference/reference_attention.h"

namespace edgeattn_test {
namespace {

// Columns [first, first + cols) of rows [rows, ld].
std::vector<double> Columns(const std::vector<double>& m, int rows, int ld, int first, int cols) {
  std::vector<double> out(static_cast<size_t>(rows) * cols);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) out[static_cast<size_t>(r) * cols + c] = m[r * ld + first + c];
  }
  return out;
}

// What the cache holds for rows of d-wide heads that the library computes
// in float: the reference's values rounded to float, then stored.
std::vector<double> Stored(const std::vector<double>& rows, int d, StoredAs storage) {
  return StoredValues(std::vector<float>(rows.begin(), rows.end()), d, storage);
}

// Rows of a query projection as the float the decode reference takes.
std::vector<float> AsFloat(const std::vector<double>& rows) {
  return std::vector<float>(rows.begin(), rows.end());
}

}  // namespace

std::vector<double> ReferenceDecoderStream(const DecoderLayer& layer, const std::vector<float>& x,
                                           int tokens) {
  const int e = layer.d_model;
  const int d = e / layer.n_heads;
  const int kv = layer.n_kv_heads * d;
  const int qkv = e + 2 * kv;
  std::vector<double> input(x.begin(), x.begin() + static_cast<ptrdiff_t>(tokens) * e);
  if (layer.position_table != nullptr) {
    for (size_t i = 0; i < input.size(); ++i) input[i] += layer.position_table[i];
  }
  const std::vector<double> projected =
      ReferenceLinear(input, tokens, e, layer.in_proj_weight, layer.in_proj_bias, qkv);
  std::vector<double> q = Columns(projected, tokens, qkv, 0, e);
  std::vector<double> k = Columns(projected, tokens, qkv, e, kv);
  const std::vector<double> v = Columns(projected, tokens, qkv, e + kv, kv);
  if (layer.rope_base != 0.0) {
    q = ReferenceRope(q, tokens, layer.n_heads, d, 0, layer.rope_base, layer.rope_interleaved);
    k = ReferenceRope(k, tokens, layer.n_kv_heads, d, 0, layer.rope_base, layer.rope_interleaved);
  }
  const DecodeProblem problem{layer.n_heads, layer.n_kv_heads,  d, layer.window,
                              0.0,           layer.alibi_slopes};
  const std::vector<double> heads = ReferenceDecode(
      problem, AsFloat(q), 0, tokens, Stored(k, d, layer.storage), Stored(v, d, layer.storage));
  return ReferenceLinear(heads, tokens, e, layer.out_proj_weight, layer.out_proj_bias, e);
}

std::vector<double> ReferenceCross(const DecoderLayer& layer, const std::vector<float>& x,
                                   int n_queries, const std::vector<float>& memory, int n_memory) {
  const int e = layer.d_model;
  const int d = e / layer.n_heads;
  const int kv = layer.n_kv_heads * d;
  const float* w = layer.in_proj_weight;  // rows: W_Q [e], W_K [kv], W_V [kv]
  const float* b = layer.in_proj_bias;
  const std::vector<double> q = ReferenceLinear(
      std::vector<double>(x.begin(), x.begin() + static_cast<ptrdiff_t>(n_queries) * e), n_queries,
      e, w, b, e);
  const std::vector<double> m(memory.begin(),
                              memory.begin() + static_cast<ptrdiff_t>(n_memory) * e);
  const size_t k_row = static_cast<size_t>(e), v_row = static_cast<size_t>(e) + kv;
  const std::vector<double> k =
      ReferenceLinear(m, n_memory, e, w + k_row * e, b != nullptr ? b + k_row : nullptr, kv);
  const std::vector<double> v =
      ReferenceLinear(m, n_memory, e, w + v_row * e, b != nullptr ? b + v_row : nullptr, kv);
  const std::vector<double> k_stored = Stored(k, d, layer.storage);
  const std::vector<double> v_stored = Stored(v, d, layer.storage);
  const DecodeProblem problem{layer.n_heads, layer.n_kv_heads, d, 0, 0.0, nullptr};
  // Each query as the newest position of the memory sees all of it.
  std::vector<double> heads;
  for (int i = 0; i < n_queries; ++i) {
    const std::vector<float> row(q.begin() + static_cast<ptrdiff_t>(i) * e,
                                 q.begin() + static_cast<ptrdiff_t>(i + 1) * e);
    const std::vector<double> out =
        ReferenceDecode(problem, row, n_memory - 1, 1, k_stored, v_stored);
    heads.insert(heads.end(), out.begin(), out.end());
  }
  return ReferenceLinear(heads, n_queries, e, layer.out_proj_weight, layer.out_proj_bias, e);
}

}  // namespace edgeattn_test
