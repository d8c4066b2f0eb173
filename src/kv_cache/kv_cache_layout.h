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
  void* keys;           // f32, f16: K^T panel [d_head][kKeyBlock]; int8: channel quads
  void* values;         // f32, f16: rows [kKeyBlock][d_head]; int8: key quads
  float* key_scales;    // int8: [kKeyBlock]; otherwise NULL
  float* value_scales;  // int8: [kKeyBlock]; otherwise NULL
};

// The record of position block `block` (position / kKeyBlock, not yet taken
// modulo the ring) and KV head `head`.
inline KvRecordView KvRecord(const ea_kv_cache& cache, int64_t block, int32_t head) {
  const ea_kv_cache_config& c = cache.config;
  const uint64_t ring_block = static_cast<uint64_t>(block) % KvBlocks(c.capacity);
  const uint64_t record_bytes = KvRecordBytes(c.d_head, c.storage);
  const uint64_t element = KvElementBytes(c.storage);
  const uint64_t key_bytes =
      static_cast<uint64_t>(kKeyBlock) * KvKeyChannels(c.d_head, c.storage) * element;
  uint8_t* base = cache.records +
                  (ring_block * static_cast<uint64_t>(c.n_kv_heads) + static_cast<uint64_t>(head)) *
                      record_bytes;
  KvRecordView view{base, base + key_bytes, nullptr, nullptr};
  if (c.storage == EA_KV_STORAGE_INT8) {
    // In the order an attend reads them: keys, their scales, the values'
    // scales, the values.
    view.key_scales = static_cast<float*>(static_cast<void*>(base + key_bytes));
    view.value_scales = view.key_scales + kKeyBlock;
    view.values = base + key_bytes + KvScaleBytes(c.storage);
  }
  return view;
}

// An int8 cache's query codes (KvQueryCodeBytes): for each of `rows`
// attended rows (query-major, then head) ceil(d_head / 4) quads of codes
// widened to 4 bytes each (first, so that every row's quads are 16-byte
// aligned; WidenQueryCodes), a scale, a sum of its codes and the codes as
// int8.
struct QueryCodesView {
  float* wide_codes;  // row r at r * stride
  float* scales;
  int32_t* sums;
  int8_t* codes;  // row r at r * stride
  size_t stride;  // KvKeyChannels
};
inline QueryCodesView QueryCodesOf(const ea_kv_cache& cache) {
  const ea_kv_cache_config& c = cache.config;
  const size_t rows = static_cast<size_t>(c.max_queries) * static_cast<size_t>(c.n_heads);
  const size_t stride = static_cast<size_t>(KvKeyChannels(c.d_head, c.storage));
  float* wide_codes = static_cast<float*>(cache.query_codes);
  float* scales = wide_codes + rows * stride;
  int32_t* sums = static_cast<int32_t*>(static_cast<void*>(scales + rows));
  return QueryCodesView{wide_codes, scales, sums,
                        static_cast<int8_t*>(static_cast<void*>(sums + rows)), stride};
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
