// The sinusoidal position table as compile-time constant data.
//
//   static constexpr auto kPositions = edgeattn::MakeSinusoidalTable<128, 64>();
//
// puts the [128, 64] table in .rodata (flash on a microcontroller): nothing is
// computed at start-up. Pass kPositions.values as position_table with
// EA_POSITION_SINUSOIDAL. The maths is done in double by constexpr sin, cos
// and exp (std:: ones are not constexpr in C++17) and rounded once to float;
// tests check every entry against the C library's double sin/cos. The plans
// fill their tables at plan time with the same functions: the same floats,
// and no libm in the library. MakeQuantizedSinusoidalTable gives the fixed-
// point plans' int8 / int16 table.
// Cost: about 60 constexpr steps per entry. GCC's default limit
// (-fconstexpr-ops-limit=2^25) covers some 500k entries at -O2, but under
// -fsanitize=undefined every step costs about 8x more; clang's default
// (-fconstexpr-steps=1M) covers about 15k. Raise the limit for bigger tables.
#ifndef EDGEATTN_SINUSOIDAL_TABLE_HPP_
#define EDGEATTN_SINUSOIDAL_TABLE_HPP_

#include <stdint.h>

#include <type_traits>

namespace edgeattn {
namespace constexpr_math {

// pi/2 split in two doubles, high + low (Cody-Waite), so that the reduction
// x - q pi/2 carries about twice a double's precision: the high part is pi/2
// rounded to a double, the low part what that rounding dropped.
inline constexpr double kHalfPiHigh = 1.57079632679489655800;
inline constexpr double kHalfPiLow = 6.12323399573676603587e-17;  // pi/2 - kHalfPiHigh
// ln(10000): the table's wavelengths grow to 10000 * 2 pi.
inline constexpr double kLn10000 = 9.21034037197618273607;

// round / roundf: the nearest integer, ties away from zero, signed zeros kept;
// magnitudes from 2^52 (double) or 2^23 (float) on, infinities and NaN are
// returned as they are (already integers, or not numbers).
template <typename F>
constexpr F RoundHalfAwayFromZero(F x) {
  static_assert(sizeof(F) == 4 || sizeof(F) == 8, "float or double");
  using Whole = typename std::conditional<sizeof(F) == 4, int32_t, int64_t>::type;
  constexpr F kExact = sizeof(F) == 4 ? F(8388608.0) : F(4503599627370496.0);
  if (!(x > -kExact && x < kExact)) return x;
  const F whole = static_cast<F>(static_cast<Whole>(x));  // toward zero
  const F fraction = x - whole;                           // exact
  if (fraction >= F(0.5)) return whole + F(1);
  if (fraction <= F(-0.5)) return whole - F(1);
  return whole == F(0) ? x * F(0) : whole;  // round(-0.25) is -0.0
}

// floor(x + 0.5): the nearest integer, halves rounded up (the quarter turns
// of SinShifted).
constexpr double Round(double x) {
  const double shifted = x + 0.5;
  const double truncated = static_cast<double>(static_cast<int64_t>(shifted));
  return truncated > shifted ? truncated - 1.0 : truncated;
}

// Taylor series of sin (odd) or cos (even) for |r| <= pi/4: nine terms reach
// below 1e-19.
constexpr double Series(double r, bool odd) {
  double term = odd ? r : 1.0;
  double sum = term;
  for (int k = 1; k <= 9; ++k) {
    const double n = odd ? 2.0 * k + 1.0 : 2.0 * k;  // the power of the new term
    term *= -r * r / ((n - 1.0) * n);
    sum += term;
  }
  return sum;
}

// sin(x + quarter_turns * pi/2): x = r + q pi/2 with |r| <= pi/4 (Cody-Waite).
constexpr double SinShifted(double x, int64_t quarter_turns) {
  const double q = Round(x / kHalfPiHigh);
  const double r = (x - q * kHalfPiHigh) - q * kHalfPiLow;
  switch ((static_cast<int64_t>(q) + quarter_turns) & 3) {
    case 0:
      return Series(r, true);
    case 1:
      return Series(r, false);
    case 2:
      return -Series(r, true);
    default:
      return -Series(r, false);
  }
}

// sin(x), in double.
constexpr double Sin(double x) { return SinShifted(x, 0); }
// cos(x), in double: sin(x + pi/2).
constexpr double Cos(double x) { return SinShifted(x, 1); }

// exp(x) for x <= 0 (here x >= -ln 10000): e^(x/16) by series, squared 4 times.
constexpr double Exp(double x) {
  const double small = x / 16.0;
  double term = 1.0;
  double sum = 1.0;
  for (int n = 1; n < 30; ++n) {
    term *= small / n;
    sum += term;
  }
  for (int i = 0; i < 4; ++i) sum *= sum;
  return sum;
}

}  // namespace constexpr_math

// Calls sink(pos, column, value) for every entry of the [n_positions, d_model]
// table: PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(same), in
// double, rounded once to float. The one definition behind the tables below
// and the plans' fill at plan time, so a table made here equals the one a plan
// fills, bit for bit, and neither needs the C library's sin, cos or pow.
template <class Sink>
constexpr void ForEachSinusoid(int32_t n_positions, int32_t d_model, Sink&& sink) {
  for (int32_t i = 0; i < d_model; i += 2) {
    const double inverse_wavelength =
        constexpr_math::Exp(-constexpr_math::kLn10000 * i / static_cast<double>(d_model));
    for (int32_t pos = 0; pos < n_positions; ++pos) {
      const double angle = pos * inverse_wavelength;
      sink(pos, i, static_cast<float>(constexpr_math::Sin(angle)));
      if (i + 1 < d_model) sink(pos, i + 1, static_cast<float>(constexpr_math::Cos(angle)));
    }
  }
}

// TFLite's QUANTIZE of one value (AffineQuantize): round(value / scale) half
// away from zero, in float, plus the zero point, clamped to T. A tiny scale may
// send the quotient to infinity, which saturates like any value out of range.
template <typename T>
constexpr T QuantizePositionValue(float value, float scale, int32_t zero_point) {
  constexpr int32_t kMin = sizeof(T) == 1 ? -128 : -32768;
  constexpr int32_t kMax = sizeof(T) == 1 ? 127 : 32767;
  float rounded = constexpr_math::RoundHalfAwayFromZero(value / scale);
  rounded = rounded < -65536.0f ? -65536.0f : (rounded > 65536.0f ? 65536.0f : rounded);
  const int32_t q = static_cast<int32_t>(rounded) + zero_point;
  return static_cast<T>(q < kMin ? kMin : (q > kMax ? kMax : q));
}

// The [kPositions, kDModel] float table that MakeSinusoidalTable fills.
template <int32_t kPositions, int32_t kDModel>
struct SinusoidalTable {
  static_assert(kPositions > 0 && kDModel > 0, "table dimensions must be positive");
  // The table, row-major: a position_table for EA_POSITION_SINUSOIDAL.
  float values[static_cast<int64_t>(kPositions) * kDModel];
};

// The sinusoidal table, computed at compile time (see the top of this file).
template <int32_t kPositions, int32_t kDModel>
constexpr SinusoidalTable<kPositions, kDModel> MakeSinusoidalTable() {
  SinusoidalTable<kPositions, kDModel> table{};
  ForEachSinusoid(kPositions, kDModel, [&table](int32_t pos, int32_t column, float value) {
    table.values[static_cast<int64_t>(pos) * kDModel + column] = value;
  });
  return table;
}

// The table quantized to int8 or int16 for the fixed-point plans, as their
// fill at plan time quantizes it (quant_params->position or
// quant_scales->position), for
// config->quant_position_table:
//   static constexpr auto kP = edgeattn::MakeQuantizedSinusoidalTable<int8_t, 128, 64>(1.0f / 128,
//   0);
// scale positive and finite, zero point in T's range (0 for int16), as the
// plans require of a table's quantization.
template <typename T, int32_t kPositions, int32_t kDModel>
struct QuantizedSinusoidalTable {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2, "int8_t or int16_t");
  static_assert(kPositions > 0 && kDModel > 0, "table dimensions must be positive");
  // The table, row-major: a quant_position_table of T's dtype.
  T values[static_cast<int64_t>(kPositions) * kDModel];
};

// The sinusoidal table quantized to scale and zero_point (TFLite's QUANTIZE
// of each entry, QuantizePositionValue), computed at compile time.
template <typename T, int32_t kPositions, int32_t kDModel>
constexpr QuantizedSinusoidalTable<T, kPositions, kDModel> MakeQuantizedSinusoidalTable(
    float scale, int32_t zero_point) {
  QuantizedSinusoidalTable<T, kPositions, kDModel> table{};
  ForEachSinusoid(kPositions, kDModel, [&](int32_t pos, int32_t column, float value) {
    table.values[static_cast<int64_t>(pos) * kDModel + column] =
        QuantizePositionValue<T>(value, scale, zero_point);
  });
  return table;
}

}  // namespace edgeattn

#endif  // EDGEATTN_SINUSOIDAL_TABLE_HPP_
