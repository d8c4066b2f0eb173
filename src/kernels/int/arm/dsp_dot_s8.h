// int8 dot products for Cortex-M cores with the DSP extension and no Helium
// (Cortex-M4, M7: Armv7E-M), in assembly so that the accumulators, pointers
// and unpacked operands stay in registers (GCC 12 at -O2 spilled the
// accumulators of the C loop: 13 instructions per 4 MACs). Two loops:
// - 2 x 2: two rows of A, given as int16 pairs already holding a + a_offset
//   (the caller widens them once for all their output columns), against two
//   int8 rows of B. Each B word feeds four SMLADs after two SXTB16s: 15
//   instructions per 16 MACs, plus one of loop per 32.
// - 1 x 4: one widened row against four int8 rows (a single query or
//   token): 23 instructions per 16 MACs.
// Offsets are folded by the callers, so the loops are pure products
// accumulated modulo 2^32 (SMLAD wraps like TFLite's int32 accumulator).
#ifndef EDGEATTN_SRC_KERNELS_INT_ARM_DSP_DOT_S8_H_
#define EDGEATTN_SRC_KERNELS_INT_ARM_DSP_DOT_S8_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__ARM_FEATURE_DSP) && !defined(__ARM_FEATURE_MVE) && defined(__thumb2__) && \
    !defined(__aarch64__)
#define EDGEATTN_DSP_DOT_S8 1
#else
#define EDGEATTN_DSP_DOT_S8 0
#endif

namespace edgeattn {

// The longest A rows the 2 x 2 loop takes in one piece (two rows of int16
// pairs on the caller's stack: 1 KB).
inline constexpr int32_t kDspWidenedMax = 256;

// Two rows a0, a1 (a1 may be a0) widened with their offset for the 2 x 2
// loop: per group g of 4 depth steps, pairs[4g .. 4g + 3] = (a0[4g],
// a0[4g + 2]), (a0[4g + 1], a0[4g + 3]), then the same of a1, each an int16
// (low, high) pair: the order SXTB16 unpacks B's bytes in. The last n % 4
// elements are not written (the callers' scalar tails read a directly).
void WidenS8PairsTwoRows(const int8_t* a0, const int8_t* a1, int32_t offset, int32_t n,
                         uint32_t* pairs);
// One row for the 1 x 4 loop: pairs[2g], pairs[2g + 1] as a0's above.
void WidenS8Pairs(const int8_t* a, int32_t offset, int32_t n, uint32_t* pairs);

#if EDGEATTN_DSP_DOT_S8
// acc[2 c + r] += sum_{i < 4 groups} a_r[i] * rows[c][i] for r, c < 2, A from
// WidenS8PairsTwoRows (4-byte aligned), rows int8 (any alignment).
extern "C" void edgeattn_dsp_dot_s8_2x2(const uint32_t* pairs, const int8_t* const rows[2],
                                        int32_t groups, int32_t acc[4]);
// acc[c] += sum_{i < 4 groups} a[i] * rows[c][i] for c < 4, A from
// WidenS8Pairs (4-byte aligned).
extern "C" void edgeattn_dsp_dot_s8_1x4(const uint32_t* pairs, const int8_t* const rows[4],
                                        int32_t groups, int32_t acc[4]);
#endif

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_ARM_DSP_DOT_S8_H_
