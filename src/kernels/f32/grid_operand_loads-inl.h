// How the register grid (kernels/f32/register_grid-inl.h) loads one vector of its B
// operand as float: float rows as they are, and the KV cache's f16 rows
// (kv_cache/kv_cache_layout.h) widened on the fly, so that the decode kernel
// reads the cache once at its stored size and never expands it in memory
// (int8 records are read by integer dot products instead,
// kv_cache/int8_record_dots-inl.h).
//
// f16 widening is IEEE binary16 to binary32, exact, with inf and NaN kept, on
// every target: F16C (AVX2 and AVX-512) and Arm's fcvtl where the CPU has
// them, and an integer version elsewhere (Highway 1.0.3's own emulation
// turns inf and NaN into finite numbers, so it is not used). Each loader returns lanes [0, width)
// for a partial column (kPartial) and zeros after them, without reading past `width` elements.

#if defined(EDGEATTN_SRC_KERNELS_F32_GRID_OPERAND_LOADS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KERNELS_F32_GRID_OPERAND_LOADS_INL_H_
#undef EDGEATTN_SRC_KERNELS_F32_GRID_OPERAND_LOADS_INL_H_
#else
#define EDGEATTN_SRC_KERNELS_F32_GRID_OPERAND_LOADS_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#include "kernels/vector_tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Redefined for each target of the foreach_target pass.
#undef EA_HARDWARE_HALF_WIDENING
#if ((HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL) && \
     !defined(HWY_DISABLE_F16C)) ||                                                     \
    (HWY_ARCH_ARM_A64 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128) ||       \
    (HWY_ARCH_ARM_V7 && HWY_TARGET == HWY_NEON && defined(__ARM_FP) && (__ARM_FP & 2))
#define EA_HARDWARE_HALF_WIDENING 1
#else
#define EA_HARDWARE_HALF_WIDENING 0
#endif

// binary16 bit patterns, one per float lane, to the floats they encode.
template <class D>
HWY_INLINE hn::Vec<D> WidenHalfBits(D d, hn::Vec<hn::Rebind<uint16_t, D>> half_bits) {
#if EA_HARDWARE_HALF_WIDENING
  const hn::Rebind<hwy::float16_t, D> dh;
  return hn::PromoteTo(d, hn::BitCast(dh, half_bits));
#else
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  const auto bits = hn::PromoteTo(du, half_bits);
  const auto sign = hn::ShiftLeft<16>(hn::And(bits, hn::Set(du, 0x8000u)));
  const auto exponent = hn::And(hn::ShiftRight<10>(bits), hn::Set(du, 0x1Fu));
  const auto mantissa = hn::And(bits, hn::Set(du, 0x3FFu));
  const auto normal = hn::Or(hn::ShiftLeft<23>(hn::Add(exponent, hn::Set(du, 127u - 15u))),
                             hn::ShiftLeft<13>(mantissa));
  const auto inf_or_nan = hn::Or(hn::Set(du, 0x7F800000u), hn::ShiftLeft<13>(mantissa));
  // Subnormals and zero: mantissa * 2^-24, exact in float.
  const auto subnormal = hn::BitCast(
      du, hn::Mul(hn::ConvertTo(d, hn::BitCast(di, mantissa)), hn::Set(d, 5.9604644775390625e-8f)));
  auto magnitude = hn::IfThenElse(hn::Eq(exponent, hn::Set(du, 31u)), inf_or_nan, normal);
  magnitude = hn::IfThenElse(hn::Eq(exponent, hn::Zero(du)), subnormal, magnitude);
  return hn::BitCast(d, hn::Or(sign, magnitude));
#endif
}

// (EMU128 and SCALAR use the integer version: Highway's emulation there is the
// one that loses inf and NaN.)

// Enough elements of any type for the widest vector of this target.
inline constexpr size_t kOperandTailElements = HWY_MAX_BYTES / sizeof(float);

template <bool kPartial, class D>
HWY_INLINE hn::Vec<D> LoadGridOperand(D d, const float* HWY_RESTRICT p, size_t width) {
  if (kPartial) return LoadTail(d, p, width, 0.0f);
  return hn::LoadU(d, p);
}

// f16 rows, as the raw binary16 bits.
template <bool kPartial, class D>
HWY_INLINE hn::Vec<D> LoadGridOperand(D d, const hwy::float16_t* HWY_RESTRICT p, size_t width) {
  const hn::Rebind<uint16_t, D> du16;
  const uint16_t* bits = reinterpret_cast<const uint16_t*>(p);
  if (kPartial) {
    HWY_ALIGN uint16_t buffer[kOperandTailElements] = {};
    for (size_t i = 0; i < width; ++i) buffer[i] = bits[i];
    return WidenHalfBits(d, hn::Load(du16, buffer));
  }
  return WidenHalfBits(d, hn::LoadU(du16, bits));
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
