// A model's RoPE tables C and S [positions, d_head] (edgeattn/rope.h's
// fixed-point layout: the sign of rotate_half in S) from the angles
// position * 10000^(-2i / d_head) in double, and their quantization (round
// half to even, clamped), for the tests of the fixed-point RoPE and of the
// chain reference that uses it.
#ifndef EDGEATTN_TESTS_REFERENCE_QUANT_ROPE_TABLES_H_
#define EDGEATTN_TESTS_REFERENCE_QUANT_ROPE_TABLES_H_

#include <stdint.h>

#include <cmath>
#include <vector>

#include "edgeattn/edgeattn.h"

namespace edgeattn_test {

struct RopeTables {
  std::vector<double> cos, sin;
};

inline RopeTables ExactRopeTables(int32_t positions, int32_t d_head, bool interleaved) {
  RopeTables t;
  for (int32_t p = 0; p < positions; ++p) {
    for (int32_t i = 0; i < d_head; ++i) {
      const int32_t pair = interleaved ? i / 2 : i % (d_head / 2);
      const double angle = static_cast<double>(p) * std::pow(10000.0, -2.0 * pair / d_head);
      const bool first = interleaved ? i % 2 == 0 : i < d_head / 2;
      t.cos.push_back(std::cos(angle));
      t.sin.push_back(first ? -std::sin(angle) : std::sin(angle));
    }
  }
  return t;
}

template <typename T>
std::vector<T> QuantizeTable(const std::vector<double>& values, ea_quant q) {
  constexpr double kMin = sizeof(T) == 1 ? -128.0 : -32768.0;
  constexpr double kMax = sizeof(T) == 1 ? 127.0 : 32767.0;
  std::vector<T> codes;
  for (double v : values) {
    const double code = std::nearbyint(v / q.scale) + q.zero_point;
    codes.push_back(static_cast<T>(std::fmin(kMax, std::fmax(kMin, code))));
  }
  return codes;
}

// The tables' quantization: zero point 0, 1/127 (int8) or 1/32767 (int16).
template <typename T>
ea_quant RopeTableQuant() {
  return ea_quant{sizeof(T) == 1 ? 1.0f / 127 : 1.0f / 32767, 0};
}

}  // namespace edgeattn_test

#endif  // EDGEATTN_TESTS_REFERENCE_QUANT_ROPE_TABLES_H_
