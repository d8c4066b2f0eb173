// Console reporter with peer ratios, and the closing summary table (see summary_reporter.h).
#include "summary_reporter.h"

#include <stdio.h>

#include "benchmark_names.h"

namespace edgeattn_bench {

void SummaryReporter::ReportRuns(const std::vector<Run>& runs) { Show(ratios_.Add(runs)); }

void SummaryReporter::Finalize() {
  Show(ratios_.Flush());
  benchmark::ConsoleReporter::Finalize();
}

void SummaryReporter::Show(const std::vector<std::vector<Run>>& batches) {
  for (const std::vector<Run>& batch : batches) {
    std::vector<Run> shown;
    for (const Run& run : batch) {
      if (run.run_type == Run::RT_Iteration && !run.error_occurred &&
          run.real_accumulated_time > 0.0) {
        const double share = run.cpu_accumulated_time / run.real_accumulated_time;
        if (share < min_cpu_share_) min_cpu_share_ = share;
      }
      // Repeated benchmarks show their aggregates (mean, median, stddev, cv) only.
      if (run.repetitions <= 1 || run.run_type == Run::RT_Aggregate) shown.push_back(run);
    }
    if (!shown.empty()) benchmark::ConsoleReporter::ReportRuns(shown);
  }
}

namespace {

void PrintCell(double value, const char* format) {
  if (value > 0.0) {
    printf(" ");
    printf(format, value);
    printf(" |");
  } else {
    printf(" - |");
  }
}

}  // namespace

void PrintSummaryTable(const SummaryReporter& reporter, const std::vector<Shape>& shapes,
                       const TargetPeaks& peaks) {
  printf("\nsingle core, FMA peaks measured at the start: %.1f GFLOP/s (%s), %.1f GFLOP/s (%s)\n",
         peaks.best.gflops, peaks.best.target, peaks.avx2.gflops, peaks.avx2.target);
  printf("pct_peak: of the peak of the target the row ran on (f32_avx2 rows: edgeattn on AVX2,\n");
  printf("its peers on their normal builds); vs_X = X's median time / edgeattn's\n\n");
  printf(
      "| shape | edgeattn GFLOP/s | eigen GFLOP/s | onednn GFLOP/s | edgeattn pct_peak "
      "| eigen pct_peak | onednn pct_peak | vs_eigen | vs_onednn |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  const Library libraries[] = {Library::kEdgeattn, Library::kEigen, Library::kOnednn};
  for (const Shape& shape : shapes) {
    double seconds[3], gflops[3];
    bool any = false;
    for (int i = 0; i < 3; ++i) {
      const std::string name = BenchmarkName(shape, libraries[i]);
      seconds[i] = reporter.SecondsPerIteration(
          libraries[i] == Library::kEdgeattn ? name : PeerBenchmarkName(name, libraries[i]));
      gflops[i] = seconds[i] > 0.0 ? ShapeFlops(shape) * 1e-9 / seconds[i] : -1.0;
      any = any || seconds[i] > 0.0;
    }
    if (!any) continue;
    printf("| %s |", ShapeName(shape).c_str());
    for (int i = 0; i < 3; ++i) PrintCell(gflops[i], "%.1f");
    for (int i = 0; i < 3; ++i) {
      PrintCell(100.0 * gflops[i] / peaks.GflopsFor(shape, libraries[i]), "%.1f");
    }
    for (int i = 1; i < 3; ++i) {
      PrintCell(seconds[0] > 0.0 && seconds[i] > 0.0 ? seconds[i] / seconds[0] : -1.0, "%.2f");
    }
    printf("\n");
  }
  const double share = reporter.MinCpuShare();
  printf("\nlowest CPU/real time share of any benchmark: %.2f%s\n", share,
         share < 0.9 ? " (WARNING: other processes shared the core; figures are low, rerun on "
                       "an idle machine)"
                     : "");
  fflush(stdout);
}

}  // namespace edgeattn_bench
