#include "attention_core.h"

#include <math.h>

#include "arena.h"
#include "edgeattn/arena_sizes.hpp"
#include "kernels.h"
#include "parallel_for.h"
#include "transposed_panels.h"
#include "validation.h"

namespace edgeattn {

ea_status ValidateAttentionConfig(const ea_attention_config& c) {
  ea_status status = CheckDtype(c.dtype);
  if (status == EA_OK) status = CheckPositive(c.n_q, c.n_kv, c.d_k, c.d_v);
  if (status == EA_OK) status = CheckElements(c.n_q, c.d_k);
  if (status == EA_OK) status = CheckElements(c.n_q, c.d_v);
  if (status == EA_OK) status = CheckElements(c.n_kv, c.d_v);
  if (status == EA_OK) status = CheckPanelElements(c.n_kv, c.d_k);
  if (status == EA_OK) status = CheckMask(c.mask);
  if (status == EA_OK) status = ValidateParallelFor(c.parallel);
  // 0 selects 1/sqrt(d_k); anything else must be a positive finite number.
  if (status == EA_OK && c.scale != 0.0f && !(c.scale > 0.0f && isfinite(c.scale))) {
    status = EA_ERR_BAD_ARGUMENT;
  }
  return status;
}

void CarveAttentionCore(const ea_attention_config& config, ea_arena* arena,
                        ea_attention_plan* core) {
  core->config = config;
  core->scale = config.scale != 0.0f ? config.scale : 1.0f / sqrtf(static_cast<float>(config.d_k));
  core->packed_keys =
      CarveFloats(arena, static_cast<uint64_t>(config.d_k) *
                             RoundUp(static_cast<uint64_t>(config.n_kv), kKeyBlock));
  core->score_tile =
      CarveFloats(arena, Workers(config.parallel.max_workers) * kScoreTileRows * kScoreTileKeys);
  core->ready = EA_PLAN_READY;
}

Extent CoreCarve(const ea_attention_plan& core) {
  return Extent{core.packed_keys,
                static_cast<size_t>(AttentionArenaBytes(core.config.n_kv, core.config.d_k,
                                                        core.config.parallel.max_workers))};
}

Extent PlanCarveEndingWith(const ea_attention_plan& core, uint64_t total_bytes) {
  const Extent own = CoreCarve(core);
  const uint8_t* end = static_cast<const uint8_t*>(own.begin) + own.bytes;
  return Extent{end - total_bytes, static_cast<size_t>(total_bytes)};
}

ea_status RunAttentionCore(const ea_attention_plan& core, int32_t n_q, int32_t n_kv,
                           int32_t n_valid_keys, const CoreOperands& operands) {
  AttentionArgs args;
  args.q = operands.q;
  args.k = operands.k;
  args.v = operands.v;
  args.out = operands.out;
  args.weights = operands.weights;
  args.n_q = n_q;
  args.n_kv = n_kv;
  args.d_k = core.config.d_k;
  args.d_v = core.config.d_v;
  args.ld_q = operands.ld_q;
  args.ld_k = operands.ld_k;
  args.ld_v = operands.ld_v;
  args.ld_out = operands.ld_out;
  args.ld_weights = static_cast<size_t>(n_kv);
  args.n_valid_keys = n_valid_keys;
  args.causal = core.config.mask == EA_MASK_CAUSAL;
  args.scale = core.scale;
  args.packed_keys = core.packed_keys;
  args.score_tile = nullptr;  // each task's worker has its own
  args.keys_packed = n_q > kFewQueryRows;
  if (args.keys_packed) PackTransposedPanels(args.k, args.ld_k, n_kv, args.d_k, args.packed_keys);

  const int32_t blocks = (n_q + kQueryBlockRows - 1) / kQueryBlockRows;
  const size_t tile_floats = static_cast<size_t>(kScoreTileRows) * kScoreTileKeys;
  const bool ok = RunTasks(core.config.parallel, blocks, [&](int32_t task_index, int32_t worker) {
    const int32_t block = QueryBlockOfTask(task_index, blocks, args.causal);
    AttentionArgs task = args;
    task.score_tile = core.score_tile + static_cast<size_t>(worker) * tile_floats;
    const int32_t first = block * kQueryBlockRows;
    AttentionQueryBlockF32(task, first,
                           n_q - first < kQueryBlockRows ? n_q - first : kQueryBlockRows);
  });
  return ok ? EA_OK : EA_ERR_BAD_ARGUMENT;
}

}  // namespace edgeattn
