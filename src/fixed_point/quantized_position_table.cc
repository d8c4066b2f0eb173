#include "fixed_point/quantized_position_table.h"

#include <math.h>

#include "sinusoid_values.h"

namespace edgeattn {
namespace {

template <typename T>
void FillQuantized(int32_t n_positions, int32_t d_model, ea_quant quant, T* table) {
  constexpr int32_t kMin = sizeof(T) == 1 ? -128 : -32768;
  constexpr int32_t kMax = sizeof(T) == 1 ? 127 : 32767;
  ForEachSinusoid(n_positions, d_model, [&](int32_t pos, int32_t column, float value) {
    // The scale is positive and finite (validated); a tiny one may send the
    // quotient to infinity, which saturates like any out-of-range value.
    float rounded = roundf(value / quant.scale);
    rounded = rounded < -65536.0f ? -65536.0f : (rounded > 65536.0f ? 65536.0f : rounded);
    const int32_t q = static_cast<int32_t>(rounded) + quant.zero_point;
    table[static_cast<size_t>(pos) * static_cast<size_t>(d_model) + static_cast<size_t>(column)] =
        static_cast<T>(q < kMin ? kMin : (q > kMax ? kMax : q));
  });
}

}  // namespace

void FillQuantizedSinusoidS8(int32_t n_positions, int32_t d_model, ea_quant quant, int8_t* table) {
  FillQuantized(n_positions, d_model, quant, table);
}

void FillQuantizedSinusoidS16(int32_t n_positions, int32_t d_model, ea_quant quant,
                              int16_t* table) {
  FillQuantized(n_positions, d_model, quant, table);
}

}  // namespace edgeattn
