// The steps fixed-point models (MHA, single-head self-attention) share around
// the attention core: the quantized position table and ADD(x_emb, P), a
// per-channel FULLY_CONNECTED in blocks of rows x output channels on the
// caller's parallel-for, and the int8 weights packed once at plan time for
// the dot-product instructions.
#ifndef EDGEATTN_SRC_OPS_QUANT_MODEL_STEPS_H_
#define EDGEATTN_SRC_OPS_QUANT_MODEL_STEPS_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "kernels/int/int_kernels.h"
#include "kernels/int/s8_panels.h"
#include "runtime/arena.h"

namespace edgeattn {

// The quantization of a table the plan fills: the given integers' `position`
// unless its bytes are all zero (not given: a struct written before the
// field), else quant_scales' (NULL: neither). One rule for every fixed-point
// model.
const ea_quant* PlanTimeTableQuant(const ea_quant* params_position,
                                   const ea_quant* scales_position);
// The same for a model config (ea_mha_config, ea_self_attention_config).
template <class Config>
const ea_quant* PlanTimeTableQuantOf(const Config& c) {
  return PlanTimeTableQuant(c.quant_params != nullptr ? &c.quant_params->position : nullptr,
                            c.quant_scales != nullptr ? &c.quant_scales->position : nullptr);
}
// Its value for ResolveQuantPositionTable ({} where there is none: no table
// is filled then).
template <class Config>
ea_quant PlanTimeTableQuantValue(const Config& c) {
  const ea_quant* q = PlanTimeTableQuantOf(c);
  return q != nullptr ? *q : ea_quant{};
}

// The rules of a fixed-point model's positions and quantization: a LEARNED
// table is required, the scales or the integers are, and a table filled at
// plan time is quantized with position_quant (PlanTimeTableQuant; NULL:
// EA_ERR_NULL_POINTER), which must be a valid quantization.
ea_status CheckQuantModelInput(ea_dtype dtype, ea_position position, const void* quant_table,
                               const ea_quant* position_quant, bool has_params);

// The position table a plan adds: none, the caller's quantized table, or the
// sinusoid quantized with `position` into a carved [n, d_model] region.
const void* ResolveQuantPositionTable(ea_arena* arena, ea_dtype dtype, PositionStorage storage,
                                      const void* caller_table, int32_t n, int32_t d_model,
                                      ea_quant position);

// A bias the plan can keep: NULL, or aligned to its element (int32 for INT8,
// int64 for INT16: the caller passes it as void*, so a misaligned address is
// legal C that the library must refuse before it reads one) and, for INT16,
// within TFLite's 2^47 accumulator domain. EA_ERR_BAD_ARGUMENT otherwise.
ea_status CheckQuantBias(ea_dtype dtype, const void* bias, int32_t count);

// NULL, or a quantized position table aligned to its element (int8, int16);
// EA_ERR_BAD_ARGUMENT otherwise.
ea_status CheckQuantTableAlignment(ea_dtype dtype, const void* table);

// *to = from with its per-channel arrays copied into multipliers and shifts
// (the plan's own copy of a caller's integers).
void CopyLinearParams(const ea_linear_quant_params& from, int32_t channels, int32_t* multipliers,
                      int32_t* shifts, ea_linear_quant_params* to);

// x = ADD(x_emb, P) over count values.
void AddPositions(const int8_t* x_emb, const int8_t* table, const ea_add_quant_params& params,
                  int8_t* x, size_t count);
void AddPositions(const int16_t* x_emb, const int16_t* table, const ea_add_quant_params& params,
                  int16_t* x, size_t count);

// W [n_out, n_in] packed into a carved WeightPanelRegionBytes region: int8
// panels with their column sums (int8 activations: W + 128, the unsigned
// operand; int16: W, the signed one); NULL (nothing carved) without
// kFixedPointPanels.
const void* CarveWeightPanels(ea_arena* arena, ea_dtype dtype, const int8_t* w, int32_t n_out,
                              int32_t n_in);

// y [rows, n_out] (at ld_y) = FULLY_CONNECTED(x [rows, n_in], W [n_out, n_in]),
// W's panels used where the target has the instructions.
template <typename T>
LinearQArgs<T> ProjectionArgs(const T* x, int32_t rows, int32_t n_in, const int8_t* w,
                              const void* bias, const ea_linear_quant_params& p, int32_t n_out,
                              T* y, size_t ld_y, const void* panels) {
  LinearQArgs<T> args{x,
                      static_cast<size_t>(n_in),
                      rows,
                      n_in,
                      p.input_offset,
                      w,
                      bias,
                      p.output_multiplier,
                      p.output_shift,
                      n_out,
                      p.output_offset,
                      y,
                      ld_y,
                      nullptr,
                      nullptr};
  if (panels != nullptr && UsesS8Panels()) {
    args.w_panels = static_cast<const uint8_t*>(panels);
    args.w_column_sums = S8PanelColumnSumsOf(panels, n_out, n_in);
  }
  return args;
}

// Runs a projection in tasks of kLinearRowsPerTask rows x
// kLinearColumnsPerTask outputs (kernels/f32/f32_kernels.h). False when the parallel-for hook
// broke its worker contract.
bool RunProjection(const ea_parallel_for& parallel, const LinearQArgs<int8_t>& args);
bool RunProjection(const ea_parallel_for& parallel, const LinearQArgs<int16_t>& args);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_OPS_QUANT_MODEL_STEPS_H_
