#include "fixed_point/quant_model_steps.h"

#include "fixed_point/add_sq.h"
#include "fixed_point/quantized_position_table.h"
#include "fixed_point/s8_panels.h"
#include "kernels.h"
#include "parallel_for.h"

namespace edgeattn {
namespace {

void RunLinear(const LinearQArgs<int8_t>& args) { LinearS8(args); }
void RunLinear(const LinearQArgs<int16_t>& args) { LinearS16(args); }

template <typename T>
bool RowBlocks(const ea_parallel_for& parallel, const LinearQArgs<T>& args) {
  const int32_t tasks = (args.rows + kLinearRowsPerTask - 1) / kLinearRowsPerTask;
  return RunTasks(parallel, tasks, [&](int32_t task, int32_t /* worker */) {
    LinearQArgs<T> block = args;
    const int32_t first = task * kLinearRowsPerTask;
    block.rows = args.rows - first < kLinearRowsPerTask ? args.rows - first : kLinearRowsPerTask;
    block.x = args.x + static_cast<size_t>(first) * args.ld_x;
    block.y = args.y + static_cast<size_t>(first) * args.ld_y;
    RunLinear(block);
  });
}

}  // namespace

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

void AddPositions(const int8_t* x_emb, const int8_t* table, const ea_add_quant_params& params,
                  int8_t* x, size_t count) {
  AddS8(x_emb, table, params, x, count);
}
void AddPositions(const int16_t* x_emb, const int16_t* table, const ea_add_quant_params& params,
                  int16_t* x, size_t count) {
  AddS16(x_emb, table, params, x, count);
}

const int8_t* CarveWeightPanels(ea_arena* arena, ea_dtype dtype, const int8_t* w, int32_t n_out,
                                int32_t n_in) {
  if (dtype != EA_DTYPE_INT8) return nullptr;
  int8_t* panels = static_cast<int8_t*>(CarveBytes(arena, S8PanelRegionBytes(n_out, n_in)));
  PackS8Panels(w, static_cast<size_t>(n_in), n_out, n_in, panels,
               S8PanelColumnSums(panels, n_out, n_in));
  return panels;
}

bool RunProjection(const ea_parallel_for& parallel, const LinearQArgs<int8_t>& args) {
  return RowBlocks(parallel, args);
}
bool RunProjection(const ea_parallel_for& parallel, const LinearQArgs<int16_t>& args) {
  return RowBlocks(parallel, args);
}

}  // namespace edgeattn
