// An int4 record widened to int8's layout (arena_sizes.hpp), so that int8's
// integer kernels read it: each nibble n becomes the code n - 8, the low
// nibbles of a packed row giving one row of quads and the high nibbles the
// next. The attend widens each record once, into the arena
// (QueryCodesView::widened_record), in L1 while its grid rows read it: the
// cache's bytes crossing the memory bus stay a half of int8's.

#if defined(EDGEATTN_SRC_KV_CACHE_INT4_RECORD_WIDEN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KV_CACHE_INT4_RECORD_WIDEN_INL_H_
#undef EDGEATTN_SRC_KV_CACHE_INT4_RECORD_WIDEN_INL_H_
#else
#define EDGEATTN_SRC_KV_CACHE_INT4_RECORD_WIDEN_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/kv_cache.h"
#include "kv_cache/kv_cache_layout.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// low[i] = (packed[i] & 15) - 8 and high[i] = (packed[i] >> 4) - 8, i < bytes.
HWY_INLINE void WidenNibbles(const uint8_t* packed, size_t bytes, int8_t* low, int8_t* high) {
  const hn::ScalableTag<uint8_t> du;
  const hn::RebindToSigned<decltype(du)> di;
  const size_t lanes = hn::Lanes(du);
  const auto mask = hn::Set(du, 0x0F);
  const auto eight = hn::Set(di, 8);
  size_t i = 0;
  for (; i + lanes <= bytes; i += lanes) {
    const auto v = hn::LoadU(du, packed + i);
    hn::StoreU(hn::Sub(hn::BitCast(di, hn::And(v, mask)), eight), di, low + i);
    hn::StoreU(hn::Sub(hn::BitCast(di, hn::ShiftRight<4>(v)), eight), di, high + i);
  }
  for (; i < bytes; ++i) {
    low[i] = static_cast<int8_t>((packed[i] & 15) - 8);
    high[i] = static_cast<int8_t>((packed[i] >> 4) - 8);
  }
}

// The record's keys as int8's key quads [channels / 4][kKeyBlock][4], then
// its values group by group, each group's key quads [kKeyBlock / 4][w][4].
inline void WidenRecordS4(const uint8_t* keys, const uint8_t* values, size_t channels, size_t d,
                          int8_t* widened) {
  constexpr size_t kQuadRow = kKeyBlock * 4;
  for (size_t pair = 0; pair < channels / 8; ++pair) {
    WidenNibbles(keys + pair * kQuadRow, kQuadRow, widened + 2 * pair * kQuadRow,
                 widened + (2 * pair + 1) * kQuadRow);
  }
  int8_t* widened_values = widened + channels * kKeyBlock;
  for (size_t c0 = 0; c0 < d; c0 += EA_KV_Q4_GROUP) {
    const size_t width = Int4GroupWidth(d, c0);
    const uint8_t* group = values + c0 * kKeyBlock / 2;
    int8_t* out = widened_values + c0 * kKeyBlock;
    for (size_t pair = 0; pair < kKeyBlock / 8; ++pair) {
      WidenNibbles(group + pair * width * 4, width * 4, out + 2 * pair * width * 4,
                   out + (2 * pair + 1) * width * 4);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // EDGEATTN_SRC_KV_CACHE_INT4_RECORD_WIDEN_INL_H_
