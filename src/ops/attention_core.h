// The attention core as the three operations share it: validating its shape,
// carving its arena regions, and running it on strided operands.
#ifndef EDGEATTN_SRC_OPS_ATTENTION_CORE_H_
#define EDGEATTN_SRC_OPS_ATTENTION_CORE_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"
#include "runtime/validation.h"

namespace edgeattn {

// Shape, dtype, mask and scale checks of an attention config.
ea_status ValidateAttentionConfig(const ea_attention_config& config);

// Carves the core's regions (AttentionArenaBytes, packed keys for
// `packed_heads` heads) and fills `core`. The caller has checked that they fit.
void CarveAttentionCore(const ea_attention_config& config, ea_arena* arena, ea_attention_plan* core,
                        int32_t packed_heads = 1);

// The arena bytes a planned core carved (packed keys, then the score tiles).
Extent CoreCarve(const ea_attention_plan& core, int32_t packed_heads = 1);

// The whole carve of a plan whose regions end with its core's: regions are
// carved back to back, so it spans the `total_bytes` before the core's end.
Extent PlanCarveEndingWith(const ea_attention_plan& core, uint64_t total_bytes,
                           int32_t packed_heads = 1);

// Operands of one core run: row-major with leading dimensions.
struct CoreOperands {
  const float* q;
  size_t ld_q;
  const float* k;
  size_t ld_k;
  const float* v;
  size_t ld_v;
  float* out;
  size_t ld_out;
  float* weights;  // NULL or [n_q, n_kv] with leading dimension n_kv
};

// Packs K (unless n_q <= kFewQueryRows), then runs the query blocks as tasks of the plan's
// parallel-for. EA_ERR_BAD_ARGUMENT when the hook broke its worker-index contract.
ea_status RunAttentionCore(const ea_attention_plan& core, int32_t n_q, int32_t n_kv,
                           int32_t n_valid_keys, const CoreOperands& operands);

// Head h's operands: head 0's pointers advanced by h times these (floats).
struct HeadStrides {
  size_t q, k, v, out, weights;
};

// `heads` attentions of the same shape, head h on head0's operands advanced
// by h strides. With keys packed for every head (packed_heads >= heads, a
// core carved so), one batch of tasks packs every head's K and one runs the
// query blocks of all heads, so that no worker waits for the others at a
// head's end; otherwise head after head, as RunAttentionCore. Each row is
// computed the same way either way: the results are the same bits.
ea_status RunAttentionHeads(const ea_attention_plan& core, int32_t packed_heads, int32_t heads,
                            int32_t n_q, int32_t n_kv, int32_t n_valid_keys,
                            const CoreOperands& head0, const HeadStrides& strides);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_OPS_ATTENTION_CORE_H_
