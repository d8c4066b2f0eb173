// int16 dot products for Cortex-M cores with Helium (MVE, Cortex-M55), the
// int16 ("16x8") layer's inner loops: VMLALDAVA.S16 multiplies 8 int16 lane
// pairs and adds them across the vector into a 64-bit scalar accumulator, so
// the sums are exact whatever n. B is int16 (Q K^T, P V) or int8 widened by
// its load (VLDRB.S16: the projections' weights). Tail-predicated loops
// (WLSTP / LETP) as in mve_dot_s8.h, in assembly for the same reasons.
#ifndef EDGEATTN_SRC_KERNELS_INT_ARM_MVE_DOT_S16_H_
#define EDGEATTN_SRC_KERNELS_INT_ARM_MVE_DOT_S16_H_

#include <stdint.h>

#include "kernels/int/arm/mve_dot_s8.h"

#if EDGEATTN_MVE_DOT_S8
// One int16 row `shared` against four rows, i < n: out[r] = sum
// rows[r][i] shared[i] (a query against four keys, probabilities against
// four rows of V^T, an input row against four weight rows). 9 instructions
// per 32 MACs.
extern "C" void edgeattn_mve_dot_s16_4x1(const int16_t* const rows[4], const int16_t* shared,
                                         int32_t n, int64_t out[4]);
extern "C" void edgeattn_mve_dot_s8s16_4x1(const int8_t* const rows[4], const int16_t* shared,
                                           int32_t n, int64_t out[4]);
#endif

#endif  // EDGEATTN_SRC_KERNELS_INT_ARM_MVE_DOT_S16_H_
