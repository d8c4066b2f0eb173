// The second peer: attention composed from oneDNN 2.6 primitives (C++ API, dnnl.hpp), as a
// oneDNN user would write it instead of linking edgeattn: a matmul for S = Q K^T with K read
// through a transposed (strided) memory descriptor, the scale fused as an output scale and the
// causal mask as a binary-add post-op; softmax over the last axis, in place; a matmul for
// O = S V. MHA adds the projections as matmuls with bias and runs the heads as one batched
// matmul over strided column blocks. Primitives, memory objects and scratchpads are all made in
// the constructors, so Run() times only the primitives' execution. oneDNN must be limited to
// one thread before its first use (single_thread.h).
#ifndef EDGEATTN_BENCH_ONEDNN_ATTENTION_H_
#define EDGEATTN_BENCH_ONEDNN_ATTENTION_H_

#include <stdint.h>

#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "mha_weights.h"

namespace edgeattn_bench {

// Where a batch of row-major matrices lies in one buffer, in floats.
struct StridedMatrices {
  int64_t batch_stride;  // from one matrix (head) to the next
  int64_t row_stride;    // from one row to the next
};

// `batch` independent attentions out = softmax(scale q k^T, -inf above the diagonal when
// causal) v, with q: [n_q, d], k, v: [n_kv, d], out: [n_q, d], each laid out as given.
struct OnednnAttentionShape {
  int64_t batch;
  int64_t n_q;
  int64_t n_kv;
  int64_t d;
  float scale;
  bool causal;
  StridedMatrices q, k, v, out;
};

class OnednnAttention {
 public:
  // The pointers are bound into memory objects here; they must outlive this object.
  OnednnAttention(const OnednnAttentionShape& shape, const float* q, const float* k, const float* v,
                  float* out);
  void Run();
  // The implementations oneDNN chose, e.g. "brg:avx512_core, jit:avx512_common, ...".
  std::string Implementations() const;

 private:
  dnnl::matmul scores_matmul_;  // S = scale Q K^T (+ mask)
  dnnl::softmax_forward softmax_;
  dnnl::matmul values_matmul_;  // out = S V
  std::string implementations_;
  dnnl::memory q_, k_transposed_, v_, out_, scores_, mask_;
  dnnl::memory scores_scratchpad_, softmax_scratchpad_, values_scratchpad_;
};

// Y = Concat(head_1 .. head_h) W_O^T + b_O, with Q, K, V = X W^T + b (three matmuls) and the
// heads as column blocks of Q, K, V and Concat, as EigenMha does (causal: the heads' scores
// get the causal mask post-op).
class OnednnMha {
 public:
  // x, y: [n, d_model], bound here, as are the weights.
  OnednnMha(int64_t d_model, int64_t heads, bool causal, int64_t n, const MhaWeights& weights,
            const float* x, float* y);
  void Run();
  std::string Implementations() const;

 private:
  std::vector<float> q_values_, k_values_, v_values_, concat_values_;
  // [n, E] x [E, E]^T + [E]: one primitive for all four projections.
  dnnl::matmul projection_;
  std::string projection_implementation_;
  dnnl::memory x_, y_, q_, k_, v_, concat_, projection_scratchpad_;
  dnnl::memory w_q_, w_k_, w_v_, w_o_, b_q_, b_k_, b_v_, b_o_;
  OnednnAttention heads_attention_;
};

// "avx512_core_bf16" and the like: the ISA oneDNN's kernels run on.
const char* OnednnCpuIsa();

// "2.6.3".
std::string OnednnVersion();

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_ONEDNN_ATTENTION_H_
