#include "ops/quant_model_steps.h"

#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "kernels/f32/f32_kernels.h"
#include "kernels/int/add_int.h"
#include "kernels/int/s8_panels.h"
#include "positions/quantized_position_table.h"
#include "runtime/parallel_for.h"
#include "tflite/mha_quant_params.h"
#include "tflite/requantize.h"

namespace edgeattn {
namespace {

void RunLinear(const LinearQArgs<int8_t>& args) { LinearS8(args); }
void RunLinear(const LinearQArgs<int16_t>& args) { LinearS16(args); }

// Output columns [first, first + count) of a projection, first a multiple of
// kLinearColumnsPerTask: whole panels of W's packed layout (int8 and int16
// activations alike), whole tiles of the kernels.
template <typename T>
LinearQArgs<T> ColumnSlice(const LinearQArgs<T>& args, int32_t first, int32_t count) {
  static_assert(kLinearColumnsPerTask % kS8PanelColumns == 0, "a task's columns are whole panels");
  using Bias = std::conditional_t<sizeof(T) == 1, int32_t, int64_t>;
  const size_t c = static_cast<size_t>(first);
  LinearQArgs<T> slice = args;
  slice.w = args.w + c * static_cast<size_t>(args.n_in);
  if (args.bias != nullptr) slice.bias = static_cast<const Bias*>(args.bias) + c;
  slice.multiplier = args.multiplier + c;
  slice.shift = args.shift + c;
  slice.n_out = count;
  slice.y = args.y + c;
  if (args.w_panels != nullptr) {
    slice.w_panels = args.w_panels + c / kS8PanelColumns * S8PanelBytes(kS8PanelColumns, args.n_in);
    slice.w_column_sums = args.w_column_sums + c;
  }
  return slice;
}

// Tasks of kLinearRowsPerTask rows x kLinearColumnsPerTask outputs, as the
// float projections (kernels/f32/f32_kernels.h).
template <typename T>
bool RowBlocks(const ea_parallel_for& parallel, const LinearQArgs<T>& args) {
  return RunTasks(parallel, LinearTaskCount(args.rows, args.n_out),
                  [&](int32_t task, int32_t /* worker */) {
                    const LinearTask t = LinearTaskOf(task, args.rows, args.n_out);
                    LinearQArgs<T> block = ColumnSlice(args, t.first_out, t.outputs);
                    block.rows = t.rows;
                    block.x = args.x + static_cast<size_t>(t.first_row) * args.ld_x;
                    block.y += static_cast<size_t>(t.first_row) * args.ld_y;
                    RunLinear(block);
                  });
}

}  // namespace

const ea_quant* PlanTimeTableQuant(const ea_quant* params_position,
                                   const ea_quant* scales_position) {
  if (params_position == nullptr) return scales_position;
  // All zero bits: -0.0f is given (and refused: not a positive scale).
  uint32_t scale_bits = 0;
  memcpy(&scale_bits, &params_position->scale, sizeof(scale_bits));
  const bool given = scale_bits != 0 || params_position->zero_point != 0;
  return given ? params_position : scales_position;
}

ea_status CheckQuantModelInput(ea_dtype dtype, ea_position position, const void* quant_table,
                               const ea_quant* position_quant, bool has_params) {
  switch (position) {
    case EA_POSITION_NONE:
    case EA_POSITION_SINUSOIDAL:
      break;
    case EA_POSITION_LEARNED:
      if (quant_table == nullptr) return EA_ERR_NULL_POINTER;
      break;
    default:
      return EA_ERR_BAD_ARGUMENT;
  }
  if (!has_params && position_quant == nullptr) return EA_ERR_NULL_POINTER;
  if (StorageOf(position, quant_table == nullptr) == PositionStorage::kArena) {
    if (position_quant == nullptr) return EA_ERR_NULL_POINTER;
    if (!IsValidQuant(dtype, *position_quant)) return EA_ERR_BAD_ARGUMENT;
  }
  return EA_OK;
}

const void* ResolveQuantPositionTable(ea_arena* arena, ea_dtype dtype, PositionStorage storage,
                                      const void* caller_table, int32_t n, int32_t d_model,
                                      ea_quant position) {
  switch (storage) {
    case PositionStorage::kNone:
      return nullptr;
    case PositionStorage::kCaller:
      return caller_table;
    case PositionStorage::kArena:
      break;
  }
  void* table = CarveBytes(
      arena, static_cast<uint64_t>(n) * static_cast<uint64_t>(d_model) * FixedPointBytes(dtype));
  if (dtype == EA_DTYPE_INT8) {
    FillQuantizedSinusoidS8(n, d_model, position, static_cast<int8_t*>(table));
  } else {
    FillQuantizedSinusoidS16(n, d_model, position, static_cast<int16_t*>(table));
  }
  return table;
}

ea_status CheckQuantBias(ea_dtype dtype, const void* bias, int32_t count) {
  if (bias == nullptr) return EA_OK;
  const size_t element = static_cast<size_t>(QuantBiasBytes(dtype));
  if (reinterpret_cast<uintptr_t>(bias) % element != 0) return EA_ERR_BAD_ARGUMENT;
  if (dtype != EA_DTYPE_INT16) return EA_OK;
  const int64_t* b = static_cast<const int64_t*>(bias);
  for (int32_t i = 0; i < count; ++i) {
    if (b[i] >= kRequantize64Limit || b[i] < -kRequantize64Limit) return EA_ERR_BAD_ARGUMENT;
  }
  return EA_OK;
}

ea_status CheckQuantTableAlignment(ea_dtype dtype, const void* table) {
  const bool aligned = reinterpret_cast<uintptr_t>(table) % FixedPointBytes(dtype) == 0;
  return aligned ? EA_OK : EA_ERR_BAD_ARGUMENT;
}

void CopyLinearParams(const ea_linear_quant_params& from, int32_t channels, int32_t* multipliers,
                      int32_t* shifts, ea_linear_quant_params* to) {
  *to = from;
  for (int32_t i = 0; i < channels; ++i) {
    multipliers[i] = from.output_multiplier[i];
    shifts[i] = from.output_shift[i];
  }
  to->output_multiplier = multipliers;
  to->output_shift = shifts;
}

void AddPositions(const int8_t* x_emb, const int8_t* table, const ea_add_quant_params& params,
                  int8_t* x, size_t count) {
  AddS8(x_emb, table, params, x, count);
}
void AddPositions(const int16_t* x_emb, const int16_t* table, const ea_add_quant_params& params,
                  int16_t* x, size_t count) {
  AddS16(x_emb, table, params, x, count);
}

const void* CarveWeightPanels(ea_arena* arena, ea_dtype dtype, const int8_t* w, int32_t n_out,
                              int32_t n_in) {
  if (!kFixedPointPanels) return nullptr;
  void* region = CarveBytes(arena, WeightPanelRegionBytes(n_out, n_in, dtype));
  int32_t* sums = S8PanelColumnSums(region, n_out, n_in);
  if (dtype == EA_DTYPE_INT16) {
    PackS8Panels(w, static_cast<size_t>(n_in), n_out, n_in, static_cast<int8_t*>(region), sums);
  } else {
    PackS8PanelsPlus128(w, static_cast<size_t>(n_in), n_out, n_in, static_cast<uint8_t*>(region),
                        sums);
  }
  return region;
}

bool RunProjection(const ea_parallel_for& parallel, const LinearQArgs<int8_t>& args) {
  return RowBlocks(parallel, args);
}
bool RunProjection(const ea_parallel_for& parallel, const LinearQArgs<int16_t>& args) {
  return RowBlocks(parallel, args);
}

}  // namespace edgeattn
