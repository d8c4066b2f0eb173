#include "ops/attention_core.h"

#include <math.h>

#include "edgeattn/arena_sizes.hpp"
#include "kernels/f32/f32_kernels.h"
#include "kernels/f32/transposed_panels.h"
#include "runtime/arena.h"
#include "runtime/parallel_for.h"
#include "runtime/validation.h"

namespace edgeattn {

ea_status ValidateAttentionConfig(const ea_attention_config& c) {
  // Fixed-point configs have their own plan (ea_attention_quant_init).
  ea_status status = CheckFloatDtype(c.dtype);
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

namespace {

constexpr size_t kTileFloats = static_cast<size_t>(ScoreTilesFloats(1));

// The run's arguments, but for the worker's score tile; keys packed into
// `packed_keys` unless there are few query rows.
AttentionArgs ArgsOf(const ea_attention_plan& core, int32_t n_q, int32_t n_kv, int32_t n_valid_keys,
                     const CoreOperands& operands, float* packed_keys) {
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
  args.packed_keys = packed_keys;
  args.score_tile = nullptr;  // each task's worker has its own
  args.keys_packed = n_q > kFewQueryRows;
  return args;
}

void PackKeys(const AttentionArgs& args) {
  if (args.keys_packed)
    PackTransposedPanels(args.k, args.ld_k, args.n_kv, args.d_k, args.packed_keys);
}

int32_t QueryBlocks(int32_t n_q) { return (n_q + kQueryBlockRows - 1) / kQueryBlockRows; }

// Query block task `task` of `blocks` (QueryBlockOfTask) on `worker`'s tile.
void RunQueryBlockTask(const AttentionArgs& args, const ea_attention_plan& core, int32_t task,
                       int32_t blocks, int32_t worker) {
  const int32_t block = QueryBlockOfTask(task, blocks, args.causal);
  AttentionArgs task_args = args;
  task_args.score_tile = core.score_tile + static_cast<size_t>(worker) * kTileFloats;
  const int32_t first = block * kQueryBlockRows;
  AttentionQueryBlockF32(task_args, first,
                         args.n_q - first < kQueryBlockRows ? args.n_q - first : kQueryBlockRows);
}

CoreOperands OperandsOfHead(const CoreOperands& head0, const HeadStrides& strides, size_t head) {
  CoreOperands operands = head0;
  operands.q += head * strides.q;
  operands.k += head * strides.k;
  operands.v += head * strides.v;
  operands.out += head * strides.out;
  if (operands.weights != nullptr) operands.weights += head * strides.weights;
  return operands;
}

}  // namespace

void CarveAttentionCore(const ea_attention_config& config, ea_arena* arena, ea_attention_plan* core,
                        int32_t packed_heads) {
  core->config = config;
  core->scale = config.scale != 0.0f ? config.scale : 1.0f / sqrtf(static_cast<float>(config.d_k));
  core->packed_keys = CarveFloats(arena, PackedKeysFloats(config.n_kv, config.d_k, packed_heads));
  core->score_tile = CarveFloats(arena, ScoreTilesFloats(config.parallel.max_workers));
  core->ready = EA_PLAN_READY;
}

Extent CoreCarve(const ea_attention_plan& core, int32_t packed_heads) {
  return Extent{core.packed_keys, static_cast<size_t>(AttentionArenaBytes(
                                      core.config.n_kv, core.config.d_k,
                                      core.config.parallel.max_workers, packed_heads))};
}

Extent PlanCarveEndingWith(const ea_attention_plan& core, uint64_t total_bytes,
                           int32_t packed_heads) {
  const Extent own = CoreCarve(core, packed_heads);
  const uint8_t* end = static_cast<const uint8_t*>(own.begin) + own.bytes;
  return Extent{end - total_bytes, static_cast<size_t>(total_bytes)};
}

ea_status RunAttentionCore(const ea_attention_plan& core, int32_t n_q, int32_t n_kv,
                           int32_t n_valid_keys, const CoreOperands& operands) {
  const AttentionArgs args = ArgsOf(core, n_q, n_kv, n_valid_keys, operands, core.packed_keys);
  PackKeys(args);
  const int32_t blocks = QueryBlocks(n_q);
  const bool ok = RunTasks(core.config.parallel, blocks, [&](int32_t task, int32_t worker) {
    RunQueryBlockTask(args, core, task, blocks, worker);
  });
  return ok ? EA_OK : EA_ERR_BAD_ARGUMENT;
}

ea_status RunAttentionHeads(const ea_attention_plan& core, int32_t packed_heads, int32_t heads,
                            int32_t n_q, int32_t n_kv, int32_t n_valid_keys,
                            const CoreOperands& head0, const HeadStrides& strides) {
  if (packed_heads < heads) {
    bool ok = true;
    for (int32_t h = 0; h < heads; ++h) {
      const CoreOperands operands = OperandsOfHead(head0, strides, static_cast<size_t>(h));
      ok = RunAttentionCore(core, n_q, n_kv, n_valid_keys, operands) == EA_OK && ok;
    }
    return ok ? EA_OK : EA_ERR_BAD_ARGUMENT;
  }
  const size_t head_keys = static_cast<size_t>(PackedKeysFloats(core.config.n_kv, core.config.d_k));
  const auto args_of_head = [&](int32_t h) {
    return ArgsOf(core, n_q, n_kv, n_valid_keys,
                  OperandsOfHead(head0, strides, static_cast<size_t>(h)),
                  core.packed_keys + static_cast<size_t>(h) * head_keys);
  };
  bool ok = RunTasks(core.config.parallel, heads,
                     [&](int32_t h, int32_t /* worker */) { PackKeys(args_of_head(h)); });
  // Task t: the (t / heads)-th block task of head t % heads, so that every
  // head's largest blocks come first (QueryBlockOfTask).
  const int32_t blocks = QueryBlocks(n_q);
  ok = RunTasks(core.config.parallel, heads * blocks,
                [&](int32_t task, int32_t worker) {
                  RunQueryBlockTask(args_of_head(task % heads), core, task / heads, blocks, worker);
                }) &&
       ok;
  return ok ? EA_OK : EA_ERR_BAD_ARGUMENT;
}

}  // namespace edgeattn
