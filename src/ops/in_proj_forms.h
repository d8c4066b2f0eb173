// The two forms a caller gives the Q, K and V projections in, for the float
// (ea_mha_weights) and the fixed-point (ea_mha_quant_weights) layers alike:
// PyTorch nn.MultiheadAttention's one in_proj matrix (rows W_Q, W_K, W_V), or
// three tensors (a TFLite model's three FULLY_CONNECTED ops, a Hugging Face
// checkpoint's q_proj/k_proj/v_proj). The biases come in the same two forms,
// chosen independently of the weights': PyTorch's kdim form saves three
// weights with one in_proj_bias, and one rule for both dtypes is the one a
// user can guess.
#ifndef EDGEATTN_SRC_OPS_IN_PROJ_FORMS_H_
#define EDGEATTN_SRC_OPS_IN_PROJ_FORMS_H_

#include "edgeattn/common.h"

namespace edgeattn {

// out_proj_weight, and in_proj_weight or all three of q/k/v_proj_weight
// (EA_ERR_NULL_POINTER); not both weight forms, nor both bias forms
// (EA_ERR_BAD_ARGUMENT). Reads pointers only, no dimension.
template <class Weights>
ea_status CheckInProjForms(const Weights& w) {
  if (w.out_proj_weight == nullptr) return EA_ERR_NULL_POINTER;
  const bool any_weight =
      w.q_proj_weight != nullptr || w.k_proj_weight != nullptr || w.v_proj_weight != nullptr;
  const bool all_weights =
      w.q_proj_weight != nullptr && w.k_proj_weight != nullptr && w.v_proj_weight != nullptr;
  if (w.in_proj_weight == nullptr && !all_weights) return EA_ERR_NULL_POINTER;
  if (w.in_proj_weight != nullptr && any_weight) return EA_ERR_BAD_ARGUMENT;
  const bool any_bias =
      w.q_proj_bias != nullptr || w.k_proj_bias != nullptr || w.v_proj_bias != nullptr;
  return w.in_proj_bias != nullptr && any_bias ? EA_ERR_BAD_ARGUMENT : EA_OK;
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_OPS_IN_PROJ_FORMS_H_
