// One fixed-point Attention(Q, K, V) over strided operands, shared by
// fixed-point MHA (once per head) and ea_attention_quant_run_s8 / _s16: K and V
// prepared for the kernel (packed for the dot-product instructions, or V
// transposed for the row kernels), then query blocks on the parallel-for.
#ifndef EDGEATTN_SRC_OPS_QUANT_ATTENTION_CORE_H_
#define EDGEATTN_SRC_OPS_QUANT_ATTENTION_CORE_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"
#include "kernels/int/int_kernels.h"
#include "runtime/validation.h"

namespace edgeattn {

// Carves the softmax's tables (kSoftmaxS8TableBytes for both dtypes, so that
// the arena formula has one shape) and builds them: the int8 softmax's
// per-difference table, or the int16 one's SoftmaxS16Tables (the built-in
// tables or the params' exp_lut and one_over_one_plus_x_lut).
void* CarveSoftmaxTables(ea_arena* arena, ea_dtype dtype, const ea_softmax_quant_params& softmax);

// The model's int16 softmax tables a plan reads in place, for the overlap
// rules (empty where the built-in tables serve).
inline constexpr size_t kSoftmaxLutCount = 2;
struct SoftmaxLuts {
  Extent extents[kSoftmaxLutCount];
};
SoftmaxLuts SoftmaxLutExtents(const ea_softmax_quant_params& softmax);

// Carves a core for at most max_keys keys (QuantCoreArenaBytes in
// arena_sizes.hpp) and builds the softmax's tables into it.
ea_quant_core CarveQuantCore(ea_arena* arena, ea_dtype dtype, int32_t max_keys, int32_t d_k,
                             int32_t d_v, int32_t max_workers,
                             const ea_softmax_quant_params& softmax);

struct QuantCoreShape {
  int32_t n_q, n_kv, d_k, d_v;
  bool causal;           // bottom-right: query i sees keys 0 .. i + n_kv - n_q
  int32_t n_valid_keys;  // in [0, n_kv]: keys from here on are padding
};

// The kernel arguments the quantization and the shape fix (offsets,
// multipliers, the softmax's table or parameters); operands, their strides and
// the outputs are the caller's.
template <typename T>
AttentionQArgs<T> QuantCoreArgs(const ea_matmul_quant_params& scores,
                                const ea_softmax_quant_params& softmax,
                                const ea_matmul_quant_params& context, const ea_quant_core& core,
                                const QuantCoreShape& shape);

// Runs args (q, k, out, probs, shapes filled in) with v [n_kv, d_v] at ld_v.
// False when the parallel-for hook broke its worker contract.
bool RunQuantAttentionS8(const ea_parallel_for& parallel, const AttentionQArgs<int8_t>& args,
                         const int8_t* v, size_t ld_v, const ea_quant_core& memory);
bool RunQuantAttentionS16(const ea_parallel_for& parallel, const AttentionQArgs<int16_t>& args,
                          const int16_t* v, size_t ld_v, const ea_quant_core& memory);

// The same, for code written once for both activation types.
inline bool RunQuantAttention(const ea_parallel_for& parallel, const AttentionQArgs<int8_t>& args,
                              const int8_t* v, size_t ld_v, const ea_quant_core& memory) {
  return RunQuantAttentionS8(parallel, args, v, ld_v, memory);
}
inline bool RunQuantAttention(const ea_parallel_for& parallel, const AttentionQArgs<int16_t>& args,
                              const int16_t* v, size_t ld_v, const ea_quant_core& memory) {
  return RunQuantAttentionS16(parallel, args, v, ld_v, memory);
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_OPS_QUANT_ATTENTION_CORE_H_
