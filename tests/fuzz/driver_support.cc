#include "driver_support.h"

#include <string.h>

#include <string>

#include "failure.h"

namespace edgeattn_fuzz {

void ExpectStatus(const char* call, ea_status got, const StatusSet& allowed) {
  if (!allowed.Allows(got)) {
    Fail("%s returned %d (%s), want %s", call, static_cast<int>(got), ea_status_str(got),
         allowed.Describe().c_str());
  }
}

void ExpectUntouched(const char* call, const MemoryPool& pool,
                     const std::vector<ByteRange>& allowed, const char* situation) {
  const int64_t changed = pool.FirstChange(allowed);
  if (changed >= 0) {
    Fail("%s %s but wrote memory it must not touch: %s", call, situation,
         pool.Describe(changed).c_str());
  }
}

ArenaLayout LayOutArena(const ArenaSpec& spec, uint64_t need) {
  ArenaLayout layout;
  layout.pre_used = spec.PreUsed();
  layout.misalign = spec.Misalignment();
  layout.capacity = spec.Capacity(layout.pre_used, need);
  if (layout.capacity > static_cast<uint64_t>(kMaxArenaBytes)) {
    // Too large to allocate here: the plan is then refused as too small.
    layout.capacity =
        need > 0 && layout.pre_used + need - 1 <= static_cast<uint64_t>(kMaxArenaBytes)
            ? layout.pre_used + need - 1
            : static_cast<uint64_t>(kMaxArenaBytes) / 2;
  }
  if (layout.pre_used > layout.capacity && !spec.Overfull()) layout.pre_used = 0;
  return layout;
}

void InitArena(const ArenaSpec& spec, const ArenaLayout& layout, uint8_t* buffer, bool null_base,
               ea_arena* arena) {
  uint8_t* base = null_base ? nullptr : buffer;
  StatusSet init_rules;
  if (base == nullptr) init_rules.Add(EA_ERR_NULL_POINTER);
  if (base != nullptr && reinterpret_cast<uintptr_t>(base) % EA_ARENA_ALIGNMENT != 0) {
    init_rules.Add(EA_ERR_ARENA_MISALIGNED);
  }
  SetContext("ea_arena_init", "-");
  const ea_status status = ea_arena_init(arena, base, static_cast<size_t>(layout.capacity));
  ExpectStatus("ea_arena_init", status, init_rules);
  if (status == EA_OK &&
      (arena->base != base || arena->capacity != layout.capacity || arena->used != 0)) {
    Fail("ea_arena_init left base/capacity/used = %p/%zu/%zu", static_cast<void*>(arena->base),
         arena->capacity, arena->used);
  }
  if (status != EA_OK) *arena = ea_arena{base, static_cast<size_t>(layout.capacity), 0};
  arena->used = spec.Overfull() ? arena->capacity + 64 : static_cast<size_t>(layout.pre_used);
  const size_t remaining = ea_arena_remaining(arena);
  const size_t want = arena->used > arena->capacity ? 0 : arena->capacity - arena->used;
  if (remaining != want) Fail("ea_arena_remaining = %zu, want %zu", remaining, want);
}

ByteRange CarveRange(const MemoryPool& pool, const ea_arena& arena, size_t used_before) {
  if (arena.base == nullptr || arena.used <= used_before) return ByteRange{};
  return pool.RangeOf(arena.base + used_before, arena.used - used_before);
}

ByteRange CheckInitWrites(const char* name, ea_status status, const MemoryPool& pool,
                          const ea_arena& arena, size_t used_before, uint64_t need) {
  if (status != EA_OK) {
    if (arena.used != used_before) Fail("failed %s moved arena.used", name);
    ExpectUntouched(name, pool, {}, "failed");
    return ByteRange{};
  }
  const ByteRange carve = CarveRange(pool, arena, used_before);
  if (arena.used - used_before != need) {
    Fail("%s carved %zu bytes, the arena_sizes.hpp formula says %llu", name,
         arena.used - used_before, static_cast<unsigned long long>(need));
  }
  ExpectUntouched(name, pool, {carve}, "succeeded");
  return carve;
}

std::vector<uint8_t> CopyBytes(const void* data, size_t bytes) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  return std::vector<uint8_t>(p, p + bytes);
}

void ExpectSameBits(const char* what, const std::vector<uint8_t>& first, const void* second) {
  if (first.empty()) return;
  if (memcmp(first.data(), second, first.size()) != 0) {
    size_t i = 0;
    while (static_cast<const uint8_t*>(second)[i] == first[i]) ++i;
    float a, b;
    memcpy(&a, first.data() + i / 4 * 4, 4);
    memcpy(&b, static_cast<const uint8_t*>(second) + i / 4 * 4, 4);
    Fail("%s: not bit-identical at float %zu: %a vs %a", what, i / 4, a, b);
  }
}

int PlaceRegion(MemoryPool* pool, const char* name, size_t bytes, const Placement& placement,
                const std::vector<int>& candidates) {
  if (placement.Separate() || candidates.empty()) return pool->AddSeparate(name, bytes, 4, 0);
  const int target = candidates[placement.Target(static_cast<int>(candidates.size()))];
  return pool->AddOver(name, bytes, target, int64_t{placement.offset} * 4);
}

}  // namespace edgeattn_fuzz
