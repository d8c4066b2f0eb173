// The Helium int16 dot-product loops (mve_dot_s16.h), AAPCS: arguments in
// r0-r3, r4-r11 saved, only q0 and q1 used. r0-r3 the four rows (VLDRB.S16
// takes only a low base register), r12 the shared row, r4:r5 .. r10:r11 the
// 64-bit accumulators (VMLALDAVA takes an even low and an odd high
// register), lr the element count; the output pointer waits on the stack.
// The rows are loaded once WLSTP has read the count from r2.
#include "kernels/int/arm/mve_dot_s16.h"

#if EDGEATTN_MVE_DOT_S8

#define EA_MVE_S16_4X1(LOAD_ROW) \
  "push {r4-r11, lr}\n"                            \
  "push {r3}\n"                                    \
  "mov r12, r1\n"                                  \
  "movs r4, #0\n"                                  \
  "movs r5, #0\n"                                  \
  "movs r6, #0\n"                                  \
  "movs r7, #0\n"                                  \
  "mov r8, #0\n"                                   \
  "mov r9, #0\n"                                   \
  "mov r10, #0\n"                                  \
  "mov r11, #0\n"                                  \
  "wlstp.16 lr, r2, 2f\n"                          \
  "ldm r0, {r0-r3}\n"                              \
  "1:\n"                                           \
  "vldrh.16 q0, [r12], #16\n" LOAD_ROW("r0")       \
  "vmlaldava.s16 r4, r5, q1, q0\n" LOAD_ROW("r1")  \
  "vmlaldava.s16 r6, r7, q1, q0\n" LOAD_ROW("r2")  \
  "vmlaldava.s16 r8, r9, q1, q0\n" LOAD_ROW("r3")  \
  "vmlaldava.s16 r10, r11, q1, q0\n"               \
  "letp lr, 1b\n"                                  \
  "2:\n"                                           \
  "pop {lr}\n"                                     \
  "stm lr, {r4-r11}\n"                             \
  "pop {r4-r11, pc}\n"

#define EA_LOAD_S16(row) "vldrh.16 q1, [" row "], #16\n"
#define EA_LOAD_S8(row) "vldrb.s16 q1, [" row "], #8\n"

extern "C" __attribute__((naked)) void edgeattn_mve_dot_s16_4x1(const int16_t* const[4],
                                                                const int16_t*, int32_t,
                                                                int64_t[4]) {
  __asm__ volatile(EA_MVE_S16_4X1(EA_LOAD_S16));
}

extern "C" __attribute__((naked)) void edgeattn_mve_dot_s8s16_4x1(const int8_t* const[4],
                                                                  const int16_t*, int32_t,
                                                                  int64_t[4]) {
  __asm__ volatile(EA_MVE_S16_4X1(EA_LOAD_S8));
}

#undef EA_LOAD_S8
#undef EA_LOAD_S16
#undef EA_MVE_S16_4X1

#endif  // EDGEATTN_MVE_DOT_S8
