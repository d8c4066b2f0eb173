// Instructions executed between two points of a bare-metal program run by
// qemu-system-arm with `-icount shift=0`: there every instruction advances
// virtual time by exactly 1 ns, so a board timer read before and after a
// region counts its instructions in a unit the start-up calibration measures
// (loops of known length). The timers (qemu 7.2, read to the tick):
//   mps2-an386 / an500: CMSDK APB timer 1 (0x40001000), 32-bit, 25 MHz;
//   mps3-an547: the SSE-300 system counter (enabled at 0x58100000), read
//     through system timer 0's CNTPCT (0x48000000), 32 MHz.
// SysTick is not used: qemu 7.2's advances in steps of 65536 instructions
// under -icount.
#ifndef EDGEATTN_BENCH_MCU_INSTRUCTION_COUNTER_H_
#define EDGEATTN_BENCH_MCU_INSTRUCTION_COUNTER_H_

#include <stdint.h>

namespace mcu_bench {

class InstructionCounter {
 public:
  // Starts the board's timer and measures instructions per tick with two
  // loops of known instruction counts (the difference cancels the counter's
  // own overhead). False when virtual time does not follow instructions
  // (qemu run without -icount) or a known loop is not counted to the tick.
  bool Calibrate();
  void Start() { start_ = Ticks(); }
  // Instructions since Start(), less the counter's own.
  uint64_t Stop() const;
  double InstructionsPerTick() const { return per_tick_; }

 private:
  static uint32_t Ticks();  // up-counting, wraps modulo 2^32
  uint32_t start_ = 0;
  double per_tick_ = 0.0;
  double overhead_ = 0.0;
};

// Runs `iterations` passes of a two-instruction loop (subs, bne) in
// assembly: 2 * iterations + 1 instructions whatever the compiler does.
void RunKnownLoop(uint32_t iterations);

}  // namespace mcu_bench

#endif  // EDGEATTN_BENCH_MCU_INSTRUCTION_COUNTER_H_
