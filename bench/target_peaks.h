// The peaks a row's pct_peak is read against, all measured at the start of the same run on one
// core: the FMA peaks of the best target (edgeattn's normal rows, and the peers, which run
// AVX-512 builds) and of AVX2 (edgeattn's rows capped at AVX2), and the integer dot-product
// peaks of the fixed-point rows (int8: vpdpbusd where there is AVX512-VNNI; int16: vpmaddwd;
// int_dot_peak.h). A row on N workers uses N cores, so its peak is N x the single-core one
// (the probe runs on one core; the VM's cores are not SMT siblings, so each has its own FMA
// units).
// The decode rows read their K/V once per token, so they are also read against the core's
// read bandwidth at their own working set (read_bandwidth.h), one probe per distinct size.
#ifndef EDGEATTN_BENCH_TARGET_PEAKS_H_
#define EDGEATTN_BENCH_TARGET_PEAKS_H_

#include <vector>

#include "benchmark_names.h"
#include "fma_peak.h"
#include "int_dot_peak.h"
#include "read_bandwidth.h"
#include "shapes.h"

namespace edgeattn_bench {

struct TargetPeaks {
  FmaPeak best;  // dynamic dispatch, no cap: the target ea_simd_target() reports
  FmaPeak avx2;  // dynamic dispatch capped at AVX2
  IntDotPeaks integer;
  std::vector<ReadBandwidth> read;  // one per decode working set of the suite, smallest first

  // GFLOP/s of the peak the row of `library` on `shape` ran against (GOP/s for a fixed-point
  // row; 0 where no integer probe ran, and the row then has no pct_peak).
  double GflopsFor(const Shape& shape, Library library) const {
    if (shape.precision == Precision::kS8) return integer.int8.gops * shape.workers;
    if (shape.precision == Precision::kS16) return integer.int16.gops * shape.workers;
    if (library != Library::kEdgeattn) return best.gflops;
    return (shape.simd == SimdTarget::kAvx2 ? avx2.gflops : best.gflops) * shape.workers;
  }

  // GB/s of the read-bandwidth probe at the decode row's working set (ShapeCacheBytes); 0 for
  // other rows, or where that size was not probed (the row then has no pct_bw).
  double GbpsFor(const Shape& shape) const {
    const uint64_t bytes = ShapeCacheBytes(shape);
    for (const ReadBandwidth& probe : read) {
      if (bytes > 0 && probe.bytes == bytes) return probe.gbps;
    }
    return 0.0;
  }
};

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_TARGET_PEAKS_H_
