// The TFLite fixed-point chain, one plain loop per formula (tflite_chain_reference.h).
// Where TFLite's C++ relies on two's-complement wrapping or implementation-defined
// shifts, this code computes in 64 bits and converts explicitly, so that sanitizer
// builds stay quiet and every target computes the same integers.
#include "reference/tflite_chain_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/tflite_rope_reference.h"

namespace tflite_ref {

namespace {

constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();

// The low 32 bits as a signed value: what TFLite's int32 arithmetic does on
// overflow (which its reference kernels avoid by their choice of shifts).
int32_t SaturateToInt32(int64_t value) {
  return value > kInt32Max ? kInt32Max
                           : (value < kInt32Min ? kInt32Min : static_cast<int32_t>(value));
}

int32_t WrapToInt32(int64_t value) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(value)));
}

template <typename T>
T ClampTo(int32_t value) {
  const int32_t lo = std::numeric_limits<T>::min();
  const int32_t hi = std::numeric_limits<T>::max();
  return static_cast<T>(std::min(std::max(value, lo), hi));
}

template <typename T>
T ClampTo(int32_t value, int32_t lo, int32_t hi) {
  return static_cast<T>(std::min(std::max(value, lo), hi));
}

}  // namespace

// --- primitives ------------------------------------------------------------------

int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == kInt32Min && b == kInt32Min) return kInt32Max;
  const int64_t product = int64_t{a} * int64_t{b};
  // Round half away from zero, then divide truncating toward zero.
  const int64_t nudge = product >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  return static_cast<int32_t>((product + nudge) / (int64_t{1} << 31));
}

int32_t RoundingDivideByPOT(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  // Ties away from zero: a negative x needs one more than half to round down.
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

int32_t SaturatingLeftShift(int32_t x, int exponent) {
  if (exponent == 0) return x;
  const int32_t threshold = static_cast<int32_t>((int64_t{1} << (31 - exponent)) - 1);
  if (x > threshold) return kInt32Max;
  if (x < -threshold) return kInt32Min;
  return WrapToInt32(int64_t{x} * (int64_t{1} << exponent));
}

int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift) {
  const int left_shift = shift > 0 ? shift : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  // TFLite's x * (1 << left_shift) is undefined once it leaves int32; the
  // project defines it as saturation (edgeattn/quant.h).
  const int32_t shifted = SaturateToInt32(int64_t{x} * (int64_t{1} << left_shift));
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(shifted, multiplier), right_shift);
}

int32_t MultiplyByQuantizedMultiplier(int64_t x, int32_t multiplier, int shift) {
  const int32_t multiplier_16bit =
      multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
  const int total_shift = 15 - shift;
  // Project definition where TFLite only DCHECKs: x clamped to its +-2^47
  // domain, the result saturated to int32 (edgeattn/quant.h).
  const int64_t limit = int64_t{1} << 47;
  const int64_t x_in_domain = x >= limit ? limit - 1 : (x < -limit ? -limit : x);
  const int64_t rounded = x_in_domain * multiplier_16bit + (int64_t{1} << (total_shift - 1));
  return SaturateToInt32(rounded >> total_shift);
}

int32_t MultiplyByQuantizedMultiplierSmallerThanOneExp(int32_t x, int32_t multiplier, int shift) {
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x, multiplier), -shift);
}

int32_t MultiplyByQuantizedMultiplierGreaterThanOne(int32_t x, int32_t multiplier, int left_shift) {
  return SaturatingRoundingDoublingHighMul(WrapToInt32(int64_t{x} * (int64_t{1} << left_shift)),
                                           multiplier);
}

int CountLeadingZeros(uint32_t x) {
  int zeros = 0;
  for (uint32_t bit = uint32_t{1} << 31; bit != 0 && (x & bit) == 0; bit >>= 1) ++zeros;
  return zeros;
}

int32_t ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl(int32_t a_q0_31) {
  const int32_t exp_minus_one_eighth = 1895147668;  // exp(-1/8) in Q0.31
  const int32_t one_third = 715827883;              // 1/3 in Q0.31
  // Taylor series of exp around -1/8 in x = a + 1/8.
  const int32_t x = a_q0_31 + (1 << 28);
  const int32_t x2 = SaturatingRoundingDoublingHighMul(x, x);
  const int32_t x3 = SaturatingRoundingDoublingHighMul(x2, x);
  const int32_t x4 = SaturatingRoundingDoublingHighMul(x2, x2);
  const int32_t x4_over_4 = RoundingDivideByPOT(x4, 2);
  const int32_t x4_over_24_plus_x3_over_6_plus_x2_over_2 =
      RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x4_over_4 + x3, one_third) + x2, 1);
  return exp_minus_one_eighth +
         SaturatingRoundingDoublingHighMul(exp_minus_one_eighth,
                                           x + x4_over_24_plus_x3_over_6_plus_x2_over_2);
}

int32_t ExpOnNegativeValues(int32_t a_q5_26) {
  const int kFractionalBits = 26;
  const int32_t one_quarter = int32_t{1} << (kFractionalBits - 2);
  // a = (a mod 1/4 - 1/4) - remainder: exp of the first part from the series,
  // then one factor exp(-2^k) per bit k set in the remainder (a multiple of 1/4).
  const int32_t a_mod_quarter_minus_one_quarter = (a_q5_26 & (one_quarter - 1)) - one_quarter;
  int32_t result = ExpOnIntervalBetweenNegativeOneQuarterAnd0Excl(
      SaturatingLeftShift(a_mod_quarter_minus_one_quarter, 5));  // Q5.26 -> Q0.31
  const int32_t remainder = a_mod_quarter_minus_one_quarter - a_q5_26;
  struct BarrelStep {
    int exponent;        // this step multiplies by exp(-2^exponent)
    int32_t multiplier;  // exp(-2^exponent) in Q0.31
  };
  const BarrelStep steps[] = {{-2, 1672461947}, {-1, 1302514674}, {0, 790015084}, {1, 290630308},
                              {2, 39332535},    {3, 720401},      {4, 242}};
  for (const BarrelStep& step : steps) {
    if (remainder & (int32_t{1} << (kFractionalBits + step.exponent))) {
      result = SaturatingRoundingDoublingHighMul(result, step.multiplier);
    }
  }
  // With 5 integer bits the input cannot reach -32, so gemmlowp's clamp to 0
  // below -32 (formats with more integer bits) never applies.
  if (a_q5_26 == 0) result = kInt32Max;  // exp(0) = 1, the largest Q0.31 value
  return result;
}

int32_t OneOverOnePlusXForXIn01(int32_t a_q0_31) {
  // half_denominator = (1 + a) / 2 in Q0.31: gemmlowp's RoundingHalfSum(a, 1).
  const int64_t sum = int64_t{a_q0_31} + kInt32Max;
  const int32_t half_denominator = static_cast<int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
  // Newton-Raphson for 1 / half_denominator in Q2.29, from 48/17 - 32/17 * d.
  const int32_t forty_eight_over_17 = 1515870810;        // Q2.29
  const int32_t minus_thirty_two_over_17 = -1010580540;  // Q2.29
  const int32_t one_q2_29 = int32_t{1} << 29;
  int32_t x = forty_eight_over_17 +
              SaturatingRoundingDoublingHighMul(half_denominator, minus_thirty_two_over_17);
  for (int i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_x = SaturatingRoundingDoublingHighMul(half_denominator, x);
    const int32_t one_minus_half_denominator_times_x = one_q2_29 - half_denominator_times_x;
    // Q2.29 * Q2.29 = Q4.27, back to Q2.29.
    x = x + SaturatingLeftShift(
                SaturatingRoundingDoublingHighMul(x, one_minus_half_denominator_times_x), 2);
  }
  // 1/(1 + a) = x / 2: the same raw value read as Q1.30, then to Q0.31.
  return SaturatingLeftShift(x, 1);
}

int32_t GetReciprocal(int32_t x, int x_integer_digits, int* num_bits_over_unit) {
  const int headroom_plus_one = CountLeadingZeros(static_cast<uint32_t>(x));
  *num_bits_over_unit = x_integer_digits - headroom_plus_one;
  // x normalized to [1, 2), minus 1, in Q0.31.
  const uint32_t normalized = static_cast<uint32_t>(x) << headroom_plus_one;
  const int32_t shifted_minus_one = static_cast<int32_t>(normalized - (uint32_t{1} << 31));
  return OneOverOnePlusXForXIn01(shifted_minus_one);
}

int16_t LutLookup(int16_t value, const int16_t* lut) {
  const int index = 256 + (value >> 7);  // 512 segments; lut[512] only gives the last slope
  const int offset = value & 0x7f;       // position inside the segment, Q0.7
  const int16_t base = lut[index];
  const int16_t slope = static_cast<int16_t>(lut[index + 1] - lut[index]);
  const int delta = (slope * offset + 64) >> 7;
  return static_cast<int16_t>(base + delta);
}

// --- ops -------------------------------------------------------------------------

namespace {

template <typename T>
std::vector<T> AddElementwise(const AddParams& p, const T* a, const T* b, size_t count) {
  std::vector<T> out(count);
  for (size_t i = 0; i < count; ++i) {
    const int32_t a_shifted = (p.input1_offset + a[i]) * (int32_t{1} << p.left_shift);
    const int32_t b_shifted = (p.input2_offset + b[i]) * (int32_t{1} << p.left_shift);
    const int32_t a_scaled = MultiplyByQuantizedMultiplierSmallerThanOneExp(
        a_shifted, p.input1_multiplier, p.input1_shift);
    const int32_t b_scaled = MultiplyByQuantizedMultiplierSmallerThanOneExp(
        b_shifted, p.input2_multiplier, p.input2_shift);
    const int32_t sum = MultiplyByQuantizedMultiplierSmallerThanOneExp(
                            a_scaled + b_scaled, p.output_multiplier, p.output_shift) +
                        p.output_offset;
    out[i] = ClampTo<T>(sum);
  }
  return out;
}

// acc + term in the accumulator's type. TFLite's int32 accumulator overflows
// as undefined behaviour; the project defines it as wrapping modulo 2^32 (what
// two's complement hardware does, and what the SIMD kernels give).
inline int32_t Accumulate(int32_t acc, int64_t term) {
  return static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(term));
}
inline int64_t Accumulate(int64_t acc, int64_t term) { return acc + term; }

// The requantised value plus the zero point, clamped to T: TFLite adds in
// int32 (undefined past INT32_MAX); the project saturates.
template <typename T>
T WithZeroPoint(int32_t scaled, int32_t zero_point) {
  const int64_t sum = int64_t{scaled} + zero_point;
  return static_cast<T>(std::min<int64_t>(std::max<int64_t>(sum, std::numeric_limits<T>::min()),
                                          std::numeric_limits<T>::max()));
}

template <typename Accumulator, typename Input, typename Bias>
std::vector<Input> FullyConnected(const FullyConnectedParams& p, const Input* input, int rows,
                                  int in_features, const int8_t* weights, const Bias* bias,
                                  int out_features) {
  std::vector<Input> out(static_cast<size_t>(rows) * out_features);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < out_features; ++c) {
      Accumulator acc = bias ? Accumulator{bias[c]} : Accumulator{0};
      for (int i = 0; i < in_features; ++i) {
        const int32_t x = input[static_cast<size_t>(r) * in_features + i] + p.input_offset;
        acc = Accumulate(acc, int64_t{weights[static_cast<size_t>(c) * in_features + i]} * x);
      }
      const int32_t scaled = MultiplyByQuantizedMultiplier(acc, p.multiplier[c], p.shift[c]);
      out[static_cast<size_t>(r) * out_features + c] =
          WithZeroPoint<Input>(scaled, p.output_offset);
    }
  }
  return out;
}

template <typename Accumulator, typename T>
std::vector<T> MatMulTransposedRhs(const BatchMatMulParams& p, const T* lhs, int rows, int depth,
                                   const T* rhs_t, int cols) {
  std::vector<T> out(static_cast<size_t>(rows) * cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      Accumulator acc = 0;
      for (int t = 0; t < depth; ++t) {
        const Accumulator a = Accumulator{lhs[static_cast<size_t>(i) * depth + t]} + p.lhs_offset;
        const Accumulator b = Accumulator{rhs_t[static_cast<size_t>(j) * depth + t]} + p.rhs_offset;
        acc = Accumulate(acc, int64_t{a} * b);
      }
      const int32_t scaled =
          MultiplyByQuantizedMultiplier(acc, p.output_multiplier, p.output_shift);
      out[static_cast<size_t>(i) * cols + j] = WithZeroPoint<T>(scaled, p.output_offset);
    }
  }
  return out;
}

}  // namespace

std::vector<int8_t> Add(const AddParams& params, const int8_t* a, const int8_t* b, size_t count) {
  return AddElementwise(params, a, b, count);
}

std::vector<int16_t> Add(const AddParams& params, const int16_t* a, const int16_t* b,
                         size_t count) {
  return AddElementwise(params, a, b, count);
}

namespace {

template <typename T>
std::vector<T> MulElementwise(const MulParams& p, const T* a, const T* b, size_t count) {
  constexpr int32_t kMin = std::numeric_limits<T>::min();
  constexpr int32_t kMax = std::numeric_limits<T>::max();
  std::vector<T> out(count);
  for (size_t i = 0; i < count; ++i) {
    const int32_t input1 = p.input1_offset + a[i];
    const int32_t input2 = p.input2_offset + b[i];
    const int64_t unclamped =
        int64_t{p.output_offset} +
        MultiplyByQuantizedMultiplier(input1 * input2, p.output_multiplier, p.output_shift);
    out[i] = static_cast<T>(std::min<int64_t>(kMax, std::max<int64_t>(kMin, unclamped)));
  }
  return out;
}

}  // namespace

std::vector<int8_t> Mul(const MulParams& params, const int8_t* a, const int8_t* b, size_t count) {
  return MulElementwise(params, a, b, count);
}

std::vector<int16_t> Mul(const MulParams& params, const int16_t* a, const int16_t* b,
                         size_t count) {
  return MulElementwise(params, a, b, count);
}

std::vector<int8_t> FullyConnectedPerChannel(const FullyConnectedParams& params,
                                             const int8_t* input, int rows, int in_features,
                                             const int8_t* weights, const int32_t* bias,
                                             int out_features) {
  return FullyConnected<int32_t>(params, input, rows, in_features, weights, bias, out_features);
}

std::vector<int16_t> FullyConnectedPerChannel(const FullyConnectedParams& params,
                                              const int16_t* input, int rows, int in_features,
                                              const int8_t* weights, const int64_t* bias,
                                              int out_features) {
  return FullyConnected<int64_t>(params, input, rows, in_features, weights, bias, out_features);
}

std::vector<int8_t> BatchMatMul(const BatchMatMulParams& params, const int8_t* lhs, int rows,
                                int depth, const int8_t* rhs_t, int cols) {
  return MatMulTransposedRhs<int32_t>(params, lhs, rows, depth, rhs_t, cols);
}

std::vector<int16_t> BatchMatMul(const BatchMatMulParams& params, const int16_t* lhs, int rows,
                                 int depth, const int16_t* rhs_t, int cols) {
  return MatMulTransposedRhs<int64_t>(params, lhs, rows, depth, rhs_t, cols);
}

SoftmaxInt8RowInfo SoftmaxInt8Row(const SoftmaxInt8Params& params, const int8_t* input, int len,
                                  int8_t* output) {
  const int kAccumulationIntegerBits = 12;  // the sum of exps is Q12.19
  int8_t max_in_row = std::numeric_limits<int8_t>::min();
  for (int c = 0; c < len; ++c) max_in_row = std::max(max_in_row, input[c]);

  // exp(beta * s * (x - max)) in Q0.31, or -1 for entries below diff_min.
  auto exp_of = [&](int c) -> int32_t {
    const int32_t diff = int32_t{input[c]} - max_in_row;
    if (diff < params.diff_min) return -1;
    const int32_t scaled_diff_q5_26 = MultiplyByQuantizedMultiplierGreaterThanOne(
        diff, params.input_multiplier, params.input_left_shift);
    return ExpOnNegativeValues(scaled_diff_q5_26);
  };

  SoftmaxInt8RowInfo info{};
  for (int c = 0; c < len; ++c) {
    const int32_t e = exp_of(c);
    if (e < 0) {
      ++info.entries_below_diff_min;
    } else {
      info.sum_of_exps_q12_19 +=
          RoundingDivideByPOT(e, kAccumulationIntegerBits);  // Q0.31 -> Q12.19
    }
  }

  if (info.sum_of_exps_q12_19 >= kSoftmaxInt8AbortSumQ12_19) {
    // Beyond TFLite (it aborts): every probability is below half an LSB; see the header.
    int bit_length = 0;
    for (int64_t s = info.sum_of_exps_q12_19; s != 0; s >>= 1) ++bit_length;
    info.exponent = bit_length - 32 + kAccumulationIntegerBits + 31 - 8;
    info.beyond_tflite = true;
    std::fill(output, output + len, std::numeric_limits<int8_t>::min());
    return info;
  }

  int num_bits_over_unit = 0;
  const int32_t reciprocal_q0_31 = GetReciprocal(static_cast<int32_t>(info.sum_of_exps_q12_19),
                                                 kAccumulationIntegerBits, &num_bits_over_unit);
  info.exponent = num_bits_over_unit + 31 - 8;  // 8: the output's bits
  for (int c = 0; c < len; ++c) {
    const int32_t e = exp_of(c);
    if (e < 0) {
      output[c] = std::numeric_limits<int8_t>::min();
      continue;
    }
    const int32_t probability_lsb =
        RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(reciprocal_q0_31, e), info.exponent);
    output[c] = ClampTo<int8_t>(probability_lsb - 128);
  }
  return info;
}

SoftmaxInt16RowInfo SoftmaxInt16Row(const SoftmaxInt16Params& params, const int16_t* input, int len,
                                    int16_t* output) {
  int16_t max_in_row = std::numeric_limits<int16_t>::min();
  for (int c = 0; c < len; ++c) max_in_row = std::max(max_in_row, input[c]);

  SoftmaxInt16RowInfo info{};
  std::vector<int16_t> exp_q15(static_cast<size_t>(len));
  for (int c = 0; c < len; ++c) {
    const int32_t diff = int32_t{input[c]} - max_in_row;
    // [-10, 0] in real units maps to [-65535, 0], recentred to [-32768, 32767].
    const int32_t scaled_diff =
        MultiplyByQuantizedMultiplier(diff, params.input_multiplier, params.input_left_shift);
    const int32_t symmetric = scaled_diff + 32767;
    if (symmetric < -32768) ++info.entries_at_exp_minus_10;
    exp_q15[c] = LutLookup(ClampTo<int16_t>(symmetric), params.exp_lut);
    info.sum_of_exps_q15 += exp_q15[c];
  }

  // 1 / sum: normalize the sum to [1, 2) (Q1.15 after the shift), take
  // 1 / (1 + x) from the LUT on x = sum - 1 recentred to [-32768, 32767].
  const int headroom_plus_one = CountLeadingZeros(static_cast<uint32_t>(info.sum_of_exps_q15));
  const int32_t shifted_sum = static_cast<int32_t>(
      ((int64_t{info.sum_of_exps_q15} << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
  const int32_t symmetric_sum = shifted_sum - ((1 << 15) + (1 << 16));
  const int16_t reciprocal_q15 =
      LutLookup(ClampTo<int16_t>(symmetric_sum), params.one_over_one_plus_x_lut);

  const int right_shift = 31 - headroom_plus_one;
  const int64_t round = int64_t{1} << (right_shift - 1);
  for (int c = 0; c < len; ++c) {
    const int32_t result =
        WrapToInt32((int64_t{exp_q15[c]} * int64_t{reciprocal_q15} + round) >> right_shift);
    output[c] = ClampTo<int16_t>(result, 0, 32767);
  }
  return info;
}

// --- Prepare ---------------------------------------------------------------------

QuantizedMultiplier QuantizeMultiplier(double real_multiplier) {
  if (real_multiplier == 0.0) return {0, 0};
  int shift = 0;
  const double mantissa = std::frexp(real_multiplier, &shift);  // [0.5, 1)
  int64_t q_fixed = static_cast<int64_t>(std::round(mantissa * (int64_t{1} << 31)));
  if (q_fixed == (int64_t{1} << 31)) {  // the mantissa rounded up to 1.0
    q_fixed /= 2;
    ++shift;
  }
  if (shift < -31) {  // flush what would shift every bit out
    shift = 0;
    q_fixed = 0;
  }
  return {static_cast<int32_t>(q_fixed), shift};
}

QuantizedMultiplier QuantizeMultiplierSmallerThanOneExp(double real_multiplier) {
  return QuantizeMultiplier(real_multiplier);  // TFLite checks 0 < real < 1, so shift <= 0
}

QuantizedMultiplier QuantizeMultiplierGreaterThanOne(double real_multiplier) {
  return QuantizeMultiplier(real_multiplier);  // TFLite checks real > 1, so shift >= 0
}

int32_t AffineQuantize(float value, float scale, int32_t zero_point, int32_t q_min, int32_t q_max) {
  const float scaled = value / scale;
  const int32_t unclamped = static_cast<int32_t>(std::round(scaled)) + zero_point;
  return std::min(std::max(unclamped, q_min), q_max);
}

int CalculateInputRadius(int input_integer_bits, int input_left_shift, int total_signed_bits) {
  const double max_input_rescaled =
      1.0 * ((1 << input_integer_bits) - 1) *
      static_cast<double>(int64_t{1} << (total_signed_bits - input_integer_bits)) /
      static_cast<double>(int64_t{1} << input_left_shift);
  return static_cast<int>(std::floor(max_input_rescaled));
}

QuantizedMultiplier PreprocessSoftmaxScaling(double beta, double input_scale,
                                             int input_integer_bits) {
  const double max_real_multiplier = static_cast<double>((int64_t{1} << 31) - 1);
  const double real_multiplier =
      std::min(beta * input_scale * static_cast<double>(1 << (31 - input_integer_bits)),
               max_real_multiplier);
  return QuantizeMultiplierGreaterThanOne(real_multiplier);
}

MulParams PrepareMul(TensorQuantization a, TensorQuantization b, TensorQuantization out) {
  const QuantizedMultiplier m = QuantizeMultiplier(
      static_cast<double>(a.scale) * static_cast<double>(b.scale) / static_cast<double>(out.scale));
  return {-a.zero_point, -b.zero_point, out.zero_point, m.multiplier, m.shift};
}

RopeParams PrepareRope(const RopeQuantization& q, int add_left_shift) {
  return {PrepareMul(q.x, q.cos_table, q.cos_product), PrepareMul(q.x, q.sin_table, q.sin_product),
          PrepareAdd(q.cos_product, q.sin_product, q.rotated, add_left_shift)};
}

AddParams PrepareAdd(TensorQuantization a, TensorQuantization b, TensorQuantization out,
                     int left_shift) {
  const double twice_max_input_scale = 2 * static_cast<double>(std::max(a.scale, b.scale));
  const QuantizedMultiplier m1 =
      QuantizeMultiplierSmallerThanOneExp(static_cast<double>(a.scale) / twice_max_input_scale);
  const QuantizedMultiplier m2 =
      QuantizeMultiplierSmallerThanOneExp(static_cast<double>(b.scale) / twice_max_input_scale);
  const QuantizedMultiplier mo = QuantizeMultiplierSmallerThanOneExp(
      twice_max_input_scale / ((1 << left_shift) * static_cast<double>(out.scale)));
  AddParams p{};
  p.left_shift = left_shift;
  p.input1_offset = -a.zero_point;
  p.input1_multiplier = m1.multiplier;
  p.input1_shift = m1.shift;
  p.input2_offset = -b.zero_point;
  p.input2_multiplier = m2.multiplier;
  p.input2_shift = m2.shift;
  p.output_offset = out.zero_point;
  p.output_multiplier = mo.multiplier;
  p.output_shift = mo.shift;
  return p;
}

FullyConnectedParams PrepareFullyConnectedPerChannel(TensorQuantization input,
                                                     const float* weight_scales, int channels,
                                                     TensorQuantization output) {
  FullyConnectedParams p;
  p.input_offset = -input.zero_point;
  p.output_offset = output.zero_point;
  for (int c = 0; c < channels; ++c) {
    const double real = static_cast<double>(input.scale) * static_cast<double>(weight_scales[c]) /
                        static_cast<double>(output.scale);
    const QuantizedMultiplier m = QuantizeMultiplier(real);
    p.multiplier.push_back(m.multiplier);
    p.shift.push_back(m.shift);
  }
  return p;
}

BatchMatMulParams PrepareBatchMatMul(TensorQuantization lhs, TensorQuantization rhs,
                                     TensorQuantization out) {
  const float product_scale = lhs.scale * rhs.scale;  // float32, as TFLM
  const QuantizedMultiplier m =
      QuantizeMultiplier(static_cast<double>(product_scale) / static_cast<double>(out.scale));
  return {-lhs.zero_point, -rhs.zero_point, out.zero_point, m.multiplier, m.shift};
}

SoftmaxInt8Params PrepareSoftmaxInt8(float beta, float input_scale) {
  const int kScaledDiffIntegerBits = 5;
  const QuantizedMultiplier m = PreprocessSoftmaxScaling(
      static_cast<double>(beta), static_cast<double>(input_scale), kScaledDiffIntegerBits);
  return {m.multiplier, m.shift, -CalculateInputRadius(kScaledDiffIntegerBits, m.shift)};
}

SoftmaxInt16Params PrepareSoftmaxInt16(float beta, float input_scale, const int16_t* exp_lut,
                                       const int16_t* one_over_one_plus_x_lut) {
  // Scales the difference so that [-10, 0] maps to [-65535, 0].
  const double real =
      static_cast<double>(input_scale) * static_cast<double>(beta) / (10.0 / 65535.0);
  const QuantizedMultiplier m = QuantizeMultiplier(real);
  return {m.multiplier, m.shift, exp_lut, one_over_one_plus_x_lut};
}

namespace {

template <typename SoftmaxParamsT>
void PrepareLinearOps(const ChainQuantization& qn, int d_model, int kv_width, int add_left_shift,
                      ChainParams<SoftmaxParamsT>* p) {
  p->add = PrepareAdd(qn.x_emb, qn.pe, qn.x, add_left_shift);
  p->fc_q = PrepareFullyConnectedPerChannel(qn.x, qn.w_q_scales, d_model, qn.q);
  const TensorQuantization kv_input = qn.cross ? qn.memory : qn.x;
  p->fc_k = PrepareFullyConnectedPerChannel(kv_input, qn.w_k_scales, kv_width, qn.k);
  p->fc_v = PrepareFullyConnectedPerChannel(kv_input, qn.w_v_scales, kv_width, qn.v);
  p->cross = qn.cross;
  p->rope = qn.rope;
  if (qn.rope) {
    RopeQuantization rope_q = qn.rope_q, rope_k = qn.rope_k;
    rope_q.x = qn.q;
    rope_k.x = qn.k;
    p->rope_q = PrepareRope(rope_q, add_left_shift);
    p->rope_k = PrepareRope(rope_k, add_left_shift);
    p->bmm_scores = PrepareBatchMatMul(rope_q.rotated, rope_k.rotated, qn.scores);
  } else {
    p->bmm_scores = PrepareBatchMatMul(qn.q, qn.k, qn.scores);
  }
  p->bmm_context = PrepareBatchMatMul(qn.probs, qn.v, qn.o);
  p->fc_o = PrepareFullyConnectedPerChannel(qn.o, qn.w_o_scales, d_model, qn.y);
}

}  // namespace

ChainParamsInt8 PrepareChainInt8(const ChainQuantization& quantization, int d_model, int kv_width) {
  ChainParamsInt8 p;
  PrepareLinearOps(quantization, d_model, kv_width, 20, &p);
  p.softmax = PrepareSoftmaxInt8(quantization.beta, quantization.scores.scale);
  return p;
}

ChainParamsInt16 PrepareChainInt16(const ChainQuantization& quantization, int d_model, int kv_width,
                                   const int16_t* exp_lut, const int16_t* one_over_one_plus_x_lut) {
  ChainParamsInt16 p;
  PrepareLinearOps(quantization, d_model, kv_width, 15, &p);
  p.softmax = PrepareSoftmaxInt16(quantization.beta, quantization.scores.scale, exp_lut,
                                  one_over_one_plus_x_lut);
  return p;
}

// --- the chain -------------------------------------------------------------------

namespace {

// Columns first .. first + count - 1 of a [rows, cols] matrix, as [rows, count].
template <typename T>
std::vector<T> ColumnSlice(const std::vector<T>& m, int rows, int cols, int first, int count) {
  std::vector<T> slice(static_cast<size_t>(rows) * count);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < count; ++c) {
      slice[static_cast<size_t>(r) * count + c] = m[static_cast<size_t>(r) * cols + first + c];
    }
  }
  return slice;
}

template <typename T>
std::vector<T> Transpose(const std::vector<T>& m, int rows, int cols) {
  std::vector<T> t(m.size());
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      t[static_cast<size_t>(c) * rows + r] = m[static_cast<size_t>(r) * cols + c];
    }
  }
  return t;
}

void SoftmaxRow(const SoftmaxInt8Params& p, const int8_t* in, int len, int8_t* out,
                ChainTensors<int8_t>* t) {
  t->softmax_int8_rows.push_back(SoftmaxInt8Row(p, in, len, out));
}

void SoftmaxRow(const SoftmaxInt16Params& p, const int16_t* in, int len, int16_t* out,
                ChainTensors<int16_t>* t) {
  t->softmax_int16_rows.push_back(SoftmaxInt16Row(p, in, len, out));
}

template <typename Activation, typename Bias, typename SoftmaxParamsT>
ChainTensors<Activation> RunChain(const ChainShape& shape,
                                  const ChainParams<SoftmaxParamsT>& params,
                                  const ChainInputs<Activation, Bias>& in,
                                  Activation probability_zero) {
  const int n = shape.n;
  const int d = shape.d_model;
  const int d_k = d / shape.heads;
  const int kv_heads = shape.kv_heads > 0 ? shape.kv_heads : shape.heads;
  const int group = shape.heads / kv_heads;
  const int d_kv = kv_heads * d_k;  // k's and v's channels
  const bool cross = shape.n_memory > 0;
  const int n_kv = cross ? shape.n_memory : n;
  const size_t n_scores = static_cast<size_t>(n) * n_kv;
  ChainTensors<Activation> t;
  // Not a grouping, or RoPE in the shape but not in the params or the
  // inputs (or the other way round): no tensors (every comparison fails).
  if (kv_heads > shape.heads || shape.heads % kv_heads != 0) return t;
  const bool rope = shape.rope != kRopeNone;
  if (rope != params.rope || (rope && (in.rope_cos == nullptr || in.rope_sin == nullptr))) {
    return t;
  }
  if (cross != params.cross ||
      (cross && (in.memory == nullptr || shape.causal || shape.window != 0 || rope))) {
    return t;
  }
  // Without a position table the chain starts at FULLY_CONNECTED: x = x_emb.
  t.x = in.pe != nullptr ? Add(params.add, in.x_emb, in.pe, static_cast<size_t>(n) * d)
                         : std::vector<Activation>(in.x_emb, in.x_emb + static_cast<size_t>(n) * d);
  t.q = FullyConnectedPerChannel(params.fc_q, t.x.data(), n, d, in.w_q, in.b_q, d);
  const Activation* kv_source = cross ? in.memory : t.x.data();
  t.k = FullyConnectedPerChannel(params.fc_k, kv_source, n_kv, d, in.w_k, in.b_k, d_kv);
  t.v = FullyConnectedPerChannel(params.fc_v, kv_source, n_kv, d, in.w_v, in.b_v, d_kv);
  if (rope) {
    const bool interleaved = shape.rope == kRopeInterleaved;
    t.q = Rope(params.rope_q, t.q.data(), n, shape.heads, d_k, 0, in.rope_cos, in.rope_sin,
               interleaved);
    t.k =
        Rope(params.rope_k, t.k.data(), n, kv_heads, d_k, 0, in.rope_cos, in.rope_sin, interleaved);
  }
  t.o.assign(static_cast<size_t>(n) * d, 0);

  for (int h = 0; h < shape.heads; ++h) {
    const std::vector<Activation> q_h = ColumnSlice(t.q, n, d, h * d_k, d_k);
    const int kv_head = h / group;
    const std::vector<Activation> k_h = ColumnSlice(t.k, n_kv, d_kv, kv_head * d_k, d_k);
    const std::vector<Activation> v_h = ColumnSlice(t.v, n_kv, d_kv, kv_head * d_k, d_k);

    std::vector<Activation> scores =
        BatchMatMul(params.bmm_scores, q_h.data(), n, d_k, k_h.data(), n_kv);
    std::vector<Activation> probs(n_scores, probability_zero);
    for (int i = 0; i < n; ++i) {
      const int first = FirstVisibleKeyOf(shape.causal, shape.window, n, n_kv, i);
      const int visible = VisibleKeysOf(shape.causal, n, n_kv, shape.n_valid_keys, i);
      if (visible <= first) continue;  // every probability at the minimum
      const size_t row = static_cast<size_t>(i) * n_kv + static_cast<size_t>(first);
      SoftmaxRow(params.softmax, &scores[row], visible - first, &probs[row], &t);
    }

    const std::vector<Activation> v_h_t = Transpose(v_h, n_kv, d_k);  // [d_k, n_kv]
    const std::vector<Activation> o_h =
        BatchMatMul(params.bmm_context, probs.data(), n, n_kv, v_h_t.data(), d_k);
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < d_k; ++c) {
        t.o[static_cast<size_t>(r) * d + h * d_k + c] = o_h[static_cast<size_t>(r) * d_k + c];
      }
    }
    t.scores.push_back(std::move(scores));
    t.probs.push_back(std::move(probs));
  }

  t.y = FullyConnectedPerChannel(params.fc_o, t.o.data(), n, d, in.w_o, in.b_o, d);
  return t;
}

}  // namespace

ChainTensors<int8_t> RunChainInt8(const ChainShape& shape, const ChainParamsInt8& params,
                                  const ChainInputs<int8_t, int32_t>& inputs) {
  return RunChain(shape, params, inputs, std::numeric_limits<int8_t>::min());
}

ChainTensors<int16_t> RunChainInt16(const ChainShape& shape, const ChainParamsInt16& params,
                                    const ChainInputs<int16_t, int64_t>& inputs) {
  return RunChain(shape, params, inputs, int16_t{0});
}

}  // namespace tflite_ref
