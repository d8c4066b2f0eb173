// The vs_eigen and vs_onednn counters of every 1-worker row: peer's median time / this row's time,
// both from the same run (> 1: this row is faster than the peer; a peer's ratio against itself is
// 1). Google Benchmark reports each benchmark when it finishes, and some ratios need a peer that
// runs later (Eigen's vs_onednn), so a reporter holds one shape's rows back: when a row of
// another shape arrives, or at the end, the held rows are released with their ratios filled
// in. Both reporters (console and JSON file) use this, so both show the same counters.
// A row on several workers (f32_2workers/...) gets vs_one_worker instead: edgeattn's 1-worker
// median time of the same shape / this row's time. It gets no peer ratios: the peers run on
// one thread, and a 2-core time against a 1-core one would compare core counts, not libraries.
// Beside a busy process (busy_process.h): the 2-worker row (f32_busy_2workers/...) gets
// vs_one_worker against the 1-worker row beside it (f32_busy/...), which gets vs_idle: the
// median time of the same row without the busy process / its own.
// A fixed-point row (s8/..., s16/...) gets vs_f32 only: the median time of edgeattn's f32 row
// of the same MHA layer (F32TwinBenchmarkName, registered and so reported before it) / this
// row's time. The peers have no fixed-point rows to compare with.
// A KV-cache row (<storage>/decode_stream/...): the f32 cache with every KV head gets vs_eigen
// and vs_onednn against the peers' dense decode of the same length (f32/decode/...), the
// other cache rows the f32 row's median time / theirs: vs_f32 (f16, int8 storage), vs_no_gqa
// (fewer KV heads).
#ifndef EDGEATTN_BENCH_PEER_RATIOS_H_
#define EDGEATTN_BENCH_PEER_RATIOS_H_

#include <map>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

namespace edgeattn_bench {

class PeerRatios {
 public:
  using Run = benchmark::BenchmarkReporter::Run;

  // Takes one ReportRuns batch. Returns the batches that are complete now, with the ratio
  // counters set, the names shortened to the registered ones (no "/min_time:...",
  // "/repeats:...", "/real_time") and the rate counters marked final (no "/s" suffix).
  std::vector<std::vector<Run>> Add(std::vector<Run> batch);

  // At the end of the run: every batch still held, completed the same way.
  std::vector<std::vector<Run>> Flush();

  // Median real seconds per iteration of the benchmark registered as `name` (the single run's
  // time without repetitions), or a negative number if it did not run or failed.
  double MedianSeconds(const std::string& name) const;

 private:
  struct Times {
    std::vector<double> repetitions;  // seconds per iteration of each repetition
    double median = -1.0;
  };

  void Record(const std::vector<Run>& batch);
  void SetRatios(Run* run) const;
  // counter = reference_seconds / this row's seconds (1 when `self`), per repetition and for
  // each aggregate.
  void SetRatio(Run* run, const std::string& counter, double reference_seconds, bool self) const;

  std::map<std::string, Times> times_;
  std::string held_shape_;
  std::vector<std::vector<Run>> held_;
};

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_PEER_RATIOS_H_
