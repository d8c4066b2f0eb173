// The user's SIMD target cap (ea_set_max_simd_target, EDGEATTN_MAX_SIMD_TARGET)
// as the rest of the library sees it.
#ifndef EDGEATTN_SRC_RUNTIME_SIMD_TARGET_CAP_H_
#define EDGEATTN_SRC_RUNTIME_SIMD_TARGET_CAP_H_

namespace edgeattn {

// Hands the cap in force (the explicit one, else the environment's) to
// Highway's dispatch if it changed. Called by every init and by
// ea_simd_target(); nothing on static builds.
void ApplySimdTargetCap();

// `target_name` as ea_simd_target() reports it: the name itself, or, while
// no explicit cap is set and EDGEATTN_MAX_SIMD_TARGET holds a name the
// library does not know (a typo such as "AVX512"), the name followed by
// " (EDGEATTN_MAX_SIMD_TARGET unknown: ignored)", so that a benchmark or bug
// report made under the typo shows it. Static builds read no environment.
const char* ReportedTargetName(const char* target_name);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_RUNTIME_SIMD_TARGET_CAP_H_
