// What the float MHA entry points need from the fixed-point ones: the arena
// size of a fixed-point config (ea_mha_arena_size serves every dtype).
#ifndef EDGEATTN_SRC_FIXED_POINT_MHA_QUANT_API_H_
#define EDGEATTN_SRC_FIXED_POINT_MHA_QUANT_API_H_

#include <stddef.h>

#include "edgeattn/edgeattn.h"

namespace edgeattn {

// Validates a fixed-point MHA config and returns its arena bytes.
ea_status MhaQuantArenaSize(const ea_mha_config& config, size_t* bytes);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_FIXED_POINT_MHA_QUANT_API_H_
