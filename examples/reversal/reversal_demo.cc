// make reversal-demo: the trained reversal model decoding with the KV cache
// on this machine: held-out accuracy and generated tokens per second for each
// cache storage, the same weights without the position table (which must
// fail: attention alone is permutation equivariant), and the model quantized
// to TFLite's int8 integers (tools/quantize_reversal_model.py).
#include <stdint.h>
#include <stdio.h>

#include "../../platform/hosted/monotonic_clock.h"
#include "reversal_model.h"
#include "reversal_quant_model.h"

namespace {

constexpr int kSequences = 2000;

// Digits of held-out sequence s (an LCG, unrelated to the training RNG).
void Digits(uint32_t s, int32_t* digits) {
  uint32_t state = s * 2654435761u + 12345u;
  for (int32_t i = 0; i < reversal::kSeqLen; ++i) {
    state = state * 1664525u + 1013904223u;
    digits[i] = static_cast<int32_t>((state >> 16) % 10);
  }
}

struct Result {
  double accuracy;
  double tokens_per_second;
};

// Decodes the held-out set on an initialised model (Model or QuantModel).
template <typename ModelT>
bool Measure(ModelT& model, Result* result) {
  int correct = 0;
  const double start = MonotonicSeconds();
  for (int s = 0; s < kSequences; ++s) {
    int32_t digits[reversal::kSeqLen], out[reversal::kSeqLen];
    Digits(static_cast<uint32_t>(s), digits);
    if (model.Reverse(digits, out) != EA_OK) return false;
    bool all = true;
    for (int32_t i = 0; i < reversal::kSeqLen; ++i)
      all = all && out[i] == digits[reversal::kSeqLen - 1 - i];
    correct += all;
  }
  const double seconds = MonotonicSeconds() - start;
  result->accuracy = static_cast<double>(correct) / kSequences;
  result->tokens_per_second = kSequences * reversal::kSeqLen / seconds;
  return true;
}

// The float model with KV cache `storage` (and positions or not), or the
// int8 model of TFLite's integers.
bool Run(ea_kv_storage storage, bool positions, bool integers, Result* result) {
  if (integers) {
    reversal::QuantModel quant_model;
    return quant_model.Init() == EA_OK && Measure(quant_model, result);
  }
  reversal::Model model;
  return model.Init(storage, positions) == EA_OK && Measure(model, result);
}

}  // namespace

int main() {
  printf("reversal of %d digits, %d held-out sequences, greedy decoding on the KV cache\n",
         reversal::kSeqLen, kSequences);
  struct Case {
    const char* name;
    ea_kv_storage storage;
    bool positions;
    bool integers;
  } cases[] = {{"f32 cache", EA_KV_STORAGE_F32, true, false},
               {"f16 cache", EA_KV_STORAGE_F16, true, false},
               {"int8 cache", EA_KV_STORAGE_Q8, true, false},
               {"int4 cache", EA_KV_STORAGE_Q4, true, false},
               {"f32 cache, no position table", EA_KV_STORAGE_F32, false, false},
               {"int8 model, TFLite integers", EA_KV_STORAGE_Q8, true, true}};
  for (const Case& c : cases) {
    Result r{};
    if (!Run(c.storage, c.positions, c.integers, &r)) {
      printf("%s: failed\n", c.name);
      return 1;
    }
    printf("  %-30s accuracy %6.2f %%   %9.0f tokens/s\n", c.name, 100.0 * r.accuracy,
           r.tokens_per_second);
  }
  return 0;
}
