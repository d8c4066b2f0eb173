#include "runtime/validation.h"

#include "edgeattn/arena_sizes.hpp"

namespace edgeattn {

ea_status CheckFloatDtype(ea_dtype dtype) {
  return dtype == EA_DTYPE_F32 ? EA_OK : EA_ERR_BAD_ARGUMENT;
}

ea_status CheckPositive(int32_t a, int32_t b, int32_t c, int32_t d) {
  return (a > 0 && b > 0 && c > 0 && d > 0) ? EA_OK : EA_ERR_BAD_DIMENSION;
}

ea_status CheckElements(int64_t rows, int64_t cols) {
  // A division, not rows * cols: callers may pass scaled dimensions (3 *
  // d_model) whose product would leave int64.
  return rows <= EA_MAX_ELEMENTS / cols ? EA_OK : EA_ERR_DIMENSION_OVERFLOW;
}

ea_status CheckMask(ea_mask mask) {
  return (mask == EA_MASK_NONE || mask == EA_MASK_CAUSAL) ? EA_OK : EA_ERR_BAD_ARGUMENT;
}

ea_status CheckPanelElements(int64_t n_rows, int64_t n_cols) {
  return CheckElements(static_cast<int64_t>(RoundUp(static_cast<uint64_t>(n_rows), kKeyBlock)),
                       n_cols);
}

ea_status CheckWeightMatrix(ea_weights_layout layout, int32_t n_out, int32_t n_in) {
  if (layout != EA_WEIGHTS_ROW_MAJOR && layout != EA_WEIGHTS_PACKED) return EA_ERR_BAD_ARGUMENT;
  return CheckPanelElements(n_out, n_in);
}

ea_status CheckPosition(ea_position position, const float* table) {
  switch (position) {
    case EA_POSITION_NONE:
    case EA_POSITION_SINUSOIDAL:
      return EA_OK;
    case EA_POSITION_LEARNED:
      return table != nullptr ? EA_OK : EA_ERR_NULL_POINTER;
    default:
      return EA_ERR_BAD_ARGUMENT;
  }
}

ea_status ToSize(uint64_t bytes, size_t* out) {
  if (bytes > static_cast<uint64_t>(SIZE_MAX)) return EA_ERR_DIMENSION_OVERFLOW;
  *out = static_cast<size_t>(bytes);
  return EA_OK;
}

ea_status CheckModelRun(uint32_t ready, int32_t n_tokens, int32_t max_tokens, int32_t n_valid_keys,
                        const float* y, int32_t y_cols, const float* attn_weights,
                        int32_t weight_matrices) {
  if (ready != EA_PLAN_READY) return EA_ERR_BAD_ARGUMENT;
  if (n_tokens <= 0 || n_tokens > max_tokens) return EA_ERR_BAD_DIMENSION;
  if (n_valid_keys < 0 || n_valid_keys > n_tokens) return EA_ERR_BAD_ARGUMENT;
  if (attn_weights == nullptr) return EA_OK;
  // n_tokens is now in (0, INT32_MAX]: the product fits in 64 bits.
  const int64_t weight_elements = static_cast<int64_t>(weight_matrices) * n_tokens * n_tokens;
  if (weight_elements > EA_MAX_ELEMENTS) return EA_ERR_DIMENSION_OVERFLOW;
  if (Overlaps(y, FloatBytes(int64_t{n_tokens} * y_cols), attn_weights,
               FloatBytes(weight_elements))) {
    return EA_ERR_BAD_ARGUMENT;
  }
  return EA_OK;
}

bool OverlapsAny(Extent range, const Extent* extents, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (Overlaps(range.begin, range.bytes, extents[i].begin, extents[i].bytes)) return true;
  }
  return false;
}

Extent NextCarve(const ea_arena& arena, uint64_t bytes) {
  return Extent{arena.base + arena.used, static_cast<size_t>(bytes)};
}

ea_status CheckKeptOutsideCarve(const Extent* kept, size_t count, Extent carve) {
  return OverlapsAny(carve, kept, count) ? EA_ERR_BAD_ARGUMENT : EA_OK;
}

ea_status CheckModelRunMemory(Extent x, Extent y, Extent attn_weights, const Extent* kept,
                              size_t kept_count, Extent carve) {
  if (OverlapsAny(y, kept, kept_count) || OverlapsAny(attn_weights, kept, kept_count) ||
      OverlapsAny(y, &carve, 1) || OverlapsAny(attn_weights, &carve, 1) ||
      OverlapsAny(x, &carve, 1)) {
    return EA_ERR_BAD_ARGUMENT;
  }
  return EA_OK;
}

ea_status CheckStepMemory(Extent x, Extent y, const Extent* kept, size_t kept_count, Extent carve) {
  if (OverlapsAny(x, kept, kept_count)) return EA_ERR_BAD_ARGUMENT;
  return CheckModelRunMemory(x, y, Extent{nullptr, 0}, kept, kept_count, carve);
}

bool Overlaps(const void* a, size_t a_bytes, const void* b, size_t b_bytes) {
  if (a == nullptr || b == nullptr || a_bytes == 0 || b_bytes == 0) return false;
  // Addresses as integers: comparing pointers into different objects with <
  // is unspecified in C++.
  const uintptr_t a_begin = reinterpret_cast<uintptr_t>(a);
  const uintptr_t b_begin = reinterpret_cast<uintptr_t>(b);
  return a_begin < b_begin + b_bytes && b_begin < a_begin + a_bytes;
}

}  // namespace edgeattn
