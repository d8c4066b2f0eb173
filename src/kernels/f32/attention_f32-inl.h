// Float32 Attention(Q, K, V), FlashAttention-style: the n_q x n_kv score
// matrix never exists.
//
//   pack K^T once (kernels/f32/transposed_panels.h; ops/attention_core.cc)
//   for each block of kQueryBlockRows query rows (one task of a run):
//     for each block of kScoreTileKeys keys, up to the last one a row sees:
//       for each micro tile of kGridRows rows of the block:
//         S = scale Q_tile K_block^T          kernels/f32/score_tile-inl.h
//         per row: online softmax step         kernels/f32/online_softmax-inl.h
//         O_tile = O_tile * rescale + P V      kernels/f32/weighted_values-inl.h
//   O /= l per row
//
// Why this loop order: a key block's K^T and V (2 x 256 x d floats, 128 KiB
// at d = 64) stay in L2 while every micro tile of the query block reuses
// them, and one micro tile's Q rows, scores and output rows (6 x (d + 256 +
// d) floats) stay in L1. B_r = 60 rows (kQueryBlockRows) reuse each key
// block ten times while the rows' state stays a small stack frame.
//
// Masks are per-row key limits: row i sees keys [0, limit_i), where
// limit_i = min(n_valid_keys, i + n_kv - n_q + 1) when causal. A micro tile
// computes scores only up to the largest limit of its rows, so causal
// attention touches nothing above the diagonal, and only the diagonal block
// is partially masked: the keys every row of the tile sees go through the
// grid together, the few the longer rows see beyond that go row by row.

#if defined(EDGEATTN_SRC_KERNELS_F32_ATTENTION_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KERNELS_F32_ATTENTION_F32_INL_H_
#undef EDGEATTN_SRC_KERNELS_F32_ATTENTION_F32_INL_H_
#else
#define EDGEATTN_SRC_KERNELS_F32_ATTENTION_F32_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "kernels/f32/f32_kernels.h"
#include "kernels/f32/online_softmax-inl.h"
#include "kernels/f32/register_grid-inl.h"
#include "kernels/f32/score_rows-inl.h"
#include "kernels/f32/score_tile-inl.h"
#include "kernels/f32/transposed_panels.h"
#include "kernels/f32/weighted_values-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

static_assert(kGridRows <= static_cast<size_t>(kScoreTileRows), "the tile holds a grid's rows");
static_assert(kScoreTileKeys % kKeyBlock == 0, "a key block is whole panels");
static_assert(kQueryBlockRows % kGridRows == 0, "a query block is whole micro tiles");

// Number of keys query row `row` may see.
HWY_INLINE int32_t VisibleKeys(const AttentionArgs& args, int32_t row) {
  int32_t limit = args.n_valid_keys;
  if (args.causal) {
    const int64_t diagonal = static_cast<int64_t>(row) + args.n_kv - args.n_q + 1;
    if (diagonal < limit) limit = diagonal < 0 ? 0 : static_cast<int32_t>(diagonal);
  }
  return limit;
}

// Keys [first_key, first_key + width) that a row with `limit` visible keys sees.
HWY_INLINE size_t VisibleInBlock(int32_t limit, int32_t first_key, size_t width) {
  const int32_t count = limit - first_key;
  if (count <= 0) return 0;
  return static_cast<size_t>(count) < width ? static_cast<size_t>(count) : width;
}

HWY_INLINE int32_t LargestLimit(const int32_t* limits, size_t rows) {
  int32_t largest = 0;
  for (size_t r = 0; r < rows; ++r) largest = limits[r] > largest ? limits[r] : largest;
  return largest;
}

// row[0, count) *= factor; factor 0 sets the row to 0 whatever it held.
template <class D>
HWY_INLINE void ScaleRow(D d, float* HWY_RESTRICT row, size_t count, float factor) {
  const size_t lanes = hn::Lanes(d);
  const auto vfactor = hn::Set(d, factor);
  size_t c = 0;
  if (factor == 0.0f) {
    for (; c + lanes <= count; c += lanes) hn::StoreU(hn::Zero(d), d, row + c);
    for (; c < count; ++c) row[c] = 0.0f;
    return;
  }
  for (; c + lanes <= count; c += lanes)
    hn::StoreU(hn::Mul(hn::LoadU(d, row + c), vfactor), d, row + c);
  for (; c < count; ++c) row[c] *= factor;
}

// tile[r][j] = scale * q_(first_row + r) . k_(first_key + j), j < keys: from
// the packed panels, or (few query rows) from K in place.
template <class D>
HWY_INLINE void ScoreKeys(D d, const AttentionArgs& args, int32_t first_row, size_t rows,
                          int32_t first_key, size_t keys, float* tile) {
  const float* q = args.q + static_cast<size_t>(first_row) * args.ld_q;
  if (args.keys_packed) {
    ScoreBlock(d, q, args.ld_q, rows, args.packed_keys, args.d_k, first_key / kKeyBlock, keys,
               args.scale, tile);
  } else {
    ScoreRowsInPlace(d, q, args.ld_q, rows, args.k, args.ld_k, static_cast<size_t>(args.d_k),
                     static_cast<size_t>(first_key), keys, args.scale, tile);
  }
}

// One micro tile (rows <= kGridRows, starting at query row `first_row`)
// against the keys [first_key, first_key + width) of one key block.
template <class D>
HWY_INLINE void AttendKeyBlock(D d, const AttentionArgs& args, int32_t first_row, size_t rows,
                               int32_t first_key, size_t width, const int32_t* limits,
                               RowState* states) {
  float* tile = args.score_tile;
  ScoreKeys(d, args, first_row, rows, first_key, width, tile);

  size_t visible[kGridRows];
  for (size_t r = 0; r < rows; ++r) visible[r] = VisibleInBlock(limits[r], first_key, width);
  float rescale[kGridRows];
  bool ok[kGridRows];
  OnlineSoftmaxRows(d, tile, kScoreTileKeys, rows, visible, states, rescale, ok);

  size_t usable[kGridRows];  // probabilities each row contributes
  size_t common = width;     // keys every row contributes
  bool rescaled = false;
  for (size_t r = 0; r < rows; ++r) {
    usable[r] = ok[r] ? visible[r] : 0;
    common = usable[r] < common ? usable[r] : common;
    // The first block starts every output row of the tile (whatever it held
    // before, see AccumulateWeightedValues): rows that contribute nothing
    // here get 0. Every row that sees a key sees key 0, in this block.
    if (first_key == 0) rescale[r] = 0.0f;
    rescaled = rescaled || rescale[r] != 1.0f;
  }

  WeightedValuesArgs pv;
  pv.probs = tile;
  pv.first_key = 0;
  pv.end_key = common;
  pv.values = args.v + static_cast<size_t>(first_key) * args.ld_v;
  pv.ld_values = args.ld_v;
  pv.rescale = rescale;
  pv.out = args.out + static_cast<size_t>(first_row) * args.ld_out;
  pv.ld_out = args.ld_out;
  const size_t d_v = static_cast<size_t>(args.d_v);
  if (common > 0 || rescaled) AccumulateWeightedValues(d, pv, rows, d_v);

  // Keys only some rows see (the diagonal of a causal block): row by row.
  const float one = 1.0f;
  for (size_t r = 0; r < rows; ++r) {
    if (usable[r] <= common) continue;
    WeightedValuesArgs row = pv;
    row.probs = tile + r * kScoreTileKeys;
    row.first_key = common;
    row.end_key = usable[r];
    row.rescale = &one;
    row.out = pv.out + r * args.ld_out;
    AccumulateWeightedValues(d, row, 1, d_v);
  }
}

// Second pass for the optional attention-weights output of one micro tile,
// once its rows' final maxima and sums are known: whole rows, zeros where
// masked.
template <class D>
HWY_INLINE void WriteTileWeights(D d, const AttentionArgs& args, int32_t first_row, size_t rows,
                                 const int32_t* limits, const RowState* states) {
  const int32_t tile_limit = LargestLimit(limits, rows);
  for (int32_t first_key = 0; first_key < args.n_kv; first_key += kScoreTileKeys) {
    const size_t width = static_cast<size_t>(
        args.n_kv - first_key < kScoreTileKeys ? args.n_kv - first_key : kScoreTileKeys);
    const size_t scored = VisibleInBlock(tile_limit, first_key, width);
    if (scored > 0) ScoreKeys(d, args, first_row, rows, first_key, scored, args.score_tile);
    for (size_t r = 0; r < rows; ++r) {
      float* out = args.weights + (static_cast<size_t>(first_row) + r) * args.ld_weights +
                   static_cast<size_t>(first_key);
      WriteProbabilities(d, args.score_tile + r * kScoreTileKeys,
                         VisibleInBlock(limits[r], first_key, width), width, states[r], out);
    }
  }
}

// Query rows [first, first + rows) of one run, rows <= kQueryBlockRows.
HWY_INLINE void AttendQueryBlock(const AttentionArgs& args, int32_t first, size_t rows) {
  const hn::ScalableTag<float> d;
  const size_t d_v = static_cast<size_t>(args.d_v);
  int32_t limits[kQueryBlockRows];
  RowState states[kQueryBlockRows];
  for (size_t r = 0; r < rows; ++r) {
    limits[r] = VisibleKeys(args, first + static_cast<int32_t>(r));
    states[r] = InitialRowState();
  }

  const int32_t block_limit = LargestLimit(limits, rows);
  for (int32_t first_key = 0; first_key < block_limit; first_key += kScoreTileKeys) {
    for (size_t m = 0; m < rows; m += kGridRows) {
      const size_t tile_rows = rows - m < kGridRows ? rows - m : kGridRows;
      const int32_t tile_limit = LargestLimit(limits + m, tile_rows);
      const size_t width = VisibleInBlock(tile_limit, first_key, kScoreTileKeys);
      if (width == 0) continue;
      AttendKeyBlock(d, args, first + static_cast<int32_t>(m), tile_rows, first_key, width,
                     limits + m, states + m);
    }
  }

  for (size_t r = 0; r < rows; ++r) {
    ScaleRow(d, args.out + (static_cast<size_t>(first) + r) * args.ld_out, d_v,
             FinalRowFactor(states[r]));
  }
  if (args.weights != nullptr) {
    for (size_t m = 0; m < rows; m += kGridRows) {
      const size_t tile_rows = rows - m < kGridRows ? rows - m : kGridRows;
      WriteTileWeights(d, args, first + static_cast<int32_t>(m), tile_rows, limits + m, states + m);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
