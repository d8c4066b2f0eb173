// Three-way output check of every shape before timing (see cross_check.h).
#include "cross_check.h"

#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <set>

#include "busy_process.h"
#include "simd_cap.h"
#include "workloads.h"

namespace edgeattn_bench {
namespace {

// Records one peer's gap; false (and a printed line) when it is too large.
bool GapWithin(const Shape& shape, const char* peer, double gap, double* worst) {
  *worst = std::max(*worst, gap);
  if (gap <= kMaxRelativeGap) return true;
  printf("cross-check %s: max |edgeattn - %s| / max |%s| = %.3g\n", ShapeName(shape).c_str(), peer,
         peer, gap);
  return false;
}

// A workload of `shape` whose edgeattn ran once on `workers` workers, planned and run under the
// shape's SIMD cap; nullptr (and a printed line) when planning or running fails.
std::unique_ptr<Workload> RunEdgeattn(const Shape& shape, int32_t workers, WorkerPool* pool) {
  const ScopedSimdCap cap(SimdCapName(shape.simd));
  std::unique_ptr<Workload> workload = MakeWorkload(shape, pool->HookFor(workers));
  if (cap.status() != EA_OK || workload->plan_status() != EA_OK ||
      workload->RunEdgeattn() != EA_OK) {
    printf("cross-check %s: edgeattn on %d worker(s) failed\n", ShapeName(shape).c_str(), workers);
    return nullptr;
  }
  return workload;
}

// The multi-worker output against the 1-worker one, byte for byte; a busy shape's
// multi-worker run beside the busy process, where the caller runs the tasks of a thread that is
// not scheduled.
bool BitIdenticalToOneWorker(const Shape& shape, WorkerPool* pool) {
  std::unique_ptr<Workload> parallel;
  {
    std::unique_ptr<BusyProcess> busy;
    if (shape.busy) busy = std::make_unique<BusyProcess>();
    if (busy != nullptr && !busy->started()) {
      printf("cross-check %s: could not start the busy process\n", ShapeName(shape).c_str());
      return false;
    }
    parallel = RunEdgeattn(shape, shape.workers, pool);
  }
  const std::unique_ptr<Workload> single = RunEdgeattn(shape, 1, pool);
  if (parallel == nullptr || single == nullptr) return false;
  const std::vector<float>& a = parallel->edgeattn_output();
  const std::vector<float>& b = single->edgeattn_output();
  if (a.size() == b.size() && memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0) {
    return true;
  }
  printf("cross-check %s: %d workers' output differs from 1 worker's\n", ShapeName(shape).c_str(),
         shape.workers);
  return false;
}

}  // namespace

CrossCheckResult CrossCheck(const std::vector<Shape>& shapes, WorkerPool* pool) {
  CrossCheckResult result;
  std::set<std::string> seen_implementations;
  size_t peer_shapes = 0;
  for (const Shape& shape : shapes) {
    if (IsFixedPoint(shape)) continue;                // CheckFixedPointShapes
    if (shape.kind == Kind::kDecodeStream) continue;  // CheckDecodeStreams
    if (shape.busy && shape.workers == 1) continue;   // the 1-worker output, checked already
    if (shape.workers > 1) {
      ++result.multi_worker_shapes;
      if (BitIdenticalToOneWorker(shape, pool)) {
        ++result.multi_worker_identical;
      } else {
        result.agree = false;
      }
      continue;
    }
    ++peer_shapes;
    const std::unique_ptr<Workload> workload = RunEdgeattn(shape, 1, pool);
    if (workload == nullptr) {
      result.agree = false;
      continue;
    }
    workload->RunEigen();
    workload->RunOnednn();
    // Both checks run, so every failing peer is printed.
    const bool eigen_ok =
        GapWithin(shape, "Eigen", workload->RelativeGap(Library::kEigen), &result.worst_eigen_gap);
    const bool onednn_ok = GapWithin(shape, "oneDNN", workload->RelativeGap(Library::kOnednn),
                                     &result.worst_onednn_gap);
    result.agree = result.agree && eigen_ok && onednn_ok;

    const std::string implementations = workload->OnednnImplementations();
    if (seen_implementations.insert(implementations).second) {
      result.onednn_implementations.push_back(ShapeName(shape) + ": " + implementations);
    }
  }
  printf(
      "cross-check of %zu shapes: worst max |edgeattn - Eigen| / max |Eigen| = %.2g, "
      "worst max |edgeattn - oneDNN| / max |oneDNN| = %.2g (limit %.0e); %d of %d "
      "multi-worker shapes bit-identical to 1 worker (memcmp): %s\n",
      peer_shapes, result.worst_eigen_gap, result.worst_onednn_gap, kMaxRelativeGap,
      result.multi_worker_identical, result.multi_worker_shapes, result.agree ? "agree" : "FAILED");
  return result;
}

}  // namespace edgeattn_bench
