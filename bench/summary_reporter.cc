// Recording console reporter and the closing summary table (see summary_reporter.h).
#include "summary_reporter.h"

#include <stdio.h>

namespace edgeattn_bench {

void SummaryReporter::ReportRuns(const std::vector<Run>& runs) {
  benchmark::ConsoleReporter::ReportRuns(runs);
  for (const Run& run : runs) {
    if (run.error_occurred || run.iterations <= 0) continue;
    const std::string& name = run.run_name.function_name;
    // Aggregates other than the median (mean, stddev, cv) are not times of a run.
    if (run.run_type == Run::RT_Aggregate && run.aggregate_name != "median") continue;
    if (run.real_accumulated_time > 0.0) {
      const double share = run.cpu_accumulated_time / run.real_accumulated_time;
      if (share < min_cpu_share_) min_cpu_share_ = share;
    }
    const double seconds = run.real_accumulated_time / static_cast<double>(run.iterations);
    if (run.run_type == Run::RT_Aggregate) {
      seconds_[name] = seconds;
      from_median_[name] = true;
    } else if (!from_median_[name]) {
      seconds_[name] = seconds;
    }
  }
}

double SummaryReporter::SecondsPerIteration(const std::string& name) const {
  const auto found = seconds_.find(name);
  return found == seconds_.end() ? -1.0 : found->second;
}

std::string EdgeattnName(const Shape& shape) { return ShapeName(shape) + "/edgeattn"; }
std::string EigenName(const Shape& shape) { return ShapeName(shape) + "/eigen"; }

void PrintSummaryTable(const SummaryReporter& reporter, const std::vector<Shape>& shapes,
                       double peak_gflops) {
  printf("\nsingle core, measured FMA peak %.1f GFLOP/s\n\n", peak_gflops);
  printf(
      "| shape | edgeattn GFLOP/s | Eigen GFLOP/s | edgeattn/Eigen | edgeattn/peak "
      "| Eigen/peak |\n");
  printf("|---|---:|---:|---:|---:|---:|\n");
  for (const Shape& shape : shapes) {
    const double edgeattn_s = reporter.SecondsPerIteration(EdgeattnName(shape));
    const double eigen_s = reporter.SecondsPerIteration(EigenName(shape));
    if (edgeattn_s <= 0.0 || eigen_s <= 0.0) continue;
    const double gflop = ShapeFlops(shape) * 1e-9;
    const double edgeattn = gflop / edgeattn_s;
    const double eigen = gflop / eigen_s;
    printf("| %s | %.1f | %.1f | %.2f | %.2f | %.2f |\n", ShapeName(shape).c_str(), edgeattn, eigen,
           edgeattn / eigen, edgeattn / peak_gflops, eigen / peak_gflops);
  }
  const double share = reporter.MinCpuShare();
  printf("\nlowest CPU/real time share of any benchmark: %.2f%s\n", share,
         share < 0.9 ? " (WARNING: other processes shared the core; figures are low, rerun on "
                       "an idle machine)"
                     : "");
  fflush(stdout);
}

}  // namespace edgeattn_bench
