// Console output of Google Benchmark, plus a record of every benchmark's real time per
// iteration, so that main can print the edgeattn-vs-Eigen-vs-peak table after the runs.
#ifndef EDGEATTN_BENCH_SUMMARY_REPORTER_H_
#define EDGEATTN_BENCH_SUMMARY_REPORTER_H_

#include <map>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "shapes.h"

namespace edgeattn_bench {

class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  SummaryReporter() : benchmark::ConsoleReporter(OO_Tabular) {}

  void ReportRuns(const std::vector<Run>& runs) override;

  // Real seconds per iteration of the benchmark registered as `name` (the median when it ran
  // with repetitions), or a negative number if it did not run or failed.
  double SecondsPerIteration(const std::string& name) const;

  // Smallest CPU time / real time over the recorded benchmarks: 1 when the core was ours for
  // the whole run, lower when other processes took it (real-time figures are then low).
  double MinCpuShare() const { return min_cpu_share_; }

 private:
  std::map<std::string, double> seconds_;
  double min_cpu_share_ = 1.0;
  std::map<std::string, bool> from_median_;
};

// Benchmark names of the two libraries for one shape.
std::string EdgeattnName(const Shape& shape);
std::string EigenName(const Shape& shape);

// Prints, as a Markdown table: shape | edgeattn GFLOP/s | Eigen GFLOP/s | edgeattn/Eigen |
// edgeattn/peak | Eigen/peak, for every shape both libraries ran.
void PrintSummaryTable(const SummaryReporter& reporter, const std::vector<Shape>& shapes,
                       double peak_gflops);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_SUMMARY_REPORTER_H_
