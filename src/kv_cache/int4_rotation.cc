// The rotations of int4_rotation.h, per SIMD target: on x86 and AArch64
// NEON, blocks of 4 and more values in 4-lane vectors (distances 1 and 2
// inside a vector by lane swaps, larger ones between vectors), the same
// adds and multiplications as the scalar code, lane by lane, so the same
// bytes. SCALAR (Cortex-M), armv7 (whose NEON flushes subnormals) and SVE
// (whose partial vectors the 4-lane code would need) keep the scalar code.
// Scalar and in place through a pointer, the rotation was a quarter of the
// reversal model's int4 decoding (each stage's stores stalled the next
// stage's loads).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kv_cache/int4_rotation.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <stddef.h>

#include <hwy/highway.h>

#include "edgeattn/kv_cache.h"
#include "kv_cache/kv_cache_layout.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// 2^120: a block holding a larger magnitude is scaled by 2^-7 first, so that
// its sums of up to EA_KV_Q4_GROUP values stay below 2^127. Exact for
// every value above 2^-119; smaller ones may lose their last bits, but
// beside one of 2^120 they cannot move a code.
constexpr float kLargeValue = 0x1p120f;
constexpr float kPrescale = 0x1p-7f;
static_assert(EA_KV_Q4_GROUP <= 64, "blocks of more than 64 values need a larger prescale");

// The largest power of two <= n, for n >= 1.
inline size_t LargestPowerOfTwoIn(size_t n) {
  size_t b = 1;
  while (b * 2 <= n) b *= 2;
  return b;
}

// x <- H_b x / divisor for one block of b (a power of two) values, stage by
// stage, pair distance 1, 2, ..., b / 2.
inline void RotateBlockScalar(float* x, size_t b, float divisor) {
  bool large = false;
  for (size_t c = 0; c < b; ++c) large |= x[c] >= kLargeValue || x[c] <= -kLargeValue;
  for (size_t c = 0; large && c < b; ++c) x[c] *= kPrescale;
  for (size_t distance = 1; distance < b; distance *= 2) {
    for (size_t start = 0; start < b; start += 2 * distance) {
      for (size_t i = start; i < start + distance; ++i) {
        const float top = x[i], bottom = x[i + distance];
        x[i] = top + bottom;
        x[i + distance] = top - bottom;
      }
    }
  }
  const float factor = (large ? 1.0f / kPrescale : 1.0f) / divisor;  // powers of two, exact
  for (size_t c = 0; c < b; ++c) x[c] *= factor;
}

#if HWY_TARGET == HWY_SCALAR || HWY_ARCH_ARM_V7 || HWY_TARGET == HWY_SVE || \
    HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || HWY_TARGET == HWY_SVE2_128

inline void RotateBlock(float* x, size_t b, float divisor) { RotateBlockScalar(x, b, divisor); }

#else

// The stages between N vectors: both halves, then their sums and
// differences (the order of RotateBlockScalar's stages, element by element),
// unrolled at compile time so that the vectors stay in registers.
template <size_t N, class V>
HWY_INLINE void VectorStages(V* v) {
  if constexpr (N > 1) {
    VectorStages<N / 2>(v);
    VectorStages<N / 2>(v + N / 2);
    for (size_t i = 0; i < N / 2; ++i) {
      const V top = v[i], bottom = v[N / 2 + i];
      v[i] = hn::Add(top, bottom);
      v[N / 2 + i] = hn::Sub(top, bottom);
    }
  }
}

// RotateBlockScalar for B >= 4 values in B / 4 vectors of 4 lanes.
template <size_t B>
HWY_INLINE void RotateBlockVectors(float* HWY_RESTRICT x, float divisor) {
  const hn::FixedTag<float, 4> d;
  using V = hn::Vec<decltype(d)>;
  constexpr size_t kVectors = B / 4;
  V v[kVectors];
  auto large = hn::Zero(d);
  const auto limit = hn::Set(d, kLargeValue);
#pragma GCC unroll 16
  for (size_t i = 0; i < kVectors; ++i) {
    v[i] = hn::LoadU(d, x + 4 * i);
    large = hn::Or(large, hn::VecFromMask(d, hn::Ge(hn::Abs(v[i]), limit)));
  }
  const bool any_large = !hn::AllTrue(d, hn::Eq(large, hn::Zero(d)));
#pragma GCC unroll 16
  for (size_t i = 0; i < kVectors; ++i) {
    if (any_large) v[i] = hn::Mul(v[i], hn::Set(d, kPrescale));
    // Distance 1: even lanes x[i] + x[i + 1], odd lanes x[i - 1] - x[i].
    V swapped = hn::Shuffle2301(v[i]);
    v[i] = hn::OddEven(hn::Sub(swapped, v[i]), hn::Add(v[i], swapped));
    // Distance 2: lanes 0, 1 the sums, lanes 2, 3 the differences.
    swapped = hn::Shuffle1032(v[i]);
    v[i] = hn::ConcatUpperLower(d, hn::Sub(swapped, v[i]), hn::Add(v[i], swapped));
  }
  VectorStages<kVectors>(v);
  const auto factor = hn::Set(d, (any_large ? 1.0f / kPrescale : 1.0f) / divisor);
#pragma GCC unroll 16
  for (size_t i = 0; i < kVectors; ++i) hn::StoreU(hn::Mul(v[i], factor), d, x + 4 * i);
}

inline void RotateBlock(float* x, size_t b, float divisor) {
  switch (b) {
    case 64:
      return RotateBlockVectors<64>(x, divisor);
    case 32:
      return RotateBlockVectors<32>(x, divisor);
    case 16:
      return RotateBlockVectors<16>(x, divisor);
    case 8:
      return RotateBlockVectors<8>(x, divisor);
    case 4:
      return RotateBlockVectors<4>(x, divisor);
    default:
      return RotateBlockScalar(x, b, divisor);
  }
}

#endif

// Each block of each scale group's binary form; divisor 0 stands for the
// block's own width.
void RotateInt4Target(float* x, size_t d, float divisor) {
  for (size_t g0 = 0; g0 < d; g0 += EA_KV_Q4_GROUP) {
    const size_t end = g0 + Int4GroupWidth(d, g0);
    for (size_t c0 = g0; c0 < end;) {
      const size_t b = LargestPowerOfTwoIn(end - c0);
      RotateBlock(x + c0, b, divisor == 0.0f ? static_cast<float>(b) : divisor);
      c0 += b;
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kv_cache/int4_rotation.h"
#include "runtime/dispatch.h"

namespace edgeattn {

EA_EXPORT(RotateInt4Target);

void RotateInt4Stored(float* x, size_t d) { EA_DISPATCH(RotateInt4Target)(x, d, 0.0f); }

void RotateInt4Query(float* x, size_t d) { EA_DISPATCH(RotateInt4Target)(x, d, kInt4QueryGain); }

void RotateInt4Output(float* x, size_t d) { EA_DISPATCH(RotateInt4Target)(x, d, 1.0f); }

}  // namespace edgeattn
#endif  // HWY_ONCE
