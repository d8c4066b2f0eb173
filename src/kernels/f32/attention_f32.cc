// Per-target instantiation and dispatch of the float32 attention kernel.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/f32/attention_f32.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "kernels/f32/attention_f32-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {

void AttentionQueryBlockF32Target(const AttentionArgs& args, int32_t first_row, int32_t rows) {
  AttendQueryBlock(args, first_row, static_cast<size_t>(rows));
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "runtime/dispatch.h"

namespace edgeattn {

EA_EXPORT(AttentionQueryBlockF32Target);

void AttentionQueryBlockF32(const AttentionArgs& args, int32_t first_row, int32_t rows) {
  EA_DISPATCH(AttentionQueryBlockF32Target)(args, first_row, rows);
}

}  // namespace edgeattn
#endif  // HWY_ONCE
