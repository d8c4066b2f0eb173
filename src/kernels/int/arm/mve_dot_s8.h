// int8 dot products on 8-bit lanes for Cortex-M cores with Helium (MVE,
// Cortex-M55): VMLADAVA.S8 multiplies 16 byte pairs and adds them across the
// vector into a 32-bit scalar accumulator, VADDVA.S8 sums B's bytes for the
// offset term. Offsets never enter the loops: the callers expand
//   sum (a + a_offset)(b + b_offset)
//     = sum a b + b_offset sum a + a_offset sum b + n a_offset b_offset,
// every term modulo 2^32 like TFLite's int32 accumulator. The loops are
// tail-predicated low-overhead loops (WLSTP / LETP), so any n runs whole
// vectors with the lanes past n inactive.
//
// In assembly: GCC 12 compiled the same loop from ACLE intrinsics to 33
// instructions per 16 bytes (address recomputation, predicate moves through
// the stack) against 11 here, and VMLADAVA's accumulator must be an even
// register, which no asm constraint can ask for.
#ifndef EDGEATTN_SRC_KERNELS_INT_ARM_MVE_DOT_S8_H_
#define EDGEATTN_SRC_KERNELS_INT_ARM_MVE_DOT_S8_H_

#include <stdint.h>

#if defined(__ARM_FEATURE_MVE) && defined(__thumb2__) && !defined(__aarch64__)
#define EDGEATTN_MVE_DOT_S8 1
#else
#define EDGEATTN_MVE_DOT_S8 0
#endif

#if EDGEATTN_MVE_DOT_S8
// Four A rows against one B row, i < n: out[r] = sum a[r][i] b[i] for r < 4,
// out[4] = sum b[i]. 11 instructions per 64 MACs.
extern "C" void edgeattn_mve_dot_s8_4x1(const int8_t* const a[4], const int8_t* b, int32_t n,
                                        int32_t out[5]);
// One A row against two B rows: out[c] = sum a[i] b[c][i], out[2 + c] =
// sum b[c][i] for c < 2 (a single query or token). 8 instructions per 32 MACs.
extern "C" void edgeattn_mve_dot_s8_1x2(const int8_t* a, const int8_t* const b[2], int32_t n,
                                        int32_t out[4]);
// sum a[i] for i < n.
extern "C" int32_t edgeattn_mve_sum_s8(const int8_t* a, int32_t n);
#endif

#endif  // EDGEATTN_SRC_KERNELS_INT_ARM_MVE_DOT_S8_H_
