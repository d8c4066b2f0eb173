// The core's own single-core integer dot-product peaks, measured in the same run as the
// fixed-point rows they scale (the integer counterpart of fma_peak.h):
// - int8: vpdpbusd (AVX512-VNNI: 64 u8 x s8 multiply-accumulates into 16 int32 lanes per
//   instruction) where the CPU has it, else the widening path below;
// - int16, and int8 without VNNI: vpmaddwd (int16 pairs multiplied and added into int32
//   lanes: 32 multiply-accumulates per zmm, 16 per ymm), the widening multiply-add of
//   edgeattn's int16 x int8 kernels (Highway's ReorderWidenMulAccumulate), at the width they
//   run it: zmm where the CPU has AVX512BW (Highway's AVX3 targets), else ymm (AVX2). Known
//   cores run zmm vpmaddwd at least at ymm's operations per cycle (Zen 4 splits it into two
//   256-bit halves: the same rate; the development VM measures 234 zmm vs 231 ymm GOP/s).
// Operations = 2 per multiply-accumulate, as the rows count them. x86 only: elsewhere no probe
// runs and the fixed-point rows carry no pct_peak.
#ifndef EDGEATTN_BENCH_INT_DOT_PEAK_H_
#define EDGEATTN_BENCH_INT_DOT_PEAK_H_

#include <stdint.h>

namespace edgeattn_bench {

struct IntDotPeak {
  double gops = 0.0;             // best trial: 2 * macs * chains * iterations / seconds, 1e9 units
  const char* probe = "none";    // "vpdpbusd zmm (AVX512-VNNI)", "vpmaddwd ymm (AVX2)", ...
  int macs_per_instruction = 0;  // multiply-accumulates of one instruction
  int chains = 0;                // independent accumulator chains
  int64_t iterations = 0;        // loop iterations per trial
  double seconds = 0.0;          // time of the best trial
};

struct IntDotPeaks {
  IntDotPeak int8;   // vpdpbusd, or the vpmaddwd peak where the CPU has no AVX512-VNNI
  IntDotPeak int16;  // vpmaddwd
};

// Each probe runs `trials` trials of about `seconds_per_trial` and keeps the fastest, as
// MeasureFmaPeak does.
IntDotPeaks MeasureIntDotPeaks(double seconds_per_trial, int trials);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_INT_DOT_PEAK_H_
