// The reversal model in TensorFlow Lite's int8 integers
// (tools/quantize_reversal_model.py): the int8 embedding plus the int8
// position table by TFLite's ADD -> two causal MHA layers, each an
// ea_decoder_quant on its own cache of the chain's int8 K and V, with the
// residual ADD (ea_add_quant_run_s8) -> the readout's int32 accumulators, whose argmax
// is the next token. No float arithmetic in the run path: every target, a
// Cortex-M4 under qemu included, gives the same integers. Static arenas (so
// one QuantModel at a time), no heap, weights and tables in flash
// (reversal_quant_weights.h).
#ifndef EDGEATTN_EXAMPLES_REVERSAL_REVERSAL_QUANT_MODEL_H_
#define EDGEATTN_EXAMPLES_REVERSAL_REVERSAL_QUANT_MODEL_H_

#include <stdint.h>

#include "edgeattn/decoder.h"
#include "reversal_model.h"

namespace reversal {

class QuantModel {
 public:
  ea_status Init();
  // out[i] = the model's reversal of digits[0, kSeqLen).
  ea_status Reverse(const int32_t* digits, int32_t* out);

 private:
  ea_status Step(const int32_t* tokens, int32_t n, int32_t* next);

  ea_mha_quant_scales scales_[kLayers];
  ea_decoder_quant layers_[kLayers];
  ea_add_quant_params position_add_;
  ea_add_quant_params residual_add_[kLayers];
  int32_t length_ = 0;
};

}  // namespace reversal

#endif  // EDGEATTN_EXAMPLES_REVERSAL_REVERSAL_QUANT_MODEL_H_
