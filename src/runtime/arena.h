// Internal arena helpers: init checks that all its regions fit, then
// carves them; a failed plan leaves the arena as it was.
#ifndef EDGEATTN_SRC_RUNTIME_ARENA_H_
#define EDGEATTN_SRC_RUNTIME_ARENA_H_

#include <stdint.h>

#include "edgeattn/edgeattn.h"

namespace edgeattn {

bool IsArenaAligned(const void* pointer);

// EA_OK if `bytes` more fit at the arena's current (aligned) position.
ea_status CheckArenaFits(const ea_arena* arena, uint64_t bytes);

// The next FloatRegionBytes(count) bytes. Call only after CheckArenaFits
// covered them.
float* CarveFloats(ea_arena* arena, uint64_t count);

// The next ByteRegionBytes(bytes) bytes, as CarveFloats.
void* CarveBytes(ea_arena* arena, uint64_t bytes);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_RUNTIME_ARENA_H_
