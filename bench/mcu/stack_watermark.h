// Deepest stack use of a call on the bare-metal boards of platform/cortex-m:
// the free stack (from the end of .bss up to just below the caller's frame)
// is painted with a pattern before the call, and the lowest word the call
// changed marks how deep it went.
#ifndef EDGEATTN_BENCH_MCU_STACK_WATERMARK_H_
#define EDGEATTN_BENCH_MCU_STACK_WATERMARK_H_

#include <stddef.h>

namespace mcu_bench {

class StackWatermark {
 public:
  // Paints the free stack below the caller's stack pointer (inlined, so
  // that it reads the caller's). The first kMarginWords below it stay
  // unpainted (this function's own spills), so a call using fewer bytes
  // reads as using them all.
  __attribute__((always_inline)) inline void Paint() {
    unsigned* sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    PaintBelow(sp);
  }
  // Bytes below the caller's stack pointer at Paint() that the calls since
  // used (the deepest changed word).
  size_t UsedBytes() const;

  static constexpr size_t kMarginWords = 64;

 private:
  void PaintBelow(unsigned* sp);
  unsigned* base_ = nullptr;  // the caller's stack pointer
};

}  // namespace mcu_bench

#endif  // EDGEATTN_BENCH_MCU_STACK_WATERMARK_H_
