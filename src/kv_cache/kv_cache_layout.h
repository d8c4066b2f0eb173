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
  void* keys;           // K^T panel [d_head][kKeyBlock] of the storage's elements
  void* values;         // rows [kKeyBlock][d_head]
  float* key_scales;    // int8: [kKeyBlock]; otherwise NULL
  float* value_scales;  // int8: [kKeyBlock]; otherwise NULL
};

// The record of position block `block` (position / kKeyBlock, not yet taken
// modulo the ring) and KV head `head`.
inline KvRecordView KvRecord(const ea_kv_cache& cache, int64_t block, int32_t head) {
  const ea_kv_cache_config& c = cache.config;
  const uint64_t ring_block = static_cast<uint64_t>(block) % KvBlocks(c.capacity);
  const uint64_t record_bytes = KvRecordBytes(c.d_head, c.storage);
  const uint64_t half = static_cast<uint64_t>(kKeyBlock) * static_cast<uint64_t>(c.d_head) *
                        KvElementBytes(c.storage);
  uint8_t* base = cache.records +
                  (ring_block * static_cast<uint64_t>(c.n_kv_heads) + static_cast<uint64_t>(head)) *
                      record_bytes;
  KvRecordView view{base, base + half, nullptr, nullptr};
  if (c.storage == EA_KV_STORAGE_INT8) {
    view.key_scales = static_cast<float*>(static_cast<void*>(base + 2 * half));
    view.value_scales = view.key_scales + kKeyBlock;
  }
  return view;
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
