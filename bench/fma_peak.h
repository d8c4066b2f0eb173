// The core's own single-core FMA peak, measured in the same run as the figures it scales, so a
// GFLOP/s figure can be read as a share of what this core (at its current clock) can do. One
// probe for the benchmarks and for the demo (examples/demo.cc), so both mean the same "peak".
#ifndef EDGEATTN_BENCH_FMA_PEAK_H_
#define EDGEATTN_BENCH_FMA_PEAK_H_

#include <stddef.h>
#include <stdint.h>

namespace edgeattn_bench {

// Which compiled copy of the probe runs. The library dispatches at run time, so a peak that
// scales its figures should come from kDispatched (the demo and the benchmarks do, the
// benchmarks once as is and once capped at AVX2).
enum class FmaProbeTarget {
  kStatic,      // HWY_STATIC_DISPATCH: the best target the compiler flags allow
  kDispatched,  // HWY_DYNAMIC_DISPATCH: the target Highway picks at run time, as the library
                // does when this file is built with the library's flags (static builds:
                // the same as kStatic)
};

struct FmaPeak {
  double gflops = 0.0;        // best trial: 2 * lanes * chains * iterations / seconds
  const char* target = "";    // Highway target of the copy that ran
  const char* dispatch = "";  // "static dispatch" or "dynamic dispatch"
  size_t lanes = 0;           // float lanes per vector
  int chains = 0;             // independent MulAdd accumulator chains
  int64_t iterations = 0;     // loop iterations per trial
  double seconds = 0.0;       // time of the best trial
};

// Runs `trials` trials of about `seconds_per_trial` each and keeps the fastest: many short
// trials give a busy machine more chances to leave one of them alone.
FmaPeak MeasureFmaPeak(double seconds_per_trial = 0.05, int trials = 16,
                       FmaProbeTarget which = FmaProbeTarget::kStatic);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_FMA_PEAK_H_
