// The nn.MultiheadAttention tensors of one MHA layer, as every library in the benchmark reads
// them (the layout of ea_mha_weights): the workload owns them and hands the same pointers to
// edgeattn, Eigen and oneDNN, so all three compute the same layer.
#ifndef EDGEATTN_BENCH_MHA_WEIGHTS_H_
#define EDGEATTN_BENCH_MHA_WEIGHTS_H_

namespace edgeattn_bench {

struct MhaWeights {
  const float* in_proj_weight;   // [3E, E]: W_Q, W_K, W_V rows, each [out, in]
  const float* in_proj_bias;     // [3E]
  const float* out_proj_weight;  // [E, E], [out, in]
  const float* out_proj_bias;    // [E]
};

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_MHA_WEIGHTS_H_
