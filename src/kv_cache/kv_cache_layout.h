// Where a position's keys and values live in a KV cache's records (the
// layout is described beside KvCacheArenaBytes in edgeattn/arena_sizes.hpp).
//
// Positions map to ring slots modulo the slot count, a whole number of
// blocks, so one block of positions is one record per KV head: a decode step
// walks the records of consecutive blocks, all heads of a block side by side.
#ifndef EDGEATTN_SRC_KV_CACHE_KV_CACHE_LAYOUT_H_
#define EDGEATTN_SRC_KV_CACHE_KV_CACHE_LAYOUT_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/kv_cache.h"

namespace edgeattn {

struct KvRecordView {
  void* keys;           // f32, f16: K^T panel [d_head][kKeyBlock]; int8, int4: channel quads
  void* values;         // f32, f16: rows [kKeyBlock][d_head]; int8, int4: key quads
  float* key_scales;    // int8, int4: [groups][kKeyBlock]; otherwise NULL
  float* value_scales;  // int8, int4: [groups][kKeyBlock]; otherwise NULL
};

// The record of position block `block` (position / kKeyBlock, not yet taken
// modulo the ring) and KV head `head`.
inline KvRecordView KvRecord(const ea_kv_cache& cache, int64_t block, int32_t head) {
  const ea_kv_cache_config& c = cache.config;
  const uint64_t ring_block = static_cast<uint64_t>(block) % KvBlocks(c.capacity);
  const uint64_t record_bytes = KvRecordBytes(c.d_head, c.storage);
  const uint64_t key_bytes = KvCodeBytes(KvKeyChannels(c.d_head, c.storage), c.storage);
  uint8_t* base = cache.records +
                  (ring_block * static_cast<uint64_t>(c.n_kv_heads) + static_cast<uint64_t>(head)) *
                      record_bytes;
  KvRecordView view{base, base + key_bytes, nullptr, nullptr};
  if (KvIsQuantized(c.storage)) {
    // In the order an attend reads them: keys, their scales, the values'
    // scales, the values.
    view.key_scales = static_cast<float*>(static_cast<void*>(base + key_bytes));
    view.value_scales = view.key_scales + KvScaleGroups(c.d_head, c.storage) * kKeyBlock;
    view.values = base + key_bytes + KvScaleBytes(c.d_head, c.storage);
  }
  return view;
}

// The channels of the int4 scale group that starts at channel c0 of a head of
// d: EA_KV_Q4_GROUP, or the rest for the last group.
inline size_t Int4GroupWidth(size_t d, size_t c0) {
  return d - c0 < EA_KV_Q4_GROUP ? d - c0 : EA_KV_Q4_GROUP;
}

// An int8 or int4 cache's query codes (KvQueryCodeBytes): int4's widened
// record (first: 64-byte aligned), then for each of `rows` attended rows
// (query-major, then head) its quads of codes widened to 4 bytes each (every
// row's quads 16-byte aligned; WidenQueryCodes), a scale, the sums of its
// codes per scale group and the codes as int8.
struct QueryCodesView {
  int8_t* widened_record;  // int4: keys [stride / 4][kKeyBlock][4], then values; else NULL
  float* wide_codes;       // row r at r * stride
  float* scales;
  int32_t* sums;  // row r, group g at r * groups + g
  int8_t* codes;  // row r at r * stride
  size_t stride;  // KvKeyChannels
  size_t groups;  // KvScaleGroups
};
inline QueryCodesView QueryCodesOf(const ea_kv_cache& cache) {
  const ea_kv_cache_config& c = cache.config;
  const size_t rows = static_cast<size_t>(c.max_queries) * static_cast<size_t>(c.n_heads);
  const size_t stride = static_cast<size_t>(KvKeyChannels(c.d_head, c.storage));
  const size_t groups = static_cast<size_t>(KvScaleGroups(c.d_head, c.storage));
  uint8_t* base = static_cast<uint8_t*>(cache.query_codes);
  int8_t* widened_record = nullptr;
  if (c.storage == EA_KV_STORAGE_Q4) {
    widened_record = static_cast<int8_t*>(cache.query_codes);
    base += kKeyBlock * (stride + static_cast<size_t>(c.d_head));
  }
  float* wide_codes = static_cast<float*>(static_cast<void*>(base));
  float* scales = wide_codes + rows * stride;
  int32_t* sums = static_cast<int32_t*>(static_cast<void*>(scales + rows));
  return QueryCodesView{widened_record,
                        wide_codes,
                        scales,
                        sums,
                        static_cast<int8_t*>(static_cast<void*>(sums + rows * groups)),
                        stride,
                        groups};
}

// Positions [first, end) that query position p sees.
struct VisibleRange {
  int64_t first;
  int64_t end;
};
inline VisibleRange VisiblePositions(const ea_kv_cache_config& c, int64_t p) {
  const int64_t first = c.window > 0 && p + 1 > c.window ? p + 1 - c.window : 0;
  return VisibleRange{first, p + 1};
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KV_CACHE_KV_CACHE_LAYOUT_H_
