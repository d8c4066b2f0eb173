// The intermediate tensors ea_mha_quant_trace_s8 / _s16 copy out of a
// fixed-point MHA run (edgeattn/mha.h): the run computes them anyway, so the
// taps are copies at the points where each exists whole (q, k, v after their
// projection, per head where the run projects head by head; the scores in
// the kernels' rows before the softmax; the context before W_O), and y is
// the run's bit for bit. ea_mha_quant_run's attn_weights is the probs tap.
#ifndef EDGEATTN_SRC_OPS_MHA_MHA_QUANT_TAPS_H_
#define EDGEATTN_SRC_OPS_MHA_MHA_QUANT_TAPS_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "edgeattn/edgeattn.h"
#include "runtime/validation.h"

namespace edgeattn {

template <typename T>
struct MhaQuantTaps {
  T* positioned = nullptr;
  T* q = nullptr;
  T* k = nullptr;
  T* v = nullptr;
  T* scores = nullptr;
  T* probs = nullptr;
  T* context = nullptr;

  static MhaQuantTaps Of(const ea_mha_quant_taps& t) {
    MhaQuantTaps taps;
    taps.positioned = static_cast<T*>(t.positioned);
    taps.q = static_cast<T*>(t.q);
    taps.k = static_cast<T*>(t.k);
    taps.v = static_cast<T*>(t.v);
    taps.scores = static_cast<T*>(t.scores);
    taps.probs = static_cast<T*>(t.probs);
    taps.context = static_cast<T*>(t.context);
    return taps;
  }
  bool PerHead() const { return scores != nullptr || probs != nullptr; }
};

inline constexpr size_t kMhaQuantTapCount = 7;

// The bytes each tap spans in a run of n tokens (NULL taps: none).
template <typename T>
void MhaQuantTapExtents(const MhaQuantTaps<T>& taps, int32_t n, int32_t d_model, int32_t heads,
                        Extent* extents) {
  const size_t activations = static_cast<size_t>(n) * static_cast<size_t>(d_model) * sizeof(T);
  const size_t per_head =
      static_cast<size_t>(heads) * static_cast<size_t>(n) * static_cast<size_t>(n) * sizeof(T);
  const T* const pointers[kMhaQuantTapCount] = {taps.positioned, taps.q,     taps.k,      taps.v,
                                                taps.scores,     taps.probs, taps.context};
  const size_t bytes[kMhaQuantTapCount] = {activations, activations, activations, activations,
                                           per_head,    per_head,    activations};
  for (size_t i = 0; i < kMhaQuantTapCount; ++i) {
    extents[i] = Extent{pointers[i], pointers[i] != nullptr ? bytes[i] : 0};
  }
}

// Columns [first, first + cols) of `rows` rows: from `from` (its column 0 is
// column `first`, row stride ld_from) into the same columns of `to` (stride
// ld_to). Nothing when `to` is NULL.
template <typename T>
void TapColumns(const T* from, size_t ld_from, int32_t rows, size_t first, size_t cols, T* to,
                size_t ld_to) {
  if (to == nullptr) return;
  for (int32_t r = 0; r < rows; ++r) {
    memcpy(to + static_cast<size_t>(r) * ld_to + first, from + static_cast<size_t>(r) * ld_from,
           cols * sizeof(T));
  }
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_OPS_MHA_MHA_QUANT_TAPS_H_
