// What the float Attention(Q, K, V) entry points need from the fixed-point
// ones: the arena size of a fixed-point config (ea_attention_arena_size
// serves every dtype).
#ifndef EDGEATTN_SRC_OPS_ATTENTION_ATTENTION_QUANT_API_H_
#define EDGEATTN_SRC_OPS_ATTENTION_ATTENTION_QUANT_API_H_

#include <stddef.h>

#include "edgeattn/edgeattn.h"

namespace edgeattn {

// Validates a fixed-point Attention(Q, K, V) config and returns its arena bytes.
ea_status AttentionQuantArenaSize(const ea_attention_config& config, size_t* bytes);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_OPS_ATTENTION_ATTENTION_QUANT_API_H_
