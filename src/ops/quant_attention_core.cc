#include "ops/quant_attention_core.h"

#include "edgeattn/arena_sizes.hpp"
#include "kernels/f32/f32_kernels.h"
#include "kernels/int/int_kernels.h"
#include "kernels/int/s16_panels.h"
#include "kernels/int/s8_panels.h"
#include "kernels/int/softmax_s8.h"
#include "runtime/arena.h"
#include "runtime/parallel_for.h"

namespace edgeattn {
namespace {

// int8 on a target with dot-product instructions: K and V packed once per
// call for the packed kernel (K as k + 128), K's per-key term q_offset * sum_t k
// beside them (int_kernels.cc).
bool PackKeysAndValues(AttentionQArgs<int8_t>* a, const int8_t* v, size_t ld_v,
                       const ea_quant_core& memory) {
  if (memory.k_panels == nullptr || !UsesS8Panels()) return false;
  uint8_t* k_panels = static_cast<uint8_t*>(memory.k_panels);
  int8_t* v_panels = static_cast<int8_t*>(memory.v_panels);
  int32_t* k_terms = S8PanelColumnSums(k_panels, memory.max_keys, a->d_k);
  PackKeyPanelsS8(a->k, a->ld_k, a->n_kv, a->d_k, k_panels, k_terms);
  const uint32_t q_offset = static_cast<uint32_t>(a->q_offset);
  for (int32_t j = 0; j < a->n_kv; ++j) {
    k_terms[j] = static_cast<int32_t>(q_offset * static_cast<uint32_t>(k_terms[j]));
  }
  // The score tiles read whole vectors of terms (vnni::TileStart): the region
  // holds RoundUp(max_keys, 16) of them; the ones past n_kv are set, unused.
  for (int32_t j = a->n_kv; j % 16 != 0; ++j) k_terms[j] = 0;
  PackValuePanelsS8(v, ld_v, a->d_v, a->n_kv, v_panels);
  a->k_panels = k_panels;
  a->k_column_sums = k_terms;
  a->v_panels = v_panels;
  a->v_panel_stride = S8PanelBytes(kS8PanelColumns, a->n_kv);
  return true;
}
// int16 likewise: K and V in pairs, and K's high bytes where d_k allows.
bool PackKeysAndValues(AttentionQArgs<int16_t>* a, const int16_t* v, size_t ld_v,
                       const ea_quant_core& memory) {
  if (memory.k_panels == nullptr || !UsesS8Panels()) return false;
  int16_t* k_pairs = static_cast<int16_t*>(memory.k_panels);
  int16_t* v_pairs = static_cast<int16_t*>(memory.v_panels);
  PackS16Panels(a->k, a->ld_k, a->n_kv, a->d_k, k_pairs);
  if (a->d_k <= kS16HighByteMaxDepth) {
    uint8_t* k_high_bytes = S16KeyHighBytes(memory.k_panels, memory.max_keys, a->d_k);
    PackS16HighBytesPlus128(a->k, a->ld_k, a->n_kv, a->d_k, k_high_bytes);
    a->k_high_bytes = k_high_bytes;
  }
  PackS16PanelsTransposed(v, ld_v, a->d_v, a->n_kv, v_pairs);
  a->k_pairs = k_pairs;
  a->v_pairs = v_pairs;
  a->v_panel_stride = S16PanelValues(kS16PanelColumns, a->n_kv);
  return true;
}

template <typename T>
bool Run(const ea_parallel_for& parallel, const AttentionQArgs<T>& args, const T* v, size_t ld_v,
         const ea_quant_core& memory) {
  AttentionQArgs<T> a = args;
  if (!PackKeysAndValues(&a, v, ld_v, memory)) {
    T* v_transposed = static_cast<T*>(memory.v_transposed);
    Transpose(v, ld_v, a.n_kv, a.d_v, v_transposed, static_cast<size_t>(memory.max_keys));
    a.v_transposed = v_transposed;
    a.ld_vt = static_cast<size_t>(memory.max_keys);
  }
  const int32_t tasks = (a.n_q + kQueryBlockRows - 1) / kQueryBlockRows;
  uint8_t* scratch = static_cast<uint8_t*>(memory.row_scratch);
  return RunTasks(parallel, tasks, [&](int32_t task, int32_t worker) {
    const int32_t first = QueryBlockOfTask(task, tasks, a.causal) * kQueryBlockRows;
    const int32_t rows = a.n_q - first < kQueryBlockRows ? a.n_q - first : kQueryBlockRows;
    AttendRows(a, first, rows, scratch + static_cast<size_t>(worker) * memory.row_scratch_bytes);
  });
}

}  // namespace

static_assert(sizeof(SoftmaxS16Tables) <= kSoftmaxS8TableBytes &&
                  alignof(SoftmaxS16Tables) <= kRegionAlignment,
              "the int16 softmax's tables fit the region of the int8 one's");

void* CarveSoftmaxTables(ea_arena* arena, ea_dtype dtype, const ea_softmax_quant_params& softmax) {
  void* table = CarveBytes(arena, kSoftmaxS8TableBytes);
  if (dtype == EA_DTYPE_INT8) {
    BuildSoftmaxS8Table(softmax.input_multiplier, softmax.input_left_shift, softmax.diff_min,
                        static_cast<SoftmaxS8Table*>(table));
  } else {
    BuildSoftmaxS16Tables(softmax.exp_lut, softmax.one_over_one_plus_x_lut,
                          static_cast<SoftmaxS16Tables*>(table));
  }
  return table;
}

SoftmaxLuts SoftmaxLutExtents(const ea_softmax_quant_params& softmax) {
  // A NULL extent overlaps nothing (Overlaps), as a missing bias's does.
  const size_t bytes = kSoftmaxS16TableSize * sizeof(int16_t);
  SoftmaxLuts luts{};
  luts.extents[0] = Extent{softmax.exp_lut, bytes};
  luts.extents[1] = Extent{softmax.one_over_one_plus_x_lut, bytes};
  return luts;
}

ea_quant_core CarveQuantCore(ea_arena* arena, ea_dtype dtype, int32_t max_keys, int32_t d_k,
                             int32_t d_v, int32_t max_workers,
                             const ea_softmax_quant_params& softmax) {
  ea_quant_core m{};
  m.max_keys = max_keys;
  m.softmax_table = CarveSoftmaxTables(arena, dtype, softmax);
  if (!kFixedPointPanels) {
    // No kernel of this CPU family reads packed panels.
  } else if (dtype == EA_DTYPE_INT8) {
    m.k_panels = CarveBytes(arena, S8PanelRegionBytes(max_keys, d_k));
    m.v_panels = CarveBytes(arena, S8PanelRegionBytes(d_v, max_keys));
  } else {
    m.k_panels = CarveBytes(arena, S16KeyPanelRegionBytes(max_keys, d_k));
    m.v_panels = CarveBytes(arena, S16PanelRegionBytes(d_v, max_keys));
  }
  m.v_transposed = CarveBytes(
      arena, static_cast<uint64_t>(d_v) * static_cast<uint64_t>(max_keys) * FixedPointBytes(dtype));
  m.row_scratch_bytes = static_cast<size_t>(QuantScratch(max_keys, dtype).bytes);
  m.row_scratch =
      CarveBytes(arena, static_cast<uint64_t>(m.row_scratch_bytes) * Workers(max_workers));
  return m;
}

template <typename T>
AttentionQArgs<T> QuantCoreArgs(const ea_matmul_quant_params& scores,
                                const ea_softmax_quant_params& softmax,
                                const ea_matmul_quant_params& context, const ea_quant_core& core,
                                const QuantCoreShape& shape) {
  AttentionQArgs<T> a{};
  a.n_q = shape.n_q;
  a.n_kv = shape.n_kv;
  a.d_k = shape.d_k;
  a.d_v = shape.d_v;
  a.causal = shape.causal;
  a.n_valid_keys = shape.n_valid_keys;
  a.q_offset = scores.input_offset;
  a.k_offset = scores.weights_offset;
  a.score_multiplier = scores.output_multiplier;
  a.score_shift = scores.output_shift;
  a.score_zero_point = scores.output_offset;
  a.softmax_s8 = static_cast<const SoftmaxS8Table*>(core.softmax_table);
  a.softmax_s16 = static_cast<const SoftmaxS16Tables*>(core.softmax_table);
  a.softmax_multiplier = softmax.input_multiplier;
  a.softmax_left_shift = softmax.input_left_shift;
  a.v_offset = context.weights_offset;
  a.out_multiplier = context.output_multiplier;
  a.out_shift = context.output_shift;
  a.out_zero_point = context.output_offset;
  return a;
}
template AttentionQArgs<int8_t> QuantCoreArgs<int8_t>(const ea_matmul_quant_params&,
                                                      const ea_softmax_quant_params&,
                                                      const ea_matmul_quant_params&,
                                                      const ea_quant_core&, const QuantCoreShape&);
template AttentionQArgs<int16_t> QuantCoreArgs<int16_t>(const ea_matmul_quant_params&,
                                                        const ea_softmax_quant_params&,
                                                        const ea_matmul_quant_params&,
                                                        const ea_quant_core&,
                                                        const QuantCoreShape&);

bool RunQuantAttentionS8(const ea_parallel_for& parallel, const AttentionQArgs<int8_t>& args,
                         const int8_t* v, size_t ld_v, const ea_quant_core& memory) {
  return Run(parallel, args, v, ld_v, memory);
}

bool RunQuantAttentionS16(const ea_parallel_for& parallel, const AttentionQArgs<int16_t>& args,
                          const int16_t* v, size_t ld_v, const ea_quant_core& memory) {
  return Run(parallel, args, v, ld_v, memory);
}

}  // namespace edgeattn
