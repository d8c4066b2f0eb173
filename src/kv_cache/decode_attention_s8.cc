// The decode kernel for int8 records (decode_attention-inl.h's pass, this
// file's record step): each attend first rounds its queries to int8 codes
// per row (QuantizeHeadS8, as append rounds keys), then every record step
// scores the codes against the key quads and adds the block's rounded
// probabilities times the value quads, both as integer dot products
// (int8_record_dots-inl.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kv_cache/decode_attention_s8.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#include "kv_cache/decode_attention-inl.h"
#include "kv_cache/int8_record_dots-inl.h"
#include "kv_cache/quantize_head.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {

// Every attended row's codes (zeros past d_head), scale and code sum.
inline void QuantizeQueries(const ea_kv_cache& cache, const float* q, int32_t n_queries,
                            const QueryCodesView& codes) {
  const size_t d = static_cast<size_t>(cache.config.d_head);
  const size_t rows = static_cast<size_t>(n_queries) * static_cast<size_t>(cache.config.n_heads);
  for (size_t r = 0; r < rows; ++r) {
    int8_t* row = codes.codes + r * codes.stride;
    codes.scales[r] = QuantizeHeadS8(q + r * d, d, row, 1);
    for (size_t c = d; c < codes.stride; ++c) row[c] = 0;
    int32_t sum = 0;
    for (size_t c = 0; c < codes.stride; ++c) sum += row[c];
    codes.sums[r] = sum;
    WidenQueryCodes(row, codes.stride, codes.wide_codes + r * codes.stride);
  }
}

// `rows` query heads from `head` of query `query` against keys [first, end)
// of one int8 record; block_start is the record's first position.
template <class DF>
HWY_INLINE void AttendRecordS8(DF df, const ea_kv_cache& cache, const DecodeShape& shape,
                               const QueryCodesView& codes, const KvRecordView& record,
                               int32_t query, int32_t head, size_t rows, size_t first, size_t end,
                               int64_t block_start, float* out) {
  const size_t first_row = static_cast<size_t>(query) * static_cast<size_t>(cache.config.n_heads) +
                           static_cast<size_t>(head);
  QueryRowsS8 q = {};
  for (size_t r = 0; r < rows; ++r) {
    q.codes[r] = codes.codes + (first_row + r) * codes.stride;
    q.wide_codes[r] = codes.wide_codes + (first_row + r) * codes.stride;
    q.sums[r] = codes.sums[first_row + r];
    q.factors[r] = cache.config.scale * codes.scales[first_row + r];
  }
  float* tile = cache.score_tile;
  ScoreRecordS8(df, q, rows, static_cast<const int8_t*>(record.keys), codes.stride / 4, end,
                record.key_scales, tile);
  float rescale[kGridRows];
  bool usable[kGridRows];
  SoftmaxStepOfRecord(df, cache, shape, query, head, rows, first, end, block_start, rescale,
                      usable);
  float steps[kGridRows];
  QuantizeWeightsS8(df, tile, rows, first, end, record.value_scales, usable, steps);

  WeightedQuadsS8 pv;
  pv.values = static_cast<const int8_t*>(record.values);
  pv.d = shape.d_head;
  pv.quad_begin = first / 4;
  pv.quad_end = (end + 3) / 4;
  pv.steps = steps;
  pv.rescale = rescale;
  pv.usable = usable;
  pv.out = out + first_row * shape.d_head;
  AccumulateRecordS8(df, tile, rows, pv);
}

void DecodeAttentionS8Target(const ea_kv_cache& cache, const float* q, int32_t n_queries,
                             bool causal, float* out) {
  const hn::ScalableTag<float> df;
  const DecodeShape shape = DecodeShapeOf(cache, n_queries, causal);
  const QueryCodesView codes = QueryCodesOf(cache);
  QuantizeQueries(cache, q, n_queries, codes);
  // SCALAR is the microcontrollers' target: no data cache to fill ahead.
  DecodeRecords(df, cache, shape, n_queries, out,
                /*prefetch_next_record=*/HWY_TARGET != HWY_SCALAR,
                [&](const KvRecordView& record, int32_t query, int32_t head, size_t rows,
                    size_t first, size_t end, int64_t block_start) {
                  AttendRecordS8(df, cache, shape, codes, record, query, head, rows, first, end,
                                 block_start, out);
                });
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "dispatch.h"
#include "kv_cache/kv_cache_kernels.h"

namespace edgeattn {

EA_EXPORT(DecodeAttentionS8Target);

void DecodeAttentionS8(const ea_kv_cache& cache, const float* q, int32_t n_queries, bool causal,
                       float* out) {
  EA_DISPATCH(DecodeAttentionS8Target)(cache, q, n_queries, causal, out);
}

}  // namespace edgeattn
#endif  // HWY_ONCE
