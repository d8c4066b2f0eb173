// int16 dot products for Cortex-M cores with the DSP extension and no Helium
// (Cortex-M4, M7), the int16 ("16x8") layer's inner loops:
// - int16 x int8 (the projections) run dsp_dot_s8.h's 2 x 2 and 1 x 4 loops
//   unchanged, with A's int16 values rearranged into the pairs SXTB16 gives
//   B's bytes in (WidenS16Pairs*). Their int32 accumulators are exact while
//   n <= kDspWidenedMax: |sum| <= 256 * 2^15 * 2^7 = 2^30.
// - int16 x int16 (Q K^T, P V) run the 1 x 2 loop below: SMLALD multiplies
//   both int16 halves of two words and adds them to a 64-bit accumulator,
//   so no product or sum can overflow. 7 instructions per 8 MACs.
#ifndef EDGEATTN_SRC_KERNELS_INT_ARM_DSP_DOT_S16_H_
#define EDGEATTN_SRC_KERNELS_INT_ARM_DSP_DOT_S16_H_

#include <stdint.h>

#include "kernels/int/arm/dsp_dot_s8.h"

namespace edgeattn {

// Two int16 rows a0, a1 laid out as WidenS8PairsTwoRows lays out int8 rows
// (offset 0): per group g of 4, (a0[4g], a0[4g + 2]), (a0[4g + 1],
// a0[4g + 3]), then the same of a1. The last n % 4 elements are not written.
void WidenS16PairsTwoRows(const int16_t* a0, const int16_t* a1, int32_t n, uint32_t* pairs);
// One row for the 1 x 4 loop, as WidenS8Pairs.
void WidenS16Pairs(const int16_t* a, int32_t n, uint32_t* pairs);

#if EDGEATTN_DSP_DOT_S8
// acc[c] += sum_{i < 4 groups} a[i] * rows[c][i] for c < 2, exact in int64.
// a and both rows 4-byte aligned (LDRD).
extern "C" void edgeattn_dsp_dot_s16_1x2(const int16_t* a, const int16_t* const rows[2],
                                         int32_t groups, int64_t acc[2]);
#endif

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_ARM_DSP_DOT_S16_H_
