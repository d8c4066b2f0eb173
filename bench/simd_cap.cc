// Scoped SIMD target cap (see simd_cap.h).
#include "simd_cap.h"

namespace edgeattn_bench {

ScopedSimdCap::ScopedSimdCap(const char* target) {
  if (target == nullptr) return;
  status_ = ea_set_max_simd_target(target);
  capped_ = status_ == EA_OK;
}

ScopedSimdCap::~ScopedSimdCap() {
  if (capped_) ea_set_max_simd_target(nullptr);
}

}  // namespace edgeattn_bench
