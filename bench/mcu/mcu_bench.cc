// The counted Cortex-M bench (`make bench-mcu`): one bare-metal image per
// board, run by qemu-system-arm with -icount shift=0, prints one JSON line per
// row ("mcu-row {...}"): instructions, instructions per MAC, arena bytes and
// the deepest stack of each measured call. tools/bench_mcu.py collects the
// lines of every board into bench/results/mcu.json and the table of
// bench/README.md.
//
// Rows: int8, int16 and float32 MHA (non-causal, a learned position table
// added to x) at the two shapes of the CMSIS-NN comparison (n 64, d_model 64
// and n 128, d_model 128, 4 heads), a causal int8 row, and one int8 decoder
// step after 128 and after 512 cached tokens. Components of the int8 and
// int16 layers: the ADD of the table (ea_add_quant_run_s8 / _s16 over n x d_model) and
// the four heads' attention (ea_attention_quant_run_s8 / _s16 on [n, d_k] q, k, v:
// QK^T, softmax, P V);
// the projections are the layer's instructions less those two.
//
// Data are pseudo-random integers (instructions do not depend on them beyond
// a few saturation branches); scales are plausible for such data, so every
// requantisation runs its normal path. Buffers come from malloc (the bench,
// not the library, allocates).
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <initializer_list>

#include "edgeattn/edgeattn.h"
#include "edgeattn/decoder.h"
#include "instruction_counter.h"
#include "stack_watermark.h"

namespace {

using mcu_bench::InstructionCounter;
using mcu_bench::StackWatermark;

InstructionCounter g_counter;
int g_failures = 0;

// Deterministic bytes (xorshift32).
struct Random {
  uint32_t state;
  uint32_t Next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
  int32_t Int(int32_t low, int32_t high) {
    return low + static_cast<int32_t>(Next() % static_cast<uint32_t>(high - low + 1));
  }
};

// A malloc'd block, freed at scope end, optionally 64-byte aligned.
class Block {
 public:
  explicit Block(size_t bytes) : raw_(malloc(bytes + 64)), bytes_(bytes) {
    if (raw_ == nullptr) {
      printf("mcu-bench: malloc of %u bytes failed\n", static_cast<unsigned>(bytes));
      exit(3);
    }
    memset(raw_, 0, bytes + 64);
  }
  ~Block() { free(raw_); }
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;
  template <typename T>
  T* As() const {
    const uintptr_t at = (reinterpret_cast<uintptr_t>(raw_) + 63) & ~uintptr_t{63};
    return reinterpret_cast<T*>(at);
  }
  size_t bytes() const { return bytes_; }

 private:
  void* raw_;
  size_t bytes_;
};

template <typename T>
void FillIntegers(Random* random, T* values, size_t count, int32_t low, int32_t high) {
  for (size_t i = 0; i < count; ++i) values[i] = static_cast<T>(random->Int(low, high));
}

void FillFloats(Random* random, float* values, size_t count, float magnitude) {
  for (size_t i = 0; i < count; ++i) {
    values[i] = magnitude * (static_cast<float>(random->Int(-1000, 1000)) / 1000.0f);
  }
}

void Check(ea_status status, const char* what) {
  if (status != EA_OK) {
    printf("mcu-bench: %s returned %s\n", what, ea_status_str(status));
    ++g_failures;
  }
}

// One measured row: the printed JSON line.
struct Row {
  const char* name;
  const char* dtype;
  const char* kind;  // "layer", "component" or "decode"
  int32_t n, d_model, heads;
  uint64_t macs;
  uint64_t instructions;
  size_t arena_bytes;
  size_t stack_bytes;
};

void Print(const Row& row) {
  printf(
      "mcu-row {\"name\": \"%s\", \"dtype\": \"%s\", \"kind\": \"%s\", \"n\": %ld, "
      "\"d_model\": %ld, \"heads\": %ld, \"macs\": %llu, \"instructions\": %llu, "
      "\"arena_bytes\": %lu, \"stack_bytes\": %lu}\n",
      row.name, row.dtype, row.kind, static_cast<long>(row.n), static_cast<long>(row.d_model),
      static_cast<long>(row.heads), static_cast<unsigned long long>(row.macs),
      static_cast<unsigned long long>(row.instructions), static_cast<unsigned long>(row.arena_bytes),
      static_cast<unsigned long>(row.stack_bytes));
}

// Instructions and stack of one call.
template <typename Call>
void Measure(Row* row, Call call) {
  StackWatermark stack;
  stack.Paint();
  g_counter.Start();
  call();
  row->instructions = g_counter.Stop();
  row->stack_bytes = stack.UsedBytes();
}

// MACs of an MHA layer over n tokens: four projections and, per head, QK^T
// and P V over the visible keys.
uint64_t MhaMacs(int32_t n, int32_t d_model, bool causal) {
  const uint64_t e = static_cast<uint64_t>(d_model), rows = static_cast<uint64_t>(n);
  const uint64_t visible = causal ? rows * (rows + 1) / 2 : rows * rows;
  return 4 * rows * e * e + 2 * visible * e;
}

// The quantization of every tensor (int16: zero points 0, finer grids).
ea_mha_quant_scales Scales(bool int16, const float* in_scales, const float* out_scales) {
  const float grid = int16 ? 1.0f / 256.0f : 1.0f;
  const int32_t zero = int16 ? 0 : 1;
  ea_mha_quant_scales s{};
  s.input = {grid / 32.0f, zero};
  s.position = {grid / 64.0f, zero};
  s.positioned = {grid / 24.0f, -zero};
  s.q = {grid / 8.0f, zero};
  s.k = {grid / 8.0f, -zero};
  s.v = {grid / 8.0f, zero};
  s.scores = {grid * 0.5f, zero};
  s.context = {grid / 16.0f, -zero};
  s.output = {grid / 8.0f, zero};
  s.in_proj_weight_scales = in_scales;
  s.out_proj_weight_scales = out_scales;
  return s;
}

// The tensors and plan of one fixed-point layer.
struct QuantLayer {
  QuantLayer(ea_dtype dtype, int32_t n, int32_t d_model, int32_t heads, ea_mask mask)
      : element(dtype == EA_DTYPE_INT8 ? 1 : 2),
        bias_bytes(dtype == EA_DTYPE_INT8 ? 4 : 8),
        in_w(3u * d_model * d_model),
        out_w(static_cast<size_t>(d_model) * d_model),
        in_b(3u * d_model * bias_bytes),
        out_b(static_cast<size_t>(d_model) * bias_bytes),
        table(static_cast<size_t>(n) * d_model * element),
        x(static_cast<size_t>(n) * d_model * element),
        y(static_cast<size_t>(n) * d_model * element),
        weight_scales(4u * d_model * sizeof(float)) {
    Random random{0x2545F491u + static_cast<uint32_t>(n * 7 + d_model)};
    FillIntegers(&random, in_w.As<int8_t>(), in_w.bytes(), -127, 127);
    FillIntegers(&random, out_w.As<int8_t>(), out_w.bytes(), -127, 127);
    const size_t in_channels = 3u * d_model, channels = static_cast<size_t>(d_model);
    if (dtype == EA_DTYPE_INT8) {
      FillIntegers(&random, in_b.As<int32_t>(), in_channels, -2000, 2000);
      FillIntegers(&random, out_b.As<int32_t>(), channels, -2000, 2000);
      FillIntegers(&random, table.As<int8_t>(), table.bytes(), -128, 127);
      FillIntegers(&random, x.As<int8_t>(), x.bytes(), -128, 127);
    } else {
      FillIntegers(&random, in_b.As<int64_t>(), in_channels, -200000, 200000);
      FillIntegers(&random, out_b.As<int64_t>(), channels, -200000, 200000);
      FillIntegers(&random, table.As<int16_t>(), table.bytes() / 2, -32768, 32767);
      FillIntegers(&random, x.As<int16_t>(), x.bytes() / 2, -32768, 32767);
    }
    float* scales = weight_scales.As<float>();
    for (size_t c = 0; c < 4 * channels; ++c) scales[c] = (0.8f + 0.001f * (c % 400)) / 1024.0f;
    quant_scales = Scales(dtype == EA_DTYPE_INT16, scales, scales + in_channels);
    config.dtype = dtype;
    config.max_tokens = n;
    config.d_model = d_model;
    config.n_heads = heads;
    config.mask = mask;
    config.position = EA_POSITION_LEARNED;
    config.weights_layout = EA_WEIGHTS_ROW_MAJOR;
    config.quant_scales = &quant_scales;
    config.quant_position_table = table.As<void>();
    weights = ea_mha_quant_weights{};  // by name: the struct grows at its end
    weights.in_proj_weight = in_w.As<int8_t>();
    weights.in_proj_bias = in_b.As<void>();
    weights.out_proj_weight = out_w.As<int8_t>();
    weights.out_proj_bias = out_b.As<void>();
  }

  size_t element, bias_bytes;
  Block in_w, out_w, in_b, out_b, table, x, y, weight_scales;
  ea_mha_quant_scales quant_scales;
  ea_mha_config config{};
  ea_mha_quant_weights weights{};
};

// An arena of exactly `bytes`.
struct Arena {
  explicit Arena(size_t bytes) : block(bytes) { ea_arena_init(&arena, block.As<void>(), bytes); }
  Block block;
  ea_arena arena{};
};

void QuantMhaRow(const char* name, ea_dtype dtype, int32_t n, int32_t d_model, int32_t heads,
                 ea_mask mask) {
  QuantLayer layer(dtype, n, d_model, heads, mask);
  size_t bytes = 0;
  Check(ea_mha_quant_arena_size(&layer.config, &bytes), "ea_mha_quant_arena_size");
  Arena arena(bytes);
  ea_mha_quant_plan plan{};
  Check(ea_mha_quant_init(&plan, &layer.config, &layer.weights, &arena.arena),
        "ea_mha_quant_init");
  const bool int8 = dtype == EA_DTYPE_INT8;
  Row row{name, int8 ? "int8" : "int16", "layer", n, d_model, heads,
          MhaMacs(n, d_model, mask == EA_MASK_CAUSAL), 0, bytes, 0};
  ea_status status = EA_OK;
  Measure(&row, [&] {
    status = int8 ? ea_mha_quant_run_s8(&plan, layer.x.As<int8_t>(), n, n, layer.y.As<int8_t>(), nullptr)
                  : ea_mha_quant_run_s16(&plan, layer.x.As<int16_t>(), n, n, layer.y.As<int16_t>(), nullptr);
  });
  Check(status, "ea_mha_run");
  Print(row);
  if (mask != EA_MASK_NONE) return;

  // Components with the layer's own integers.
  const ea_mha_quant_params& p = plan.params;
  const char* type = int8 ? "int8" : "int16";
  Row add{"add", type, "component", n, d_model, heads, 0, 0, 0, 0};
  const size_t count = static_cast<size_t>(n) * d_model;
  Measure(&add, [&] {
    status = int8 ? ea_add_quant_run_s8(layer.x.As<int8_t>(), layer.table.As<int8_t>(), count, &p.add,
                              layer.y.As<int8_t>())
                  : ea_add_quant_run_s16(layer.x.As<int16_t>(), layer.table.As<int16_t>(), count, &p.add,
                               layer.y.As<int16_t>());
  });
  Check(status, "ea_add");
  Print(add);

  const int32_t d_k = d_model / heads;
  ea_attention_quant_params attention_params{p.scores, p.softmax, p.context};
  ea_attention_config attention{};
  attention.dtype = dtype;
  attention.n_q = attention.n_kv = n;
  attention.d_k = attention.d_v = d_k;
  attention.mask = EA_MASK_NONE;
  attention.quant_params = &attention_params;
  size_t attention_bytes = 0;
  Check(ea_attention_quant_arena_size(&attention, &attention_bytes), "ea_attention_quant_arena_size");
  Arena attention_arena(attention_bytes);
  ea_attention_quant_plan attention_plan{};
  Check(ea_attention_quant_init(&attention_plan, &attention, &attention_arena.arena),
        "ea_attention_quant_init");
  const size_t head_values = static_cast<size_t>(n) * d_k;
  const size_t head_bytes = head_values * layer.element;
  Block q(head_bytes), k(head_bytes), v(head_bytes), out(head_bytes);
  Random random{77};
  for (Block* block : {&q, &k, &v}) {
    if (int8) {
      FillIntegers(&random, block->As<int8_t>(), head_values, -128, 127);
    } else {
      FillIntegers(&random, block->As<int16_t>(), head_values, -32768, 32767);
    }
  }
  Row heads_row{"attention", type, "component", n, d_model, heads,
                2 * static_cast<uint64_t>(n) * n * d_model, 0, attention_bytes, 0};
  Measure(&heads_row, [&] {
    for (int32_t h = 0; h < heads && status == EA_OK; ++h) {
      status = int8 ? ea_attention_quant_run_s8(&attention_plan, q.As<int8_t>(), k.As<int8_t>(),
                                          v.As<int8_t>(), attention_plan.config.n_kv, out.As<int8_t>(), nullptr)
                    : ea_attention_quant_run_s16(&attention_plan, q.As<int16_t>(), k.As<int16_t>(),
                                           v.As<int16_t>(), attention_plan.config.n_kv, out.As<int16_t>(), nullptr);
    }
  });
  Check(status, "ea_attention_run");
  Print(heads_row);
}

void FloatMhaRow(const char* name, int32_t n, int32_t d_model, int32_t heads) {
  const size_t e = static_cast<size_t>(d_model), rows = static_cast<size_t>(n);
  Block in_w(3 * e * e * 4), in_b(3 * e * 4), out_w(e * e * 4), out_b(e * 4), table(rows * e * 4),
      x(rows * e * 4), y(rows * e * 4);
  Random random{99};
  FillFloats(&random, in_w.As<float>(), 3 * e * e, 0.1f);
  FillFloats(&random, in_b.As<float>(), 3 * e, 0.1f);
  FillFloats(&random, out_w.As<float>(), e * e, 0.1f);
  FillFloats(&random, out_b.As<float>(), e, 0.1f);
  FillFloats(&random, table.As<float>(), rows * e, 1.0f);
  FillFloats(&random, x.As<float>(), rows * e, 1.0f);
  ea_mha_config config{};
  config.dtype = EA_DTYPE_F32;
  config.max_tokens = n;
  config.d_model = d_model;
  config.n_heads = heads;
  config.mask = EA_MASK_NONE;
  config.position = EA_POSITION_LEARNED;
  config.position_table = table.As<float>();
  config.weights_layout = EA_WEIGHTS_ROW_MAJOR;
  ea_mha_weights weights{};  // by name: the struct grows at its end
  weights.in_proj_weight = in_w.As<float>();
  weights.in_proj_bias = in_b.As<float>();
  weights.out_proj_weight = out_w.As<float>();
  weights.out_proj_bias = out_b.As<float>();
  size_t bytes = 0;
  Check(ea_mha_arena_size(&config, &bytes), "ea_mha_arena_size");
  Arena arena(bytes);
  ea_mha_plan plan{};
  Check(ea_mha_init(&plan, &config, &weights, &arena.arena), "ea_mha_init");
  Row row{name, "f32", "layer", n, d_model, heads, MhaMacs(n, d_model, false), 0, bytes, 0};
  ea_status status = EA_OK;
  Measure(&row, [&] { status = ea_mha_run(&plan, x.As<float>(), n, n, y.As<float>(), nullptr); });
  Check(status, "ea_mha_run");
  Print(row);
}

// One int8 decoder step of one token after `cached` tokens (the cache filled
// by steps of up to 128 tokens first).
void DecodeRow(const char* name, int32_t cached, int32_t d_model, int32_t heads) {
  const int32_t capacity = cached + 1;
  QuantLayer layer(EA_DTYPE_INT8, capacity, d_model, heads, EA_MASK_CAUSAL);
  ea_decoder_quant_config config{};
  config.dtype = layer.config.dtype;
  config.d_model = layer.config.d_model;
  config.n_heads = layer.config.n_heads;
  config.max_positions = layer.config.max_tokens;
  config.max_step_tokens = 128;
  config.position = layer.config.position;
  config.quant_position_table = layer.config.quant_position_table;
  config.quant_scales = layer.config.quant_scales;
  size_t bytes = 0;
  Check(ea_decoder_quant_arena_size(&config, &bytes), "ea_decoder_quant_arena_size");
  Arena arena(bytes);
  ea_decoder_quant decoder{};
  Check(ea_decoder_quant_init(&decoder, &config, &layer.weights, &arena.arena),
        "ea_decoder_quant_init");
  const int8_t* x = layer.x.As<int8_t>();
  int8_t* y = layer.y.As<int8_t>();
  for (int32_t done = 0; done < cached;) {
    const int32_t step = cached - done < 128 ? cached - done : 128;
    Check(ea_decoder_quant_step_s8(&decoder, x + static_cast<size_t>(done) * d_model, step,
                                       y + static_cast<size_t>(done) * d_model),
          "ea_decoder_quant_step_s8 (prefill)");
    done += step;
  }
  const uint64_t e = static_cast<uint64_t>(d_model);
  Row row{name, "int8", "decode", cached, d_model, heads,
          4 * e * e + 2 * (static_cast<uint64_t>(cached) + 1) * e, 0, bytes, 0};
  ea_status status = EA_OK;
  const size_t at = static_cast<size_t>(cached) * d_model;
  Measure(&row, [&] { status = ea_decoder_quant_step_s8(&decoder, x + at, 1, y + at); });
  Check(status, "ea_decoder_quant_step_s8");
  Print(row);
}

}  // namespace

int main() {
  if (!g_counter.Calibrate()) {
    printf("mcu-bench: the timer does not count instructions: run qemu with -icount shift=0\n");
    return 2;
  }
  printf("mcu-calibration {\"instructions_per_tick\": %.4f}\n", g_counter.InstructionsPerTick());
  QuantMhaRow("int8 MHA n64", EA_DTYPE_INT8, 64, 64, 4, EA_MASK_NONE);
  QuantMhaRow("int8 MHA n128", EA_DTYPE_INT8, 128, 128, 4, EA_MASK_NONE);
  QuantMhaRow("int8 MHA n128 causal", EA_DTYPE_INT8, 128, 128, 4, EA_MASK_CAUSAL);
  QuantMhaRow("int16 MHA n64", EA_DTYPE_INT16, 64, 64, 4, EA_MASK_NONE);
  QuantMhaRow("int16 MHA n128", EA_DTYPE_INT16, 128, 128, 4, EA_MASK_NONE);
  FloatMhaRow("f32 MHA n64", 64, 64, 4);
  FloatMhaRow("f32 MHA n128", 128, 128, 4);
  DecodeRow("int8 decode step, 128 cached", 128, 128, 4);
  DecodeRow("int8 decode step, 512 cached", 512, 128, 4);
  printf("mcu-bench: %s\n", g_failures == 0 ? "done" : "FAILED");
  return g_failures == 0 ? 0 : 1;
}
