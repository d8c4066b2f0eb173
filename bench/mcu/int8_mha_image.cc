// The smallest firmware image of an int8 MHA layer (n 128, d_model 128, 4
// heads) as a product ships it: weights, biases, the learned position table
// and TFLite's integers are constant data in flash, plan_init and run_s8 the
// only library calls. tools/bench_mcu.py reads its symbols: the library text
// it links (the int8 run path) and any libm function it pulls in.
#include <stdint.h>
#include <stdio.h>

#include "edgeattn/edgeattn.h"

namespace {

constexpr int32_t kTokens = 128, kDModel = 128, kHeads = 4;

// Stand-in for trained tensors: deterministic integers.
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
    table.values[i] = static_cast<T>(low + static_cast<int32_t>(h % static_cast<uint32_t>(high - low + 1)));
  }
  return table;
}

constexpr auto kInProj = MakeTable<int8_t, 3 * kDModel * kDModel>(1, -127, 127);
constexpr auto kOutProj = MakeTable<int8_t, kDModel * kDModel>(2, -127, 127);
constexpr auto kInBias = MakeTable<int32_t, 3 * kDModel>(3, -2000, 2000);
constexpr auto kOutBias = MakeTable<int32_t, kDModel>(4, -2000, 2000);
constexpr auto kPositions = MakeTable<int8_t, kTokens * kDModel>(5, -128, 127);
// Per-channel requantisation integers (multipliers in [2^30, 2^31), shifts).
constexpr auto kInMultipliers = MakeTable<int32_t, 3 * kDModel>(6, 1 << 30, 2147483000);
constexpr auto kOutMultipliers = MakeTable<int32_t, kDModel>(7, 1 << 30, 2147483000);
constexpr auto kShifts = MakeTable<int32_t, 3 * kDModel>(8, -9, -7);

constexpr ea_linear_quant_params Projection(int which) {
  return {-1, 2, kInMultipliers.values + which * kDModel, kShifts.values + which * kDModel};
}

const ea_mha_quant_params kParams = {
    /*add=*/{20, 0, 1395864371, -1, -1, 1227133513, -2, 1, 1431655765, -19},
    /*q_proj=*/Projection(0),
    /*k_proj=*/Projection(1),
    /*v_proj=*/Projection(2),
    /*scores=*/{-1, 1, 2, 1518500250, -8},
    /*softmax=*/{1518500250, 23, -248},
    /*context=*/{128, -1, 1, 1342177280, -8},
    /*out_proj=*/{1, -1, kOutMultipliers.values, kShifts.values},
};

ea_mha_quant_plan g_plan;
alignas(EA_ARENA_ALIGNMENT) uint8_t g_arena_bytes[96 * 1024];
int8_t g_x[kTokens * kDModel];
int8_t g_y[kTokens * kDModel];

}  // namespace

int main() {
  ea_mha_config config{};
  config.dtype = EA_DTYPE_INT8;
  config.max_tokens = kTokens;
  config.d_model = kDModel;
  config.heads = kHeads;
  config.mask = EA_MASK_NONE;
  config.position = EA_POSITION_LEARNED;
  config.weights_layout = EA_WEIGHTS_ROW_MAJOR;
  config.quant_params = &kParams;
  config.quant_position_table = kPositions.values;
  const ea_mha_quant_weights weights{kInProj.values, kInBias.values, kOutProj.values,
                                     kOutBias.values};
  ea_arena arena;
  ea_arena_init(&arena, g_arena_bytes, sizeof g_arena_bytes);
  ea_status status = ea_mha_quant_plan_init(&g_plan, &config, &weights, &arena);
  for (int i = 0; i < kTokens * kDModel; ++i) g_x[i] = static_cast<int8_t>(i * 37);
  if (status == EA_OK) status = ea_mha_run_s8(&g_plan, g_x, kTokens, g_y, nullptr);
  uint32_t sum = 0;
  for (int8_t value : g_y) sum = sum * 31u + static_cast<uint8_t>(value);
  printf("int8 MHA image: %s, arena %u of %u bytes, output digest %08lx\n", ea_status_str(status),
         static_cast<unsigned>(arena.used), static_cast<unsigned>(sizeof g_arena_bytes),
         static_cast<unsigned long>(sum));
  return status == EA_OK ? 0 : 1;
}
