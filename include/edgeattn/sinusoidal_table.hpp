// The sinusoidal position table as compile-time constant data.
//
//   static constexpr auto kPositions = edgeattn::MakeSinusoidalTable<128, 64>();
//
// puts the [128, 64] table in .rodata (flash on a microcontroller): nothing is
// computed at start-up. Pass kPositions.values as position_table with
// EA_POSITION_SINUSOIDAL. The maths is done in double by constexpr sin, cos
// and exp (std:: ones are not constexpr in C++17) and rounded once to float;
// tests check every entry against the C library's double sin/cos.
#ifndef EDGEATTN_SINUSOIDAL_TABLE_HPP_
#define EDGEATTN_SINUSOIDAL_TABLE_HPP_

#include <stdint.h>

namespace edgeattn {
namespace constexpr_math {

inline constexpr double kTwoPiHigh = 6.28318530717958623200;  // 2 pi, split for
inline constexpr double kTwoPiLow = 2.44929359829470635e-16;  // exact reduction
inline constexpr double kLn10000 = 9.21034037197618273607;

constexpr double Floor(double x) {
  const double truncated = static_cast<double>(static_cast<int64_t>(x));
  return truncated > x ? truncated - 1.0 : truncated;
}

// x in [-pi, pi] from any x with |x| < 2^52 (Cody-Waite reduction).
constexpr double ReduceAngle(double x) {
  const double turns = Floor(x / kTwoPiHigh + 0.5);
  return (x - turns * kTwoPiHigh) - turns * kTwoPiLow;
}

// Taylor series around 0 of sin (odd) or cos (even) until terms vanish.
constexpr double Series(double r, bool odd) {
  double term = odd ? r : 1.0;
  double sum = term;
  for (int k = odd ? 2 : 1; k < 60; k += 1) {
    const int n = odd ? 2 * k - 1 : 2 * k;  // the power of the new term
    term *= -r * r / ((n - 1.0) * n);
    sum += term;
    if (term == 0.0) break;
  }
  return sum;
}

constexpr double Sin(double x) { return Series(ReduceAngle(x), true); }
constexpr double Cos(double x) { return Series(ReduceAngle(x), false); }

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
