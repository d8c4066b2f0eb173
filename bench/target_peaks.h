// The FMA peaks a row's pct_peak is read against, both measured at the start of the same run:
// the best target's (edgeattn's normal rows, and the peers, which run AVX-512 builds) and
// AVX2's (edgeattn's rows capped at AVX2).
#ifndef EDGEATTN_BENCH_TARGET_PEAKS_H_
#define EDGEATTN_BENCH_TARGET_PEAKS_H_

#include "benchmark_names.h"
#include "fma_peak.h"
#include "shapes.h"

namespace edgeattn_bench {

struct TargetPeaks {
  FmaPeak best;  // dynamic dispatch, no cap: the target ea_simd_target() reports
  FmaPeak avx2;  // dynamic dispatch capped at AVX2

  // GFLOP/s of the peak the row of `library` on `shape` ran against.
  double GflopsFor(const Shape& shape, Library library) const {
    return library == Library::kEdgeattn && shape.simd == SimdTarget::kAvx2 ? avx2.gflops
                                                                            : best.gflops;
  }
};

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_TARGET_PEAKS_H_
