#include "pack_keys.h"

#include "edgeattn/arena_sizes.hpp"

namespace edgeattn {

void PackKeysTransposed(const float* keys, size_t ld_keys, int32_t n_keys, int32_t d_k,
                        float* packed) {
  const int32_t panels = KeyPanelCount(n_keys);
  for (int32_t p = 0; p < panels; ++p) {
    float* panel = KeyPanel(packed, d_k, p);
    for (int32_t c = 0; c < kKeyBlock; ++c) {
      const int32_t key = p * kKeyBlock + c;
      if (key < n_keys) {
        const float* row = keys + static_cast<size_t>(key) * ld_keys;
        for (int32_t t = 0; t < d_k; ++t) panel[static_cast<size_t>(t) * kKeyBlock + c] = row[t];
      } else {
        for (int32_t t = 0; t < d_k; ++t) panel[static_cast<size_t>(t) * kKeyBlock + c] = 0.0f;
      }
    }
  }
}

}  // namespace edgeattn
