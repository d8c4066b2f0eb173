// The sinusoidal position table of "Attention Is All You Need":
//   PE(pos, 2i) = sin(pos / 10000^(2i/d)),  PE(pos, 2i+1) = cos(pos / 10000^(2i/d)),
// computed in double and rounded once to float. Used at plan time when no
// precomputed table (edgeattn::SinusoidalTable, in flash) was given.
#include <math.h>

#include "edgeattn/edgeattn.h"
#include "validation.h"

extern "C" ea_status ea_sinusoidal_table_fill(float* table, int32_t n_positions, int32_t d_model) {
  if (table == nullptr) return EA_ERR_NULL_POINTER;
  if (n_positions <= 0 || d_model <= 0) return EA_ERR_BAD_DIMENSION;
  if (edgeattn::CheckElements(n_positions, d_model) != EA_OK) return EA_ERR_DIMENSION_OVERFLOW;
  for (int32_t i = 0; i < d_model; i += 2) {
    const double inverse_wavelength = pow(10000.0, -static_cast<double>(i) / d_model);
    for (int32_t pos = 0; pos < n_positions; ++pos) {
      const double angle = pos * inverse_wavelength;
      float* row = table + static_cast<size_t>(pos) * static_cast<size_t>(d_model);
      row[i] = static_cast<float>(sin(angle));
      if (i + 1 < d_model) row[i + 1] = static_cast<float>(cos(angle));
    }
  }
  return EA_OK;
}
