// C entry points of the fixed-point MHA decoder (edgeattn/decoder.h):
// ea_mha_quant_run_s8 / _s16's causal layer one step at a time. A step's k is
// projected straight into its cache rows and its v transposed into the
// cache's V^T (on x86 both also added to each head's VNNI panels), so the
// attention of its queries reads the cache in place, with the kernels and
// integers of the full run. With grouped-query heads the cache holds the KV
// heads' k and v once, and every query head of a group reads its KV head's.
// With a sliding window the cache is a ring (position p in slot
// p % capacity): a step's rows may wrap, and the row kernels read the ring's
// keys rotated (AttentionQArgs::key_rotation).
#include <stddef.h>
#include <stdint.h>

#include <type_traits>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/decoder.h"
#include "kernels/int/int_kernels.h"
#include "kernels/int/rope_int.h"
#include "kernels/int/s16_panels.h"
#include "kernels/int/s8_panels.h"
#include "ops/mha/mha_quant_api.h"
#include "ops/quant_attention_core.h"
#include "ops/quant_model_steps.h"
#include "runtime/arena.h"
#include "runtime/simd_target_cap.h"
#include "runtime/validation.h"
#include "tflite/mha_quant_params.h"
#include "tflite/rope_quant_params.h"

namespace edgeattn {
namespace {

int32_t HeadWidth(const ea_decoder_quant_config& c) { return c.layer.d_model / c.layer.n_heads; }
// The channels of k and v: n_kv_heads * d_k.
int32_t KvWidth(const ea_decoder_quant_config& c) { return DecoderQuantKvHeads(c) * HeadWidth(c); }

bool HasRope(const ea_decoder_quant_config& c) {
  return c.rope_cos_table != nullptr || c.rope_sin_table != nullptr;
}

// What RoPE gives a plan (decoder.h's rules): q's and k's rotations, and
// with scales the quantization of the rotated q and k, which the scores'
// BATCH_MATMUL reads (the unrotated q and k are then never its operands).
struct RopePlan {
  ea_rope_quant_params rope[2];
  ea_quant rotated[2];
  bool rotated_scales;

  const ea_quant* ScoresOperands() const { return rotated_scales ? rotated : nullptr; }
};

ea_status ValidateRope(const ea_decoder_quant_config& c, RopePlan* plan) {
  *plan = RopePlan{};
  if (!HasRope(c)) {
    return c.rope_scales == nullptr && c.rope_params == nullptr ? EA_OK : EA_ERR_BAD_ARGUMENT;
  }
  if (c.rope_cos_table == nullptr || c.rope_sin_table == nullptr) return EA_ERR_BAD_ARGUMENT;
  if (HeadWidth(c) % 2 != 0) return EA_ERR_BAD_DIMENSION;
  if (CheckQuantTableAlignment(c.layer.dtype, c.rope_cos_table) != EA_OK ||
      CheckQuantTableAlignment(c.layer.dtype, c.rope_sin_table) != EA_OK) {
    return EA_ERR_BAD_ARGUMENT;
  }
  if (c.rope_layout != EA_ROPE_HALF && c.rope_layout != EA_ROPE_INTERLEAVED) {
    return EA_ERR_BAD_ARGUMENT;
  }
  const ea_dtype dtype = c.layer.dtype;
  if (c.layer.quant_params != nullptr) {
    if (c.rope_params == nullptr) return EA_ERR_NULL_POINTER;
    for (int i = 0; i < 2; ++i) {
      if (CheckRope(dtype, c.rope_params[i]) != EA_OK) return EA_ERR_BAD_ARGUMENT;
      plan->rope[i] = c.rope_params[i];
    }
    return EA_OK;
  }
  const ea_mha_quant_scales* s = c.layer.quant_scales;
  if (s == nullptr || c.rope_scales == nullptr) return EA_ERR_NULL_POINTER;
  const auto same = [](ea_quant a, ea_quant b) {
    return a.scale == b.scale && a.zero_point == b.zero_point;
  };
  if (!same(c.rope_scales[0].x, s->q) || !same(c.rope_scales[1].x, s->k)) {
    return EA_ERR_BAD_ARGUMENT;
  }
  for (int i = 0; i < 2; ++i) {
    const ea_status status = DeriveRope(dtype, c.rope_scales[i], &plan->rope[i]);
    if (status != EA_OK) return status;
    plan->rotated[i] = c.rope_scales[i].rotated;
  }
  plan->rotated_scales = true;
  return EA_OK;
}

ea_status Validate(const ea_decoder_quant_config& c, RopePlan* rope) {
  if (c.n_kv_heads < 0) return EA_ERR_BAD_DIMENSION;
  ea_status status = ValidateMhaQuantConfig(c.layer, DecoderQuantKvHeads(c));
  if (status != EA_OK) return status;
  if (c.layer.mask != EA_MASK_CAUSAL) return EA_ERR_BAD_ARGUMENT;
  if (c.max_step_tokens <= 0 || c.max_step_tokens > c.layer.max_tokens || c.window < 0) {
    return EA_ERR_BAD_DIMENSION;
  }
  size_t bytes = 0;
  status = ToSize(DecoderQuantArenaBytes(c), &bytes);
  if (status != EA_OK) return status;
  return ValidateRope(c, rope);
}

// The RoPE tables a decoder reads at every step ([max_tokens, d_k] each),
// as kept extents (none without RoPE).
struct RopeTables {
  Extent extents[2];
};
RopeTables RopeTablesOf(const ea_decoder_quant_config& c) {
  const size_t bytes = HasRope(c)
                           ? static_cast<size_t>(c.layer.max_tokens) *
                                 static_cast<size_t>(HeadWidth(c)) * FixedPointBytes(c.layer.dtype)
                           : 0;
  return {{{c.rope_cos_table, bytes}, {c.rope_sin_table, bytes}}};
}

void TransposeHead(const int8_t* v, size_t ld, int32_t rows, int32_t cols, int8_t* dst,
                   size_t ld_dst) {
  TransposeS8(v, ld, rows, cols, dst, ld_dst);
}
void TransposeHead(const int16_t* v, size_t ld, int32_t rows, int32_t cols, int16_t* dst,
                   size_t ld_dst) {
  TransposeS16(v, ld, rows, cols, dst, ld_dst);
}
void AttendRows(const AttentionQArgs<int8_t>& a, void* scratch) {
  AttendRowsS8(a, 0, a.n_q, scratch);
}
void AttendRows(const AttentionQArgs<int16_t>& a, void* scratch) {
  AttendRowsS16(a, 0, a.n_q, scratch);
}

int32_t Capacity(const ea_decoder_quant_config& c) {
  return DecoderQuantCapacity(c.layer.max_tokens, c.max_step_tokens, c.window);
}

// Where the parts of KV head g's cache in the dot-product panels start
// (DecoderQuantHeadPanelBytes; packed for the cache's capacity): the one
// place that knows the layout, for the stores and the attention alike.
// int8: K + 128, its per-key terms q_offset * sum_t k, and V.
struct S8HeadPanels {
  uint8_t* keys;
  int32_t* key_terms;
  int8_t* values;
};
// int16: K in pairs, its high bytes (NULL past kS16HighByteMaxDepth, where
// the row groups do not read them), and V in pairs.
struct S16HeadPanels {
  int16_t* keys;
  uint8_t* key_high_bytes;
  int16_t* values;
};
template <typename T>
using HeadPanels = std::conditional_t<sizeof(T) == 1, S8HeadPanels, S16HeadPanels>;

uint8_t* HeadPanelRegion(const ea_decoder_quant& d, int32_t g) {
  return static_cast<uint8_t*>(d.head_panels) +
         static_cast<size_t>(g) * DecoderQuantHeadPanelBytes(Capacity(d.config),
                                                             HeadWidth(d.config),
                                                             d.config.layer.dtype);
}
void PanelsOfHead(const ea_decoder_quant& d, int32_t g, S8HeadPanels* p) {
  const int32_t d_k = HeadWidth(d.config);
  const int32_t capacity = Capacity(d.config);
  uint8_t* region = HeadPanelRegion(d, g);
  p->keys = region;
  p->key_terms = S8PanelColumnSums(region, capacity, d_k);
  p->values = reinterpret_cast<int8_t*>(region + S8PanelRegionBytes(capacity, d_k));
}
void PanelsOfHead(const ea_decoder_quant& d, int32_t g, S16HeadPanels* p) {
  const int32_t d_k = HeadWidth(d.config);
  const int32_t capacity = Capacity(d.config);
  uint8_t* region = HeadPanelRegion(d, g);
  p->keys = reinterpret_cast<int16_t*>(region);
  p->key_high_bytes =
      d_k <= kS16HighByteMaxDepth ? S16KeyHighBytes(region, capacity, d_k) : nullptr;
  p->values = reinterpret_cast<int16_t*>(region + S16KeyPanelRegionBytes(capacity, d_k));
}

// The step's keys and values of a KV head into its panels, row i at slot
// (first_slot + i) % capacity: the columns the full run's packing gives the
// whole cache (quant_attention_core.cc). k: the head's column of the cache's
// K rows, read at those slots; v: its column of the step's rows; ld apart.
void AddToPanels(const S8HeadPanels& p, int32_t d_k, int32_t capacity, const int8_t* k,
                 const int8_t* v, size_t ld, int32_t first_slot, int32_t n, int32_t q_offset) {
  for (int32_t i = 0, j = first_slot; i < n; ++i, ++j) {
    if (j == capacity) j = 0;
    StoreS8PanelColumnPlus128(k + static_cast<size_t>(j) * ld, d_k, j, p.keys, p.key_terms);
    p.key_terms[j] = static_cast<int32_t>(static_cast<uint32_t>(q_offset) *
                                          static_cast<uint32_t>(p.key_terms[j]));
    StoreS8PanelDepthRow(v + static_cast<size_t>(i) * ld, d_k, j, capacity, p.values);
  }
}
void AddToPanels(const S16HeadPanels& p, int32_t d_k, int32_t capacity, const int16_t* k,
                 const int16_t* v, size_t ld, int32_t first_slot, int32_t n,
                 int32_t /* q_offset: zero */) {
  for (int32_t i = 0, j = first_slot; i < n; ++i, ++j) {
    if (j == capacity) j = 0;
    const int16_t* key = k + static_cast<size_t>(j) * ld;
    StoreS16PanelColumn(key, d_k, j, p.keys);
    if (p.key_high_bytes != nullptr) StoreS16HighBytesColumnPlus128(key, d_k, j, p.key_high_bytes);
    StoreS16PanelDepthRow(v + static_cast<size_t>(i) * ld, d_k, j, capacity, p.values);
  }
}

// A query head's attention reads its KV head's panels.
void ReadPanels(const S8HeadPanels& p, int32_t capacity, AttentionQArgs<int8_t>* a) {
  a->k_panels = p.keys;
  a->k_column_sums = p.key_terms;
  a->v_panels = p.values;
  a->v_panel_stride = S8PanelBytes(kS8PanelColumns, capacity);
}
void ReadPanels(const S16HeadPanels& p, int32_t capacity, AttentionQArgs<int16_t>* a) {
  a->k_pairs = p.keys;
  a->k_high_bytes = p.key_high_bytes;
  a->v_pairs = p.values;
  a->v_panel_stride = S16PanelValues(kS16PanelColumns, capacity);
}

// A step's n rows go to cache slots from `slot` on: this many of them
// before the ring's end, the rest from slot 0.
int32_t RowsBeforeTheEnd(int32_t slot, int32_t n, int32_t capacity) {
  return capacity - slot < n ? capacity - slot : n;
}

// One step of n tokens at positions [p, p + n). Arguments are validated.
template <typename T>
void Step(const ea_decoder_quant& d, const T* x, int32_t n, T* y) {
  const ea_mha_config& c = d.config.layer;
  const ea_mha_quant_params& p = d.params;
  const ea_mha_quant_weights& w = d.weights;
  const size_t e = static_cast<size_t>(c.d_model);
  const int32_t kv_width = KvWidth(d.config);
  const size_t kv = static_cast<size_t>(kv_width);
  const size_t position = static_cast<size_t>(d.length);
  const int32_t capacity = Capacity(d.config);
  const size_t ld_vt = static_cast<size_t>(capacity);
  const int32_t slot = static_cast<int32_t>(d.length % capacity);
  const int32_t before_end = RowsBeforeTheEnd(slot, n, capacity);
  const int32_t d_k = HeadWidth(d.config);
  const int32_t kv_heads = DecoderQuantKvHeads(d.config);
  const int32_t group = c.n_heads / kv_heads;
  const T* input = x;
  if (d.position_table != nullptr) {
    T* positioned = static_cast<T*>(d.x_positioned);
    AddPositions(x, static_cast<const T*>(d.position_table) + position * e, p.add, positioned,
                 static_cast<size_t>(n) * e);
    input = positioned;
  }
  T* q = static_cast<T*>(d.q);
  T* v = static_cast<T*>(d.v);
  T* context = static_cast<T*>(d.context);
  T* keys = static_cast<T*>(d.keys);
  T* values_transposed = static_cast<T*>(d.values_transposed);
  const ea_parallel_for calling_thread{};
  // The calling thread keeps the worker contract: projections cannot fail.
  // Every projection writes all of its weight's channels (ld the same).
  const auto project = [&](int32_t which, const ea_linear_quant_params& params, const T* rows,
                           int32_t count, T* out) {
    if (count == 0) return;
    const int32_t channels = which == 0 ? c.d_model : kv_width;
    (void)ProjectInProj(calling_thread, c, kv_width, w, d.weight_panels[which], which, params, rows,
                        count, 0, channels, out);
  };
  project(0, p.q_proj, input, n, q);
  // k straight into the ring's rows: from the step's slot, then from slot 0.
  project(1, p.k_proj, input, before_end, keys + static_cast<size_t>(slot) * kv);
  project(1, p.k_proj, input + static_cast<size_t>(before_end) * e, n - before_end, keys);
  if (HasRope(d.config)) {
    // Rows of the tables at the step's positions; k rotated where it is
    // stored, before the panels copy it.
    const size_t row = static_cast<size_t>(d_k);
    const T* cos = static_cast<const T*>(d.config.rope_cos_table) + position * row;
    const T* sin = static_cast<const T*>(d.config.rope_sin_table) + position * row;
    const ea_rope_layout layout = d.config.rope_layout;
    const size_t wrapped = static_cast<size_t>(before_end) * row;
    RopeRows(q, n, c.n_heads, d_k, cos, sin, layout, d.rope[0]);
    RopeRows(keys + static_cast<size_t>(slot) * kv, before_end, kv_heads, d_k, cos, sin, layout,
             d.rope[1]);
    RopeRows(keys, n - before_end, kv_heads, d_k, cos + wrapped, sin + wrapped, layout, d.rope[1]);
  }
  project(2, p.v_proj, input, n, v);
  for (int32_t g = 0; g < kv_heads; ++g) {
    const size_t column = static_cast<size_t>(g) * static_cast<size_t>(d_k);
    T* head_vt = values_transposed + column * ld_vt;
    TransposeHead(v + column, kv, before_end, d_k, head_vt + slot, ld_vt);
    if (n > before_end) {
      TransposeHead(v + static_cast<size_t>(before_end) * kv + column, kv, n - before_end, d_k,
                    head_vt, ld_vt);
    }
  }

  ea_quant_core core{};  // only the softmax's table: K and V are read in place
  core.softmax_table = d.softmax_table;
  // The cache's keys in the order of their positions: the last `held` of
  // the stream, the oldest in slot `rotation` once the ring has wrapped.
  const int64_t seen = d.length + n;
  const int32_t held = seen < capacity ? static_cast<int32_t>(seen) : capacity;
  AttentionQArgs<T> head = QuantCoreArgs<T>(p.scores, p.softmax, p.context, core,
                                            {n, held, d_k, d_k, /*causal=*/true, held});
  head.window = d.config.window;
  head.key_rotation = seen > capacity ? static_cast<int32_t>(seen % capacity) : 0;
  head.ld_q = e;
  head.ld_k = kv;
  head.ld_vt = ld_vt;
  head.ld_out = e;
  // The panels are written whatever the target, so that a later step on
  // AVX3_DL finds every key in them.
  const bool packed = d.head_panels != nullptr && UsesS8Panels();
  for (int32_t g = 0; g < kv_heads; ++g) {
    const size_t kv_column = static_cast<size_t>(g) * static_cast<size_t>(d_k);
    if (d.head_panels != nullptr) {
      HeadPanels<T> panels;
      PanelsOfHead(d, g, &panels);
      AddToPanels(panels, d_k, capacity, keys + kv_column, v + kv_column, kv, slot, n,
                  head.q_offset);
      if (packed) ReadPanels(panels, capacity, &head);
    }
    head.k = keys + kv_column;
    head.v_transposed = values_transposed + kv_column * ld_vt;
    for (int32_t h = g * group; h < (g + 1) * group; ++h) {
      const size_t column = static_cast<size_t>(h) * static_cast<size_t>(d_k);
      head.q = q + column;
      head.out = context + column;
      AttendRows(head, d.row_scratch);
    }
  }
  (void)RunProjection(calling_thread,
                      ProjectionArgs<T>(context, n, c.d_model, w.out_proj_weight, w.out_proj_bias,
                                        p.out_proj, c.d_model, y, e, d.weight_panels[3]));
}

template <typename T>
ea_status CheckedStep(ea_decoder_quant* decoder, ea_dtype dtype, const T* x, int32_t n_tokens,
                      T* y) {
  if (decoder == nullptr || x == nullptr || y == nullptr) return EA_ERR_NULL_POINTER;
  if (decoder->ready != EA_PLAN_READY || decoder->config.layer.dtype != dtype) {
    return EA_ERR_BAD_ARGUMENT;
  }
  const ea_mha_config& c = decoder->config.layer;
  if (n_tokens <= 0 || n_tokens > decoder->config.max_step_tokens) return EA_ERR_BAD_DIMENSION;
  if (decoder->length + n_tokens > c.max_tokens) return EA_ERR_CACHE_FULL;
  const size_t io_bytes =
      static_cast<size_t>(n_tokens) * static_cast<size_t>(c.d_model) * sizeof(T);
  const MhaQuantKept kept = MhaQuantKeptExtents(c, KvWidth(decoder->config), decoder->weights,
                                                decoder->position_table, decoder->params.softmax);
  Extent extents[kMhaQuantKeptCount + 2];
  for (size_t i = 0; i < kMhaQuantKeptCount; ++i) extents[i] = kept.extents[i];
  const RopeTables tables = RopeTablesOf(decoder->config);
  extents[kMhaQuantKeptCount] = tables.extents[0];
  extents[kMhaQuantKeptCount + 1] = tables.extents[1];
  const ea_status status =
      CheckStepMemory({x, io_bytes}, {y, io_bytes}, extents, kMhaQuantKeptCount + 2,
                      {decoder->carve, decoder->carve_bytes});
  if (status != EA_OK) return status;
  Step(*decoder, x, n_tokens, y);
  decoder->length += n_tokens;
  return EA_OK;
}

}  // namespace
}  // namespace edgeattn

extern "C" {

ea_status ea_decoder_quant_arena_size(const ea_decoder_quant_config* config, size_t* bytes) {
  if (config == nullptr || bytes == nullptr) return EA_ERR_NULL_POINTER;
  edgeattn::RopePlan rope;
  const ea_status status = edgeattn::Validate(*config, &rope);
  if (status != EA_OK) return status;
  return edgeattn::ToSize(edgeattn::DecoderQuantArenaBytes(*config), bytes);
}

ea_status ea_decoder_quant_derive(const ea_decoder_quant_config* config,
                                  ea_mha_quant_params* params, int32_t* channel_ints,
                                  size_t channel_int_count) {
  using namespace edgeattn;  // NOLINT(google-build-using-namespace): one entry point
  if (config == nullptr || params == nullptr || channel_ints == nullptr) return EA_ERR_NULL_POINTER;
  ea_decoder_quant_config scales_only = *config;
  scales_only.layer.quant_params = nullptr;
  RopePlan rope;
  ea_status status = Validate(scales_only, &rope);
  if (status != EA_OK) return status;
  if (channel_int_count < EA_MHA_QUANT_CHANNEL_INTS(config->layer.d_model)) {
    return EA_ERR_ARENA_TOO_SMALL;
  }
  return DeriveMhaQuantParams(config->layer, KvWidth(*config), params, channel_ints,
                              rope.ScoresOperands());
}

ea_status ea_decoder_quant_init(ea_decoder_quant* decoder, const ea_decoder_quant_config* config,
                                const ea_mha_quant_weights* weights, ea_arena* arena) {
  using namespace edgeattn;  // NOLINT(google-build-using-namespace): one entry point
  if (decoder == nullptr) return EA_ERR_NULL_POINTER;
  decoder->ready = 0;  // a failed re-init must not leave the old plan usable
  ApplySimdTargetCap();
  if (config == nullptr || weights == nullptr || arena == nullptr) return EA_ERR_NULL_POINTER;
  ea_status status = CheckMhaQuantWeightPointers(*weights);
  if (status != EA_OK) return status;
  const ea_mha_config& c = config->layer;
  RopePlan rope;
  status = Validate(*config, &rope);
  const uint64_t bytes = status == EA_OK ? DecoderQuantArenaBytes(*config) : 0;
  const int32_t kv_width = status == EA_OK ? KvWidth(*config) : 0;
  if (status == EA_OK && HasRope(*config) && CheckArenaFits(arena, bytes) == EA_OK) {
    status = CheckKeptOutsideCarve(RopeTablesOf(*config).extents, 2, NextCarve(*arena, bytes));
  }
  ea_mha_quant_params derived{};
  if (status == EA_OK) {
    status =
        PrepareMhaQuantCarve(c, kv_width, *weights, *arena, bytes, &derived, rope.ScoresOperands());
  }
  if (status != EA_OK) return status;

  const uint64_t element = FixedPointBytes(c.dtype);
  const uint64_t e = static_cast<uint64_t>(c.d_model);
  const uint64_t kv = static_cast<uint64_t>(kv_width);
  const uint64_t cache = static_cast<uint64_t>(Capacity(*config)) * kv * element;
  const uint64_t tokens = static_cast<uint64_t>(config->max_step_tokens);
  const uint64_t step = tokens * e * element;
  decoder->carve = arena->base + arena->used;
  decoder->carve_bytes = static_cast<size_t>(bytes);
  decoder->config = *config;
  decoder->weights = *weights;
  CarveMhaQuantParams(arena, c, kv_width, derived, &decoder->params);
  decoder->rope[0] = rope.rope[0];
  decoder->rope[1] = rope.rope[1];
  decoder->position_table = ResolveMhaQuantPositionTable(arena, c);
  decoder->x_positioned = decoder->position_table != nullptr ? CarveBytes(arena, step) : nullptr;
  decoder->q = CarveBytes(arena, step);
  decoder->v = CarveBytes(arena, tokens * kv * element);
  decoder->context = CarveBytes(arena, step);
  decoder->keys = CarveBytes(arena, cache);
  decoder->values_transposed = CarveBytes(arena, cache);
  decoder->head_panels =
      kFixedPointPanels ? CarveBytes(arena, static_cast<uint64_t>(DecoderQuantKvHeads(*config)) *
                                                DecoderQuantHeadPanelBytes(
                                                    Capacity(*config), HeadWidth(*config), c.dtype))
                        : nullptr;
  CarveMhaQuantPanels(arena, c, kv_width, *weights, decoder->weight_panels);
  decoder->softmax_table = CarveSoftmaxTables(arena, c.dtype, decoder->params.softmax);
  decoder->row_scratch = CarveBytes(arena, QuantScratch(Capacity(*config), c.dtype).bytes);
  decoder->length = 0;
  decoder->ready = EA_PLAN_READY;
  return EA_OK;
}

ea_status ea_decoder_quant_reset(ea_decoder_quant* decoder) {
  if (decoder == nullptr) return EA_ERR_NULL_POINTER;
  if (decoder->ready != EA_PLAN_READY) return EA_ERR_BAD_ARGUMENT;
  decoder->length = 0;
  return EA_OK;
}

ea_status ea_decoder_quant_step_s8(ea_decoder_quant* decoder, const int8_t* x, int32_t n_tokens,
                                   int8_t* y) {
  return edgeattn::CheckedStep(decoder, EA_DTYPE_INT8, x, n_tokens, y);
}

ea_status ea_decoder_quant_step_s16(ea_decoder_quant* decoder, const int16_t* x, int32_t n_tokens,
                                    int16_t* y) {
  return edgeattn::CheckedStep(decoder, EA_DTYPE_INT16, x, n_tokens, y);
}

}  // extern "C"
