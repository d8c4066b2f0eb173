// The core's own read bandwidth at a given working-set size, measured in the same run as the
// decode rows it scales: a decode step reads the whole KV cache once per token and does little
// arithmetic on it, so its ceiling is how fast one core can stream that many bytes from the
// level of the memory hierarchy they fit in (L2, L3 or DRAM), not the FMA peak. The probe
// reads a 64-byte-aligned buffer of exactly the row's cache bytes, pass after pass, with
// Highway vector loads summed into independent accumulators (enough to keep the loop load
// bound), so a row's pct_bw compares the same working set.
#ifndef EDGEATTN_BENCH_READ_BANDWIDTH_H_
#define EDGEATTN_BENCH_READ_BANDWIDTH_H_

#include <stddef.h>
#include <stdint.h>

#include <string>

namespace edgeattn_bench {

struct ReadBandwidth {
  uint64_t bytes = 0;       // working set: the buffer read on every pass
  double gbps = 0.0;        // best trial: bytes x passes / seconds, 1e9 bytes/s
  const char* target = "";  // Highway target of the copy that ran (dynamic dispatch)
  size_t vector_bytes = 0;  // bytes per load
  int accumulators = 0;     // independent sums the loads go into
  int64_t passes = 0;       // passes over the buffer per trial
  double seconds = 0.0;     // time of the best trial
};

// No core reads faster than its load ports allow: three 64-byte loads per cycle at 6 GHz is
// 1152 GB/s. A figure above this bound means the timed passes did not read the buffer; the bench
// refuses to run on it (attention_bench.cc) instead of dividing decode rows by it.
constexpr double kMaxPlausibleReadGbps = 2000.0;
inline bool IsPlausible(const ReadBandwidth& probe) {
  return probe.gbps > 0.0 && probe.gbps <= kMaxPlausibleReadGbps;
}

// Runs `trials` trials of about `seconds_per_trial` over a `bytes`-byte buffer (a whole number
// of vectors; rounded down to one) and keeps the fastest, as MeasureFmaPeak does.
ReadBandwidth MeasureReadBandwidth(uint64_t bytes, double seconds_per_trial, int trials);

// "544 KiB", "2 MiB", "4.25 MiB": a working set as the tables show it.
std::string WorkingSetLabel(uint64_t bytes);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_READ_BANDWIDTH_H_
