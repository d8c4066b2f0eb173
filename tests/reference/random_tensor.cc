#include "reference/random_tensor.h"

#include <cmath>

namespace edgeattn_test {

uint64_t RandomStream::NextBits() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double RandomStream::Uniform() { return static_cast<double>(NextBits() >> 11) * 0x1.0p-53; }

double RandomStream::Normal() {
  const double u1 = 1.0 - Uniform();  // (0, 1]
  const double u2 = Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

int32_t Draw(RandomStream* random, int32_t lo, int32_t hi) {
  return static_cast<int32_t>(
      lo + static_cast<int64_t>(random->Uniform() *
                                (static_cast<double>(hi) - static_cast<double>(lo) + 1.0)));
}

std::vector<float> RandomTensor(size_t count, uint64_t seed, double stddev) {
  RandomStream stream(seed);
  std::vector<float> values(count);
  for (float& v : values) v = static_cast<float>(stream.Normal() * stddev);
  return values;
}

}  // namespace edgeattn_test
