// A firmware image to start from: single-head self-attention over 24 tokens
// (d_model 32, d_k = d_v = 16) with the sinusoidal position table, on a
// Cortex-M under qemu (`make firmware`). What a real product keeps:
//  - weights and the position table are constant data, placed in flash by the
//    compiler (constexpr), nothing computed at start-up; the weight matrices
//    are packed for the projection kernel at compile time
//    (edgeattn::PackLinearWeights, EA_WEIGHTS_PACKED), so the arena holds no
//    copy of them;
//  - the arena is a static buffer whose size is a compile-time constant, and a
//    too-small one would not compile;
//  - plan once, then run per inference with no allocation.
// It prints the SIMD target, the arena size and a digest of the output.
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "edgeattn/edgeattn.hpp"

namespace {

constexpr int kTokens = 24, kDModel = 32, kDk = 16, kDv = 16;

// Stand-in for trained weights: deterministic values in [-0.25, 0.25]. A real
// product would include a header produced by its weight converter instead.
struct Weights {
  float w_q[kDk * kDModel], w_k[kDk * kDModel], w_v[kDv * kDModel];
  float b_q[kDk], b_k[kDk], b_v[kDv];
};

constexpr float Toy(uint32_t index, uint32_t salt) {
  uint32_t h = index * 2654435761u ^ salt * 40503u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return static_cast<float>(h % 2001u) / 4000.0f - 0.25f;
}

constexpr Weights MakeWeights() {
  Weights w{};
  for (uint32_t i = 0; i < kDk * kDModel; ++i) {
    w.w_q[i] = Toy(i, 1);
    w.w_k[i] = Toy(i, 2);
  }
  for (uint32_t i = 0; i < kDv * kDModel; ++i) w.w_v[i] = Toy(i, 3);
  for (uint32_t i = 0; i < kDk; ++i) {
    w.b_q[i] = Toy(i, 4);
    w.b_k[i] = Toy(i, 5);
  }
  for (uint32_t i = 0; i < kDv; ++i) w.b_v[i] = Toy(i, 6);
  return w;
}

constexpr Weights kWeights = MakeWeights();
constexpr auto kPackedWq = edgeattn::PackLinearWeights<kDk, kDModel>(kWeights.w_q);
constexpr auto kPackedWk = edgeattn::PackLinearWeights<kDk, kDModel>(kWeights.w_k);
constexpr auto kPackedWv = edgeattn::PackLinearWeights<kDv, kDModel>(kWeights.w_v);
constexpr auto kPositions = edgeattn::MakeSinusoidalTable<kTokens, kDModel>();

// The table and the packed weights are in flash, so the arena needs no room
// for them.
using Layer = edgeattn::SelfAttention<kTokens, kDModel, kDk, kDv, EA_POSITION_SINUSOIDAL,
                                      /*kTableInArena=*/false, EA_WEIGHTS_PACKED>;
edgeattn::StaticArena<Layer::kArenaBytes> g_arena;
ea_self_attention_plan g_plan;
float g_x[kTokens * kDModel];
float g_y[kTokens * kDv];

uint32_t Fnv1a(const float* values, int count) {
  uint32_t hash = 2166136261u;
  for (int i = 0; i < count; ++i) {
    uint32_t bits;
    memcpy(&bits, &values[i], sizeof bits);
    for (int b = 0; b < 4; ++b) hash = (hash ^ ((bits >> (8 * b)) & 0xFFu)) * 16777619u;
  }
  return hash;
}

}  // namespace

int main() {
  // Fields by name (C++17 has no designated initializers): six same-typed pointers in an
  // aggregate list could be swapped without a diagnostic.
  ea_self_attention_weights weights{};
  weights.w_q = kPackedWq.values;
  weights.w_k = kPackedWk.values;
  weights.w_v = kPackedWv.values;
  weights.b_q = kWeights.b_q;
  weights.b_k = kWeights.b_k;
  weights.b_v = kWeights.b_v;
  ea_status status = Layer::Plan(&g_plan, weights, g_arena, EA_MASK_CAUSAL, kPositions.values);
  if (status != EA_OK) {
    printf("plan failed: %s\n", ea_status_str(status));
    return 1;
  }
  // Token embeddings would come from the application; here, a fixed pattern.
  for (int i = 0; i < kTokens * kDModel; ++i) g_x[i] = 4.0f * Toy(static_cast<uint32_t>(i), 7);
  status = ea_self_attention_run(&g_plan, g_x, kTokens, kTokens, g_y, nullptr);
  if (status != EA_OK) {
    printf("run failed: %s\n", ea_status_str(status));
    return 1;
  }
  printf("edgeattn %s on %s: self-attention %d tokens, d_model %d, arena %lu bytes\n",
         EDGEATTN_VERSION_STRING, ea_simd_target(), kTokens, kDModel,
         static_cast<unsigned long>(Layer::kArenaBytes));
  printf("y[0][0..3] = %.6f %.6f %.6f %.6f\n", static_cast<double>(g_y[0]),
         static_cast<double>(g_y[1]), static_cast<double>(g_y[2]), static_cast<double>(g_y[3]));
  printf("output digest %08lx\n", static_cast<unsigned long>(Fnv1a(g_y, kTokens * kDv)));
  return 0;
}
