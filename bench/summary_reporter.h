// Console output of Google Benchmark (rows shown with their peer ratios, one shape at a time),
// plus the closing table: per shape, GFLOP/s and percent of peak of all three libraries and
// edgeattn's time ratios against both peers, from the same run's median times.
#ifndef EDGEATTN_BENCH_SUMMARY_REPORTER_H_
#define EDGEATTN_BENCH_SUMMARY_REPORTER_H_

#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "peer_ratios.h"
#include "shapes.h"
#include "target_peaks.h"

namespace edgeattn_bench {

class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  SummaryReporter() : benchmark::ConsoleReporter(OO_Tabular) {}

  // Register benchmarks without DisplayAggregatesOnly: this reporter needs every repetition
  // for the ratios, and itself shows only the aggregates of repeated benchmarks.
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  // Real seconds per iteration of the benchmark registered as `name` (the median when it ran
  // with repetitions), or a negative number if it did not run or failed.
  double SecondsPerIteration(const std::string& name) const { return ratios_.MedianSeconds(name); }

  // Smallest CPU time / real time over the repetitions: 1 when the core was ours for the whole
  // run, lower when other processes took it (real-time figures are then low).
  double MinCpuShare() const { return min_cpu_share_; }

 private:
  void Show(const std::vector<std::vector<Run>>& batches);

  PeerRatios ratios_;
  double min_cpu_share_ = 1.0;
};

// Prints the closing table as Markdown, for every shape at least one library ran.
void PrintSummaryTable(const SummaryReporter& reporter, const std::vector<Shape>& shapes,
                       const TargetPeaks& peaks);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_SUMMARY_REPORTER_H_
