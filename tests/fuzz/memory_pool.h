// Every buffer of one fuzz case inside one heap block filled with a canary.
//
// Inputs, weights, tables, outputs and the arena are regions of the block,
// placed apart (with guard gaps) or deliberately over one another. A snapshot
// before a call and a byte compare after it show exactly what the library
// wrote, wherever it wrote it: an error status must leave everything as it
// was, a success may change only its outputs and its plan's carve. Writes
// past the whole block hit AddressSanitizer's redzone instead.
#ifndef EDGEATTN_TESTS_FUZZ_MEMORY_POOL_H_
#define EDGEATTN_TESTS_FUZZ_MEMORY_POOL_H_

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

namespace edgeattn_fuzz {

// A byte range [begin, end) of the pool.
struct ByteRange {
  size_t begin = 0;
  size_t end = 0;
  bool Overlaps(const ByteRange& other) const {
    return begin < end && other.begin < other.end && begin < other.end && other.begin < end;
  }
};

class MemoryPool {
 public:
  static constexpr uint8_t kCanary = 0xCD;
  static constexpr size_t kGuardBytes = 64;

  MemoryPool() = default;
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;
  ~MemoryPool();

  // A region of its own, `misalign` bytes past an `align`-aligned address.
  int AddSeparate(const char* name, size_t bytes, size_t align = 64, size_t misalign = 0);
  // A region starting `offset_bytes` from region `target`'s start (clamped
  // to the block's start, rounded down to a float boundary).
  int AddOver(const char* name, size_t bytes, int target, int64_t offset_bytes);
  // Allocates the block (64-byte aligned) and fills it with the canary.
  void Allocate();

  uint8_t* Bytes(int region) const { return block_ + regions_[region].range.begin; }
  float* Floats(int region) const { return reinterpret_cast<float*>(Bytes(region)); }
  size_t Size(int region) const {
    return regions_[region].range.end - regions_[region].range.begin;
  }
  const ByteRange& Range(int region) const { return regions_[region].range; }
  const char* Name(int region) const { return regions_[region].name; }
  // The pool range of an arbitrary pointer span (clamped; empty if outside).
  ByteRange RangeOf(const void* pointer, size_t bytes) const;

  void Snapshot();
  void Restore();  // back to the snapshot
  // Restore only outside `keep` (the carve keeps what the library left there).
  void RestoreExcept(const std::vector<ByteRange>& keep);
  // Offset of the first byte that differs from the snapshot outside
  // `allowed`, or -1.
  int64_t FirstChange(const std::vector<ByteRange>& allowed) const;
  // Regions and their byte ranges, one line each (EDGEATTN_FUZZ_DEBUG).
  void Dump() const;
  // "region name + offset" of a pool offset, for messages.
  std::string Describe(int64_t offset) const;

 private:
  struct Region {
    const char* name;
    ByteRange range;
  };
  std::vector<Region> regions_;
  size_t cursor_ = kGuardBytes;
  size_t end_ = kGuardBytes;
  uint8_t* block_ = nullptr;
  std::vector<uint8_t> snapshot_;
};

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_MEMORY_POOL_H_
