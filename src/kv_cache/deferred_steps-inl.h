// Record steps of single query heads (no GQA group to share a record) over a
// whole block, deferred until up to kDeferredSteps of them are scored, so that
// their softmax steps are taken side by side (OnlineSoftmaxRows): each row's
// maximum, exponential and sum end in horizontal reductions and scalar steps,
// chains that one row alone waits for and that the rows of different KV heads
// do not depend on. Each row gets the same operations as alone, so the
// results are the same bits. A storage's pass scores step i into tile slot i,
// takes the steps when a block ends (DecodeRecords' finish_block) or before a
// step that cannot wait, and weighs each step's values after the softmax.
//
// The int8 and int4 records use it (decode_attention_s8.cc): about 7 % faster
// in cache, L = 1024, 8 KV heads of 64 (Zen 5). The float records' steps, whose
// dot products are longer, gained nothing (f32 and f16 at L = 512).

#if defined(EDGEATTN_SRC_KV_CACHE_DEFERRED_STEPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KV_CACHE_DEFERRED_STEPS_INL_H_
#undef EDGEATTN_SRC_KV_CACHE_DEFERRED_STEPS_INL_H_
#else
#define EDGEATTN_SRC_KV_CACHE_DEFERRED_STEPS_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/kv_cache.h"
#include "kernels/f32/online_softmax-inl.h"
#include "kv_cache/decode_attention-inl.h"
#include "kv_cache/kv_cache_layout.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {

// SCALAR, the microcontrollers' in-order cores, has nothing to overlap: one
// step at a time, and no stack for more.
inline constexpr size_t kDeferredSteps = HWY_TARGET == HWY_SCALAR ? 1 : kMaxSoftmaxRows;
// A slot: the block's kKeyBlock scores, then kKeyBlock bytes (an int8 step's
// weight codes, WeightCodesOf row 0 of the slot).
inline constexpr size_t kDeferredSlotFloats = kKeyBlock + kKeyBlock / 4;
static_assert(kDeferredSteps * kDeferredSlotFloats <= kScoreTileRows * kScoreTileKeys,
              "the deferred steps' slots fit the score tile");
static_assert(kDeferredSlotFloats * sizeof(float) % 64 == 0, "slots keep the tile's alignment");

// Whether a step can wait: one grid row over the whole block.
inline bool IsWholeBlockRow(size_t rows, size_t first, size_t end) {
  return rows == 1 && first == 0 && end == static_cast<size_t>(kKeyBlock);
}

// The steps waiting in one block; Extra is what a storage's weighing needs
// besides the record.
template <class Extra>
struct DeferredSteps {
  struct Step {
    KvRecordView record;
    Extra extra;
    int32_t query;
    int32_t head;
  };
  Step steps[kDeferredSteps];
  size_t count = 0;
  int64_t block_start = 0;

  // Where the next step scores.
  float* NextSlot(const ea_kv_cache& cache) const {
    return cache.score_tile + count * kDeferredSlotFloats;
  }
  // Adds the step just scored into NextSlot; returns whether the slots are full.
  bool Add(const KvRecordView& record, const Extra& extra, int32_t query, int32_t head,
           int64_t block) {
    steps[count++] = Step{record, extra, query, head};
    block_start = block;
    return count == kDeferredSteps;
  }
};

// Takes the pending steps' softmax steps (ALiBi added first) side by side,
// then weigh(step, slot, rescale, usable) for each: its probabilities are in
// slot[0, kKeyBlock), and it must not touch the output row when !usable.
template <class D, class Extra, class WeighFn>
HWY_INLINE void TakeDeferredSteps(D d, const ea_kv_cache& cache, const DecodeShape& shape,
                                  DeferredSteps<Extra>& pending, const WeighFn& weigh) {
  const size_t n = pending.count;
  if (n == 0) return;
  pending.count = 0;
  RowState* row_states = static_cast<RowState*>(cache.row_states);
  RowState states[kDeferredSteps];
  size_t counts[kDeferredSteps];
  for (size_t i = 0; i < n; ++i) {
    const auto& step = pending.steps[i];
    if (cache.config.alibi_slopes != nullptr) {
      AddLinearBiases(cache.score_tile + i * kDeferredSlotFloats, 1, 0, kKeyBlock,
                      cache.config.alibi_slopes + step.head,
                      pending.block_start - QueryPosition(shape, step.query));
    }
    states[i] = row_states[FirstRow(cache, step.query, step.head)];
    counts[i] = kKeyBlock;
  }
  float rescale[kDeferredSteps];
  bool usable[kDeferredSteps];
  OnlineSoftmaxRows(d, cache.score_tile, kDeferredSlotFloats, n, counts, states, rescale, usable);
  for (size_t i = 0; i < n; ++i) {
    const auto& step = pending.steps[i];
    row_states[FirstRow(cache, step.query, step.head)] = states[i];
    weigh(step, cache.score_tile + i * kDeferredSlotFloats, rescale[i], usable[i]);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // EDGEATTN_SRC_KV_CACHE_DEFERRED_STEPS_INL_H_
