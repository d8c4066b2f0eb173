// Float32 Attention(Q, K, V), FlashAttention-style: the n_q x n_kv score
// matrix never exists. For each block of kQueryBlock query rows, stream the
// packed key panels: score tile (score_tile-inl.h), then an online-softmax
// step per row (online_softmax-inl.h) that folds the panel into the output
// rows. Working memory: packed K^T plus one 16 x 64 tile.
//
// Masks are per-row key limits: row i sees keys [0, limit_i), where
// limit_i = min(n_valid_keys, i + n_kv - n_q + 1) when causal. The key loop
// stops at the last panel any row of the block sees, so causal attention skips
// the upper triangle and masks only inside the diagonal panel.

#if defined(EDGEATTN_SRC_ATTENTION_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_ATTENTION_F32_INL_H_
#undef EDGEATTN_SRC_ATTENTION_F32_INL_H_
#else
#define EDGEATTN_SRC_ATTENTION_F32_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "kernels.h"
#include "online_softmax-inl.h"
#include "pack_keys.h"
#include "score_tile-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Number of keys query row `row` may see.
HWY_INLINE int32_t VisibleKeys(const AttentionArgs& args, int32_t row) {
  int32_t limit = args.n_valid_keys;
  if (args.causal) {
    const int64_t diagonal = static_cast<int64_t>(row) + args.n_kv - args.n_q + 1;
    if (diagonal < limit) limit = diagonal < 0 ? 0 : static_cast<int32_t>(diagonal);
  }
  return limit;
}

// Keys of panel `panel` that a row with `limit` visible keys sees: 0..64.
HWY_INLINE size_t VisibleInPanel(int32_t limit, int32_t panel) {
  const int32_t count = limit - panel * kKeyBlock;
  if (count <= 0) return 0;
  return count < kKeyBlock ? static_cast<size_t>(count) : static_cast<size_t>(kKeyBlock);
}

// Second pass for the optional attention-weights output of one query block,
// once the block's final row maxima and sums are known.
template <class D>
HWY_INLINE void WriteBlockWeights(D d, const AttentionArgs& args, int32_t first_row, size_t rows,
                                  const int32_t* limits, const RowState* states) {
  const size_t d_k = static_cast<size_t>(args.d_k);
  const int32_t panels = KeyPanelCount(args.n_kv);
  const float* q_block = args.q + static_cast<size_t>(first_row) * args.ld_q;
  for (int32_t p = 0; p < panels; ++p) {
    const size_t width = VisibleInPanel(args.n_kv, p);
    ScoreTile(d, q_block, args.ld_q, rows, KeyPanel(args.packed_keys, args.d_k, p), d_k, args.scale,
              args.score_tile);
    for (size_t r = 0; r < rows; ++r) {
      float* out = args.weights + (static_cast<size_t>(first_row) + r) * args.ld_weights +
                   static_cast<size_t>(p) * kKeyBlock;
      WriteProbabilities(d, args.score_tile + r * kKeyBlock, VisibleInPanel(limits[r], p), width,
                         states[r], out);
    }
  }
}

HWY_INLINE void AttentionTiled(const AttentionArgs& args) {
  const hn::ScalableTag<float> d;
  const size_t d_k = static_cast<size_t>(args.d_k);
  const size_t d_v = static_cast<size_t>(args.d_v);
  PackKeysTransposed(args.k, args.ld_k, args.n_kv, args.d_k, args.packed_keys);

  for (int32_t first = 0; first < args.n_q; first += kQueryBlock) {
    const size_t rows =
        static_cast<size_t>(args.n_q - first < kQueryBlock ? args.n_q - first : kQueryBlock);
    int32_t limits[kQueryBlock];
    RowState states[kQueryBlock];
    int32_t block_limit = 0;
    for (size_t r = 0; r < rows; ++r) {
      limits[r] = VisibleKeys(args, first + static_cast<int32_t>(r));
      if (limits[r] > block_limit) block_limit = limits[r];
      states[r] = InitialRowState();
      float* out = args.out + (static_cast<size_t>(first) + r) * args.ld_out;
      for (size_t c = 0; c < d_v; ++c) out[c] = 0.0f;
    }

    const float* q_block = args.q + static_cast<size_t>(first) * args.ld_q;
    const int32_t panels = KeyPanelCount(block_limit);
    for (int32_t p = 0; p < panels; ++p) {
      ScoreTile(d, q_block, args.ld_q, rows, KeyPanel(args.packed_keys, args.d_k, p), d_k,
                args.scale, args.score_tile);
      const float* values = args.v + static_cast<size_t>(p) * kKeyBlock * args.ld_v;
      for (size_t r = 0; r < rows; ++r) {
        const size_t visible = VisibleInPanel(limits[r], p);
        if (visible == 0) continue;
        OnlineSoftmaxStep(d, args.score_tile + r * kKeyBlock, visible, values, args.ld_v, d_v,
                          &states[r], args.out + (static_cast<size_t>(first) + r) * args.ld_out);
      }
    }

    for (size_t r = 0; r < rows; ++r) {
      const float factor = FinalRowFactor(states[r]);
      float* out = args.out + (static_cast<size_t>(first) + r) * args.ld_out;
      for (size_t c = 0; c < d_v; ++c) out[c] *= factor;
    }
    if (args.weights != nullptr) WriteBlockWeights(d, args, first, rows, limits, states);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
