// TFLite's int16 softmax tables (constant data, see the .cc).
#ifndef EDGEATTN_SRC_TFLITE_SOFTMAX_S16_TABLES_H_
#define EDGEATTN_SRC_TFLITE_SOFTMAX_S16_TABLES_H_

#include <stdint.h>

namespace edgeattn {

inline constexpr int kSoftmaxS16TableSize = 513;
// exp(x) for x = -10 + 10 * i / 512, Q0.15.
extern const int16_t kSoftmaxS16ExpTable[kSoftmaxS16TableSize];
// 1 / (1 + x) for x = i / 512, Q0.15.
extern const int16_t kSoftmaxS16ReciprocalTable[kSoftmaxS16TableSize];

// An exp table as byte planes: entries i and i + 1 for i < 512, low and high
// bytes apart, so that a byte permute (vpermt2b, 128 bytes a window) looks up
// 64 entries at once where a 16-bit one (vpermt2w, 64 entries a window) looks
// up 32 (vnni_s16-inl.h).
inline constexpr int kSoftmaxS16ExpBytePlaneSize = kSoftmaxS16TableSize - 1;
struct SoftmaxS16ExpBytePlanes {
  alignas(64) uint8_t base_low[kSoftmaxS16ExpBytePlaneSize];
  alignas(64) uint8_t base_high[kSoftmaxS16ExpBytePlaneSize];
  alignas(64) uint8_t next_low[kSoftmaxS16ExpBytePlaneSize];
  alignas(64) uint8_t next_high[kSoftmaxS16ExpBytePlaneSize];
};
void SplitExpTable(const int16_t* exp_table, SoftmaxS16ExpBytePlanes* planes);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_TFLITE_SOFTMAX_S16_TABLES_H_
