// Stack painting (see the header). The linker scripts of platform/cortex-m
// put the stack between the end of .bss and the top of RAM.
#include "stack_watermark.h"

extern "C" unsigned __bss_end__;  // the linker scripts' end of .bss

namespace mcu_bench {
namespace {

constexpr unsigned kPaint = 0xA5C3E10Fu;

}  // namespace

void StackWatermark::PaintBelow(unsigned* sp) {
  base_ = sp;
  for (unsigned* word = &__bss_end__ + 16; word < sp - kMarginWords; ++word) {
    *reinterpret_cast<volatile unsigned*>(word) = kPaint;
  }
}

size_t StackWatermark::UsedBytes() const {
  unsigned* word = &__bss_end__ + 16;
  while (word < base_ && *reinterpret_cast<volatile unsigned*>(word) == kPaint) ++word;
  return static_cast<size_t>(base_ - word) * sizeof(unsigned);
}

}  // namespace mcu_bench
