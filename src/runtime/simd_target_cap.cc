// A user's cap on the SIMD target (ea_set_max_simd_target, or the
// EDGEATTN_MAX_SIMD_TARGET environment variable), as oneDNN's
// dnnl_set_max_cpu_isa / ONEDNN_MAX_CPU_ISA: a deployment may want AVX2 on
// a core whose AVX-512 clocks down, or a reproducible target in CI.
//
// Highway orders targets by bit, better targets on lower bits, and lets a
// program disable targets process-wide (hwy::DisableTargets); the next
// dynamic dispatch then picks the best target left. The cap is applied
// lazily, at init and ea_simd_target(), so the environment needs no
// start-up hook (the library has no static constructors). Two atomics are
// the only state: the explicit cap, and the cap last handed to Highway (so
// that an unchanged cap does not reset Highway's chosen target).
#include "runtime/simd_target_cap.h"

#include <stdint.h>
#include <stdlib.h>

#include <atomic>

#include <hwy/highway.h>
#include <hwy/targets.h>

#include "edgeattn/edgeattn.h"

namespace edgeattn {
namespace {

char AsciiUpper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

bool SameNameIgnoringCase(const char* a, const char* b) {
  for (; *a != '\0' && *b != '\0'; ++a, ++b) {
    if (AsciiUpper(*a) != AsciiUpper(*b)) return false;
  }
  return *a == *b;
}

// The Highway target bit of this CPU family whose name is `name`, or 0.
// TargetName knows only this architecture's targets and says "Unknown" for
// every other bit.
int64_t TargetNamed(const char* name) {
  if (SameNameIgnoringCase(name, "Unknown")) return 0;
  for (int bit = 0; bit < 63; ++bit) {
    const int64_t target = int64_t{1} << bit;
    if (SameNameIgnoringCase(hwy::TargetName(target), name)) return target;
  }
  return 0;
}

#if !defined(EDGEATTN_STATIC_DISPATCH)
// 0: no explicit cap, the environment decides.
std::atomic<int64_t> g_explicit_cap{0};
// The cap Highway was last given (0: none).
std::atomic<int64_t> g_applied_cap{0};

int64_t CapFromEnvironment() {
  const char* name = getenv("EDGEATTN_MAX_SIMD_TARGET");
  return (name != nullptr && *name != '\0') ? TargetNamed(name) : 0;
}

// The environment names something, but no target of this CPU family.
bool EnvironmentCapIsUnknown() {
  const char* name = getenv("EDGEATTN_MAX_SIMD_TARGET");
  return name != nullptr && *name != '\0' && TargetNamed(name) == 0;
}

#define EA_IGNORED_CAP_NOTE " (EDGEATTN_MAX_SIMD_TARGET unknown: ignored)"
// Constant strings (the library keeps no mutable data): every target name
// Highway 1.0.3 reports, with the note.
struct NotedName {
  const char* name;
  const char* noted;
};
constexpr NotedName kNotedNames[] = {
    {"SCALAR", "SCALAR" EA_IGNORED_CAP_NOTE},   {"EMU128", "EMU128" EA_IGNORED_CAP_NOTE},
    {"SSSE3", "SSSE3" EA_IGNORED_CAP_NOTE},     {"SSE4", "SSE4" EA_IGNORED_CAP_NOTE},
    {"AVX2", "AVX2" EA_IGNORED_CAP_NOTE},       {"AVX3", "AVX3" EA_IGNORED_CAP_NOTE},
    {"AVX3_DL", "AVX3_DL" EA_IGNORED_CAP_NOTE}, {"NEON", "NEON" EA_IGNORED_CAP_NOTE},
    {"SVE", "SVE" EA_IGNORED_CAP_NOTE},         {"SVE2", "SVE2" EA_IGNORED_CAP_NOTE},
    {"SVE_256", "SVE_256" EA_IGNORED_CAP_NOTE}, {"SVE2_128", "SVE2_128" EA_IGNORED_CAP_NOTE},
};

void HandToHighway(int64_t cap) {
  if (g_applied_cap.exchange(cap) == cap) return;
  // Every bit below the cap's is a better target.
  hwy::DisableTargets(cap != 0 ? cap - 1 : 0);
}
#endif

}  // namespace

const char* ReportedTargetName(const char* target_name) {
#if !defined(EDGEATTN_STATIC_DISPATCH)
  if (g_explicit_cap.load() == 0 && EnvironmentCapIsUnknown()) {
    for (const NotedName& n : kNotedNames) {
      if (SameNameIgnoringCase(n.name, target_name)) return n.noted;
    }
    return "SIMD target not named" EA_IGNORED_CAP_NOTE;
  }
#endif
  return target_name;
}

void ApplySimdTargetCap() {
#if !defined(EDGEATTN_STATIC_DISPATCH)
  const int64_t explicit_cap = g_explicit_cap.load();
  HandToHighway(explicit_cap != 0 ? explicit_cap : CapFromEnvironment());
#endif
}

}  // namespace edgeattn

extern "C" ea_status ea_set_max_simd_target(const char* name) {
  const bool lift = name == nullptr || *name == '\0';
  const int64_t cap = lift ? 0 : edgeattn::TargetNamed(name);
  if (!lift && cap == 0) return EA_ERR_BAD_ARGUMENT;
#if defined(EDGEATTN_STATIC_DISPATCH)
  // One target, fixed at compile time: a cap at or above it changes nothing.
  if (!lift && cap > HWY_STATIC_TARGET) return EA_ERR_UNSUPPORTED;
#else
  edgeattn::g_explicit_cap.store(cap);
  edgeattn::ApplySimdTargetCap();
#endif
  return EA_OK;
}
