// What the fixed-point tests share about quantized values: the integer
// reference's view of an ea_quant, and codes drawn uniformly over a dtype's
// whole range (so that every test reaches the saturating edges).
#ifndef EDGEATTN_TESTS_REFERENCE_QUANT_TEST_VALUES_H_
#define EDGEATTN_TESTS_REFERENCE_QUANT_TEST_VALUES_H_

#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "edgeattn/quant.h"
#include "reference/random_tensor.h"
#include "reference/tflite_chain_reference.h"

namespace edgeattn_test {

inline tflite_ref::TensorQuantization RefQuant(ea_quant q) { return {q.scale, q.zero_point}; }

// count int8 or int16 codes, uniform over [-128, 127] or [-32768, 32767].
template <typename T>
std::vector<T> RandomCodes(size_t count, RandomStream* random) {
  constexpr double kLow = sizeof(T) == 1 ? -128.0 : -32768.0;
  constexpr double kSpan = sizeof(T) == 1 ? 256.0 : 65536.0;
  std::vector<T> codes(count);
  for (T& v : codes) v = static_cast<T>(kLow + static_cast<int32_t>(random->Uniform() * kSpan));
  return codes;
}

}  // namespace edgeattn_test

#endif  // EDGEATTN_TESTS_REFERENCE_QUANT_TEST_VALUES_H_
