// The last, partial vector of a row, loaded and stored without touching memory
// past the row's end.
//
// Highway 1.0.3's MaskedLoad is a full aligned load plus a blend on SSE4 and
// NEON, so it may read past the row (and fault at a page end). These helpers
// go through a vector-sized stack buffer instead; they run once per row.

// Per-target include guard (Highway's toggle idiom).
#if defined(EDGEATTN_SRC_KERNELS_VECTOR_TAIL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KERNELS_VECTOR_TAIL_INL_H_
#undef EDGEATTN_SRC_KERNELS_VECTOR_TAIL_INL_H_
#else
#define EDGEATTN_SRC_KERNELS_VECTOR_TAIL_INL_H_
#endif

#include <stddef.h>

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Enough floats for the widest vector of this target (64 on SVE-2048).
inline constexpr size_t kTailBufferFloats = HWY_MAX_BYTES / sizeof(float);

// Lanes [0, count) from p, the others set to `fill`. count < Lanes(d).
template <class D>
HWY_INLINE hn::Vec<D> LoadTail(D d, const float* HWY_RESTRICT p, size_t count, float fill) {
  HWY_ALIGN float buffer[kTailBufferFloats];
  const size_t lanes = hn::Lanes(d);
  for (size_t i = 0; i < lanes; ++i) buffer[i] = i < count ? p[i] : fill;
  return hn::Load(d, buffer);
}

// Writes lanes [0, count) of v to p. count < Lanes(d).
template <class D>
HWY_INLINE void StoreTail(D d, hn::Vec<D> v, float* HWY_RESTRICT p, size_t count) {
  HWY_ALIGN float buffer[kTailBufferFloats];
  hn::Store(v, d, buffer);
  for (size_t i = 0; i < count; ++i) p[i] = buffer[i];
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
