// The decode kernel, for every storage: the queries of the newest tokens against a KV cache, in
// one pass over the cache.
//
// The records are visited in position order, block by block, all KV heads of
// a block side by side (kv_cache_layout.h), so the cache is read as a single
// stream that hardware prefetchers follow. For each record, every query that
// sees part of the block takes one online-softmax step there
// (kernels/f32/online_softmax-inl.h): scores S = scale q K^T from the record's K^T panel
// (kernels/f32/score_tile-inl.h), then O = O * rescale + P V from its value rows
// (kernels/f32/weighted_values-inl.h). The query heads of a GQA group share a record: they
// are the rows of one register grid, so the group reads its keys and values
// once. f16 records are widened to float as the grid loads them
// (kernels/f32/grid_operand_loads-inl.h); int8 records are read by integer dot products
// instead (decode_attention_s8.cc, int8_record_dots-inl.h), on the same pass
// (DecodeRecords) and the same softmax step. The output rows are the
// accumulators, normalised once at the end.
//
// Each storage is compiled in a file of its own
// (decode_attention_{f32,f16,s8}.cc), so that a build compiles the three side
// by side.

#if defined(EDGEATTN_SRC_KV_CACHE_DECODE_ATTENTION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KV_CACHE_DECODE_ATTENTION_INL_H_
#undef EDGEATTN_SRC_KV_CACHE_DECODE_ATTENTION_INL_H_
#else
#define EDGEATTN_SRC_KV_CACHE_DECODE_ATTENTION_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/kv_cache.h"
#include "kernels/f32/online_softmax-inl.h"
#include "kernels/f32/register_grid-inl.h"
#include "kernels/f32/score_tile-inl.h"
#include "kernels/f32/weighted_values-inl.h"
#include "kv_cache/kv_cache_layout.h"

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

// The row of query `query`, head `head` in the row states and (times d_head)
// the output rows.
inline size_t FirstRow(const ea_kv_cache& cache, int32_t query, int32_t head) {
  return static_cast<size_t>(query) * static_cast<size_t>(cache.config.n_heads) +
         static_cast<size_t>(head);
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

// The online-softmax step of `rows` query heads from `head` of query `query`
// over the scaled scores tile[r][first, end) of one record, ALiBi added
// first: the scores become probabilities, rescale[r] gets the factor for the
// output rows and usable[r] whether row r takes this step; returns whether
// every row does.
template <class D>
HWY_INLINE bool SoftmaxStepOfRecord(D d, const ea_kv_cache& cache, const DecodeShape& shape,
                                    int32_t query, int32_t head, size_t rows, size_t first,
                                    size_t end, int64_t block_start, float* rescale, bool* usable) {
  float* tile = cache.score_tile;
  if (cache.config.alibi_slopes != nullptr) {
    AddLinearBiases(tile, rows, first, end, cache.config.alibi_slopes + head,
                    block_start - QueryPosition(shape, query));
  }
  RowState* states = static_cast<RowState*>(cache.row_states) + FirstRow(cache, query, head);
  size_t counts[kGridRows];
  for (size_t r = 0; r < rows; ++r) counts[r] = end - first;
  OnlineSoftmaxRows(d, tile + first, kScoreTileKeys, rows, counts, states, rescale, usable);
  bool all_usable = true;
  for (size_t r = 0; r < rows; ++r) all_usable = all_usable && usable[r];
  return all_usable;
}

// `rows` query heads from `head` of query `query` against keys [first, end)
// of one float record (f32 or f16); block_start is the record's first
// position.
template <class D, class TE>
HWY_INLINE void AttendRecord(D d, const ea_kv_cache& cache, const DecodeShape& shape,
                             const KvRecordView& record, const float* q, int32_t query,
                             int32_t head, size_t rows, size_t first, size_t end,
                             int64_t block_start, float* out) {
  float* tile = cache.score_tile;
  const size_t row_offset = FirstRow(cache, query, head) * shape.d_head;
  const TE* keys = static_cast<const TE*>(record.keys);
  ScoreBlock(d, q + row_offset, shape.d_head, rows, keys, static_cast<int32_t>(shape.d_head), 0,
             end, cache.config.scale, tile);
  float rescale[kGridRows];
  bool usable[kGridRows];
  const bool all_usable = SoftmaxStepOfRecord(d, cache, shape, query, head, rows, first, end,
                                              block_start, rescale, usable);

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

inline DecodeShape DecodeShapeOf(const ea_kv_cache& cache, int32_t n_queries, bool causal) {
  const ea_kv_cache_config& c = cache.config;
  DecodeShape shape;
  shape.d_head = static_cast<size_t>(c.d_head);
  shape.ld = static_cast<size_t>(c.n_heads) * shape.d_head;
  shape.group = c.n_heads / c.n_kv_heads;
  shape.first_query_position = causal ? cache.length - n_queries : cache.length - 1;
  shape.causal = causal;
  return shape;
}

// Asks for every cache line of `record` as its step begins, so that the
// lines arrive side by side while the step works through the first ones;
// the hardware prefetchers alone, which follow a stream line by line, left
// a DRAM-sized cache at about half the probe's bandwidth (Zen 5, L = 32768,
// 8 KV heads of 64, best of interleaved runs: int8 1816 to 969 us a token,
// f16 3350 to 2276, f32 4777 to 4412). Asking for the next record instead
// was slower by 5-15 % (f32 and f16 15-25 %).
//
// Always inlined: GCC 12 took an out-of-line function whose only effect is
// prefetches for one without side effects, and deleted its calls.
HWY_INLINE void PrefetchRecord(const KvRecordView& record, uint64_t record_bytes) {
  const uint8_t* first = static_cast<const uint8_t*>(record.keys);
  for (uint64_t line = 0; line < record_bytes; line += 64) hwy::Prefetch(first + line);
}

// Whether the pass prefetches its records: from a records region of 8 MiB
// on, past the L2 of every core and a large share of most L3s. Below it the
// prefetches cost and gained nothing (Zen 5: f32 at L = 512, 2 MiB, in L2,
// 7 % slower; int8 at L = 4096, 4.25 MiB, in L3, 5 % slower). Never on
// SCALAR, the microcontrollers' target: no data cache to fill ahead.
inline constexpr uint64_t kPrefetchedRegionBytes = uint64_t{8} << 20;
inline bool PrefetchesRecords(const ea_kv_cache& cache) {
  const ea_kv_cache_config& c = cache.config;
  return HWY_TARGET != HWY_SCALAR &&
         KvRecordsBytes(c.capacity, c.n_kv_heads, c.d_head, c.storage) >= kPrefetchedRegionBytes;
}

// The pass over the cache that every storage shares: out and the row states
// start at zero, attend_record(record, query, head, rows, first, end,
// block_start) takes each record's step for up to kGridRows query heads of a
// GQA group, finish_block() follows each block's records (a storage that
// defers steps takes them there), and the output rows are normalised once at
// the end.
//
template <class D, class AttendRecordFn, class FinishBlockFn>
HWY_INLINE void DecodeRecords(D d, const ea_kv_cache& cache, const DecodeShape& shape,
                              int32_t n_queries, float* out, const AttendRecordFn& attend_record,
                              const FinishBlockFn& finish_block) {
  const ea_kv_cache_config& c = cache.config;
  const size_t out_floats = static_cast<size_t>(n_queries) * shape.ld;
  for (size_t i = 0; i < out_floats; ++i) out[i] = 0.0f;
  RowState* states = static_cast<RowState*>(cache.row_states);
  const size_t n_rows = static_cast<size_t>(n_queries) * static_cast<size_t>(c.n_heads);
  for (size_t r = 0; r < n_rows; ++r) states[r] = InitialRowState();

  const bool prefetch = PrefetchesRecords(cache);
  const uint64_t record_bytes = KvRecordBytes(c.d_head, c.storage);
  const int64_t first_position = VisiblePositions(c, shape.first_query_position).first;
  for (int64_t block = first_position / kKeyBlock; block * kKeyBlock < cache.length; ++block) {
    const int64_t block_start = block * kKeyBlock;
    for (int32_t kv_head = 0; kv_head < c.n_kv_heads; ++kv_head) {
      const KvRecordView record = KvRecord(cache, block, kv_head);
      if (prefetch) PrefetchRecord(record, record_bytes);
      for (int32_t query = 0; query < n_queries; ++query) {
        const VisibleRange seen = VisiblePositions(c, QueryPosition(shape, query));
        const int64_t first = seen.first > block_start ? seen.first : block_start;
        const int64_t end = seen.end < block_start + kKeyBlock ? seen.end : block_start + kKeyBlock;
        if (first >= end) continue;
        for (int32_t g = 0; g < shape.group; g += static_cast<int32_t>(kGridRows)) {
          const int32_t left = shape.group - g;
          const size_t rows =
              left < static_cast<int32_t>(kGridRows) ? static_cast<size_t>(left) : kGridRows;
          attend_record(record, query, kv_head * shape.group + g, rows,
                        static_cast<size_t>(first - block_start),
                        static_cast<size_t>(end - block_start), block_start);
        }
      }
    }
    finish_block();
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

// The decode of a float storage (f32, f16): the grid widens its elements.
template <class D, class TE>
HWY_INLINE void DecodeWithStorage(D d, const ea_kv_cache& cache, const float* q, int32_t n_queries,
                                  bool causal, float* out) {
  const DecodeShape shape = DecodeShapeOf(cache, n_queries, causal);
  DecodeRecords(
      d, cache, shape, n_queries, out,
      [&](const KvRecordView& record, int32_t query, int32_t head, size_t rows, size_t first,
          size_t end, int64_t block_start) {
        AttendRecord<D, TE>(d, cache, shape, record, q, query, head, rows, first, end, block_start,
                            out);
      },
      [] {});
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // EDGEATTN_SRC_KV_CACHE_DECODE_ATTENTION_INL_H_
