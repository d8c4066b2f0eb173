// Every cause that the header's ea_status comments list, triggered once, and
// checked to return that code: the comments and the code must say the same
// thing (a run-time n_tokens past max_tokens once returned a code documented
// as "zero or negative" only). The exhaustive tables of bad inputs, with
// untouched outputs, are in bad_input_test.cc.
#include <gtest/gtest.h>
#include <stdint.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include "edgeattn/decoder.h"
#include "edgeattn/edgeattn.h"
#include "edgeattn/kv_cache.h"
#include "edgeattn/weight_file.h"
#include "model_fixture.h"
#include "reference/quant_mha_fixture.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

constexpr int kN = 8, kE = 16, kHeads = 2;

ea_attention_config Attention() {
  ea_attention_config c{};
  c.dtype = EA_DTYPE_F32;
  c.n_q = kN;
  c.n_kv = kN;
  c.d_k = 4;
  c.d_v = 4;
  c.mask = EA_MASK_NONE;
  return c;
}

ea_mha_config Mha() {
  ea_mha_config c{};
  c.dtype = EA_DTYPE_F32;
  c.max_tokens = kN;
  c.d_model = kE;
  c.n_heads = kHeads;
  c.mask = EA_MASK_CAUSAL;
  c.position = EA_POSITION_NONE;
  return c;
}

template <typename Enum>
Enum RawEnum(int32_t value) {
  Enum e;
  memcpy(&e, &value, sizeof(e));
  return e;
}

// Parallel-for hooks: a well-behaved one on the calling thread, and one that
// hands out worker 2 of 2.
void OneThreadPool(void*, int32_t n_tasks, ea_task_fn task, void* task_context) {
  for (int32_t i = 0; i < n_tasks; ++i) task(task_context, i, 0);
}
void WorkerOutOfRangePool(void*, int32_t n_tasks, ea_task_fn task, void* task_context) {
  for (int32_t i = 0; i < n_tasks; ++i) task(task_context, i, 2);
}

// Ready plans and buffers the causes below start from.
struct World {
  AlignedBytes attention_storage{1 << 16};
  AlignedBytes mha_storage{1 << 18};
  ea_attention_plan attention{};
  ea_mha_plan mha{};
  MhaModel model{kE, kHeads, true, 5};
  ea_mha_weights weights{};
  std::vector<float> q = std::vector<float>(kN * kE, 0.5f);
  std::vector<float> out = std::vector<float>(kN * kE);
  std::vector<float> attn = std::vector<float>(kHeads * kN * kN);

  World() {
    ea_arena arena;
    const ea_attention_config a = Attention();
    EXPECT_EQ(ea_arena_init(&arena, attention_storage.data(), attention_storage.size()), EA_OK);
    EXPECT_EQ(ea_attention_init(&attention, &a, &arena), EA_OK);
    weights = model.Weights();
    const ea_mha_config m = Mha();
    EXPECT_EQ(ea_arena_init(&arena, mha_storage.data(), mha_storage.size()), EA_OK);
    EXPECT_EQ(ea_mha_init(&mha, &m, &weights, &arena), EA_OK);
  }

  ea_status PlanAttention(const ea_attention_config& c) {
    ea_arena arena;
    ea_attention_plan plan{};
    const ea_status s = ea_arena_init(&arena, attention_storage.data(), attention_storage.size());
    return s != EA_OK ? s : ea_attention_init(&plan, &c, &arena);
  }
  ea_status PlanMha(const ea_mha_config& c) {
    ea_arena arena;
    ea_mha_plan plan{};
    const ea_status s = ea_arena_init(&arena, mha_storage.data(), mha_storage.size());
    return s != EA_OK ? s : ea_mha_init(&plan, &c, &weights, &arena);
  }
  ea_status RunAttention(int32_t n_valid_keys) {
    return ea_attention_run(&attention, q.data(), q.data(), q.data(), n_valid_keys, out.data(),
                            nullptr);
  }
};

// A valid fixed-point MHA case (the fixture's random one), its plan and run.
struct QuantWorld {
  explicit QuantWorld(ea_dtype dtype_in)
      : dtype(dtype_in), c(RandomQuantMha(dtype_in, {kN, kE, kHeads, true, true}, 4242)) {
    scales = c.scales;
    scales.in_proj_weight_scales = c.in_scales.data();
    scales.out_proj_weight_scales = c.out_scales.data();
    const size_t bias_bytes = dtype == EA_DTYPE_INT8 ? 4 : 8;
    biases.resize(c.in_bias.size() + c.out_bias.size());
    for (size_t i = 0; i < c.in_bias.size(); ++i) biases[i] = c.in_bias[i];
    for (size_t i = 0; i < c.out_bias.size(); ++i) biases[c.in_bias.size() + i] = c.out_bias[i];
    if (dtype == EA_DTYPE_INT8) {
      std::vector<int32_t> narrow(biases.begin(), biases.end());
      memcpy(biases.data(), narrow.data(), narrow.size() * 4);
    }
    const uint8_t* bias = reinterpret_cast<const uint8_t*>(biases.data());
    weights = edgeattn_test::InProjQuantWeights(c.in_proj.data(), bias, c.out_proj.data(),
                                                bias + c.in_bias.size() * bias_bytes);
    config.dtype = dtype;
    config.max_tokens = kN;
    config.d_model = kE;
    config.n_heads = kHeads;
    config.mask = EA_MASK_CAUSAL;
    config.position = EA_POSITION_SINUSOIDAL;
    config.quant_scales = &scales;
    x.resize(kN * kE * 2);
    for (size_t i = 0; i < c.x_emb.size(); ++i) {
      if (dtype == EA_DTYPE_INT8) {
        x[i] = static_cast<uint8_t>(static_cast<int8_t>(c.x_emb[i]));
      } else {
        const int16_t v = static_cast<int16_t>(c.x_emb[i]);
        memcpy(x.data() + 2 * i, &v, 2);
      }
    }
    y.resize(x.size());
    EXPECT_EQ(Plan(config, &plan), EA_OK);
  }
  ea_status Plan(const ea_mha_config& with, ea_mha_quant_plan* into) {
    ea_arena arena;
    const ea_status s = ea_arena_init(&arena, storage.data(), storage.size());
    return s != EA_OK ? s : ea_mha_quant_init(into, &with, &weights, &arena);
  }
  ea_status Plan(const ea_mha_config& with) {
    ea_mha_quant_plan other{};
    return Plan(with, &other);
  }
  ea_status Derive(const ea_mha_config& with) {
    ea_mha_quant_params params{};
    return ea_mha_quant_derive(&with, &params, channels, EA_MHA_QUANT_CHANNEL_INTS(kE));
  }
  // ea_mha_quant_run_s8 or _s16 (by run_dtype) on the plan.
  ea_status Run(ea_dtype run_dtype, int32_t n_tokens, void* out) {
    if (run_dtype == EA_DTYPE_INT8) {
      return ea_mha_quant_run_s8(&plan, reinterpret_cast<const int8_t*>(x.data()), n_tokens,
                                 n_tokens, static_cast<int8_t*>(out), nullptr);
    }
    return ea_mha_quant_run_s16(&plan, reinterpret_cast<const int16_t*>(x.data()), n_tokens,
                                n_tokens, static_cast<int16_t*>(out), nullptr);
  }

  ea_dtype dtype;
  QuantMhaCase c;
  ea_mha_quant_scales scales{};
  std::vector<int64_t> biases;  // in_proj_bias then out_proj_bias, int32 or int64
  ea_mha_quant_weights weights{};
  ea_mha_config config{};
  std::vector<uint8_t> x, y;
  AlignedBytes storage{1 << 16};
  ea_mha_quant_plan plan{};
  int32_t channels[EA_MHA_QUANT_CHANNEL_INTS(kE)] = {};
};

// A KV cache of 8 positions, 2 heads of 4, in its own arena.
struct KvWorld {
  KvWorld() {
    ea_arena_init(&arena, storage.data(), storage.size());
    status = ea_kv_cache_init(&cache, &config, &arena);
  }
  ea_status Init(const ea_kv_cache_config& with) {
    ea_arena other;
    ea_arena_init(&other, storage.data(), storage.size());
    ea_kv_cache fresh{};
    return ea_kv_cache_init(&fresh, &with, &other);
  }
  ea_kv_cache_config config{8, 2, 2, 4, 2, 0, EA_KV_STORAGE_F32, 0.0f, nullptr};
  AlignedBytes storage{1 << 15};
  ea_arena arena{};
  ea_kv_cache cache{};
  ea_status status = EA_OK;
  std::vector<float> rows = std::vector<float>(8 * 8, 0.5f);
  std::vector<float> out = std::vector<float>(8 * 8, 0.0f);
};

struct Cause {
  const char* what;
  std::function<ea_status(World&)> trigger;
};

struct Documented {
  ea_status code;
  std::vector<Cause> causes;
};

std::vector<Documented> DocumentedCauses() {
  return {
      {EA_ERR_NULL_POINTER,
       {{"KV cache append without values",
         [](World&) {
           KvWorld kv;
           return ea_kv_cache_append(&kv.cache, kv.rows.data(), nullptr, 1);
         }},
        {"NULL config",
         [](World&) {
           size_t b;
           return ea_attention_arena_size(nullptr, &b);
         }},
        {"two workers without a run function",
         [](World& w) {
           ea_attention_config c = Attention();
           c.parallel.max_workers = 2;
           return w.PlanAttention(c);
         }},
        {"NULL weights to pack",
         [](World& w) { return ea_linear_pack_weights(nullptr, 3, 2, w.out.data(), 128); }},
        {"NULL plan",
         [](World& w) {
           ea_arena arena;
           const ea_attention_config c = Attention();
           ea_arena_init(&arena, w.attention_storage.data(), w.attention_storage.size());
           return ea_attention_init(nullptr, &c, &arena);
         }},
        {"NULL input at run",
         [](World& w) {
           return ea_attention_run(&w.attention, nullptr, w.q.data(), w.q.data(), kN, w.out.data(),
                                   nullptr);
         }},
        {"NULL weight",
         [](World& w) {
           ea_mha_weights none = w.weights;
           none.out_proj_weight = nullptr;
           ea_arena arena;
           ea_mha_plan plan{};
           const ea_mha_config c = Mha();
           ea_arena_init(&arena, w.mha_storage.data(), w.mha_storage.size());
           return ea_mha_init(&plan, &c, &none, &arena);
         }},
        {"LEARNED without its table",
         [](World& w) {
           ea_mha_config c = Mha();
           c.position = EA_POSITION_LEARNED;
           return w.PlanMha(c);
         }},
        {"NULL arena buffer",
         [](World&) {
           ea_arena arena;
           return ea_arena_init(&arena, nullptr, 64);
         }},
        {"NULL table to fill", [](World&) { return ea_sinusoidal_table_fill(nullptr, 4, 4); }},
        {"fixed point with neither quant_scales nor quant_params",
         [](World&) {
           QuantWorld q(EA_DTYPE_INT8);
           q.config.quant_scales = nullptr;
           size_t bytes = 0;
           return ea_mha_quant_arena_size(&q.config, &bytes);
         }},
        {"given fixed-point integers without their per-channel arrays",
         [](World&) {
           QuantWorld q(EA_DTYPE_INT16);
           ea_mha_quant_params params{};
           int32_t channels[EA_MHA_QUANT_CHANNEL_INTS(kE)];
           const ea_status s =
               ea_mha_quant_derive(&q.config, &params, channels, EA_MHA_QUANT_CHANNEL_INTS(kE));
           if (s != EA_OK) return s;
           params.v_proj.output_shift = nullptr;
           q.config.quant_params = &params;
           return q.Plan(q.config);
         }},
        {"fixed-point LEARNED without its quantized table",
         [](World&) {
           QuantWorld q(EA_DTYPE_INT8);
           q.config.position = EA_POSITION_LEARNED;
           return q.Plan(q.config);
         }}}},
      {EA_ERR_BAD_DIMENSION,
       {{"KV cache capacity 0",
         [](World&) {
           KvWorld kv;
           ea_kv_cache_config c = kv.config;
           c.capacity = 0;
           return kv.Init(c);
         }},
        {"KV cache window whose queries do not fit the ring",
         [](World&) {
           KvWorld kv;
           ea_kv_cache_config c = kv.config;
           c.window = 8;  // window + max_queries - 1 = 9 > capacity
           return kv.Init(c);
         }},
        {"KV cache attend of more queries than tokens appended",
         [](World&) {
           KvWorld kv;
           ea_kv_cache_append(&kv.cache, kv.rows.data(), kv.rows.data(), 1);
           return ea_kv_cache_attend(&kv.cache, kv.rows.data(), 2, kv.out.data());
         }},
        {"zero dimension",
         [](World& w) {
           ea_attention_config c = Attention();
           c.n_kv = 0;
           return w.PlanAttention(c);
         }},
        {"negative dimension",
         [](World& w) {
           ea_mha_config c = Mha();
           c.d_model = -16;
           return w.PlanMha(c);
         }},
        {"packed weights with no outputs",
         [](World& w) { return ea_linear_pack_weights(w.q.data(), 0, 2, w.out.data(), 64); }},
        {"run n_tokens = 0",
         [](World& w) { return ea_mha_run(&w.mha, w.q.data(), 0, 0, w.out.data(), nullptr); }},
        {"run n_tokens > max_tokens",
         [](World& w) {
           return ea_mha_run(&w.mha, w.q.data(), kN + 1, kN, w.out.data(), nullptr);
         }},
        {"fixed-point run n_tokens = 0",
         [](World&) {
           QuantWorld q(EA_DTYPE_INT16);
           return q.Run(EA_DTYPE_INT16, 0, q.y.data());
         }},
        {"fixed-point run n_tokens > max_tokens",
         [](World&) {
           QuantWorld q(EA_DTYPE_INT8);
           return q.Run(EA_DTYPE_INT8, kN + 1, q.y.data());
         }}}},
      {EA_ERR_DIMENSION_OVERFLOW,
       {{"KV cache past EA_MAX_ELEMENTS",
         [](World&) {
           KvWorld kv;
           ea_kv_cache_config c = kv.config;
           c.capacity = 1 << 20;
           c.n_kv_heads = 1 << 6;
           c.n_heads = 1 << 6;
           c.d_head = 1 << 4;
           size_t bytes = 0;
           return ea_kv_cache_arena_size(&c, &bytes);
         }},
        {"packed weights past EA_MAX_ELEMENTS",
         [](World&) {
           size_t floats = 0;
           return ea_linear_packed_size(1 << 20, 1 << 9, &floats);
         }},
        {"tensor past EA_MAX_ELEMENTS",
         [](World& w) {
           ea_attention_config c = Attention();
           c.n_q = 1 << 20;
           c.d_k = 1 << 9;
           return w.PlanAttention(c);
         }},
        {"attn_weights past EA_MAX_ELEMENTS",
         [](World& w) {
           // n_q * n_kv = 2^29 weights, planned in a small arena (d_k = 1).
           ea_attention_config c = Attention();
           c.n_q = 1 << 14;
           c.n_kv = 1 << 15;
           c.d_k = 1;
           c.d_v = 1;
           size_t bytes = 0;
           ea_status s = ea_attention_arena_size(&c, &bytes);
           if (s != EA_OK) return s;
           AlignedBytes storage(bytes);
           ea_arena arena;
           ea_attention_plan plan{};
           ea_arena_init(&arena, storage.data(), bytes);
           s = ea_attention_init(&plan, &c, &arena);
           if (s != EA_OK) return s;
           float* any = w.q.data();  // never read: the check comes first
           return ea_attention_run(&plan, any, any, any, 1, w.out.data(), w.attn.data());
         }}}},
      {EA_ERR_HEADS_MISMATCH,
       {{"KV cache n_heads % n_kv_heads != 0",
         [](World&) {
           KvWorld kv;
           ea_kv_cache_config c = kv.config;
           c.n_heads = 3;
           return kv.Init(c);
         }},
        {"d_model % heads != 0",
         [](World& w) {
           ea_mha_config c = Mha();
           c.n_heads = 3;
           return w.PlanMha(c);
         }}}},
      {EA_ERR_ARENA_TOO_SMALL,
       {{"one byte short",
         [](World& w) {
           const ea_attention_config c = Attention();
           size_t bytes = 0;
           ea_attention_arena_size(&c, &bytes);
           ea_arena arena;
           ea_attention_plan plan{};
           ea_arena_init(&arena, w.attention_storage.data(), bytes - 1);
           return ea_attention_init(&plan, &c, &arena);
         }},
        {"packing buffer one float short",
         [](World& w) {
           // W [3, 2] packs into 2 * 64 floats.
           return ea_linear_pack_weights(w.q.data(), 3, 2, w.out.data(), 2 * 64 - 1);
         }}}},
      {EA_ERR_ARENA_MISALIGNED,
       {{"misaligned buffer",
         [](World& w) {
           ea_arena arena;
           return ea_arena_init(&arena, w.attention_storage.data() + 4, 1024);
         }},
        {"misaligned next free byte",
         [](World& w) {
           ea_arena arena;
           ea_arena_init(&arena, w.attention_storage.data(), w.attention_storage.size());
           arena.used = 4;
           ea_attention_plan plan{};
           const ea_attention_config c = Attention();
           return ea_attention_init(&plan, &c, &arena);
         }}}},
      {EA_ERR_CACHE_FULL,
       {{"a KV cache without a window appended past capacity",
         [](World&) {
           KvWorld kv;
           ea_kv_cache_append(&kv.cache, kv.rows.data(), kv.rows.data(), 8);
           return ea_kv_cache_append(&kv.cache, kv.rows.data(), kv.rows.data(), 1);
         }},
        {"an MHA decoder stepped past max_positions",
         [](World&) {
           const std::vector<float> weights(3 * 8 * 8, 0.25f), x(8, 1.0f);
           std::vector<float> y(8);
           ea_decoder_config c{};
           c.d_model = 8;
           c.n_heads = 2;
           c.n_kv_heads = 2;
           c.max_positions = 2;
           c.max_step_tokens = 1;
           c.storage = EA_KV_STORAGE_F32;
           c.weights_layout = EA_WEIGHTS_ROW_MAJOR;
           AlignedBytes storage{1 << 16};
           ea_arena arena;
           ea_arena_init(&arena, storage.data(), storage.size());
           ea_decoder decoder{};
           const ea_mha_weights w =
               edgeattn_test::InProjWeights(weights.data(), nullptr, weights.data(), nullptr);
           ea_decoder_init(&decoder, &c, &w, &arena);
           ea_decoder_step(&decoder, x.data(), 1, y.data());
           ea_decoder_step(&decoder, x.data(), 1, y.data());
           return ea_decoder_step(&decoder, x.data(), 1, y.data());
         }}}},
      {EA_ERR_BAD_FILE,
       {{"a weight file that is neither a blob nor safetensors",
         [](World&) {
           AlignedBytes bytes(64, 0xFF);
           ea_weight_file file{};
           return ea_weight_file_open(&file, bytes.data(), bytes.size());
         }}}},
      {EA_ERR_NOT_FOUND,
       {{"a weight file without the tensor asked for",
         [](World&) {
           AlignedBytes bytes(16, ' ');
           const char header[] = {8, 0, 0, 0, 0, 0, 0, 0, '{', '}'};
           memcpy(bytes.data(), header, sizeof(header));
           ea_weight_file file{};
           ea_weight_file_open(&file, bytes.data(), bytes.size());
           ea_tensor_view view{};
           return ea_weight_file_find(&file, "in_proj_weight", &view);
         }}}},
      {EA_ERR_BAD_ARGUMENT,
       {{"KV cache storage out of range",
         [](World&) {
           KvWorld kv;
           ea_kv_cache_config c = kv.config;
           c.storage = RawEnum<ea_kv_storage>(4);
           return kv.Init(c);
         }},
        {"KV cache keys inside the cache's arena",
         [](World&) {
           KvWorld kv;
           const float* inside = reinterpret_cast<const float*>(kv.cache.records);
           return ea_kv_cache_append(&kv.cache, inside, kv.rows.data(), 1);
         }},
        {"unknown dtype",
         [](World& w) {
           ea_attention_config c = Attention();
           c.dtype = RawEnum<ea_dtype>(99);
           return w.PlanAttention(c);
         }},
        {"unknown mask",
         [](World& w) {
           ea_attention_config c = Attention();
           c.mask = RawEnum<ea_mask>(-5);
           return w.PlanAttention(c);
         }},
        {"max_workers past EA_MAX_WORKERS",
         [](World& w) {
           ea_attention_config c = Attention();
           c.parallel = ea_parallel_for{&OneThreadPool, nullptr, EA_MAX_WORKERS + 1};
           return w.PlanAttention(c);
         }},
        {"a parallel-for that passes a worker out of range",
         [](World&) {
           // Two query blocks of 60 rows, so the run hands tasks to the hook.
           ea_attention_config c = Attention();
           c.n_q = 2 * 60;
           c.parallel = ea_parallel_for{&WorkerOutOfRangePool, nullptr, 2};
           std::vector<float> q(static_cast<size_t>(c.n_q) * c.d_k, 0.5f);
           std::vector<float> kv(static_cast<size_t>(c.n_kv) * c.d_k, 0.5f);
           std::vector<float> out(static_cast<size_t>(c.n_q) * c.d_v);
           size_t bytes = 0;
           ea_attention_arena_size(&c, &bytes);
           AlignedBytes storage(bytes);
           ea_arena arena;
           ea_attention_plan plan{};
           ea_arena_init(&arena, storage.data(), bytes);
           const ea_status s = ea_attention_init(&plan, &c, &arena);
           if (s != EA_OK) return s;
           return ea_attention_run(&plan, q.data(), kv.data(), kv.data(), c.n_kv, out.data(),
                                   nullptr);
         }},
        {"unknown weights layout",
         [](World& w) {
           ea_mha_config c = Mha();
           c.weights_layout = RawEnum<ea_weights_layout>(2);
           return w.PlanMha(c);
         }},
        {"packing buffer over its weights",
         [](World& w) {
           // W [3, 1] packs into 64 floats, which fit but start inside W.
           return ea_linear_pack_weights(w.out.data(), 3, 1, w.out.data() + 2, w.out.size() - 2);
         }},
        {"unknown position kind",
         [](World& w) {
           ea_mha_config c = Mha();
           c.position = RawEnum<ea_position>(3);
           return w.PlanMha(c);
         }},
        {"negative scale",
         [](World& w) {
           ea_attention_config c = Attention();
           c.scale = -1.0f;
           return w.PlanAttention(c);
         }},
        {"NaN scale",
         [](World& w) {
           ea_attention_config c = Attention();
           c.scale = std::nanf("");
           return w.PlanAttention(c);
         }},
        {"infinite scale",
         [](World& w) {
           ea_attention_config c = Attention();
           c.scale = INFINITY;
           return w.PlanAttention(c);
         }},
        {"n_valid_keys < 0", [](World& w) { return w.RunAttention(-1); }},
        {"n_valid_keys > n_kv", [](World& w) { return w.RunAttention(kN + 1); }},
        {"plan not ready",
         [](World& w) {
           ea_attention_plan zero{};
           return ea_attention_run(&zero, w.q.data(), w.q.data(), w.q.data(), kN, w.out.data(),
                                   nullptr);
         }},
        {"output over an input",
         [](World& w) {
           return ea_attention_run(&w.attention, w.q.data(), w.q.data(), w.q.data(), kN, w.q.data(),
                                   nullptr);
         }},
        {"output over a weight",
         [](World& w) {
           return ea_mha_run(&w.mha, w.q.data(), kN, kN,
                             const_cast<float*>(w.weights.out_proj_weight), nullptr);
         }},
        {"arena used > capacity",
         [](World& w) {
           ea_arena arena;
           ea_arena_init(&arena, w.attention_storage.data(), 128);
           arena.used = 192;
           ea_attention_plan plan{};
           const ea_attention_config c = Attention();
           return ea_attention_init(&plan, &c, &arena);
         }},
        {"unknown SIMD target name", [](World&) { return ea_set_max_simd_target("AVX9"); }},
        {"a fixed-point dtype given to the float Attention(Q, K, V) init",
         [](World& w) {
           ea_attention_config c = Attention();
           c.dtype = EA_DTYPE_INT16;
           return w.PlanAttention(c);
         }},
        {"a fixed-point dtype given to the float MHA init",
         [](World& w) {
           ea_mha_config c = Mha();
           c.dtype = EA_DTYPE_INT8;
           return w.PlanMha(c);
         }},
        {"an INT8 plan given to ea_mha_quant_run_s16",
         [](World&) {
           QuantWorld q(EA_DTYPE_INT8);
           return q.Run(EA_DTYPE_INT16, kN, q.y.data());
         }},
        {"an INT16 plan given to ea_mha_quant_run_s8",
         [](World&) {
           QuantWorld q(EA_DTYPE_INT16);
           return q.Run(EA_DTYPE_INT8, kN, q.y.data());
         }},
        {"fixed-point output over a weight",
         [](World&) {
           QuantWorld q(EA_DTYPE_INT8);
           return q.Run(EA_DTYPE_INT8, kN, q.c.in_proj.data());
         }},
        {"fixed-point scale 0",
         [](World&) {
           QuantWorld q(EA_DTYPE_INT8);
           q.scales.v.scale = 0.0f;
           return q.Derive(q.config);
         }},
        {"fixed-point scale negative",
         [](World&) {
           QuantWorld q(EA_DTYPE_INT16);
           q.scales.output.scale = -1.0f;
           return q.Plan(q.config);
         }},
        {"fixed-point scale NaN",
         [](World&) {
           QuantWorld q(EA_DTYPE_INT8);
           q.c.in_scales[3] = std::nanf("");
           return q.Derive(q.config);
         }},
        {"fixed-point scale infinite",
         [](World&) {
           QuantWorld q(EA_DTYPE_INT16);
           q.scales.scores.scale = INFINITY;
           return q.Derive(q.config);
         }},
        {"int8 zero point outside [-128, 127]",
         [](World&) {
           QuantWorld q(EA_DTYPE_INT8);
           q.scales.k.zero_point = 128;
           return q.Plan(q.config);
         }},
        {"int16 zero point not 0",
         [](World&) {
           QuantWorld q(EA_DTYPE_INT16);
           q.scales.input.zero_point = -1;
           return q.Derive(q.config);
         }},
        {"a multiplier TFLite would refuse (int16 shift above 7)",
         [](World&) {
           QuantWorld q(EA_DTYPE_INT16);
           q.scales.q.scale *= 1e-6f;
           return q.Derive(q.config);
         }},
        {"a multiplier TFLite would refuse (int8 softmax left shift below 0)",
         [](World&) {
           QuantWorld q(EA_DTYPE_INT8);
           q.scales.scores.scale = 1e-9f;
           return q.Plan(q.config);
         }},
        {"a given fixed-point integer out of range",
         [](World&) {
           QuantWorld q(EA_DTYPE_INT8);
           ea_mha_quant_params params{};
           int32_t channels[EA_MHA_QUANT_CHANNEL_INTS(kE)];
           const ea_status s =
               ea_mha_quant_derive(&q.config, &params, channels, EA_MHA_QUANT_CHANNEL_INTS(kE));
           if (s != EA_OK) return s;
           params.context.input_offset = 0;  // int8 probabilities: 128 only
           q.config.quant_params = &params;
           return q.Plan(q.config);
         }}}},
  };
}

TEST(StatusCodes, EveryDocumentedCauseReturnsItsCode) {
  World world;
  for (const Documented& d : DocumentedCauses()) {
    for (const Cause& cause : d.causes) {
      EXPECT_EQ(cause.trigger(world), d.code) << ea_status_str(d.code) << ": " << cause.what;
    }
  }
}

TEST(StatusCodes, EveryCodeHasItsOwnDescription) {
#if defined(EDGEATTN_NO_ERROR_STRINGS)
  GTEST_SKIP() << "built with EDGEATTN_NO_ERROR_STRINGS: every description is empty";
#else
  std::set<std::string> seen;
  for (const Documented& d : DocumentedCauses()) {
    const std::string text = ea_status_str(d.code);
    EXPECT_FALSE(text.empty());
    EXPECT_TRUE(seen.insert(text).second) << text;
  }
  EXPECT_STREQ(ea_status_str(EA_OK), "ok");
  // Any int a C caller passes, negative ones included (the fuzzer found -1 to be
  // outside the enum's range when it had no negative member).
  for (int32_t raw : std::initializer_list<int32_t>{12345, -1, INT32_MIN, INT32_MAX}) {
    EXPECT_STREQ(ea_status_str(RawEnum<ea_status>(raw)), "unknown status") << raw;
  }
#endif
}

TEST(StatusCodes, ArenaLargerThanSizeTIsAnOverflow) {
  if (sizeof(size_t) >= 8) {
    GTEST_SKIP() << "no valid shape's arena exceeds a 64-bit size_t; 32-bit targets run this";
  }
  // Every tensor at 2^28 elements (allowed), four of them in the arena: 4 GiB.
  ea_self_attention_config c{};
  c.dtype = EA_DTYPE_F32;
  c.max_tokens = 1 << 14;
  c.d_model = 1 << 14;
  c.d_k = 1 << 14;
  c.d_v = 1 << 14;
  c.mask = EA_MASK_NONE;
  c.position = EA_POSITION_NONE;
  size_t bytes = 0;
  EXPECT_EQ(ea_self_attention_arena_size(&c, &bytes), EA_ERR_DIMENSION_OVERFLOW);
}

}  // namespace
}  // namespace edgeattn_test
