#include "tflite/mul_quant_params.h"

#include "tflite/quantize_multiplier.h"

namespace edgeattn {

ea_mul_quant_params DeriveMul(ea_quant a, ea_quant b, ea_quant out) {
  const QuantizedMultiplier m = QuantizeMultiplier(
      static_cast<double>(a.scale) * static_cast<double>(b.scale) / static_cast<double>(out.scale));
  ea_mul_quant_params p{};
  p.input1_offset = -a.zero_point;
  p.input2_offset = -b.zero_point;
  p.output_offset = out.zero_point;
  p.output_multiplier = m.multiplier;
  p.output_shift = m.shift;
  return p;
}

ea_status CheckMul(ea_dtype dtype, const ea_mul_quant_params& p) {
  const bool offsets_ok =
      dtype == EA_DTYPE_INT8
          ? p.input1_offset >= -127 && p.input1_offset <= 128 && p.input2_offset >= -127 &&
                p.input2_offset <= 128 && p.output_offset >= -128 && p.output_offset <= 127
          : p.input1_offset == 0 && p.input2_offset == 0 && p.output_offset == 0;
  const bool ok =
      offsets_ok && p.output_multiplier >= 0 && p.output_shift >= -31 && p.output_shift <= 30;
  return ok ? EA_OK : EA_ERR_BAD_ARGUMENT;
}

}  // namespace edgeattn
