// A NULL where an entry point needs a pointer, for the entry points of the
// KV cache, the float and fixed-point decoders, cross-attention, fixed-point
// attention, self-attention and ADD, weight packing, RoPE, ALiBi and the
// weight files (bad_input_test.cc and quant_mha_bad_input_test.cc hold the float
// operations', the arena's and fixed-point MHA's). The C API promises
// EA_ERR_NULL_POINTER and no byte written. Each row nulls one argument of a
// call that succeeds as it stands (the test checks that first, on a world of
// its own), with every output filled with a canary and every plan, cache,
// decoder and arena remembered, then checks the status and that nothing
// changed but the `ready` flag a refused init clears by design.
// tools/check_entry_point_tables.sh (make lint) fails when a public function
// is in none of the three tables.
#include <gtest/gtest.h>
#include <stdint.h>
#include <string.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "data/weights/sample_files.h"
#include "edgeattn/cross.h"
#include "edgeattn/decoder.h"
#include "edgeattn/edgeattn.h"
#include "edgeattn/kv_cache.h"
#include "edgeattn/rope.h"
#include "edgeattn/weight_file.h"
#include "model_fixture.h"
#include "planned_operation.h"
#include "reference/quant_mha_fixture.h"
#include "test_support.h"
#include "untouched_bytes.h"

namespace edgeattn_test {
namespace {

constexpr int32_t kTokens = 4;
constexpr int32_t kDModel = 8;
constexpr int32_t kHeads = 2;
constexpr int32_t kDHead = kDModel / kHeads;
constexpr size_t kElements = static_cast<size_t>(kTokens) * kDModel;

// The arena an init row initialises into, beside the planned one.
struct SpareArena {
  AlignedBytes storage{0};
  ea_arena arena{};
  explicit SpareArena(size_t bytes) : storage(bytes) {
    ea_arena_init(&arena, storage.data(), bytes);
  }
};

using PlannedCache = Planned<ea_kv_cache, ea_kv_cache_config>;
using PlannedDecoder = Planned<ea_decoder, ea_decoder_config, ea_mha_weights>;
using PlannedCross = Planned<ea_cross, ea_cross_config, ea_mha_weights>;
using PlannedQuantAttention = Planned<ea_attention_quant_plan, ea_attention_config>;
using PlannedQuantSelfAttention = Planned<ea_self_attention_quant_plan, ea_self_attention_config,
                                          ea_self_attention_quant_weights>;

ea_kv_cache_config CacheConfig() {
  ea_kv_cache_config c{};
  c.capacity = kTokens;
  c.n_heads = kHeads;
  c.n_kv_heads = kHeads;
  c.d_head = kDHead;
  c.max_queries = kTokens;
  c.storage = EA_KV_STORAGE_F32;
  return c;
}

ea_decoder_config DecoderConfig() {
  ea_decoder_config c{};
  c.d_model = kDModel;
  c.n_heads = kHeads;
  c.n_kv_heads = kHeads;
  c.max_positions = kTokens;
  c.max_step_tokens = kTokens;
  c.storage = EA_KV_STORAGE_F32;
  return c;
}

ea_cross_config CrossConfig() {
  ea_cross_config c{};
  c.d_model = kDModel;
  c.n_heads = kHeads;
  c.n_kv_heads = kHeads;
  c.max_memory = kTokens;
  c.max_queries = kTokens;
  c.storage = EA_KV_STORAGE_F32;
  return c;
}

// int16 activations are symmetric: every zero point 0.
ea_attention_quant_scales AttentionScales(ea_dtype dtype) {
  const bool int8 = dtype == EA_DTYPE_INT8;
  ea_attention_quant_scales s{};
  s.q = {0.05f, int8 ? 1 : 0};
  s.k = {0.04f, int8 ? -2 : 0};
  s.v = {0.03f, int8 ? 3 : 0};
  s.scores = {0.02f, 0};
  s.output = {0.02f, 0};
  return s;
}

ea_attention_config AttentionConfig(ea_dtype dtype, const ea_attention_quant_scales* scales) {
  ea_attention_config c{};
  c.dtype = dtype;
  c.n_q = kTokens;
  c.n_kv = kTokens;
  c.d_k = kDModel;
  c.d_v = kDModel;
  c.quant_scales = scales;
  return c;
}

ea_self_attention_quant_scales SelfAttentionScales(ea_dtype dtype, const float* w_scales) {
  const bool int8 = dtype == EA_DTYPE_INT8;
  ea_self_attention_quant_scales s{};
  s.input = {0.05f, int8 ? 2 : 0};
  s.q = {0.05f, int8 ? 1 : 0};
  s.k = {0.04f, int8 ? -1 : 0};
  s.v = {0.03f, 0};
  s.scores = {0.02f, 0};
  s.output = {0.02f, 0};
  s.w_q_scales = w_scales;
  s.w_k_scales = w_scales;
  s.w_v_scales = w_scales;
  return s;
}

ea_self_attention_config SelfAttentionConfig(ea_dtype dtype,
                                             const ea_self_attention_quant_scales* scales) {
  ea_self_attention_config c{};
  c.dtype = dtype;
  c.max_tokens = kTokens;
  c.d_model = kDModel;
  c.d_k = kDHead;
  c.d_v = kDHead;
  c.quant_scales = scales;
  return c;
}

ea_decoder_quant_config QuantDecoderConfig(const QuantMhaLayer& layer) {
  ea_decoder_quant_config c = DecoderQuantConfigOf(layer.config);
  c.max_step_tokens = kTokens;
  return c;
}

ea_cross_quant_config QuantCrossConfig(const QuantMhaLayer& layer, ea_quant memory) {
  return CrossQuantConfigOf(layer.config, kTokens, 0, memory);
}

// One valid instance of every family, planned and ready (planned_operation.h),
// with inputs and outputs; `spare_*` are the objects the init rows initialise,
// over arenas of their own.
struct World {
  // Float KV cache, decoder and cross-attention on a 2-head layer of 8.
  MhaModel model{kDModel, kHeads, true, 7100};
  ea_mha_weights weights = model.Weights();
  ea_kv_cache_config cache_config = CacheConfig();
  PlannedCache cache{ea_kv_cache_arena_size, ea_kv_cache_init, cache_config};
  ea_decoder_config decoder_config = DecoderConfig();
  PlannedDecoder decoder{ea_decoder_arena_size, ea_decoder_init, decoder_config, weights};
  ea_cross_config cross_config = CrossConfig();
  PlannedCross cross{ea_cross_arena_size, ea_cross_init, cross_config, weights};
  SpareArena spare_cache_arena{cache.bytes}, spare_decoder_arena{decoder.bytes},
      spare_cross_arena{cross.bytes};
  ea_kv_cache spare_cache{};
  ea_decoder spare_decoder{};
  ea_cross spare_cross{};
  std::vector<float> x = std::vector<float>(kElements, 0.25f);
  std::vector<float> y = std::vector<float>(kElements);
  std::vector<float> packed = std::vector<float>(64 * kDModel);  // one panel of 64 outputs
  std::vector<float> slopes = std::vector<float>(kHeads);
  std::vector<float> rope_table = std::vector<float>(static_cast<size_t>(kTokens) * kDHead);
  size_t bytes = 0;

  // Fixed-point Attention(Q, K, V), int8 and int16.
  ea_attention_quant_scales attention_scales_s8 = AttentionScales(EA_DTYPE_INT8),
                            attention_scales_s16 = AttentionScales(EA_DTYPE_INT16);
  ea_attention_config attention_s8 = AttentionConfig(EA_DTYPE_INT8, &attention_scales_s8),
                      attention_s16 = AttentionConfig(EA_DTYPE_INT16, &attention_scales_s16);
  PlannedQuantAttention plan_s8{ea_attention_quant_arena_size, ea_attention_quant_init,
                                attention_s8};
  PlannedQuantAttention plan_s16{ea_attention_quant_arena_size, ea_attention_quant_init,
                                 attention_s16};
  SpareArena spare_attention_arena{plan_s16.bytes};
  ea_attention_quant_plan spare_attention_plan{};
  std::vector<int8_t> q8 = std::vector<int8_t>(kElements, 3), out8 = std::vector<int8_t>(kElements);
  std::vector<int16_t> q16 = std::vector<int16_t>(kElements, 300),
                       out16 = std::vector<int16_t>(kElements);

  // Fixed-point self-attention (one head of kDHead), int8 and int16, and its derive.
  std::vector<float> w_scales = std::vector<float>(kDHead, 0.01f);
  std::vector<int8_t> self_w = std::vector<int8_t>(static_cast<size_t>(kDHead) * kDModel, 5);
  ea_self_attention_quant_weights self_weights{self_w.data(), self_w.data(), self_w.data(),
                                               nullptr,       nullptr,       nullptr};
  ea_self_attention_quant_scales self_scales = SelfAttentionScales(EA_DTYPE_INT8, w_scales.data()),
                                 self_scales16 =
                                     SelfAttentionScales(EA_DTYPE_INT16, w_scales.data());
  ea_self_attention_config self_config = SelfAttentionConfig(EA_DTYPE_INT8, &self_scales),
                           self_config16 = SelfAttentionConfig(EA_DTYPE_INT16, &self_scales16);
  PlannedQuantSelfAttention self_plan{ea_self_attention_quant_arena_size,
                                      ea_self_attention_quant_init, self_config, self_weights};
  PlannedQuantSelfAttention self_plan16{ea_self_attention_quant_arena_size,
                                        ea_self_attention_quant_init, self_config16, self_weights};
  SpareArena spare_self_arena{self_plan.bytes};
  ea_self_attention_quant_plan spare_self_plan{};
  ea_self_attention_quant_params self_params{};
  std::vector<int32_t> self_channel_ints =
      std::vector<int32_t>(EA_SELF_ATTENTION_QUANT_CHANNEL_INTS(kDHead, kDHead));

  // ADD.
  ea_add_quant_params add8{}, add16{};
  // MUL, and the params a derive row would write.
  ea_mul_quant_params mul8{}, mul16{}, mul_derived{};
  // Fixed-point RoPE: its scales (int8 with zero points), derived params.
  ea_rope_quant_scales rope_scales8{{0.05f, 1}, {1.0f / 127, 0}, {1.0f / 127, 0},
                                    {0.1f, 0},  {0.1f, 0},       {0.1f, 0}};
  ea_rope_quant_scales rope_scales16{{0.001f, 0}, {1.0f / 32767, 0}, {1.0f / 32767, 0},
                                     {0.002f, 0}, {0.002f, 0},       {0.002f, 0}};
  ea_rope_quant_params rope8{}, rope16{}, rope_derived{};

  // Fixed-point decoders, int8 and int16.
  QuantMhaCase quant8 = RandomQuantMha(EA_DTYPE_INT8, {kTokens, kDModel, kHeads, true, true}, 7200);
  QuantMhaCase quant16 =
      RandomQuantMha(EA_DTYPE_INT16, {kTokens, kDModel, kHeads, true, true}, 7300);
  QuantMhaLayer layer8{quant8}, layer16{quant16};
  ea_decoder_quant_config quant_config8 = QuantDecoderConfig(layer8),
                          quant_config16 = QuantDecoderConfig(layer16);
  PlannedQuantDecoder quant_decoder8{ea_decoder_quant_arena_size, ea_decoder_quant_init,
                                     quant_config8, layer8.weights};
  PlannedQuantDecoder quant_decoder16{ea_decoder_quant_arena_size, ea_decoder_quant_init,
                                      quant_config16, layer16.weights};
  SpareArena spare_quant_arena{quant_decoder16.bytes};
  ea_decoder_quant spare_quant_decoder{};
  ea_mha_quant_params quant_params{};
  std::vector<int32_t> quant_channel_ints =
      std::vector<int32_t>(EA_MHA_QUANT_CHANNEL_INTS(kDModel));

  // Fixed-point cross-attention, int8 and int16 (no mask, no positions).
  QuantMhaCase cross8 =
      RandomQuantMha(EA_DTYPE_INT8, {kTokens, kDModel, kHeads, false, false}, 7400);
  QuantMhaCase cross16 =
      RandomQuantMha(EA_DTYPE_INT16, {kTokens, kDModel, kHeads, false, false}, 7500);
  QuantMhaLayer cross_layer8{cross8}, cross_layer16{cross16};
  ea_cross_quant_config cross_config8 = QuantCrossConfig(cross_layer8, {0.05f, 3}),
                        cross_config16 = QuantCrossConfig(cross_layer16, {0.001f, 0});
  PlannedQuantCross quant_cross8{ea_cross_quant_arena_size, ea_cross_quant_init, cross_config8,
                                 cross_layer8.weights};
  PlannedQuantCross quant_cross16{ea_cross_quant_arena_size, ea_cross_quant_init, cross_config16,
                                  cross_layer16.weights};
  SpareArena spare_quant_cross_arena{quant_cross16.bytes};
  ea_cross_quant spare_quant_cross{};

  // Weight files.
  ea_weight_file file{}, spare_file{};
  ea_tensor_view view{};
  ea_mha_weights file_weights{};
  ea_weights_layout file_layout = EA_WEIGHTS_ROW_MAJOR;
  std::vector<uint8_t> scratch = std::vector<uint8_t>(4096);

  bool ready = false;

  World() {
    for (ea_status planned :
         {cache.status, decoder.status, cross.status, plan_s8.status, plan_s16.status,
          self_plan.status, self_plan16.status, quant_decoder8.status, quant_decoder16.status,
          quant_cross8.status, quant_cross16.status}) {
      if (planned != EA_OK) return;
    }
    ready =
        ea_kv_cache_append(&cache.plan, x.data(), x.data(), 1) == EA_OK &&  // a key to see
        ea_cross_set_memory(&cross.plan, x.data(), kTokens) == EA_OK &&
        ea_cross_quant_set_memory_s8(&quant_cross8.plan, q8.data(), kTokens) == EA_OK &&
        ea_cross_quant_set_memory_s16(&quant_cross16.plan, q16.data(), kTokens) == EA_OK &&
        ea_add_quant_derive(EA_DTYPE_INT8, {0.05f, 1}, {0.04f, -3}, {0.06f, 2}, &add8) == EA_OK &&
        ea_add_quant_derive(EA_DTYPE_INT16, {0.05f, 0}, {0.04f, 0}, {0.06f, 0}, &add16) == EA_OK &&
        ea_mul_quant_derive(EA_DTYPE_INT8, {0.05f, 1}, {0.04f, -3}, {0.06f, 2}, &mul8) == EA_OK &&
        ea_mul_quant_derive(EA_DTYPE_INT16, {0.05f, 0}, {0.04f, 0}, {0.06f, 0}, &mul16) == EA_OK &&
        ea_rope_quant_derive(EA_DTYPE_INT8, &rope_scales8, &rope8) == EA_OK &&
        ea_rope_quant_derive(EA_DTYPE_INT16, &rope_scales16, &rope16) == EA_OK &&
        ea_weight_file_open(&file, kSampleBlob, kSampleBlob_size) == EA_OK;
  }
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // What a refused call must leave as it was: outputs (canary) and state.
  void Watch(UntouchedBytes* watched) {
    watched->FillWithCanary("y", y.data(), y.size() * sizeof(float));
    watched->FillWithCanary("packed", packed.data(), packed.size() * sizeof(float));
    watched->FillWithCanary("slopes", slopes.data(), slopes.size() * sizeof(float));
    watched->FillWithCanary("rope table", rope_table.data(), rope_table.size() * sizeof(float));
    watched->FillWithCanary("bytes", &bytes, sizeof(bytes));
    watched->FillWithCanary("out8", out8.data(), out8.size());
    watched->FillWithCanary("out16", out16.data(), out16.size() * sizeof(int16_t));
    watched->FillWithCanary("self params", &self_params, sizeof(self_params));
    watched->FillWithCanary("self channel ints", self_channel_ints.data(),
                            self_channel_ints.size() * sizeof(int32_t));
    watched->FillWithCanary("quant params", &quant_params, sizeof(quant_params));
    watched->FillWithCanary("quant channel ints", quant_channel_ints.data(),
                            quant_channel_ints.size() * sizeof(int32_t));
    watched->FillWithCanary("view", &view, sizeof(view));
    watched->FillWithCanary("file weights", &file_weights, sizeof(file_weights));
    watched->FillWithCanary("file layout", &file_layout, sizeof(file_layout));
    watched->FillWithCanary("spare cache", &spare_cache, sizeof(spare_cache));
    watched->FillWithCanary("spare decoder", &spare_decoder, sizeof(spare_decoder));
    watched->FillWithCanary("spare cross", &spare_cross, sizeof(spare_cross));
    watched->FillWithCanary("spare attention plan", &spare_attention_plan,
                            sizeof(spare_attention_plan));
    watched->FillWithCanary("spare self plan", &spare_self_plan, sizeof(spare_self_plan));
    watched->FillWithCanary("spare quant decoder", &spare_quant_decoder,
                            sizeof(spare_quant_decoder));
    watched->FillWithCanary("spare quant cross", &spare_quant_cross, sizeof(spare_quant_cross));
    watched->FillWithCanary("spare file", &spare_file, sizeof(spare_file));
    watched->Remember("x", x.data(), x.size() * sizeof(float));
    watched->Remember("add8", &add8, sizeof(add8));
    watched->Remember("mul8", &mul8, sizeof(mul8));
    watched->Remember("mul16", &mul16, sizeof(mul16));
    watched->Remember("rope8", &rope8, sizeof(rope8));
    watched->Remember("rope16", &rope16, sizeof(rope16));
    watched->FillWithCanary("mul derived", &mul_derived, sizeof(mul_derived));
    watched->FillWithCanary("rope derived", &rope_derived, sizeof(rope_derived));
    watched->Remember("file", &file, sizeof(file));
    RememberPlanned("cache", cache, watched);
    RememberPlanned("decoder", decoder, watched);
    RememberPlanned("cross", cross, watched);
    RememberPlanned("plan s8", plan_s8, watched);
    RememberPlanned("plan s16", plan_s16, watched);
    RememberPlanned("self plan", self_plan, watched);
    RememberPlanned("self plan 16", self_plan16, watched);
    RememberPlanned("quant decoder 8", quant_decoder8, watched);
    RememberPlanned("quant decoder 16", quant_decoder16, watched);
    RememberPlanned("quant cross 8", quant_cross8, watched);
    RememberPlanned("quant cross 16", quant_cross16, watched);
    for (const SpareArena* a :
         {&spare_cache_arena, &spare_decoder_arena, &spare_cross_arena, &spare_attention_arena,
          &spare_self_arena, &spare_quant_arena, &spare_quant_cross_arena}) {
      watched->Remember("a spare arena", a->storage.data(), a->storage.size());
      watched->Remember("a spare arena struct", &a->arena, sizeof(a->arena));
    }
  }

  // Init rows clear the `ready` flag of the object they were to initialise
  // (a failed re-init must not leave an old plan usable): canary again.
  void RestoreClearedReadyFlags() {
    memset(&spare_cache.ready, kCanaryByte, sizeof(spare_cache.ready));
    memset(&spare_decoder.ready, kCanaryByte, sizeof(spare_decoder.ready));
    memset(&spare_cross.ready, kCanaryByte, sizeof(spare_cross.ready));
    memset(&spare_attention_plan.ready, kCanaryByte, sizeof(spare_attention_plan.ready));
    memset(&spare_self_plan.ready, kCanaryByte, sizeof(spare_self_plan.ready));
    memset(&spare_quant_decoder.ready, kCanaryByte, sizeof(spare_quant_decoder.ready));
    memset(&spare_quant_cross.ready, kCanaryByte, sizeof(spare_quant_cross.ready));
    memset(&spare_file.ready, kCanaryByte, sizeof(spare_file.ready));
  }

 private:
  // A planned object and its arena's bytes.
  template <typename P>
  static void RememberPlanned(const char* what, const P& planned, UntouchedBytes* watched) {
    watched->Remember(what, &planned.plan, sizeof(planned.plan));
    watched->Remember(what, planned.storage.data(), planned.storage.size());
  }
};

// One row: `call` makes the entry point's call with `argument` NULL (or, for
// the valid-call check, as it stands when `null_argument` is false).
struct NullRow {
  const char* function;
  const char* argument;
  ea_status (*call)(World& w, bool null_argument);
};

void PrintTo(const NullRow& row, std::ostream* os) { *os << row.function << "/" << row.argument; }

template <typename T>
T* Maybe(bool null_argument, T* pointer) {
  return null_argument ? nullptr : pointer;
}

// A row of kNullRows: `body` is the call, with Maybe(null_argument, p) for the
// argument the row is about.
#define EA_ROW(function, argument, body)                                \
  NullRow {                                                             \
#function, #argument, [](World& w, bool null_argument) -> ea_status { \
      (void)w;                                                           \
      (void)null_argument;                                               \
      return body;                                                       \
    } \
  }

const NullRow kNullRows[] = {
    // KV cache and ALiBi.
    EA_ROW(ea_kv_cache_arena_size, config,
           ea_kv_cache_arena_size(Maybe(null_argument, &w.cache_config), &w.bytes)),
    EA_ROW(ea_kv_cache_arena_size, bytes,
           ea_kv_cache_arena_size(&w.cache_config, Maybe(null_argument, &w.bytes))),
    EA_ROW(ea_alibi_slopes_fill, slopes,
           ea_alibi_slopes_fill(Maybe(null_argument, w.slopes.data()), kHeads)),
    EA_ROW(ea_kv_cache_init, cache,
           ea_kv_cache_init(Maybe(null_argument, &w.spare_cache), &w.cache_config,
                            &w.spare_cache_arena.arena)),
    EA_ROW(ea_kv_cache_init, config,
           ea_kv_cache_init(&w.spare_cache, Maybe(null_argument, &w.cache_config),
                            &w.spare_cache_arena.arena)),
    EA_ROW(ea_kv_cache_init, arena,
           ea_kv_cache_init(&w.spare_cache, &w.cache_config,
                            Maybe(null_argument, &w.spare_cache_arena.arena))),
    EA_ROW(ea_kv_cache_reset, cache, ea_kv_cache_reset(Maybe(null_argument, &w.cache.plan))),
    EA_ROW(ea_kv_cache_append, cache,
           ea_kv_cache_append(Maybe(null_argument, &w.cache.plan), w.x.data(), w.x.data(), 1)),
    EA_ROW(ea_kv_cache_append, k,
           ea_kv_cache_append(&w.cache.plan, Maybe(null_argument, w.x.data()), w.x.data(), 1)),
    EA_ROW(ea_kv_cache_append, v,
           ea_kv_cache_append(&w.cache.plan, w.x.data(), Maybe(null_argument, w.x.data()), 1)),
    EA_ROW(ea_kv_cache_attend, cache,
           ea_kv_cache_attend(Maybe(null_argument, &w.cache.plan), w.x.data(), 1, w.y.data())),
    EA_ROW(ea_kv_cache_attend, q,
           ea_kv_cache_attend(&w.cache.plan, Maybe(null_argument, w.x.data()), 1, w.y.data())),
    EA_ROW(ea_kv_cache_attend, out,
           ea_kv_cache_attend(&w.cache.plan, w.x.data(), 1, Maybe(null_argument, w.y.data()))),
    EA_ROW(ea_kv_cache_attend_all, cache,
           ea_kv_cache_attend_all(Maybe(null_argument, &w.cache.plan), w.x.data(), 1, w.y.data())),
    EA_ROW(ea_kv_cache_attend_all, q,
           ea_kv_cache_attend_all(&w.cache.plan, Maybe(null_argument, w.x.data()), 1, w.y.data())),
    EA_ROW(ea_kv_cache_attend_all, out,
           ea_kv_cache_attend_all(&w.cache.plan, w.x.data(), 1, Maybe(null_argument, w.y.data()))),

    // The float decoder.
    EA_ROW(ea_decoder_arena_size, config,
           ea_decoder_arena_size(Maybe(null_argument, &w.decoder_config), &w.bytes)),
    EA_ROW(ea_decoder_arena_size, bytes,
           ea_decoder_arena_size(&w.decoder_config, Maybe(null_argument, &w.bytes))),
    EA_ROW(ea_decoder_init, decoder,
           ea_decoder_init(Maybe(null_argument, &w.spare_decoder), &w.decoder_config, &w.weights,
                           &w.spare_decoder_arena.arena)),
    EA_ROW(ea_decoder_init, config,
           ea_decoder_init(&w.spare_decoder, Maybe(null_argument, &w.decoder_config), &w.weights,
                           &w.spare_decoder_arena.arena)),
    EA_ROW(ea_decoder_init, weights,
           ea_decoder_init(&w.spare_decoder, &w.decoder_config, Maybe(null_argument, &w.weights),
                           &w.spare_decoder_arena.arena)),
    EA_ROW(ea_decoder_init, arena,
           ea_decoder_init(&w.spare_decoder, &w.decoder_config, &w.weights,
                           Maybe(null_argument, &w.spare_decoder_arena.arena))),
    EA_ROW(ea_decoder_reset, decoder, ea_decoder_reset(Maybe(null_argument, &w.decoder.plan))),
    EA_ROW(ea_decoder_step, decoder,
           ea_decoder_step(Maybe(null_argument, &w.decoder.plan), w.x.data(), 1, w.y.data())),
    EA_ROW(ea_decoder_step, x,
           ea_decoder_step(&w.decoder.plan, Maybe(null_argument, w.x.data()), 1, w.y.data())),
    EA_ROW(ea_decoder_step, y,
           ea_decoder_step(&w.decoder.plan, w.x.data(), 1, Maybe(null_argument, w.y.data()))),

    // Cross-attention.
    EA_ROW(ea_cross_arena_size, config,
           ea_cross_arena_size(Maybe(null_argument, &w.cross_config), &w.bytes)),
    EA_ROW(ea_cross_arena_size, bytes,
           ea_cross_arena_size(&w.cross_config, Maybe(null_argument, &w.bytes))),
    EA_ROW(ea_cross_init, cross,
           ea_cross_init(Maybe(null_argument, &w.spare_cross), &w.cross_config, &w.weights,
                         &w.spare_cross_arena.arena)),
    EA_ROW(ea_cross_init, config,
           ea_cross_init(&w.spare_cross, Maybe(null_argument, &w.cross_config), &w.weights,
                         &w.spare_cross_arena.arena)),
    EA_ROW(ea_cross_init, weights,
           ea_cross_init(&w.spare_cross, &w.cross_config, Maybe(null_argument, &w.weights),
                         &w.spare_cross_arena.arena)),
    EA_ROW(ea_cross_init, arena,
           ea_cross_init(&w.spare_cross, &w.cross_config, &w.weights,
                         Maybe(null_argument, &w.spare_cross_arena.arena))),
    EA_ROW(ea_cross_set_memory, cross,
           ea_cross_set_memory(Maybe(null_argument, &w.cross.plan), w.x.data(), kTokens)),
    EA_ROW(ea_cross_set_memory, memory,
           ea_cross_set_memory(&w.cross.plan, Maybe(null_argument, w.x.data()), kTokens)),
    EA_ROW(ea_cross_run, cross,
           ea_cross_run(Maybe(null_argument, &w.cross.plan), w.x.data(), 1, w.y.data())),
    EA_ROW(ea_cross_run, x,
           ea_cross_run(&w.cross.plan, Maybe(null_argument, w.x.data()), 1, w.y.data())),
    EA_ROW(ea_cross_run, y,
           ea_cross_run(&w.cross.plan, w.x.data(), 1, Maybe(null_argument, w.y.data()))),

    // Fixed-point Attention(Q, K, V).
    EA_ROW(ea_attention_quant_init, plan,
           ea_attention_quant_init(Maybe(null_argument, &w.spare_attention_plan), &w.attention_s16,
                                   &w.spare_attention_arena.arena)),
    EA_ROW(ea_attention_quant_init, config,
           ea_attention_quant_init(&w.spare_attention_plan, Maybe(null_argument, &w.attention_s16),
                                   &w.spare_attention_arena.arena)),
    EA_ROW(ea_attention_quant_init, arena,
           ea_attention_quant_init(&w.spare_attention_plan, &w.attention_s16,
                                   Maybe(null_argument, &w.spare_attention_arena.arena))),
    EA_ROW(
        ea_attention_quant_run_s8, plan,
        ea_attention_quant_run_s8(Maybe(null_argument, &w.plan_s8.plan), w.q8.data(), w.q8.data(),
                                  w.q8.data(), w.plan_s8.plan.config.n_kv, w.out8.data(), nullptr)),
    EA_ROW(
        ea_attention_quant_run_s8, q,
        ea_attention_quant_run_s8(&w.plan_s8.plan, Maybe(null_argument, w.q8.data()), w.q8.data(),
                                  w.q8.data(), w.plan_s8.plan.config.n_kv, w.out8.data(), nullptr)),
    EA_ROW(
        ea_attention_quant_run_s8, k,
        ea_attention_quant_run_s8(&w.plan_s8.plan, w.q8.data(), Maybe(null_argument, w.q8.data()),
                                  w.q8.data(), w.plan_s8.plan.config.n_kv, w.out8.data(), nullptr)),
    EA_ROW(ea_attention_quant_run_s8, v,
           ea_attention_quant_run_s8(&w.plan_s8.plan, w.q8.data(), w.q8.data(),
                                     Maybe(null_argument, w.q8.data()), w.plan_s8.plan.config.n_kv,
                                     w.out8.data(), nullptr)),
    EA_ROW(ea_attention_quant_run_s8, out,
           ea_attention_quant_run_s8(&w.plan_s8.plan, w.q8.data(), w.q8.data(), w.q8.data(),
                                     w.plan_s8.plan.config.n_kv,
                                     Maybe(null_argument, w.out8.data()), nullptr)),
    EA_ROW(ea_attention_quant_run_s16, plan,
           ea_attention_quant_run_s16(Maybe(null_argument, &w.plan_s16.plan), w.q16.data(),
                                      w.q16.data(), w.q16.data(), w.plan_s16.plan.config.n_kv,
                                      w.out16.data(), nullptr)),
    EA_ROW(ea_attention_quant_run_s16, q,
           ea_attention_quant_run_s16(&w.plan_s16.plan, Maybe(null_argument, w.q16.data()),
                                      w.q16.data(), w.q16.data(), w.plan_s16.plan.config.n_kv,
                                      w.out16.data(), nullptr)),
    EA_ROW(ea_attention_quant_run_s16, k,
           ea_attention_quant_run_s16(&w.plan_s16.plan, w.q16.data(),
                                      Maybe(null_argument, w.q16.data()), w.q16.data(),
                                      w.plan_s16.plan.config.n_kv, w.out16.data(), nullptr)),
    EA_ROW(ea_attention_quant_run_s16, v,
           ea_attention_quant_run_s16(&w.plan_s16.plan, w.q16.data(), w.q16.data(),
                                      Maybe(null_argument, w.q16.data()),
                                      w.plan_s16.plan.config.n_kv, w.out16.data(), nullptr)),
    EA_ROW(ea_attention_quant_run_s16, out,
           ea_attention_quant_run_s16(&w.plan_s16.plan, w.q16.data(), w.q16.data(), w.q16.data(),
                                      w.plan_s16.plan.config.n_kv,
                                      Maybe(null_argument, w.out16.data()), nullptr)),

    // Fixed-point self-attention.
    EA_ROW(ea_self_attention_quant_derive, config,
           ea_self_attention_quant_derive(Maybe(null_argument, &w.self_config), &w.self_params,
                                          w.self_channel_ints.data(), w.self_channel_ints.size())),
    EA_ROW(ea_self_attention_quant_derive, params,
           ea_self_attention_quant_derive(&w.self_config, Maybe(null_argument, &w.self_params),
                                          w.self_channel_ints.data(), w.self_channel_ints.size())),
    EA_ROW(ea_self_attention_quant_derive, channel_ints,
           ea_self_attention_quant_derive(&w.self_config, &w.self_params,
                                          Maybe(null_argument, w.self_channel_ints.data()),
                                          w.self_channel_ints.size())),
    EA_ROW(ea_self_attention_quant_init, plan,
           ea_self_attention_quant_init(Maybe(null_argument, &w.spare_self_plan), &w.self_config,
                                        &w.self_weights, &w.spare_self_arena.arena)),
    EA_ROW(ea_self_attention_quant_init, config,
           ea_self_attention_quant_init(&w.spare_self_plan, Maybe(null_argument, &w.self_config),
                                        &w.self_weights, &w.spare_self_arena.arena)),
    EA_ROW(ea_self_attention_quant_init, weights,
           ea_self_attention_quant_init(&w.spare_self_plan, &w.self_config,
                                        Maybe(null_argument, &w.self_weights),
                                        &w.spare_self_arena.arena)),
    EA_ROW(ea_self_attention_quant_init, arena,
           ea_self_attention_quant_init(&w.spare_self_plan, &w.self_config, &w.self_weights,
                                        Maybe(null_argument, &w.spare_self_arena.arena))),
    EA_ROW(ea_self_attention_quant_run_s8, plan,
           ea_self_attention_quant_run_s8(Maybe(null_argument, &w.self_plan.plan), w.q8.data(),
                                          kTokens, kTokens, w.out8.data(), nullptr)),
    EA_ROW(ea_self_attention_quant_run_s8, x,
           ea_self_attention_quant_run_s8(&w.self_plan.plan, Maybe(null_argument, w.q8.data()),
                                          kTokens, kTokens, w.out8.data(), nullptr)),
    EA_ROW(ea_self_attention_quant_run_s8, y,
           ea_self_attention_quant_run_s8(&w.self_plan.plan, w.q8.data(), kTokens, kTokens,
                                          Maybe(null_argument, w.out8.data()), nullptr)),

    EA_ROW(ea_self_attention_quant_run_s16, plan,
           ea_self_attention_quant_run_s16(Maybe(null_argument, &w.self_plan16.plan), w.q16.data(),
                                           kTokens, kTokens, w.out16.data(), nullptr)),
    EA_ROW(ea_self_attention_quant_run_s16, x,
           ea_self_attention_quant_run_s16(&w.self_plan16.plan, Maybe(null_argument, w.q16.data()),
                                           kTokens, kTokens, w.out16.data(), nullptr)),
    EA_ROW(ea_self_attention_quant_run_s16, y,
           ea_self_attention_quant_run_s16(&w.self_plan16.plan, w.q16.data(), kTokens, kTokens,
                                           Maybe(null_argument, w.out16.data()), nullptr)),

    // Packed weights.
    EA_ROW(ea_linear_packed_size, floats,
           ea_linear_packed_size(kDModel, kDModel, Maybe(null_argument, &w.bytes))),
    EA_ROW(ea_linear_pack_weights, w,
           ea_linear_pack_weights(Maybe(null_argument, w.x.data()), kTokens, kDModel,
                                  w.packed.data(), w.packed.size())),
    EA_ROW(ea_linear_pack_weights, packed,
           ea_linear_pack_weights(w.x.data(), kTokens, kDModel,
                                  Maybe(null_argument, w.packed.data()), w.packed.size())),

    // ADD.
    EA_ROW(ea_add_quant_derive, params,
           ea_add_quant_derive(EA_DTYPE_INT8, {0.05f, 1}, {0.04f, -3}, {0.06f, 2},
                               Maybe(null_argument, &w.self_params.add))),
    EA_ROW(ea_add_quant_run_s8, a,
           ea_add_quant_run_s8(Maybe(null_argument, w.q8.data()), w.q8.data(), kElements, &w.add8,
                               w.out8.data())),
    EA_ROW(ea_add_quant_run_s8, b,
           ea_add_quant_run_s8(w.q8.data(), Maybe(null_argument, w.q8.data()), kElements, &w.add8,
                               w.out8.data())),
    EA_ROW(ea_add_quant_run_s8, params,
           ea_add_quant_run_s8(w.q8.data(), w.q8.data(), kElements, Maybe(null_argument, &w.add8),
                               w.out8.data())),
    EA_ROW(ea_add_quant_run_s8, out,
           ea_add_quant_run_s8(w.q8.data(), w.q8.data(), kElements, &w.add8,
                               Maybe(null_argument, w.out8.data()))),
    EA_ROW(ea_add_quant_run_s16, a,
           ea_add_quant_run_s16(Maybe(null_argument, w.q16.data()), w.q16.data(), kElements,
                                &w.add16, w.out16.data())),
    EA_ROW(ea_add_quant_run_s16, b,
           ea_add_quant_run_s16(w.q16.data(), Maybe(null_argument, w.q16.data()), kElements,
                                &w.add16, w.out16.data())),
    EA_ROW(ea_add_quant_run_s16, params,
           ea_add_quant_run_s16(w.q16.data(), w.q16.data(), kElements,
                                Maybe(null_argument, &w.add16), w.out16.data())),
    EA_ROW(ea_add_quant_run_s16, out,
           ea_add_quant_run_s16(w.q16.data(), w.q16.data(), kElements, &w.add16,
                                Maybe(null_argument, w.out16.data()))),

    // MUL.
    EA_ROW(ea_mul_quant_derive, params,
           ea_mul_quant_derive(EA_DTYPE_INT8, {0.05f, 1}, {0.04f, -3}, {0.06f, 2},
                               Maybe(null_argument, &w.mul_derived))),
    EA_ROW(ea_mul_quant_run_s8, a,
           ea_mul_quant_run_s8(Maybe(null_argument, w.q8.data()), w.q8.data(), kElements, &w.mul8,
                               w.out8.data())),
    EA_ROW(ea_mul_quant_run_s8, b,
           ea_mul_quant_run_s8(w.q8.data(), Maybe(null_argument, w.q8.data()), kElements, &w.mul8,
                               w.out8.data())),
    EA_ROW(ea_mul_quant_run_s8, params,
           ea_mul_quant_run_s8(w.q8.data(), w.q8.data(), kElements, Maybe(null_argument, &w.mul8),
                               w.out8.data())),
    EA_ROW(ea_mul_quant_run_s8, out,
           ea_mul_quant_run_s8(w.q8.data(), w.q8.data(), kElements, &w.mul8,
                               Maybe(null_argument, w.out8.data()))),
    EA_ROW(ea_mul_quant_run_s16, a,
           ea_mul_quant_run_s16(Maybe(null_argument, w.q16.data()), w.q16.data(), kElements,
                                &w.mul16, w.out16.data())),
    EA_ROW(ea_mul_quant_run_s16, b,
           ea_mul_quant_run_s16(w.q16.data(), Maybe(null_argument, w.q16.data()), kElements,
                                &w.mul16, w.out16.data())),
    EA_ROW(ea_mul_quant_run_s16, params,
           ea_mul_quant_run_s16(w.q16.data(), w.q16.data(), kElements,
                                Maybe(null_argument, &w.mul16), w.out16.data())),
    EA_ROW(ea_mul_quant_run_s16, out,
           ea_mul_quant_run_s16(w.q16.data(), w.q16.data(), kElements, &w.mul16,
                                Maybe(null_argument, w.out16.data()))),

    // The fixed-point decoder.
    EA_ROW(ea_decoder_quant_arena_size, config,
           ea_decoder_quant_arena_size(Maybe(null_argument, &w.quant_config8), &w.bytes)),
    EA_ROW(ea_decoder_quant_arena_size, bytes,
           ea_decoder_quant_arena_size(&w.quant_config8, Maybe(null_argument, &w.bytes))),
    EA_ROW(ea_decoder_quant_derive, config,
           ea_decoder_quant_derive(Maybe(null_argument, &w.quant_config8), &w.quant_params,
                                   w.quant_channel_ints.data(), w.quant_channel_ints.size())),
    EA_ROW(ea_decoder_quant_derive, params,
           ea_decoder_quant_derive(&w.quant_config8, Maybe(null_argument, &w.quant_params),
                                   w.quant_channel_ints.data(), w.quant_channel_ints.size())),
    EA_ROW(ea_decoder_quant_derive, channel_ints,
           ea_decoder_quant_derive(&w.quant_config8, &w.quant_params,
                                   Maybe(null_argument, w.quant_channel_ints.data()),
                                   w.quant_channel_ints.size())),
    EA_ROW(ea_decoder_quant_init, decoder,
           ea_decoder_quant_init(Maybe(null_argument, &w.spare_quant_decoder), &w.quant_config16,
                                 &w.layer16.weights, &w.spare_quant_arena.arena)),
    EA_ROW(ea_decoder_quant_init, config,
           ea_decoder_quant_init(&w.spare_quant_decoder, Maybe(null_argument, &w.quant_config16),
                                 &w.layer16.weights, &w.spare_quant_arena.arena)),
    EA_ROW(ea_decoder_quant_init, weights,
           ea_decoder_quant_init(&w.spare_quant_decoder, &w.quant_config16,
                                 Maybe(null_argument, &w.layer16.weights),
                                 &w.spare_quant_arena.arena)),
    EA_ROW(ea_decoder_quant_init, arena,
           ea_decoder_quant_init(&w.spare_quant_decoder, &w.quant_config16, &w.layer16.weights,
                                 Maybe(null_argument, &w.spare_quant_arena.arena))),
    EA_ROW(ea_decoder_quant_reset, decoder,
           ea_decoder_quant_reset(Maybe(null_argument, &w.quant_decoder8.plan))),
    EA_ROW(ea_decoder_quant_step_s8, decoder,
           ea_decoder_quant_step_s8(Maybe(null_argument, &w.quant_decoder8.plan), w.q8.data(), 1,
                                    w.out8.data())),
    EA_ROW(ea_decoder_quant_step_s8, x,
           ea_decoder_quant_step_s8(&w.quant_decoder8.plan, Maybe(null_argument, w.q8.data()), 1,
                                    w.out8.data())),
    EA_ROW(ea_decoder_quant_step_s8, y,
           ea_decoder_quant_step_s8(&w.quant_decoder8.plan, w.q8.data(), 1,
                                    Maybe(null_argument, w.out8.data()))),
    EA_ROW(ea_decoder_quant_step_s16, decoder,
           ea_decoder_quant_step_s16(Maybe(null_argument, &w.quant_decoder16.plan), w.q16.data(), 1,
                                     w.out16.data())),
    EA_ROW(ea_decoder_quant_step_s16, x,
           ea_decoder_quant_step_s16(&w.quant_decoder16.plan, Maybe(null_argument, w.q16.data()), 1,
                                     w.out16.data())),
    EA_ROW(ea_decoder_quant_step_s16, y,
           ea_decoder_quant_step_s16(&w.quant_decoder16.plan, w.q16.data(), 1,
                                     Maybe(null_argument, w.out16.data()))),

    // The fixed-point cross-attention.
    EA_ROW(ea_cross_quant_arena_size, config,
           ea_cross_quant_arena_size(Maybe(null_argument, &w.cross_config8), &w.bytes)),
    EA_ROW(ea_cross_quant_arena_size, bytes,
           ea_cross_quant_arena_size(&w.cross_config8, Maybe(null_argument, &w.bytes))),
    EA_ROW(ea_cross_quant_derive, config,
           ea_cross_quant_derive(Maybe(null_argument, &w.cross_config8), &w.quant_params,
                                 w.quant_channel_ints.data(), w.quant_channel_ints.size())),
    EA_ROW(ea_cross_quant_derive, params,
           ea_cross_quant_derive(&w.cross_config8, Maybe(null_argument, &w.quant_params),
                                 w.quant_channel_ints.data(), w.quant_channel_ints.size())),
    EA_ROW(ea_cross_quant_derive, channel_ints,
           ea_cross_quant_derive(&w.cross_config8, &w.quant_params,
                                 Maybe(null_argument, w.quant_channel_ints.data()),
                                 w.quant_channel_ints.size())),
    EA_ROW(ea_cross_quant_init, cross,
           ea_cross_quant_init(Maybe(null_argument, &w.spare_quant_cross), &w.cross_config16,
                               &w.cross_layer16.weights, &w.spare_quant_cross_arena.arena)),
    EA_ROW(ea_cross_quant_init, config,
           ea_cross_quant_init(&w.spare_quant_cross, Maybe(null_argument, &w.cross_config16),
                               &w.cross_layer16.weights, &w.spare_quant_cross_arena.arena)),
    EA_ROW(ea_cross_quant_init, weights,
           ea_cross_quant_init(&w.spare_quant_cross, &w.cross_config16,
                               Maybe(null_argument, &w.cross_layer16.weights),
                               &w.spare_quant_cross_arena.arena)),
    EA_ROW(ea_cross_quant_init, arena,
           ea_cross_quant_init(&w.spare_quant_cross, &w.cross_config16, &w.cross_layer16.weights,
                               Maybe(null_argument, &w.spare_quant_cross_arena.arena))),
    EA_ROW(ea_cross_quant_set_memory_s8, cross,
           ea_cross_quant_set_memory_s8(Maybe(null_argument, &w.quant_cross8.plan), w.q8.data(),
                                        kTokens)),
    EA_ROW(ea_cross_quant_set_memory_s8, memory,
           ea_cross_quant_set_memory_s8(&w.quant_cross8.plan, Maybe(null_argument, w.q8.data()),
                                        kTokens)),
    EA_ROW(ea_cross_quant_set_memory_s16, cross,
           ea_cross_quant_set_memory_s16(Maybe(null_argument, &w.quant_cross16.plan), w.q16.data(),
                                         kTokens)),
    EA_ROW(ea_cross_quant_set_memory_s16, memory,
           ea_cross_quant_set_memory_s16(&w.quant_cross16.plan, Maybe(null_argument, w.q16.data()),
                                         kTokens)),
    EA_ROW(ea_cross_quant_run_s8, cross,
           ea_cross_quant_run_s8(Maybe(null_argument, &w.quant_cross8.plan), w.q8.data(), 1,
                                 w.out8.data())),
    EA_ROW(ea_cross_quant_run_s8, x,
           ea_cross_quant_run_s8(&w.quant_cross8.plan, Maybe(null_argument, w.q8.data()), 1,
                                 w.out8.data())),
    EA_ROW(ea_cross_quant_run_s8, y,
           ea_cross_quant_run_s8(&w.quant_cross8.plan, w.q8.data(), 1,
                                 Maybe(null_argument, w.out8.data()))),
    EA_ROW(ea_cross_quant_run_s16, cross,
           ea_cross_quant_run_s16(Maybe(null_argument, &w.quant_cross16.plan), w.q16.data(), 1,
                                  w.out16.data())),
    EA_ROW(ea_cross_quant_run_s16, x,
           ea_cross_quant_run_s16(&w.quant_cross16.plan, Maybe(null_argument, w.q16.data()), 1,
                                  w.out16.data())),
    EA_ROW(ea_cross_quant_run_s16, y,
           ea_cross_quant_run_s16(&w.quant_cross16.plan, w.q16.data(), 1,
                                  Maybe(null_argument, w.out16.data()))),

    // RoPE.
    EA_ROW(
        ea_rope_table_fill, table,
        ea_rope_table_fill(Maybe(null_argument, w.rope_table.data()), kTokens, kDHead, 10000.0f)),
    EA_ROW(ea_rope_apply, x,
           ea_rope_apply(Maybe(null_argument, w.y.data()), 1, kHeads, kDHead, 0,
                         w.rope_table.data(), kTokens, EA_ROPE_HALF)),
    EA_ROW(ea_rope_apply, table,
           ea_rope_apply(w.y.data(), 1, kHeads, kDHead, 0,
                         Maybe(null_argument, w.rope_table.data()), kTokens, EA_ROPE_HALF)),
    EA_ROW(ea_rope_quant_derive, scales,
           ea_rope_quant_derive(EA_DTYPE_INT8, Maybe(null_argument, &w.rope_scales8),
                                &w.rope_derived)),
    EA_ROW(ea_rope_quant_derive, params,
           ea_rope_quant_derive(EA_DTYPE_INT8, &w.rope_scales8,
                                Maybe(null_argument, &w.rope_derived))),
    EA_ROW(ea_rope_quant_apply_s8, x,
           ea_rope_quant_apply_s8(Maybe(null_argument, w.out8.data()), 1, kHeads, kDHead, 0,
                                  w.q8.data(), w.q8.data(), kTokens, EA_ROPE_HALF, &w.rope8)),
    EA_ROW(ea_rope_quant_apply_s8, cos_table,
           ea_rope_quant_apply_s8(w.out8.data(), 1, kHeads, kDHead, 0,
                                  Maybe(null_argument, w.q8.data()), w.q8.data(), kTokens,
                                  EA_ROPE_HALF, &w.rope8)),
    EA_ROW(
        ea_rope_quant_apply_s8, sin_table,
        ea_rope_quant_apply_s8(w.out8.data(), 1, kHeads, kDHead, 0, w.q8.data(),
                               Maybe(null_argument, w.q8.data()), kTokens, EA_ROPE_HALF, &w.rope8)),
    EA_ROW(ea_rope_quant_apply_s8, params,
           ea_rope_quant_apply_s8(w.out8.data(), 1, kHeads, kDHead, 0, w.q8.data(), w.q8.data(),
                                  kTokens, EA_ROPE_HALF, Maybe(null_argument, &w.rope8))),
    EA_ROW(ea_rope_quant_apply_s16, x,
           ea_rope_quant_apply_s16(Maybe(null_argument, w.out16.data()), 1, kHeads, kDHead, 0,
                                   w.q16.data(), w.q16.data(), kTokens, EA_ROPE_HALF, &w.rope16)),
    EA_ROW(ea_rope_quant_apply_s16, cos_table,
           ea_rope_quant_apply_s16(w.out16.data(), 1, kHeads, kDHead, 0,
                                   Maybe(null_argument, w.q16.data()), w.q16.data(), kTokens,
                                   EA_ROPE_HALF, &w.rope16)),
    EA_ROW(ea_rope_quant_apply_s16, sin_table,
           ea_rope_quant_apply_s16(w.out16.data(), 1, kHeads, kDHead, 0, w.q16.data(),
                                   Maybe(null_argument, w.q16.data()), kTokens, EA_ROPE_HALF,
                                   &w.rope16)),
    EA_ROW(ea_rope_quant_apply_s16, params,
           ea_rope_quant_apply_s16(w.out16.data(), 1, kHeads, kDHead, 0, w.q16.data(), w.q16.data(),
                                   kTokens, EA_ROPE_HALF, Maybe(null_argument, &w.rope16))),

    // Weight files.
    EA_ROW(ea_weight_file_open, file,
           ea_weight_file_open(Maybe(null_argument, &w.spare_file), kSampleBlob, kSampleBlob_size)),
    EA_ROW(ea_weight_file_open, bytes,
           ea_weight_file_open(&w.spare_file, Maybe(null_argument, kSampleBlob), kSampleBlob_size)),
    EA_ROW(ea_weight_file_scratch_size, bytes,
           ea_weight_file_scratch_size(Maybe(null_argument, kSampleSafetensors),
                                       kSampleSafetensors_size, &w.bytes)),
    EA_ROW(ea_weight_file_scratch_size, scratch_bytes,
           ea_weight_file_scratch_size(kSampleSafetensors, kSampleSafetensors_size,
                                       Maybe(null_argument, &w.bytes))),
    EA_ROW(
        ea_weight_file_open_scratch, file,
        ea_weight_file_open_scratch(Maybe(null_argument, &w.spare_file), kSampleSafetensors,
                                    kSampleSafetensors_size, w.scratch.data(), w.scratch.size())),
    EA_ROW(
        ea_weight_file_open_scratch, bytes,
        ea_weight_file_open_scratch(&w.spare_file, Maybe(null_argument, kSampleSafetensors),
                                    kSampleSafetensors_size, w.scratch.data(), w.scratch.size())),
    EA_ROW(ea_weight_file_open_scratch, scratch,
           ea_weight_file_open_scratch(&w.spare_file, kSampleSafetensors, kSampleSafetensors_size,
                                       Maybe(null_argument, w.scratch.data()), w.scratch.size())),
    EA_ROW(ea_weight_file_find, file,
           ea_weight_file_find(Maybe(null_argument, &w.file), "attn.in_proj_weight", &w.view)),
    EA_ROW(ea_weight_file_find, name,
           ea_weight_file_find(&w.file, Maybe(null_argument, "attn.in_proj_weight"), &w.view)),
    EA_ROW(ea_weight_file_find, view,
           ea_weight_file_find(&w.file, "attn.in_proj_weight", Maybe(null_argument, &w.view))),
    EA_ROW(ea_weight_file_find_mha, file,
           ea_weight_file_find_mha(Maybe(null_argument, &w.file), "attn.", 40, 4, 4,
                                   &w.file_weights, &w.file_layout)),
    EA_ROW(ea_weight_file_find_mha, prefix,
           ea_weight_file_find_mha(&w.file, Maybe(null_argument, "attn."), 40, 4, 4,
                                   &w.file_weights, &w.file_layout)),
    EA_ROW(ea_weight_file_find_mha, weights,
           ea_weight_file_find_mha(&w.file, "attn.", 40, 4, 4,
                                   Maybe(null_argument, &w.file_weights), &w.file_layout)),
    EA_ROW(ea_weight_file_find_mha, layout,
           ea_weight_file_find_mha(&w.file, "attn.", 40, 4, 4, &w.file_weights,
                                   Maybe(null_argument, &w.file_layout))),
};

#undef EA_ROW

struct RowName {
  std::string operator()(const testing::TestParamInfo<NullRow>& info) const {
    return std::string(info.param.function) + "_" + info.param.argument;
  }
};

class NullArguments : public testing::TestWithParam<NullRow> {};

// The row's call as it stands succeeds: so NULL is the only fault of the
// refused call below.
TEST_P(NullArguments, TheCallSucceedsWithTheArgument) {
  std::unique_ptr<World> world(new World);
  ASSERT_TRUE(world->ready) << "the valid world could not be built";
  EXPECT_STATUS(GetParam().call(*world, false), EA_OK);
}

TEST_P(NullArguments, RefusedWithNullPointerAndNothingWritten) {
  std::unique_ptr<World> world(new World);
  ASSERT_TRUE(world->ready) << "the valid world could not be built";
  UntouchedBytes watched;
  world->Watch(&watched);
  EXPECT_STATUS(GetParam().call(*world, true), EA_ERR_NULL_POINTER);
  world->RestoreClearedReadyFlags();
  watched.ExpectUntouched();
}

INSTANTIATE_TEST_SUITE_P(Contract, NullArguments, testing::ValuesIn(kNullRows), RowName());

}  // namespace
}  // namespace edgeattn_test
