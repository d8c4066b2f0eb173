// The int16 attention kernels' arguments (AttentionQArgs<int16_t>) for one
// head whose three TFLite ops are given by the reference's parameters: the
// shape, the integers and the softmax's tables (built into *tables, which
// must outlive the arguments), with no tensor attached. Tests that call
// AttendRowsS16 directly set the pointers for their layout (row-major K and
// V^T, or the packed panels) and the probabilities they want back.
#ifndef EDGEATTN_TESTS_REFERENCE_S16_ATTENTION_ARGS_H_
#define EDGEATTN_TESTS_REFERENCE_S16_ATTENTION_ARGS_H_

#include "kernels/int/int_kernels.h"
#include "reference/tflite_chain_reference.h"

namespace edgeattn_test {

inline edgeattn::AttentionQArgs<int16_t> S16HeadArgs(const tflite_ref::BatchMatMulParams& scores,
                                                     const tflite_ref::SoftmaxInt16Params& softmax,
                                                     const tflite_ref::BatchMatMulParams& context,
                                                     int n_q, int n_kv, int d_k, int d_v,
                                                     bool causal,
                                                     edgeattn::SoftmaxS16Tables* tables) {
  edgeattn::BuildSoftmaxS16Tables(softmax.exp_lut, softmax.one_over_one_plus_x_lut, tables);
  edgeattn::AttentionQArgs<int16_t> a{};
  a.softmax_s16 = tables;
  a.n_q = n_q;
  a.n_kv = n_kv;
  a.d_k = d_k;
  a.d_v = d_v;
  a.causal = causal;
  a.n_valid_keys = n_kv;  // no padding
  a.score_multiplier = scores.output_multiplier;
  a.score_shift = scores.output_shift;
  a.softmax_multiplier = softmax.input_multiplier;
  a.softmax_left_shift = softmax.input_left_shift;
  a.out_multiplier = context.output_multiplier;
  a.out_shift = context.output_shift;
  return a;
}

}  // namespace edgeattn_test

#endif  // EDGEATTN_TESTS_REFERENCE_S16_ATTENTION_ARGS_H_
