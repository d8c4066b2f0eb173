// Deterministic inputs and aligned arena buffers for the benchmarks (see bench_inputs.h).
#include "bench_inputs.h"

#include <memory>

#include "edgeattn/edgeattn.h"

namespace edgeattn_bench {

std::vector<float> RandomFloats(size_t count, uint32_t seed, float scale) {
  std::vector<float> values(count);
  // 32-bit linear congruential generator (Numerical Recipes constants); the top 24 bits
  // become a float in [0, 1). Quality is irrelevant here, reproducibility is not.
  uint32_t state = seed * 2654435761u + 12345u;
  for (float& value : values) {
    state = state * 1664525u + 1013904223u;
    const float unit = static_cast<float>(state >> 8) * (1.0f / 16777216.0f);
    value = scale * (2.0f * unit - 1.0f);
  }
  return values;
}

AlignedBuffer::AlignedBuffer(size_t bytes) : storage_(bytes + EA_ARENA_ALIGNMENT), size_(bytes) {
  void* start = storage_.data();
  size_t space = storage_.size();
  data_ = static_cast<uint8_t*>(std::align(EA_ARENA_ALIGNMENT, bytes, start, space));
}

}  // namespace edgeattn_bench
