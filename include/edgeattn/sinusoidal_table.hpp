// The sinusoidal position table as compile-time constant data.
//
//   static constexpr auto kPositions = edgeattn::MakeSinusoidalTable<128, 64>();
//
// puts the [128, 64] table in .rodata (flash on a microcontroller): nothing is
// computed at start-up. Pass kPositions.values as position_table with
// EA_POSITION_SINUSOIDAL. The maths is done in double by constexpr sin, cos
// and exp (std:: ones are not constexpr in C++17) and rounded once to float;
// tests check every entry against the C library's double sin/cos.
// Cost: about 60 constexpr steps per entry. GCC's default limit
// (-fconstexpr-ops-limit=2^25) covers some 500k entries at -O2, but under
// -fsanitize=undefined every step costs about 8x more; clang's default
// (-fconstexpr-steps=1M) covers about 15k. Raise the limit for bigger tables.
#ifndef EDGEATTN_SINUSOIDAL_TABLE_HPP_
#define EDGEATTN_SINUSOIDAL_TABLE_HPP_

#include <stdint.h>

namespace edgeattn {
namespace constexpr_math {

inline constexpr double kHalfPiHigh = 1.57079632679489655800;     // pi/2, split for
inline constexpr double kHalfPiLow = 6.12323399573676603587e-17;  // exact reduction
inline constexpr double kLn10000 = 9.21034037197618273607;

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

constexpr double Sin(double x) { return SinShifted(x, 0); }
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

template <int32_t kPositions, int32_t kDModel>
struct SinusoidalTable {
  static_assert(kPositions > 0 && kDModel > 0, "table dimensions must be positive");
  float values[static_cast<int64_t>(kPositions) * kDModel];
};

template <int32_t kPositions, int32_t kDModel>
constexpr SinusoidalTable<kPositions, kDModel> MakeSinusoidalTable() {
  SinusoidalTable<kPositions, kDModel> table{};
  for (int32_t i = 0; i < kDModel; i += 2) {
    const double inverse_wavelength =
        constexpr_math::Exp(-constexpr_math::kLn10000 * i / static_cast<double>(kDModel));
    for (int32_t pos = 0; pos < kPositions; ++pos) {
      const double angle = pos * inverse_wavelength;
      table.values[static_cast<int64_t>(pos) * kDModel + i] =
          static_cast<float>(constexpr_math::Sin(angle));
      if (i + 1 < kDModel) {
        table.values[static_cast<int64_t>(pos) * kDModel + i + 1] =
            static_cast<float>(constexpr_math::Cos(angle));
      }
    }
  }
  return table;
}

}  // namespace edgeattn

#endif  // EDGEATTN_SINUSOIDAL_TABLE_HPP_
