// Benchmark inputs: deterministic pseudo-random tensors (the same numbers on every run, so runs
// are comparable) and EA_ARENA_ALIGNMENT-aligned heap buffers to carve edgeattn arenas from.
// Benchmark code may use the heap; the library itself never does.
#ifndef EDGEATTN_BENCH_BENCH_INPUTS_H_
#define EDGEATTN_BENCH_BENCH_INPUTS_H_

#include <stddef.h>
#include <stdint.h>

#include <vector>

namespace edgeattn_bench {

// `count` floats uniform in [-scale, scale), from a fixed generator seeded by `seed`.
std::vector<float> RandomFloats(size_t count, uint32_t seed, float scale = 1.0f);

// A zeroed heap buffer of `bytes` bytes whose start is EA_ARENA_ALIGNMENT-aligned
// (over-allocated by the alignment, then aligned). Not copyable: data() points inside it.
class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t bytes);
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  std::vector<uint8_t> storage_;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_BENCH_INPUTS_H_
