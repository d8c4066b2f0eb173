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
#include "edgeattn/edgeattn.h"
#include "edgeattn/kv_cache.h"
#include "edgeattn/mha_decode.h"
#include "edgeattn/mha_quant_decode.h"
#include "edgeattn/rope.h"
#include "edgeattn/weight_file.h"
#include "model_fixture.h"
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

// A caller's buffer and the arena struct over it.
struct OwnedArena {
  AlignedBytes storage{0};
  ea_arena arena{};
  void Init(size_t bytes) {
    storage = AlignedBytes(bytes);
    ea_arena_init(&arena, storage.data(), bytes);
  }
  void Remember(const char* what, UntouchedBytes* watched) const {
    watched->Remember(what, storage.data(), storage.size());
    watched->Remember(what, &arena, sizeof(arena));
  }
};

// One valid instance of every family, planned and ready, with inputs and
// outputs; `spare_*` are the objects the init rows initialise, over arenas
// of their own.
struct World {
  // Float KV cache, decoder and cross-attention on a 2-head layer of 8.
  MhaModel model{kDModel, kHeads, true, 7100};
  ea_kv_cache_config cache_config{};
  OwnedArena cache_arena, spare_cache_arena;
  ea_kv_cache cache{}, spare_cache{};
  ea_mha_decoder_config decoder_config{};
  OwnedArena decoder_arena, spare_decoder_arena;
  ea_mha_decoder decoder{}, spare_decoder{};
  ea_mha_cross_config cross_config{};
  OwnedArena cross_arena, spare_cross_arena;
  ea_mha_cross cross{}, spare_cross{};
  std::vector<float> x = std::vector<float>(kElements, 0.25f);
  std::vector<float> y = std::vector<float>(kElements);
  std::vector<float> packed = std::vector<float>(64 * kDModel);  // one panel of 64 outputs
  std::vector<float> slopes = std::vector<float>(kHeads);
  std::vector<float> rope_table = std::vector<float>(static_cast<size_t>(kTokens) * kDHead);
  size_t bytes = 0;

  // Fixed-point Attention(Q, K, V), int8 and int16.
  ea_attention_quant_scales attention_scales{}, attention_scales_s16{};
  ea_attention_config attention_s8{}, attention_s16{};
  OwnedArena attention_s8_arena, attention_s16_arena, spare_attention_arena;
  ea_attention_quant_plan plan_s8{}, plan_s16{}, spare_attention_plan{};
  std::vector<int8_t> q8 = std::vector<int8_t>(kElements, 3), out8 = std::vector<int8_t>(kElements);
  std::vector<int16_t> q16 = std::vector<int16_t>(kElements, 300),
                       out16 = std::vector<int16_t>(kElements);

  // Fixed-point self-attention (int8, one head of kDHead) and its derive.
  std::vector<float> w_scales = std::vector<float>(kDHead, 0.01f);
  ea_self_attention_quant_scales self_scales{}, self_scales16{};
  ea_self_attention_config self_config{}, self_config16{};
  std::vector<int8_t> self_w = std::vector<int8_t>(static_cast<size_t>(kDHead) * kDModel, 5);
  ea_self_attention_quant_weights self_weights{};
  OwnedArena self_arena, self_arena16, spare_self_arena;
  ea_self_attention_quant_plan self_plan{}, self_plan16{}, spare_self_plan{};
  ea_self_attention_quant_params self_params{};
  std::vector<int32_t> self_channel_ints =
      std::vector<int32_t>(EA_SELF_ATTENTION_QUANT_CHANNEL_INTS(kDHead, kDHead));

  // ADD.
  ea_add_quant_params add8{}, add16{};

  // Fixed-point decoders, int8 and int16.
  QuantMhaCase quant8 = RandomQuantMha(EA_DTYPE_INT8, {kTokens, kDModel, kHeads, true, true}, 7200);
  QuantMhaCase quant16 =
      RandomQuantMha(EA_DTYPE_INT16, {kTokens, kDModel, kHeads, true, true}, 7300);
  QuantMhaLayer layer8{quant8}, layer16{quant16};
  ea_mha_quant_decoder_config quant_config8{}, quant_config16{};
  OwnedArena quant_arena8, quant_arena16, spare_quant_arena;
  ea_mha_quant_decoder quant_decoder8{}, quant_decoder16{}, spare_quant_decoder{};

  // Weight files.
  ea_weight_file file{}, spare_file{};
  ea_tensor_view view{};
  ea_mha_weights file_weights{};
  ea_weights_layout file_layout = EA_WEIGHTS_ROW_MAJOR;
  std::vector<uint8_t> scratch = std::vector<uint8_t>(4096);

  bool ready = false;

  World() {
    cache_config.capacity = kTokens;
    cache_config.n_heads = kHeads;
    cache_config.n_kv_heads = kHeads;
    cache_config.d_head = kDHead;
    cache_config.max_queries = kTokens;
    cache_config.storage = EA_KV_STORAGE_F32;
    if (ea_kv_cache_arena_size(&cache_config, &bytes) != EA_OK) return;
    cache_arena.Init(bytes);
    spare_cache_arena.Init(bytes);
    if (ea_kv_cache_init(&cache, &cache_config, &cache_arena.arena) != EA_OK) return;
    if (ea_kv_cache_append(&cache, x.data(), x.data(), 1) != EA_OK) return;  // a key to attend to

    decoder_config.d_model = kDModel;
    decoder_config.n_heads = kHeads;
    decoder_config.n_kv_heads = kHeads;
    decoder_config.max_positions = kTokens;
    decoder_config.max_tokens = kTokens;
    decoder_config.storage = EA_KV_STORAGE_F32;
    const ea_mha_weights weights = model.Weights();
    if (ea_mha_decoder_arena_size(&decoder_config, &bytes) != EA_OK) return;
    decoder_arena.Init(bytes);
    spare_decoder_arena.Init(bytes);
    if (ea_mha_decoder_init(&decoder, &decoder_config, &weights, &decoder_arena.arena) != EA_OK) {
      return;
    }

    cross_config.d_model = kDModel;
    cross_config.n_heads = kHeads;
    cross_config.max_memory = kTokens;
    cross_config.max_queries = kTokens;
    cross_config.storage = EA_KV_STORAGE_F32;
    if (ea_mha_cross_arena_size(&cross_config, &bytes) != EA_OK) return;
    cross_arena.Init(bytes);
    spare_cross_arena.Init(bytes);
    if (ea_mha_cross_init(&cross, &cross_config, &weights, &cross_arena.arena) != EA_OK) return;
    if (ea_mha_cross_set_memory(&cross, x.data(), kTokens) != EA_OK) return;

    attention_scales.q = {0.05f, 1};
    attention_scales.k = {0.04f, -2};
    attention_scales.v = {0.03f, 3};
    attention_scales.scores = {0.02f, 0};
    attention_scales.output = {0.02f, 0};
    attention_s8.dtype = EA_DTYPE_INT8;
    attention_s8.n_q = kTokens;
    attention_s8.n_kv = kTokens;
    attention_s8.d_k = kDModel;
    attention_s8.d_v = kDModel;
    attention_s8.quant_scales = &attention_scales;
    attention_s16 = attention_s8;
    attention_s16.dtype = EA_DTYPE_INT16;
    attention_scales_s16 = attention_scales;
    for (ea_quant* q : {&attention_scales_s16.q, &attention_scales_s16.k, &attention_scales_s16.v,
                        &attention_scales_s16.scores, &attention_scales_s16.output}) {
      q->zero_point = 0;  // int16 activations are symmetric
    }
    attention_s16.quant_scales = &attention_scales_s16;
    if (!PlanAttention(attention_s8, &attention_s8_arena, &plan_s8)) return;
    if (!PlanAttention(attention_s16, &attention_s16_arena, &plan_s16)) return;
    if (ea_attention_arena_size(&attention_s16, &bytes) != EA_OK) return;
    spare_attention_arena.Init(bytes);

    self_scales.input = {0.05f, 2};
    self_scales.q = {0.05f, 1};
    self_scales.k = {0.04f, -1};
    self_scales.v = {0.03f, 0};
    self_scales.scores = {0.02f, 0};
    self_scales.output = {0.02f, 0};
    self_scales.w_q_scales = w_scales.data();
    self_scales.w_k_scales = w_scales.data();
    self_scales.w_v_scales = w_scales.data();
    self_config.dtype = EA_DTYPE_INT8;
    self_config.max_tokens = kTokens;
    self_config.d_model = kDModel;
    self_config.d_k = kDHead;
    self_config.d_v = kDHead;
    self_config.quant_scales = &self_scales;
    self_weights.w_q = self_w.data();
    self_weights.w_k = self_w.data();
    self_weights.w_v = self_w.data();
    if (ea_self_attention_arena_size(&self_config, &bytes) != EA_OK) return;
    self_arena.Init(bytes);
    spare_self_arena.Init(bytes);
    if (ea_self_attention_quant_plan_init(&self_plan, &self_config, &self_weights,
                                          &self_arena.arena) != EA_OK) {
      return;
    }
    self_scales16 = self_scales;
    for (ea_quant* q : {&self_scales16.input, &self_scales16.q, &self_scales16.k, &self_scales16.v,
                        &self_scales16.scores, &self_scales16.output}) {
      q->zero_point = 0;  // int16 activations are symmetric
    }
    self_config16 = self_config;
    self_config16.dtype = EA_DTYPE_INT16;
    self_config16.quant_scales = &self_scales16;
    if (ea_self_attention_arena_size(&self_config16, &bytes) != EA_OK) return;
    self_arena16.Init(bytes);
    if (ea_self_attention_quant_plan_init(&self_plan16, &self_config16, &self_weights,
                                          &self_arena16.arena) != EA_OK) {
      return;
    }

    if (ea_add_quant_derive(EA_DTYPE_INT8, {0.05f, 1}, {0.04f, -3}, {0.06f, 2}, &add8) != EA_OK ||
        ea_add_quant_derive(EA_DTYPE_INT16, {0.05f, 0}, {0.04f, 0}, {0.06f, 0}, &add16) != EA_OK) {
      return;
    }

    if (!PlanQuantDecoder(layer8, &quant_config8, &quant_arena8, &quant_decoder8)) return;
    if (!PlanQuantDecoder(layer16, &quant_config16, &quant_arena16, &quant_decoder16)) return;
    if (ea_mha_quant_decoder_arena_size(&quant_config16, &bytes) != EA_OK) return;
    spare_quant_arena.Init(bytes);

    if (ea_weight_file_open(&file, kSampleBlob, kSampleBlob_size) != EA_OK) return;
    ready = true;
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
    watched->FillWithCanary("spare file", &spare_file, sizeof(spare_file));
    watched->Remember("x", x.data(), x.size() * sizeof(float));
    watched->Remember("cache", &cache, sizeof(cache));
    watched->Remember("decoder", &decoder, sizeof(decoder));
    watched->Remember("cross", &cross, sizeof(cross));
    watched->Remember("plan s8", &plan_s8, sizeof(plan_s8));
    watched->Remember("plan s16", &plan_s16, sizeof(plan_s16));
    watched->Remember("self plan", &self_plan, sizeof(self_plan));
    watched->Remember("self plan 16", &self_plan16, sizeof(self_plan16));
    watched->Remember("quant decoder 8", &quant_decoder8, sizeof(quant_decoder8));
    watched->Remember("quant decoder 16", &quant_decoder16, sizeof(quant_decoder16));
    watched->Remember("add8", &add8, sizeof(add8));
    watched->Remember("file", &file, sizeof(file));
    for (const OwnedArena* a :
         {&cache_arena, &spare_cache_arena, &decoder_arena, &spare_decoder_arena, &cross_arena,
          &spare_cross_arena, &attention_s8_arena, &attention_s16_arena, &spare_attention_arena,
          &self_arena, &self_arena16, &spare_self_arena, &quant_arena8, &quant_arena16,
          &spare_quant_arena}) {
      a->Remember("an arena", watched);
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
    memset(&spare_file.ready, kCanaryByte, sizeof(spare_file.ready));
  }

 private:
  bool PlanAttention(const ea_attention_config& config, OwnedArena* arena,
                     ea_attention_quant_plan* plan) {
    size_t need = 0;
    if (ea_attention_arena_size(&config, &need) != EA_OK) return false;
    arena->Init(need);
    return ea_attention_quant_plan_init(plan, &config, &arena->arena) == EA_OK;
  }
  static bool PlanQuantDecoder(const QuantMhaLayer& layer, ea_mha_quant_decoder_config* config,
                               OwnedArena* arena, ea_mha_quant_decoder* decoder) {
    config->layer = layer.config;
    config->max_step_tokens = kTokens;
    size_t need = 0;
    if (ea_mha_quant_decoder_arena_size(config, &need) != EA_OK) return false;
    arena->Init(need);
    return ea_mha_quant_decoder_init(decoder, config, &layer.weights, &arena->arena) == EA_OK;
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
    EA_ROW(ea_kv_cache_reset, cache, ea_kv_cache_reset(Maybe(null_argument, &w.cache))),
    EA_ROW(ea_kv_cache_append, cache,
           ea_kv_cache_append(Maybe(null_argument, &w.cache), w.x.data(), w.x.data(), 1)),
    EA_ROW(ea_kv_cache_append, k,
           ea_kv_cache_append(&w.cache, Maybe(null_argument, w.x.data()), w.x.data(), 1)),
    EA_ROW(ea_kv_cache_append, v,
           ea_kv_cache_append(&w.cache, w.x.data(), Maybe(null_argument, w.x.data()), 1)),
    EA_ROW(ea_kv_cache_attend, cache,
           ea_kv_cache_attend(Maybe(null_argument, &w.cache), w.x.data(), 1, w.y.data())),
    EA_ROW(ea_kv_cache_attend, q,
           ea_kv_cache_attend(&w.cache, Maybe(null_argument, w.x.data()), 1, w.y.data())),
    EA_ROW(ea_kv_cache_attend, out,
           ea_kv_cache_attend(&w.cache, w.x.data(), 1, Maybe(null_argument, w.y.data()))),
    EA_ROW(ea_kv_cache_attend_all, cache,
           ea_kv_cache_attend_all(Maybe(null_argument, &w.cache), w.x.data(), 1, w.y.data())),
    EA_ROW(ea_kv_cache_attend_all, q,
           ea_kv_cache_attend_all(&w.cache, Maybe(null_argument, w.x.data()), 1, w.y.data())),
    EA_ROW(ea_kv_cache_attend_all, out,
           ea_kv_cache_attend_all(&w.cache, w.x.data(), 1, Maybe(null_argument, w.y.data()))),

    // The float decoder.
    EA_ROW(ea_mha_decoder_arena_size, config,
           ea_mha_decoder_arena_size(Maybe(null_argument, &w.decoder_config), &w.bytes)),
    EA_ROW(ea_mha_decoder_arena_size, bytes,
           ea_mha_decoder_arena_size(&w.decoder_config, Maybe(null_argument, &w.bytes))),
    EA_ROW(ea_mha_decoder_init, decoder,
           ea_mha_decoder_init(Maybe(null_argument, &w.spare_decoder), &w.decoder_config,
                               &w.decoder.weights, &w.spare_decoder_arena.arena)),
    EA_ROW(ea_mha_decoder_init, config,
           ea_mha_decoder_init(&w.spare_decoder, Maybe(null_argument, &w.decoder_config),
                               &w.decoder.weights, &w.spare_decoder_arena.arena)),
    EA_ROW(ea_mha_decoder_init, weights,
           ea_mha_decoder_init(&w.spare_decoder, &w.decoder_config,
                               Maybe(null_argument, &w.decoder.weights),
                               &w.spare_decoder_arena.arena)),
    EA_ROW(ea_mha_decoder_init, arena,
           ea_mha_decoder_init(&w.spare_decoder, &w.decoder_config, &w.decoder.weights,
                               Maybe(null_argument, &w.spare_decoder_arena.arena))),
    EA_ROW(ea_mha_decoder_reset, decoder, ea_mha_decoder_reset(Maybe(null_argument, &w.decoder))),
    EA_ROW(ea_mha_decoder_step, decoder,
           ea_mha_decoder_step(Maybe(null_argument, &w.decoder), w.x.data(), 1, w.y.data())),
    EA_ROW(ea_mha_decoder_step, x,
           ea_mha_decoder_step(&w.decoder, Maybe(null_argument, w.x.data()), 1, w.y.data())),
    EA_ROW(ea_mha_decoder_step, y,
           ea_mha_decoder_step(&w.decoder, w.x.data(), 1, Maybe(null_argument, w.y.data()))),

    // Cross-attention.
    EA_ROW(ea_mha_cross_arena_size, config,
           ea_mha_cross_arena_size(Maybe(null_argument, &w.cross_config), &w.bytes)),
    EA_ROW(ea_mha_cross_arena_size, bytes,
           ea_mha_cross_arena_size(&w.cross_config, Maybe(null_argument, &w.bytes))),
    EA_ROW(ea_mha_cross_init, cross,
           ea_mha_cross_init(Maybe(null_argument, &w.spare_cross), &w.cross_config,
                             &w.cross.weights, &w.spare_cross_arena.arena)),
    EA_ROW(ea_mha_cross_init, config,
           ea_mha_cross_init(&w.spare_cross, Maybe(null_argument, &w.cross_config),
                             &w.cross.weights, &w.spare_cross_arena.arena)),
    EA_ROW(ea_mha_cross_init, weights,
           ea_mha_cross_init(&w.spare_cross, &w.cross_config,
                             Maybe(null_argument, &w.cross.weights), &w.spare_cross_arena.arena)),
    EA_ROW(ea_mha_cross_init, arena,
           ea_mha_cross_init(&w.spare_cross, &w.cross_config, &w.cross.weights,
                             Maybe(null_argument, &w.spare_cross_arena.arena))),
    EA_ROW(ea_mha_cross_set_memory, cross,
           ea_mha_cross_set_memory(Maybe(null_argument, &w.cross), w.x.data(), kTokens)),
    EA_ROW(ea_mha_cross_set_memory, memory,
           ea_mha_cross_set_memory(&w.cross, Maybe(null_argument, w.x.data()), kTokens)),
    EA_ROW(ea_mha_cross_run, cross,
           ea_mha_cross_run(Maybe(null_argument, &w.cross), w.x.data(), 1, w.y.data())),
    EA_ROW(ea_mha_cross_run, x,
           ea_mha_cross_run(&w.cross, Maybe(null_argument, w.x.data()), 1, w.y.data())),
    EA_ROW(ea_mha_cross_run, y,
           ea_mha_cross_run(&w.cross, w.x.data(), 1, Maybe(null_argument, w.y.data()))),

    // Fixed-point Attention(Q, K, V).
    EA_ROW(ea_attention_quant_plan_init, plan,
           ea_attention_quant_plan_init(Maybe(null_argument, &w.spare_attention_plan),
                                        &w.attention_s16, &w.spare_attention_arena.arena)),
    EA_ROW(ea_attention_quant_plan_init, config,
           ea_attention_quant_plan_init(&w.spare_attention_plan,
                                        Maybe(null_argument, &w.attention_s16),
                                        &w.spare_attention_arena.arena)),
    EA_ROW(ea_attention_quant_plan_init, arena,
           ea_attention_quant_plan_init(&w.spare_attention_plan, &w.attention_s16,
                                        Maybe(null_argument, &w.spare_attention_arena.arena))),
    EA_ROW(ea_attention_run_s8, plan,
           ea_attention_run_s8(Maybe(null_argument, &w.plan_s8), w.q8.data(), w.q8.data(),
                               w.q8.data(), w.out8.data(), nullptr)),
    EA_ROW(ea_attention_run_s8, q,
           ea_attention_run_s8(&w.plan_s8, Maybe(null_argument, w.q8.data()), w.q8.data(),
                               w.q8.data(), w.out8.data(), nullptr)),
    EA_ROW(ea_attention_run_s8, k,
           ea_attention_run_s8(&w.plan_s8, w.q8.data(), Maybe(null_argument, w.q8.data()),
                               w.q8.data(), w.out8.data(), nullptr)),
    EA_ROW(ea_attention_run_s8, v,
           ea_attention_run_s8(&w.plan_s8, w.q8.data(), w.q8.data(),
                               Maybe(null_argument, w.q8.data()), w.out8.data(), nullptr)),
    EA_ROW(ea_attention_run_s8, out,
           ea_attention_run_s8(&w.plan_s8, w.q8.data(), w.q8.data(), w.q8.data(),
                               Maybe(null_argument, w.out8.data()), nullptr)),
    EA_ROW(ea_attention_run_s16, plan,
           ea_attention_run_s16(Maybe(null_argument, &w.plan_s16), w.q16.data(), w.q16.data(),
                                w.q16.data(), w.out16.data(), nullptr)),
    EA_ROW(ea_attention_run_s16, q,
           ea_attention_run_s16(&w.plan_s16, Maybe(null_argument, w.q16.data()), w.q16.data(),
                                w.q16.data(), w.out16.data(), nullptr)),
    EA_ROW(ea_attention_run_s16, k,
           ea_attention_run_s16(&w.plan_s16, w.q16.data(), Maybe(null_argument, w.q16.data()),
                                w.q16.data(), w.out16.data(), nullptr)),
    EA_ROW(ea_attention_run_s16, v,
           ea_attention_run_s16(&w.plan_s16, w.q16.data(), w.q16.data(),
                                Maybe(null_argument, w.q16.data()), w.out16.data(), nullptr)),
    EA_ROW(ea_attention_run_s16, out,
           ea_attention_run_s16(&w.plan_s16, w.q16.data(), w.q16.data(), w.q16.data(),
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
    EA_ROW(
        ea_self_attention_quant_plan_init, plan,
        ea_self_attention_quant_plan_init(Maybe(null_argument, &w.spare_self_plan), &w.self_config,
                                          &w.self_weights, &w.spare_self_arena.arena)),
    EA_ROW(
        ea_self_attention_quant_plan_init, config,
        ea_self_attention_quant_plan_init(&w.spare_self_plan, Maybe(null_argument, &w.self_config),
                                          &w.self_weights, &w.spare_self_arena.arena)),
    EA_ROW(ea_self_attention_quant_plan_init, weights,
           ea_self_attention_quant_plan_init(&w.spare_self_plan, &w.self_config,
                                             Maybe(null_argument, &w.self_weights),
                                             &w.spare_self_arena.arena)),
    EA_ROW(ea_self_attention_quant_plan_init, arena,
           ea_self_attention_quant_plan_init(&w.spare_self_plan, &w.self_config, &w.self_weights,
                                             Maybe(null_argument, &w.spare_self_arena.arena))),
    EA_ROW(ea_self_attention_run_s8, plan,
           ea_self_attention_run_s8(Maybe(null_argument, &w.self_plan), w.q8.data(), kTokens,
                                    w.out8.data(), nullptr)),
    EA_ROW(ea_self_attention_run_s8, x,
           ea_self_attention_run_s8(&w.self_plan, Maybe(null_argument, w.q8.data()), kTokens,
                                    w.out8.data(), nullptr)),
    EA_ROW(ea_self_attention_run_s8, y,
           ea_self_attention_run_s8(&w.self_plan, w.q8.data(), kTokens,
                                    Maybe(null_argument, w.out8.data()), nullptr)),

    EA_ROW(ea_self_attention_run_s16, plan,
           ea_self_attention_run_s16(Maybe(null_argument, &w.self_plan16), w.q16.data(), kTokens,
                                     w.out16.data(), nullptr)),
    EA_ROW(ea_self_attention_run_s16, x,
           ea_self_attention_run_s16(&w.self_plan16, Maybe(null_argument, w.q16.data()), kTokens,
                                     w.out16.data(), nullptr)),
    EA_ROW(ea_self_attention_run_s16, y,
           ea_self_attention_run_s16(&w.self_plan16, w.q16.data(), kTokens,
                                     Maybe(null_argument, w.out16.data()), nullptr)),

    // Packed weights.
    EA_ROW(ea_packed_linear_size, floats,
           ea_packed_linear_size(kDModel, kDModel, Maybe(null_argument, &w.bytes))),
    EA_ROW(ea_pack_linear_weights, w,
           ea_pack_linear_weights(Maybe(null_argument, w.x.data()), kTokens, kDModel,
                                  w.packed.data(), w.packed.size())),
    EA_ROW(ea_pack_linear_weights, packed,
           ea_pack_linear_weights(w.x.data(), kTokens, kDModel,
                                  Maybe(null_argument, w.packed.data()), w.packed.size())),

    // ADD.
    EA_ROW(ea_add_quant_derive, params,
           ea_add_quant_derive(EA_DTYPE_INT8, {0.05f, 1}, {0.04f, -3}, {0.06f, 2},
                               Maybe(null_argument, &w.self_params.add))),
    EA_ROW(ea_add_s8, a,
           ea_add_s8(Maybe(null_argument, w.q8.data()), w.q8.data(), kElements, &w.add8,
                     w.out8.data())),
    EA_ROW(ea_add_s8, b,
           ea_add_s8(w.q8.data(), Maybe(null_argument, w.q8.data()), kElements, &w.add8,
                     w.out8.data())),
    EA_ROW(ea_add_s8, params,
           ea_add_s8(w.q8.data(), w.q8.data(), kElements, Maybe(null_argument, &w.add8),
                     w.out8.data())),
    EA_ROW(ea_add_s8, out,
           ea_add_s8(w.q8.data(), w.q8.data(), kElements, &w.add8,
                     Maybe(null_argument, w.out8.data()))),
    EA_ROW(ea_add_s16, a,
           ea_add_s16(Maybe(null_argument, w.q16.data()), w.q16.data(), kElements, &w.add16,
                      w.out16.data())),
    EA_ROW(ea_add_s16, b,
           ea_add_s16(w.q16.data(), Maybe(null_argument, w.q16.data()), kElements, &w.add16,
                      w.out16.data())),
    EA_ROW(ea_add_s16, params,
           ea_add_s16(w.q16.data(), w.q16.data(), kElements, Maybe(null_argument, &w.add16),
                      w.out16.data())),
    EA_ROW(ea_add_s16, out,
           ea_add_s16(w.q16.data(), w.q16.data(), kElements, &w.add16,
                      Maybe(null_argument, w.out16.data()))),

    // The fixed-point decoder.
    EA_ROW(ea_mha_quant_decoder_arena_size, config,
           ea_mha_quant_decoder_arena_size(Maybe(null_argument, &w.quant_config8), &w.bytes)),
    EA_ROW(ea_mha_quant_decoder_arena_size, bytes,
           ea_mha_quant_decoder_arena_size(&w.quant_config8, Maybe(null_argument, &w.bytes))),
    EA_ROW(
        ea_mha_quant_decoder_init, decoder,
        ea_mha_quant_decoder_init(Maybe(null_argument, &w.spare_quant_decoder), &w.quant_config16,
                                  &w.layer16.weights, &w.spare_quant_arena.arena)),
    EA_ROW(
        ea_mha_quant_decoder_init, config,
        ea_mha_quant_decoder_init(&w.spare_quant_decoder, Maybe(null_argument, &w.quant_config16),
                                  &w.layer16.weights, &w.spare_quant_arena.arena)),
    EA_ROW(ea_mha_quant_decoder_init, weights,
           ea_mha_quant_decoder_init(&w.spare_quant_decoder, &w.quant_config16,
                                     Maybe(null_argument, &w.layer16.weights),
                                     &w.spare_quant_arena.arena)),
    EA_ROW(ea_mha_quant_decoder_init, arena,
           ea_mha_quant_decoder_init(&w.spare_quant_decoder, &w.quant_config16, &w.layer16.weights,
                                     Maybe(null_argument, &w.spare_quant_arena.arena))),
    EA_ROW(ea_mha_quant_decoder_reset, decoder,
           ea_mha_quant_decoder_reset(Maybe(null_argument, &w.quant_decoder8))),
    EA_ROW(ea_mha_quant_decoder_step_s8, decoder,
           ea_mha_quant_decoder_step_s8(Maybe(null_argument, &w.quant_decoder8), w.q8.data(), 1,
                                        w.out8.data())),
    EA_ROW(ea_mha_quant_decoder_step_s8, x,
           ea_mha_quant_decoder_step_s8(&w.quant_decoder8, Maybe(null_argument, w.q8.data()), 1,
                                        w.out8.data())),
    EA_ROW(ea_mha_quant_decoder_step_s8, y,
           ea_mha_quant_decoder_step_s8(&w.quant_decoder8, w.q8.data(), 1,
                                        Maybe(null_argument, w.out8.data()))),
    EA_ROW(ea_mha_quant_decoder_step_s16, decoder,
           ea_mha_quant_decoder_step_s16(Maybe(null_argument, &w.quant_decoder16), w.q16.data(), 1,
                                         w.out16.data())),
    EA_ROW(ea_mha_quant_decoder_step_s16, x,
           ea_mha_quant_decoder_step_s16(&w.quant_decoder16, Maybe(null_argument, w.q16.data()), 1,
                                         w.out16.data())),
    EA_ROW(ea_mha_quant_decoder_step_s16, y,
           ea_mha_quant_decoder_step_s16(&w.quant_decoder16, w.q16.data(), 1,
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
    EA_ROW(ea_weight_file_mha, file,
           ea_weight_file_mha(Maybe(null_argument, &w.file), "attn.", 40, 4, 4, &w.file_weights,
                              &w.file_layout)),
    EA_ROW(ea_weight_file_mha, prefix,
           ea_weight_file_mha(&w.file, Maybe(null_argument, "attn."), 40, 4, 4, &w.file_weights,
                              &w.file_layout)),
    EA_ROW(ea_weight_file_mha, weights,
           ea_weight_file_mha(&w.file, "attn.", 40, 4, 4, Maybe(null_argument, &w.file_weights),
                              &w.file_layout)),
    EA_ROW(ea_weight_file_mha, layout,
           ea_weight_file_mha(&w.file, "attn.", 40, 4, 4, &w.file_weights,
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
