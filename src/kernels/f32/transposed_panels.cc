// Per-target instantiation and dispatch of the panel packing (kernels/f32/pack_panels-inl.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/f32/transposed_panels.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "kernels/f32/pack_panels-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {

void PackTransposedPanelsTarget(const float* rows, size_t ld_rows, int32_t n_rows, int32_t n_cols,
                                float* packed) {
  PackPanelsFast(rows, ld_rows, n_rows, n_cols, packed);
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/f32/transposed_panels.h"
#include "runtime/dispatch.h"

namespace edgeattn {

EA_EXPORT(PackTransposedPanelsTarget);

void PackTransposedPanels(const float* rows, size_t ld_rows, int32_t n_rows, int32_t n_cols,
                          float* packed) {
  EA_DISPATCH(PackTransposedPanelsTarget)(rows, ld_rows, n_rows, n_cols, packed);
}

}  // namespace edgeattn
#endif  // HWY_ONCE
