#include "kernels/int/mul_int.h"

#include "tflite/requantize.h"

namespace edgeattn {
namespace {

// Element i is read before out[i] is written: out may be a or b. The
// product fits int32: |a + offset| <= 255 (int8) or 32768 (int16, offset 0),
// so at most 2^30.
template <typename T>
void Mul(const T* a, const T* b, const ea_mul_quant_params& params, T* out, size_t count) {
  constexpr int32_t kMin = sizeof(T) == 1 ? -128 : -32768;
  constexpr int32_t kMax = sizeof(T) == 1 ? 127 : 32767;
  const ea_mul_quant_params p = params;
  for (size_t i = 0; i < count; ++i) {
    const int32_t product = (a[i] + p.input1_offset) * (b[i] + p.input2_offset);
    // A saturated product plus the offset may pass int32: added in 64 bits.
    const int64_t raw =
        int64_t{Requantize(product, p.output_multiplier, p.output_shift)} + p.output_offset;
    out[i] = static_cast<T>(raw < kMin ? kMin : (raw > kMax ? kMax : raw));
  }
}

}  // namespace

void MulS8(const int8_t* a, const int8_t* b, const ea_mul_quant_params& params, int8_t* out,
           size_t count) {
  Mul(a, b, params, out, count);
}

void MulS16(const int16_t* a, const int16_t* b, const ea_mul_quant_params& params, int16_t* out,
            size_t count) {
  Mul(a, b, params, out, count);
}

}  // namespace edgeattn
