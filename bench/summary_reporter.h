// Console output of Google Benchmark (rows shown with their peer ratios, one shape at a time),
// plus the closing tables: per shape, GFLOP/s and percent of peak of all three libraries and
// edgeattn's time ratios against both peers, from the same run's median times; then the
// multi-worker rows on their own, with their speed-up over one worker and their CPU/real share;
// then the busy rows (1 and 2 workers beside a busy process), with the 2-worker row's speed-up
// over the 1-worker one there and over the idle 1-worker row; then the fixed-point rows, with their
// GOP/s, share of the integer dot-product peak and speed-up over edgeattn's float32 row of the same
// layer; then the decode rows, dense and KV cache, with their tokens/s, GB/s and share of the read
// bandwidth at their working set, and the KV-cache rows' ratios (against the peers, f16 and int8
// against f32, GQA against none).
#ifndef EDGEATTN_BENCH_SUMMARY_REPORTER_H_
#define EDGEATTN_BENCH_SUMMARY_REPORTER_H_

#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <map>

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

  // Smallest CPU time / real time per worker over the repetitions: 1 when the cores were ours
  // for the whole run, lower when other processes took them (real-time figures are then low).
  // Multi-worker rows measure the whole process's CPU time, divided here by their workers.
  // Busy rows share a core with the bench's own spinner on purpose: not counted.
  double MinCpuShare() const { return min_cpu_share_; }

  // Smallest CPU time / real time of the repetitions of the benchmark registered as `name`,
  // not divided by workers (about 2 for a 2-worker row that had both cores), or a negative
  // number if it did not run.
  double CpuShare(const std::string& name) const;

 private:
  void Show(const std::vector<std::vector<Run>>& batches);

  PeerRatios ratios_;
  double min_cpu_share_ = 1.0;
  std::map<std::string, double> cpu_shares_;
};

// Prints the closing tables as Markdown, for every shape at least one library ran: the
// 1-worker float32 shapes with all three libraries, then the multi-worker shapes and the
// fixed-point shapes (edgeattn only), then the decode shapes (KV-cache rows: edgeattn only).
void PrintSummaryTable(const SummaryReporter& reporter, const std::vector<Shape>& shapes,
                       const TargetPeaks& peaks);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_SUMMARY_REPORTER_H_
