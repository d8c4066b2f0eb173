// Console reporter with peer ratios, and the closing summary table (see summary_reporter.h).
#include "summary_reporter.h"

#include <stdio.h>

#include <string>

#include "benchmark_names.h"
#include "read_bandwidth.h"

namespace edgeattn_bench {

void SummaryReporter::ReportRuns(const std::vector<Run>& runs) { Show(ratios_.Add(runs)); }

void SummaryReporter::Finalize() {
  Show(ratios_.Flush());
  benchmark::ConsoleReporter::Finalize();
}

void SummaryReporter::Show(const std::vector<std::vector<Run>>& batches) {
  for (const std::vector<Run>& batch : batches) {
    std::vector<Run> shown;
    for (const Run& run : batch) {
      if (run.run_type == Run::RT_Iteration && !run.error_occurred &&
          run.real_accumulated_time > 0.0) {
        const std::string& name = run.run_name.function_name;
        const double share = run.cpu_accumulated_time / run.real_accumulated_time;
        const double per_worker = share / WorkersOfBenchmark(name);
        // Busy rows share a core on purpose (their own table shows their CPU/real).
        if (per_worker < min_cpu_share_ && !IsBusyBenchmark(name)) min_cpu_share_ = per_worker;
        const auto known = cpu_shares_.find(name);
        if (known == cpu_shares_.end() || share < known->second) cpu_shares_[name] = share;
      }
      // Repeated benchmarks show their aggregates (mean, median, stddev, cv) only.
      if (run.repetitions <= 1 || run.run_type == Run::RT_Aggregate) shown.push_back(run);
    }
    if (!shown.empty()) benchmark::ConsoleReporter::ReportRuns(shown);
  }
}

double SummaryReporter::CpuShare(const std::string& name) const {
  const auto found = cpu_shares_.find(name);
  return found == cpu_shares_.end() ? -1.0 : found->second;
}

namespace {

void PrintCell(double value, const char* format) {
  if (value > 0.0) {
    printf(" ");
    printf(format, value);
    printf(" |");
  } else {
    printf(" - |");
  }
}

// The multi-worker rows: edgeattn's GFLOP/s, its 1-worker GFLOP/s of the same shape, pct_peak
// against workers x the single-core peak, the speed-up and the CPU/real share.
void PrintWorkersTable(const SummaryReporter& reporter, const std::vector<Shape>& shapes,
                       const TargetPeaks& peaks) {
  bool header = false;
  for (const Shape& shape : shapes) {
    if (shape.workers <= 1 || shape.busy) continue;
    const std::string name = BenchmarkName(shape, Library::kEdgeattn);
    const double seconds = reporter.SecondsPerIteration(name);
    if (seconds <= 0.0) continue;
    if (!header) {
      const int workers = shape.workers;
      printf("\n%d-worker rows (edgeattn only, on the pthread pool: the main thread + %d)\n",
             workers, workers - 1);
      printf("pct_peak: of %d x the single-core peak = %.1f GFLOP/s; vs_one_worker = edgeattn's\n",
             workers, peaks.GflopsFor(shape, Library::kEdgeattn));
      printf("1-worker median time / this row's; no vs_eigen, vs_onednn: the peers run on one\n");
      printf("thread. CPU/real: process CPU time / real time, lowest repetition (%d.00: every\n",
             workers);
      printf("worker busy throughout; near 1: another process took a core)\n\n");
      printf(
          "| shape | edgeattn GFLOP/s | 1-worker GFLOP/s | pct_peak (%d cores) | vs_one_worker "
          "| CPU/real |\n",
          shape.workers);
      printf("|---|---:|---:|---:|---:|---:|\n");
      header = true;
    }
    const double one_worker = reporter.SecondsPerIteration(OneWorkerBenchmarkName(name));
    const double gflops = ShapeFlops(shape) * 1e-9 / seconds;
    printf("| %s |", ShapeName(shape).c_str());
    PrintCell(gflops, "%.1f");
    PrintCell(one_worker > 0.0 ? ShapeFlops(shape) * 1e-9 / one_worker : -1.0, "%.1f");
    PrintCell(100.0 * gflops / peaks.GflopsFor(shape, Library::kEdgeattn), "%.1f");
    PrintCell(one_worker > 0.0 ? one_worker / seconds : -1.0, "%.2f");
    PrintCell(reporter.CpuShare(name), "%.2f");
    printf("\n");
  }
}

// The busy rows, one line per multi-worker busy shape: its GFLOP/s and that of its 1-worker
// busy row, vs_one_worker (between those two), the idle 1-worker row's GFLOP/s and the
// multi-worker busy row's speed against it, and both busy rows' CPU/real.
void PrintBusyTable(const SummaryReporter& reporter, const std::vector<Shape>& shapes) {
  bool header = false;
  for (const Shape& shape : shapes) {
    if (!shape.busy || shape.workers <= 1) continue;
    const std::string name = BenchmarkName(shape, Library::kEdgeattn);
    const double seconds = reporter.SecondsPerIteration(name);
    if (seconds <= 0.0) continue;
    if (!header) {
      printf("\nbusy rows: edgeattn beside a child process that spins on one core (normal\n");
      printf("priority, not pinned, in the bench's session): %d runnable threads for %d cores\n",
             shape.workers + 1, kParallelWorkers);
      printf("in a %d-worker row. vs_one_worker = the 1-worker busy row's median time / this\n",
             shape.workers);
      printf("row's; vs idle 1-worker = the 1-worker row without the busy process / this\n");
      printf("row's. CPU/real: this process's CPU time / real time (the spinner's is not\n");
      printf("counted), lowest repetition\n\n");
      printf(
          "| shape | edgeattn GFLOP/s | 1-worker busy GFLOP/s | vs_one_worker | 1-worker idle "
          "GFLOP/s | vs idle 1-worker | CPU/real | 1-worker CPU/real |\n");
      printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
      header = true;
    }
    const std::string one_name = OneWorkerBenchmarkName(name);
    const double one = reporter.SecondsPerIteration(one_name);
    const double idle = reporter.SecondsPerIteration(IdleBenchmarkName(one_name));
    const double flops = ShapeFlops(shape) * 1e-9;
    printf("| %s |", ShapeName(shape).c_str());
    PrintCell(flops / seconds, "%.1f");
    PrintCell(one > 0.0 ? flops / one : -1.0, "%.1f");
    PrintCell(one > 0.0 ? one / seconds : -1.0, "%.2f");
    PrintCell(idle > 0.0 ? flops / idle : -1.0, "%.1f");
    PrintCell(idle > 0.0 ? idle / seconds : -1.0, "%.2f");
    PrintCell(reporter.CpuShare(name), "%.2f");
    PrintCell(reporter.CpuShare(one_name), "%.2f");
    printf("\n");
  }
}

// The fixed-point rows: GOP/s, the float32 twin's GFLOP/s (same operation count), pct_peak
// against the integer probe of the row's dtype, vs_f32.
void PrintFixedPointTable(const SummaryReporter& reporter, const std::vector<Shape>& shapes,
                          const TargetPeaks& peaks) {
  bool header = false;
  for (const Shape& shape : shapes) {
    if (!IsFixedPoint(shape) || shape.kind == Kind::kMhaDecode) continue;
    const std::string name = BenchmarkName(shape, Library::kEdgeattn);
    const double seconds = reporter.SecondsPerIteration(name);
    if (seconds <= 0.0) continue;
    if (!header) {
      printf(
          "\nfixed-point rows (edgeattn only, one core; ea_mha_quant_run_s8 / "
          "ea_mha_quant_run_s16):\n");
      printf("GOP/s = 2 integer ops per multiply-accumulate, the FLOP count of the same layer's\n");
      printf(
          "f32 row; s8/s16 prefill rows are single-head MHA layers, projections included, and\n");
      printf("their f32 row is f32/mha[_causal]/dm<d>h1. pct_peak: of the integer probe of the\n");
      printf("row's dtype, s8: %s, %.1f GOP/s; s16: %s, %.1f GOP/s.\n", peaks.integer.int8.probe,
             peaks.integer.int8.gops, peaks.integer.int16.probe, peaks.integer.int16.gops);
      printf("vs_f32 = edgeattn's f32 median time of the layer / this row's\n\n");
      printf("| shape | edgeattn GOP/s | f32 row | f32 GFLOP/s | pct_peak | vs_f32 |\n");
      printf("|---|---:|---|---:|---:|---:|\n");
      header = true;
    }
    const Shape twin = F32Twin(shape);
    const double f32_seconds =
        reporter.SecondsPerIteration(BenchmarkName(twin, Library::kEdgeattn));
    const double gops = ShapeFlops(shape) * 1e-9 / seconds;
    const double peak = peaks.GflopsFor(shape, Library::kEdgeattn);
    printf("| %s |", ShapeName(shape).c_str());
    PrintCell(gops, "%.1f");
    printf(" %s |", ShapeName(twin).c_str());
    PrintCell(f32_seconds > 0.0 ? ShapeFlops(twin) * 1e-9 / f32_seconds : -1.0, "%.1f");
    PrintCell(peak > 0.0 ? 100.0 * gops / peak : -1.0, "%.1f");
    PrintCell(f32_seconds > 0.0 ? f32_seconds / seconds : -1.0, "%.2f");
    printf("\n");
  }
}

// reference's median time / name's, or -1 when either did not run.
double TimeRatio(const SummaryReporter& reporter, const std::string& reference,
                 const std::string& name) {
  const double reference_seconds = reporter.SecondsPerIteration(reference);
  const double seconds = reporter.SecondsPerIteration(name);
  return reference_seconds > 0.0 && seconds > 0.0 ? reference_seconds / seconds : -1.0;
}

// A decode row's ratio cell: "vs_eigen 1.52, vs_onednn 1.10", "vs_f32 1.83", or "-".
std::string DecodeRatios(const SummaryReporter& reporter, const Shape& shape, Library library) {
  const std::string name = BenchmarkName(shape, library);
  std::string cell;
  const auto add = [&cell](const char* counter, double ratio) {
    if (ratio <= 0.0) return;
    char text[48];
    snprintf(text, sizeof text, "%s%s %.2f", cell.empty() ? "" : ", ", counter, ratio);
    cell += text;
  };
  if (shape.kind == Kind::kDecodeStream) {
    const std::string twin = DecodeStreamTwinBenchmarkName(name);
    if (twin != name) {
      add(DecodeStreamRatioName(name), TimeRatio(reporter, twin, name));
    } else {
      for (const Library peer : {Library::kEigen, Library::kOnednn}) {
        add(peer == Library::kEigen ? "vs_eigen" : "vs_onednn",
            TimeRatio(reporter, DecodeStreamPeerBenchmarkName(name, peer), name));
      }
    }
  }
  return cell.empty() ? "-" : cell;
}

// The decode rows, dense and KV cache: tokens/s, GB/s of K/V read, the read-bandwidth probe at
// that working set, pct_bw and the KV-cache rows' ratios; then the ratios per cache length.
void PrintDecodeTable(const SummaryReporter& reporter, const std::vector<Shape>& shapes,
                      const TargetPeaks& peaks) {
  bool header = false;
  for (const Shape& shape : shapes) {
    if (shape.kind != Kind::kDecode && shape.kind != Kind::kDecodeStream) continue;
    for (const Library library : {Library::kEigen, Library::kOnednn, Library::kEdgeattn}) {
      if (shape.kind == Kind::kDecodeStream && library != Library::kEdgeattn) continue;
      const double seconds = reporter.SecondsPerIteration(BenchmarkName(shape, library));
      if (seconds <= 0.0) continue;
      if (!header) {
        printf("\ndecode rows, one core, one token per iteration: GB/s = K/V bytes read per\n");
        printf("token / time per token; pct_bw: of the read-bandwidth probe at the same working\n");
        printf("set. f32/decode: dense [L, 64] K/V per head (edgeattn: 8 ea_attention_run);\n");
        printf("decode_stream: edgeattn's KV cache, ea_kv_cache_append of the token, then\n");
        printf("ea_kv_cache_attend of its query, window = capacity = L. vs_eigen, vs_onednn:\n");
        printf("the peer's f32/decode time / this row's; vs_f32: the f32 cache's time with the\n");
        printf("same KV heads / this row's; vs_no_gqa: the f32 cache's with 8 / this row's\n\n");
        printf(
            "| shape | library | K/V bytes | tokens/s | GB/s | probe GB/s | pct_bw | ratios |\n");
        printf("|---|---|---:|---:|---:|---:|---:|---|\n");
        header = true;
      }
      const double bytes = static_cast<double>(ShapeCacheBytes(shape));
      const double gbps = bytes * 1e-9 / seconds;
      const double probe = peaks.GbpsFor(shape);
      printf("| %s | %s | %s |", ShapeName(shape).c_str(), LibraryName(library),
             WorkingSetLabel(ShapeCacheBytes(shape)).c_str());
      PrintCell(1.0 / seconds, "%.0f");
      PrintCell(gbps, "%.1f");
      PrintCell(probe, "%.1f");
      PrintCell(probe > 0.0 ? 100.0 * gbps / probe : -1.0, "%.1f");
      printf(" %s |\n", DecodeRatios(reporter, shape, library).c_str());
    }
  }
  // One line per cache length and head width: the f32 cache against the peers, the others
  // against it.
  bool ratios_header = false;
  for (const Shape& shape : shapes) {
    if (shape.kind != Kind::kDecodeStream) continue;
    const std::string f32 = BenchmarkName(shape, Library::kEdgeattn);
    if (DecodeStreamTwinBenchmarkName(f32) != f32) continue;
    double f16 = -1.0, int8 = -1.0, int4 = -1.0, gqa = -1.0;
    for (const Shape& other : shapes) {
      // The same length and head width (the long-context rows have two widths).
      if (other.kind != Kind::kDecodeStream || other.n != shape.n ||
          other.head_dim != shape.head_dim) {
        continue;
      }
      // f16, int8 and int4 of the same KV heads; the grouped-query ones have their own vs_f32
      // above.
      if (other.kv_storage != EA_KV_STORAGE_F32 && other.kv_heads != shape.kv_heads) continue;
      const double ratio = TimeRatio(reporter, f32, BenchmarkName(other, Library::kEdgeattn));
      if (other.kv_storage == EA_KV_STORAGE_F16) f16 = ratio;
      if (other.kv_storage == EA_KV_STORAGE_Q8) int8 = ratio;
      if (other.kv_storage == EA_KV_STORAGE_Q4) int4 = ratio;
      if (other.kv_storage == EA_KV_STORAGE_F32 && other.kv_heads != shape.kv_heads) gqa = ratio;
    }
    if (!ratios_header) {
      printf("\nKV-cache ratios (tokens/s over tokens/s, same run; GQA: 8 query heads on 2 KV\n");
      printf("heads against the f32 cache with 8)\n\n");
      printf(
          "| cache length, head width | f32 cache vs Eigen | f32 cache vs oneDNN | f16 / f32 "
          "| int8 / f32 | int4 / f32 | GQA / no GQA |\n");
      printf("|---|---:|---:|---:|---:|---:|---:|\n");
      ratios_header = true;
    }
    printf("| %d, %d |", shape.n, shape.head_dim);
    PrintCell(TimeRatio(reporter, DecodeStreamPeerBenchmarkName(f32, Library::kEigen), f32),
              "%.2f");
    PrintCell(TimeRatio(reporter, DecodeStreamPeerBenchmarkName(f32, Library::kOnednn), f32),
              "%.2f");
    PrintCell(f16, "%.2f");
    PrintCell(int8, "%.2f");
    PrintCell(int4, "%.2f");
    PrintCell(gqa, "%.2f");
    printf("\n");
  }
}

// The decoding MHA layers: tokens/s of a stream from position 0, its GFLOP/s (f32) or GOP/s
// (s8, s16) and the fixed-point rows' vs_f32.
void PrintMhaDecodeTable(const SummaryReporter& reporter, const std::vector<Shape>& shapes) {
  bool header = false;
  for (const Shape& shape : shapes) {
    if (shape.kind != Kind::kMhaDecode) continue;
    const std::string name = BenchmarkName(shape, Library::kEdgeattn);
    const double seconds = reporter.SecondsPerIteration(name);
    if (seconds <= 0.0) continue;
    if (!header) {
      printf("\ndecoding MHA layers (edgeattn only, one core): a stream of n tokens from\n");
      printf("position 0, one per step, projections included; f32: ea_decoder (f32\n");
      printf("cache), s8 / s16: ea_decoder_quant. GFLOP/s or GOP/s count the causal MHA\n");
      printf("of the n tokens; vs_f32 = the f32 decoder's time / this row's\n\n");
      printf("| shape | tokens/s | GFLOP/s or GOP/s | vs_f32 |\n");
      printf("|---|---:|---:|---:|\n");
      header = true;
    }
    printf("| %s |", ShapeName(shape).c_str());
    PrintCell(shape.n / seconds, "%.0f");
    PrintCell(ShapeFlops(shape) * 1e-9 / seconds, "%.1f");
    PrintCell(IsFixedPoint(shape) ? TimeRatio(reporter, F32TwinBenchmarkName(name), name) : -1.0,
              "%.2f");
    printf("\n");
  }
}

}  // namespace

void PrintSummaryTable(const SummaryReporter& reporter, const std::vector<Shape>& shapes,
                       const TargetPeaks& peaks) {
  printf("\nsingle core, FMA peaks measured at the start: %.1f GFLOP/s (%s), %.1f GFLOP/s (%s)\n",
         peaks.best.gflops, peaks.best.target, peaks.avx2.gflops, peaks.avx2.target);
  printf("pct_peak: of the peak of the target the row ran on (f32_avx2 rows: edgeattn on AVX2,\n");
  printf("its peers on their normal builds); vs_X = X's median time / edgeattn's\n\n");
  printf(
      "| shape | edgeattn GFLOP/s | eigen GFLOP/s | onednn GFLOP/s | edgeattn pct_peak "
      "| eigen pct_peak | onednn pct_peak | vs_eigen | vs_onednn |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  const Library libraries[] = {Library::kEdgeattn, Library::kEigen, Library::kOnednn};
  for (const Shape& shape : shapes) {
    // The tables below.
    if (shape.workers > 1 || shape.busy || IsFixedPoint(shape) ||
        shape.kind == Kind::kDecodeStream || shape.kind == Kind::kMhaDecode) {
      continue;
    }
    double seconds[3], gflops[3];
    bool any = false;
    for (int i = 0; i < 3; ++i) {
      const std::string name = BenchmarkName(shape, libraries[i]);
      seconds[i] = reporter.SecondsPerIteration(
          libraries[i] == Library::kEdgeattn ? name : PeerBenchmarkName(name, libraries[i]));
      gflops[i] = seconds[i] > 0.0 ? ShapeFlops(shape) * 1e-9 / seconds[i] : -1.0;
      any = any || seconds[i] > 0.0;
    }
    if (!any) continue;
    printf("| %s |", ShapeName(shape).c_str());
    for (int i = 0; i < 3; ++i) PrintCell(gflops[i], "%.1f");
    for (int i = 0; i < 3; ++i) {
      PrintCell(100.0 * gflops[i] / peaks.GflopsFor(shape, libraries[i]), "%.1f");
    }
    for (int i = 1; i < 3; ++i) {
      PrintCell(seconds[0] > 0.0 && seconds[i] > 0.0 ? seconds[i] / seconds[0] : -1.0, "%.2f");
    }
    printf("\n");
  }
  PrintWorkersTable(reporter, shapes, peaks);
  PrintBusyTable(reporter, shapes);
  PrintFixedPointTable(reporter, shapes, peaks);
  PrintDecodeTable(reporter, shapes, peaks);
  PrintMhaDecodeTable(reporter, shapes);
  const double share = reporter.MinCpuShare();
  printf("\nlowest CPU/real time share per worker of any benchmark but the busy rows: %.2f%s\n",
         share,
         share < 0.9 ? " (WARNING: other processes shared the cores; figures are low, rerun on "
                       "an idle machine)"
                     : "");
  fflush(stdout);
}

}  // namespace edgeattn_bench
