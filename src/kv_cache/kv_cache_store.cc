// Append: each new token's keys and values go to their records once, in the
// layout the decode kernel streams (float storage: keys into a column of the
// K^T panel, values into a row; int8, int4: into the quads of arena_sizes.hpp),
// converted to the cache's storage.
//
// f16 conversion is scalar integer code (half_float.h), int4's rotation
// scalar float code, int8 and int4 quantization a per-target kernel
// (quantize_head.cc); all give the same bytes on every target.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "edgeattn/arena_sizes.hpp"
#include "kv_cache/half_float.h"
#include "kv_cache/int4_rotation.h"
#include "kv_cache/kv_cache_kernels.h"
#include "kv_cache/kv_cache_layout.h"
#include "kv_cache/quantize_head.h"

namespace edgeattn {
namespace {

// One head's d values in the storage's elements, element c at c * stride.
void StoreHead(ea_kv_storage storage, const float* x, size_t d, void* out, size_t stride) {
  if (storage == EA_KV_STORAGE_F16) {
    uint16_t* half = static_cast<uint16_t*>(out);
    for (size_t c = 0; c < d; ++c) half[c * stride] = HalfFromFloat(x[c]);
  } else {
    float* f = static_cast<float*>(out);
    for (size_t c = 0; c < d; ++c) f[c * stride] = x[c];
  }
}

// int8: the head's key codes, quantized into `staging` (at least
// KvKeyChannels bytes), go to the key slot of every channel quad, zeros past
// d; the value codes go straight to the slot's lane of every key quad.
void StoreHeadsS8(const KvRecordView& record, size_t slot, const float* k_head, const float* v_head,
                  size_t d, int8_t* staging) {
  const size_t channels =
      static_cast<size_t>(KvKeyChannels(static_cast<int32_t>(d), EA_KV_STORAGE_Q8));
  record.key_scales[slot] = QuantizeHeadS8(k_head, d, staging, 1);
  for (size_t c = d; c < channels; ++c) staging[c] = 0;
  int8_t* keys = static_cast<int8_t*>(record.keys) + slot * 4;
  for (size_t quad = 0; quad < channels / 4; ++quad) {
    memcpy(keys + quad * kKeyBlock * 4, staging + quad * 4, 4);
  }
  int8_t* values = static_cast<int8_t*>(record.values) + (slot / 4) * d * 4 + slot % 4;
  record.value_scales[slot] = QuantizeHeadS8(v_head, d, values, 4);
}

// Channels [c0, c0 + width) of a key or value head, one int4 group, after
// its Hadamard rotation (int4_rotation.h) rounded into codes[0, width);
// returns the group's scale.
float QuantizeRotatedGroupS4(const float* head, size_t c0, size_t width, int8_t* codes) {
  float rotated[EA_KV_Q4_GROUP];
  memcpy(rotated, head + c0, width * sizeof(float));
  RotateInt4Stored(rotated, width);
  return QuantizeHeadS4(rotated, width, codes, 1);
}

// int4: one group of channels at a time, rounded into `staging` (at least
// KvKeyChannels bytes) with its own scale (QuantizeRotatedGroupS4). The key
// codes of channel quads 2i and 2i + 1 are the low and high nibbles of the
// slot's word in row i; a value code replaces one nibble of its byte, the
// other belonging to the slot four positions away.
void StoreHeadsS4(const KvRecordView& record, size_t slot, const float* k_head, const float* v_head,
                  size_t d, int8_t* staging) {
  const size_t channels =
      static_cast<size_t>(KvKeyChannels(static_cast<int32_t>(d), EA_KV_STORAGE_Q4));
  for (size_t c0 = 0, g = 0; c0 < d; c0 += EA_KV_Q4_GROUP, ++g) {
    record.key_scales[g * kKeyBlock + slot] =
        QuantizeRotatedGroupS4(k_head, c0, Int4GroupWidth(d, c0), staging + c0);
  }
  for (size_t c = d; c < channels; ++c) staging[c] = 0;
  uint8_t* keys = static_cast<uint8_t*>(record.keys) + slot * 4;
  for (size_t pair = 0; pair < channels / 8; ++pair) {
    for (size_t lane = 0; lane < 4; ++lane) {
      const int low = staging[pair * 8 + lane] + 8;
      const int high = staging[pair * 8 + 4 + lane] + 8;
      keys[pair * kKeyBlock * 4 + lane] = static_cast<uint8_t>(low | high << 4);
    }
  }
  const size_t shift = (slot / 4) % 2 * 4;
  const uint8_t kept = static_cast<uint8_t>(0xF0u >> shift);
  for (size_t c0 = 0, g = 0; c0 < d; c0 += EA_KV_Q4_GROUP, ++g) {
    const size_t width = Int4GroupWidth(d, c0);
    record.value_scales[g * kKeyBlock + slot] = QuantizeRotatedGroupS4(v_head, c0, width, staging);
    uint8_t* values = static_cast<uint8_t*>(record.values) + c0 * kKeyBlock / 2 +
                      (slot / 8) * width * 4 + slot % 4;
    for (size_t c = 0; c < width; ++c) {
      const unsigned code = static_cast<unsigned>(staging[c] + 8) << shift;
      values[c * 4] = static_cast<uint8_t>((values[c * 4] & kept) | code);
    }
  }
}

}  // namespace

void StoreKvTokens(const ea_kv_cache& cache, const float* k, const float* v, int32_t n_tokens) {
  const ea_kv_cache_config& c = cache.config;
  const size_t d = static_cast<size_t>(c.d_head);
  const size_t ld = static_cast<size_t>(c.n_kv_heads) * d;
  const size_t element = static_cast<size_t>(KvElementBytes(c.storage));
  for (int32_t t = 0; t < n_tokens; ++t) {
    const int64_t position = cache.length + t;
    const size_t slot = static_cast<size_t>(position % kKeyBlock);
    for (int32_t head = 0; head < c.n_kv_heads; ++head) {
      const KvRecordView record = KvRecord(cache, position / kKeyBlock, head);
      const float* k_head = k + static_cast<size_t>(t) * ld + static_cast<size_t>(head) * d;
      const float* v_head = v + static_cast<size_t>(t) * ld + static_cast<size_t>(head) * d;
      if (c.storage == EA_KV_STORAGE_Q8) {
        StoreHeadsS8(record, slot, k_head, v_head, d, QueryCodesOf(cache).codes);
        continue;
      }
      if (c.storage == EA_KV_STORAGE_Q4) {
        StoreHeadsS4(record, slot, k_head, v_head, d, QueryCodesOf(cache).codes);
        continue;
      }
      uint8_t* key_column = static_cast<uint8_t*>(record.keys) + slot * element;  // K^T column
      uint8_t* value_row = static_cast<uint8_t*>(record.values) + slot * d * element;
      StoreHead(c.storage, k_head, d, key_column, kKeyBlock);
      StoreHead(c.storage, v_head, d, value_row, 1);
    }
  }
}

}  // namespace edgeattn
