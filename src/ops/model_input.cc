#include "ops/model_input.h"

#include "edgeattn/arena_sizes.hpp"
#include "kernels/f32/f32_kernels.h"
#include "kernels/f32/transposed_panels.h"
#include "runtime/arena.h"
#include "runtime/validation.h"

namespace edgeattn {

ea_status ValidateModelInput(int32_t max_tokens, int32_t d_model, ea_position position,
                             const float* table) {
  ea_status status = CheckPositive(max_tokens, d_model, 1, 1);
  if (status == EA_OK) status = CheckElements(max_tokens, d_model);
  if (status == EA_OK) status = CheckPosition(position, table);
  return status;
}

void CarvePositions(ea_position position, const float* caller_table, int32_t max_tokens,
                    int32_t d_model, ea_arena* arena, const float** table, float** x_positioned) {
  const uint64_t elements = static_cast<uint64_t>(max_tokens) * static_cast<uint64_t>(d_model);
  *table = nullptr;
  *x_positioned = nullptr;
  switch (StorageOf(position, caller_table == nullptr)) {
    case PositionStorage::kNone:
      return;
    case PositionStorage::kCaller:
      *table = caller_table;
      break;
    case PositionStorage::kArena: {
      float* filled = CarveFloats(arena, elements);
      ea_sinusoidal_table_fill(filled, max_tokens, d_model);
      *table = filled;
      break;
    }
  }
  *x_positioned = CarveFloats(arena, elements);
}

const float* PositionedInput(const float* x, const float* table, float* x_positioned,
                             int32_t n_tokens, int32_t d_model) {
  if (table == nullptr) return x;
  AddF32(x, table, x_positioned, static_cast<size_t>(n_tokens) * static_cast<size_t>(d_model));
  return x_positioned;
}

const float* ResolvePackedWeights(const float* w, int32_t n_out, int32_t d_model,
                                  ea_weights_layout layout, ea_arena* arena) {
  if (layout == EA_WEIGHTS_PACKED) return w;
  float* packed = CarveFloats(arena, PackedLinearFloats(n_out, d_model));
  PackTransposedPanels(w, static_cast<size_t>(d_model), n_out, d_model, packed);
  return packed;
}

}  // namespace edgeattn
