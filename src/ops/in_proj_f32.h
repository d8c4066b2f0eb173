// The float Q, K and V projections' weights as a caller gives them: PyTorch
// nn.MultiheadAttention's one in_proj matrix [d_model + 2 kv, d_model] (rows
// W_Q, W_K, W_V) with one bias, or three tensors (a TFLite model's three
// FULLY_CONNECTED ops, a Hugging Face checkpoint's q_proj/k_proj/v_proj), each
// with its own bias (or PyTorch's kdim form: three weights, one in_proj_bias;
// the weights' and the biases' forms are independent). Either weight form
// becomes the same packed panels at init
// (the three are gathered into the one matrix's packing: no concatenated copy
// and no extra arena), so the GEMM, the arena and every panel slice the
// operations take are those of the one matrix. Separate biases cannot be one
// GEMM operand: the GEMM runs without bias and AddInProjBiases adds them
// after, the same float additions the GEMM's epilogue does (bit-identical).
#ifndef EDGEATTN_SRC_OPS_IN_PROJ_F32_H_
#define EDGEATTN_SRC_OPS_IN_PROJ_F32_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"
#include "ops/in_proj_forms.h"
#include "runtime/validation.h"

namespace edgeattn {

// The three-tensor form: ROW_MAJOR only (EA_ERR_BAD_ARGUMENT with PACKED,
// whose one matrix is packed whole).
ea_status CheckInProjF32Layout(const ea_mha_weights& w, ea_weights_layout layout);

// The caller's in_proj weights and biases as extents, for the rules that keep
// them outside the arena and the outputs: [0] in_proj_weight, [1]
// in_proj_bias, [2..4] q/k/v_proj_weight, [5..7] q/k/v_proj_bias (empty
// where not given).
constexpr size_t kInProjExtents = 8;
void InProjF32Extents(const ea_mha_weights& w, int32_t d_model, int32_t kv_width,
                      ea_weights_layout layout, Extent* extents);

// The packed panels of the whole in_proj (d_model + 2 kv_width outputs): the
// caller's (PACKED), or carved from the arena and packed now, from either
// form.
const float* PackInProjF32(const ea_mha_weights& w, int32_t d_model, int32_t kv_width,
                           ea_weights_layout layout, ea_arena* arena);

// The bias the in_proj GEMM adds itself: in_proj_bias (with either weight
// form), or NULL where the biases are three (AddInProjBiases adds those).
inline const float* FusedInProjBias(const ea_mha_weights& w) { return w.in_proj_bias; }

// The query projection's bias in either form (in_proj_bias starts with it,
// or q_proj_bias); NULL where none is given.
inline const float* QProjBiasOf(const ea_mha_weights& w) {
  return w.in_proj_bias != nullptr ? w.in_proj_bias : w.q_proj_bias;
}

// row[0, width) += bias[0, width) for `rows` rows of stride ld; bias NULL
// adds nothing.
void AddBiasToRows(const float* bias, int32_t width, float* rows_begin, size_t ld, int32_t rows);

// Three biases added to qkv's rows [0, rows): q_proj_bias to columns
// [0, d_model), k_proj_bias to [d_model, d_model + kv_width), v_proj_bias to
// the next kv_width. Nothing where they are NULL (in_proj_bias, or none).
void AddInProjBiases(const ea_mha_weights& w, int32_t d_model, int32_t kv_width, float* qkv,
                     size_t ld_qkv, int32_t rows);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_OPS_IN_PROJ_F32_H_
