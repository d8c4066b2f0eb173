// The Helium dot-product loops (mve_dot_s8.h), AAPCS: arguments in r0-r3,
// r4-r11 saved, only q0 and q1 (caller-saved) used. Accumulators sit in even
// registers (VMLADAVA / VADDVA encode Rda in three bits); the loop count is
// in lr, elements rather than iterations (tail predication).
#include "kernels/int/arm/mve_dot_s8.h"

#if EDGEATTN_MVE_DOT_S8

// r1 B; r3, r5, r7, r9 the A rows; r0, r4, r6, r8 the dot products, r10 B's sum.
extern "C" __attribute__((naked)) void edgeattn_mve_dot_s8_4x1(const int8_t* const[4],
                                                               const int8_t*, int32_t, int32_t[5]) {
  __asm__ volatile(
      "push {r4-r11, lr}\n"
      "push {r3}\n"
      "ldm r0, {r3, r5, r7, r9}\n"
      "movs r0, #0\n"
      "movs r4, #0\n"
      "movs r6, #0\n"
      "mov r8, #0\n"
      "mov r10, #0\n"
      "wlstp.8 lr, r2, 2f\n"
      "1:\n"
      "vldrb.8 q0, [r1], #16\n"
      "vaddva.s8 r10, q0\n"
      "vldrb.8 q1, [r3], #16\n"
      "vmladava.s8 r0, q1, q0\n"
      "vldrb.8 q1, [r5], #16\n"
      "vmladava.s8 r4, q1, q0\n"
      "vldrb.8 q1, [r7], #16\n"
      "vmladava.s8 r6, q1, q0\n"
      "vldrb.8 q1, [r9], #16\n"
      "vmladava.s8 r8, q1, q0\n"
      "letp lr, 1b\n"
      "2:\n"
      "pop {r3}\n"
      "stm r3, {r0, r4, r6, r8, r10}\n"
      "pop {r4-r11, pc}\n");
}

// r0 A; r4, r5 the B rows; r6, r8 the dot products, r10, r12 the B sums.
extern "C" __attribute__((naked)) void edgeattn_mve_dot_s8_1x2(const int8_t*,
                                                               const int8_t* const[2], int32_t,
                                                               int32_t[4]) {
  __asm__ volatile(
      "push {r4-r11, lr}\n"
      "ldrd r4, r5, [r1]\n"
      "movs r6, #0\n"
      "mov r8, #0\n"
      "mov r10, #0\n"
      "mov r12, #0\n"
      "wlstp.8 lr, r2, 2f\n"
      "1:\n"
      "vldrb.8 q0, [r0], #16\n"
      "vldrb.8 q1, [r4], #16\n"
      "vmladava.s8 r6, q0, q1\n"
      "vaddva.s8 r10, q1\n"
      "vldrb.8 q1, [r5], #16\n"
      "vmladava.s8 r8, q0, q1\n"
      "vaddva.s8 r12, q1\n"
      "letp lr, 1b\n"
      "2:\n"
      "strd r6, r8, [r3]\n"
      "strd r10, r12, [r3, #8]\n"
      "pop {r4-r11, pc}\n");
}

extern "C" __attribute__((naked)) int32_t edgeattn_mve_sum_s8(const int8_t*, int32_t) {
  __asm__ volatile(
      "push {lr}\n"
      "movs r2, #0\n"
      "wlstp.8 lr, r1, 2f\n"
      "1:\n"
      "vldrb.8 q0, [r0], #16\n"
      "vaddva.s8 r2, q0\n"
      "letp lr, 1b\n"
      "2:\n"
      "mov r0, r2\n"
      "pop {pc}\n");
}

#endif  // EDGEATTN_MVE_DOT_S8
