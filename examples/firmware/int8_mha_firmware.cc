// An int8 MHA layer as a product ships it on a microcontroller (`make
// firmware`: Cortex-M4 and M55 under qemu): n 128 tokens, d_model 128, 4
// heads, TFLite's integers.
//  - Weights, biases, the requantisation integers and the quantized
//    sinusoidal position table are constant data, in flash. Nothing is copied
//    into RAM: on Cortex-M the int8 kernels read W_Q, W_K, W_V and W_O in
//    place, in TFLite's FULLY_CONNECTED layout, and the arena holds only
//    activations (its size is a compile-time constant).
//  - The table comes from edgeattn::MakeQuantizedSinusoidalTable at compile
//    time (the same integers a plan would fill), and the integers are given
//    (ea_mha_quant_params), so the image links no libm: make footprint
//    checks its symbols, and make bench-mcu reports the library text it links.
// It prints the arena size and a digest of the output, which is the same on
// every board (the DSP and the Helium kernels compute TFLite's integers).
#include <stdint.h>
#include <stdio.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.hpp"

namespace {

constexpr int32_t kTokens = 128, kDModel = 128, kHeads = 4;

// Stand-in for trained tensors: deterministic integers. A real product
// includes the header its converter wrote from the .tflite file instead.
template <typename T, int kCount>
struct Table {
  T values[kCount];
};

template <typename T, int kCount>
constexpr Table<T, kCount> MakeTable(uint32_t salt, int32_t low, int32_t high) {
  Table<T, kCount> table{};
  for (int i = 0; i < kCount; ++i) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ salt * 40503u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    table.values[i] =
        static_cast<T>(low + static_cast<int32_t>(h % static_cast<uint32_t>(high - low + 1)));
  }
  return table;
}

constexpr auto kInProj = MakeTable<int8_t, 3 * kDModel * kDModel>(1, -127, 127);
constexpr auto kOutProj = MakeTable<int8_t, kDModel * kDModel>(2, -127, 127);
constexpr auto kInBias = MakeTable<int32_t, 3 * kDModel>(3, -2000, 2000);
constexpr auto kOutBias = MakeTable<int32_t, kDModel>(4, -2000, 2000);
// The position table's quantization: scale 1/128, zero point 0 (|PE| <= 1).
constexpr auto kPositions =
    edgeattn::MakeQuantizedSinusoidalTable<int8_t, kTokens, kDModel>(1.0f / 128.0f, 0);
// Per-channel requantisation integers (multipliers in [2^30, 2^31), shifts).
constexpr auto kInMultipliers = MakeTable<int32_t, 3 * kDModel>(6, 1 << 30, 2147483000);
constexpr auto kOutMultipliers = MakeTable<int32_t, kDModel>(7, 1 << 30, 2147483000);
constexpr auto kShifts = MakeTable<int32_t, 3 * kDModel>(8, -9, -7);

constexpr ea_linear_quant_params Projection(int which) {
  ea_linear_quant_params p{};
  p.input_offset = -1;
  p.output_offset = 2;
  p.output_multiplier = kInMultipliers.values + which * kDModel;
  p.output_shift = kShifts.values + which * kDModel;
  return p;
}

constexpr ea_matmul_quant_params Matmul(int32_t input_offset, int32_t weights_offset,
                                        int32_t output_offset, int32_t multiplier, int32_t shift) {
  ea_matmul_quant_params p{};
  p.input_offset = input_offset;
  p.weights_offset = weights_offset;
  p.output_offset = output_offset;
  p.output_multiplier = multiplier;
  p.output_shift = shift;
  return p;
}

// Constant data in flash, every field set by name (common.h: configs grow at
// their end, and positional braces would break when they do).
constexpr ea_mha_quant_params MakeParams() {
  ea_mha_quant_params p{};
  p.add.left_shift = 20;
  p.add.input1_offset = 0;
  p.add.input1_multiplier = 1395864371;
  p.add.input1_shift = -1;
  p.add.input2_offset = 0;
  p.add.input2_multiplier = 1227133513;
  p.add.input2_shift = -2;
  p.add.output_offset = 1;
  p.add.output_multiplier = 1431655765;
  p.add.output_shift = -19;
  p.q_proj = Projection(0);
  p.k_proj = Projection(1);
  p.v_proj = Projection(2);
  p.scores = Matmul(-1, 1, 2, 1518500250, -8);
  p.softmax.input_multiplier = 1518500250;
  p.softmax.input_left_shift = 23;
  p.softmax.diff_min = -248;
  p.context = Matmul(128, -1, 1, 1342177280, -8);
  p.out_proj.input_offset = 1;
  p.out_proj.output_offset = -1;
  p.out_proj.output_multiplier = kOutMultipliers.values;
  p.out_proj.output_shift = kShifts.values;
  return p;
}
constexpr ea_mha_quant_params kParams = MakeParams();

// Activations only: the table and the weights stay in flash.
constexpr size_t kArenaBytes = edgeattn::detail::AddressableBytes<edgeattn::MhaQuantArenaBytes(
    kTokens, kDModel, kHeads, EA_DTYPE_INT8, edgeattn::PositionStorage::kCaller)>();
edgeattn::StaticArena<kArenaBytes> g_arena;
ea_mha_quant_plan g_plan;
int8_t g_x[kTokens * kDModel];
int8_t g_y[kTokens * kDModel];

}  // namespace

int main() {
  ea_mha_config config{};
  config.dtype = EA_DTYPE_INT8;
  config.max_tokens = kTokens;
  config.d_model = kDModel;
  config.n_heads = kHeads;
  config.mask = EA_MASK_NONE;
  config.position = EA_POSITION_SINUSOIDAL;
  config.weights_layout = EA_WEIGHTS_ROW_MAJOR;
  config.quant_params = &kParams;
  config.quant_position_table = kPositions.values;
  ea_mha_quant_weights weights{};  // by name: structs grow at their end
  weights.in_proj_weight = kInProj.values;
  weights.in_proj_bias = kInBias.values;
  weights.out_proj_weight = kOutProj.values;
  weights.out_proj_bias = kOutBias.values;
  ea_arena arena;
  ea_status status = ea_arena_init(&arena, g_arena.bytes, sizeof g_arena.bytes);
  if (status == EA_OK) status = ea_mha_quant_init(&g_plan, &config, &weights, &arena);
  // Token embeddings would come from the application; here, a fixed pattern.
  for (int i = 0; i < kTokens * kDModel; ++i) g_x[i] = static_cast<int8_t>(i * 37);
  if (status == EA_OK) status = ea_mha_quant_run_s8(&g_plan, g_x, kTokens, kTokens, g_y, nullptr);
  if (status != EA_OK) {
    printf("int8 MHA failed: %s\n", ea_status_str(status));
    return 1;
  }
  uint32_t digest = 2166136261u;  // FNV-1a over the output bytes
  for (int8_t value : g_y) digest = (digest ^ static_cast<uint8_t>(value)) * 16777619u;
  printf("edgeattn %s on %s: int8 MHA %d tokens, d_model %d, %d heads, arena %u bytes\n",
         EDGEATTN_VERSION_STRING, ea_simd_target(), static_cast<int>(kTokens),
         static_cast<int>(kDModel), static_cast<int>(kHeads), static_cast<unsigned>(arena.used));
  printf("int8 output digest %08lx\n", static_cast<unsigned long>(digest));
  return 0;
}
