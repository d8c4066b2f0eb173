// Reports the SIMD target the dispatcher picks, by asking a function compiled
// for every target which one it is: what tests and the demo print, and what
// the per-target tests assert after forcing a target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd_target.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {

const char* TargetNameHere() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "dispatch.h"
#include "edgeattn/edgeattn.h"
#include "kernels.h"

namespace edgeattn {

EA_EXPORT(TargetNameHere);

const char* ActiveTargetName() { return EA_DISPATCH(TargetNameHere)(); }

}  // namespace edgeattn

extern "C" const char* ea_simd_target(void) { return edgeattn::ActiveTargetName(); }
#endif  // HWY_ONCE
