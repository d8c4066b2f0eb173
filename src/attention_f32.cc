// Per-target instantiation and dispatch of the float32 attention kernel.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "attention_f32.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "attention_f32-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {

void AttentionF32Target(const AttentionArgs& args) { AttentionTiled(args); }

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "dispatch.h"

namespace edgeattn {

EA_EXPORT(AttentionF32Target);

void AttentionF32(const AttentionArgs& args) { EA_DISPATCH(AttentionF32Target)(args); }

}  // namespace edgeattn
#endif  // HWY_ONCE
