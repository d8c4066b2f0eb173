// Three-way output check of every shape before timing (see cross_check.h).
#include "cross_check.h"

#include <stdio.h>

#include <algorithm>
#include <set>

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

}  // namespace

CrossCheckResult CrossCheck(const std::vector<Shape>& shapes) {
  CrossCheckResult result;
  std::set<std::string> seen_implementations;
  for (const Shape& shape : shapes) {
    const ScopedSimdCap cap(SimdCapName(shape.simd));
    const std::unique_ptr<Workload> workload = MakeWorkload(shape);
    if (cap.status() != EA_OK || workload->plan_status() != EA_OK ||
        workload->RunEdgeattn() != EA_OK) {
      printf("cross-check %s: edgeattn failed\n", ShapeName(shape).c_str());
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
      "worst max |edgeattn - oneDNN| / max |oneDNN| = %.2g (%s, limit %.0e)\n",
      shapes.size(), result.worst_eigen_gap, result.worst_onednn_gap,
      result.agree ? "agree" : "FAILED", kMaxRelativeGap);
  return result;
}

}  // namespace edgeattn_bench
