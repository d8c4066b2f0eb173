// The decode kernel, for every storage: the queries of the newest tokens against a KV cache, in
// one pass over the cache.
//
// The records are visited in position order, block by block, all KV heads of
// a block side by side (kv_cache_layout.h), so the cache is read as a single
// stream that hardware prefetchers follow. For each record, every query that
// sees part of the block takes one online-softmax step there
// (online_softmax-inl.h): scores S = scale q K^T from the record's K^T panel
// (score_tile-inl.h), then O = O * rescale + P V from its value rows
// (weighted_values-inl.h). The query heads of a GQA group share a record: they
// are the rows of one register grid, so the group reads its keys and values
// once. f16 and int8 records are widened to float as the grid loads them
// (grid_operand_loads-inl.h); int8's per-position scales multiply the scores
// (K) and the probabilities (V) of the block. The output rows are the
// accumulators, normalised once at the end.
//
// The kernel is a template over the storage's element type; each storage is
// compiled in a file of its own (decode_attention_{f32,f16,s8}.cc), so that a
// build compiles the three side by side.

#if defined(EDGEATTN_SRC_KV_CACHE_DECODE_ATTENTION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KV_CACHE_DECODE_ATTENTION_INL_H_
#undef EDGEATTN_SRC_KV_CACHE_DECODE_ATTENTION_INL_H_
#else
#define EDGEATTN_SRC_KV_CACHE_DECODE_ATTENTION_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/kv_cache.h"
#include "kv_cache/kv_cache_layout.h"
#include "online_softmax-inl.h"
#include "register_grid-inl.h"
#include "score_tile-inl.h"
#include "weighted_values-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

static_assert(sizeof(RowState) <= kKvRowStateBytes, "the arena formula's row state");
static_assert(kGridRows <= static_cast<size_t>(kScoreTileRows), "grid rows fit the score tile");

// The shape of one attend, as the loops need it.
struct DecodeShape {
  size_t d_head;
  size_t ld;      // floats per token row of q and out: n_heads * d_head
  int32_t group;  // query heads per KV head
  int64_t first_query_position;
  bool causal;  // false: every query sits at the newest position (cross-attention)
};

// The position query `query` of the attend sits at.
inline int64_t QueryPosition(const DecodeShape& shape, int32_t query) {
  return shape.causal ? shape.first_query_position + query : shape.first_query_position;
}

// tile[r][j] *= factors[j] for r < rows, j in [first, end).
template <class D>
HWY_INLINE void ScaleTileColumns(D d, float* HWY_RESTRICT tile, size_t rows, size_t first,
                                 size_t end, const float* HWY_RESTRICT factors) {
  const size_t lanes = hn::Lanes(d);
  for (size_t r = 0; r < rows; ++r) {
    float* row = tile + r * kScoreTileKeys;
    size_t j = first;
    for (; j + lanes <= end; j += lanes) {
      hn::StoreU(hn::Mul(hn::LoadU(d, row + j), hn::LoadU(d, factors + j)), d, row + j);
    }
    for (; j < end; ++j) row[j] *= factors[j];
  }
}

// ALiBi: tile[r][j] += slope_r * (key position - query position), the key
// at block_start + j. The distance is exact in float below 2^24 positions.
inline void AddLinearBiases(float* tile, size_t rows, size_t first, size_t end, const float* slopes,
                            int64_t key_minus_query) {
  for (size_t r = 0; r < rows; ++r) {
    float* row = tile + r * kScoreTileKeys;
    for (size_t j = first; j < end; ++j) {
      row[j] += slopes[r] * static_cast<float>(key_minus_query + static_cast<int64_t>(j));
    }
  }
}

// `rows` query heads from `head` of query `query` against keys [first, end)
// of one record; block_start is the record's first position.
template <class D, class TE>
HWY_INLINE void AttendRecord(D d, const ea_kv_cache& cache, const DecodeShape& shape,
                             const KvRecordView& record, const float* q, int32_t query,
                             int32_t head, size_t rows, size_t first, size_t end,
                             int64_t block_start, float* out) {
  float* tile = cache.score_tile;
  const size_t row_offset =
      static_cast<size_t>(query) * shape.ld + static_cast<size_t>(head) * shape.d_head;
  const TE* keys = static_cast<const TE*>(record.keys);
  ScoreBlock(d, q + row_offset, shape.d_head, rows, keys, static_cast<int32_t>(shape.d_head), 0,
             end, cache.config.scale, tile);
  if (record.key_scales != nullptr) ScaleTileColumns(d, tile, rows, first, end, record.key_scales);
  if (cache.config.alibi_slopes != nullptr) {
    AddLinearBiases(tile, rows, first, end, cache.config.alibi_slopes + head,
                    block_start - QueryPosition(shape, query));
  }

  RowState* states = static_cast<RowState*>(cache.row_states) +
                     static_cast<size_t>(query) * static_cast<size_t>(cache.config.n_heads) +
                     static_cast<size_t>(head);
  size_t counts[kGridRows];
  for (size_t r = 0; r < rows; ++r) counts[r] = end - first;
  float rescale[kGridRows];
  bool usable[kGridRows];
  OnlineSoftmaxRows(d, tile + first, kScoreTileKeys, rows, counts, states, rescale, usable);
  bool all_usable = true;
  for (size_t r = 0; r < rows; ++r) all_usable = all_usable && usable[r];
  if (record.value_scales != nullptr) {
    ScaleTileColumns(d, tile, rows, first, end, record.value_scales);
  }

  WeightedValuesArgsOf<TE> pv;
  pv.probs = tile;
  pv.first_key = first;
  pv.end_key = end;
  pv.values = static_cast<const TE*>(record.values);
  pv.ld_values = shape.d_head;
  pv.rescale = rescale;
  pv.out = out + row_offset;
  pv.ld_out = shape.d_head;
  if (all_usable) {
    AccumulateWeightedValues(d, pv, rows, shape.d_head);
    return;
  }
  // A row that turned non-finite takes no more steps (its result is NaN).
  for (size_t r = 0; r < rows; ++r) {
    if (!usable[r]) continue;
    WeightedValuesArgsOf<TE> row = pv;
    row.probs = tile + r * kScoreTileKeys;
    row.rescale = &rescale[r];
    row.out = pv.out + r * shape.d_head;
    AccumulateWeightedValues(d, row, 1, shape.d_head);
  }
}

template <class D, class TE>
HWY_INLINE void DecodeWithStorage(D d, const ea_kv_cache& cache, const float* q, int32_t n_queries,
                                  bool causal, float* out) {
  const ea_kv_cache_config& c = cache.config;
  DecodeShape shape;
  shape.d_head = static_cast<size_t>(c.d_head);
  shape.ld = static_cast<size_t>(c.n_heads) * shape.d_head;
  shape.group = c.n_heads / c.n_kv_heads;
  shape.first_query_position = causal ? cache.length - n_queries : cache.length - 1;
  shape.causal = causal;

  const size_t out_floats = static_cast<size_t>(n_queries) * shape.ld;
  for (size_t i = 0; i < out_floats; ++i) out[i] = 0.0f;
  RowState* states = static_cast<RowState*>(cache.row_states);
  const size_t n_rows = static_cast<size_t>(n_queries) * static_cast<size_t>(c.n_heads);
  for (size_t r = 0; r < n_rows; ++r) states[r] = InitialRowState();

  const int64_t first_position = VisiblePositions(c, shape.first_query_position).first;
  for (int64_t block = first_position / kKeyBlock; block * kKeyBlock < cache.length; ++block) {
    const int64_t block_start = block * kKeyBlock;
    for (int32_t kv_head = 0; kv_head < c.n_kv_heads; ++kv_head) {
      const KvRecordView record = KvRecord(cache, block, kv_head);
      for (int32_t query = 0; query < n_queries; ++query) {
        const VisibleRange seen = VisiblePositions(c, QueryPosition(shape, query));
        const int64_t first = seen.first > block_start ? seen.first : block_start;
        const int64_t end = seen.end < block_start + kKeyBlock ? seen.end : block_start + kKeyBlock;
        if (first >= end) continue;
        for (int32_t g = 0; g < shape.group; g += static_cast<int32_t>(kGridRows)) {
          const int32_t left = shape.group - g;
          const size_t rows =
              left < static_cast<int32_t>(kGridRows) ? static_cast<size_t>(left) : kGridRows;
          AttendRecord<D, TE>(d, cache, shape, record, q, query, kv_head * shape.group + g, rows,
                              static_cast<size_t>(first - block_start),
                              static_cast<size_t>(end - block_start), block_start, out);
        }
      }
    }
  }

  const size_t lanes = hn::Lanes(d);
  for (size_t r = 0; r < n_rows; ++r) {
    const auto factor = hn::Set(d, FinalRowFactor(states[r]));
    float* row = out + r * shape.d_head;
    size_t i = 0;
    for (; i + lanes <= shape.d_head; i += lanes) {
      hn::StoreU(hn::Mul(hn::LoadU(d, row + i), factor), d, row + i);
    }
    for (; i < shape.d_head; ++i) row[i] *= hn::GetLane(factor);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // EDGEATTN_SRC_KV_CACHE_DECODE_ATTENTION_INL_H_
