// make bench: edgeattn against this core's own FMA peak and against the Eigen code a user would
// write instead, all measured in the same run. Order: measure the FMA peak; cross-check that
// both libraries compute the same outputs on every shape; time every shape with Google
// Benchmark (edgeattn and Eigen back to back); print the summary table. Single-threaded.
// Flags pass through to Google Benchmark (--benchmark_out, --benchmark_filter, ...).
#include <stdio.h>

#include <benchmark/benchmark.h>

#include "edgeattn/edgeattn.h"
#include "eigen_attention.h"
#include "fma_peak.h"
#include "shapes.h"
#include "summary_reporter.h"
#include "workloads.h"

namespace edgeattn_bench {
namespace {

// Worst relative gap tolerated between the two libraries' outputs (README promises 1e-5
// against a double reference for edgeattn; Eigen's float rounding adds its own share).
constexpr double kMaxRelativeGap = 1e-4;

// Each benchmark runs kRepetitions times for at least kMinSeconds; the table uses the median.
constexpr double kMinSeconds = 0.3;
constexpr int kRepetitions = 3;

enum class Library { kEdgeattn, kEigen };

void RunShape(benchmark::State& state, const Shape& shape, Library library, double peak_gflops) {
  const std::unique_ptr<Workload> workload = MakeWorkload(shape);
  if (workload->plan_status() != EA_OK) {
    state.SkipWithError(ea_status_str(workload->plan_status()));
    return;
  }
  // One untimed call: faults the pages in and warms the caches.
  if (library == Library::kEdgeattn) {
    if (workload->RunEdgeattn() != EA_OK) {
      state.SkipWithError("ea run failed");
      return;
    }
    for (auto _ : state) {
      const ea_status status = workload->RunEdgeattn();
      benchmark::DoNotOptimize(status);
      benchmark::ClobberMemory();
    }
    state.SetLabel(ea_simd_target());
  } else {
    workload->RunEigen();
    for (auto _ : state) {
      workload->RunEigen();
      benchmark::ClobberMemory();
    }
    state.SetLabel("Eigen " EIGEN_MAKESTRING(EIGEN_WORLD_VERSION) "." EIGEN_MAKESTRING(
        EIGEN_MAJOR_VERSION) "." EIGEN_MAKESTRING(EIGEN_MINOR_VERSION));
  }
  // Rates over real time (the benchmarks use UseRealTime): FLOP/s and the fraction of peak.
  const double flops = ShapeFlops(shape);
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_fraction"] = benchmark::Counter(
      flops / (peak_gflops * 1e9), benchmark::Counter::kIsIterationInvariantRate);
}

void Register(const Shape& shape, Library library, double peak_gflops) {
  const std::string name = library == Library::kEdgeattn ? EdgeattnName(shape) : EigenName(shape);
  benchmark::RegisterBenchmark(name.c_str(),
                               [shape, library, peak_gflops](benchmark::State& state) {
                                 RunShape(state, shape, library, peak_gflops);
                               })
      ->UseRealTime()
      ->MinTime(kMinSeconds)
      ->Repetitions(kRepetitions)
      ->DisplayAggregatesOnly(true)
      ->Unit(benchmark::kMicrosecond);
}

// Both libraries on the same inputs must agree before their speeds mean anything.
bool CrossCheck(const std::vector<Shape>& shapes, double* worst_gap) {
  bool ok = true;
  double& worst = *worst_gap;
  for (const Shape& shape : shapes) {
    const std::unique_ptr<Workload> workload = MakeWorkload(shape);
    if (workload->plan_status() != EA_OK || workload->RunEdgeattn() != EA_OK) {
      printf("cross-check %s: edgeattn failed\n", ShapeName(shape).c_str());
      ok = false;
      continue;
    }
    workload->RunEigen();
    const double gap = workload->RelativeGap();
    if (!(gap <= kMaxRelativeGap)) {
      printf("cross-check %s: max |edgeattn - Eigen| / max |Eigen| = %.3g\n",
             ShapeName(shape).c_str(), gap);
      ok = false;
    }
    if (gap > worst) worst = gap;
  }
  printf("cross-check of %zu shapes: worst max |edgeattn - Eigen| / max |Eigen| = %.2g (%s)\n",
         shapes.size(), worst, ok ? "agree" : "FAILED");
  return ok;
}

}  // namespace
}  // namespace edgeattn_bench

int main(int argc, char** argv) {
  using namespace edgeattn_bench;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  Eigen::setNbThreads(1);

  const FmaPeak peak = MeasureFmaPeak();
  printf(
      "FMA peak: %.1f GFLOP/s (Highway %s static dispatch, %zu lanes x %d chains, "
      "%lld iterations in %.3f s); edgeattn runs on %s\n",
      peak.gflops, peak.target, peak.lanes, peak.chains, static_cast<long long>(peak.iterations),
      peak.seconds, ea_simd_target());

  const std::vector<Shape> shapes = BenchmarkShapes();
  double worst_gap = 0.0;
  if (!CrossCheck(shapes, &worst_gap)) return 1;
  fflush(stdout);

  // Context lands at the top of the JSON output (--benchmark_out).
  benchmark::AddCustomContext("fma_peak_gflops", std::to_string(peak.gflops));
  benchmark::AddCustomContext("fma_peak_probe", std::string(peak.target) + " static dispatch, " +
                                                    std::to_string(peak.lanes) + " lanes x " +
                                                    std::to_string(peak.chains) + " chains");
  benchmark::AddCustomContext("edgeattn_version", EDGEATTN_VERSION_STRING);
  benchmark::AddCustomContext("edgeattn_simd_target", ea_simd_target());
  char gap_text[32];
  snprintf(gap_text, sizeof gap_text, "%.3g", worst_gap);
  benchmark::AddCustomContext("crosscheck_worst_relative_gap", gap_text);

  for (const Shape& shape : shapes) {
    Register(shape, Library::kEdgeattn, peak.gflops);
    Register(shape, Library::kEigen, peak.gflops);
  }
  SummaryReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  PrintSummaryTable(reporter, shapes, peak.gflops);
  // The ratios use the peak measured first; a second probe shows whether the clock moved.
  printf("FMA peak measured again after the runs: %.1f GFLOP/s\n", MeasureFmaPeak().gflops);
  benchmark::Shutdown();
  return 0;
}
