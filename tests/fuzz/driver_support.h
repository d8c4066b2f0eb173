// Pieces every entry-point driver uses: status and untouched-memory checks,
// the caller's arena built from an ArenaSpec, bitwise comparison of reruns.
#ifndef EDGEATTN_TESTS_FUZZ_DRIVER_SUPPORT_H_
#define EDGEATTN_TESTS_FUZZ_DRIVER_SUPPORT_H_

#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "edgeattn/edgeattn.h"
#include "expected_status.h"
#include "fuzz_case.h"
#include "memory_pool.h"

namespace edgeattn_fuzz {

// The second canary: outputs are refilled with it before a rerun, so an
// output byte a successful run never writes shows up as a difference.
inline constexpr uint8_t kRerunCanary = 0x5A;

void ExpectStatus(const char* call, ea_status got, const StatusSet& allowed);

// No pool byte changed since the snapshot outside `allowed`.
void ExpectUntouched(const char* call, const MemoryPool& pool,
                     const std::vector<ByteRange>& allowed, const char* situation);

// Capacity and pre-used bytes of an arena for a plan needing `need` bytes,
// limited to what the harness allocates (kMaxArenaBytes).
struct ArenaLayout {
  uint64_t pre_used = 0;
  uint64_t capacity = 0;  // as passed to ea_arena_init
  uint32_t misalign = 0;
};
ArenaLayout LayOutArena(const ArenaSpec& spec, uint64_t need);

// ea_arena_init on the buffer (checked against the documented statuses),
// then the spec's pre-used bytes. When init is refused (NULL or misaligned
// buffer) the arena struct is filled in by hand, so that init's own
// checks of the same conditions run too.
void InitArena(const ArenaSpec& spec, const ArenaLayout& layout, uint8_t* buffer, bool null_base,
               ea_arena* arena);

// The carve a successful init made: [used before, used after) of the
// arena buffer, as a pool range.
ByteRange CarveRange(const MemoryPool& pool, const ea_arena& arena, size_t used_before);

// What an init call may have written: nothing when refused (arena.used as
// it was, no pool byte changed since the snapshot), else exactly `need`
// bytes carved from used_before and no byte outside them. Returns the
// carve (empty when refused).
ByteRange CheckInitWrites(const char* name, ea_status status, const MemoryPool& pool,
                          const ea_arena& arena, size_t used_before, uint64_t need);

// Byte copies of outputs and their comparison.
std::vector<uint8_t> CopyBytes(const void* data, size_t bytes);
void ExpectSameBits(const char* what, const std::vector<uint8_t>& first, const void* second);

// A placement's target must already exist; otherwise the buffer gets a
// region of its own. `alignment` 4: any float address.
int PlaceRegion(MemoryPool* pool, const char* name, size_t bytes, const Placement& placement,
                const std::vector<int>& candidates);

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_DRIVER_SUPPORT_H_
