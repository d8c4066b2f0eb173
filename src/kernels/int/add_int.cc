#include "kernels/int/add_int.h"

#include "kernels/int/arm/mve_requantize.h"
#include "tflite/requantize.h"

namespace edgeattn {
namespace {

// int8 in 32-bit arithmetic: |a + offset| <= 255 and left_shift <= 20
// (validated) keep each rescaled input below 2^28, a multiplier below one
// keeps it there, so the sum stays below 2^29 and Add's two int32
// saturations never act: the same integers without 64-bit code.
void AddS8Narrow(const int8_t* a, const int8_t* b, const ea_add_quant_params& params, int8_t* out,
                 size_t count) {
  const ea_add_quant_params p = params;
  const int32_t scale = int32_t{1} << p.left_shift;
  for (size_t i = 0; i < count; ++i) {
    const int32_t a_scaled = RequantizeSmallerThanOne((a[i] + p.input1_offset) * scale,
                                                      p.input1_multiplier, p.input1_shift);
    const int32_t b_scaled = RequantizeSmallerThanOne((b[i] + p.input2_offset) * scale,
                                                      p.input2_multiplier, p.input2_shift);
    const int32_t raw =
        RequantizeSmallerThanOne(a_scaled + b_scaled, p.output_multiplier, p.output_shift);
    out[i] = static_cast<int8_t>(Clamp(raw + p.output_offset, -128, 127));
  }
}

// RequantizeSmallerThanOne for one of ADD's multipliers, validated >= 0, so
// that RoundingDoublingHighMul never saturates (that needs INT32_MIN twice):
// one rounded 64-bit product, then the rounding shift with its mask derived
// once per call rather than per element.
struct SmallerThanOne {
  SmallerThanOne(int32_t m, int32_t shift)
      : multiplier(m), exponent(-shift), mask(static_cast<int32_t>((uint32_t{1} << -shift) - 1u)) {}
  int32_t operator()(int32_t x) const {
    const int32_t high =
        static_cast<int32_t>((static_cast<int64_t>(x) * multiplier + (int64_t{1} << 30)) >> 31);
    const int32_t threshold = (mask >> 1) + (high < 0 ? 1 : 0);
    return (high >> exponent) + ((high & mask) > threshold ? 1 : 0);
  }
  int32_t multiplier;
  int exponent;
  int32_t mask;
};

// a + b saturated to int32, as SaturateToInt32 of their 64-bit sum.
inline int32_t SaturatingAdd(int32_t a, int32_t b) {
  int32_t sum;
  if (__builtin_add_overflow(a, b, &sum)) return a < 0 ? INT32_MIN : INT32_MAX;
  return sum;
}

// int16: TFLite Micro's general-scale path, its 64-bit sum and int32
// saturations as saturating 32-bit adds ((value + offset) < 2^17 and
// left_shift <= 15 keep the shifted inputs inside int32; validated at plan
// time).
void AddS16Scalar(const int16_t* a, const int16_t* b, const ea_add_quant_params& params,
                  int16_t* out, size_t count) {
  const ea_add_quant_params p = params;
  const SmallerThanOne input1(p.input1_multiplier, p.input1_shift);
  const SmallerThanOne input2(p.input2_multiplier, p.input2_shift);
  const SmallerThanOne output(p.output_multiplier, p.output_shift);
  const int32_t scale = int32_t{1} << p.left_shift;
  for (size_t i = 0; i < count; ++i) {
    const int32_t a_scaled = input1((a[i] + p.input1_offset) * scale);
    const int32_t b_scaled = input2((b[i] + p.input2_offset) * scale);
    const int32_t raw = output(SaturatingAdd(a_scaled, b_scaled));
    out[i] = static_cast<int16_t>(Clamp(SaturatingAdd(raw, p.output_offset), -32768, 32767));
  }
}

#if EDGEATTN_MVE_DOT_S8
// Cortex-M55: four elements per step on int32 lanes (mve_requantize.h; ADD's
// shifts are all <= 0). VQADD saturates the sum to int32 as the int16 path's
// 64-bit sum and SaturateToInt32 do (the int8 sum never reaches it). The
// last count % 4 go to the scalar code.
inline int32x4_t LoadLanes(const int8_t* p) { return vldrbq_s32(p); }
inline int32x4_t LoadLanes(const int16_t* p) { return vldrhq_s32(p); }
inline void StoreLanes(int8_t* p, int32x4_t v) { vstrbq_s32(p, v); }
inline void StoreLanes(int16_t* p, int32x4_t v) { vstrhq_s32(p, v); }

template <typename T>
size_t AddMve(const T* a, const T* b, const ea_add_quant_params& p, T* out, size_t count) {
  constexpr int32_t kMin = sizeof(T) == 1 ? -128 : -32768;
  constexpr int32_t kMax = sizeof(T) == 1 ? 127 : 32767;
  const MveRequantizer input1(p.input1_multiplier, p.input1_shift);
  const MveRequantizer input2(p.input2_multiplier, p.input2_shift);
  const MveRequantizer output(p.output_multiplier, p.output_shift);
  size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    const int32x4_t a_scaled =
        input1(vshlq_r_s32(vaddq_n_s32(LoadLanes(a + i), p.input1_offset), p.left_shift));
    const int32x4_t b_scaled =
        input2(vshlq_r_s32(vaddq_n_s32(LoadLanes(b + i), p.input2_offset), p.left_shift));
    const int32x4_t raw = output(vqaddq_s32(a_scaled, b_scaled));
    StoreLanes(out + i, MveOffsetClamp(raw, p.output_offset, kMin, kMax));
  }
  return i;
}
#endif

}  // namespace

void AddS8(const int8_t* a, const int8_t* b, const ea_add_quant_params& params, int8_t* out,
           size_t count) {
  size_t done = 0;
#if EDGEATTN_MVE_DOT_S8
  done = AddMve(a, b, params, out, count);
#endif
  AddS8Narrow(a + done, b + done, params, out + done, count - done);
}

void AddS16(const int16_t* a, const int16_t* b, const ea_add_quant_params& params, int16_t* out,
            size_t count) {
  size_t done = 0;
#if EDGEATTN_MVE_DOT_S8
  done = AddMve(a, b, params, out, count);
#endif
  AddS16Scalar(a + done, b + done, params, out + done, count - done);
}

}  // namespace edgeattn
