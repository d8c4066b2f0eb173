// Self-test of the Cortex-M platform layer (startup.c + the board's linker
// script) and of edgeattn on the board: printf with floats through
// semihosting, std::vector on newlib's malloc, static constructors, the
// library's SIMD target and one attention run checked against a double
// reference. Prints "selftest: PASS" and returns SELFTEST_EXIT_STATUS (0 by
// default; build with -DSELFTEST_EXIT_STATUS=3 to see the status reach qemu's
// exit status). Any failed check prints a line and returns 1.
// Build with -DSELFTEST_NO_EDGEATTN to test the platform alone.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#ifndef SELFTEST_NO_EDGEATTN
#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#endif

#ifndef SELFTEST_EXIT_STATUS
#define SELFTEST_EXIT_STATUS 0
#endif

namespace {

int g_failures = 0;

void Check(bool ok, const char* what) {
  std::printf("  %-44s %s\n", what, ok ? "ok" : "FAILED");
  if (!ok) ++g_failures;
}

// Static constructors: Reset_Handler must have run both before main.
struct Constructed {
  Constructed() : magic(0x5EED) {}
  int magic;
};
Constructed g_constructed;  // .init_array, C++ dynamic initialisation
int g_c_constructor_ran = 0;
__attribute__((constructor)) void CConstructor() { g_c_constructor_ran = 1; }

// .data copied from flash, .bss zeroed.
int g_initialised = 12345;
int g_zeroed;

#ifndef SELFTEST_NO_EDGEATTN
constexpr int32_t kN = 8;   // n_q = n_kv
constexpr int32_t kD = 16;  // d_k = d_v
alignas(EA_ARENA_ALIGNMENT) unsigned char g_arena[edgeattn::AttentionArenaBytes(kN, kD)];

// Deterministic inputs in [-1, 1).
float Input(int i, int salt) {
  uint32_t x = static_cast<uint32_t>(i) * 2654435761u + static_cast<uint32_t>(salt) * 40503u;
  x ^= x >> 15;
  x *= 2246822519u;
  x ^= x >> 13;
  return static_cast<float>(x % 2000u) / 1000.0f - 1.0f;
}

void TestAttention() {
  std::printf("edgeattn %s, SIMD target %s\n", EDGEATTN_VERSION_STRING, ea_simd_target());

  std::vector<float> q(kN * kD), k(kN * kD), v(kN * kD), out(kN * kD);
  for (int i = 0; i < kN * kD; ++i) {
    q[i] = Input(i, 1);
    k[i] = Input(i, 2);
    v[i] = Input(i, 3);
  }
  ea_attention_config config = {};
  config.dtype = EA_DTYPE_F32;
  config.n_q = kN;
  config.n_kv = kN;
  config.d_k = kD;
  config.d_v = kD;
  config.mask = EA_MASK_NONE;
  config.scale = 0.0f;  // 1/sqrt(d_k)

  size_t bytes = 0;
  Check(ea_attention_arena_size(&config, &bytes) == EA_OK && bytes == sizeof(g_arena),
        "static arena == ea_attention_arena_size");
  ea_arena arena;
  static ea_attention_plan plan;
  Check(ea_arena_init(&arena, g_arena, sizeof(g_arena)) == EA_OK, "ea_arena_init");
  Check(ea_attention_init(&plan, &config, &arena) == EA_OK, "ea_attention_init");
  Check(ea_attention_run(&plan, q.data(), k.data(), v.data(), kN, out.data(), nullptr) == EA_OK,
        "ea_attention_run");

  // Reference in double: softmax(Q K^T / sqrt(d)) V.
  double max_error = 0.0;
  double checksum = 0.0;
  for (int i = 0; i < kN; ++i) {
    double scores[kN];
    double max_score = -1e300;
    for (int j = 0; j < kN; ++j) {
      double dot = 0.0;
      for (int c = 0; c < kD; ++c) dot += double(q[i * kD + c]) * double(k[j * kD + c]);
      scores[j] = dot / std::sqrt(double(kD));
      if (scores[j] > max_score) max_score = scores[j];
    }
    double sum = 0.0;
    for (int j = 0; j < kN; ++j) sum += (scores[j] = std::exp(scores[j] - max_score));
    for (int c = 0; c < kD; ++c) {
      double expected = 0.0;
      for (int j = 0; j < kN; ++j) expected += scores[j] / sum * double(v[j * kD + c]);
      max_error = std::fmax(max_error, std::fabs(expected - double(out[i * kD + c])));
      checksum += double(out[i * kD + c]) * double(1 + (i * kD + c) % 7);
    }
  }
  std::printf("attention %dx%dx%d: checksum %.6f, max |error| vs double %.3g\n", int(kN), int(kN),
              int(kD), checksum, max_error);
  Check(max_error < 1e-5, "attention matches the double reference");
}
#endif  // SELFTEST_NO_EDGEATTN

}  // namespace

int main() {
  std::printf("cortex-m selftest\n");
  Check(g_constructed.magic == 0x5EED, "C++ static constructor ran");
  Check(g_c_constructor_ran == 1, "__attribute__((constructor)) ran");
  Check(g_initialised == 12345 && g_zeroed == 0, ".data copied, .bss zeroed");

  std::vector<float> values;
  for (int i = 1; i <= 1000; ++i) values.push_back(1.0f / static_cast<float>(i));
  float harmonic = 0.0f;
  for (float x : values) harmonic += x;
  std::printf("H(1000) = %f (float), pi ~ %.5f\n", static_cast<double>(harmonic),
              static_cast<double>(3.14159265f));
  Check(std::fabs(harmonic - 7.485471f) < 1e-4f, "std::vector + float arithmetic");

#ifndef SELFTEST_NO_EDGEATTN
  TestAttention();
#endif

  if (g_failures != 0) {
    std::printf("selftest: %d check(s) FAILED\n", g_failures);
    return 1;
  }
  std::printf("selftest: PASS (returning %d)\n", SELFTEST_EXIT_STATUS);
  return SELFTEST_EXIT_STATUS;
}
