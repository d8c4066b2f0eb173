// Fixed-point RoPE's entry points (edgeattn/rope.h): TFLite's Prepare of
// the graph's MUL, MUL and ADD, and the in-place rotation on their kernels
// (kernels/int/rope_int.h), for callers composing a quantized model's layer.
#include <stddef.h>
#include <stdint.h>

#include "edgeattn/rope.h"
#include "kernels/int/rope_int.h"
#include "positions/rope_rules.h"
#include "runtime/validation.h"
#include "tflite/rope_quant_params.h"

namespace edgeattn {
namespace {

template <typename T>
ea_status CheckedRope(ea_dtype dtype, T* x, int32_t n_tokens, int32_t n_heads, int32_t d_head,
                      int64_t first_position, const T* cos_table, const T* sin_table,
                      int32_t table_positions, ea_rope_layout layout,
                      const ea_rope_quant_params* params) {
  if (x == nullptr || cos_table == nullptr || sin_table == nullptr || params == nullptr) {
    return EA_ERR_NULL_POINTER;
  }
  const ea_status shape =
      CheckRopeShape(n_tokens, n_heads, d_head, first_position, table_positions, layout);
  if (shape != EA_OK) return shape;
  if (CheckRope(dtype, *params) != EA_OK) return EA_ERR_BAD_ARGUMENT;
  const size_t x_bytes = static_cast<size_t>(n_tokens) * static_cast<size_t>(n_heads) *
                         static_cast<size_t>(d_head) * sizeof(T);
  const size_t table_bytes =
      static_cast<size_t>(table_positions) * static_cast<size_t>(d_head) * sizeof(T);
  if (Overlaps(x, x_bytes, cos_table, table_bytes) ||
      Overlaps(x, x_bytes, sin_table, table_bytes)) {
    return EA_ERR_BAD_ARGUMENT;
  }
  const size_t first_row = static_cast<size_t>(first_position) * static_cast<size_t>(d_head);
  RopeRows(x, n_tokens, n_heads, d_head, cos_table + first_row, sin_table + first_row, layout,
           *params);
  return EA_OK;
}

}  // namespace
}  // namespace edgeattn

extern "C" {

ea_status ea_rope_quant_derive(ea_dtype dtype, const ea_rope_quant_scales* scales,
                               ea_rope_quant_params* params) {
  if (scales == nullptr || params == nullptr) return EA_ERR_NULL_POINTER;
  return edgeattn::DeriveRope(dtype, *scales, params);
}

ea_status ea_rope_quant_apply_s8(int8_t* x, int32_t n_tokens, int32_t n_heads, int32_t d_head,
                                 int64_t first_position, const int8_t* cos_table,
                                 const int8_t* sin_table, int32_t table_positions,
                                 ea_rope_layout layout, const ea_rope_quant_params* params) {
  return edgeattn::CheckedRope(EA_DTYPE_INT8, x, n_tokens, n_heads, d_head, first_position,
                               cos_table, sin_table, table_positions, layout, params);
}

ea_status ea_rope_quant_apply_s16(int16_t* x, int32_t n_tokens, int32_t n_heads, int32_t d_head,
                                  int64_t first_position, const int16_t* cos_table,
                                  const int16_t* sin_table, int32_t table_positions,
                                  ea_rope_layout layout, const ea_rope_quant_params* params) {
  return edgeattn::CheckedRope(EA_DTYPE_INT16, x, n_tokens, n_heads, d_head, first_position,
                               cos_table, sin_table, table_positions, layout, params);
}

}  // extern "C"
