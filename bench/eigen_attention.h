// The first peer: attention written the straightforward way with Eigen, as a user would write it
// instead of linking edgeattn. It materialises the n_q x n_kv score matrix, so it is O(n^2) in
// memory; workspaces are kept between calls, so the timed loop measures compute, not malloc.
#ifndef EDGEATTN_BENCH_EIGEN_ATTENTION_H_
#define EDGEATTN_BENCH_EIGEN_ATTENTION_H_

// GCC 12 reports -Wmaybe-uninitialized inside its own AVX-512 intrinsics (the deliberately
// undefined `__Y = __Y` operand of _mm512_undefined_*) once Eigen's packet math is inlined
// into our code; a known false positive fixed in GCC 13 (GCC bug 105593). -isystem cannot
// silence it because it is reported after inlining, so it is silenced for the Eigen peer.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <Eigen/Core>

#include "mha_weights.h"

namespace edgeattn_bench {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;
using ConstRowMap = Eigen::Map<const RowMatrix>;
using RowMap = Eigen::Map<RowMatrix>;
// Row-major views with any row stride: whole matrices, maps and column blocks (heads).
using ConstRowRef = Eigen::Ref<const RowMatrix, 0, Eigen::OuterStride<>>;
using RowRef = Eigen::Ref<RowMatrix, 0, Eigen::OuterStride<>>;

// out = softmax(scale * q k^T, with -inf above the diagonal when causal) v.
// q: [n_q, d], k: [n_kv, d], v: [n_kv, d_v], out: [n_q, d_v]; scores: workspace, resized to
// [n_q, n_kv] (a no-op after the first call).
void EigenAttention(const ConstRowRef& q, const ConstRowRef& k, const ConstRowRef& v, float scale,
                    bool causal, RowMatrix* scores, RowRef out);

// Y = Concat(head_1 .. head_h) W_O^T + b_O with three projections and per-head attention
// (causal: each head's scores masked above the diagonal).
class EigenMha {
 public:
  EigenMha(int d_model, int heads, bool causal, const MhaWeights& weights);
  // x, y: [n, d_model], row-major.
  void Run(const float* x, int n, float* y);

 private:
  int d_model_;
  int heads_;
  bool causal_;
  MhaWeights weights_;
  RowMatrix q_, k_, v_, concat_, scores_;
};

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_EIGEN_ATTENTION_H_
