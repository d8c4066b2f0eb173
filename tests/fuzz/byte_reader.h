// The fuzzer's input format: a stream of small, self-delimiting fields.
//
// libFuzzer mutates bytes; a fuzz case is decoded field by field, each field
// a byte that picks a class (a small value, an interesting edge, a raw
// 32-bit value) followed by that class's payload. Flipping one byte then
// changes one dimension or one tensor, not the whole case, so mutations stay
// meaningful. Past the end every read yields zero bytes: any input, even an
// empty one, decodes to a valid case.
//
// ByteWriter is the exact inverse, used by make_seeds.cc: the case layouts
// are written once as `template <class Io> Visit(Io&, Case&)`, so seeds can
// never drift from what the fuzzer decodes.
#ifndef EDGEATTN_TESTS_FUZZ_BYTE_READER_H_
#define EDGEATTN_TESTS_FUZZ_BYTE_READER_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <vector>

namespace edgeattn_fuzz {

// Dimensions a validator must handle: zero, negative, the element limit
// (2^28) and its neighbours, int32 extremes, values whose products or
// round-ups to 64 overflow 32 bits.
inline constexpr int32_t kEdgeDims[] = {0,
                                        -1,
                                        -64,
                                        INT32_MIN,
                                        INT32_MAX,
                                        INT32_MAX - 1,
                                        1 << 28,
                                        (1 << 28) + 1,
                                        (1 << 28) - 1,
                                        1 << 27,
                                        1 << 14,
                                        (1 << 14) + 1,
                                        46341,  // its square passes INT32_MAX
                                        65536,
                                        1 << 20,
                                        1 << 24,
                                        0x7FFFFFC1,  // rounds up past INT32_MAX
                                        -(1 << 28),
                                        16,
                                        17,
                                        63,
                                        64,
                                        65,
                                        128,
                                        129,
                                        255,
                                        1000};
inline constexpr size_t kEdgeDimCount = sizeof(kEdgeDims) / sizeof(kEdgeDims[0]);

// Byte classes of a dimension field.
inline constexpr uint8_t kDimSmallEnd = 160;   // [0, 160): 1 + b % 24
inline constexpr uint8_t kDimMediumEnd = 200;  // [160, 200): 25 + next byte
inline constexpr uint8_t kDimEdgeEnd = 240;    // [200, 240): kEdgeDims
inline constexpr int32_t kDimSmallMax = 24;

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  size_t consumed() const { return position_; }
  // The bytes not read yet (a raw payload, such as a whole weight file).
  void Rest(const uint8_t** data, size_t* size) const {
    *data = data_ + (position_ < size_ ? position_ : size_);
    *size = position_ < size_ ? size_ - position_ : 0;
  }

  void U8(uint8_t& value) { value = Next(); }
  void U16(uint16_t& value) { value = static_cast<uint16_t>(Next() | (Next() << 8)); }
  void U32(uint32_t& value) {
    uint32_t bits = 0;
    for (int i = 0; i < 4; ++i) bits |= static_cast<uint32_t>(Next()) << (8 * i);
    value = bits;
  }
  void I32(int32_t& value) {
    uint32_t bits;
    U32(bits);
    memcpy(&value, &bits, sizeof(value));
  }
  void F32(float& value) {
    uint32_t bits;
    U32(bits);
    memcpy(&value, &bits, sizeof(value));
  }

  // Mostly small positive values, sometimes medium (past one 64-key panel or
  // one 16-row block), edges, or anything at all.
  void Dim(int32_t& value) {
    const uint8_t b = Next();
    if (b < kDimSmallEnd) {
      value = 1 + b % kDimSmallMax;
    } else if (b < kDimMediumEnd) {
      value = kDimSmallMax + 1 + Next();
    } else if (b < kDimEdgeEnd) {
      value = kEdgeDims[(b - kDimMediumEnd) % kEdgeDimCount];
    } else {
      I32(value);
    }
  }

  // An enum stored as int: mostly one of `valid` values 0..valid-1, else any
  // int32 (out-of-range values must be refused, never trusted).
  void Enum(int32_t& value, int32_t valid) {
    const uint8_t b = Next();
    if (b < 224) {
      value = b % valid;
    } else if (b < 240) {
      value = valid + (b - 224);
    } else {
      I32(value);
    }
  }

  // `count` raw bytes (fewer are available near the end: zeros then).
  void Bytes(std::vector<uint8_t>& bytes, size_t count) {
    bytes.resize(count);
    for (uint8_t& b : bytes) b = Next();
  }

 private:
  uint8_t Next() { return position_ < size_ ? data_[position_++] : (++position_, 0); }

  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

class ByteWriter {
 public:
  const std::vector<uint8_t>& bytes() const { return bytes_; }

  void U8(const uint8_t& value) { bytes_.push_back(value); }
  void U16(const uint16_t& value) {
    bytes_.push_back(static_cast<uint8_t>(value));
    bytes_.push_back(static_cast<uint8_t>(value >> 8));
  }
  void U32(const uint32_t& value) {
    for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<uint8_t>(value >> (8 * i)));
  }
  void I32(const int32_t& value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof(bits));
    U32(bits);
  }
  void F32(const float& value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof(bits));
    U32(bits);
  }

  void Dim(const int32_t& value) {
    if (value >= 1 && value <= kDimSmallMax) {
      U8(static_cast<uint8_t>(value - 1));
      return;
    }
    if (value > kDimSmallMax && value <= kDimSmallMax + 256) {
      U8(kDimSmallEnd);
      U8(static_cast<uint8_t>(value - kDimSmallMax - 1));
      return;
    }
    for (size_t i = 0; i < kEdgeDimCount; ++i) {
      if (kEdgeDims[i] == value) {
        U8(static_cast<uint8_t>(kDimMediumEnd + i));
        return;
      }
    }
    U8(kDimEdgeEnd);
    I32(value);
  }

  void Enum(const int32_t& value, int32_t valid) {
    if (value >= 0 && value < valid) {
      U8(static_cast<uint8_t>(value));
    } else {
      U8(240);
      I32(value);
    }
  }

  void Bytes(const std::vector<uint8_t>& bytes, size_t count) {
    for (size_t i = 0; i < count; ++i) U8(i < bytes.size() ? bytes[i] : 0);
  }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_BYTE_READER_H_
