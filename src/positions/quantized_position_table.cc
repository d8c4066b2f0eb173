#include "positions/quantized_position_table.h"

#include "edgeattn/sinusoidal_table.hpp"

namespace edgeattn {
namespace {

// The scale is positive and finite (validated), the zero point in range.
template <typename T>
void FillQuantized(int32_t n_positions, int32_t d_model, ea_quant quant, T* table) {
  ForEachSinusoid(n_positions, d_model, [&](int32_t pos, int32_t column, float value) {
    table[static_cast<size_t>(pos) * static_cast<size_t>(d_model) + static_cast<size_t>(column)] =
        QuantizePositionValue<T>(value, quant.scale, quant.zero_point);
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
