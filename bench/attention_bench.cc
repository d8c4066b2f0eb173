// make bench / make bench-quick: edgeattn against this core's own FMA peak and against two
// peers a user would otherwise reach for, Eigen and oneDNN, all measured in the same run and on
// one thread, plus edgeattn on 2 workers for a few shapes and edgeattn's fixed-point (int8,
// int16) MHA against its own float32 rows and the core's integer dot-product peaks, and
// edgeattn's KV-cache decode against the core's read bandwidth. Order: limit oneDNN's OpenMP
// to one thread; measure the FMA peaks (best target and AVX2), the integer peaks (vpdpbusd or
// vpmaddwd) and the read bandwidth at every decode working set; start the 2-worker pool;
// cross-check that the three libraries compute the same outputs on every float32 shape (and 2
// workers the same bits as 1), that every fixed-point layer is a sane quantization of its
// float one and that every KV cache attends as Eigen does over its window; time every shape
// with Google Benchmark (eigen, onednn, edgeattn back to back, then edgeattn capped at AVX2,
// edgeattn on 2 workers, then on 1 and 2 workers beside a busy process (busy_process.h), and
// edgeattn's s8 and s16 rows where the suite has those rows, and the KV-cache rows after the
// dense decode of their length, and a whole MHA layer decoding a stream: f32, s8, s16); print
// the summary tables; stop the pool.
// --suite=quick picks the headline shapes with shorter timing; every other flag goes to Google
// Benchmark (--benchmark_out, --benchmark_filter, ...).
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <cstddef>
#include <set>

#include <benchmark/benchmark.h>

#include "benchmark_names.h"
#include "busy_process.h"
#include "cpu_identity.h"
#include "cross_check.h"
#include "decode_stream.h"
#include "decode_stream_check.h"
#include "edgeattn/edgeattn.h"
#include "eigen_attention.h"
#include "fma_peak.h"
#include "int_dot_peak.h"
#include "onednn_attention.h"
#include "quant_check.h"
#include "quant_workloads.h"
#include "ratio_json_reporter.h"
#include "read_bandwidth.h"
#include "shapes.h"
#include "simd_cap.h"
#include "single_thread.h"
#include "summary_reporter.h"
#include "target_peaks.h"
#include "worker_pool.h"
#include "workloads.h"

namespace edgeattn_bench {
namespace {

// How long each suite measures. Each benchmark runs `repetitions` times for at least
// `min_seconds`; the table and the ratios use the median.
struct Timing {
  double min_seconds;
  int repetitions;
  int peak_trials;  // FMA probe trials of about 50 ms each; the best one counts
};

Timing TimingOf(Suite suite) {
  return suite == Suite::kQuick ? Timing{0.1, 3, 8} : Timing{0.3, 3, 16};
}

constexpr double kPeakSecondsPerTrial = 0.05;
// Read-bandwidth trials are shorter: a pass over 16 MiB takes under a millisecond.
constexpr double kBandwidthSecondsPerTrial = 0.02;

// Removes --suite=quick|full from the arguments (Google Benchmark refuses flags it does not
// know) and returns the suite; full by default.
bool TakeSuiteFlag(int* argc, char** argv, Suite* suite) {
  constexpr const char kFlag[] = "--suite=";
  bool ok = true;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    if (strncmp(argv[i], kFlag, sizeof kFlag - 1) != 0) {
      argv[kept++] = argv[i];
      continue;
    }
    const char* value = argv[i] + sizeof kFlag - 1;
    if (strcmp(value, "quick") == 0) {
      *suite = Suite::kQuick;
    } else if (strcmp(value, "full") == 0) {
      *suite = Suite::kFull;
    } else {
      fprintf(stderr, "unknown suite '%s' (quick or full)\n", value);
      ok = false;
    }
  }
  *argc = kept;
  argv[kept] = nullptr;
  return ok;
}

// Google Benchmark refuses a custom file reporter when --benchmark_out is not given.
bool WritesOutputFile(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (strncmp(argv[i], "--benchmark_out=", 16) == 0 && argv[i][16] != '\0') return true;
  }
  return false;
}

const char* EigenVersion() {
  return EIGEN_MAKESTRING(EIGEN_WORLD_VERSION) "." EIGEN_MAKESTRING(
      EIGEN_MAJOR_VERSION) "." EIGEN_MAKESTRING(EIGEN_MINOR_VERSION);
}

// A decoding MHA layer's row (kMhaDecode), whose iteration is a stream of n tokens:
// tokens_per_s. Nothing for the other kinds.
void SetStreamCounters(benchmark::State& state, const Shape& shape) {
  if (shape.kind != Kind::kMhaDecode) return;
  state.counters["tokens_per_s"] =
      benchmark::Counter(shape.n, benchmark::Counter::kIsIterationInvariantRate);
}

// A fixed-point row: edgeattn's ea_mha_quant_run_s8 / _s16 (kMhaDecode: ea_decoder_quant's
// steps) on one worker, best target. Counters
// gops (integer operations, counted as the f32 rows' FLOPs) and pct_peak against the row's
// integer probe; vs_f32 is added by the reporters.
void RunFixedPointShape(benchmark::State& state, const Shape& shape, double peak_gops) {
  const std::unique_ptr<QuantWorkload> workload = MakeQuantWorkload(shape);
  if (workload->plan_status() != EA_OK) {
    state.SkipWithError(ea_status_str(workload->plan_status()));
    return;
  }
  if (workload->Run() != EA_OK) {  // untimed: faults the pages in and warms the caches
    state.SkipWithError("ea run failed");
    return;
  }
  for (auto _ : state) {
    const ea_status status = workload->Run();
    benchmark::DoNotOptimize(status);
    benchmark::ClobberMemory();
  }
  state.SetLabel(std::string(ea_simd_target()) +
                 (shape.precision == Precision::kS8 ? ", int8" : ", int16"));
  SetStreamCounters(state, shape);
  const double ops = ShapeFlops(shape);
  state.counters["gops"] =
      benchmark::Counter(ops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  if (peak_gops > 0.0) {
    state.counters["pct_peak"] = benchmark::Counter(100.0 * ops / (peak_gops * 1e9),
                                                    benchmark::Counter::kIsIterationInvariantRate);
  }
}

// Rates over real time (the benchmarks use UseRealTime): FLOP/s and the percent of the peak
// of the target the row ran on (times its workers).
void SetFlopCounters(benchmark::State& state, const Shape& shape, double peak_gflops) {
  const double flops = ShapeFlops(shape);
  state.counters["gflops"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["pct_peak"] = benchmark::Counter(100.0 * flops / (peak_gflops * 1e9),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

// Decode rows (dense and KV cache), one token per iteration: tokens per second, the K/V bytes
// read per token (ShapeCacheBytes) per second, and those as a percent of the read-bandwidth
// probe at the same working set.
void SetDecodeCounters(benchmark::State& state, const Shape& shape, double peak_gbps) {
  const double bytes = static_cast<double>(ShapeCacheBytes(shape));
  state.counters["tokens_per_s"] =
      benchmark::Counter(1.0, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["gbps"] =
      benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  if (peak_gbps > 0.0) {
    state.counters["pct_bw"] = benchmark::Counter(100.0 * bytes / (peak_gbps * 1e9),
                                                  benchmark::Counter::kIsIterationInvariantRate);
  }
}

const char* KvStorageLabel(ea_kv_storage storage) {
  return storage == EA_KV_STORAGE_F16  ? "f16"
         : storage == EA_KV_STORAGE_Q8 ? "int8"
         : storage == EA_KV_STORAGE_Q4 ? "int4"
                                       : "f32";
}

// A KV-cache row: edgeattn's cache, one token of the stream per iteration (append its K/V,
// attend its query), best target, one worker. The cache is made and filled before the loop.
void RunDecodeStreamShape(benchmark::State& state, const Shape& shape, double peak_gflops,
                          double peak_gbps) {
  DecodeStream stream(shape);
  if (stream.plan_status() != EA_OK) {
    state.SkipWithError(ea_status_str(stream.plan_status()));
    return;
  }
  if (stream.Step() != EA_OK) {  // untimed: warms the caches
    state.SkipWithError("ea_kv_cache step failed");
    return;
  }
  for (auto _ : state) {
    const ea_status status = stream.Step();
    benchmark::DoNotOptimize(status);
    benchmark::ClobberMemory();
  }
  state.SetLabel(
      std::string(ea_simd_target()) + ", " + KvStorageLabel(shape.kv_storage) + " cache" +
      (shape.kv_heads != kDecodeHeads ? ", " + std::to_string(shape.kv_heads) + " KV heads"
                                      : std::string()));
  SetFlopCounters(state, shape, peak_gflops);
  SetDecodeCounters(state, shape, peak_gbps);
}

void RunShape(benchmark::State& state, const Shape& shape, Library library, double peak_gflops,
              double peak_gbps, const ea_parallel_for& parallel) {
  if (IsFixedPoint(shape)) {
    RunFixedPointShape(state, shape, peak_gflops);
    return;
  }
  if (shape.kind == Kind::kDecodeStream) {
    RunDecodeStreamShape(state, shape, peak_gflops, peak_gbps);
    return;
  }
  // Only edgeattn's rows are capped; the peers always run their normal builds.
  const ScopedSimdCap cap(library == Library::kEdgeattn ? SimdCapName(shape.simd) : nullptr);
  // A busy row's process spins from before the warm-up call to the end of the row.
  std::unique_ptr<BusyProcess> busy;
  if (shape.busy) busy = std::make_unique<BusyProcess>();
  if (busy != nullptr && !busy->started()) {
    state.SkipWithError("could not start the busy process");
    return;
  }
  if (cap.status() != EA_OK) {
    state.SkipWithError(ea_status_str(cap.status()));
    return;
  }
  const std::unique_ptr<Workload> workload = MakeWorkload(shape, parallel);
  if (workload->plan_status() != EA_OK) {
    state.SkipWithError(ea_status_str(workload->plan_status()));
    return;
  }
  // One untimed call each: faults the pages in and warms the caches.
  switch (library) {
    case Library::kEdgeattn:
      if (workload->RunEdgeattn() != EA_OK) {
        state.SkipWithError("ea run failed");
        return;
      }
      for (auto _ : state) {
        const ea_status status = workload->RunEdgeattn();
        benchmark::DoNotOptimize(status);
        benchmark::ClobberMemory();
      }
      state.SetLabel(
          std::string(ea_simd_target()) +
          (shape.workers > 1 ? ", " + std::to_string(shape.workers) + " workers" : std::string()) +
          (shape.busy ? ", beside a busy process" : ""));
      break;
    case Library::kEigen:
      workload->RunEigen();
      for (auto _ : state) {
        workload->RunEigen();
        benchmark::ClobberMemory();
      }
      state.SetLabel(std::string("Eigen ") + EigenVersion());
      break;
    case Library::kOnednn:
      workload->RunOnednn();
      for (auto _ : state) {
        workload->RunOnednn();
        benchmark::ClobberMemory();
      }
      state.SetLabel("oneDNN " + OnednnVersion() + " " + OnednnCpuIsa());
      break;
  }
  // vs_eigen and vs_onednn, or vs_one_worker, are added by the reporters.
  SetFlopCounters(state, shape, peak_gflops);
  if (shape.kind == Kind::kDecode) SetDecodeCounters(state, shape, peak_gbps);
  SetStreamCounters(state, shape);
}

// `parallel`: the row's hook, zero for one worker. Multi-worker rows measure the CPU time of
// the whole process (every worker), so their CPU/real share is about their worker count.
// `peak_gbps`: the read bandwidth at a decode row's working set (0 for the other rows).
void Register(const Shape& shape, Library library, double peak_gflops, double peak_gbps,
              const ea_parallel_for& parallel, const Timing& timing) {
  benchmark::internal::Benchmark* benchmark = benchmark::RegisterBenchmark(
      BenchmarkName(shape, library).c_str(),
      [shape, library, peak_gflops, peak_gbps, parallel](benchmark::State& state) {
        RunShape(state, shape, library, peak_gflops, peak_gbps, parallel);
      });
  benchmark->UseRealTime()
      ->MinTime(timing.min_seconds)
      ->Repetitions(timing.repetitions)
      ->Unit(benchmark::kMicrosecond);
  if (shape.workers > 1) benchmark->MeasureProcessCPUTime();
}

void PrintPeak(const char* which, const FmaPeak& peak) {
  printf(
      "FMA peak, %s: %.1f GFLOP/s (Highway %s, %s, %zu lanes x %d chains, %lld iterations "
      "in %.3f s)\n",
      which, peak.gflops, peak.target, peak.dispatch, peak.lanes, peak.chains,
      static_cast<long long>(peak.iterations), peak.seconds);
}

std::string ProbeDescription(const FmaPeak& peak) {
  return std::string(peak.target) + " " + peak.dispatch + ", " + std::to_string(peak.lanes) +
         " lanes x " + std::to_string(peak.chains) + " chains";
}

void PrintIntPeak(const char* which, const IntDotPeak& peak) {
  printf(
      "integer dot-product peak, %s: %.1f GOP/s (%s, %d multiply-accumulates x %d chains, %lld "
      "iterations in %.3f s)\n",
      which, peak.gops, peak.probe, peak.macs_per_instruction, peak.chains,
      static_cast<long long>(peak.iterations), peak.seconds);
}

std::string ProbeDescription(const IntDotPeak& peak) {
  return std::string(peak.probe) + ", " + std::to_string(peak.macs_per_instruction) +
         " multiply-accumulates x " + std::to_string(peak.chains) + " chains";
}

void PrintReadBandwidth(const ReadBandwidth& probe) {
  printf(
      "read bandwidth, %s: %.1f GB/s (Highway %s, %zu-byte loads into %d accumulators, %lld "
      "passes in %.3f s)\n",
      WorkingSetLabel(probe.bytes).c_str(), probe.gbps, probe.target, probe.vector_bytes,
      probe.accumulators, static_cast<long long>(probe.passes), probe.seconds);
}

// Prints each probe whose figure is impossible (read_bandwidth.h) to stderr; true if any was.
bool ReportImpossibleBandwidths(const std::vector<ReadBandwidth>& probes) {
  bool any = false;
  for (const ReadBandwidth& probe : probes) {
    if (IsPlausible(probe)) continue;
    fprintf(stderr,
            "error: read-bandwidth probe at %s gave %.1f GB/s (%lld passes in %.6f s), outside "
            "(0, %.0f] GB/s: its passes did not read the buffer, so no pct_bw can be trusted\n",
            WorkingSetLabel(probe.bytes).c_str(), probe.gbps, static_cast<long long>(probe.passes),
            probe.seconds, kMaxPlausibleReadGbps);
    any = true;
  }
  return any;
}

// The read bandwidth at every decode working set of the suite, smallest first.
std::vector<ReadBandwidth> MeasureReadBandwidths(const std::vector<Shape>& shapes, int trials) {
  std::set<uint64_t> working_sets;
  for (const Shape& shape : shapes) {
    if (ShapeCacheBytes(shape) > 0) working_sets.insert(ShapeCacheBytes(shape));
  }
  std::vector<ReadBandwidth> probes;
  for (const uint64_t bytes : working_sets) {
    probes.push_back(MeasureReadBandwidth(bytes, kBandwidthSecondsPerTrial, trials));
  }
  return probes;
}

// Row i's ratio reference (`reference`, a benchmark name) must be registered before it, and be
// the row the reporters derive from the name (`derived`); false (and a printed line) if not.
bool ReferenceBefore(const std::vector<Shape>& shapes, size_t i, Library library,
                     const std::string& reference, const std::string& derived) {
  const bool before =
      std::any_of(shapes.begin(), shapes.begin() + static_cast<std::ptrdiff_t>(i),
                  [&](const Shape& s) { return BenchmarkName(s, library) == reference; });
  if (before && derived == reference) return true;
  printf("FAILED: %s needs %s before it in the suite (the reporters look for %s)\n",
         ShapeName(shapes[i]).c_str(), reference.c_str(), derived.c_str());
  return false;
}

// Every fixed-point shape's vs_f32 reference (F32TwinBenchmarkName), every KV-cache shape's
// f32 twin and dense peers (DecodeStream*BenchmarkName; none for heads wider than
// kDecodeHeadDim), and every busy shape's reference (the
// 1-worker busy row for 2 workers, the idle row for 1), must be in the suite before it.
bool RatioReferencesPresent(const std::vector<Shape>& shapes) {
  bool ok = true;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::string name = BenchmarkName(shapes[i], Library::kEdgeattn);
    if (shapes[i].busy) {
      Shape reference = shapes[i];
      if (reference.workers > 1) {
        reference.workers = 1;
      } else {
        reference.busy = false;
      }
      ok = ReferenceBefore(
               shapes, i, Library::kEdgeattn, BenchmarkName(reference, Library::kEdgeattn),
               shapes[i].workers > 1 ? OneWorkerBenchmarkName(name) : IdleBenchmarkName(name)) &&
           ok;
    }
    if (IsFixedPoint(shapes[i])) {
      ok = ReferenceBefore(shapes, i, Library::kEdgeattn,
                           BenchmarkName(F32Twin(shapes[i]), Library::kEdgeattn),
                           F32TwinBenchmarkName(name)) &&
           ok;
    }
    if (shapes[i].kind != Kind::kDecodeStream) continue;
    const std::string twin = BenchmarkName(DecodeStreamTwin(shapes[i]), Library::kEdgeattn);
    if (twin != name) {
      ok = ReferenceBefore(shapes, i, Library::kEdgeattn, twin,
                           DecodeStreamTwinBenchmarkName(name)) &&
           ok;
      continue;
    }
    if (shapes[i].head_dim != kDecodeHeadDim) continue;  // no dense peer rows (AddLongContextRows)
    for (const Library peer : {Library::kEigen, Library::kOnednn}) {
      ok = ReferenceBefore(shapes, i, peer, BenchmarkName(DecodeStreamPeer(shapes[i]), peer),
                           DecodeStreamPeerBenchmarkName(name, peer)) &&
           ok;
    }
  }
  return ok;
}

std::string Join(const std::vector<std::string>& parts, const char* separator) {
  std::string joined;
  for (const std::string& part : parts) joined += (joined.empty() ? "" : separator) + part;
  return joined;
}

std::string Formatted(const char* format, double value) {
  char text[32];
  snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace
}  // namespace edgeattn_bench

int main(int argc, char** argv) {
  using namespace edgeattn_bench;
  Suite suite = Suite::kFull;
  if (!TakeSuiteFlag(&argc, argv, &suite)) return 1;
  const bool write_file = WritesOutputFile(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const Timing timing = TimingOf(suite);

  // Before oneDNN's first primitive (single_thread.h); Eigen is built without OpenMP.
  const int omp_threads = LimitOpenMpToOneThread();
  Eigen::setNbThreads(1);

  const CpuIdentity cpu = ReadCpuIdentity();
  printf("CPU: %s, family %d, model %d, \"%s\"%s%s%s%s\n", cpu.vendor.c_str(), cpu.family,
         cpu.model, cpu.model_name.c_str(), cpu.core.empty() ? "" : " = ", cpu.core.c_str(),
         cpu.pipes.empty() ? "" : "; ", cpu.pipes.c_str());

  TargetPeaks peaks;
  peaks.best =
      MeasureFmaPeak(kPeakSecondsPerTrial, timing.peak_trials, FmaProbeTarget::kDispatched);
  {
    const ScopedSimdCap avx2(SimdCapName(SimdTarget::kAvx2));
    peaks.avx2 =
        MeasureFmaPeak(kPeakSecondsPerTrial, timing.peak_trials, FmaProbeTarget::kDispatched);
  }
  peaks.integer = MeasureIntDotPeaks(kPeakSecondsPerTrial, timing.peak_trials);
  const std::vector<Shape> shapes = BenchmarkShapes(suite);
  peaks.read = MeasureReadBandwidths(shapes, timing.peak_trials);
  if (ReportImpossibleBandwidths(peaks.read)) return 1;
  PrintPeak("best target", peaks.best);
  PrintPeak("capped at AVX2", peaks.avx2);
  PrintIntPeak("int8 (s8 rows)", peaks.integer.int8);
  PrintIntPeak("int16 (s16 rows)", peaks.integer.int16);
  for (const ReadBandwidth& probe : peaks.read) PrintReadBandwidth(probe);
  printf("edgeattn %s runs on %s (AVX2 rows: capped through ea_set_max_simd_target)\n",
         EDGEATTN_VERSION_STRING, ea_simd_target());
  if (strcmp(peaks.best.target, ea_simd_target()) != 0 || strcmp(peaks.avx2.target, "AVX2") != 0) {
    printf(
        "note: the probes ran %s and %s, the library runs %s and AVX2: pct_peak compares "
        "different targets\n",
        peaks.best.target, peaks.avx2.target, ea_simd_target());
  }
  printf("oneDNN %s (%s), OpenMP limited to %d thread; Eigen %s\n", OnednnVersion().c_str(),
         OnednnCpuIsa(), omp_threads, EigenVersion());

  // After the OpenMP limit, before anything runs edgeattn on it (worker_pool.h).
  WorkerPool pool(kParallelWorkers);
  if (!pool.started()) {
    printf("FAILED: could not start the %d-worker pthread pool\n", kParallelWorkers);
    return 1;
  }
  printf("pthread pool for the %d-worker rows: the main thread + %d thread(s)\n", kParallelWorkers,
         pool.threads());

  const CrossCheckResult check = CrossCheck(shapes, &pool);
  for (const std::string& line : check.onednn_implementations) {
    printf("oneDNN implementations, %s\n", line.c_str());
  }
  if (!check.agree) return 1;
  if (!RatioReferencesPresent(shapes)) return 1;
  const QuantCheckResult quant_check = CheckFixedPointShapes(shapes);
  if (!quant_check.passed) {
    printf("FAILED: a fixed-point layer did not run or is degenerate (lines above)\n");
    return 1;
  }
  const DecodeStreamCheckResult stream_check = CheckDecodeStreams(shapes);
  if (!stream_check.passed) {
    printf("FAILED: a KV cache did not run or disagrees with Eigen (lines above)\n");
    return 1;
  }
  // oneDNN has now run every shape; libgomp would still hold any worker it had started. The
  // only threads beside main must be the pool's, and the main thread's limit must still be 1.
  const int threads = ProcessThreadCount();
  const int omp_threads_after = OpenMpMaxThreads();
  printf(
      "threads in this process after every library ran every shape: %d (main + %d pool "
      "thread(s)); OpenMP max threads on main: %d\n",
      threads, pool.threads(), omp_threads_after);
  if (threads != 1 + pool.threads() || omp_threads != 1 || omp_threads_after != 1) {
    printf(
        "FAILED: the peers and 1-worker rows must run on one thread, and only the pool may "
        "add threads\n");
    return 1;
  }
  fflush(stdout);

  // Context lands at the top of the JSON output (--benchmark_out).
  benchmark::AddCustomContext("suite", suite == Suite::kQuick ? "quick" : "full");
  benchmark::AddCustomContext(
      "timing", std::to_string(timing.repetitions) + " repetitions of at least " +
                    Formatted("%.1f", timing.min_seconds) + " s, real time; rows hold the median");
  benchmark::AddCustomContext("cpu_vendor", cpu.vendor);
  benchmark::AddCustomContext("cpu_family", std::to_string(cpu.family));
  benchmark::AddCustomContext("cpu_model", std::to_string(cpu.model));
  benchmark::AddCustomContext("cpu_model_name", cpu.model_name);
  benchmark::AddCustomContext("cpu_core", cpu.core.empty() ? "unknown" : cpu.core);
  benchmark::AddCustomContext("cpu_vector_pipes", cpu.pipes.empty() ? "unknown" : cpu.pipes);
  benchmark::AddCustomContext("fma_peak_gflops", Formatted("%.3f", peaks.best.gflops));
  benchmark::AddCustomContext("fma_peak_probe", ProbeDescription(peaks.best));
  benchmark::AddCustomContext("fma_peak_avx2_gflops", Formatted("%.3f", peaks.avx2.gflops));
  benchmark::AddCustomContext("fma_peak_avx2_probe", ProbeDescription(peaks.avx2));
  benchmark::AddCustomContext("int8_peak_gops", Formatted("%.3f", peaks.integer.int8.gops));
  benchmark::AddCustomContext("int8_peak_probe", ProbeDescription(peaks.integer.int8));
  benchmark::AddCustomContext("int16_peak_gops", Formatted("%.3f", peaks.integer.int16.gops));
  benchmark::AddCustomContext("int16_peak_probe", ProbeDescription(peaks.integer.int16));
  for (const ReadBandwidth& probe : peaks.read) {
    benchmark::AddCustomContext("read_bandwidth_gbps_" + std::to_string(probe.bytes),
                                Formatted("%.3f", probe.gbps));
  }
  if (!peaks.read.empty()) {
    const ReadBandwidth& probe = peaks.read.front();
    benchmark::AddCustomContext(
        "read_bandwidth_probe",
        std::string("Highway ") + probe.target + " dynamic dispatch, " +
            std::to_string(probe.vector_bytes) + "-byte loads into " +
            std::to_string(probe.accumulators) +
            " float accumulators, read_bandwidth_gbps_<bytes> over a 64-byte-aligned buffer of "
            "that many bytes (a decode row's K/V bytes per token), best of " +
            std::to_string(timing.peak_trials) + " trials of about " +
            Formatted("%.2f", kBandwidthSecondsPerTrial) + " s; 1e9 bytes/s");
  }
  benchmark::AddCustomContext("edgeattn_version", EDGEATTN_VERSION_STRING);
  benchmark::AddCustomContext("edgeattn_simd_target", ea_simd_target());
  benchmark::AddCustomContext("eigen_version", EigenVersion());
  benchmark::AddCustomContext("onednn_version", OnednnVersion());
  benchmark::AddCustomContext("onednn_cpu_isa", OnednnCpuIsa());
  benchmark::AddCustomContext("onednn_implementations", Join(check.onednn_implementations, "; "));
  benchmark::AddCustomContext(
      "threading",
      "one thread for the peers and every 1-worker row: OpenMP (oneDNN's runtime) limited by "
      "omp_set_num_threads(1), omp_get_max_threads() = " +
          std::to_string(omp_threads) + "; " + std::to_string(kParallelWorkers) +
          "-worker rows: edgeattn on the main thread + " + std::to_string(pool.threads()) +
          " pthread pool thread(s) (examples/thread_pool), started before the cross-check; "
          "process threads after the cross-check = " +
          std::to_string(threads));
  benchmark::AddCustomContext("parallel_workers", std::to_string(kParallelWorkers));
  benchmark::AddCustomContext(
      "crosscheck_multi_worker",
      std::to_string(check.multi_worker_identical) + " of " +
          std::to_string(check.multi_worker_shapes) +
          " multi-worker shapes bit-identical (memcmp) to edgeattn on 1 worker");
  benchmark::AddCustomContext("crosscheck_worst_relative_gap_eigen",
                              Formatted("%.3g", check.worst_eigen_gap));
  benchmark::AddCustomContext("crosscheck_worst_relative_gap_onednn",
                              Formatted("%.3g", check.worst_onednn_gap));
  benchmark::AddCustomContext(
      "fixed_point_check",
      std::to_string(quant_check.shapes) +
          " fixed-point shapes against float32 MHA of the dequantized layer: worst "
          "rms(y - float y) / rms(float y) " +
          Formatted("%.3g", quant_check.worst_gap_s8) + " (s8), " +
          Formatted("%.3g", quant_check.worst_gap_s16) + " (s16); worst saturated share " +
          Formatted("%.4f", quant_check.worst_saturated_share));
  benchmark::AddCustomContext(
      "decode_stream_check",
      std::to_string(stream_check.shapes) +
          " KV-cache shapes against Eigen over the same window: worst max |edgeattn - Eigen| / "
          "max |Eigen| " +
          Formatted("%.3g", stream_check.worst_gap_f32) + " (f32), " +
          Formatted("%.3g", stream_check.worst_gap_f16) + " (f16), " +
          Formatted("%.3g", stream_check.worst_gap_int8) + " (int8), " +
          Formatted("%.3g", stream_check.worst_gap_int4) + " (int4)");
  benchmark::AddCustomContext(
      "counters",
      "gflops; pct_peak = 100 gflops / FMA peak of the row's target (N-worker rows: N x the "
      "single-core peak); vs_eigen, vs_onednn = single-threaded peer's median time / this "
      "row's time (1-worker rows only); vs_one_worker = edgeattn's 1-worker median time of the "
      "same shape / this row's time (N-worker rows only); busy rows (f32_busy/..., "
      "f32_busy_<N>workers/...): edgeattn beside a child process that spins on one core (normal "
      "priority, not pinned), vs_one_worker of the N-worker busy row against the 1-worker busy "
      "row, vs_idle of the 1-worker busy row = the same row's median time without the busy "
      "process / this row's time; fixed-point rows (s8/..., s16/...): "
      "gops = integer ops (2 per multiply-accumulate, the f32 FLOP count of the same MHA "
      "layer; s8/s16 prefill rows are single-head MHA layers with d_model = d), pct_peak = "
      "100 gops / int8_peak_gops (s8) or int16_peak_gops (s16), vs_f32 = edgeattn's f32 "
      "median time of the same layer / this row's time; decode rows (f32/decode/..., "
      "<storage>/decode_stream/...): tokens_per_s = iterations / s (one token each), gbps = "
      "K/V bytes read per token (n x KV heads x 64 x 2 x element bytes (int4: 1/2), + 8 bytes of "
      "scales per position and KV head for int8 and int4) / s per token, pct_bw = 100 gbps / "
      "read_bandwidth_gbps_<those bytes>; KV-cache rows: f32 with 8 KV heads has vs_eigen, "
      "vs_onednn = the peer's f32/decode median time of the same length / this row's time, "
      "f16, s8kv and s4kv rows vs_f32 = the f32 cache's median time with the same KV heads / this "
      "row's time, and the f32 grouped-query rows vs_no_gqa = the f32 cache's with 8 KV heads / "
      "this row's time; decoding MHA layers (f32/mha_decode/..., s8/..., s16/...): edgeattn "
      "only, one iteration = a stream of n tokens from position 0, one per step, "
      "tokens_per_s = n / s per iteration, gflops / gops count the causal MHA of the n tokens, "
      "vs_f32 = the f32 decoder's median time / this row's time");
  std::vector<std::string> headline;
  for (const Shape& shape : BenchmarkShapes(Suite::kQuick)) headline.push_back(ShapeName(shape));
  benchmark::AddCustomContext("headline_shapes", Join(headline, ","));

  for (const Shape& shape : shapes) {
    // Peers first, so that their times are known when edgeattn's row is reported. The AVX2
    // and multi-worker rows are edgeattn's only: their ratios use the rows of the same shape
    // that ran before them.
    if (shape.simd == SimdTarget::kBest && shape.workers == 1 && !shape.busy &&
        !IsFixedPoint(shape) && shape.kind != Kind::kDecodeStream &&
        shape.kind != Kind::kMhaDecode) {
      for (const Library peer : {Library::kEigen, Library::kOnednn}) {
        Register(shape, peer, peaks.GflopsFor(shape, peer), peaks.GbpsFor(shape), ea_parallel_for{},
                 timing);
      }
    }
    Register(shape, Library::kEdgeattn, peaks.GflopsFor(shape, Library::kEdgeattn),
             peaks.GbpsFor(shape), pool.HookFor(shape.workers), timing);
  }
  SummaryReporter reporter;
  RatioJsonReporter file_reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, write_file ? &file_reporter : nullptr);
  PrintSummaryTable(reporter, shapes, peaks);
  pool.Stop();
  // The ratios use the peaks measured first; a second probe shows whether the clock moved.
  const double best_after =
      MeasureFmaPeak(kPeakSecondsPerTrial, timing.peak_trials, FmaProbeTarget::kDispatched).gflops;
  double avx2_after = 0.0;
  {
    const ScopedSimdCap avx2(SimdCapName(SimdTarget::kAvx2));
    avx2_after =
        MeasureFmaPeak(kPeakSecondsPerTrial, timing.peak_trials, FmaProbeTarget::kDispatched)
            .gflops;
  }
  const IntDotPeaks integer_after = MeasureIntDotPeaks(kPeakSecondsPerTrial, timing.peak_trials);
  printf(
      "FMA peaks measured again after the runs: %.1f GFLOP/s (%s), %.1f GFLOP/s (AVX2); integer "
      "peaks: %.1f GOP/s (%s), %.1f GOP/s (%s); threads (pool stopped): %d\n",
      best_after, peaks.best.target, avx2_after, integer_after.int8.gops, integer_after.int8.probe,
      integer_after.int16.gops, integer_after.int16.probe, ProcessThreadCount());
  std::string bandwidth_after;
  const std::vector<ReadBandwidth> read_after = MeasureReadBandwidths(shapes, timing.peak_trials);
  if (ReportImpossibleBandwidths(read_after)) return 1;
  for (const ReadBandwidth& probe : read_after) {
    bandwidth_after += (bandwidth_after.empty() ? "" : ", ") + WorkingSetLabel(probe.bytes) + " " +
                       Formatted("%.1f", probe.gbps);
  }
  if (!bandwidth_after.empty()) {
    printf("read bandwidth measured again after the runs (GB/s): %s\n", bandwidth_after.c_str());
  }
  benchmark::Shutdown();
  return 0;
}
