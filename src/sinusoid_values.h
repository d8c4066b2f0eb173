// The sinusoidal position encoding, value by value: one definition for the
// float table (sinusoidal_table.cc) and the quantized one the fixed-point
// plans fill (fixed_point/quantized_position_table.cc), so both see the same
// floats. PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(same),
// computed in double and rounded once to float.
#ifndef EDGEATTN_SRC_SINUSOID_VALUES_H_
#define EDGEATTN_SRC_SINUSOID_VALUES_H_

#include <math.h>
#include <stdint.h>

namespace edgeattn {

// Calls sink(pos, column, value) for every entry of the [n_positions, d_model] table.
template <class Sink>
void ForEachSinusoid(int32_t n_positions, int32_t d_model, Sink&& sink) {
  for (int32_t i = 0; i < d_model; i += 2) {
    const double inverse_wavelength = pow(10000.0, -static_cast<double>(i) / d_model);
    for (int32_t pos = 0; pos < n_positions; ++pos) {
      const double angle = pos * inverse_wavelength;
      sink(pos, i, static_cast<float>(sin(angle)));
      if (i + 1 < d_model) sink(pos, i + 1, static_cast<float>(cos(angle)));
    }
  }
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_SINUSOID_VALUES_H_
