// Plain scalar integer reference of TensorFlow Lite's fixed-point attention chain:
//
//   ADD(x_emb, pe) -> FULLY_CONNECTED q, k, v (per channel) -> per head
//   BATCH_MATMUL(q_h, k_h^T) -> SOFTMAX(beta = 1/sqrt(d_k)) -> BATCH_MATMUL(P, v_h)
//   -> FULLY_CONNECTED(W_O)
//
// in int8 (int32 bias) and int16x8 (int16 activations, int8 weights, int64 bias),
// with TFLite's default double rounding. Written for reading, never for speed,
// from the formulas of ../shared/golden/README.md and the documented semantics of
// gemmlowp's fixed point and TFLite's reference kernels (no code of theirs): the
// library's fixed-point path must equal it integer for integer, and
// tests/contract/tflite_golden_test.cc proves it equals TFLite Micro on the golden data.
//
// The one departure from TFLite: where its int8 softmax aborts (a row's sum of
// exps reaches 512), this reference saturates; see SoftmaxInt8Row.
#ifndef EDGEATTN_TESTS_REFERENCE_TFLITE_CHAIN_REFERENCE_H_
#define EDGEATTN_TESTS_REFERENCE_TFLITE_CHAIN_REFERENCE_H_

#include <stddef.h>
#include <stdint.h>

#include <vector>

namespace tflite_ref {

// ---------------------------------------------------------------------------
// Fixed-point primitives (gemmlowp fixedpoint.h and tflite/kernels/internal).
// Raw int32 values; Qm.n names the format (m integer bits, n = 31 - m).
// ---------------------------------------------------------------------------

// round(a * b / 2^31) with ties toward +infinity (gemmlowp's nudge, then a
// division that truncates); the one overflow case, INT32_MIN * INT32_MIN,
// saturates to INT32_MAX. Arm's VQRDMULH.
int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b);

// x / 2^exponent rounded to nearest, ties away from zero; exponent in [0, 31].
int32_t RoundingDivideByPOT(int32_t x, int exponent);

// x * 2^exponent, saturated to the int32 range; exponent in [0, 31].
int32_t SaturatingLeftShift(int32_t x, int exponent);

// MultiplyByQuantizedMultiplier, 32-bit input, double rounding:
// RoundingDivideByPOT(SRDHM(x * 2^max(shift, 0), multiplier), max(-shift, 0)).
// Where x * 2^shift leaves int32 (undefined in TFLite) it saturates (project rule).
int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift);

// The int64 overload (int64 accumulators: the int16 FULLY_CONNECTED and
// BATCH_MATMUL). Cuts the multiplier to 16 bits first, then one rounding:
// (x * M16 + 2^(14 - shift)) >> (15 - shift). TFLite assumes |x| < 2^47 and an
// int32 result; outside that, x is clamped to its domain and the result saturated
// (project rule).
int32_t MultiplyByQuantizedMultiplier(int64_t x, int32_t multiplier, int shift);

// ADD's requantization: RoundingDivideByPOT(SRDHM(x, multiplier), -shift), shift <= 0.
int32_t MultiplyByQuantizedMultiplierSmallerThanOneExp(int32_t x, int32_t multiplier, int shift);

// The int8 softmax's input scaling: SRDHM(x * 2^left_shift, multiplier), left_shift >= 0.
int32_t MultiplyByQuantizedMultiplierGreaterThanOne(int32_t x, int32_t multiplier, int left_shift);

// Leading zero bits of a 32-bit value; 32 for 0.
int CountLeadingZeros(uint32_t x);

// gemmlowp exp_on_interval_between_negative_one_quarter_and_0_excl: exp(a) for
// a in [-1/4, 0), Q0.31 in and out (Taylor series around -1/8).
int32_t ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl(int32_t a_q0_31);

// gemmlowp exp_on_negative_values for a Q5.26 input a <= 0 (the int8 softmax's
// format): exp(a) in Q0.31; exp(0) = INT32_MAX.
int32_t ExpOnNegativeValues(int32_t a_q5_26);

// gemmlowp one_over_one_plus_x_for_x_in_0_1: 1 / (1 + a) for a in [0, 1), Q0.31
// in and out (three Newton-Raphson steps).
int32_t OneOverOnePlusXForXIn01(int32_t a_q0_31);

// TFLite GetReciprocal: x (> 0) has x_integer_digits integer bits; returns
// 1 / x's mantissa in Q0.31 and sets num_bits_over_unit so that
// 1 / x = result * 2^-num_bits_over_unit.
int32_t GetReciprocal(int32_t x, int x_integer_digits, int* num_bits_over_unit);

// TFLite's int16 table lookup with linear interpolation (LUTLookup, formerly
// generic_int16_table_lookup): 513 entries, index from the top 9 bits of value.
int16_t LutLookup(int16_t value, const int16_t* lut);

// ---------------------------------------------------------------------------
// Ops. Matrices are row-major; weights are TFLite FULLY_CONNECTED filters
// [out_features, in_features], symmetric per output channel.
// ---------------------------------------------------------------------------

struct AddParams {
  int left_shift;         // 20 (int8) or 15 (int16)
  int32_t input1_offset;  // -zero_point(input1)
  int32_t input1_multiplier;
  int input1_shift;
  int32_t input2_offset;
  int32_t input2_multiplier;
  int input2_shift;
  int32_t output_offset;  // zero_point(output)
  int32_t output_multiplier;
  int output_shift;
};

// out = clamp(MBQM_small(MBQM_small((a + off1) << ls, M1, s1) + MBQM_small((b + off2) << ls,
// M2, s2), Mo, so) + out_off), elementwise over count values.
// int8: reference_integer_ops::Add; int16: reference_ops::Add(pot_scale = false),
// the general-scale path TFLM takes.
std::vector<int8_t> Add(const AddParams& params, const int8_t* a, const int8_t* b, size_t count);
std::vector<int16_t> Add(const AddParams& params, const int16_t* a, const int16_t* b, size_t count);

struct MulParams {
  int32_t input1_offset;  // -zero_point(input1)
  int32_t input2_offset;  // -zero_point(input2)
  int32_t output_offset;  // zero_point(output)
  int32_t output_multiplier;
  int output_shift;
};

// out = clamp(MBQM((a + off1) * (b + off2), M, s) + out_off), elementwise:
// reference_integer_ops::MulElementwise, int8 and int16 (offsets 0) alike.
std::vector<int8_t> Mul(const MulParams& params, const int8_t* a, const int8_t* b, size_t count);
std::vector<int16_t> Mul(const MulParams& params, const int16_t* a, const int16_t* b, size_t count);

// RoPE as a model's graph (tflite_rope_reference.h): MUL(x, C),
// MUL(swap(x), S), their ADD.
struct RopeParams {
  MulParams cos;  // x, C -> cos product
  MulParams sin;  // swap(x), S -> sin product
  AddParams add;  // the two products -> the rotated tensor
};

struct FullyConnectedParams {
  int32_t input_offset;             // -zero_point(input)
  int32_t output_offset;            // zero_point(output)
  std::vector<int32_t> multiplier;  // per output channel
  std::vector<int> shift;           // per output channel
};

// out[r][c] = clamp(MBQM(bias[c] + sum_i W[c][i] * (in[r][i] + input_offset), M[c], s[c])
//                   + output_offset). int8: int32 accumulator and the 32-bit MBQM;
// int16: int64 accumulator and the int64 MBQM. bias may be null.
std::vector<int8_t> FullyConnectedPerChannel(const FullyConnectedParams& params,
                                             const int8_t* input, int rows, int in_features,
                                             const int8_t* weights, const int32_t* bias,
                                             int out_features);
std::vector<int16_t> FullyConnectedPerChannel(const FullyConnectedParams& params,
                                              const int16_t* input, int rows, int in_features,
                                              const int8_t* weights, const int64_t* bias,
                                              int out_features);

struct BatchMatMulParams {
  int32_t lhs_offset;     // -zero_point(lhs)  (TFLM's input_offset)
  int32_t rhs_offset;     // -zero_point(rhs)  (TFLM's weights_offset)
  int32_t output_offset;  // zero_point(out)
  int32_t output_multiplier;
  int output_shift;
};

// out[i][j] = clamp(MBQM(sum_t (lhs[i][t] + lhs_offset) * (rhs_t[j][t] + rhs_offset))
//                   + output_offset), lhs [rows, depth], rhs_t [cols, depth] (the right
// operand transposed: k_h for the scores, v_h^T for the context). int8: int32
// accumulator; int16: int64 accumulator and the int64 MBQM (zero points 0).
std::vector<int8_t> BatchMatMul(const BatchMatMulParams& params, const int8_t* lhs, int rows,
                                int depth, const int8_t* rhs_t, int cols);
std::vector<int16_t> BatchMatMul(const BatchMatMulParams& params, const int16_t* lhs, int rows,
                                 int depth, const int16_t* rhs_t, int cols);

// int8 -> int8 softmax, output scale 1/256, zero point -128 (reference_ops::Softmax).
struct SoftmaxInt8Params {
  int32_t input_multiplier;
  int input_left_shift;
  int diff_min;  // entries with x - max < diff_min output -128 without an exp
};

// What a row's softmax went through, for tests and diagnostics.
struct SoftmaxInt8RowInfo {
  int64_t sum_of_exps_q12_19;  // 64-bit here; TFLite's int32 one cannot wrap below 512
  int exponent;                // num_bits_over_unit + 23; TFLite accepts [0, 31] only
  int entries_below_diff_min;
  bool beyond_tflite;  // TFLite's reference would abort() on this row
};

// The sum of exps (Q12.19) at which TFLite's reference aborts: 512.0.
constexpr int64_t kSoftmaxInt8AbortSumQ12_19 = int64_t{1} << 28;

// One row of length len (>= 1). Identical to TFLite wherever TFLite returns.
//
// Project extension, not TFLite: TFLite's reference aborts once the row's sum
// of exps S reaches 512 (exponent 32 or more fails its TFLITE_CHECK). Here such
// a row outputs -128 (probability 0) everywhere. Why: every probability is then
// e_j / S <= 1/512, half an output LSB, so 0 is the int8 value nearest to the
// exact softmax for every entry (S = 512 with e_j = 1 is the one tie); it is what
// TFLite's own formula gives if its final RoundingDivideByPOT is allowed shifts of
// 32 and more (the product scale * exp is below 2^31), so the outputs stay
// non-increasing in (max - x) and never exceed TFLite's just below the limit.
// Clamping the exponent at 31 instead would output up to 2^(exponent - 31) times
// the true value (-127 for every entry of any long flat row: probabilities that sum
// to n / 256, far above 1). The accumulator is 64-bit, so rows of 4096 or more
// keys (where TFLite's int32 accumulator would wrap) are covered by the same rule.
SoftmaxInt8RowInfo SoftmaxInt8Row(const SoftmaxInt8Params& params, const int8_t* input, int len,
                                  int8_t* output);

// int16 -> int16 softmax, output scale 1/32768, zero point 0 (SoftmaxInt16): exp
// and 1/(1 + x) from two 513-entry LUTs (TFLM InitializeLutForInt16; data, not
// recomputed here). Differences more than 10 below the max read exp_lut[0].
struct SoftmaxInt16Params {
  int32_t input_multiplier;
  int input_left_shift;  // may be negative
  const int16_t* exp_lut;
  const int16_t* one_over_one_plus_x_lut;
};

struct SoftmaxInt16RowInfo {
  int32_t sum_of_exps_q15;
  int entries_at_exp_minus_10;  // scaled difference saturated at the LUT's lower end
};

SoftmaxInt16RowInfo SoftmaxInt16Row(const SoftmaxInt16Params& params, const int16_t* input, int len,
                                    int16_t* output);

// ---------------------------------------------------------------------------
// Prepare: the integer parameters from float scales, as TFLite / TFLM compute
// them (same formulas, same float and double precision).
// ---------------------------------------------------------------------------

struct QuantizedMultiplier {
  int32_t multiplier;  // Q31, in [2^30, 2^31) or 0
  int shift;           // real = multiplier * 2^(shift - 31)
};

// frexp, mantissa * 2^31 rounded half away from zero; a mantissa that rounds to
// 2^31 becomes 2^30 with shift + 1; shifts below -31 flush to 0.
QuantizedMultiplier QuantizeMultiplier(double real_multiplier);
// Same, for 0 < real < 1 (shift <= 0).
QuantizedMultiplier QuantizeMultiplierSmallerThanOneExp(double real_multiplier);
// Same, for real > 1 (shift >= 0).
QuantizedMultiplier QuantizeMultiplierGreaterThanOne(double real_multiplier);

// TFLite QUANTIZE (AffineQuantize): clamp(round_half_away(value / scale) + zero_point),
// the division in float32.
int32_t AffineQuantize(float value, float scale, int32_t zero_point, int32_t q_min, int32_t q_max);

// floor((2^input_integer_bits - 1) * 2^(total_signed_bits - input_integer_bits)
//       / 2^input_left_shift): the largest |x - max| the scaled diff can hold.
int CalculateInputRadius(int input_integer_bits, int input_left_shift, int total_signed_bits = 31);

// min(beta * input_scale * 2^(31 - input_integer_bits), 2^31 - 1) in double,
// through QuantizeMultiplierGreaterThanOne.
QuantizedMultiplier PreprocessSoftmaxScaling(double beta, double input_scale,
                                             int input_integer_bits);

struct TensorQuantization {
  float scale;
  int32_t zero_point;
};

// TFLM CalculateOpDataAdd: left_shift 20 (int8) or 15 (int16);
// twice_max = 2 * max(s_a, s_b) in double; inputs s / twice_max and output
// twice_max / (2^left_shift * s_out), each by QuantizeMultiplierSmallerThanOneExp.
AddParams PrepareAdd(TensorQuantization a, TensorQuantization b, TensorQuantization out,
                     int left_shift);

// TFLM CalculateOpDataMul: QuantizeMultiplier((double)s_a * (double)s_b / (double)s_out).
MulParams PrepareMul(TensorQuantization a, TensorQuantization b, TensorQuantization out);

// RoPE's six tensors: x (q or k after its FULLY_CONNECTED), the tables, the
// products and the rotated result.
struct RopeQuantization {
  TensorQuantization x, cos_table, sin_table, cos_product, sin_product, rotated;
};

// The three ops' Prepare; add_left_shift 20 (int8) or 15 (int16).
RopeParams PrepareRope(const RopeQuantization& q, int add_left_shift);

// TFLM CalculateOpDataFullyConnected, per channel:
// QuantizeMultiplier((double)s_in * (double)s_w[c] / (double)s_out).
FullyConnectedParams PrepareFullyConnectedPerChannel(TensorQuantization input,
                                                     const float* weight_scales, int channels,
                                                     TensorQuantization output);

// TFLM BatchMatMulPrepare: QuantizeMultiplier((double)(s_lhs * s_rhs) / (double)s_out),
// the scale product in float32.
BatchMatMulParams PrepareBatchMatMul(TensorQuantization lhs, TensorQuantization rhs,
                                     TensorQuantization out);

// TFLM CalculateSoftmaxParams, int8: PreprocessSoftmaxScaling(beta, s, 5) and
// diff_min = -CalculateInputRadius(5, input_left_shift).
SoftmaxInt8Params PrepareSoftmaxInt8(float beta, float input_scale);

// TFLM CalculateSoftmaxParams, int16:
// QuantizeMultiplier((double)s * (double)beta / (10.0 / 65535.0)); the LUTs are data.
SoftmaxInt16Params PrepareSoftmaxInt16(float beta, float input_scale, const int16_t* exp_lut,
                                       const int16_t* one_over_one_plus_x_lut);

// ---------------------------------------------------------------------------
// The whole chain.
// ---------------------------------------------------------------------------

struct ChainShape {
  int n;        // tokens
  int d_model;  // = heads * d_k
  int heads;
  bool causal;       // row i of each softmax sees keys up to i (from i - window + 1)
  int n_valid_keys;  // keys from here on are padding, in no softmax (n: none)
  // Grouped-query heads: k and v have kv_heads * d_k channels (W_K, W_V that
  // many rows) and query head h reads KV head h / (heads / kv_heads), as
  // PyTorch's repeat_interleave (kv_heads divides heads).
  int kv_heads;
  // Causal only: row i sees keys i - window + 1 .. i (0: no window), the
  // sliding window of the KV cache.
  int window;
  // RoPE on q and k after their FULLY_CONNECTED, row i at position i:
  // kRopeNone, kRopeHalf (rotate_half pairs) or kRopeInterleaved.
  int rope = 0;
  // Cross-attention (nn.MultiheadAttention(x, memory, memory)): > 0, k and v
  // are the FULLY_CONNECTED of ChainInputs::memory's n_memory rows, every
  // query row's softmax runs over the first n_valid_keys of them (not
  // causal, no window, no RoPE). 0: self-attention, keys from x.
  int n_memory = 0;
};
inline constexpr int kRopeNone = 0, kRopeHalf = 1, kRopeInterleaved = 2;

// The keys query row `row` (of n_q rows over n_kv keys) sees: the first
// n_valid_keys, and when causal none past the bottom-right diagonal
// (key j <= row + n_kv - n_q); 0 when it sees none. Every test-side softmax
// takes its row length from here, apart from the library's own VisibleKeys.
inline int VisibleKeysOf(bool causal, int n_q, int n_kv, int n_valid_keys, int row) {
  if (!causal) return n_valid_keys;
  const int64_t diagonal = int64_t{row} + 1 + n_kv - n_q;
  const int64_t visible = diagonal < n_valid_keys ? diagonal : n_valid_keys;
  return visible > 0 ? static_cast<int>(visible) : 0;
}

// The first key that row sees: with a causal sliding window of `window`
// keys, none before row + n_kv - n_q - window + 1; else key 0. The row's
// softmax runs over [FirstVisibleKeyOf, VisibleKeysOf) (none when empty).
inline int FirstVisibleKeyOf(bool causal, int window, int n_q, int n_kv, int row) {
  if (!causal || window <= 0) return 0;
  const int64_t first = int64_t{row} + n_kv - n_q - window + 1;
  return first > 0 ? static_cast<int>(first) : 0;
}

template <typename SoftmaxParamsT>
struct ChainParams {
  AddParams add;
  FullyConnectedParams fc_q, fc_k, fc_v;
  BatchMatMulParams bmm_scores;
  SoftmaxParamsT softmax;
  BatchMatMulParams bmm_context;
  FullyConnectedParams fc_o;
  bool rope = false;  // prepared for RoPE (ChainQuantization::rope)
  RopeParams rope_q{}, rope_k{};
  bool cross = false;  // fc_k, fc_v prepared on the memory (ChainQuantization::cross)
};
using ChainParamsInt8 = ChainParams<SoftmaxInt8Params>;
using ChainParamsInt16 = ChainParams<SoftmaxInt16Params>;

// Every tensor's float quantization, from which PrepareChain derives ChainParams
// (each weight's per-channel scales: W_Q's and W_O's d_model, W_K's and W_V's
// kv_width = kv_heads * d_k, d_model without grouped-query heads).
struct ChainQuantization {
  TensorQuantization x_emb, pe, x, q, k, v, scores, probs, o, y;
  const float* w_q_scales;  // [d_model], per output channel
  const float* w_k_scales;  // [kv_width] each
  const float* w_v_scales;
  const float* w_o_scales;  // [d_model]
  float beta;               // 1.0f / sqrtf(d_k)
  // With RoPE: q's and k's rotations (their x is q's and k's quantization,
  // whatever is given here); the scores' BATCH_MATMUL then reads the rotated
  // q and k.
  bool rope = false;
  RopeQuantization rope_q{}, rope_k{};
  // Cross-attention: W_K's and W_V's FULLY_CONNECTED read the memory, of
  // this quantization (x_emb, pe and x are the queries').
  bool cross = false;
  TensorQuantization memory{};
};

ChainParamsInt8 PrepareChainInt8(const ChainQuantization& quantization, int d_model, int kv_width);
ChainParamsInt16 PrepareChainInt16(const ChainQuantization& quantization, int d_model, int kv_width,
                                   const int16_t* exp_lut, const int16_t* one_over_one_plus_x_lut);

template <typename Activation, typename Bias>
struct ChainInputs {
  const Activation* x_emb;  // [n, d_model]
  const Activation* pe;     // [n, d_model], quantized to its own scale; nullptr: x = x_emb
  const int8_t* w_q;        // [d_model, d_model] each, [out, in]
  const int8_t* w_k;        // W_K and W_V: [kv_heads * d_k, d_model]
  const int8_t* w_v;
  const int8_t* w_o;
  const Bias* b_q;  // [d_model] each, b_k and b_v [kv_heads * d_k] (may be null)
  const Bias* b_k;
  const Bias* b_v;
  const Bias* b_o;
  // With RoPE: the model's tables C and S [n, d_k] (row i: position i).
  const Activation* rope_cos = nullptr;
  const Activation* rope_sin = nullptr;
  // Cross-attention: [n_memory, d_model], as it is (no positions added).
  const Activation* memory = nullptr;
};

template <typename Activation>
struct ChainTensors {
  std::vector<Activation> x, q, k, v;                   // [n, d_model]; k, v [n_kv, kv_heads * d_k]
                                                        // (q, k rotated with RoPE)
  std::vector<std::vector<Activation>> scores;          // per head [n, n_kv], no mask applied
  std::vector<std::vector<Activation>> probs;           // per head [n, n_kv]; masked = minimum
  std::vector<Activation> o;                            // [n, d_model], head h in columns h*d_k..
  std::vector<Activation> y;                            // [n, d_model]
  std::vector<SoftmaxInt8RowInfo> softmax_int8_rows;    // int8 chain: heads * n rows
  std::vector<SoftmaxInt16RowInfo> softmax_int16_rows;  // int16 chain: heads * n rows
};

// n_kv: n, or n_memory for cross-attention. A shape that disagrees with the
// params or inputs (RoPE, cross) gives no tensors.
// Mask convention (the golden data's causal one): row i is the softmax of the
// keys it sees alone (j <= i when causal, j < n_valid_keys); the other entries
// get the output minimum (-128 / 0), every entry of a row that sees none.
ChainTensors<int8_t> RunChainInt8(const ChainShape& shape, const ChainParamsInt8& params,
                                  const ChainInputs<int8_t, int32_t>& inputs);
ChainTensors<int16_t> RunChainInt16(const ChainShape& shape, const ChainParamsInt16& params,
                                    const ChainInputs<int16_t, int64_t>& inputs);

}  // namespace tflite_ref

#endif  // EDGEATTN_TESTS_REFERENCE_TFLITE_CHAIN_REFERENCE_H_
