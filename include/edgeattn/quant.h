/* edgeattn fixed point: TensorFlow Lite's integers, the parameter structs
 * every fixed-point family shares, and TFLite's ADD. */
#ifndef EDGEATTN_QUANT_H_
#define EDGEATTN_QUANT_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The fixed-point dtypes compute TensorFlow Lite's quantized op chain with
 * TFLite's integers, bit for bit (its reference kernels, default double
 * rounding; -DEDGEATTN_SINGLE_ROUNDING gives TFLITE_SINGLE_ROUNDING's):
 *   x = ADD(x_emb, P)  -> q, k, v = FULLY_CONNECTED (per-channel weights)
 *   -> per head: scores = BATCH_MATMUL(q_h, k_h^T) -> probs = SOFTMAX(beta =
 *   1/sqrt(d_k)) -> o_h = BATCH_MATMUL(probs, v_h) -> y = FULLY_CONNECTED(o).
 * int8 probabilities have scale 1/256 and zero point -128, int16 ones 1/32768
 * and 0 (TFLite's fixed softmax output quantization). Causal row i is the
 * softmax over keys 0..i; masked probabilities are the zero value. Where
 * TFLite's reference aborts or is undefined, edgeattn defines the result:
 *   - int8 softmax rows whose sum of exponentials reaches 512 (TFLite
 *     aborts: near-uniform rows of 512 or more keys): every probability is
 *     then at most half an LSB, and the row saturates at -128 (probability
 *     0), the int8 value nearest to each exact probability;
 *   - a requantisation whose left shift or result leaves int32, and an int64
 *     accumulator beyond TFLite's +-2^47: saturation.
 * The run path contains no float arithmetic, so every target gives the same
 * integers. Plans take float scales (ea_mha_quant_scales: init derives
 * TFLite's integers as TFLite's Prepare does) or the integers themselves
 * (ea_mha_quant_params). */

/* real = scale * (q - zero_point). */
typedef struct ea_quant {
  float scale;        /* the real value of one step of q */
  int32_t zero_point; /* the q that stands for real 0 */
} ea_quant;

/* TFLite's Prepare-time integers, with TFLite's names: a real multiplier
 * m = multiplier * 2^(shift - 31) (TFLite's multipliers are 0 or in
 * [2^30, 2^31)). Given integers are accepted within these ranges, else
 * EA_ERR_BAD_ARGUMENT: multipliers >= 0; shifts in [-31, 30] on the int8
 * paths and [-31, 7] on the int16 ones (TFLite's 64-bit requantisation);
 * ADD's shifts in [-31, 0] and left_shift in [0, 20] (int8) / [0, 15]
 * (int16); offsets of int8 zero points (-zero point in [-127, 128]), 0 for
 * int16; the context's input_offset 128 (int8) or 0 (int16); the int8
 * softmax's input_left_shift in [0, 31] with diff_min <= 0 and
 * min(-diff_min, 255) * 2^input_left_shift < 2^31; the int16 softmax's shift
 * in [-31, 30]. */
typedef struct ea_add_quant_params { /* ADD */
  int32_t left_shift;                /* 20 (int8) or 15 (int16) */
  int32_t input1_offset;             /* -zero point of x_emb */
  int32_t input1_multiplier;         /* with input1_shift: s_1 / (2 max(s_1, s_2)) */
  int32_t input1_shift;              /* <= 0 */
  int32_t input2_offset;             /* -zero point of the table */
  int32_t input2_multiplier;         /* with input2_shift: s_2 / (2 max(s_1, s_2)) */
  int32_t input2_shift;              /* <= 0 */
  int32_t output_offset;             /* zero point of the sum */
  int32_t output_multiplier;         /* with output_shift: 2 max(s_1, s_2) / (2^left_shift s_out) */
  int32_t output_shift;              /* <= 0 */
} ea_add_quant_params;

/* TFLite MUL's Prepare-time integers (ea_mul_quant_derive). */
typedef struct ea_mul_quant_params { /* MUL */
  int32_t input1_offset;             /* -zero point of a */
  int32_t input2_offset;             /* -zero point of b */
  int32_t output_offset;             /* zero point of the product */
  int32_t output_multiplier;         /* s_a * s_b / s_out */
  int32_t output_shift;              /* in [-31, 30], int8 and int16 alike */
} ea_mul_quant_params;

/* TFLite FULLY_CONNECTED's integers: per-channel weights, so one multiplier
 * and shift per output channel. */
typedef struct ea_linear_quant_params { /* FULLY_CONNECTED, per channel */
  int32_t input_offset;                 /* -zero point of the input */
  int32_t output_offset;                /* zero point of the output */
  const int32_t* output_multiplier;     /* one per output channel */
  const int32_t* output_shift;          /* one per output channel, as output_multiplier */
} ea_linear_quant_params;

/* TFLite BATCH_MATMUL's integers: one multiplier for the whole output. */
typedef struct ea_matmul_quant_params { /* BATCH_MATMUL */
  int32_t input_offset;                 /* -zero point of the left operand (lhs) */
  int32_t weights_offset;               /* -zero point of the right operand (rhs) */
  int32_t output_offset;                /* zero point of the output */
  int32_t output_multiplier;            /* with output_shift: s_lhs * s_rhs / s_out */
  int32_t output_shift;                 /* the multiplier's power of two */
} ea_matmul_quant_params;

/* TFLite SOFTMAX's integers: beta times the input scale as a multiplier,
 * and (int16) the tables of exponentials and reciprocals. */
typedef struct ea_softmax_quant_params { /* SOFTMAX */
  int32_t input_multiplier;              /* beta * the input scale, rescaled as TFLite does */
  int32_t input_left_shift;              /* int8: in [0, 31]; int16: a shift in [-31, 30] */
  int32_t diff_min;                      /* int8 only */
  /* int16 only: TFLite's two 513-entry Q0.15 tables of the int16 softmax
   * (SoftmaxParams::exp_lut, exp(x) on [-10, 0], and
   * one_over_one_plus_x_lut, 1 / (1 + x) on [0, 1]), as the model or the
   * device's TFLite Micro build filled them (TFLM fills them at Prepare with
   * the device's expf, and one libm's expf can differ from another's in an
   * entry): the integers are then that build's. NULL both: the built-in
   * tables, TFLite Micro's with glibc's expf. The _derive functions leave
   * both NULL; set them in the params you pass as quant_params. Read in
   * place, as weights are, for the life of the plan or decoder (flash is
   * fine), and outside its arena. EA_ERR_BAD_ARGUMENT for one of the two
   * alone, either with an int8 dtype, an entry outside [0, 32767], or an
   * exp table whose value at 0 (entry 511 interpolated 127/128 of the way
   * to entry 512) is below 16384 (TFLite's is 32767): a row's sum of
   * exponentials is at least that, which keeps the normalisation within
   * TFLite's integer ranges. */
  const int16_t* exp_lut;
  const int16_t* one_over_one_plus_x_lut; /* int16 only: 1 / (1 + x); NULL just when exp_lut is */
} ea_softmax_quant_params;

/* The arena regions of one fixed-point attention (private, as every plan field). */
typedef struct ea_quant_core {
  void* softmax_table; /* the softmax's tables (int8: per difference) */
  void* k_panels;      /* K and V packed for the dot-product instructions */
  void* v_panels;
  void* v_transposed; /* V^T for the row kernels */
  int32_t max_keys;
  void* row_scratch; /* one row block per worker */
  size_t row_scratch_bytes;
} ea_quant_core;

/* ------------------------------------------------------ fixed-point ADD */

/* TFLite's ADD (no activation) of two tensors of one fixed-point dtype,
 * element for element, bit for bit (int8: reference_integer_ops::Add; int16:
 * TFLite Micro's general-scale path): both inputs rescaled to a common grid
 * 2^left_shift finer, summed, requantised to the output. The residual
 * connection x + MHA(x) of a quantized transformer, and the ADD(x_emb, P)
 * fixed-point plans run for positions.
 * ea_add_quant_derive: TFLite's Prepare on the three tensors' quantization;
 * EA_ERR_BAD_ARGUMENT for a scale that is not positive and finite, a zero
 * point out of range (int8: [-128, 127]; int16: 0) or integers outside the
 * ranges of ea_add_quant_params (e.g. an output scale below 2^-20 of the
 * inputs'); EA_ERR_BAD_ARGUMENT for a dtype that is not fixed point. *params
 * is written only on EA_OK. */
ea_status ea_add_quant_derive(ea_dtype dtype, ea_quant a, ea_quant b, ea_quant out,
                              ea_add_quant_params* params);
/* out[i] = ADD(a[i], b[i]) for i < count. params within the ranges above
 * (EA_ERR_BAD_ARGUMENT), count in [1, EA_MAX_ELEMENTS] (EA_ERR_BAD_DIMENSION,
 * EA_ERR_DIMENSION_OVERFLOW); out may be a or b,
 * else it overlaps neither (EA_ERR_BAD_ARGUMENT). On any error out is not
 * written. */
ea_status ea_add_quant_run_s8(const int8_t* a, const int8_t* b, size_t count,
                              const ea_add_quant_params* params, int8_t* out);
/* The int16 twin of ea_add_quant_run_s8, for int16 tensors. */
ea_status ea_add_quant_run_s16(const int16_t* a, const int16_t* b, size_t count,
                               const ea_add_quant_params* params, int16_t* out);

/* ------------------------------------------------------ fixed-point MUL */

/* TFLite's MUL (no activation) of two tensors of one fixed-point dtype,
 * element for element, bit for bit (reference_integer_ops::Mul, int8, and
 * int16 with zero points 0 as TFLite's 16x8 models quantize activations):
 * the product of the offset
 * inputs in int32, requantised by MultiplyByQuantizedMultiplier (32-bit)
 * to the output, plus its zero point, clamped. The rotations of RoPE
 * (x * cos, rotate_half(x) * sin) and gates of a quantized model.
 * Where TFLite's int32 `x * 2^shift` would overflow (undefined there; a
 * multiplier above 1 with large products), the product saturates.
 * ea_mul_quant_derive: TFLite's Prepare (CalculateOpDataMul:
 * (double)s_a * (double)s_b / (double)s_out, QuantizeMultiplier); statuses
 * as ea_add_quant_derive's. */
ea_status ea_mul_quant_derive(ea_dtype dtype, ea_quant a, ea_quant b, ea_quant out,
                              ea_mul_quant_params* params);
/* out[i] = MUL(a[i], b[i]) for i < count. Rules as ea_add_quant_run_s8's:
 * params within the ranges above (EA_ERR_BAD_ARGUMENT), count in
 * [1, EA_MAX_ELEMENTS], out a, b or apart from both; on any error out is not
 * written. */
ea_status ea_mul_quant_run_s8(const int8_t* a, const int8_t* b, size_t count,
                              const ea_mul_quant_params* params, int8_t* out);
/* The int16 twin of ea_mul_quant_run_s8, for int16 tensors. */
ea_status ea_mul_quant_run_s16(const int16_t* a, const int16_t* b, size_t count,
                               const ea_mul_quant_params* params, int16_t* out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_QUANT_H_ */
