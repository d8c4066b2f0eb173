#include "reference_bound.h"

#include <math.h>

#include <algorithm>
#include <vector>

#include "failure.h"
#include "reference/random_tensor.h"

namespace edgeattn_fuzz {
namespace {

using edgeattn_test::AttentionProblem;
using edgeattn_test::ReferenceResult;

constexpr double kRoundingStep = 0x1p-23;  // two float ulps, relative to a magnitude
// Float's absolute floor: below 2^-126 its steps stop shrinking, and a value
// under 2^-150 is 0. A dot product of a few thousand tiny terms can lose
// each one to underflow (x = 2^-149 through a weight of 1e-3 is 0 in float,
// 1.4e-48 in double, and FLT_MAX after it turns that into 4e-11).
constexpr double kUnderflowStep = 0x1p-136;
constexpr double kConditionLimit = kErrorBound / 4;
constexpr double kTinyOutputs = 1e-30;

// A matrix in double with, per element, the magnitude float rounds it
// relative to: 0 for exact inputs, sum |x_i w_i| + |b| for a projection.
struct Matrix {
  int rows = 0, cols = 0;
  std::vector<double> value, magnitude;
  double at(int r, int c) const { return value[static_cast<size_t>(r) * cols + c]; }
  double mag(int r, int c) const { return magnitude[static_cast<size_t>(r) * cols + c]; }
};

Matrix Exact(const float* data, int rows, int cols) {
  Matrix m;
  m.rows = rows;
  m.cols = cols;
  m.value.assign(data, data + static_cast<size_t>(rows) * cols);
  m.magnitude.assign(m.value.size(), 0.0);
  return m;
}

// x W^T + b in double, x [rows, n_in] with its own magnitudes.
Matrix Projected(const Matrix& x, const float* w, const float* b, int n_out) {
  Matrix y;
  y.rows = x.rows;
  y.cols = n_out;
  y.value.resize(static_cast<size_t>(x.rows) * n_out);
  y.magnitude.resize(y.value.size());
  for (int r = 0; r < x.rows; ++r) {
    for (int o = 0; o < n_out; ++o) {
      double sum = b != nullptr ? b[o] : 0.0;
      double magnitude = b != nullptr ? fabs(b[o]) : 0.0;
      for (int i = 0; i < x.cols; ++i) {
        const double wi = w[static_cast<size_t>(o) * x.cols + i];
        sum += x.at(r, i) * wi;
        magnitude += (fabs(x.at(r, i)) + x.mag(r, i)) * fabs(wi);
      }
      y.value[static_cast<size_t>(r) * n_out + o] = sum;
      y.magnitude[static_cast<size_t>(r) * n_out + o] = magnitude;
    }
  }
  return y;
}

// One realisation of float's rounding: every rounded intermediate moved by
// two ulps of its magnitude plus the underflow floor, with a random sign.
class Rounding {
 public:
  explicit Rounding(uint64_t seed) : stream_(seed) {}
  double operator()(double value, double magnitude) {
    const double step = kRoundingStep * magnitude + kUnderflowStep;
    return value + ((stream_.NextBits() & 1) ? step : -step);
  }
  void Round(Matrix* m) {
    for (size_t i = 0; i < m->value.size(); ++i)
      m->value[i] = (*this)(m->value[i], m->magnitude[i]);
  }

 private:
  edgeattn_test::RandomStream stream_;
};

// The realisations of float's rounding each case is judged by: one could
// cancel by chance in a small problem, two rarely do.
constexpr uint64_t kRoundingSeeds[2] = {0x5eed, 0xbeef};

// The attention of columns [qc, qc + d_k) of q, k and [vc, vc + d_v) of v,
// as float computes it up to the modelled rounding: scores, exponentials,
// their sum, the probabilities and the output sums each rounded once.
ReferenceResult RoundedAttention(const AttentionProblem& p, const Matrix& q, const Matrix& k,
                                 const Matrix& v, int qc, int vc, Rounding& round,
                                 std::vector<double>* out_magnitude) {
  const double scale = p.scale != 0.0 ? p.scale : 1.0 / sqrt(static_cast<double>(p.d_k));
  ReferenceResult r;
  r.out.assign(static_cast<size_t>(p.n_q) * p.d_v, 0.0);
  r.weights.assign(static_cast<size_t>(p.n_q) * p.n_kv, 0.0);
  out_magnitude->assign(r.out.size(), 0.0);
  std::vector<double> e(p.n_kv);
  for (int i = 0; i < p.n_q; ++i) {
    int visible = p.n_valid_keys;
    if (p.causal) visible = std::min(visible, std::max(0, i + p.n_kv - p.n_q + 1));
    if (visible == 0) continue;
    double max_score = -INFINITY;
    for (int j = 0; j < visible; ++j) {
      double dot = 0.0, magnitude = 0.0;
      for (int t = 0; t < p.d_k; ++t) {
        dot += q.at(i, qc + t) * k.at(j, qc + t);
        magnitude += fabs(q.at(i, qc + t) * k.at(j, qc + t));
      }
      e[j] = round(scale * dot, scale * magnitude);
      max_score = std::max(max_score, e[j]);
    }
    double sum = 0.0;
    for (int j = 0; j < visible; ++j) {
      e[j] = exp(e[j] - max_score);
      e[j] = round(e[j], e[j]);
      sum += e[j];
    }
    sum = round(sum, sum);
    for (int j = 0; j < visible; ++j) {
      const double prob = e[j] / sum;
      r.weights[static_cast<size_t>(i) * p.n_kv + j] = round(prob, prob);
    }
    for (int c = 0; c < p.d_v; ++c) {
      double acc = 0.0, magnitude = 0.0;
      for (int j = 0; j < visible; ++j) {
        acc += e[j] / sum * v.at(j, vc + c);
        magnitude += e[j] / sum * (fabs(v.at(j, vc + c)) + v.mag(j, vc + c));
      }
      r.out[static_cast<size_t>(i) * p.d_v + c] = round(acc, magnitude);
      (*out_magnitude)[static_cast<size_t>(i) * p.d_v + c] = magnitude;
    }
  }
  return r;
}

Matrix PositionedInput(const float* x, const float* table, int rows, int cols) {
  Matrix m = Exact(x, rows, cols);
  if (table != nullptr) {
    for (size_t i = 0; i < m.value.size(); ++i) m.value[i] = static_cast<double>(x[i] + table[i]);
  }
  return m;
}

double NormScaled(const std::vector<double>& got, const std::vector<double>& want) {
  double error = 0.0, scale = 0.0;
  for (size_t i = 0; i < want.size(); ++i) {
    error = std::max(error, fabs(got[i] - want[i]));
    scale = std::max(scale, fabs(want[i]));
  }
  return scale > 0.0 ? error / scale : error;
}

double MaxAbs(const std::vector<double>& values) {
  double largest = 0.0;
  for (double x : values) largest = std::max(largest, fabs(x));
  return largest;
}

ReferenceResult SelfAttentionReference(const SelfAttentionInputs& in) {
  std::vector<double> input(static_cast<size_t>(in.n) * in.d_model);
  for (size_t i = 0; i < input.size(); ++i) {
    input[i] = in.table != nullptr ? static_cast<double>(in.x[i] + in.table[i]) : in.x[i];
  }
  const std::vector<double> q =
      edgeattn_test::ReferenceLinear(input, in.n, in.d_model, in.w_q, in.b_q, in.d_k);
  const std::vector<double> k =
      edgeattn_test::ReferenceLinear(input, in.n, in.d_model, in.w_k, in.b_k, in.d_k);
  const std::vector<double> v =
      edgeattn_test::ReferenceLinear(input, in.n, in.d_model, in.w_v, in.b_v, in.d_v);
  const AttentionProblem problem{in.n, in.n, in.d_k, in.d_v, in.causal, in.n_valid_keys, 0.0};
  return edgeattn_test::ReferenceAttention(problem, q.data(), in.d_k, k.data(), in.d_k, v.data(),
                                           in.d_v);
}

}  // namespace

BoundStats& Stats() {
  static BoundStats stats;
  return stats;
}

BoundCheck BoundCheck::Attention(const AttentionProblem& p, const float* q, const float* k,
                                 const float* v) {
  BoundCheck check;
  check.what_ = "ea_attention_run";
  check.ref_ = edgeattn_test::ReferenceAttention(p, q, p.d_k, k, p.d_k, v, p.d_v);
  for (int s = 0; s < 2; ++s) {
    Rounding round(kRoundingSeeds[s]);
    check.rounded_[s] =
        RoundedAttention(p, Exact(q, p.n_q, p.d_k), Exact(k, p.n_kv, p.d_k),
                         Exact(v, p.n_kv, p.d_v), 0, 0, round, &check.out_magnitude_);
  }
  return check;
}

BoundCheck BoundCheck::SelfAttention(const SelfAttentionInputs& in) {
  BoundCheck check;
  check.what_ = "ea_self_attention_run";
  check.ref_ = SelfAttentionReference(in);
  const Matrix input = PositionedInput(in.x, in.table, in.n, in.d_model);
  const AttentionProblem problem{in.n, in.n, in.d_k, in.d_v, in.causal, in.n_valid_keys, 0.0};
  for (int s = 0; s < 2; ++s) {
    Rounding round(kRoundingSeeds[s]);
    Matrix q = Projected(input, in.w_q, in.b_q, in.d_k);
    Matrix k = Projected(input, in.w_k, in.b_k, in.d_k);
    Matrix v = Projected(input, in.w_v, in.b_v, in.d_v);
    round.Round(&q);
    round.Round(&k);
    round.Round(&v);
    check.rounded_[s] = RoundedAttention(problem, q, k, v, 0, 0, round, &check.out_magnitude_);
  }
  return check;
}

BoundCheck BoundCheck::Mha(const edgeattn_test::ReferenceMhaProblem& p, const float* x) {
  BoundCheck check;
  check.what_ = "ea_mha_run";
  check.ref_ = edgeattn_test::ReferenceMha(p, x);
  const size_t e = static_cast<size_t>(p.d_model);
  const Matrix input = PositionedInput(x, p.position_table, p.n, p.d_model);
  const int d_k = p.d_model / p.heads;
  const AttentionProblem head{p.n, p.n, d_k, d_k, p.causal, p.n_valid_keys, 0.0};
  for (int s = 0; s < 2; ++s) {
    Rounding round(kRoundingSeeds[s]);
    Matrix qkv[3];
    for (size_t part = 0; part < 3; ++part) {
      qkv[part] =
          Projected(input, p.in_proj_weight + part * e * e,
                    p.in_proj_bias != nullptr ? p.in_proj_bias + part * e : nullptr, p.d_model);
      round.Round(&qkv[part]);
    }
    Matrix concat;
    concat.rows = p.n;
    concat.cols = p.d_model;
    concat.value.assign(p.n * e, 0.0);
    concat.magnitude.assign(p.n * e, 0.0);
    ReferenceResult& rounded = check.rounded_[s];
    rounded.weights.resize(static_cast<size_t>(p.heads) * p.n * p.n);
    std::vector<double> head_magnitude;
    for (int h = 0; h < p.heads; ++h) {
      const ReferenceResult r =
          RoundedAttention(head, qkv[0], qkv[1], qkv[2], h * d_k, h * d_k, round, &head_magnitude);
      for (int i = 0; i < p.n; ++i) {
        for (int c = 0; c < d_k; ++c) {
          concat.value[i * e + h * d_k + c] = r.out[i * d_k + c];
          concat.magnitude[i * e + h * d_k + c] = head_magnitude[i * d_k + c];
        }
      }
      std::copy(r.weights.begin(), r.weights.end(),
                rounded.weights.begin() + static_cast<size_t>(h) * p.n * p.n);
    }
    Matrix y = Projected(concat, p.out_proj_weight, p.out_proj_bias, p.d_model);
    check.out_magnitude_ = y.magnitude;
    round.Round(&y);
    rounded.out = y.value;
  }
  return check;
}

// The bound applies where the modelled rounding moves the result by less
// than a quarter of it (in either realisation, and the last rounding alone:
// that one cannot be cancelled by an earlier one), and outputs are neither
// tiny (near float's denormal range, fewer than 24 significant bits) nor
// past float's range.
void BoundCheck::Check(const float* out, const float* weights) const {
  const double scale = MaxAbs(ref_.out);
  double out_condition = scale > 0.0 ? kRoundingStep * MaxAbs(out_magnitude_) / scale : 0.0;
  double weight_condition = 0.0;
  for (const ReferenceResult& rounded : rounded_) {
    out_condition = std::max(out_condition, NormScaled(rounded.out, ref_.out));
    if (weights != nullptr) {
      weight_condition = std::max(weight_condition, NormScaled(rounded.weights, ref_.weights));
    }
  }
  const bool out_checked =
      out_condition <= kConditionLimit && !(scale > 0.0 && scale < kTinyOutputs) && scale < 1e37;
  const bool weights_checked = weights != nullptr && weight_condition <= kConditionLimit;
  if (out_checked) {
    ++Stats().checked;
  } else {
    ++Stats().ill_conditioned;
  }
  const double out_error = out_checked ? edgeattn_test::NormScaledError(out, ref_.out) : 0.0;
  const double weight_error =
      weights_checked ? edgeattn_test::NormScaledError(weights, ref_.weights) : 0.0;
  if (Debugging() && !(out_error <= kErrorBound && weight_error <= kErrorBound)) {
    for (size_t i = 0; i < ref_.out.size(); ++i) {
      Debug("  out[%zu] = %.9g, reference %.9g, rounding models %.9g %.9g\n", i, out[i],
            ref_.out[i], rounded_[0].out[i], rounded_[1].out[i]);
    }
    for (size_t i = 0; weights != nullptr && i < ref_.weights.size(); ++i) {
      Debug("  weights[%zu] = %.9g, reference %.9g\n", i, weights[i], ref_.weights[i]);
    }
  }
  if (!(out_error <= kErrorBound)) {
    Fail(
        "%s: output error %.3g > %.0e against the double reference (rounding model moves it "
        "%.2g, max |y_ref| %.3g)",
        what_, out_error, kErrorBound, out_condition, scale);
  }
  if (!(weight_error <= kErrorBound)) {
    Fail(
        "%s: weights error %.3g > %.0e against the double reference (rounding model moves "
        "them %.2g)",
        what_, weight_error, kErrorBound, weight_condition);
  }
}

}  // namespace edgeattn_fuzz
