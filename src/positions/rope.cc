// Rotary position embedding (edgeattn/rope.h). Scalar on purpose: a decode
// step rotates (n_heads + n_kv_heads) * d_head values of one token, against
// the whole KV cache the step reads, and the rotation is then the same
// rounding on every target.
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "edgeattn/rope.h"
#include "positions/rope_rules.h"
#include "runtime/validation.h"

extern "C" {

ea_status ea_rope_table_fill(float* table, int32_t n_positions, int32_t d_head, float base) {
  if (table == nullptr) return EA_ERR_NULL_POINTER;
  if (n_positions <= 0 || d_head <= 0 || d_head % 2 != 0) return EA_ERR_BAD_DIMENSION;
  if (!(base > 1.0f && base <= 3.40282347e38f)) return EA_ERR_BAD_ARGUMENT;
  if (edgeattn::CheckElements(n_positions, d_head) != EA_OK) return EA_ERR_DIMENSION_OVERFLOW;
  for (int32_t i = 0; i < d_head; i += 2) {
    const double inverse_wavelength =
        pow(static_cast<double>(base), -static_cast<double>(i) / d_head);
    for (int32_t pos = 0; pos < n_positions; ++pos) {
      const double angle = pos * inverse_wavelength;
      float* entry =
          table + static_cast<size_t>(pos) * static_cast<size_t>(d_head) + static_cast<size_t>(i);
      entry[0] = static_cast<float>(sin(angle));
      entry[1] = static_cast<float>(cos(angle));
    }
  }
  return EA_OK;
}

ea_status ea_rope_apply(float* x, int32_t n_tokens, int32_t n_heads, int32_t d_head,
                        int64_t first_position, const float* table, int32_t table_positions,
                        ea_rope_layout layout) {
  if (x == nullptr || table == nullptr) return EA_ERR_NULL_POINTER;
  const ea_status shape =
      edgeattn::CheckRopeShape(n_tokens, n_heads, d_head, first_position, table_positions, layout);
  if (shape != EA_OK) return shape;
  const int64_t row = int64_t{n_heads} * d_head;
  if (edgeattn::Overlaps(x, edgeattn::FloatBytes(n_tokens * row), table,
                         edgeattn::FloatBytes(int64_t{table_positions} * d_head))) {
    return EA_ERR_BAD_ARGUMENT;
  }
  const size_t half = static_cast<size_t>(d_head) / 2;
  for (int32_t t = 0; t < n_tokens; ++t) {
    const float* angles =
        table + static_cast<size_t>(first_position + t) * static_cast<size_t>(d_head);
    for (int32_t h = 0; h < n_heads; ++h) {
      float* head = x + static_cast<size_t>(t) * static_cast<size_t>(row) +
                    static_cast<size_t>(h) * static_cast<size_t>(d_head);
      for (size_t i = 0; i < half; ++i) {
        const float sine = angles[2 * i];
        const float cosine = angles[2 * i + 1];
        float* a = layout == EA_ROPE_HALF ? head + i : head + 2 * i;
        float* b = layout == EA_ROPE_HALF ? head + i + half : head + 2 * i + 1;
        const float a0 = *a;
        const float b0 = *b;
        *a = a0 * cosine - b0 * sine;
        *b = a0 * sine + b0 * cosine;
      }
    }
  }
  return EA_OK;
}

}  // extern "C"
