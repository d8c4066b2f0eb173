// The Armv7E-M int16 dot products (dsp_dot_s16.h). The 1 x 2 loop, AAPCS:
// arguments in r0-r3, r4-r11 saved, the accumulator pointer kept on the
// stack. Registers: r0 A, r2 the group count, r4 / r5 the B rows, r6:r7 and
// r8:r9 the 64-bit accumulators, r10 r11 A's two words, r1 r3 a B row's.
#include "kernels/int/arm/dsp_dot_s16.h"

namespace edgeattn {

namespace {

// (low, high) as the int16 lanes of one word (low first).
inline uint32_t Pair(int16_t low, int16_t high) {
  return (static_cast<uint32_t>(static_cast<uint16_t>(low))) |
         (static_cast<uint32_t>(static_cast<uint16_t>(high)) << 16);
}

}  // namespace

void WidenS16PairsTwoRows(const int16_t* a0, const int16_t* a1, int32_t n, uint32_t* pairs) {
  for (int32_t g = 0; g + 4 <= n; g += 4, pairs += 4) {
    WidenS16Pairs(a0 + g, 4, pairs);
    WidenS16Pairs(a1 + g, 4, pairs + 2);
  }
}

void WidenS16Pairs(const int16_t* a, int32_t n, uint32_t* pairs) {
  for (int32_t g = 0; g + 4 <= n; g += 4, pairs += 2) {
    pairs[0] = Pair(a[g], a[g + 2]);
    pairs[1] = Pair(a[g + 1], a[g + 3]);
  }
}

#if EDGEATTN_DSP_DOT_S8

// One group: A's four values against four of each B row.
#define EA_DSP_S16_GROUP      \
  "ldrd r10, r11, [r0], #8\n" \
  "ldrd r1, r3, [r4], #8\n"   \
  "smlald r6, r7, r10, r1\n"  \
  "smlald r6, r7, r11, r3\n"  \
  "ldrd r1, r3, [r5], #8\n"   \
  "smlald r8, r9, r10, r1\n"  \
  "smlald r8, r9, r11, r3\n"

// One group if the count is odd, then pairs of groups (as dsp_dot_s8.cc).
extern "C" __attribute__((naked)) void edgeattn_dsp_dot_s16_1x2(const int16_t*,
                                                                const int16_t* const[2], int32_t,
                                                                int64_t[2]) {
  __asm__ volatile(
      "push {r4-r11, lr}\n"
      "ldrd r4, r5, [r1]\n"
      "push {r3}\n"
      "ldm r3, {r6-r9}\n"
      "lsrs r2, r2, #1\n"
      "bcc 2f\n" EA_DSP_S16_GROUP
      "2:\n"
      "beq 4f\n"
      "3:\n" EA_DSP_S16_GROUP EA_DSP_S16_GROUP
      "subs r2, r2, #1\n"
      "bne 3b\n"
      "4:\n"
      "pop {r3}\n"
      "stm r3, {r6-r9}\n"
      "pop {r4-r11, pc}\n");
}

#undef EA_DSP_S16_GROUP

#endif  // EDGEATTN_DSP_DOT_S8

}  // namespace edgeattn
