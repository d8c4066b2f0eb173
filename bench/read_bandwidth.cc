// Read-bandwidth probe: one pass sums a buffer with Highway vector loads into kAccumulators
// independent accumulators, so that the adds (a few cycles of latency each) never limit the
// loads, even from L1; what is left is the rate at which the core can bring the working set in.
// Float adds, because the compiler may not reassociate them: it cannot fold the passes into
// one. Each pass is a separate call through a function pointer read from a volatile variable, so
// no pass can be merged with another or hoisted out of the loop either, and every pass's sum goes
// into a volatile sink.
#undef HWY_TARGET_INCLUDE
// Resolved through -Iinclude, as fma_peak.cc is.
#define HWY_TARGET_INCLUDE "../bench/read_bandwidth.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "read_bandwidth.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn_bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr int kAccumulators = 8;

const char* BandwidthTargetName() { return hwy::TargetName(HWY_TARGET); }

size_t VectorBytes() { return hn::Lanes(hn::ScalableTag<float>()) * sizeof(float); }

int Accumulators() { return kAccumulators; }

// The sum of data[0, count), count a whole number of vectors. Named accumulators, not an
// array: SVE vectors are sizeless and cannot be array elements.
HWY_NOINLINE float SumPass(const float* HWY_RESTRICT data, size_t count) {
  const hn::ScalableTag<float> d;
  const size_t n = hn::Lanes(d);
  auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
  auto a4 = hn::Zero(d), a5 = hn::Zero(d), a6 = hn::Zero(d), a7 = hn::Zero(d);
  size_t i = 0;
  for (; i + kAccumulators * n <= count; i += kAccumulators * n) {
    a0 = hn::Add(a0, hn::LoadU(d, data + i));
    a1 = hn::Add(a1, hn::LoadU(d, data + i + n));
    a2 = hn::Add(a2, hn::LoadU(d, data + i + 2 * n));
    a3 = hn::Add(a3, hn::LoadU(d, data + i + 3 * n));
    a4 = hn::Add(a4, hn::LoadU(d, data + i + 4 * n));
    a5 = hn::Add(a5, hn::LoadU(d, data + i + 5 * n));
    a6 = hn::Add(a6, hn::LoadU(d, data + i + 6 * n));
    a7 = hn::Add(a7, hn::LoadU(d, data + i + 7 * n));
  }
  for (; i + n <= count; i += n) a0 = hn::Add(a0, hn::LoadU(d, data + i));
  const auto sum =
      hn::Add(hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)), hn::Add(hn::Add(a4, a5), hn::Add(a6, a7)));
  return hn::GetLane(hn::SumOfLanes(d, sum));
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn_bench
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <stdio.h>

#include <chrono>

#include "bench_inputs.h"

namespace edgeattn_bench {

HWY_EXPORT(BandwidthTargetName);
HWY_EXPORT(VectorBytes);
HWY_EXPORT(Accumulators);
HWY_EXPORT(SumPass);

namespace {

volatile float g_sink = 0.0f;

using PassFunction = float (*)(const float*, size_t);

// The pass is called through a volatile pointer. Where the build has one Highway target
// (-march=native on a core with every feature Highway 1.0.3 knows, such as Sapphire or Emerald
// Rapids), HWY_DYNAMIC_DISPATCH is a direct call, GCC finds SumPass pure, and it hoisted the call
// out of this loop: one pass per trial, about 1 ns per "pass" at any size, petabytes per second.
double TimePasses(PassFunction pass, const float* data, size_t count, int64_t passes) {
  PassFunction volatile callee = pass;
  float sum = 0.0f;
  const auto start = std::chrono::steady_clock::now();
  for (int64_t p = 0; p < passes; ++p) sum += callee(data, count);
  const auto stop = std::chrono::steady_clock::now();
  g_sink = sum;
  return std::chrono::duration<double>(stop - start).count();
}

}  // namespace

ReadBandwidth MeasureReadBandwidth(uint64_t bytes, double seconds_per_trial, int trials) {
  ReadBandwidth result;
  result.target = HWY_DYNAMIC_DISPATCH(BandwidthTargetName)();
  result.vector_bytes = HWY_DYNAMIC_DISPATCH(VectorBytes)();
  result.accumulators = HWY_DYNAMIC_DISPATCH(Accumulators)();
  // The calls above made Highway choose its target, so this is that target's copy.
  const PassFunction pass = &HWY_DYNAMIC_DISPATCH(SumPass);
  result.bytes = bytes / result.vector_bytes * result.vector_bytes;
  if (result.bytes == 0) return result;

  // Small normal values: the sums stay far from overflow and never go denormal.
  const size_t count = static_cast<size_t>(result.bytes / sizeof(float));
  const AlignedBuffer buffer(static_cast<size_t>(result.bytes));
  float* data = reinterpret_cast<float*>(buffer.data());
  for (size_t i = 0; i < count; ++i) data[i] = 1.0f / 1024.0f;

  // Calibrate the passes to about seconds_per_trial; the first passes fault the pages in and
  // bring the buffer into whatever cache level holds it.
  int64_t passes = 1;
  double seconds = TimePasses(pass, data, count, passes);
  while (seconds < 0.2 * seconds_per_trial) {
    passes *= 2;
    seconds = TimePasses(pass, data, count, passes);
  }
  passes = static_cast<int64_t>(static_cast<double>(passes) * seconds_per_trial / seconds);
  result.passes = passes > 0 ? passes : 1;

  const double total = static_cast<double>(result.bytes) * static_cast<double>(result.passes);
  for (int t = 0; t < trials; ++t) {
    seconds = TimePasses(pass, data, count, result.passes);
    const double gbps = total / seconds * 1e-9;
    if (gbps > result.gbps) {
      result.gbps = gbps;
      result.seconds = seconds;
    }
  }
  return result;
}

std::string WorkingSetLabel(uint64_t bytes) {
  char text[32];
  if (bytes < (uint64_t{1} << 20)) {
    snprintf(text, sizeof text, "%g KiB", static_cast<double>(bytes) / 1024.0);
  } else {
    snprintf(text, sizeof text, "%g MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  }
  return text;
}

}  // namespace edgeattn_bench
#endif  // HWY_ONCE
