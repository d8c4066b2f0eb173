// Reports the SIMD target the dispatcher picks (and its vector width), by asking a function
// compiled for every target which one it is: what tests and the demo print, and what the per-target
// tests assert after forcing a target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/simd_target.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {

const char* TargetNameHere() { return hwy::TargetName(HWY_TARGET); }

size_t VectorBytesHere() {
  return hwy::HWY_NAMESPACE::Lanes(hwy::HWY_NAMESPACE::ScalableTag<float>()) * sizeof(float);
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "edgeattn/edgeattn.h"
#include "runtime/dispatch.h"
#include "runtime/simd_target_cap.h"

namespace edgeattn {

EA_EXPORT(TargetNameHere);
EA_EXPORT(VectorBytesHere);

// hwy::TargetName of the target the dispatcher picks now, and its vector width.
static const char* ActiveTargetName() { return EA_DISPATCH(TargetNameHere)(); }

static size_t ActiveVectorBytes() { return EA_DISPATCH(VectorBytesHere)(); }

}  // namespace edgeattn

extern "C" const char* ea_simd_target(void) {
  edgeattn::ApplySimdTargetCap();
  return edgeattn::ReportedTargetName(edgeattn::ActiveTargetName());
}

extern "C" size_t ea_simd_vector_bytes(void) {
  edgeattn::ApplySimdTargetCap();
  return edgeattn::ActiveVectorBytes();
}
#endif  // HWY_ONCE
