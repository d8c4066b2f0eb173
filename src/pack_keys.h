// K^T packed in panels of kKeyBlock keys, the layout the score micro-kernel
// streams: panel p holds keys p*64 .. p*64+63 as d_k rows of 64 floats, so the
// kernel loads whole vectors of consecutive keys for one feature t. Keys past
// n_kv are zero. Done once per call (O(n_kv * d_k)), never per tile.
#ifndef EDGEATTN_SRC_PACK_KEYS_H_
#define EDGEATTN_SRC_PACK_KEYS_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/arena_sizes.hpp"

namespace edgeattn {

// Writes d_k * RoundUp(n_keys, kKeyBlock) floats to packed.
void PackKeysTransposed(const float* keys, size_t ld_keys, int32_t n_keys, int32_t d_k,
                        float* packed);

// Panels that hold n_keys keys.
inline int32_t KeyPanelCount(int32_t n_keys) { return (n_keys + kKeyBlock - 1) / kKeyBlock; }

// Start of panel `panel` inside a packed K^T.
inline const float* KeyPanel(const float* packed, int32_t d_k, int32_t panel) {
  return packed + static_cast<size_t>(panel) * static_cast<size_t>(d_k) * kKeyBlock;
}
inline float* KeyPanel(float* packed, int32_t d_k, int32_t panel) {
  return packed + static_cast<size_t>(panel) * static_cast<size_t>(d_k) * kKeyBlock;
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_PACK_KEYS_H_
