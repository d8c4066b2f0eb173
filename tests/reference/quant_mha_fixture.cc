#include "reference/quant_mha_fixture.h"

#include <math.h>
#include <string.h>

#include <algorithm>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/decoder.h"
#include "flat_quant_configs.h"
#include "reference/device_softmax_luts.h"
#include "reference/quant_rope_tables.h"
#include "reference/quant_test_values.h"
#include "reference/random_tensor.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

bool IsInt8(ea_dtype dtype) { return dtype == EA_DTYPE_INT8; }
int32_t MinOf(ea_dtype dtype) { return IsInt8(dtype) ? -128 : -32768; }
int32_t MaxOf(ea_dtype dtype) { return IsInt8(dtype) ? 127 : 32767; }

float FloatFromBits(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

ea_quant Quant(tflite_golden::Quantization q) {
  return {FloatFromBits(q.scale_bits), q.zero_point};
}

template <typename T>
std::vector<T> Narrow(const std::vector<int32_t>& values) {
  return std::vector<T>(values.begin(), values.end());
}

template <typename T>
std::vector<int32_t> Widen(const T* values, size_t count) {
  return std::vector<int32_t>(values, values + count);
}

// The float sinusoidal table, quantized by the reference's own QUANTIZE.
std::vector<int32_t> ReferencePositions(const QuantMhaCase& c) {
  std::vector<float> table(static_cast<size_t>(c.n) * c.d_model);
  if (ea_sinusoidal_table_fill(table.data(), c.n, c.d_model) != EA_OK) return {};
  std::vector<int32_t> q(table.size());
  for (size_t i = 0; i < table.size(); ++i) {
    q[i] = tflite_ref::AffineQuantize(table[i], c.scales.position.scale,
                                      c.scales.position.zero_point, MinOf(c.dtype), MaxOf(c.dtype));
  }
  return q;
}

// A test hook that runs tasks last to first, cycling through the workers.
void BackwardsRun(void* context, int32_t n_tasks, ea_task_fn task, void* task_context) {
  const int32_t workers = *static_cast<const int32_t*>(context);
  for (int32_t i = n_tasks - 1; i >= 0; --i) task(task_context, i, (n_tasks - 1 - i) % workers);
}

// The case's layer planned in an arena of the size the library asks for
// (status: the first refusal).
struct PlannedQuantMha {
  explicit PlannedQuantMha(const QuantMhaCase& c)
      : layer(c),
        status(ea_mha_quant_arena_size(&layer.config, &bytes)),
        storage(status == EA_OK ? bytes : 0) {
    if (status != EA_OK) return;
    ea_arena_init(&arena, storage.data(), bytes);
    status = ea_mha_quant_init(&plan, &layer.config, &layer.weights, &arena);
  }
  QuantMhaLayer layer;
  size_t bytes = 0;
  ea_status status;
  AlignedBytes storage;
  ea_arena arena{};
  ea_mha_quant_plan plan{};
};

ea_status RunPlan(const ea_mha_quant_plan* plan, const int8_t* x, int32_t n, int32_t valid,
                  int8_t* y, int8_t* probs) {
  return ea_mha_quant_run_s8(plan, x, n, valid, y, probs);
}
ea_status RunPlan(const ea_mha_quant_plan* plan, const int16_t* x, int32_t n, int32_t valid,
                  int16_t* y, int16_t* probs) {
  return ea_mha_quant_run_s16(plan, x, n, valid, y, probs);
}
ea_status TracePlan(const ea_mha_quant_plan* plan, const int8_t* x, int32_t n, int32_t valid,
                    int8_t* y, const ea_mha_quant_taps* taps) {
  return ea_mha_quant_trace_s8(plan, x, n, valid, y, taps);
}
ea_status TracePlan(const ea_mha_quant_plan* plan, const int16_t* x, int32_t n, int32_t valid,
                    int16_t* y, const ea_mha_quant_taps* taps) {
  return ea_mha_quant_trace_s16(plan, x, n, valid, y, taps);
}

template <typename T>
QuantMhaCase::Result RunTyped(const QuantMhaCase& c) {
  QuantMhaCase::Result result;
  if (c.KvHeads() != c.heads) return result;  // ea_mha_quant has no grouped-query heads
  const PlannedQuantMha planned(c);
  const ea_mha_quant_plan& plan = planned.plan;
  result.status = planned.status;
  if (result.status != EA_OK) return result;
  const size_t elements = static_cast<size_t>(c.n) * c.d_model;
  const std::vector<T> x = Narrow<T>(c.x_emb);
  std::vector<T> y(elements), probs(static_cast<size_t>(c.heads) * c.n * c.n);
  result.status = RunPlan(&plan, x.data(), c.n, c.ValidKeys(), y.data(), probs.data());
  if (result.status != EA_OK) return result;
  const auto region = [&](const void* p, size_t count) {
    return p == nullptr ? std::vector<int32_t>() : Widen(static_cast<const T*>(p), count);
  };
  result.pe = region(plan.position_table, elements);
  const int d_k = c.d_model / c.heads;
  result.qkv_columns = edgeattn::kMhaQuantHeadByHead ? d_k : c.d_model;
  result.qkv_first_column = edgeattn::kMhaQuantHeadByHead ? c.d_model - d_k : 0;
  const size_t projected = static_cast<size_t>(c.n) * static_cast<size_t>(result.qkv_columns);
  result.q = region(plan.q, projected);
  result.k = region(plan.k, projected);
  result.v = region(plan.v, projected);
  result.o = region(plan.context, elements);
  result.y = Widen(y.data(), y.size());
  result.probs = Widen(probs.data(), probs.size());
  return result;
}

template <typename T>
QuantMhaCase::Traced TraceTyped(const QuantMhaCase& c) {
  QuantMhaCase::Traced traced;
  if (c.KvHeads() != c.heads) return traced;
  const PlannedQuantMha planned(c);
  traced.status = planned.status;
  if (traced.status != EA_OK) return traced;
  const size_t elements = static_cast<size_t>(c.n) * c.d_model;
  const size_t per_head = static_cast<size_t>(c.heads) * c.n * c.n;
  const std::vector<T> x = Narrow<T>(c.x_emb);
  std::vector<T> y(elements), positioned(elements), q(elements), k(elements), v(elements),
      context(elements), scores(per_head), probs(per_head);
  void* const buffers[7] = {positioned.data(), q.data(),     k.data(),      v.data(),
                            scores.data(),     probs.data(), context.data()};
  const ea_mha_quant_taps taps = QuantTaps(buffers);
  traced.status = TracePlan(&planned.plan, x.data(), c.n, c.ValidKeys(), y.data(), &taps);
  if (traced.status != EA_OK) return traced;
  traced.positioned = Widen(positioned.data(), elements);
  traced.q = Widen(q.data(), elements);
  traced.k = Widen(k.data(), elements);
  traced.v = Widen(v.data(), elements);
  traced.scores = Widen(scores.data(), per_head);
  traced.probs = Widen(probs.data(), per_head);
  traced.context = Widen(context.data(), elements);
  traced.y = Widen(y.data(), elements);
  return traced;
}

ea_status Step(ea_decoder_quant* d, const int8_t* x, int32_t n, int8_t* y) {
  return ea_decoder_quant_step_s8(d, x, n, y);
}
ea_status Step(ea_decoder_quant* d, const int16_t* x, int32_t n, int16_t* y) {
  return ea_decoder_quant_step_s16(d, x, n, y);
}

ea_status SetMemory(ea_cross_quant* cross, const int8_t* memory, int32_t n) {
  return ea_cross_quant_set_memory_s8(cross, memory, n);
}
ea_status SetMemory(ea_cross_quant* cross, const int16_t* memory, int32_t n) {
  return ea_cross_quant_set_memory_s16(cross, memory, n);
}
ea_status CrossRun(ea_cross_quant* cross, const int8_t* x, int32_t n, int8_t* y) {
  return ea_cross_quant_run_s8(cross, x, n, y);
}
ea_status CrossRun(ea_cross_quant* cross, const int16_t* x, int32_t n, int16_t* y) {
  return ea_cross_quant_run_s16(cross, x, n, y);
}

template <typename T>
QuantMhaCase::Decoded CrossTyped(const QuantMhaCase& c, const std::vector<int>& runs,
                                 int memory_rows, const std::vector<int32_t>& earlier_memory) {
  QuantMhaCase::Decoded result;
  const QuantMhaLayer layer(c);
  ea_cross_quant_config config = CrossQuantConfigOf(
      layer.config, memory_rows > 0 ? memory_rows : c.NMemory(), c.kv_heads, c.memory_quant);
  config.max_queries = *std::max_element(runs.begin(), runs.end());
  size_t bytes = 0;
  result.status = ea_cross_quant_arena_size(&config, &bytes);
  if (result.status != EA_OK) return result;
  result.arena_bytes = bytes;
  AlignedBytes storage(bytes);
  ea_arena arena;
  ea_arena_init(&arena, storage.data(), bytes);
  ea_cross_quant cross{};
  result.status = ea_cross_quant_init(&cross, &config, &layer.weights, &arena);
  if (result.status != EA_OK) return result;
  result.carved_bytes = arena.used;
  if (!earlier_memory.empty()) {
    const std::vector<T> earlier = Narrow<T>(earlier_memory);
    result.status =
        SetMemory(&cross, earlier.data(),
                  static_cast<int32_t>(earlier.size() / static_cast<size_t>(c.d_model)));
    if (result.status != EA_OK) return result;
  }
  const std::vector<T> memory = Narrow<T>(c.memory);
  result.status = SetMemory(&cross, memory.data(), c.NMemory());
  if (result.status != EA_OK) return result;
  const size_t e = static_cast<size_t>(c.d_model);
  const std::vector<T> x = Narrow<T>(c.x_emb);
  std::vector<T> y(x.size());
  size_t row = 0;
  for (size_t i = 0; row < static_cast<size_t>(c.n); ++i) {
    const int n = std::min(runs[i % runs.size()], c.n - static_cast<int>(row));
    result.status = CrossRun(&cross, x.data() + row * e, n, y.data() + row * e);
    if (result.status != EA_OK) return result;
    row += static_cast<size_t>(n);
  }
  result.y = Widen(y.data(), y.size());
  return result;
}

template <typename T>
QuantMhaCase::Decoded DecodeTyped(const QuantMhaCase& c, const std::vector<int>& steps) {
  QuantMhaCase::Decoded result;
  const QuantMhaLayer layer(c);
  const ea_mha_quant_weights& weights = layer.weights;
  ea_decoder_quant_config config = DecoderQuantConfigOf(layer.config, c.kv_heads);
  config.max_step_tokens = *std::max_element(steps.begin(), steps.end());
  config.window = c.window;
  ea_rope_quant_scales rope_scales[2];
  const std::vector<T> cos = Narrow<T>(c.rope != 0 ? c.RopeTable(false) : std::vector<int32_t>());
  const std::vector<T> sin = Narrow<T>(c.rope != 0 ? c.RopeTable(true) : std::vector<int32_t>());
  if (c.rope != 0) {
    c.RopeScales(rope_scales);
    config.rope_layout =
        c.rope == tflite_ref::kRopeInterleaved ? EA_ROPE_INTERLEAVED : EA_ROPE_HALF;
    config.rope_cos_table = cos.data();
    config.rope_sin_table = sin.data();
    config.rope_scales = rope_scales;
  }
  size_t bytes = 0;
  result.status = ea_decoder_quant_arena_size(&config, &bytes);
  if (result.status != EA_OK) return result;
  result.arena_bytes = bytes;
  AlignedBytes storage(bytes);
  ea_arena arena;
  ea_arena_init(&arena, storage.data(), bytes);
  ea_decoder_quant decoder{};
  result.status = ea_decoder_quant_init(&decoder, &config, &weights, &arena);
  if (result.status != EA_OK) return result;
  result.carved_bytes = arena.used;
  const size_t e = static_cast<size_t>(c.d_model);
  const std::vector<T> x = Narrow<T>(c.x_emb);
  std::vector<T> y(x.size());
  size_t row = 0;
  for (size_t i = 0; row < static_cast<size_t>(c.n); ++i) {
    const int n = std::min(steps[i % steps.size()], c.n - static_cast<int>(row));
    result.status = Step(&decoder, x.data() + row * e, n, y.data() + row * e);
    if (result.status != EA_OK) return result;
    row += static_cast<size_t>(n);
  }
  result.y = Widen(y.data(), y.size());
  return result;
}

template <typename T, typename Bias, typename Params>
QuantMhaCase::Expected ReferenceTyped(const QuantMhaCase& c, const Params& params,
                                      std::vector<int32_t> pe) {
  const size_t e = static_cast<size_t>(c.d_model);
  const size_t kv = static_cast<size_t>(c.KvWidth());
  const std::vector<T> x_emb = Narrow<T>(c.x_emb);
  std::vector<T> pe_t = Narrow<T>(pe);
  const std::vector<Bias> bias(c.in_bias.begin(), c.in_bias.end());
  const std::vector<Bias> out_bias(c.out_bias.begin(), c.out_bias.end());
  tflite_ref::ChainInputs<T, Bias> in{};
  in.x_emb = x_emb.data();
  in.pe = c.positions ? pe_t.data() : nullptr;
  in.w_q = c.in_proj.data();
  in.w_k = c.in_proj.data() + e * e;
  in.w_v = c.in_proj.data() + (e + kv) * e;
  in.w_o = c.out_proj.data();
  in.b_q = bias.data();
  in.b_k = bias.data() + e;
  in.b_v = bias.data() + e + kv;
  in.b_o = out_bias.data();
  tflite_ref::ChainShape shape{c.n,           c.d_model,   c.heads, c.causal,
                               c.ValidKeys(), c.KvHeads(), c.window};
  shape.rope = c.rope;
  const std::vector<T> cos = Narrow<T>(c.rope != 0 ? c.RopeTable(false) : std::vector<int32_t>());
  const std::vector<T> sin = Narrow<T>(c.rope != 0 ? c.RopeTable(true) : std::vector<int32_t>());
  in.rope_cos = c.rope != 0 ? cos.data() : nullptr;
  in.rope_sin = c.rope != 0 ? sin.data() : nullptr;
  const std::vector<T> memory = Narrow<T>(c.memory);
  if (!memory.empty()) {
    shape.n_memory = c.NMemory();
    shape.n_valid_keys = c.n_valid_keys < 0 ? c.NMemory() : c.n_valid_keys;
    in.memory = memory.data();
  }
  tflite_ref::ChainTensors<T> t;
  if constexpr (sizeof(T) == 1) {
    t = tflite_ref::RunChainInt8(shape, params, in);
  } else {
    t = tflite_ref::RunChainInt16(shape, params, in);
  }
  QuantMhaCase::Expected ex;
  ex.pe = c.positions ? pe : std::vector<int32_t>();
  ex.x = c.positions ? Widen(t.x.data(), t.x.size()) : std::vector<int32_t>();
  ex.q = Widen(t.q.data(), t.q.size());
  ex.k = Widen(t.k.data(), t.k.size());
  ex.v = Widen(t.v.data(), t.v.size());
  ex.o = Widen(t.o.data(), t.o.size());
  ex.y = Widen(t.y.data(), t.y.size());
  for (const auto& p : t.probs) ex.probs.insert(ex.probs.end(), p.begin(), p.end());
  for (const auto& s : t.scores) ex.scores.push_back(Widen(s.data(), s.size()));
  return ex;
}

}  // namespace

QuantMhaLayer::QuantMhaLayer(const QuantMhaCase& c)
    : scales_(c.scales), workers_(c.parallel_workers), kv_heads_(c.KvHeads()) {
  config.dtype = c.dtype;
  config.max_tokens = c.plan_tokens > 0 ? c.plan_tokens : c.n;
  config.d_model = c.d_model;
  config.n_heads = c.heads;
  config.mask = c.causal ? EA_MASK_CAUSAL : EA_MASK_NONE;
  config.position = c.positions ? EA_POSITION_SINUSOIDAL : EA_POSITION_NONE;
  config.weights_layout = EA_WEIGHTS_ROW_MAJOR;
  if (workers_ > 1) config.parallel = ea_parallel_for{BackwardsRun, &workers_, workers_};
  scales_.in_proj_weight_scales = c.in_scales.data();
  scales_.out_proj_weight_scales = c.out_scales.data();
  config.quant_scales = &scales_;
  const void* in_bias = nullptr;
  const void* out_bias = nullptr;
  if (IsInt8(c.dtype)) {
    in_bias32_.assign(c.in_bias.begin(), c.in_bias.end());
    out_bias32_.assign(c.out_bias.begin(), c.out_bias.end());
    in_bias = in_bias32_.data();
    out_bias = out_bias32_.data();
  } else {
    in_bias = c.in_bias.data();
    out_bias = c.out_bias.data();
  }
  weights =
      edgeattn_test::InProjQuantWeights(c.in_proj.data(), in_bias, c.out_proj.data(), out_bias);
  if (c.separate_projections || c.other_bias_form) SeparateProjections(c);
  if (c.softmax_exp_lut != nullptr) GiveSoftmaxTables(c);
}

void QuantMhaLayer::GiveSoftmaxTables(const QuantMhaCase& c) {
  channel_ints_.resize(EA_MHA_QUANT_CHANNEL_INTS(config.d_model));
  // Grouped-query heads: only the decoder's derive knows W_K's and W_V's
  // width; a memory: only the cross-attention's knows k's and v's input.
  const ea_decoder_quant_config decoder = DecoderQuantConfigOf(config, kv_heads_);
  const ea_cross_quant_config cross =
      CrossQuantConfigOf(config, c.NMemory(), kv_heads_, c.memory_quant);
  int32_t* ints = channel_ints_.data();
  const size_t count = channel_ints_.size();
  const ea_status derived = !c.memory.empty() ? ea_cross_quant_derive(&cross, &params_, ints, count)
                            : kv_heads_ == config.n_heads
                                ? ea_mha_quant_derive(&config, &params_, ints, count)
                                : ea_decoder_quant_derive(&decoder, &params_, ints, count);
  if (derived != EA_OK) return;  // the plan derives its own integers, with the built-in tables
  params_.softmax.exp_lut = c.softmax_exp_lut;
  params_.softmax.one_over_one_plus_x_lut = c.softmax_reciprocal_lut;
  config.quant_params = &params_;
}

void QuantMhaLayer::SeparateProjections(const QuantMhaCase& c) {
  const size_t e = static_cast<size_t>(c.d_model);
  const size_t kv = static_cast<size_t>(c.KvWidth());
  const size_t bias_bytes = IsInt8(c.dtype) ? sizeof(int32_t) : sizeof(int64_t);
  const uint8_t* in_bias = static_cast<const uint8_t*>(weights.in_proj_bias);
  const size_t first[4] = {0, e, e + kv, e + 2 * kv};  // in_proj rows of W_Q, W_K, W_V
  for (size_t which = 0; which < 3; ++which) {
    part_weights_[which].assign(c.in_proj.begin() + first[which] * e,
                                c.in_proj.begin() + first[which + 1] * e);
    part_biases_[which].assign(in_bias + first[which] * bias_bytes,
                               in_bias + first[which + 1] * bias_bytes);
    part_scales_[which].assign(c.in_scales.begin() + first[which],
                               c.in_scales.begin() + first[which + 1]);
  }
  if (c.separate_projections) {
    weights.in_proj_weight = nullptr;
    weights.q_proj_weight = part_weights_[0].data();
    weights.k_proj_weight = part_weights_[1].data();
    weights.v_proj_weight = part_weights_[2].data();
    scales_.in_proj_weight_scales = nullptr;
    scales_.q_proj_weight_scales = part_scales_[0].data();
    scales_.k_proj_weight_scales = part_scales_[1].data();
    scales_.v_proj_weight_scales = part_scales_[2].data();
  }
  if (c.separate_projections != c.other_bias_form) {
    weights.in_proj_bias = nullptr;
    weights.q_proj_bias = part_biases_[0].data();
    weights.k_proj_bias = part_biases_[1].data();
    weights.v_proj_bias = part_biases_[2].data();
  }
}

QuantMhaCase::Result QuantMhaCase::Run() const {
  return IsInt8(dtype) ? RunTyped<int8_t>(*this) : RunTyped<int16_t>(*this);
}

QuantMhaCase::Traced QuantMhaCase::Trace() const {
  return IsInt8(dtype) ? TraceTyped<int8_t>(*this) : TraceTyped<int16_t>(*this);
}

QuantMhaCase::Decoded QuantMhaCase::Decode(const std::vector<int>& steps) const {
  return IsInt8(dtype) ? DecodeTyped<int8_t>(*this, steps) : DecodeTyped<int16_t>(*this, steps);
}

QuantMhaCase::Decoded QuantMhaCase::Cross(const std::vector<int>& runs, int memory_rows,
                                          const std::vector<int32_t>& earlier_memory) const {
  return IsInt8(dtype) ? CrossTyped<int8_t>(*this, runs, memory_rows, earlier_memory)
                       : CrossTyped<int16_t>(*this, runs, memory_rows, earlier_memory);
}

tflite_ref::ChainQuantization QuantMhaCase::Quantization(std::vector<float>* channel_scales) const {
  *channel_scales = in_scales;
  channel_scales->insert(channel_scales->end(), out_scales.begin(), out_scales.end());
  const size_t e = static_cast<size_t>(d_model);
  tflite_ref::ChainQuantization q{};
  q.x_emb = RefQuant(scales.input);
  q.pe = RefQuant(scales.position);
  q.x = RefQuant(positions ? scales.positioned : scales.input);
  q.q = RefQuant(scales.q);
  q.k = RefQuant(scales.k);
  q.v = RefQuant(scales.v);
  q.scores = RefQuant(scales.scores);
  q.probs = IsInt8(dtype) ? tflite_ref::TensorQuantization{1.0f / 256, -128}
                          : tflite_ref::TensorQuantization{1.0f / 32768, 0};
  q.o = RefQuant(scales.context);
  q.y = RefQuant(scales.output);
  const size_t kv = static_cast<size_t>(KvWidth());
  q.w_q_scales = channel_scales->data();
  q.w_k_scales = channel_scales->data() + e;
  q.w_v_scales = channel_scales->data() + e + kv;
  q.w_o_scales = channel_scales->data() + e + 2 * kv;
  // TFLite's SOFTMAX beta: the model's own, or the textbook 1/sqrt(d_k).
  q.beta = scales.softmax_beta != 0.0f ? scales.softmax_beta
                                       : 1.0f / sqrtf(static_cast<float>(d_model / heads));
  if (!memory.empty()) {
    q.cross = true;
    q.memory = RefQuant(memory_quant);
  }
  if (rope != 0) {
    ea_rope_quant_scales r[2];
    RopeScales(r);
    q.rope = true;
    for (int i = 0; i < 2; ++i) {
      tflite_ref::RopeQuantization& to = i == 0 ? q.rope_q : q.rope_k;
      to = {RefQuant(r[i].x),           RefQuant(r[i].cos_table),   RefQuant(r[i].sin_table),
            RefQuant(r[i].cos_product), RefQuant(r[i].sin_product), RefQuant(r[i].rotated)};
    }
  }
  return q;
}

void QuantMhaCase::RopeScales(ea_rope_quant_scales out[2]) const {
  const ea_quant table = IsInt8(dtype) ? RopeTableQuant<int8_t>() : RopeTableQuant<int16_t>();
  for (int i = 0; i < 2; ++i) {
    const ea_quant x = i == 0 ? scales.q : scales.k;
    out[i].x = x;
    out[i].cos_table = out[i].sin_table = table;
    // Each output of its own quantization (int8: zero points too), so that
    // cos and sin, or ADD's operands, cannot be mixed up unseen.
    const int32_t zp = IsInt8(dtype) ? 2 + i : 0;
    out[i].cos_product = ea_quant{2 * x.scale, zp};
    out[i].sin_product = ea_quant{1.5f * x.scale, -zp};
    out[i].rotated = ea_quant{3 * x.scale, 2 * zp};
  }
}

std::vector<int32_t> QuantMhaCase::RopeTable(bool sin) const {
  const RopeTables exact =
      ExactRopeTables(PlanTokens(), d_model / heads, rope == tflite_ref::kRopeInterleaved);
  const std::vector<double>& values = sin ? exact.sin : exact.cos;
  if (IsInt8(dtype)) {
    const std::vector<int8_t> codes = QuantizeTable<int8_t>(values, RopeTableQuant<int8_t>());
    return std::vector<int32_t>(codes.begin(), codes.end());
  }
  const std::vector<int16_t> codes = QuantizeTable<int16_t>(values, RopeTableQuant<int16_t>());
  return std::vector<int32_t>(codes.begin(), codes.end());
}

QuantMhaCase::Expected QuantMhaCase::Reference() const {
  std::vector<float> channel_scales;
  const tflite_ref::ChainQuantization q = Quantization(&channel_scales);
  const std::vector<int32_t> pe = positions ? ReferencePositions(*this) : std::vector<int32_t>();
  if (IsInt8(dtype)) {
    return ReferenceTyped<int8_t, int32_t>(*this,
                                           tflite_ref::PrepareChainInt8(q, d_model, KvWidth()), pe);
  }
  return ReferenceTyped<int16_t, int64_t>(
      *this,
      tflite_ref::PrepareChainInt16(
          q, d_model, KvWidth(), softmax_exp_lut != nullptr ? softmax_exp_lut : TfliteExpLut(),
          softmax_reciprocal_lut != nullptr ? softmax_reciprocal_lut : TfliteReciprocalLut()),
      pe);
}

QuantMhaCase GroupedQueryHeads(const QuantMhaCase& c, int kv_heads) {
  QuantMhaCase g = c;
  g.kv_heads = kv_heads;
  g.name += "_kv" + std::to_string(kv_heads);
  const size_t e = static_cast<size_t>(c.d_model);
  const size_t d_k = e / static_cast<size_t>(c.heads);
  const size_t group = static_cast<size_t>(c.heads / kv_heads);
  const size_t kv = static_cast<size_t>(kv_heads) * d_k;
  g.in_proj.resize(e * e);
  g.in_bias.resize(c.in_bias.empty() ? 0 : e);
  g.in_scales.resize(e);
  for (size_t which = 1; which <= 2; ++which) {
    for (size_t channel = 0; channel < kv; ++channel) {
      // KV head channel / d_k is the case's query head (channel / d_k) * group.
      const size_t from = which * e + channel / d_k * group * d_k + channel % d_k;
      g.in_proj.insert(g.in_proj.end(), c.in_proj.begin() + static_cast<ptrdiff_t>(from * e),
                       c.in_proj.begin() + static_cast<ptrdiff_t>((from + 1) * e));
      if (!c.in_bias.empty()) g.in_bias.push_back(c.in_bias[from]);
      g.in_scales.push_back(c.in_scales[from]);
    }
  }
  // Exactly as long as the layer's: a read past them is AddressSanitizer's.
  g.in_proj.shrink_to_fit();
  g.in_bias.shrink_to_fit();
  g.in_scales.shrink_to_fit();
  return g;
}

std::vector<int32_t> Columns(const std::vector<int32_t>& tensor, int width, int first, int count) {
  std::vector<int32_t> part;
  for (size_t row = 0; row + 1 <= tensor.size() / static_cast<size_t>(width); ++row) {
    const auto begin = tensor.begin() + static_cast<std::ptrdiff_t>(row * width + first);
    part.insert(part.end(), begin, begin + count);
  }
  return part;
}

std::vector<int32_t> GoldenValues(const tflite_golden::GoldenCase& golden,
                                  const tflite_golden::Blob& blob) {
  if (blob.data == nullptr) return {};
  if (golden.chain == tflite_golden::Chain::kInt8) {
    return Widen(static_cast<const int8_t*>(blob.data), blob.bytes);
  }
  return Widen(static_cast<const int16_t*>(blob.data), blob.bytes / 2);
}

ea_decoder_quant_config DecoderQuantConfigOf(const ea_mha_config& layer, int32_t n_kv_heads) {
  ea_decoder_quant_config config{};
  SetDecoderLayer(layer, &config);
  config.n_kv_heads = n_kv_heads;
  config.max_step_tokens = 1;
  return config;
}

ea_cross_quant_config CrossQuantConfigOf(const ea_mha_config& layer, int32_t max_memory,
                                         int32_t n_kv_heads, ea_quant memory) {
  ea_cross_quant_config config{};
  SetCrossLayer(layer, &config);
  config.n_kv_heads = n_kv_heads;
  config.max_memory = max_memory;
  config.memory = memory;
  return config;
}

QuantMhaCase FromGolden(const tflite_golden::GoldenCase& g) {
  QuantMhaCase c;
  c.name = g.name;
  c.dtype = g.chain == tflite_golden::Chain::kInt8 ? EA_DTYPE_INT8 : EA_DTYPE_INT16;
  c.n = g.n;
  c.d_model = g.d_model;
  c.heads = g.heads;
  c.causal = g.causal;
  c.positions = true;
  c.scales.input = Quant(g.quant.x_emb);
  c.scales.position = Quant(g.quant.pe);
  c.scales.positioned = Quant(g.quant.x);
  c.scales.q = Quant(g.quant.q);
  c.scales.k = Quant(g.quant.k);
  c.scales.v = Quant(g.quant.v);
  c.scales.scores = Quant(g.quant.scores);
  c.scales.context = Quant(g.quant.o);
  c.scales.output = Quant(g.quant.y);
  const size_t e = static_cast<size_t>(g.d_model);
  for (const uint32_t* bits : {g.channel_scales.w_q, g.channel_scales.w_k, g.channel_scales.w_v}) {
    for (size_t i = 0; i < e; ++i)
      c.in_scales.push_back(bits != nullptr ? FloatFromBits(bits[i]) : 0.0f);
  }
  for (size_t i = 0; i < e; ++i) {
    c.out_scales.push_back(g.channel_scales.w_o != nullptr ? FloatFromBits(g.channel_scales.w_o[i])
                                                           : 0.0f);
  }
  c.x_emb = GoldenValues(g, g.blobs.x_emb);
  for (const tflite_golden::Blob* w : {&g.blobs.w_q, &g.blobs.w_k, &g.blobs.w_v}) {
    const int8_t* data = static_cast<const int8_t*>(w->data);
    if (data != nullptr) c.in_proj.insert(c.in_proj.end(), data, data + w->bytes);
  }
  const int8_t* w_o = static_cast<const int8_t*>(g.blobs.w_o.data);
  if (w_o != nullptr) c.out_proj.assign(w_o, w_o + g.blobs.w_o.bytes);
  const auto add_bias = [&](const tflite_golden::Blob& b, std::vector<int64_t>* out) {
    if (b.data == nullptr) return;
    if (c.dtype == EA_DTYPE_INT8) {
      const int32_t* v = static_cast<const int32_t*>(b.data);
      out->insert(out->end(), v, v + b.bytes / 4);
    } else {
      const int64_t* v = static_cast<const int64_t*>(b.data);
      out->insert(out->end(), v, v + b.bytes / 8);
    }
  };
  add_bias(g.blobs.b_q, &c.in_bias);
  add_bias(g.blobs.b_k, &c.in_bias);
  add_bias(g.blobs.b_v, &c.in_bias);
  add_bias(g.blobs.b_o, &c.out_bias);
  return c;
}

QuantMhaCase RandomQuantMha(ea_dtype dtype, RandomShape shape, uint64_t seed, double spread) {
  RandomStream random(seed);
  const auto uniform = [&](double lo, double hi) { return lo + (hi - lo) * random.Uniform(); };
  const auto integer = [&](int32_t lo, int32_t hi) {
    return static_cast<int32_t>(
        lo + static_cast<int64_t>(random.Uniform() *
                                  (static_cast<double>(hi) - static_cast<double>(lo) + 1.0)));
  };
  // A factor in [1/spread, spread], log-uniform.
  const auto jitter = [&]() { return static_cast<float>(exp(uniform(-log(spread), log(spread)))); };
  const bool int8 = IsInt8(dtype);
  const int32_t lo = MinOf(dtype), hi = MaxOf(dtype);
  const auto zero_point = [&]() { return int8 ? integer(-128, 127) : 0; };
  QuantMhaCase c;
  c.name = std::string(int8 ? "s8" : "s16") + "_n" + std::to_string(shape.n) + "_d" +
           std::to_string(shape.d_model) + "_h" + std::to_string(shape.heads) +
           (shape.causal ? "_causal" : "_full") + (shape.positions ? "" : "_nopos");
  c.dtype = dtype;
  c.n = shape.n;
  c.d_model = shape.d_model;
  c.heads = shape.heads;
  c.causal = shape.causal;
  c.positions = shape.positions;
  const size_t e = static_cast<size_t>(shape.d_model);
  // Typical magnitude of a uniformly spread activation, in LSB.
  const double spread_lsb = int8 ? 74.0 : 18900.0;
  const double sqrt_d = sqrt(static_cast<double>(shape.d_model));
  const double sqrt_dk = sqrt(static_cast<double>(shape.d_model / shape.heads));
  c.scales.input = {static_cast<float>(0.02 * jitter()), zero_point()};
  c.scales.position = {static_cast<float>(1.0 / (int8 ? 127.0 : 32767.0) * jitter()), zero_point()};
  c.scales.positioned = {
      static_cast<float>((c.scales.input.scale + c.scales.position.scale * 0.5) * jitter()),
      zero_point()};
  const float s_in = c.positions ? c.scales.positioned.scale : c.scales.input.scale;
  // Weights: int8 in [-127, 127], scale ~ 1 / (127 sqrt(d)) per channel.
  for (size_t i = 0; i < 3 * e; ++i)
    c.in_scales.push_back(static_cast<float>(jitter() / (127.0 * sqrt_d)));
  for (size_t i = 0; i < e; ++i)
    c.out_scales.push_back(static_cast<float>(jitter() / (127.0 * sqrt_d)));
  // A projection's real output ~ sqrt(d) * (74 s_w) * (spread_lsb s_x)
  // = (74 / 127) spread_lsb s_x: its scale puts that at spread_lsb / 2.
  const auto projection_scale = [&](float s_x) {
    return static_cast<float>(2.0 * 74.0 / 127.0 * s_x * jitter());
  };
  c.scales.q = {projection_scale(s_in), zero_point()};
  c.scales.k = {projection_scale(s_in), zero_point()};
  c.scales.v = {projection_scale(s_in), zero_point()};
  // q_h k_h ~ sqrt(d_k) (spread_lsb / 2)^2 s_q s_k, put at spread_lsb / 2.
  c.scales.scores = {static_cast<float>(sqrt_dk * 0.5 * spread_lsb * c.scales.q.scale *
                                        c.scales.k.scale * jitter()),
                     zero_point()};
  c.scales.context = {static_cast<float>(c.scales.v.scale * jitter()), zero_point()};
  c.scales.output = {projection_scale(c.scales.context.scale), zero_point()};
  const size_t elements = static_cast<size_t>(shape.n) * e;
  for (size_t i = 0; i < elements; ++i) c.x_emb.push_back(integer(lo, hi));
  for (size_t i = 0; i < 3 * e * e; ++i)
    c.in_proj.push_back(static_cast<int8_t>(integer(-127, 127)));
  for (size_t i = 0; i < e * e; ++i) c.out_proj.push_back(static_cast<int8_t>(integer(-127, 127)));
  // Biases of the accumulator's own size (int8: 74 * 74 * sqrt(d) ~ 2^14;
  // int16: 18900 * 74 * sqrt(d) ~ 2^22): larger ones saturate q, k and v, and
  // y would barely depend on x. TFLite's 2^47 int16 domain has tests of its own.
  const int32_t bias_range = int8 ? (1 << 14) : (1 << 22);
  for (size_t i = 0; i < 3 * e; ++i) c.in_bias.push_back(integer(-bias_range, bias_range));
  for (size_t i = 0; i < e; ++i) c.out_bias.push_back(integer(-bias_range, bias_range));
  return c;
}

}  // namespace edgeattn_test
