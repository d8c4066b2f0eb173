// Fixed-point element values from a case's bytes, for the drivers that fill
// int8 / int16 tensors themselves (element-wise ops, RoPE): the bytes as
// they are, the dtype's extremes, small values or one constant.
#ifndef EDGEATTN_TESTS_FUZZ_INT_VALUES_H_
#define EDGEATTN_TESTS_FUZZ_INT_VALUES_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <vector>

namespace edgeattn_fuzz {

// Element i from the bytes (cyclic; none: 0) as int32, by mode % 4: the
// bytes; the dtype's extremes, one bit each; small (-4..3); a constant.
inline int32_t IntValueOf(const std::vector<uint8_t>& bytes, uint8_t mode, size_t i, bool int8) {
  const size_t size = bytes.size();
  auto byte = [&](size_t k) { return size > 0 ? bytes[k % size] : uint8_t{0}; };
  switch (mode % 4) {
    case 1: {
      const bool high = (byte(i / 8) >> (i % 8)) & 1;
      return int8 ? (high ? 127 : -128) : (high ? 32767 : -32768);
    }
    case 2:
      return static_cast<int8_t>(byte(i)) >> 5;
    case 3:
      i = 0;
      break;
    default:
      break;
  }
  if (int8) return static_cast<int8_t>(byte(i));
  return static_cast<int16_t>(byte(2 * i) | (byte(2 * i + 1) << 8));
}

// Writes a value of the dtype (1 or 2 bytes, any alignment).
inline void StoreInt(uint8_t* at, int32_t value, bool int8) {
  if (int8) {
    const int8_t v = static_cast<int8_t>(value);
    memcpy(at, &v, 1);
  } else {
    const int16_t v = static_cast<int16_t>(value);
    memcpy(at, &v, 2);
  }
}

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_INT_VALUES_H_
