#include "reference/reference_attention.h"

#include <algorithm>
#include <cmath>

namespace edgeattn_test {

template <typename T>
ReferenceResult ReferenceAttention(const AttentionProblem& p, const T* q, size_t ld_q, const T* k,
                                   size_t ld_k, const T* v, size_t ld_v) {
  const double scale = p.scale != 0.0 ? p.scale : 1.0 / std::sqrt(static_cast<double>(p.d_k));
  ReferenceResult result;
  result.out.assign(static_cast<size_t>(p.n_q) * p.d_v, 0.0);
  result.weights.assign(static_cast<size_t>(p.n_q) * p.n_kv, 0.0);
  std::vector<double> scores(p.n_kv);
  for (int i = 0; i < p.n_q; ++i) {
    int visible = p.n_valid_keys;
    if (p.causal) visible = std::min(visible, std::max(0, i + p.n_kv - p.n_q + 1));
    if (visible == 0) continue;  // no key: output and weights stay 0
    double max_score = -INFINITY;
    for (int j = 0; j < visible; ++j) {
      double dot = 0.0;
      for (int t = 0; t < p.d_k; ++t) {
        dot += static_cast<double>(q[i * ld_q + t]) * static_cast<double>(k[j * ld_k + t]);
      }
      scores[j] = scale * dot;
      max_score = std::max(max_score, scores[j]);
    }
    double sum = 0.0;
    for (int j = 0; j < visible; ++j) sum += std::exp(scores[j] - max_score);
    for (int j = 0; j < visible; ++j) {
      const double prob = std::exp(scores[j] - max_score) / sum;
      result.weights[static_cast<size_t>(i) * p.n_kv + j] = prob;
      for (int c = 0; c < p.d_v; ++c) {
        result.out[static_cast<size_t>(i) * p.d_v + c] += prob * v[j * ld_v + c];
      }
    }
  }
  return result;
}

template ReferenceResult ReferenceAttention<float>(const AttentionProblem&, const float*, size_t,
                                                   const float*, size_t, const float*, size_t);
template ReferenceResult ReferenceAttention<double>(const AttentionProblem&, const double*, size_t,
                                                    const double*, size_t, const double*, size_t);

std::vector<double> ReferenceLinear(const std::vector<double>& x, int rows, int n_in,
                                    const float* w, const float* b, int n_out) {
  std::vector<double> y(static_cast<size_t>(rows) * n_out);
  for (int r = 0; r < rows; ++r) {
    for (int o = 0; o < n_out; ++o) {
      double acc = b != nullptr ? b[o] : 0.0;
      for (int i = 0; i < n_in; ++i) {
        acc += x[static_cast<size_t>(r) * n_in + i] * static_cast<double>(w[o * n_in + i]);
      }
      y[static_cast<size_t>(r) * n_out + o] = acc;
    }
  }
  return y;
}

std::vector<double> ReferenceSinusoidal(int n_positions, int d_model) {
  std::vector<double> table(static_cast<size_t>(n_positions) * d_model);
  for (int pos = 0; pos < n_positions; ++pos) {
    for (int col = 0; col < d_model; ++col) {
      const int pair = col / 2 * 2;  // 2i
      const double angle = pos / std::pow(10000.0, static_cast<double>(pair) / d_model);
      table[static_cast<size_t>(pos) * d_model + col] =
          col % 2 == 0 ? std::sin(angle) : std::cos(angle);
    }
  }
  return table;
}

ReferenceResult ReferenceMha(const ReferenceMhaProblem& p, const float* x) {
  const int e = p.d_model;
  const int d_k = e / p.heads;
  const size_t elements = static_cast<size_t>(p.n) * e;
  std::vector<double> input(elements);
  for (size_t i = 0; i < elements; ++i) {
    input[i] = x[i] + (p.position_table != nullptr ? p.position_table[i] : 0.0f);
  }
  std::vector<double> proj[3];
  for (int part = 0; part < 3; ++part) {
    proj[part] =
        ReferenceLinear(input, p.n, e, p.in_proj_weight + static_cast<size_t>(part) * e * e,
                        p.in_proj_bias != nullptr ? p.in_proj_bias + part * e : nullptr, e);
  }
  std::vector<double> concat(elements);
  ReferenceResult result;
  result.weights.resize(static_cast<size_t>(p.heads) * p.n * p.n);
  for (int h = 0; h < p.heads; ++h) {
    const AttentionProblem head{p.n, p.n, d_k, d_k, p.causal, p.n_valid_keys, 0.0};
    const ReferenceResult r =
        ReferenceAttention(head, proj[0].data() + h * d_k, e, proj[1].data() + h * d_k, e,
                           proj[2].data() + h * d_k, e);
    for (int i = 0; i < p.n; ++i) {
      for (int c = 0; c < d_k; ++c)
        concat[static_cast<size_t>(i) * e + h * d_k + c] = r.out[i * d_k + c];
    }
    std::copy(r.weights.begin(), r.weights.end(),
              result.weights.begin() + static_cast<size_t>(h) * p.n * p.n);
  }
  result.out = ReferenceLinear(concat, p.n, e, p.out_proj_weight, p.out_proj_bias, e);
  return result;
}

double MaxAbsScaledScore(const AttentionProblem& p, const float* q, const float* k) {
  const double scale = p.scale != 0.0 ? p.scale : 1.0 / std::sqrt(static_cast<double>(p.d_k));
  double largest = 0.0;
  for (int i = 0; i < p.n_q; ++i) {
    int visible = p.n_valid_keys;
    if (p.causal) visible = std::min(visible, std::max(0, i + p.n_kv - p.n_q + 1));
    for (int j = 0; j < visible; ++j) {
      double dot = 0.0;
      for (int t = 0; t < p.d_k; ++t) {
        dot += static_cast<double>(q[i * p.d_k + t]) * static_cast<double>(k[j * p.d_k + t]);
      }
      largest = std::max(largest, std::abs(scale * dot));
    }
  }
  return largest;
}

double NormScaledError(const float* got, const std::vector<double>& want) {
  double max_error = 0.0;
  double max_want = 0.0;
  for (size_t i = 0; i < want.size(); ++i) {
    max_error = std::max(max_error, std::abs(static_cast<double>(got[i]) - want[i]));
    max_want = std::max(max_want, std::abs(want[i]));
  }
  return max_want > 0.0 ? max_error / max_want : max_error;
}

}  // namespace edgeattn_test
