// Before anything is timed, the three libraries run every shape of the suite on the same inputs
// and must agree: a speed ratio means nothing between outputs that differ. The AVX2 shapes are
// checked under the AVX2 cap, so the kernels they time are the kernels checked. A multi-worker
// shape is edgeattn's only: its output must be bit-identical (memcmp) to edgeattn's on one
// worker, which the library promises for any worker count and schedule (a busy shape's runs
// beside the busy process, where the caller takes over the tasks of a descheduled thread);
// the 1-worker output is the one checked against the peers. Fixed-point shapes (edgeattn only) are
// quant_check.h's, KV-cache shapes (edgeattn only) decode_stream_check.h's.
#ifndef EDGEATTN_BENCH_CROSS_CHECK_H_
#define EDGEATTN_BENCH_CROSS_CHECK_H_

#include <string>
#include <vector>

#include "shapes.h"
#include "worker_pool.h"

namespace edgeattn_bench {

// Worst gap tolerated between edgeattn's output and a peer's, max |edgeattn - peer| /
// max |peer| (README promises 1e-5 against a double reference for edgeattn; the peers' float
// rounding adds its own share).
inline constexpr double kMaxRelativeGap = 1e-4;

struct CrossCheckResult {
  bool agree = true;
  double worst_eigen_gap = 0.0;    // max over shapes of max |edgeattn - Eigen| / max |Eigen|
  double worst_onednn_gap = 0.0;   // the same against oneDNN
  int multi_worker_shapes = 0;     // shapes compared bit by bit with their 1-worker output
  int multi_worker_identical = 0;  // how many of them were bit-identical
  // The distinct oneDNN implementation lists, each with the first shape that used it.
  std::vector<std::string> onednn_implementations;
};

// Runs every float32 shape once per library and compares; prints each failure and a summary
// line. Multi-worker shapes run on `pool`; fixed-point and KV-cache shapes are skipped.
CrossCheckResult CrossCheck(const std::vector<Shape>& shapes, WorkerPool* pool);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_CROSS_CHECK_H_
