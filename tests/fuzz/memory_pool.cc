#include "memory_pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>

namespace edgeattn_fuzz {
namespace {

size_t RoundUp(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// The parts of [0, size) outside `ranges`, in order.
std::vector<ByteRange> Complement(std::vector<ByteRange> ranges, size_t size) {
  std::sort(ranges.begin(), ranges.end(),
            [](const ByteRange& a, const ByteRange& b) { return a.begin < b.begin; });
  std::vector<ByteRange> gaps;
  size_t cursor = 0;
  for (const ByteRange& r : ranges) {
    if (r.begin >= r.end) continue;
    if (r.begin > cursor) gaps.push_back(ByteRange{cursor, std::min(r.begin, size)});
    cursor = std::max(cursor, r.end);
  }
  if (cursor < size) gaps.push_back(ByteRange{cursor, size});
  return gaps;
}

}  // namespace

MemoryPool::~MemoryPool() { free(block_); }

int MemoryPool::AddSeparate(const char* name, size_t bytes, size_t align, size_t misalign) {
  const size_t begin = RoundUp(cursor_, align) + misalign;
  regions_.push_back(Region{name, ByteRange{begin, begin + bytes}});
  cursor_ = begin + bytes + kGuardBytes;
  if (cursor_ > end_) end_ = cursor_;
  return static_cast<int>(regions_.size()) - 1;
}

int MemoryPool::AddOver(const char* name, size_t bytes, int target, int64_t offset_bytes) {
  int64_t begin = static_cast<int64_t>(regions_[target].range.begin) + offset_bytes;
  if (begin < 0) begin = 0;
  const size_t start = static_cast<size_t>(begin) / 4 * 4;  // float aligned
  regions_.push_back(Region{name, ByteRange{start, start + bytes}});
  if (start + bytes + kGuardBytes > end_) end_ = start + bytes + kGuardBytes;
  return static_cast<int>(regions_.size()) - 1;
}

void MemoryPool::Allocate() {
  void* block = nullptr;
  if (posix_memalign(&block, 64, end_) != 0) {
    fprintf(stderr, "fuzz harness: cannot allocate %zu pool bytes\n", end_);
    abort();
  }
  block_ = static_cast<uint8_t*>(block);
  memset(block_, kCanary, end_);
}

ByteRange MemoryPool::RangeOf(const void* pointer, size_t bytes) const {
  const uintptr_t address = reinterpret_cast<uintptr_t>(pointer);
  const uintptr_t base = reinterpret_cast<uintptr_t>(block_);
  if (pointer == nullptr || address < base || address >= base + end_) return ByteRange{};
  const size_t begin = address - base;
  const size_t end = bytes > end_ - begin ? end_ : begin + bytes;
  return ByteRange{begin, end};
}

void MemoryPool::Snapshot() { snapshot_.assign(block_, block_ + end_); }

void MemoryPool::Restore() { memcpy(block_, snapshot_.data(), end_); }

void MemoryPool::RestoreExcept(const std::vector<ByteRange>& keep) {
  for (const ByteRange& gap : Complement(keep, end_)) {
    memcpy(block_ + gap.begin, snapshot_.data() + gap.begin, gap.end - gap.begin);
  }
}

int64_t MemoryPool::FirstChange(const std::vector<ByteRange>& allowed) const {
  for (const ByteRange& gap : Complement(allowed, end_)) {
    if (memcmp(block_ + gap.begin, snapshot_.data() + gap.begin, gap.end - gap.begin) == 0)
      continue;
    for (size_t i = gap.begin; i < gap.end; ++i) {
      if (block_[i] != snapshot_[i]) return static_cast<int64_t>(i);
    }
  }
  return -1;
}

void MemoryPool::Dump() const {
  for (const Region& r : regions_) {
    fprintf(stderr, "  region %-12s [%zu, %zu) %zu bytes, address %% 64 = %zu\n", r.name,
            r.range.begin, r.range.end, r.range.end - r.range.begin,
            static_cast<size_t>(reinterpret_cast<uintptr_t>(block_ + r.range.begin) % 64));
  }
}

std::string MemoryPool::Describe(int64_t offset) const {
  std::string text;
  for (const Region& r : regions_) {
    if (static_cast<size_t>(offset) >= r.range.begin && static_cast<size_t>(offset) < r.range.end) {
      if (!text.empty()) text += ", ";
      text +=
          std::string(r.name) + "+" + std::to_string(offset - static_cast<int64_t>(r.range.begin));
    }
  }
  return text.empty() ? "guard/gap byte " + std::to_string(offset) : text;
}

}  // namespace edgeattn_fuzz
