// Plain double-precision attention, written from the formulas for reading,
// never for speed. The library is checked against it on every target.
//
//   scores = scale * Q K^T;  masked entries excluded;  P = softmax(scores);
//   out = P V;  a row with no visible key is 0.
//   MHA(X) = Concat_h(Attention(X' Wq_h^T + bq_h, ...)) W_O^T + b_O, X' = X + P.
#ifndef EDGEATTN_TESTS_REFERENCE_REFERENCE_ATTENTION_H_
#define EDGEATTN_TESTS_REFERENCE_REFERENCE_ATTENTION_H_

#include <stddef.h>

#include <vector>

namespace edgeattn_test {

struct AttentionProblem {
  int n_q;
  int n_kv;
  int d_k;
  int d_v;
  bool causal;       // query i sees keys j <= i + n_kv - n_q
  int n_valid_keys;  // keys >= this are padding
  double scale;      // 0: 1/sqrt(d_k)
};

struct ReferenceResult {
  std::vector<double> out;      // [n_q, d_v]
  std::vector<double> weights;  // [n_q, n_kv]
};

// q, k, v rows with leading dimensions ld_q, ld_k, ld_v; float (library
// inputs) or double (reference intermediates).
template <typename T>
ReferenceResult ReferenceAttention(const AttentionProblem& problem, const T* q, size_t ld_q,
                                   const T* k, size_t ld_k, const T* v, size_t ld_v);

// y = x W^T + b, W [n_out, n_in]; b may be null.
std::vector<double> ReferenceLinear(const std::vector<double>& x, int rows, int n_in,
                                    const float* w, const float* b, int n_out);

// PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(same).
std::vector<double> ReferenceSinusoidal(int n_positions, int d_model);

struct ReferenceMhaProblem {
  int n;
  int d_model;
  int heads;
  bool causal;
  int n_valid_keys;
  const float* in_proj_weight;   // [3 d_model, d_model]
  const float* in_proj_bias;     // [3 d_model] or null
  const float* out_proj_weight;  // [d_model, d_model]
  const float* out_proj_bias;    // or null
  const float* position_table;   // [n, d_model] or null
};

// y [n, d_model] and per-head weights [heads, n, n].
ReferenceResult ReferenceMha(const ReferenceMhaProblem& problem, const float* x);

// Largest |scale * q_i . k_j| over the keys each query row sees (float inputs,
// leading dimensions d_k): what the float error bound depends on.
double MaxAbsScaledScore(const AttentionProblem& problem, const float* q, const float* k);

// max |got - want| / max |want| (the inf-norm-scaled error); absolute error
// when want is all zero.
double NormScaledError(const float* got, const std::vector<double>& want);

}  // namespace edgeattn_test

#endif  // EDGEATTN_TESTS_REFERENCE_REFERENCE_ATTENTION_H_
