// What every fixed-point row kernel shares, whatever its target: the keys a
// query row sees, keeping its scores for the caller, and the saturated
// outputs of TFLite's requantisation. Plain inline integer code, so every
// target's row kernels (int_kernels.cc) give the same integers.
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

// The first key query row `row` sees: with a causal sliding window, none
// before the window's start (bottom-right aligned, as the causal mask); else
// key 0. Never past VisibleKeys, so [FirstVisibleKey, VisibleKeys) are the
// row's keys, empty when padding ends them before the window starts.
// The kernels score keys [0, ScoredKeys) as without a window and mask the
// first ones at the softmax: a key's probability at its zero point adds
// nothing to P V, so only the softmax needs to know.
template <typename T>
inline int32_t FirstVisibleKey(const AttentionQArgs<T>& a, int32_t row) {
  if (!a.causal || a.window <= 0) return 0;
  const int64_t first = int64_t{row} + a.n_kv - a.n_q - a.window + 1;
  const int32_t visible = VisibleKeys(a, row);
  return first <= 0 ? 0 : (first > visible ? visible : static_cast<int32_t>(first));
}

// Stored keys [0, ScoredKeys) that row `row`'s kernels score and sum in
// P V: its visible keys in order; every stored key in a ring. A later row
// never has fewer, which the row-block kernels rely on (a block scores up
// to its last row's keys).
template <typename T>
inline int32_t ScoredKeys(const AttentionQArgs<T>& a, int32_t row) {
  return a.key_rotation == 0 ? VisibleKeys(a, row) : a.n_kv;
}

// Where row `row`'s visible keys are stored: `count` keys from `start`,
// going on at 0 past `extent` (ScoredKeys) in a ring.
struct VisibleRun {
  int32_t start, count, extent;
  bool Wraps() const { return start + count > extent; }
};

template <typename T>
inline VisibleRun VisibleRunOf(const AttentionQArgs<T>& a, int32_t row) {
  const int32_t first = FirstVisibleKey(a, row);
  int32_t start = first + a.key_rotation;
  if (start >= a.n_kv) start -= a.n_kv;
  return {start, VisibleKeys(a, row) - first, ScoredKeys(a, row)};
}

// x[0, n) rotated left by `by` in [0, n], in place (three reversals).
template <typename T>
inline void RotateLeft(T* x, int32_t n, int32_t by) {
  const auto reverse = [x](int32_t from, int32_t to) {
    for (; from + 1 < to; ++from, --to) {
      const T t = x[from];
      x[from] = x[to - 1];
      x[to - 1] = t;
    }
  };
  reverse(0, by);
  reverse(by, n);
  reverse(0, n);
}

// Row `row`'s scores in `row_values` become its probabilities in place:
// `softmax(at)` runs TFLite's softmax on the run's `count` scores from
// row_values + at (one contiguous run: a run that wraps is rotated to the
// row's start first and back after), and every other scored key gets
// `zero` (probability 0, which adds nothing to P V). `also` (NULL, or an
// output the softmax writes beside the row, zero before the call) is
// rotated back with the row: the softmax's run starts at its 0 too.
template <typename T, typename U, typename Softmax>
inline void ProbabilitiesOfRun(T* row_values, const VisibleRun& run, T zero, U* also,
                               Softmax&& softmax) {
  const int32_t by = run.Wraps() ? run.start : 0;
  if (by != 0) RotateLeft(row_values, run.extent, by);
  const int32_t at = run.start - by;
  if (run.count > 0) softmax(at);
  for (int32_t j = 0; j < at; ++j) row_values[j] = zero;
  for (int32_t j = at + run.count; j < run.extent; ++j) row_values[j] = zero;
  if (by == 0) return;
  RotateLeft(row_values, run.extent, run.extent - by);
  if (also != nullptr) RotateLeft(also, run.extent, run.extent - by);
}

// The requantised scores of row `row`'s visible keys, where they are stored,
// if the caller asked.
template <typename T>
inline void KeepScores(const AttentionQArgs<T>& a, int32_t row, const T* scores,
                       const VisibleRun& run) {
  if (a.scores == nullptr) return;
  T* kept = a.scores + static_cast<size_t>(row) * a.ld_scores;
  for (int32_t c = 0, j = run.start; c < run.count; ++c, ++j) {
    if (j == run.extent) j = 0;
    kept[j] = scores[j];
  }
}

// The probabilities of row `row` (zero past its scored keys, where the
// kernel has zeroed the others), if asked.
inline void KeepProbsS16(const AttentionQArgs<int16_t>& a, int32_t row, const int16_t* probs,
                         int32_t scored) {
  if (a.probs == nullptr) return;
  int16_t* kept = a.probs + static_cast<size_t>(row) * a.ld_probs;
  for (int32_t j = 0; j < a.n_kv; ++j) kept[j] = j < scored ? probs[j] : int16_t{0};
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_ATTENTION_ROWS_H_
