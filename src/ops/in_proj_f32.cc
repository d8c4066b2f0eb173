#include "ops/in_proj_f32.h"

#include <algorithm>

#include "kernels/f32/transposed_panels.h"
#include "ops/model_input.h"
#include "runtime/arena.h"

namespace edgeattn {
namespace {

// Row r of the stacked in_proj [d_model + 2 kv_width, d_model] in the
// three-tensor form.
struct StackedRows {
  const float* parts[3];
  int32_t first_row[4];  // part i holds rows [first_row[i], first_row[i + 1])

  int32_t PartOf(int32_t row) const { return row < first_row[1] ? 0 : row < first_row[2] ? 1 : 2; }
  const float* Row(int32_t row, size_t ld) const {
    const int32_t part = PartOf(row);
    return parts[part] + static_cast<size_t>(row - first_row[part]) * ld;
  }
};

// Packs the stacked rows panel by panel: a panel inside one part is that
// part's packing (the fast packer); a panel across a part boundary (d_model
// or kv_width not a multiple of kKeyBlock) is gathered lane by lane.
void PackStackedPanels(const StackedRows& stacked, int32_t n_cols, float* packed) {
  const int32_t n_rows = stacked.first_row[3];
  const size_t ld = static_cast<size_t>(n_cols);
  for (int32_t panel = 0; panel < PanelCount(n_rows); ++panel) {
    const int32_t first = panel * kKeyBlock;
    const int32_t rows = std::min<int32_t>(kKeyBlock, n_rows - first);
    float* out = Panel(packed, n_cols, panel);
    if (stacked.PartOf(first) == stacked.PartOf(first + rows - 1)) {
      PackTransposedPanels(stacked.Row(first, ld), ld, rows, n_cols, out);
      continue;
    }
    for (int32_t lane = 0; lane < kKeyBlock; ++lane) {
      const float* row = lane < rows ? stacked.Row(first + lane, ld) : nullptr;
      for (size_t col = 0; col < ld; ++col) {
        out[col * kKeyBlock + static_cast<size_t>(lane)] = row != nullptr ? row[col] : 0.0f;
      }
    }
  }
}

}  // namespace

ea_status CheckInProjF32Layout(const ea_mha_weights& w, ea_weights_layout layout) {
  return w.in_proj_weight == nullptr && layout == EA_WEIGHTS_PACKED ? EA_ERR_BAD_ARGUMENT : EA_OK;
}

void InProjF32Extents(const ea_mha_weights& w, int32_t d_model, int32_t kv_width,
                      ea_weights_layout layout, Extent* extents) {
  const int32_t qkv = d_model + 2 * kv_width;
  extents[0] = Extent{w.in_proj_weight, WeightMatrixBytes(qkv, d_model, layout)};
  extents[1] = Extent{w.in_proj_bias, FloatBytes(qkv)};
  const int64_t e = d_model;
  const int64_t kv = kv_width;
  extents[2] = Extent{w.q_proj_weight, FloatBytes(e * e)};
  extents[3] = Extent{w.k_proj_weight, FloatBytes(kv * e)};
  extents[4] = Extent{w.v_proj_weight, FloatBytes(kv * e)};
  extents[5] = Extent{w.q_proj_bias, FloatBytes(e)};
  extents[6] = Extent{w.k_proj_bias, FloatBytes(kv)};
  extents[7] = Extent{w.v_proj_bias, FloatBytes(kv)};
}

const float* PackInProjF32(const ea_mha_weights& w, int32_t d_model, int32_t kv_width,
                           ea_weights_layout layout, ea_arena* arena) {
  const int32_t qkv = d_model + 2 * kv_width;
  if (w.in_proj_weight != nullptr) {
    return ResolvePackedWeights(w.in_proj_weight, qkv, d_model, layout, arena);
  }
  float* packed = CarveFloats(arena, PackedLinearFloats(qkv, d_model));
  const StackedRows stacked{{w.q_proj_weight, w.k_proj_weight, w.v_proj_weight},
                            {0, d_model, d_model + kv_width, qkv}};
  PackStackedPanels(stacked, d_model, packed);
  return packed;
}

void AddBiasToRows(const float* bias, int32_t width, float* rows_begin, size_t ld, int32_t rows) {
  if (bias == nullptr) return;
  for (int32_t r = 0; r < rows; ++r) {
    float* row = rows_begin + static_cast<size_t>(r) * ld;
    for (int32_t col = 0; col < width; ++col) row[col] += bias[col];
  }
}

void AddInProjBiases(const ea_mha_weights& w, int32_t d_model, int32_t kv_width, float* qkv,
                     size_t ld_qkv, int32_t rows) {
  const size_t e = static_cast<size_t>(d_model);
  AddBiasToRows(w.q_proj_bias, d_model, qkv, ld_qkv, rows);
  AddBiasToRows(w.k_proj_bias, kv_width, qkv + e, ld_qkv, rows);
  AddBiasToRows(w.v_proj_bias, kv_width, qkv + e + static_cast<size_t>(kv_width), ld_qkv, rows);
}

}  // namespace edgeattn
