// What every fixed-point row kernel shares, whatever its target: the keys a
// query row sees, keeping its scores for the caller, and the saturated
// outputs of TFLite's requantisation. Plain inline integer code, so the
// Highway kernels (int_kernels.cc) and the Cortex-M int16 kernels
// (cortex_m_s16.cc) give the same integers.
#ifndef EDGEATTN_SRC_KERNELS_INT_ATTENTION_ROWS_H_
#define EDGEATTN_SRC_KERNELS_INT_ATTENTION_ROWS_H_

#include <stddef.h>
#include <stdint.h>

#include "kernels/int/int_kernels.h"
#include "tflite/requantize.h"

namespace edgeattn {

template <typename T>
inline T Saturate(int32_t value) {
  constexpr int32_t kMin = sizeof(T) == 1 ? -128 : -32768;
  constexpr int32_t kMax = sizeof(T) == 1 ? 127 : 32767;
  return static_cast<T>(Clamp(value, kMin, kMax));
}

// Requantised int8 value of an int32 accumulator held modulo 2^32. Zero
// points are int8's (validated), so clamping the requantised value to
// +-2^16 first gives the int8 result TFLite's int32 sum would, in 32 bits.
inline int8_t OutputS8(uint32_t acc, int32_t multiplier, int32_t shift, int32_t zero_point) {
  const int32_t value = Requantize(static_cast<int32_t>(acc), multiplier, shift);
  return Saturate<int8_t>(Clamp(value, -65536, 65536) + zero_point);
}

// Saturate<int16_t>(Requantize64(acc, ...)): the int32 saturation on the
// way changes nothing the int16 one keeps.
inline int16_t OutputS16(int64_t acc, const Requantize64Factors& factors) {
  const int64_t value = Requantize64Unsaturated(acc, factors);
  return static_cast<int16_t>(value > 32767 ? 32767 : (value < -32768 ? -32768 : value));
}

// Keys query row `row` sees: the first n_valid_keys, and with a causal mask
// none past its bottom-right diagonal. A later row never sees fewer, which
// the row-block kernels rely on (a block scores up to its last row's keys).
template <typename T>
inline int32_t VisibleKeys(const AttentionQArgs<T>& a, int32_t row) {
  const int32_t valid = a.n_valid_keys;
  if (!a.causal) return valid;
  const int32_t limit = row + 1 + (a.n_kv - a.n_q);
  return limit < 0 ? 0 : (limit > valid ? valid : limit);
}

// The requantised scores of row `row`'s visible keys, if the caller asked.
template <typename T>
inline void KeepScores(const AttentionQArgs<T>& a, int32_t row, const T* scores, int32_t visible) {
  if (a.scores == nullptr) return;
  T* kept = a.scores + static_cast<size_t>(row) * a.ld_scores;
  for (int32_t j = 0; j < visible; ++j) kept[j] = scores[j];
}

// The probabilities of row `row` (zero past its visible keys), if asked.
inline void KeepProbsS16(const AttentionQArgs<int16_t>& a, int32_t row, const int16_t* probs,
                         int32_t visible) {
  if (a.probs == nullptr) return;
  int16_t* kept = a.probs + static_cast<size_t>(row) * a.ld_probs;
  for (int32_t j = 0; j < a.n_kv; ++j) kept[j] = j < visible ? probs[j] : int16_t{0};
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_ATTENTION_ROWS_H_
