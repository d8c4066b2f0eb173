// A board timer as an instruction counter under qemu's -icount shift=0 (see
// the header). Registers: Arm CMSDK APB timer (CTRL 0x0, VALUE 0x4, RELOAD
// 0x8), Arm Corstone SSE-300 system counter (CNTCR 0x0) and system timer
// (CNTPCT 0x0).
#include "instruction_counter.h"

#include <math.h>

namespace mcu_bench {
namespace {

volatile uint32_t* Register(uintptr_t address) {
  return reinterpret_cast<volatile uint32_t*>(address);
}

#if defined(MCU_BENCH_BOARD_an547)
constexpr uintptr_t kCounterControl = 0x58100000u;  // CNTCR: bit 0 enables
constexpr uintptr_t kTimerCount = 0x48000000u;      // CNTPCT, low word
void StartTimer() { *Register(kCounterControl) = 1u; }
uint32_t ReadTimer() { return *Register(kTimerCount); }
#elif defined(MCU_BENCH_BOARD_an386) || defined(MCU_BENCH_BOARD_an500)
constexpr uintptr_t kTimer = 0x40001000u;
void StartTimer() {
  *Register(kTimer) = 0;                // stop
  *Register(kTimer + 8) = 0xFFFFFFFFu;  // RELOAD
  *Register(kTimer + 4) = 0xFFFFFFFFu;  // VALUE
  *Register(kTimer) = 1u;               // enable, no interrupt
}
uint32_t ReadTimer() { return ~*Register(kTimer + 4); }  // counts down
#else
#error "bench/mcu: build with -DMCU_BENCH_BOARD_<board> (an386, an500 or an547)"
#endif

}  // namespace

void RunKnownLoop(uint32_t iterations) {
  __asm__ volatile(
      "1: subs %0, %0, #1\n"
      "   bne 1b\n"
      : "+r"(iterations)
      :
      : "cc");
}

uint32_t InstructionCounter::Ticks() { return ReadTimer(); }

uint64_t InstructionCounter::Stop() const {
  const uint32_t ticks = Ticks() - start_;
  const double instructions = static_cast<double>(ticks) * per_tick_ - overhead_;
  return instructions > 0.0 ? static_cast<uint64_t>(instructions + 0.5) : 0;
}

bool InstructionCounter::Calibrate() {
  StartTimer();
  constexpr uint32_t kShort = 1000000, kLong = 3000000;
  Start();
  RunKnownLoop(kShort);
  const uint32_t short_ticks = Ticks() - start_;
  Start();
  RunKnownLoop(kLong);
  const uint32_t long_ticks = Ticks() - start_;
  if (long_ticks <= short_ticks) return false;
  per_tick_ = 2.0 * (kLong - kShort) / static_cast<double>(long_ticks - short_ticks);
  overhead_ = static_cast<double>(short_ticks) * per_tick_ - (2.0 * kShort + 1.0);
  // A loop of another length must come out right to within a tick.
  constexpr uint32_t kCheck = 12345;
  Start();
  RunKnownLoop(kCheck);
  const double error = static_cast<double>(Stop()) - (2.0 * kCheck + 1.0);
  return fabs(error) <= per_tick_ + 1.0;
}

}  // namespace mcu_bench
