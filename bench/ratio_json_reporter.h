// The JSON file (--benchmark_out): Google Benchmark's own JSON, with every row's vs_eigen and
// vs_onednn counters filled in by PeerRatios before it is written, and the registered names
// ("f32/prefill/d64/n2048/edgeattn", "..._median" for aggregates). The file is always JSON,
// whatever --benchmark_out_format says.
#ifndef EDGEATTN_BENCH_RATIO_JSON_REPORTER_H_
#define EDGEATTN_BENCH_RATIO_JSON_REPORTER_H_

#include <vector>

#include <benchmark/benchmark.h>

#include "peer_ratios.h"

namespace edgeattn_bench {

class RatioJsonReporter : public benchmark::JSONReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  void Write(const std::vector<std::vector<Run>>& batches);

  PeerRatios ratios_;
};

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_RATIO_JSON_REPORTER_H_
