// Element-wise float32 kernels: X + P for position tables.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/f32/elementwise_f32.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <stddef.h>

#include <hwy/highway.h>

#include "kernels/vector_tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void AddF32Target(const float* HWY_RESTRICT a, const float* HWY_RESTRICT b, float* HWY_RESTRICT out,
                  size_t count) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= count; i += lanes) {
    hn::StoreU(hn::Add(hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, out + i);
  }
  if (i < count) {
    const size_t rest = count - i;
    StoreTail(d, hn::Add(LoadTail(d, a + i, rest, 0.0f), LoadTail(d, b + i, rest, 0.0f)), out + i,
              rest);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/f32/f32_kernels.h"
#include "runtime/dispatch.h"

namespace edgeattn {

EA_EXPORT(AddF32Target);

void AddF32(const float* a, const float* b, float* out, size_t count) {
  EA_DISPATCH(AddF32Target)(a, b, out, count);
}

}  // namespace edgeattn
#endif  // HWY_ONCE
