// The fixed-point attention kernels' arguments (AttentionQArgs<T>) for one
// head whose three TFLite ops are given by the reference's parameters: the
// shape, the offsets, zero points, multipliers and shifts of the two
// BATCH_MATMULs (scores: q's and k's offsets, the scores' zero point;
// context: V's offset, the output's zero point; the probabilities' offset is
// TFLite's fixed one) and the softmax's tables, with no tensor attached.
// Tests that call AttendRowsS8 / AttendRowsS16 directly set the pointers for
// their layout (row-major K and V^T, or the packed panels), the padding,
// window or ring they test, and the outputs they want back.
#ifndef EDGEATTN_TESTS_REFERENCE_QUANT_HEAD_ARGS_H_
#define EDGEATTN_TESTS_REFERENCE_QUANT_HEAD_ARGS_H_

#include "kernels/int/int_kernels.h"
#include "kernels/int/softmax_s16.h"
#include "reference/tflite_chain_reference.h"

namespace edgeattn_test {

template <typename T>
edgeattn::AttentionQArgs<T> QuantHeadArgs(const tflite_ref::BatchMatMulParams& scores,
                                          const tflite_ref::BatchMatMulParams& context, int n_q,
                                          int n_kv, int d_k, int d_v, bool causal) {
  edgeattn::AttentionQArgs<T> a{};
  a.n_q = n_q;
  a.n_kv = n_kv;
  a.d_k = d_k;
  a.d_v = d_v;
  a.causal = causal;
  a.n_valid_keys = n_kv;  // no padding
  a.q_offset = scores.lhs_offset;
  a.k_offset = scores.rhs_offset;
  a.score_multiplier = scores.output_multiplier;
  a.score_shift = scores.output_shift;
  a.score_zero_point = scores.output_offset;
  a.v_offset = context.rhs_offset;
  a.out_multiplier = context.output_multiplier;
  a.out_shift = context.output_shift;
  a.out_zero_point = context.output_offset;
  return a;
}

// int8: the softmax reads `softmax` (BuildSoftmaxS8Table), which must
// outlive the arguments.
inline edgeattn::AttentionQArgs<int8_t> S8HeadArgs(const tflite_ref::BatchMatMulParams& scores,
                                                   const edgeattn::SoftmaxS8Table* softmax,
                                                   const tflite_ref::BatchMatMulParams& context,
                                                   int n_q, int n_kv, int d_k, int d_v,
                                                   bool causal) {
  edgeattn::AttentionQArgs<int8_t> a =
      QuantHeadArgs<int8_t>(scores, context, n_q, n_kv, d_k, d_v, causal);
  a.softmax_s8 = softmax;
  return a;
}

// int16 (zero points 0): the softmax's tables are built into *tables, which
// must outlive the arguments.
inline edgeattn::AttentionQArgs<int16_t> S16HeadArgs(const tflite_ref::BatchMatMulParams& scores,
                                                     const tflite_ref::SoftmaxInt16Params& softmax,
                                                     const tflite_ref::BatchMatMulParams& context,
                                                     int n_q, int n_kv, int d_k, int d_v,
                                                     bool causal,
                                                     edgeattn::SoftmaxS16Tables* tables) {
  edgeattn::BuildSoftmaxS16Tables(softmax.exp_lut, softmax.one_over_one_plus_x_lut, tables);
  edgeattn::AttentionQArgs<int16_t> a =
      QuantHeadArgs<int16_t>(scores, context, n_q, n_kv, d_k, d_v, causal);
  a.softmax_s16 = tables;
  a.softmax_multiplier = softmax.input_multiplier;
  a.softmax_left_shift = softmax.input_left_shift;
  return a;
}

}  // namespace edgeattn_test

#endif  // EDGEATTN_TESTS_REFERENCE_QUANT_HEAD_ARGS_H_
