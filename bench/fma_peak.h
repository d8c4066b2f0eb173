// The machine's own single-core FMA peak, measured in the same run as the benchmarks, so every
// GFLOP/s figure can be read as a fraction of what this core (at its current clock) can do.
#ifndef EDGEATTN_BENCH_FMA_PEAK_H_
#define EDGEATTN_BENCH_FMA_PEAK_H_

#include <stddef.h>
#include <stdint.h>

namespace edgeattn_bench {

struct FmaPeak {
  double gflops = 0.0;      // best trial: 2 * lanes * chains * iterations / seconds
  const char* target = "";  // Highway static target the probe was compiled for
  size_t lanes = 0;         // float lanes per vector
  int chains = 0;           // independent MulAdd accumulator chains
  int64_t iterations = 0;   // loop iterations per trial
  double seconds = 0.0;     // time of the best trial
};

// Runs `trials` trials of about `seconds_per_trial` each and keeps the fastest: many short
// trials give a busy machine more chances to leave one of them alone.
FmaPeak MeasureFmaPeak(double seconds_per_trial = 0.05, int trials = 16);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_FMA_PEAK_H_
