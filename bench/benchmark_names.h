// The three libraries and the benchmark names built from them: "<shape>/<library>", e.g.
// "f32/prefill/d64/n2048/onednn". The reporters read a row's shape and library back from its
// name, to find the peers' rows of the same shape (or a fixed-point row's f32 twin) and
// compute the time ratios.
#ifndef EDGEATTN_BENCH_BENCHMARK_NAMES_H_
#define EDGEATTN_BENCH_BENCHMARK_NAMES_H_

#include <string>

#include "shapes.h"

namespace edgeattn_bench {

// In registration order for every shape: the peers first, so that their times are known when
// edgeattn's row is reported.
enum class Library { kEigen, kOnednn, kEdgeattn };

// "eigen", "onednn", "edgeattn": the last component of a benchmark name.
const char* LibraryName(Library library);

// ShapeName(shape) + "/" + LibraryName(library).
std::string BenchmarkName(const Shape& shape, Library library);

// "f32/prefill/d64/n2048" for "f32/prefill/d64/n2048/eigen": everything before the library.
std::string ShapeOfBenchmark(const std::string& benchmark_name);

// "eigen" for "f32/prefill/d64/n2048/eigen": the last component.
std::string LibraryOfBenchmark(const std::string& benchmark_name);

// The peer's row the ratios of `benchmark_name` are measured against: the same shape on the
// peer's normal build ("f32_avx2/mha/dm256h4/n1024/edgeattn" -> "f32/mha/dm256h4/n1024/eigen").
std::string PeerBenchmarkName(const std::string& benchmark_name, Library peer);

// edgeattn's workers in the row: N for "f32_<N>workers/...", 1 for every other name.
int WorkersOfBenchmark(const std::string& benchmark_name);

// The 1-worker edgeattn row of the same shape and conditions, vs_one_worker's reference
// ("f32_2workers/prefill/d64/n2048/edgeattn" -> "f32/prefill/d64/n2048/edgeattn",
// "f32_busy_2workers/mha/dm256h4/n128/edgeattn" -> "f32_busy/mha/dm256h4/n128/edgeattn").
std::string OneWorkerBenchmarkName(const std::string& benchmark_name);

// Whether the row ran beside a busy process ("f32_busy/...", "f32_busy_2workers/...").
bool IsBusyBenchmark(const std::string& benchmark_name);

// The same row without the busy process, the 1-worker busy row's vs_idle reference
// ("f32_busy/mha/dm256h4/n128/edgeattn" -> "f32/mha/dm256h4/n128/edgeattn").
std::string IdleBenchmarkName(const std::string& benchmark_name);

// Whether the row is a fixed-point one ("s8/..." or "s16/...").
bool IsFixedPointBenchmark(const std::string& benchmark_name);

// The f32 edgeattn row vs_f32 is measured against, BenchmarkName(F32Twin(shape), kEdgeattn):
// "s8/mha/dm256h4/n1024/edgeattn" -> "f32/mha/dm256h4/n1024/edgeattn", and for the single-head
// MHA layers named as prefill shapes "s16/prefill_causal/d64/n2048/edgeattn" ->
// "f32/mha_causal/dm64h1/n2048/edgeattn". main checks it against F32Twin for every shape.
std::string F32TwinBenchmarkName(const std::string& benchmark_name);

// Whether the row is a KV-cache one ("<storage>/decode_stream/...").
bool IsDecodeStreamBenchmark(const std::string& benchmark_name);

// A KV-cache row's references, BenchmarkName(DecodeStreamTwin(shape), kEdgeattn) and the peer's
// row of DecodeStreamPeer(shape), as main checks: the f32 cache with the same KV heads for
// another storage ("s8kv/decode_stream/h8d64/kv4096/edgeattn" ->
// "f32/decode_stream/h8d64/kv4096/edgeattn", "s8kv/decode_stream/h8kvh2d64/kv32768/edgeattn" ->
// "f32/decode_stream/h8kvh2d64/kv32768/edgeattn"), with every KV head for a grouped-query f32
// one ("f32/decode_stream/h8kvh2d64/kv4096/edgeattn" -> "f32/decode_stream/h8d64/kv4096/
// edgeattn"), and the dense decode
// ("f32/decode_stream/h8d64/kv512/edgeattn" -> "f32/decode/h8d64/kv512/eigen").
std::string DecodeStreamTwinBenchmarkName(const std::string& benchmark_name);
std::string DecodeStreamPeerBenchmarkName(const std::string& benchmark_name, Library peer);

// The ratio a KV-cache row other than its twin gets against the twin: "vs_f32" for another
// storage, "vs_no_gqa" for fewer KV heads (no row's twin differs in both).
const char* DecodeStreamRatioName(const std::string& benchmark_name);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_BENCHMARK_NAMES_H_
