// The fixed-point decoder's cache and the two halves of its step (see
// quant_cache.h). Each half is a template over the activation type, written
// once for int8 and int16.
#include "ops/decode/quant_cache.h"

#include <stddef.h>
#include <stdint.h>

#include <type_traits>

#include "edgeattn/arena_sizes.hpp"
#include "kernels/int/int_kernels.h"
#include "kernels/int/rope_int.h"
#include "kernels/int/s16_panels.h"
#include "kernels/int/s8_panels.h"
#include "ops/mha/mha_quant_api.h"
#include "ops/quant_attention_core.h"
#include "runtime/arena.h"

namespace edgeattn {

ea_mha_config DecoderQuantLayer(const ea_decoder_quant_config& c) {
  ea_mha_config layer{};
  layer.dtype = c.dtype;
  layer.max_tokens = c.max_positions;
  layer.d_model = c.d_model;
  layer.n_heads = c.n_heads;
  layer.mask = EA_MASK_CAUSAL;
  layer.position = c.position;
  layer.quant_scales = c.quant_scales;
  layer.quant_params = c.quant_params;
  layer.quant_position_table = c.quant_position_table;
  return layer;
}
int32_t HeadWidth(const ea_decoder_quant_config& c) { return c.d_model / c.n_heads; }
int32_t KvWidth(const ea_decoder_quant_config& c) { return KvHeads(c) * HeadWidth(c); }
int32_t Capacity(const ea_decoder_quant_config& c) {
  return DecoderQuantCapacity(c.max_positions, c.max_step_tokens, c.window);
}
bool HasRope(const ea_decoder_quant_config& c) {
  return c.rope_cos_table != nullptr || c.rope_sin_table != nullptr;
}

namespace {

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
         static_cast<size_t>(g) *
             DecoderQuantHeadPanelBytes(Capacity(d.config), HeadWidth(d.config), d.config.dtype);
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

// One of in_proj's projections (0 q, 1 k, 2 v) of `count` rows into out,
// all of its channels (ld the same), on the calling thread, which keeps the
// worker contract: a projection cannot fail.
template <typename T>
void ProjectRows(const ea_decoder_quant& d, int32_t which, const ea_linear_quant_params& params,
                 const T* rows, int32_t count, T* out) {
  if (count == 0) return;
  const ea_mha_config& c = d.layer;
  const int32_t kv_width = KvWidth(d.config);
  const int32_t channels = which == 0 ? c.d_model : kv_width;
  const ea_parallel_for calling_thread{};
  (void)ProjectInProj(calling_thread, c, kv_width, d.weights, d.weight_panels[which], which, params,
                      rows, count, 0, channels, out);
}

// A step's n rows go to cache slots from `slot` on: this many of them
// before the ring's end, the rest from slot 0.
int32_t RowsBeforeTheEnd(int32_t slot, int32_t n, int32_t capacity) {
  return capacity - slot < n ? capacity - slot : n;
}

// The cache's half of a step: k of n rows of `input` into the cache's rows
// from `slot` on (wrapping at the capacity), rotated there for positions
// [position, position + n) with RoPE; v transposed into V^T; both added to
// each KV head's panels, whatever the target, so that a later step on
// AVX3_DL finds every key in them.
template <typename T>
void StoreRows(const ea_decoder_quant& d, const T* input, int32_t n, int32_t slot,
               size_t position) {
  const ea_mha_config& c = d.layer;
  const ea_mha_quant_params& p = d.params;
  const size_t e = static_cast<size_t>(c.d_model);
  const int32_t kv_width = KvWidth(d.config);
  const size_t kv = static_cast<size_t>(kv_width);
  const int32_t capacity = Capacity(d.config);
  const size_t ld_vt = static_cast<size_t>(capacity);
  const int32_t before_end = RowsBeforeTheEnd(slot, n, capacity);
  const int32_t d_k = HeadWidth(d.config);
  const int32_t kv_heads = KvHeads(d.config);
  T* v = static_cast<T*>(d.v);
  T* keys = static_cast<T*>(d.keys);
  T* values_transposed = static_cast<T*>(d.values_transposed);
  // k straight into the ring's rows: from the step's slot, then from slot 0.
  ProjectRows(d, 1, p.k_proj, input, before_end, keys + static_cast<size_t>(slot) * kv);
  ProjectRows(d, 1, p.k_proj, input + static_cast<size_t>(before_end) * e, n - before_end, keys);
  if (HasRope(d.config)) {
    // Rows of the tables at the tokens' positions; k rotated where it is
    // stored, before the panels copy it.
    const size_t row = static_cast<size_t>(d_k);
    const T* cos = static_cast<const T*>(d.config.rope_cos_table) + position * row;
    const T* sin = static_cast<const T*>(d.config.rope_sin_table) + position * row;
    const ea_rope_layout layout = d.config.rope_layout;
    const size_t wrapped = static_cast<size_t>(before_end) * row;
    RopeRows(keys + static_cast<size_t>(slot) * kv, before_end, kv_heads, d_k, cos, sin, layout,
             d.rope[1]);
    RopeRows(keys, n - before_end, kv_heads, d_k, cos + wrapped, sin + wrapped, layout, d.rope[1]);
  }
  ProjectRows(d, 2, p.v_proj, input, n, v);
  for (int32_t g = 0; g < kv_heads; ++g) {
    const size_t column = static_cast<size_t>(g) * static_cast<size_t>(d_k);
    T* head_vt = values_transposed + column * ld_vt;
    Transpose(v + column, kv, before_end, d_k, head_vt + slot, ld_vt);
    if (n > before_end) {
      Transpose(v + static_cast<size_t>(before_end) * kv + column, kv, n - before_end, d_k, head_vt,
                ld_vt);
    }
    if (d.head_panels != nullptr) {
      HeadPanels<T> panels;
      PanelsOfHead(d, g, &panels);
      AddToPanels(panels, d_k, capacity, keys + column, v + column, kv, slot, n,
                  p.scores.input_offset);
    }
  }
}

// The attention half: every query head of the n rows in d.q over the
// cache's `held` keys in the order of their positions (the oldest in slot
// `rotation`), causal with the config's window or unmasked, into d.context;
// then W_O into y.
template <typename T>
void AttendAll(const ea_decoder_quant& d, int32_t n, int32_t held, int32_t rotation, bool causal,
               T* y) {
  const ea_mha_config& c = d.layer;
  const ea_mha_quant_params& p = d.params;
  const ea_mha_quant_weights& w = d.weights;
  const size_t e = static_cast<size_t>(c.d_model);
  const size_t kv = static_cast<size_t>(KvWidth(d.config));
  const int32_t capacity = Capacity(d.config);
  const size_t ld_vt = static_cast<size_t>(capacity);
  const int32_t d_k = HeadWidth(d.config);
  const int32_t kv_heads = KvHeads(d.config);
  const int32_t group = c.n_heads / kv_heads;
  T* q = static_cast<T*>(d.q);
  T* context = static_cast<T*>(d.context);
  T* keys = static_cast<T*>(d.keys);
  T* values_transposed = static_cast<T*>(d.values_transposed);
  ea_quant_core core{};  // only the softmax's table: K and V are read in place
  core.softmax_table = d.softmax_table;
  AttentionQArgs<T> head =
      QuantCoreArgs<T>(p.scores, p.softmax, p.context, core, {n, held, d_k, d_k, causal, held});
  head.window = causal ? d.config.window : 0;
  head.key_rotation = rotation;
  head.ld_q = e;
  head.ld_k = kv;
  head.ld_vt = ld_vt;
  head.ld_out = e;
  const bool packed = d.head_panels != nullptr && UsesS8Panels();
  for (int32_t g = 0; g < kv_heads; ++g) {
    const size_t kv_column = static_cast<size_t>(g) * static_cast<size_t>(d_k);
    if (packed) {
      HeadPanels<T> panels;
      PanelsOfHead(d, g, &panels);
      ReadPanels(panels, capacity, &head);
    }
    head.k = keys + kv_column;
    head.v_transposed = values_transposed + kv_column * ld_vt;
    for (int32_t h = g * group; h < (g + 1) * group; ++h) {
      const size_t column = static_cast<size_t>(h) * static_cast<size_t>(d_k);
      head.q = q + column;
      head.out = context + column;
      AttendRows(head, 0, head.n_q, d.row_scratch);
    }
  }
  const ea_parallel_for calling_thread{};
  (void)RunProjection(calling_thread,
                      ProjectionArgs<T>(context, n, c.d_model, w.out_proj_weight, w.out_proj_bias,
                                        p.out_proj, c.d_model, y, e, d.weight_panels[3]));
}

}  // namespace

void ProjectStepRows(const ea_decoder_quant& d, int32_t which, const ea_linear_quant_params& params,
                     const int8_t* rows, int32_t count, int8_t* out) {
  ProjectRows(d, which, params, rows, count, out);
}
void ProjectStepRows(const ea_decoder_quant& d, int32_t which, const ea_linear_quant_params& params,
                     const int16_t* rows, int32_t count, int16_t* out) {
  ProjectRows(d, which, params, rows, count, out);
}
void StoreKeysValues(const ea_decoder_quant& d, const int8_t* input, int32_t n, int32_t slot,
                     size_t position) {
  StoreRows(d, input, n, slot, position);
}
void StoreKeysValues(const ea_decoder_quant& d, const int16_t* input, int32_t n, int32_t slot,
                     size_t position) {
  StoreRows(d, input, n, slot, position);
}
void AttendHeads(const ea_decoder_quant& d, int32_t n, int32_t held, int32_t rotation, bool causal,
                 int8_t* y) {
  AttendAll(d, n, held, rotation, causal, y);
}
void AttendHeads(const ea_decoder_quant& d, int32_t n, int32_t held, int32_t rotation, bool causal,
                 int16_t* y) {
  AttendAll(d, n, held, rotation, causal, y);
}

void CarveDecoderQuant(ea_decoder_quant* d, const ea_decoder_quant_config& config,
                       int32_t query_rows, const ea_mha_quant_weights& weights,
                       const ea_mha_quant_params& derived, const ea_rope_quant_params rope[2],
                       uint64_t bytes, ea_arena* arena) {
  const ea_mha_config c = DecoderQuantLayer(config);
  const int32_t kv_width = KvWidth(config);
  const uint64_t element = FixedPointBytes(c.dtype);
  const uint64_t e = static_cast<uint64_t>(c.d_model);
  const uint64_t kv = static_cast<uint64_t>(kv_width);
  const uint64_t cache = static_cast<uint64_t>(Capacity(config)) * kv * element;
  const uint64_t tokens = static_cast<uint64_t>(config.max_step_tokens);
  const uint64_t step = tokens * e * element;
  const uint64_t queries = static_cast<uint64_t>(query_rows) * e * element;
  d->carve = arena->base + arena->used;
  d->carve_bytes = static_cast<size_t>(bytes);
  d->config = config;
  d->layer = c;
  d->weights = weights;
  CarveMhaQuantParams(arena, c, kv_width, derived, &d->params);
  d->rope[0] = rope[0];
  d->rope[1] = rope[1];
  d->position_table = ResolveMhaQuantPositionTable(arena, c);
  d->x_positioned = d->position_table != nullptr ? CarveBytes(arena, step) : nullptr;
  d->q = CarveBytes(arena, queries);
  d->v = CarveBytes(arena, tokens * kv * element);
  d->context = CarveBytes(arena, queries);
  d->keys = CarveBytes(arena, cache);
  d->values_transposed = CarveBytes(arena, cache);
  d->head_panels = kFixedPointPanels
                       ? CarveBytes(arena, static_cast<uint64_t>(KvHeads(config)) *
                                               DecoderQuantHeadPanelBytes(
                                                   Capacity(config), HeadWidth(config), c.dtype))
                       : nullptr;
  CarveMhaQuantPanels(arena, c, kv_width, weights, d->weight_panels);
  d->softmax_table = CarveSoftmaxTables(arena, c.dtype, d->params.softmax);
  d->row_scratch = CarveBytes(arena, QuantScratch(Capacity(config), c.dtype).bytes);
  d->length = 0;
}

}  // namespace edgeattn
