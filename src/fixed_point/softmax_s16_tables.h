// TFLite's int16 softmax tables (constant data, see the .cc).
#ifndef EDGEATTN_SRC_FIXED_POINT_SOFTMAX_S16_TABLES_H_
#define EDGEATTN_SRC_FIXED_POINT_SOFTMAX_S16_TABLES_H_

#include <stdint.h>

namespace edgeattn {

inline constexpr int kSoftmaxS16TableSize = 513;
// exp(x) for x = -10 + 10 * i / 512, Q0.15.
extern const int16_t kSoftmaxS16ExpTable[kSoftmaxS16TableSize];
// 1 / (1 + x) for x = i / 512, Q0.15.
extern const int16_t kSoftmaxS16ReciprocalTable[kSoftmaxS16TableSize];

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_FIXED_POINT_SOFTMAX_S16_TABLES_H_
