// JSON file reporter with the peer ratio counters (see ratio_json_reporter.h).
#include "ratio_json_reporter.h"

namespace edgeattn_bench {

void RatioJsonReporter::ReportRuns(const std::vector<Run>& runs) { Write(ratios_.Add(runs)); }

void RatioJsonReporter::Finalize() {
  Write(ratios_.Flush());
  benchmark::JSONReporter::Finalize();
}

void RatioJsonReporter::Write(const std::vector<std::vector<Run>>& batches) {
  for (const std::vector<Run>& batch : batches) benchmark::JSONReporter::ReportRuns(batch);
}

}  // namespace edgeattn_bench
