// Ratio counters against the peers, against one worker and against float32, from the same
// run's median times (see peer_ratios.h).
#include "peer_ratios.h"

#include <algorithm>
#include <cmath>

#include "benchmark_names.h"

namespace edgeattn_bench {
namespace {

using Run = PeerRatios::Run;

double SecondsPerIteration(const Run& run) {
  return run.real_accumulated_time / static_cast<double>(run.iterations);
}

double Mean(const std::vector<double>& values) {
  double sum = 0.0;
  for (const double value : values) sum += value;
  return values.empty() ? 0.0 : sum / static_cast<double>(values.size());
}

// As Google Benchmark's median: the mean of the two middle values for an even count.
double Median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

// Sample standard deviation, as Google Benchmark's stddev aggregate.
double StdDev(const std::vector<double>& values) {
  if (values.size() < 2) return 0.0;
  const double mean = Mean(values);
  double squares = 0.0;
  for (const double value : values) squares += (value - mean) * (value - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

// Aggregate rows carry the statistic of their repetitions' counters, as Google Benchmark
// computes it for every other counter. Returns false for a statistic it does not know.
bool Aggregate(const std::string& statistic, const std::vector<double>& values, double* result) {
  if (statistic == "mean") {
    *result = Mean(values);
  } else if (statistic == "median") {
    *result = Median(values);
  } else if (statistic == "stddev") {
    *result = StdDev(values);
  } else if (statistic == "cv") {
    const double mean = Mean(values);
    *result = mean != 0.0 ? StdDev(values) / mean : 0.0;
  } else {
    return false;
  }
  return true;
}

// The registered name is all a row needs to be found: drop the run options Google Benchmark
// appends to it.
void ShortenName(Run* run) {
  run->run_name.min_time.clear();
  run->run_name.min_warmup_time.clear();
  run->run_name.repetitions.clear();
  run->run_name.time_type.clear();
}

// Rate counters (gflops or gops, pct_peak) hold their final values by the time they are reported;
// with the flag gone the console stops appending "/s" to a percentage. The JSON is unchanged.
void MarkCountersFinal(Run* run) {
  for (auto& counter : run->counters) counter.second.flags = benchmark::Counter::kDefaults;
}

}  // namespace

std::vector<std::vector<Run>> PeerRatios::Add(std::vector<Run> batch) {
  std::vector<std::vector<Run>> complete;
  if (batch.empty()) return complete;
  for (Run& run : batch) {
    ShortenName(&run);
    MarkCountersFinal(&run);
  }
  Record(batch);
  const std::string shape = ShapeOfBenchmark(batch.front().run_name.function_name);
  if (shape != held_shape_) complete = Flush();
  held_shape_ = shape;
  held_.push_back(std::move(batch));
  return complete;
}

std::vector<std::vector<Run>> PeerRatios::Flush() {
  std::vector<std::vector<Run>> complete = std::move(held_);
  held_.clear();
  held_shape_.clear();
  for (std::vector<Run>& batch : complete) {
    for (Run& run : batch) SetRatios(&run);
  }
  return complete;
}

double PeerRatios::MedianSeconds(const std::string& name) const {
  const auto found = times_.find(name);
  return found == times_.end() ? -1.0 : found->second.median;
}

void PeerRatios::Record(const std::vector<Run>& batch) {
  for (const Run& run : batch) {
    if (run.error_occurred || run.iterations <= 0) continue;
    Times& times = times_[run.run_name.function_name];
    if (run.run_type == Run::RT_Iteration) {
      times.repetitions.push_back(SecondsPerIteration(run));
      if (run.repetitions <= 1) times.median = times.repetitions.back();
    } else if (run.aggregate_name == "median") {
      times.median = SecondsPerIteration(run);
    }
  }
}

void PeerRatios::SetRatios(Run* run) const {
  if (run->error_occurred) return;
  const std::string& name = run->run_name.function_name;
  // Fixed point: edgeattn against its own float32 row of the same layer.
  if (IsFixedPointBenchmark(name)) {
    const double f32_seconds = MedianSeconds(F32TwinBenchmarkName(name));
    if (f32_seconds > 0.0) SetRatio(run, "vs_f32", f32_seconds, false);
    return;
  }
  // KV cache: the f32 cache with every KV head against the peers' dense decode of the same
  // length; every other cache row against that f32 row (vs_f32, vs_no_gqa).
  if (IsDecodeStreamBenchmark(name)) {
    const std::string twin = DecodeStreamTwinBenchmarkName(name);
    if (twin != name) {
      const double twin_seconds = MedianSeconds(twin);
      if (twin_seconds > 0.0) SetRatio(run, DecodeStreamRatioName(name), twin_seconds, false);
      return;
    }
    for (const Library peer : {Library::kEigen, Library::kOnednn}) {
      const double peer_seconds = MedianSeconds(DecodeStreamPeerBenchmarkName(name, peer));
      if (peer_seconds > 0.0)
        SetRatio(run, std::string("vs_") + LibraryName(peer), peer_seconds, false);
    }
    return;
  }
  // Beside a busy process, one worker: against the same row without it (what the busy core
  // costs one worker). Two workers there get vs_one_worker below, against this row.
  if (IsBusyBenchmark(name) && WorkersOfBenchmark(name) == 1) {
    const double idle_seconds = MedianSeconds(IdleBenchmarkName(name));
    if (idle_seconds > 0.0) SetRatio(run, "vs_idle", idle_seconds, false);
    return;
  }
  // Several workers: edgeattn against itself on one worker only (beside the busy process too
  // for a busy row); the peers ran on one thread.
  if (WorkersOfBenchmark(name) > 1) {
    const double one_worker_seconds = MedianSeconds(OneWorkerBenchmarkName(name));
    if (one_worker_seconds > 0.0) SetRatio(run, "vs_one_worker", one_worker_seconds, false);
    return;
  }
  const std::string library = LibraryOfBenchmark(name);
  for (const Library peer : {Library::kEigen, Library::kOnednn}) {
    const bool self = library == LibraryName(peer);
    const double peer_seconds = MedianSeconds(PeerBenchmarkName(name, peer));
    if (!self && peer_seconds <= 0.0) continue;  // the peer did not run (filtered out) or failed
    SetRatio(run, std::string("vs_") + LibraryName(peer), peer_seconds, self);
  }
}

void PeerRatios::SetRatio(Run* run, const std::string& counter, double reference_seconds,
                          bool self) const {
  const auto own = times_.find(run->run_name.function_name);
  if (own == times_.end()) return;
  // A library's ratio against itself is 1 by definition, in every repetition.
  std::vector<double> ratios;
  for (const double seconds : own->second.repetitions) {
    ratios.push_back(self ? 1.0 : reference_seconds / seconds);
  }
  double value = 0.0;
  if (run->run_type == Run::RT_Iteration) {
    value = self ? 1.0 : reference_seconds / SecondsPerIteration(*run);
  } else if (!Aggregate(run->aggregate_name, ratios, &value)) {
    return;
  }
  run->counters[counter] = benchmark::Counter(value);
}

}  // namespace edgeattn_bench
