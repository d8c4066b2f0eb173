// The smallest program that runs one float attention, as firmware would:
// inputs as constant data (flash), a static arena sized at compile time, one
// causal attention, no printf. `make footprint` reports its size on every
// static target. Exit status 0 means the result checked out.
#include "edgeattn/edgeattn.hpp"

namespace {

constexpr int kTokens = 16, kDim = 16, kElements = kTokens * kDim;

struct Inputs {
  float q[kElements], k[kElements], v[kElements];
};

// Deterministic values in [-1, 1], computed by the compiler.
constexpr Inputs MakeInputs() {
  Inputs in{};
  for (int i = 0; i < kElements; ++i) {
    in.q[i] = static_cast<float>((i * 37) % 23 - 11) / 11.0f;
    in.k[i] = static_cast<float>((i * 53) % 29 - 14) / 14.0f;
    in.v[i] = static_cast<float>((i * 71) % 31 - 15) / 15.0f;
  }
  return in;
}

constexpr Inputs kInputs = MakeInputs();
using Shape = edgeattn::Attention<kTokens, kTokens, kDim, kDim>;
edgeattn::StaticArena<Shape::kArenaBytes> g_arena;
float g_out[kElements];

}  // namespace

int main() {
  ea_attention_plan plan;
  if (Shape::Plan(&plan, g_arena, EA_MASK_CAUSAL) != EA_OK) return 2;
  if (ea_attention_run(&plan, kInputs.q, kInputs.k, kInputs.v, kTokens, g_out, nullptr) != EA_OK) {
    return 3;
  }
  // Causal: query 0 sees only key 0, so its output is value row 0 (up to
  // rounding); every other output lies within the range of its value column.
  for (int c = 0; c < kDim; ++c) {
    const float error = g_out[c] - kInputs.v[c];
    if (!(error < 1e-6f && error > -1e-6f)) return 4;
  }
  for (int i = 0; i < kElements; ++i) {
    if (!(g_out[i] >= -1.0f && g_out[i] <= 1.0f)) return 5;
  }
  return 0;
}
