// The Armv7E-M DSP dot-product loops (dsp_dot_s8.h). The assembly follows
// the AAPCS: arguments in r0-r3, r4-r11 saved, the accumulator pointer kept
// on the stack. Registers in the loops: r0 A, r2 the loop count, r8-r11 the
// accumulators, r12 / lr a B word unpacked;
//   2 x 2: r4, r5 the B rows, r1 r3 (row 0) and r6 r7 (row 1) A's pairs;
//   1 x 4: r4-r7 the B rows, r1 / r3 A's pairs.
#include "kernels/int/arm/dsp_dot_s8.h"

namespace edgeattn {

namespace {

// (low + offset, high + offset) as int16 lanes of one word (low first).
inline uint32_t OffsetPair(int32_t low, int32_t high, int32_t offset) {
  return (static_cast<uint32_t>(low + offset) & 0xFFFFu) |
         (static_cast<uint32_t>(high + offset) << 16);
}

}  // namespace

void WidenS8PairsTwoRows(const int8_t* a0, const int8_t* a1, int32_t offset, int32_t n,
                         uint32_t* pairs) {
  for (int32_t g = 0; g + 4 <= n; g += 4, pairs += 4) {
    WidenS8Pairs(a0 + g, offset, 4, pairs);
    WidenS8Pairs(a1 + g, offset, 4, pairs + 2);
  }
}

void WidenS8Pairs(const int8_t* a, int32_t offset, int32_t n, uint32_t* pairs) {
  for (int32_t g = 0; g + 4 <= n; g += 4, pairs += 2) {
    pairs[0] = OffsetPair(a[g], a[g + 2], offset);
    pairs[1] = OffsetPair(a[g + 1], a[g + 3], offset);
  }
}

#if EDGEATTN_DSP_DOT_S8

// One B row's word against A's words `even` (elements 0, 2) and `odd` (1, 3).
#define EA_DSP_MAC(acc, even, odd)    \
  "smlad " acc ", " even ", lr, " acc \
  "\n"                                \
  "smlad " acc ", " odd ", r12, " acc "\n"
#define EA_DSP_B(row) \
  "ldr r12, [" row    \
  "], #4\n"           \
  "sxtb16 lr, r12\n"  \
  "sxtb16 r12, r12, ror #8\n"

#define EA_DSP_GROUP_2X2                                                                \
  "ldm r0!, {r1, r3, r6, r7}\n" EA_DSP_B("r4") EA_DSP_MAC("r8", "r1", "r3") EA_DSP_MAC( \
      "r9", "r6", "r7") EA_DSP_B("r5") EA_DSP_MAC("r10", "r1", "r3") EA_DSP_MAC("r11", "r6", "r7")

#define EA_DSP_GROUP_1X4                                                                       \
  "ldrd r1, r3, [r0], #8\n" EA_DSP_B("r4") EA_DSP_MAC("r8", "r1", "r3") EA_DSP_B("r5")         \
      EA_DSP_MAC("r9", "r1", "r3") EA_DSP_B("r6") EA_DSP_MAC("r10", "r1", "r3") EA_DSP_B("r7") \
          EA_DSP_MAC("r11", "r1", "r3")

// Runs one group if the count is odd, then pairs of groups. No instruction
// of a group sets the flags, so both tests read the one LSRS.
#define EA_DSP_LOOP(GROUP) \
  "lsrs r2, r2, #1\n"      \
  "bcc 2f\n" GROUP         \
  "2:\n"                   \
  "beq 4f\n"               \
  "3:\n" GROUP GROUP       \
  "subs r2, r2, #1\n"      \
  "bne 3b\n"               \
  "4:\n"                   \
  "pop {r3}\n"             \
  "stm r3, {r8-r11}\n"     \
  "pop {r4-r11, pc}\n"

extern "C" __attribute__((naked)) void edgeattn_dsp_dot_s8_2x2(const uint32_t*,
                                                               const int8_t* const[2], int32_t,
                                                               int32_t[4]) {
  __asm__ volatile(
      "push {r4-r11, lr}\n"
      "ldrd r4, r5, [r1]\n"
      "push {r3}\n"
      "ldm r3, {r8-r11}\n" EA_DSP_LOOP(EA_DSP_GROUP_2X2));
}

extern "C" __attribute__((naked)) void edgeattn_dsp_dot_s8_1x4(const uint32_t*,
                                                               const int8_t* const[4], int32_t,
                                                               int32_t[4]) {
  __asm__ volatile(
      "push {r4-r11, lr}\n"
      "ldm r1, {r4-r7}\n"
      "push {r3}\n"
      "ldm r3, {r8-r11}\n" EA_DSP_LOOP(EA_DSP_GROUP_1X4));
}

#undef EA_DSP_LOOP
#undef EA_DSP_GROUP_1X4
#undef EA_DSP_GROUP_2X2
#undef EA_DSP_B
#undef EA_DSP_MAC

#endif  // EDGEATTN_DSP_DOT_S8

}  // namespace edgeattn
