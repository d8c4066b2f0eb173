#include "known_defects.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "edgeattn/mha_decode.h"

namespace edgeattn_fuzz {

// EDGEATTN_FUZZ_SKIP_KNOWN: unset or 0 skips nothing, 1 skips all, any other
// number is a mask of KnownDefect bits.
bool SkipKnown(KnownDefect defect) {
  static const int mask = [] {
    const char* value = getenv("EDGEATTN_FUZZ_SKIP_KNOWN");
    if (value == nullptr) return 0;
    const int parsed = atoi(value);
    return parsed == 1 ? ~0 : parsed;
  }();
  return (mask & defect) != 0;
}

bool DecoderInputOverWeightsAccepted(const char** what) {
  constexpr int kD = 8;
  std::vector<float> in_w(3 * kD * kD, 0.01f), out_w(kD * kD, 0.02f), y(2 * kD);
  const ea_mha_weights weights{in_w.data(), nullptr, out_w.data(), nullptr};
  alignas(EA_ARENA_ALIGNMENT) static uint8_t storage[1 << 18];
  ea_arena arena;
  ea_arena_init(&arena, storage, sizeof(storage));
  ea_mha_decoder_config c{};
  c.d_model = kD;
  c.n_heads = 2;
  c.n_kv_heads = 2;
  c.max_positions = 8;
  c.max_tokens = 2;
  c.storage = EA_KV_STORAGE_F32;
  c.position = EA_POSITION_NONE;
  c.weights_layout = EA_WEIGHTS_ROW_MAJOR;
  ea_mha_decoder decoder;
  memset(&decoder, 0, sizeof(decoder));
  if (ea_mha_decoder_init(&decoder, &c, &weights, &arena) == EA_OK &&
      ea_mha_decoder_step(&decoder, in_w.data(), 1, y.data()) == EA_OK) {
    *what = "ea_mha_decoder_step(x = in_proj_weight)";
    return true;
  }
  const ea_mha_cross_config cc{kD, 2, 4, 2, EA_KV_STORAGE_F32, EA_WEIGHTS_ROW_MAJOR};
  ea_mha_cross cross;
  memset(&cross, 0, sizeof(cross));
  if (ea_mha_cross_init(&cross, &cc, &weights, &arena) != EA_OK) return false;
  if (ea_mha_cross_set_memory(&cross, in_w.data(), 4) == EA_OK) {
    *what = "ea_mha_cross_set_memory(memory = in_proj_weight)";
    return true;
  }
  std::vector<float> memory(4 * kD, 0.3f);
  if (ea_mha_cross_set_memory(&cross, memory.data(), 4) == EA_OK &&
      ea_mha_cross_run(&cross, out_w.data(), 1, y.data()) == EA_OK) {
    *what = "ea_mha_cross_run(x = out_proj_weight)";
    return true;
  }
  return false;
}

}  // namespace edgeattn_fuzz
