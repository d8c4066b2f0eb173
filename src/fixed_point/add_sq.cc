#include "fixed_point/add_sq.h"

#include "fixed_point/mve_requantize.h"
#include "fixed_point/requantize.h"

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

// int16: TFLite Micro's general-scale path, in its 64-bit sum and int32
// saturations ((value + offset) < 2^17 and left_shift <= 15 keep the shifted
// inputs inside int32; validated at plan time).
void AddS16Scalar(const int16_t* a, const int16_t* b, const ea_add_quant_params& params,
                  int16_t* out, size_t count) {
  const ea_add_quant_params p = params;
  for (size_t i = 0; i < count; ++i) {
    const int32_t a_scaled =
        RequantizeSmallerThanOne((a[i] + p.input1_offset) * (int32_t{1} << p.left_shift),
                                 p.input1_multiplier, p.input1_shift);
    const int32_t b_scaled =
        RequantizeSmallerThanOne((b[i] + p.input2_offset) * (int32_t{1} << p.left_shift),
                                 p.input2_multiplier, p.input2_shift);
    const int64_t sum = static_cast<int64_t>(a_scaled) + b_scaled;
    const int32_t raw =
        RequantizeSmallerThanOne(SaturateToInt32(sum), p.output_multiplier, p.output_shift);
    out[i] = static_cast<int16_t>(
        Clamp(SaturateToInt32(static_cast<int64_t>(raw) + p.output_offset), -32768, 32767));
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
  size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    const int32x4_t a_scaled =
        MveRequantize(vshlq_r_s32(vaddq_n_s32(LoadLanes(a + i), p.input1_offset), p.left_shift),
                      p.input1_multiplier, p.input1_shift);
    const int32x4_t b_scaled =
        MveRequantize(vshlq_r_s32(vaddq_n_s32(LoadLanes(b + i), p.input2_offset), p.left_shift),
                      p.input2_multiplier, p.input2_shift);
    const int32x4_t raw =
        MveRequantize(vqaddq_s32(a_scaled, b_scaled), p.output_multiplier, p.output_shift);
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
