// The user's SIMD target cap (ea_set_max_simd_target, EDGEATTN_MAX_SIMD_TARGET)
// as the rest of the library sees it.
#ifndef EDGEATTN_SRC_SIMD_TARGET_CAP_H_
#define EDGEATTN_SRC_SIMD_TARGET_CAP_H_

namespace edgeattn {

// Hands the cap in force (the explicit one, else the environment's) to
// Highway's dispatch if it changed. Called by every plan_init and by
// ea_simd_target(); nothing on static builds.
void ApplySimdTargetCap();

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_SIMD_TARGET_CAP_H_
