// The trained reversal model (tools/train_reversal_model.py) on edgeattn:
// token embedding + sinusoidal positions -> two causal MHA layers with
// residuals, each an ea_decoder on its own KV cache -> linear readout.
// Decoding is greedy, one token per step after the prompt (8 digits and the
// separator) went in as one step. Static arenas, no heap: the same code runs
// hosted and on Cortex-M with the weights in flash (reversal_weights.h).
#ifndef EDGEATTN_EXAMPLES_REVERSAL_REVERSAL_MODEL_H_
#define EDGEATTN_EXAMPLES_REVERSAL_REVERSAL_MODEL_H_

#include <stdint.h>

#include "edgeattn/decoder.h"

namespace reversal {

inline constexpr int32_t kSeqLen = 8;  // digits in, digits out
inline constexpr int32_t kSeparator = 10;
inline constexpr int32_t kVocab = 11;
inline constexpr int32_t kPositions = 2 * kSeqLen + 1;
inline constexpr int32_t kPromptTokens = kSeqLen + 1;  // the digits and the separator
inline constexpr int32_t kDModel = 64;
inline constexpr int32_t kHeads = 4;
inline constexpr int32_t kLayers = 2;

// Greedy decoding, for either model: the prompt (the digits and the
// separator) as one step, then each prediction fed back as the next step.
// step(tokens, n, &next) runs n tokens and predicts the one after them.
template <typename StepFn>
ea_status GreedyReversal(const int32_t* digits, int32_t* out, StepFn step) {
  int32_t prompt[kPromptTokens];
  for (int32_t i = 0; i < kSeqLen; ++i) prompt[i] = digits[i];
  prompt[kSeqLen] = kSeparator;
  int32_t token = 0;
  ea_status status = step(prompt, kPromptTokens, &token);
  for (int32_t i = 0; status == EA_OK && i < kSeqLen; ++i) {
    out[i] = token;
    if (i + 1 < kSeqLen) status = step(&out[i], 1, &token);
  }
  return status;
}

class Model {
 public:
  // storage: how both layers' caches hold K and V; positions false runs the
  // ablation (the same weights without the position table).
  ea_status Init(ea_kv_storage storage, bool positions);
  // out[i] = the model's reversal of digits[0, kSeqLen).
  ea_status Reverse(const int32_t* digits, int32_t* out);

 private:
  ea_status Step(const int32_t* tokens, int32_t n, int32_t* next);

  ea_decoder layers_[kLayers];
  bool positions_ = true;
  int32_t length_ = 0;
};

}  // namespace reversal

#endif  // EDGEATTN_EXAMPLES_REVERSAL_REVERSAL_MODEL_H_
