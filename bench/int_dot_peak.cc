// Integer dot-product probes (see int_dot_peak.h): independent accumulator chains of one
// instruction, enough of them to cover its latency times its pipes (5 cycles x 2 pipes = 10 in
// flight on current x86 cores): 16 chains on zmm (32 registers), 12 on ymm (AVX2's 16).
//
// vpdpbusd accumulates into its destination, so each chain is acc = dpbusd(acc, a, b) with
// loop-invariant a and b. vpmaddwd does not accumulate (the kernels add its result with a
// vpaddd), and madd(a, b) of loop-invariant operands would be hoisted out of the loop, so each
// chain feeds the instruction its own output, acc = madd(acc, m): that times vpmaddwd alone,
// whose throughput is the path's ceiling. Integer lanes wrap, so any values are fine (no slow
// path, no undefined behaviour in the instructions). Each function carries its own target
// attribute and runs only where __builtin_cpu_supports says the CPU has it, so the probe builds
// with any -march and picks the instruction at run time.
#include "int_dot_peak.h"

#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define EDGEATTN_BENCH_X86 1
#endif

namespace edgeattn_bench {
namespace {

#ifdef EDGEATTN_BENCH_X86

// Read through volatile so that the operands are run-time values.
volatile int32_t g_operand_a = 0x01020304;
volatile int32_t g_operand_b = 0x05060708;
volatile int32_t g_sink = 0;

#define EDGEATTN_CHAINS_12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define EDGEATTN_CHAINS_16(X) EDGEATTN_CHAINS_12(X) X(12) X(13) X(14) X(15)

constexpr int kZmmChains = 16;
constexpr int kYmmChains = 12;

// Through memory rather than _mm512_reduce_add_epi32, whose _mm256_undefined_si256 operand
// GCC 12 reports as uninitialised once inlined (GCC bug 105593, see eigen_attention.h).
__attribute__((target("avx512f"))) int32_t SumOfLanes(__m512i sum) {
  alignas(64) int32_t lanes[16];
  _mm512_store_si512(lanes, sum);
  int32_t total = 0;
  for (const int32_t lane : lanes) total += lane;
  return total;
}

__attribute__((target("avx512vnni,avx512bw,avx512f"), noinline)) int32_t DpbusdZmmChains(
    int64_t iterations, int32_t a_bits, int32_t b_bits) {
  const __m512i a = _mm512_set1_epi32(a_bits);
  const __m512i b = _mm512_set1_epi32(b_bits);
#define EDGEATTN_DECLARE(i) __m512i c##i = _mm512_set1_epi32(i);
  EDGEATTN_CHAINS_16(EDGEATTN_DECLARE)
#undef EDGEATTN_DECLARE
  for (int64_t it = 0; it < iterations; ++it) {
#define EDGEATTN_STEP(i) c##i = _mm512_dpbusd_epi32(c##i, a, b);
    EDGEATTN_CHAINS_16(EDGEATTN_STEP)
#undef EDGEATTN_STEP
  }
  __m512i sum = _mm512_setzero_si512();
#define EDGEATTN_SUM(i) sum = _mm512_add_epi32(sum, c##i);
  EDGEATTN_CHAINS_16(EDGEATTN_SUM)
#undef EDGEATTN_SUM
  return SumOfLanes(sum);
}

__attribute__((target("avx512bw,avx512f"), noinline)) int32_t MaddZmmChains(int64_t iterations,
                                                                            int32_t a_bits,
                                                                            int32_t b_bits) {
  const __m512i m = _mm512_set1_epi32(b_bits);
#define EDGEATTN_DECLARE(i) __m512i c##i = _mm512_set1_epi32(a_bits + i);
  EDGEATTN_CHAINS_16(EDGEATTN_DECLARE)
#undef EDGEATTN_DECLARE
  for (int64_t it = 0; it < iterations; ++it) {
#define EDGEATTN_STEP(i) c##i = _mm512_madd_epi16(c##i, m);
    EDGEATTN_CHAINS_16(EDGEATTN_STEP)
#undef EDGEATTN_STEP
  }
  __m512i sum = _mm512_setzero_si512();
#define EDGEATTN_SUM(i) sum = _mm512_add_epi32(sum, c##i);
  EDGEATTN_CHAINS_16(EDGEATTN_SUM)
#undef EDGEATTN_SUM
  return SumOfLanes(sum);
}

__attribute__((target("avx2"), noinline)) int32_t MaddYmmChains(int64_t iterations, int32_t a_bits,
                                                                int32_t b_bits) {
  const __m256i m = _mm256_set1_epi32(b_bits);
#define EDGEATTN_DECLARE(i) __m256i c##i = _mm256_set1_epi32(a_bits + i);
  EDGEATTN_CHAINS_12(EDGEATTN_DECLARE)
#undef EDGEATTN_DECLARE
  for (int64_t it = 0; it < iterations; ++it) {
#define EDGEATTN_STEP(i) c##i = _mm256_madd_epi16(c##i, m);
    EDGEATTN_CHAINS_12(EDGEATTN_STEP)
#undef EDGEATTN_STEP
  }
  __m256i sum = _mm256_setzero_si256();
#define EDGEATTN_SUM(i) sum = _mm256_add_epi32(sum, c##i);
  EDGEATTN_CHAINS_12(EDGEATTN_SUM)
#undef EDGEATTN_SUM
  alignas(32) int32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), sum);
  int32_t total = 0;
  for (const int32_t lane : lanes) total += lane;
  return total;
}

#undef EDGEATTN_CHAINS_16
#undef EDGEATTN_CHAINS_12

using ChainsFunction = int32_t (*)(int64_t, int32_t, int32_t);

double TimeChains(ChainsFunction chains, int64_t iterations) {
  const int32_t a = g_operand_a, b = g_operand_b;
  const auto start = std::chrono::steady_clock::now();
  g_sink = chains(iterations, a, b);
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(stop - start).count();
}

// Calibrates the iteration count to about seconds_per_trial (warming the clock up too), then
// keeps the fastest of `trials` trials.
IntDotPeak Measure(ChainsFunction function, const char* probe, int macs, int chains,
                   double seconds_per_trial, int trials) {
  IntDotPeak peak;
  peak.probe = probe;
  peak.macs_per_instruction = macs;
  peak.chains = chains;
  int64_t iterations = int64_t{1} << 20;
  double seconds = TimeChains(function, iterations);
  while (seconds < 0.02) {
    iterations *= 4;
    seconds = TimeChains(function, iterations);
  }
  iterations = static_cast<int64_t>(static_cast<double>(iterations) * seconds_per_trial / seconds);
  peak.iterations = iterations;
  const double ops = 2.0 * macs * chains * static_cast<double>(iterations);
  for (int t = 0; t < trials; ++t) {
    seconds = TimeChains(function, iterations);
    const double gops = ops / seconds * 1e-9;
    if (gops > peak.gops) {
      peak.gops = gops;
      peak.seconds = seconds;
    }
  }
  return peak;
}

#endif  // EDGEATTN_BENCH_X86

}  // namespace

IntDotPeaks MeasureIntDotPeaks(double seconds_per_trial, int trials) {
  IntDotPeaks peaks;
#ifdef EDGEATTN_BENCH_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512bw")) {
    peaks.int16 = Measure(&MaddZmmChains, "vpmaddwd zmm (AVX512BW)", 32, kZmmChains,
                          seconds_per_trial, trials);
  } else if (__builtin_cpu_supports("avx2")) {
    peaks.int16 =
        Measure(&MaddYmmChains, "vpmaddwd ymm (AVX2)", 16, kYmmChains, seconds_per_trial, trials);
  }
  peaks.int8 = peaks.int16;
  if (__builtin_cpu_supports("avx512vnni")) {
    peaks.int8 = Measure(&DpbusdZmmChains, "vpdpbusd zmm (AVX512-VNNI)", 64, kZmmChains,
                         seconds_per_trial, trials);
  }
#else
  (void)seconds_per_trial;
  (void)trials;
#endif
  return peaks;
}

}  // namespace edgeattn_bench
