// FMA-throughput probe: a Highway kernel running independent MulAdd chains, enough of them to
// cover FMA latency times FMA pipes (4 cycles x 2 pipes = 8 in flight on current x86 cores,
// 4 x 4 = 16 on the widest Arm cores): 12 chains, 16 where there are 32 vector registers.
//
// It is compiled once per Highway target (foreach_target), with the library's own flags, into
// one object that the demo and the benchmarks share. Both dispatch at run time, so it runs the
// very target ea_simd_target() reports; under an ea_set_max_simd_target cap (Highway's
// process-wide target choice) it runs the capped target, which is how the benchmarks measure
// the AVX2 peak on an AVX-512 core. With a single compiled target (static builds:
// HWY_COMPILE_ONLY_STATIC) Highway's dynamic dispatch is a direct call and needs no libhwy.
#undef HWY_TARGET_INCLUDE
// Resolved through -Iinclude, which the flags it is built with pass.
#define HWY_TARGET_INCLUDE "../bench/fma_peak.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "fma_peak.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn_bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// 32 vector registers: AVX-512, and NEON/SVE on AArch64. 16 chains then leave room for the
// two constants; with 16 registers, 12 chains do (and still exceed latency x pipes).
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || HWY_ARCH_ARM_A64
constexpr int kChains = 16;
#else
constexpr int kChains = 12;
#endif

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

size_t FloatLanes() { return hn::Lanes(hn::ScalableTag<float>()); }

int Chains() { return kChains; }

// kChains independent chains acc = acc * mul + add. With mul < 1 each chain converges to
// add / (1 - mul), so values stay normal (no denormal slow path, no overflow). The sum of all
// lanes is returned so the compiler must compute every chain. Named variables, not an array:
// SVE vectors are sizeless and cannot be array elements.
HWY_NOINLINE float FmaChains(int64_t iterations, float mul, float add) {
  const hn::ScalableTag<float> d;
  const auto m = hn::Set(d, mul);
  const auto a = hn::Set(d, add);
  auto c0 = hn::Set(d, 1.00f), c1 = hn::Set(d, 1.01f), c2 = hn::Set(d, 1.02f);
  auto c3 = hn::Set(d, 1.03f), c4 = hn::Set(d, 1.04f), c5 = hn::Set(d, 1.05f);
  auto c6 = hn::Set(d, 1.06f), c7 = hn::Set(d, 1.07f), c8 = hn::Set(d, 1.08f);
  auto c9 = hn::Set(d, 1.09f), c10 = hn::Set(d, 1.10f), c11 = hn::Set(d, 1.11f);
  auto c12 = hn::Set(d, 1.12f), c13 = hn::Set(d, 1.13f), c14 = hn::Set(d, 1.14f);
  auto c15 = hn::Set(d, 1.15f);
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
    if constexpr (kChains == 16) {
      c12 = hn::MulAdd(c12, m, a);
      c13 = hn::MulAdd(c13, m, a);
      c14 = hn::MulAdd(c14, m, a);
      c15 = hn::MulAdd(c15, m, a);
    }
  }
  auto sum = hn::Add(
      hn::Add(hn::Add(hn::Add(c0, c1), hn::Add(c2, c3)), hn::Add(hn::Add(c4, c5), hn::Add(c6, c7))),
      hn::Add(hn::Add(c8, c9), hn::Add(c10, c11)));
  if constexpr (kChains == 16) sum = hn::Add(sum, hn::Add(hn::Add(c12, c13), hn::Add(c14, c15)));
  return hn::GetLane(hn::SumOfLanes(d, sum));
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn_bench
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <chrono>

namespace edgeattn_bench {

HWY_EXPORT(TargetName);
HWY_EXPORT(FloatLanes);
HWY_EXPORT(Chains);
HWY_EXPORT(FmaChains);

namespace {

// Read through volatile so that the multiplier and addend are run-time values.
volatile float g_mul = 0.999f;
volatile float g_add = 0.001f;
volatile float g_sink = 0.0f;

using ChainsFunction = float (*)(int64_t, float, float);

double TimeChains(ChainsFunction chains, int64_t iterations) {
  const float mul = g_mul, add = g_add;
  const auto start = std::chrono::steady_clock::now();
  g_sink = chains(iterations, mul, add);
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(stop - start).count();
}

}  // namespace

FmaPeak MeasureFmaPeak(double seconds_per_trial, int trials, FmaProbeTarget which) {
  FmaPeak peak;
  ChainsFunction chains = nullptr;
  if (which == FmaProbeTarget::kStatic) {
    peak.target = HWY_STATIC_DISPATCH(TargetName)();
    peak.dispatch = "static dispatch";
    peak.lanes = HWY_STATIC_DISPATCH(FloatLanes)();
    peak.chains = HWY_STATIC_DISPATCH(Chains)();
    chains = &HWY_STATIC_DISPATCH(FmaChains);
  } else {
    peak.target = HWY_DYNAMIC_DISPATCH(TargetName)();
    // One compiled target (static builds): Highway's dynamic dispatch is then a direct call.
    peak.dispatch = (HWY_TARGETS & (HWY_TARGETS - 1)) == 0 ? "static dispatch" : "dynamic dispatch";
    peak.lanes = HWY_DYNAMIC_DISPATCH(FloatLanes)();
    peak.chains = HWY_DYNAMIC_DISPATCH(Chains)();
    // The calls above made Highway choose its target, so this is that target's copy.
    chains = &HWY_DYNAMIC_DISPATCH(FmaChains);
  }

  // Calibrate the iteration count to about seconds_per_trial (warms the clock up too).
  int64_t iterations = int64_t{1} << 20;
  double seconds = TimeChains(chains, iterations);
  while (seconds < 0.02) {
    iterations *= 4;
    seconds = TimeChains(chains, iterations);
  }
  iterations = static_cast<int64_t>(static_cast<double>(iterations) * seconds_per_trial / seconds);
  peak.iterations = iterations;

  const double flops =
      2.0 * static_cast<double>(peak.lanes) * peak.chains * static_cast<double>(iterations);
  for (int t = 0; t < trials; ++t) {
    seconds = TimeChains(chains, iterations);
    const double gflops = flops / seconds * 1e-9;
    if (gflops > peak.gflops) {
      peak.gflops = gflops;
      peak.seconds = seconds;
    }
  }
  return peak;
}

}  // namespace edgeattn_bench
#endif  // HWY_ONCE
