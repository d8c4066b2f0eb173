// Append: each new token's keys and values go to their records once, in the
// layout the decode kernel streams (keys into a column of the K^T panel,
// values into a row), converted to the cache's storage.
//
// Scalar on purpose: an append writes n_kv_heads * d_head * 2 values per
// token, against the whole cache a decode step reads, and scalar integer
// rounding gives the same bytes on every target (half_float.h, RoundToEven).
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "edgeattn/arena_sizes.hpp"
#include "kv_cache/half_float.h"
#include "kv_cache/kv_cache_kernels.h"
#include "kv_cache/kv_cache_layout.h"

namespace edgeattn {
namespace {

// NaN or +-inf, by the exponent bits (no float flag can fold this away).
bool IsNonFinite(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  return (bits & 0x7F800000u) == 0x7F800000u;
}

// Nearest integer, ties to even, for |value| < 2^23: truncation and the
// exact remainder, independent of the FPU's rounding mode. Selections, not
// branches: the remainder's sign and size are random, and mispredicted
// branches here made int8 appends most of a short decode step.
int32_t RoundToEven(float value) {
  const int32_t whole = static_cast<int32_t>(value);
  const float fraction = value - static_cast<float>(whole);
  const int32_t odd = whole & 1;
  const int32_t up =
      static_cast<int32_t>(fraction > 0.5f) | (static_cast<int32_t>(fraction == 0.5f) & odd);
  const int32_t down =
      static_cast<int32_t>(fraction < -0.5f) | (static_cast<int32_t>(fraction == -0.5f) & odd);
  return whole + up - down;
}

// One head's d values as int8 with a per-token scale max|x| / 127.
float QuantizeHead(const float* x, size_t d, int8_t* q, size_t stride) {
  float largest = 0.0f;
  bool non_finite = false;
  for (size_t c = 0; c < d; ++c) {
    non_finite |= IsNonFinite(x[c]);
    const float magnitude = x[c] < 0.0f ? -x[c] : x[c];
    largest = magnitude > largest ? magnitude : largest;
  }
  // A scale that underflows (denormal heads) stores the head as zeros.
  const float scale = largest / 127.0f;
  if (non_finite || !(scale > 0.0f)) {
    for (size_t c = 0; c < d; ++c) q[c * stride] = 0;
    uint32_t nan_bits = 0x7FC00000u;
    float nan;
    memcpy(&nan, &nan_bits, sizeof(nan));
    return non_finite ? nan : 0.0f;
  }
  for (size_t c = 0; c < d; ++c) {
    int32_t value = RoundToEven(x[c] / scale);
    value = value > 127 ? 127 : value < -127 ? -127 : value;
    q[c * stride] = static_cast<int8_t>(value);
  }
  return scale;
}

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
      uint8_t* key_column = static_cast<uint8_t*>(record.keys) + slot * element;  // K^T column
      uint8_t* value_row = static_cast<uint8_t*>(record.values) + slot * d * element;
      if (c.storage == EA_KV_STORAGE_INT8) {
        record.key_scales[slot] = QuantizeHead(
            k_head, d, static_cast<int8_t*>(static_cast<void*>(key_column)), kKeyBlock);
        record.value_scales[slot] =
            QuantizeHead(v_head, d, static_cast<int8_t*>(static_cast<void*>(value_row)), 1);
      } else {
        StoreHead(c.storage, k_head, d, key_column, kKeyBlock);
        StoreHead(c.storage, v_head, d, value_row, 1);
      }
    }
  }
}

}  // namespace edgeattn
