// The sinusoidal position table of "Attention Is All You Need", filled at plan
// time when no precomputed table (edgeattn::SinusoidalTable, in flash) was
// given: the values of edgeattn::ForEachSinusoid (sinusoidal_table.hpp), so a
// filled table equals the compile-time one.
#include "edgeattn/sinusoidal_table.hpp"
#include "edgeattn/edgeattn.h"
#include "runtime/validation.h"

extern "C" ea_status ea_sinusoidal_table_fill(float* table, int32_t n_positions, int32_t d_model) {
  if (table == nullptr) return EA_ERR_NULL_POINTER;
  if (n_positions <= 0 || d_model <= 0) return EA_ERR_BAD_DIMENSION;
  if (edgeattn::CheckElements(n_positions, d_model) != EA_OK) return EA_ERR_DIMENSION_OVERFLOW;
  edgeattn::ForEachSinusoid(n_positions, d_model, [&](int32_t pos, int32_t column, float value) {
    table[static_cast<size_t>(pos) * static_cast<size_t>(d_model) + static_cast<size_t>(column)] =
        value;
  });
  return EA_OK;
}
