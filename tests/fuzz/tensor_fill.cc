#include "tensor_fill.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "reference/random_tensor.h"

namespace edgeattn_fuzz {
namespace {

constexpr float kPlain[32] = {0.0f,   1.0f,  -1.0f, 0.5f,   -0.5f, 2.0f,  -2.0f, 0.25f,
                              -0.25f, 3.0f,  -3.0f, 0.125f, 0.1f,  -0.1f, 4.0f,  -4.0f,
                              1.5f,   -1.5f, 0.75f, -0.75f, 8.0f,  -8.0f, 0.01f, -0.01f,
                              5.0f,   -5.0f, 0.3f,  -0.3f,  6.0f,  -7.0f, 10.0f, -10.0f};

}  // namespace

float SpecialValue(uint8_t index) {
  static const float kSpecial[32] = {
      NAN,     -NAN,     INFINITY, -INFINITY, FLT_MAX, -FLT_MAX, 3e38f,    -3e38f,
      1e38f,   1e30f,    -1e30f,   1e20f,     -1e20f,  1e10f,    -1e10f,   1e5f,
      -1e5f,   1000.0f,  -1000.0f, 100.0f,    -100.0f, FLT_MIN,  -FLT_MIN, 1e-40f,
      -1e-40f, 1.4e-45f, 1e-30f,   -0.0f,     0.0f,    88.8f,    -87.4f,   1e-20f};
  return kSpecial[index % 32];
}

float ElementValue(uint8_t byte) {
  return byte < 224 ? kPlain[byte % 32] : SpecialValue(static_cast<uint8_t>(byte - 224));
}

float ScaleValue(uint8_t kind, uint32_t bits) {
  static const float kScales[8] = {0.5f, 1.0f, 2.0f, 0.125f, 1e-3f, 10.0f, 100.0f, 1e-10f};
  static const float kBadScales[8] = {NAN, INFINITY, -1.0f, -0.0f, FLT_MAX, 1e-40f, FLT_MIN, 1e30f};
  if (kind < 128) return 0.0f;
  if (kind < 192) return kScales[bits % 8];
  if (kind < 224) return kBadScales[bits % 8];
  float value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

void FillTensor(const TensorSpec& spec, float* data, size_t count) {
  if (count == 0) return;
  const double sigma = ldexp(1.0, spec.magnitude % 21 - 10);
  edgeattn_test::RandomStream stream(spec.seed);
  switch (spec.Mode()) {
    case kNormal:
      for (size_t i = 0; i < count; ++i) data[i] = static_cast<float>(stream.Normal() * sigma);
      break;
    case kPerElement:
      for (size_t i = 0; i < count; ++i) {
        data[i] =
            spec.elements.empty() ? 0.0f : ElementValue(spec.elements[i % spec.elements.size()]);
      }
      break;
    case kConstant:
      for (size_t i = 0; i < count; ++i) data[i] = ElementValue(spec.magnitude);
      break;
    default:
      for (size_t i = 0; i < count; ++i) {
        data[i] = static_cast<float>((static_cast<int>(stream.NextBits() % 9) - 4) * sigma);
      }
      break;
  }
  for (uint8_t i = 0; i < spec.SprinkleCount(); ++i) {
    data[spec.sprinkle[i].position % count] = SpecialValue(spec.sprinkle[i].value);
  }
}

}  // namespace edgeattn_fuzz
