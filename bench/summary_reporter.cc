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
        const std::string& name = run.run_name.function_name;
        const double share = run.cpu_accumulated_time / run.real_accumulated_time;
        const double per_worker = share / WorkersOfBenchmark(name);
        if (per_worker < min_cpu_share_) min_cpu_share_ = per_worker;
        const auto known = cpu_shares_.find(name);
        if (known == cpu_shares_.end() || share < known->second) cpu_shares_[name] = share;
      }
      // Repeated benchmarks show their aggregates (mean, median, stddev, cv) only.
      if (run.repetitions <= 1 || run.run_type == Run::RT_Aggregate) shown.push_back(run);
    }
    if (!shown.empty()) benchmark::ConsoleReporter::ReportRuns(shown);
  }
}

double SummaryReporter::CpuShare(const std::string& name) const {
  const auto found = cpu_shares_.find(name);
  return found == cpu_shares_.end() ? -1.0 : found->second;
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

// The multi-worker rows: edgeattn's GFLOP/s, its 1-worker GFLOP/s of the same shape, pct_peak
// against workers x the single-core peak, the speed-up and the CPU/real share.
void PrintWorkersTable(const SummaryReporter& reporter, const std::vector<Shape>& shapes,
                       const TargetPeaks& peaks) {
  bool header = false;
  for (const Shape& shape : shapes) {
    if (shape.workers <= 1) continue;
    const std::string name = BenchmarkName(shape, Library::kEdgeattn);
    const double seconds = reporter.SecondsPerIteration(name);
    if (seconds <= 0.0) continue;
    if (!header) {
      const int workers = shape.workers;
      printf("\n%d-worker rows (edgeattn only, on the pthread pool: the main thread + %d)\n",
             workers, workers - 1);
      printf("pct_peak: of %d x the single-core peak = %.1f GFLOP/s; vs_one_worker = edgeattn's\n",
             workers, peaks.GflopsFor(shape, Library::kEdgeattn));
      printf("1-worker median time / this row's; no vs_eigen, vs_onednn: the peers run on one\n");
      printf("thread. CPU/real: process CPU time / real time, lowest repetition (%d.00: every\n",
             workers);
      printf("worker busy throughout; near 1: another process took a core)\n\n");
      printf(
          "| shape | edgeattn GFLOP/s | 1-worker GFLOP/s | pct_peak (%d cores) | vs_one_worker "
          "| CPU/real |\n",
          shape.workers);
      printf("|---|---:|---:|---:|---:|---:|\n");
      header = true;
    }
    const double one_worker = reporter.SecondsPerIteration(OneWorkerBenchmarkName(name));
    const double gflops = ShapeFlops(shape) * 1e-9 / seconds;
    printf("| %s |", ShapeName(shape).c_str());
    PrintCell(gflops, "%.1f");
    PrintCell(one_worker > 0.0 ? ShapeFlops(shape) * 1e-9 / one_worker : -1.0, "%.1f");
    PrintCell(100.0 * gflops / peaks.GflopsFor(shape, Library::kEdgeattn), "%.1f");
    PrintCell(one_worker > 0.0 ? one_worker / seconds : -1.0, "%.2f");
    PrintCell(reporter.CpuShare(name), "%.2f");
    printf("\n");
  }
}

// The fixed-point rows: GOP/s, the float32 twin's GFLOP/s (same operation count), pct_peak
// against the integer probe of the row's dtype, vs_f32.
void PrintFixedPointTable(const SummaryReporter& reporter, const std::vector<Shape>& shapes,
                          const TargetPeaks& peaks) {
  bool header = false;
  for (const Shape& shape : shapes) {
    if (!IsFixedPoint(shape)) continue;
    const std::string name = BenchmarkName(shape, Library::kEdgeattn);
    const double seconds = reporter.SecondsPerIteration(name);
    if (seconds <= 0.0) continue;
    if (!header) {
      printf("\nfixed-point rows (edgeattn only, one core; ea_mha_run_s8 / ea_mha_run_s16):\n");
      printf("GOP/s = 2 integer ops per multiply-accumulate, the FLOP count of the same layer's\n");
      printf(
          "f32 row; s8/s16 prefill rows are single-head MHA layers, projections included, and\n");
      printf("their f32 row is f32/mha[_causal]/dm<d>h1. pct_peak: of the integer probe of the\n");
      printf("row's dtype, s8: %s, %.1f GOP/s; s16: %s, %.1f GOP/s.\n", peaks.integer.int8.probe,
             peaks.integer.int8.gops, peaks.integer.int16.probe, peaks.integer.int16.gops);
      printf("vs_f32 = edgeattn's f32 median time of the layer / this row's\n\n");
      printf("| shape | edgeattn GOP/s | f32 row | f32 GFLOP/s | pct_peak | vs_f32 |\n");
      printf("|---|---:|---|---:|---:|---:|\n");
      header = true;
    }
    const Shape twin = F32Twin(shape);
    const double f32_seconds =
        reporter.SecondsPerIteration(BenchmarkName(twin, Library::kEdgeattn));
    const double gops = ShapeFlops(shape) * 1e-9 / seconds;
    const double peak = peaks.GflopsFor(shape, Library::kEdgeattn);
    printf("| %s |", ShapeName(shape).c_str());
    PrintCell(gops, "%.1f");
    printf(" %s |", ShapeName(twin).c_str());
    PrintCell(f32_seconds > 0.0 ? ShapeFlops(twin) * 1e-9 / f32_seconds : -1.0, "%.1f");
    PrintCell(peak > 0.0 ? 100.0 * gops / peak : -1.0, "%.1f");
    PrintCell(f32_seconds > 0.0 ? f32_seconds / seconds : -1.0, "%.2f");
    printf("\n");
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
    if (shape.workers > 1 || IsFixedPoint(shape)) continue;  // the tables below
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
  PrintWorkersTable(reporter, shapes, peaks);
  PrintFixedPointTable(reporter, shapes, peaks);
  const double share = reporter.MinCpuShare();
  printf("\nlowest CPU/real time share per worker of any benchmark: %.2f%s\n", share,
         share < 0.9 ? " (WARNING: other processes shared the cores; figures are low, rerun on "
                       "an idle machine)"
                     : "");
  fflush(stdout);
}

}  // namespace edgeattn_bench
