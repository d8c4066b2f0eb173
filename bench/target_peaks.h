// The FMA peaks a row's pct_peak is read against, both measured at the start of the same run
// on one core: the best target's (edgeattn's normal rows, and the peers, which run AVX-512
// builds) and AVX2's (edgeattn's rows capped at AVX2). A row on N workers uses N cores, so its
// peak is N x the single-core one (the probe runs on one core; the VM's cores are not SMT
// siblings, so each has its own FMA units).
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
    if (library != Library::kEdgeattn) return best.gflops;
    return (shape.simd == SimdTarget::kAvx2 ? avx2.gflops : best.gflops) * shape.workers;
  }
};

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_TARGET_PEAKS_H_
