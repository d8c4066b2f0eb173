// Forcing each Highway target in turn, as tests/simd_targets.h does for the
// suites: the harness runs the same case on SCALAR, SSSE3, SSE4, AVX2, AVX3
// and AVX3_DL (those the CPU supports), not only on the one dispatch picks.
#ifndef EDGEATTN_TESTS_FUZZ_SIMD_TARGETS_H_
#define EDGEATTN_TESTS_FUZZ_SIMD_TARGETS_H_

#include <stddef.h>
#include <stdint.h>

#include <vector>

namespace edgeattn_fuzz {

// Dispatches once (Highway 1.0.3 wants that before SupportedTargets), then
// lists the supported targets the library was compiled for.
void InitTargets();
const std::vector<int64_t>& Targets();

// The targets a case's selector byte picks: bit i selects Targets()[i]; no
// selected bit means all of them.
std::vector<int64_t> SelectTargets(uint8_t selector);

// Forces `target` (checking that the library then reports it); 0 lifts it.
void ForceTarget(int64_t target);

const char* TargetName(int64_t target);

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_SIMD_TARGETS_H_
