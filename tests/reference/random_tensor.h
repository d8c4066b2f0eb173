// Deterministic test data: a splitmix64 stream turned into normal floats, so
// every target and every run sees the same inputs without any global state.
#ifndef EDGEATTN_TESTS_REFERENCE_RANDOM_TENSOR_H_
#define EDGEATTN_TESTS_REFERENCE_RANDOM_TENSOR_H_

#include <stddef.h>
#include <stdint.h>

#include <vector>

namespace edgeattn_test {

class RandomStream {
 public:
  explicit RandomStream(uint64_t seed) : state_(seed) {}
  uint64_t NextBits();
  double Uniform();  // [0, 1)
  double Normal();   // N(0, 1), Box-Muller
 private:
  uint64_t state_;
};

// An integer uniform over [lo, hi].
int32_t Draw(RandomStream* random, int32_t lo, int32_t hi);

// count values ~ N(0, stddev^2).
std::vector<float> RandomTensor(size_t count, uint64_t seed, double stddev = 1.0);

}  // namespace edgeattn_test

#endif  // EDGEATTN_TESTS_REFERENCE_RANDOM_TENSOR_H_
