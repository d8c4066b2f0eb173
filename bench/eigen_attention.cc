// Eigen peer implementation (see eigen_attention.h): the composition a user would write.
#include "eigen_attention.h"

#include <cmath>
#include <limits>

namespace edgeattn_bench {

void EigenAttention(const ConstRowRef& q, const ConstRowRef& k, const ConstRowRef& v, float scale,
                    bool causal, RowMatrix* scores, RowRef out) {
  RowMatrix& s = *scores;
  s.resize(q.rows(), k.rows());
  s.noalias() = q * k.transpose() * scale;
  if (causal) {
    s.triangularView<Eigen::StrictlyUpper>().setConstant(-std::numeric_limits<float>::infinity());
  }
  // Row-wise softmax, max-subtracted for range.
  for (Eigen::Index i = 0; i < s.rows(); ++i) {
    auto row = s.row(i).array();
    row = (row - row.maxCoeff()).exp();
    row /= row.sum();
  }
  out.noalias() = s * v;
}

EigenMha::EigenMha(int d_model, int heads, bool causal, const MhaWeights& weights)
    : d_model_(d_model), heads_(heads), causal_(causal), weights_(weights) {}

void EigenMha::Run(const float* x_data, int n, float* y_data) {
  const int e = d_model_;
  const int d_k = e / heads_;
  const ConstRowMap x(x_data, n, e);
  const ConstRowMap in_proj(weights_.in_proj_weight, 3 * e, e);
  const Eigen::Map<const RowVector> in_bias(weights_.in_proj_bias, 3 * e);
  const ConstRowMap out_proj(weights_.out_proj_weight, e, e);
  const Eigen::Map<const RowVector> out_bias(weights_.out_proj_bias, e);
  RowMap y(y_data, n, e);

  q_.resize(n, e);
  k_.resize(n, e);
  v_.resize(n, e);
  concat_.resize(n, e);
  q_.noalias() = x * in_proj.topRows(e).transpose();
  q_.rowwise() += in_bias.head(e);
  k_.noalias() = x * in_proj.middleRows(e, e).transpose();
  k_.rowwise() += in_bias.segment(e, e);
  v_.noalias() = x * in_proj.bottomRows(e).transpose();
  v_.rowwise() += in_bias.tail(e);

  const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));
  for (int h = 0; h < heads_; ++h) {
    EigenAttention(q_.middleCols(h * d_k, d_k), k_.middleCols(h * d_k, d_k),
                   v_.middleCols(h * d_k, d_k), scale, causal_, &scores_,
                   concat_.middleCols(h * d_k, d_k));
  }
  y.noalias() = concat_ * out_proj.transpose();
  y.rowwise() += out_bias;
}

}  // namespace edgeattn_bench
