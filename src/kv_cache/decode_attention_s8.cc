// The decode kernel for int8 and int4 records (decode_attention-inl.h's
// pass, this file's record step): each attend first rounds its queries to
// int8 codes per row (QuantizeHeadS8, as append rounds keys), then every
// record step scores the codes against the key quads and adds the block's
// rounded probabilities times the value quads, both as integer dot products
// (int8_record_dots-inl.h). An int4 record is read packed on AVX3_DL
// (int4_dots_vnni-inl.h) and first widened to int8 codes elsewhere
// (int4_record_widen-inl.h), then taken group by group: each group of
// channels has its own scales, so its scores are summed into the block's
// and its weights rounded on their own. int4's records hold rotated keys
// and values (int4_rotation.h): the queries are rotated too, and the
// outputs rotated back. Single query heads take their softmax steps several
// KV heads at a time (deferred_steps-inl.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kv_cache/decode_attention_s8.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <hwy/highway.h>

#include "kernels/vector_tail-inl.h"
#include "kv_cache/decode_attention-inl.h"
#include "kv_cache/deferred_steps-inl.h"
#include "kv_cache/int4_record_widen-inl.h"
#include "kv_cache/int4_rotation.h"
#include "kv_cache/int8_record_dots-inl.h"
#include "kv_cache/quantize_head.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {

inline size_t Smaller(size_t a, size_t b) { return a < b ? a : b; }

// Every attended row's codes (zeros past d_head), scale and code sum per
// scale group. int4 rotates each group of the row (int4_rotation.h), in the
// row's wide codes until they are written, and the scale takes the
// rotation's gain.
inline void QuantizeQueries(const ea_kv_cache& cache, const float* q, int32_t n_queries,
                            const QueryCodesView& codes) {
  const size_t d = static_cast<size_t>(cache.config.d_head);
  const size_t rows = static_cast<size_t>(n_queries) * static_cast<size_t>(cache.config.n_heads);
  const bool rotated = cache.config.storage == EA_KV_STORAGE_Q4;
  for (size_t r = 0; r < rows; ++r) {
    int8_t* row = codes.codes + r * codes.stride;
    if (rotated) {
      float* values = codes.wide_codes + r * codes.stride;
      for (size_t c = 0; c < d; ++c) values[c] = q[r * d + c];
      RotateInt4Query(values, d);
      codes.scales[r] = QuantizeHeadS8(values, d, row, 1) * kInt4QueryGain;
    } else {
      codes.scales[r] = QuantizeHeadS8(q + r * d, d, row, 1);
    }
    for (size_t c = d; c < codes.stride; ++c) row[c] = 0;
    for (size_t g = 0; g < codes.groups; ++g) {
      const size_t end = codes.groups == 1 ? codes.stride : (g + 1) * EA_KV_Q4_GROUP;
      int32_t sum = 0;
      for (size_t c = g * EA_KV_Q4_GROUP; c < end && c < codes.stride; ++c) sum += row[c];
      codes.sums[r * codes.groups + g] = sum;
    }
    WidenQueryCodes(row, codes.stride, codes.wide_codes + r * codes.stride);
  }
}

// Where a record step reads the codes of each scale group: int8's record
// as stored (one group), int4's widened into the arena, or int4's packed
// record itself (EA_INT4_READS_PACKED).
struct CodeGroups {
  const int8_t* keys;    // key quads [channels / 4][kKeyBlock][4] (packed: in pairs)
  const int8_t* values;  // per group: key quads [kKeyBlock / 4][w][4] (packed: in pairs)
  size_t groups;
  size_t group_channels;  // channels of every group but the last (int8: KvKeyChannels)
  bool packed;            // int4 nibbles, two codes a byte
};

// Where this target reads `record`'s codes: int8's as stored; int4's packed
// (EA_INT4_READS_PACKED), or as widened into codes.widened_record.
inline CodeGroups CodeGroupsOf(const KvRecordView& record, const QueryCodesView& codes, bool int4) {
  if (!int4) {
    return CodeGroups{static_cast<const int8_t*>(record.keys),
                      static_cast<const int8_t*>(record.values), 1, codes.stride, false};
  }
  if (EA_INT4_READS_PACKED) {
    return CodeGroups{static_cast<const int8_t*>(record.keys),
                      static_cast<const int8_t*>(record.values), codes.groups, EA_KV_Q4_GROUP,
                      true};
  }
  return CodeGroups{codes.widened_record, codes.widened_record + codes.stride * kKeyBlock,
                    codes.groups, EA_KV_Q4_GROUP, false};
}

// The bytes of a record's keys or values before channel c0's group.
inline size_t GroupOffset(const CodeGroups& groups, size_t c0) {
  return groups.packed ? c0 * kKeyBlock / 2 : c0 * kKeyBlock;
}

// One scale group's scores and P V, by the kernels that read its codes.
template <class DF>
HWY_INLINE void ScoreGroup(DF df, const CodeGroups& groups, const QueryRowsS8& q, size_t rows,
                           size_t c0, size_t quads, size_t end, const float* key_scales,
                           float* tile) {
  const int8_t* keys = groups.keys + GroupOffset(groups, c0);
#if EA_INT4_READS_PACKED
  if (groups.packed) {
    return ScoreRecordS4Packed(q, rows, reinterpret_cast<const uint8_t*>(keys), quads, key_scales,
                               tile);
  }
#endif
  ScoreRecordS8(df, q, rows, keys, quads, end, key_scales, tile);
}
template <class DF>
HWY_INLINE void AccumulateGroup(DF df, const CodeGroups& groups, float* tile, size_t rows,
                                const WeightedQuadsS8& pv) {
#if EA_INT4_READS_PACKED
  if (groups.packed) return AccumulateRecordS4Packed(tile, rows, pv);
#endif
  (void)groups;
  AccumulateRecordS8(df, tile, rows, pv);
}

// Scale groups after the first score into tile columns [kGroupScores, +64)
// and are added to the block's scores; the probabilities are kept in
// columns [kKeptProbabilities, +64) for the groups after the first, since
// rounding a group's weights overwrites them.
inline constexpr size_t kGroupScores = 2 * kKeyBlock;
inline constexpr size_t kKeptProbabilities = 3 * kKeyBlock;
static_assert(kScoreTileKeys >= 4 * kKeyBlock, "the tile rows hold a group's scores and weights");

// scores[first, end) += a later group's scores[kGroupScores + first, + end).
template <class DF>
HWY_INLINE void AddGroupScores(DF df, float* scores, size_t first, size_t end) {
  const size_t lanes = hn::Lanes(df);
  size_t j = first;
  for (; j + lanes <= end; j += lanes) {
    const auto sum = hn::Add(hn::LoadU(df, scores + j), hn::LoadU(df, scores + kGroupScores + j));
    hn::StoreU(sum, df, scores + j);
  }
  if (j < end) {
    const size_t rest = end - j;
    const auto sum = hn::Add(LoadTail(df, scores + j, rest, 0.0f),
                             LoadTail(df, scores + kGroupScores + j, rest, 0.0f));
    StoreTail(df, sum, scores + j, rest);
  }
}

// The scaled scores of `rows` grid rows from first_row against keys [0, end)
// of one record, into tile[r][0, end).
template <class DF>
HWY_INLINE void ScoreRecordGroups(DF df, const ea_kv_cache& cache, const QueryCodesView& codes,
                                  const KvRecordView& record, const CodeGroups& groups,
                                  size_t first_row, size_t rows, size_t first, size_t end,
                                  float* tile) {
  const size_t quads = codes.stride / 4;
  for (size_t g = 0; g < groups.groups; ++g) {
    const size_t c0 = g * groups.group_channels;
    QueryRowsS8 q = {};
    for (size_t r = 0; r < rows; ++r) {
      q.codes[r] = codes.codes + (first_row + r) * codes.stride + c0;
      q.wide_codes[r] = WideCodesFrom(codes.wide_codes + (first_row + r) * codes.stride, c0);
      q.sums[r] = codes.sums[(first_row + r) * codes.groups + g];
      q.factors[r] = cache.config.scale * codes.scales[first_row + r];
    }
    ScoreGroup(df, groups, q, rows, c0, Smaller(quads - c0 / 4, groups.group_channels / 4), end,
               record.key_scales + g * kKeyBlock, g == 0 ? tile : tile + kGroupScores);
    for (size_t r = 0; g > 0 && r < rows; ++r) {
      AddGroupScores(df, tile + r * kScoreTileKeys, first, end);
    }
  }
}

// After the softmax step: rounds the probabilities tile[r][first, end) of
// each scale group to weight codes and adds them times the group's values to
// the output rows.
template <class DF>
HWY_INLINE void WeighRecordGroups(DF df, const DecodeShape& shape, const KvRecordView& record,
                                  const CodeGroups& groups, size_t first_row, size_t rows,
                                  size_t first, size_t end, const float* rescale,
                                  const bool* usable, float* tile, float* out) {
  for (size_t g = 0; g < groups.groups; ++g) {
    const size_t c0 = g * groups.group_channels;
    for (size_t r = 0; groups.groups > 1 && r < rows; ++r) {
      float* probabilities = tile + r * kScoreTileKeys + first;
      float* kept = probabilities + kKeptProbabilities;
      const size_t bytes = (end - first) * sizeof(float);
      if (g == 0) {
        memcpy(kept, probabilities, bytes);
      } else {
        memcpy(probabilities, kept, bytes);
      }
    }
    float steps[kGridRows];
    QuantizeWeightsS8(df, tile, rows, first, end, record.value_scales + g * kKeyBlock, usable,
                      steps);
    WeightedQuadsS8 pv;
    pv.values = groups.values + GroupOffset(groups, c0);
    pv.d = Smaller(shape.d_head - c0, groups.group_channels);
    pv.quad_begin = first / 4;
    pv.quad_end = (end + 3) / 4;
    pv.steps = steps;
    pv.rescale = rescale;
    pv.usable = usable;
    pv.out = out + first_row * shape.d_head + c0;
    pv.out_stride = shape.d_head;
    AccumulateGroup(df, groups, tile, rows, pv);
  }
}

// `rows` query heads from `head` of query `query` against keys [first, end)
// of one int8 record; block_start is the record's first position.
template <class DF>
HWY_INLINE void AttendRecordS8(DF df, const ea_kv_cache& cache, const DecodeShape& shape,
                               const QueryCodesView& codes, const KvRecordView& record,
                               const CodeGroups& groups, int32_t query, int32_t head, size_t rows,
                               size_t first, size_t end, int64_t block_start, float* out) {
  const size_t first_row = FirstRow(cache, query, head);
  ScoreRecordGroups(df, cache, codes, record, groups, first_row, rows, first, end,
                    cache.score_tile);
  float rescale[kGridRows];
  bool usable[kGridRows];
  SoftmaxStepOfRecord(df, cache, shape, query, head, rows, first, end, block_start, rescale,
                      usable);
  WeighRecordGroups(df, shape, record, groups, first_row, rows, first, end, rescale, usable,
                    cache.score_tile, out);
}

void DecodeAttentionS8Target(const ea_kv_cache& cache, const float* q, int32_t n_queries,
                             bool causal, float* out) {
  const hn::ScalableTag<float> df;
  const DecodeShape shape = DecodeShapeOf(cache, n_queries, causal);
  const QueryCodesView codes = QueryCodesOf(cache);
  QuantizeQueries(cache, q, n_queries, codes);
  const bool int4 = cache.config.storage == EA_KV_STORAGE_Q4;
  const size_t d = shape.d_head;
  const void* widened_keys = nullptr;  // the int4 record now in codes.widened_record
  // A widened int4 record is gone once the next one is widened: its steps
  // cannot wait.
  const bool defer = !int4 || EA_INT4_READS_PACKED;
  DeferredSteps<CodeGroups> pending;
  const auto weigh = [&](const DeferredSteps<CodeGroups>::Step& step, float* slot, float rescale,
                         bool usable) {
    WeighRecordGroups(df, shape, step.record, step.extra, FirstRow(cache, step.query, step.head), 1,
                      0, kKeyBlock, &rescale, &usable, slot, out);
  };
  DecodeRecords(
      df, cache, shape, n_queries, out,
      [&](const KvRecordView& record, int32_t query, int32_t head, size_t rows, size_t first,
          size_t end, int64_t block_start) {
        if (int4 && !EA_INT4_READS_PACKED && widened_keys != record.keys) {
          WidenRecordS4(static_cast<const uint8_t*>(record.keys),
                        static_cast<const uint8_t*>(record.values), codes.stride, d,
                        codes.widened_record);
          widened_keys = record.keys;
        }
        const CodeGroups groups = CodeGroupsOf(record, codes, int4);
        // One scale group: a step of several rounds each group's weights in
        // tile columns a slot does not have.
        if (defer && groups.groups == 1 && IsWholeBlockRow(rows, first, end)) {
          ScoreRecordGroups(df, cache, codes, record, groups, FirstRow(cache, query, head), 1,
                            first, end, pending.NextSlot(cache));
          if (pending.Add(record, groups, query, head, block_start)) {
            TakeDeferredSteps(df, cache, shape, pending, weigh);
          }
          return;
        }
        TakeDeferredSteps(df, cache, shape, pending, weigh);  // the tile is this step's
        AttendRecordS8(df, cache, shape, codes, record, groups, query, head, rows, first, end,
                       block_start, out);
      },
      [&] { TakeDeferredSteps(df, cache, shape, pending, weigh); });
  for (size_t r = 0; int4 && r < static_cast<size_t>(n_queries) * cache.config.n_heads; ++r) {
    RotateInt4Output(out + r * d, d);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kv_cache/kv_cache_kernels.h"
#include "runtime/dispatch.h"

namespace edgeattn {

EA_EXPORT(DecodeAttentionS8Target);

void DecodeAttentionS8(const ea_kv_cache& cache, const float* q, int32_t n_queries, bool causal,
                       float* out) {
  EA_DISPATCH(DecodeAttentionS8Target)(cache, q, n_queries, causal, out);
}

}  // namespace edgeattn
#endif  // HWY_ONCE
