// FMA-throughput probe: a Highway kernel with static dispatch (the best target -march=native
// allows) running independent MulAdd chains, enough of them to cover FMA latency times the
// number of FMA pipes on current x86 and Arm cores (e.g. 4 cycles x 2 pipes = 8 in flight).
#include "fma_peak.h"

#include <chrono>

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace edgeattn_bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr int kChains = 12;

size_t FloatLanes() { return hn::Lanes(hn::ScalableTag<float>()); }

// kChains independent chains acc = acc * mul + add. With mul < 1 each chain converges to
// add / (1 - mul), so values stay normal (no denormal slow path, no overflow). The sum of all
// lanes is returned so the compiler must compute every chain.
HWY_NOINLINE float FmaChains(int64_t iterations, float mul, float add) {
  const hn::ScalableTag<float> d;
  const auto m = hn::Set(d, mul);
  const auto a = hn::Set(d, add);
  auto c0 = hn::Set(d, 1.0f), c1 = hn::Set(d, 1.01f), c2 = hn::Set(d, 1.02f);
  auto c3 = hn::Set(d, 1.03f), c4 = hn::Set(d, 1.04f), c5 = hn::Set(d, 1.05f);
  auto c6 = hn::Set(d, 1.06f), c7 = hn::Set(d, 1.07f), c8 = hn::Set(d, 1.08f);
  auto c9 = hn::Set(d, 1.09f), c10 = hn::Set(d, 1.10f), c11 = hn::Set(d, 1.11f);
  for (int64_t i = 0; i < iterations; ++i) {
    c0 = hn::MulAdd(c0, m, a);
    c1 = hn::MulAdd(c1, m, a);
    c2 = hn::MulAdd(c2, m, a);
    c3 = hn::MulAdd(c3, m, a);
    c4 = hn::MulAdd(c4, m, a);
    c5 = hn::MulAdd(c5, m, a);
    c6 = hn::MulAdd(c6, m, a);
    c7 = hn::MulAdd(c7, m, a);
    c8 = hn::MulAdd(c8, m, a);
    c9 = hn::MulAdd(c9, m, a);
    c10 = hn::MulAdd(c10, m, a);
    c11 = hn::MulAdd(c11, m, a);
  }
  const auto sum = hn::Add(
      hn::Add(hn::Add(hn::Add(c0, c1), hn::Add(c2, c3)), hn::Add(hn::Add(c4, c5), hn::Add(c6, c7))),
      hn::Add(hn::Add(c8, c9), hn::Add(c10, c11)));
  return hn::GetLane(hn::SumOfLanes(d, sum));
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn_bench
HWY_AFTER_NAMESPACE();

namespace edgeattn_bench {
namespace {

// Read through volatile so that the multiplier and addend are run-time values.
volatile float g_mul = 0.999f;
volatile float g_add = 0.001f;
volatile float g_sink = 0.0f;

double TimeChains(int64_t iterations) {
  const float mul = g_mul, add = g_add;
  const auto start = std::chrono::steady_clock::now();
  g_sink = HWY_STATIC_DISPATCH(FmaChains)(iterations, mul, add);
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(stop - start).count();
}

}  // namespace

FmaPeak MeasureFmaPeak(double seconds_per_trial, int trials) {
  FmaPeak peak;
  peak.target = hwy::TargetName(HWY_STATIC_TARGET);
  peak.lanes = HWY_STATIC_DISPATCH(FloatLanes)();
  peak.chains = HWY_NAMESPACE::kChains;

  // Calibrate the iteration count to about seconds_per_trial (warms the clock up too).
  int64_t iterations = int64_t{1} << 20;
  double seconds = TimeChains(iterations);
  while (seconds < 0.02) {
    iterations *= 4;
    seconds = TimeChains(iterations);
  }
  iterations = static_cast<int64_t>(static_cast<double>(iterations) * seconds_per_trial / seconds);
  peak.iterations = iterations;

  const double flops =
      2.0 * static_cast<double>(peak.lanes) * peak.chains * static_cast<double>(iterations);
  for (int t = 0; t < trials; ++t) {
    seconds = TimeChains(iterations);
    const double gflops = flops / seconds * 1e-9;
    if (gflops > peak.gflops) {
      peak.gflops = gflops;
      peak.seconds = seconds;
    }
  }
  return peak;
}

}  // namespace edgeattn_bench
