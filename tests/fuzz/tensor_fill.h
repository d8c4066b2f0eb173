// Tensor contents from a TensorSpec: ordinary distributions plus the values
// that break float code (NaN, +-inf, FLT_MAX, denormals, -0), placed where
// the fuzzer chooses.
#ifndef EDGEATTN_TESTS_FUZZ_TENSOR_FILL_H_
#define EDGEATTN_TESTS_FUZZ_TENSOR_FILL_H_

#include <stddef.h>
#include <stdint.h>

#include "fuzz_case.h"

namespace edgeattn_fuzz {

// One of 32 special values (NaN, infinities, extremes, denormals, signed zero).
float SpecialValue(uint8_t index);

// A per-element byte: mostly small exact values, sometimes a special value.
float ElementValue(uint8_t byte);

// The attention scale of a case: 0 (use 1/sqrt(d_k)) most of the time.
float ScaleValue(uint8_t kind, uint32_t bits);

// Writes `count` values.
void FillTensor(const TensorSpec& spec, float* data, size_t count);

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_TENSOR_FILL_H_
