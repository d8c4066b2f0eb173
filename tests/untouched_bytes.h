// What the bad-input suites share: readable status names in failures, raw
// enum stores as a C caller may write them, and the canary check behind "on
// any error no output byte is written".
#ifndef EDGEATTN_TESTS_UNTOUCHED_BYTES_H_
#define EDGEATTN_TESTS_UNTOUCHED_BYTES_H_

#include <gtest/gtest.h>
#include <stdint.h>
#include <string.h>

#include <string>
#include <vector>

#include "edgeattn/edgeattn.h"

namespace edgeattn_test {

inline constexpr uint8_t kCanaryByte = 0xA5;

inline std::string StatusName(ea_status status) {
  switch (status) {
    case EA_OK:
      return "EA_OK";
    case EA_ERR_NULL_POINTER:
      return "EA_ERR_NULL_POINTER";
    case EA_ERR_BAD_DIMENSION:
      return "EA_ERR_BAD_DIMENSION";
    case EA_ERR_DIMENSION_OVERFLOW:
      return "EA_ERR_DIMENSION_OVERFLOW";
    case EA_ERR_HEADS_MISMATCH:
      return "EA_ERR_HEADS_MISMATCH";
    case EA_ERR_ARENA_TOO_SMALL:
      return "EA_ERR_ARENA_TOO_SMALL";
    case EA_ERR_ARENA_MISALIGNED:
      return "EA_ERR_ARENA_MISALIGNED";
    case EA_ERR_BAD_ARGUMENT:
      return "EA_ERR_BAD_ARGUMENT";
    case EA_ERR_UNSUPPORTED:
      return "EA_ERR_UNSUPPORTED";
    case EA_ERR_CACHE_FULL:
      return "EA_ERR_CACHE_FULL";
    case EA_ERR_BAD_FILE:
      return "EA_ERR_BAD_FILE";
    case EA_ERR_NOT_FOUND:
      return "EA_ERR_NOT_FOUND";
    default:
      return "unknown status " + std::to_string(static_cast<int>(status));
  }
}

#define EXPECT_STATUS(got, expected) \
  EXPECT_EQ(::edgeattn_test::StatusName(got), ::edgeattn_test::StatusName(expected))
#define ASSERT_STATUS(got, expected) \
  ASSERT_EQ(::edgeattn_test::StatusName(got), ::edgeattn_test::StatusName(expected))

// A C caller may store any int in an enum field. The public enums span the
// int32 range (EA_ENUM_RANGE_*), so every such value is a valid C++ enum value
// too; the tests still write the bytes the way C would.
template <typename Enum>
void StoreRawEnum(Enum* field, int32_t value) {
  static_assert(sizeof(Enum) == sizeof(value), "public enums are 4 bytes on every ABI");
  memcpy(field, &value, sizeof(value));
}

// Byte ranges a refused call must leave exactly as they were.
class UntouchedBytes {
 public:
  // Outputs: filled with the canary, so that any write shows.
  void FillWithCanary(const char* what, void* data, size_t size) {
    memset(data, kCanaryByte, size);
    Remember(what, data, size);
  }
  // State the call may read but must not change (arena struct, arena bytes).
  void Remember(const char* what, const void* data, size_t size) {
    const uint8_t* bytes = static_cast<const uint8_t*>(data);
    regions_.push_back(Region{what, bytes, std::vector<uint8_t>(bytes, bytes + size)});
  }
  void ExpectUntouched() const {
    for (const Region& region : regions_) {
      const size_t size = region.expected.size();
      if (size == 0) continue;
      EXPECT_EQ(FirstChangedByte(region), size)
          << region.what << " was written by a refused call; first changed byte at offset "
          << FirstChangedByte(region) << " of " << size;
    }
  }

 private:
  struct Region {
    std::string what;
    const uint8_t* data;
    std::vector<uint8_t> expected;
  };
  static size_t FirstChangedByte(const Region& region) {
    for (size_t i = 0; i < region.expected.size(); ++i) {
      if (region.data[i] != region.expected[i]) return i;
    }
    return region.expected.size();
  }
  std::vector<Region> regions_;
};

}  // namespace edgeattn_test

#endif  // EDGEATTN_TESTS_UNTOUCHED_BYTES_H_
