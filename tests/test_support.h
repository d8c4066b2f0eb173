// Small helpers shared by the test suites: 64-byte aligned arena storage and
// the documented float32 error bounds.
#ifndef EDGEATTN_TESTS_TEST_SUPPORT_H_
#define EDGEATTN_TESTS_TEST_SUPPORT_H_

#include <stddef.h>
#include <stdint.h>

#include <cmath>
#include <vector>

#include "edgeattn/edgeattn.h"
#include "edgeattn/kv_cache.h"

namespace edgeattn_test {

// Float MHA weights in the in_proj form, set by name (as InProjQuantWeights).
inline ea_mha_weights InProjWeights(const float* in_proj_weight, const float* in_proj_bias,
                                    const float* out_proj_weight, const float* out_proj_bias) {
  ea_mha_weights w{};
  w.in_proj_weight = in_proj_weight;
  w.in_proj_bias = in_proj_bias;
  w.out_proj_weight = out_proj_weight;
  w.out_proj_bias = out_proj_bias;
  return w;
}

// W_Q, W_K and W_V with their biases copied out of an in_proj matrix
// [d_model + 2 kv_width, d_model] into buffers of their own, as a TFLite
// model's three FULLY_CONNECTED ops or a Hugging Face checkpoint hold them;
// View names them in ea_mha_weights' three-tensor form. No in_bias: no biases.
struct SeparateProjections {
  std::vector<float> weights[3], biases[3];
  SeparateProjections(const float* in_proj, const float* in_bias, int d_model, int kv_width) {
    const int rows[3] = {d_model, kv_width, kv_width};
    size_t first = 0;
    for (int part = 0; part < 3; ++part) {
      const size_t count = static_cast<size_t>(rows[part]);
      weights[part].assign(in_proj + first * d_model, in_proj + (first + count) * d_model);
      if (in_bias != nullptr) biases[part].assign(in_bias + first, in_bias + first + count);
      first += count;
    }
  }
  ea_mha_weights View(const float* out_proj_weight, const float* out_proj_bias) const {
    ea_mha_weights w{};
    w.q_proj_weight = weights[0].data();
    w.k_proj_weight = weights[1].data();
    w.v_proj_weight = weights[2].data();
    w.q_proj_bias = biases[0].empty() ? nullptr : biases[0].data();
    w.k_proj_bias = biases[1].empty() ? nullptr : biases[1].data();
    w.v_proj_bias = biases[2].empty() ? nullptr : biases[2].data();
    w.out_proj_weight = out_proj_weight;
    w.out_proj_bias = out_proj_bias;
    return w;
  }
};

// Fixed-point MHA weights in the in_proj form, set by name: a struct that
// grows at its end breaks positional braces under -Wextra (README, "Growing
// configs").
inline ea_mha_quant_weights InProjQuantWeights(const int8_t* in_proj_weight,
                                               const void* in_proj_bias,
                                               const int8_t* out_proj_weight,
                                               const void* out_proj_bias) {
  ea_mha_quant_weights w{};
  w.in_proj_weight = in_proj_weight;
  w.in_proj_bias = in_proj_bias;
  w.out_proj_weight = out_proj_weight;
  w.out_proj_bias = out_proj_bias;
  return w;
}

// The taps of ea_mha_quant_trace_s8 / _s16, set by name from seven buffers
// in the struct's order: positioned, q, k, v, scores, probs, context.
inline ea_mha_quant_taps QuantTaps(void* const buffers[7]) {
  ea_mha_quant_taps taps{};
  taps.positioned = buffers[0];
  taps.q = buffers[1];
  taps.k = buffers[2];
  taps.v = buffers[3];
  taps.scores = buffers[4];
  taps.probs = buffers[5];
  taps.context = buffers[6];
  return taps;
}

// Targets whose double arithmetic is software (Cortex-M4F: a single-precision
// FPU, __ARM_FP without its double bit): the double-precision references cost
// tens of times more there, so the longest float shapes are shortened on them.
// The same SCALAR float kernels run whole on the boards with a double FPU
// (Cortex-M7, M55), which the matrix runs too.
#if defined(__ARM_FP) && !(__ARM_FP & 8)
constexpr bool kSoftwareDouble = true;
#else
constexpr bool kSoftwareDouble = false;
#endif

// Every KV cache storage (edgeattn/kv_cache.h), for the suites that run each.
constexpr ea_kv_storage kEveryKvStorage[] = {EA_KV_STORAGE_F32, EA_KV_STORAGE_F16, EA_KV_STORAGE_Q8,
                                             EA_KV_STORAGE_Q4};

// The float32 contract (README "Numerics"): max |y - y_ref| <= bound * max |y_ref|
// against the double-precision reference, on every target. Scores and exp
// carry ~1e-7 relative error each; sums over up to 1000 keys and d = 256
// features grow that by well under two orders of magnitude.
constexpr double kFloatErrorBound = 1e-5;

// The bound for any score magnitude (README "Numerics"): float32 rounding of
// the scores themselves adds |s| * 2^-24 * sqrt(d_k), as in a plain float
// loop; under 1e-5 for the scores trained models produce.
inline double FloatErrorBound(double max_abs_scaled_score, int d_k) {
  return kFloatErrorBound + max_abs_scaled_score * std::ldexp(1.0, -24) * std::sqrt(d_k * 1.0);
}

// Rows longer than 32768 visible keys (README "Numerics"): the output adds one
// rounding per 64-key panel, up to n / 64 * 2^-24 more (8.8e-6 measured at
// 65535 flat keys).
inline double LongRowErrorBound(int visible_keys) {
  if (visible_keys <= 32768) return kFloatErrorBound;
  return kFloatErrorBound + visible_keys / 64.0 * std::ldexp(1.0, -24);
}

// Owns a buffer whose data() is EA_ARENA_ALIGNMENT-aligned.
class AlignedBytes {
 public:
  explicit AlignedBytes(size_t bytes, uint8_t fill = 0)
      : storage_(bytes + EA_ARENA_ALIGNMENT, fill) {
    const uintptr_t address = reinterpret_cast<uintptr_t>(storage_.data());
    offset_ = (EA_ARENA_ALIGNMENT - address % EA_ARENA_ALIGNMENT) % EA_ARENA_ALIGNMENT;
    size_ = bytes;
  }
  uint8_t* data() { return storage_.data() + offset_; }
  const uint8_t* data() const { return storage_.data() + offset_; }
  size_t size() const { return size_; }

 private:
  std::vector<uint8_t> storage_;
  size_t offset_ = 0;
  size_t size_ = 0;
};

}  // namespace edgeattn_test

#endif  // EDGEATTN_TESTS_TEST_SUPPORT_H_
