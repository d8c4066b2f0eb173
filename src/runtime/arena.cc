// The caller's arena: a bump pointer over a caller buffer. Plans carve it;
// nothing is freed one by one (reset forgets everything at once).
#include "runtime/arena.h"

#include <stdint.h>

#include "edgeattn/arena_sizes.hpp"

namespace edgeattn {

bool IsArenaAligned(const void* pointer) {
  return reinterpret_cast<uintptr_t>(pointer) % EA_ARENA_ALIGNMENT == 0;
}

ea_status CheckArenaFits(const ea_arena* arena, uint64_t bytes) {
  if (arena->base == nullptr || arena->used > arena->capacity) return EA_ERR_BAD_ARGUMENT;
  if (!IsArenaAligned(arena->base + arena->used)) return EA_ERR_ARENA_MISALIGNED;
  if (bytes > arena->capacity - arena->used) return EA_ERR_ARENA_TOO_SMALL;
  return EA_OK;
}

float* CarveFloats(ea_arena* arena, uint64_t count) {
  float* region = static_cast<float*>(static_cast<void*>(arena->base + arena->used));
  arena->used += static_cast<size_t>(FloatRegionBytes(count));
  return region;
}

void* CarveBytes(ea_arena* arena, uint64_t bytes) {
  void* region = arena->base + arena->used;
  arena->used += static_cast<size_t>(ByteRegionBytes(bytes));
  return region;
}

}  // namespace edgeattn

extern "C" {

ea_status ea_arena_init(ea_arena* arena, void* buffer, size_t capacity) {
  if (arena == nullptr || buffer == nullptr) return EA_ERR_NULL_POINTER;
  if (!edgeattn::IsArenaAligned(buffer)) return EA_ERR_ARENA_MISALIGNED;
  arena->base = static_cast<uint8_t*>(buffer);
  arena->capacity = capacity;
  arena->used = 0;
  return EA_OK;
}

ea_status ea_arena_reset(ea_arena* arena) {
  if (arena == nullptr) return EA_ERR_NULL_POINTER;
  arena->used = 0;
  return EA_OK;
}

size_t ea_arena_remaining(const ea_arena* arena) {
  if (arena == nullptr || arena->used > arena->capacity) return 0;
  return arena->capacity - arena->used;
}

}  // extern "C"
