// Benchmark names: "<precision>/<kind>/<sizes>/<library>" (see benchmark_names.h).
#include "benchmark_names.h"

#include <stdlib.h>

#include <vector>

namespace edgeattn_bench {
namespace {

// "f32/prefill/d64/n2048/eigen" -> {"f32", "prefill", "d64", "n2048", "eigen"}.
std::vector<std::string> SplitName(const std::string& benchmark_name) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t slash; (slash = benchmark_name.find('/', start)) != std::string::npos;
       start = slash + 1) {
    parts.push_back(benchmark_name.substr(start, slash - start));
  }
  parts.push_back(benchmark_name.substr(start));
  return parts;
}

// A KV-cache row's sizes without its KV heads: "h8kvh2d64" -> "h8d64".
std::string WithoutKvHeads(const std::string& sizes) {
  const size_t kvh = sizes.find("kvh");
  if (kvh == std::string::npos) return sizes;
  const size_t d = sizes.find('d', kvh + 3);
  return d == std::string::npos ? sizes : sizes.substr(0, kvh) + sizes.substr(d);
}

}  // namespace

const char* LibraryName(Library library) {
  switch (library) {
    case Library::kEigen:
      return "eigen";
    case Library::kOnednn:
      return "onednn";
    case Library::kEdgeattn:
      return "edgeattn";
  }
  return "?";
}

std::string BenchmarkName(const Shape& shape, Library library) {
  return ShapeName(shape) + "/" + LibraryName(library);
}

std::string ShapeOfBenchmark(const std::string& benchmark_name) {
  const size_t slash = benchmark_name.rfind('/');
  return slash == std::string::npos ? std::string() : benchmark_name.substr(0, slash);
}

std::string LibraryOfBenchmark(const std::string& benchmark_name) {
  const size_t slash = benchmark_name.rfind('/');
  return slash == std::string::npos ? benchmark_name : benchmark_name.substr(slash + 1);
}

std::string PeerBenchmarkName(const std::string& benchmark_name, Library peer) {
  const std::string shape = ShapeOfBenchmark(benchmark_name);
  // The first component is the precision and SIMD variant ("f32", "f32_avx2"); peers run "f32".
  const size_t first_slash = shape.find('/');
  const std::string sizes = first_slash == std::string::npos ? shape : shape.substr(first_slash);
  return "f32" + sizes + "/" + LibraryName(peer);
}

int WorkersOfBenchmark(const std::string& benchmark_name) {
  constexpr const char kSuffix[] = "workers";
  const std::string precision = benchmark_name.substr(0, benchmark_name.find('/'));
  const size_t suffix = precision.rfind(kSuffix);
  const size_t underscore = precision.rfind('_', suffix);
  if (suffix == std::string::npos || suffix + sizeof kSuffix - 1 != precision.size() ||
      underscore == std::string::npos) {
    return 1;
  }
  const int workers = atoi(precision.c_str() + underscore + 1);
  return workers > 1 ? workers : 1;
}

std::string OneWorkerBenchmarkName(const std::string& benchmark_name) {
  const size_t slash = benchmark_name.find('/');
  const std::string precision = benchmark_name.substr(0, slash);
  const int workers = WorkersOfBenchmark(benchmark_name);
  const std::string suffix = "_" + std::to_string(workers) + "workers";
  const std::string one =
      workers > 1 ? precision.substr(0, precision.size() - suffix.size()) : precision;
  return one + ShapeOfBenchmark(benchmark_name).substr(precision.size()) + "/" +
         LibraryName(Library::kEdgeattn);
}

bool IsBusyBenchmark(const std::string& benchmark_name) {
  const std::string precision = benchmark_name.substr(0, benchmark_name.find('/'));
  return precision.find("_busy") != std::string::npos;
}

std::string IdleBenchmarkName(const std::string& benchmark_name) {
  std::string name = benchmark_name;
  const size_t busy = name.find("_busy");
  if (busy != std::string::npos && busy < name.find('/')) name.erase(busy, sizeof "_busy" - 1);
  return name;
}

bool IsFixedPointBenchmark(const std::string& benchmark_name) {
  const std::string precision = benchmark_name.substr(0, benchmark_name.find('/'));
  return precision == "s8" || precision == "s16";
}

std::string F32TwinBenchmarkName(const std::string& benchmark_name) {
  // "<precision>/<kind>/<sizes>/n<n>/<library>"
  std::vector<std::string> parts = SplitName(benchmark_name);
  if (parts.size() != 5) return std::string();
  const std::string& kind = parts[1];
  if (kind.rfind("prefill", 0) == 0 && parts[2].rfind('d', 0) == 0) {
    parts[1] = "mha" + kind.substr(sizeof "prefill" - 1);  // "prefill_causal" -> "mha_causal"
    parts[2] = "dm" + parts[2].substr(1) + "h1";           // "d64" -> "dm64h1"
  }
  return "f32/" + parts[1] + "/" + parts[2] + "/" + parts[3] + "/" +
         LibraryName(Library::kEdgeattn);
}

bool IsDecodeStreamBenchmark(const std::string& benchmark_name) {
  const std::vector<std::string> parts = SplitName(benchmark_name);
  return parts.size() == 5 && parts[1] == "decode_stream";
}

std::string DecodeStreamTwinBenchmarkName(const std::string& benchmark_name) {
  // "<storage>/decode_stream/h<heads>[kvh<kv heads>]d<d>/kv<n>/<library>"
  const std::vector<std::string> parts = SplitName(benchmark_name);
  if (parts.size() != 5) return std::string();
  const std::string heads = parts[0] == "f32" ? WithoutKvHeads(parts[2]) : parts[2];
  return "f32/" + parts[1] + "/" + heads + "/" + parts[3] + "/" + LibraryName(Library::kEdgeattn);
}

std::string DecodeStreamPeerBenchmarkName(const std::string& benchmark_name, Library peer) {
  const std::vector<std::string> parts = SplitName(benchmark_name);
  if (parts.size() != 5) return std::string();
  return "f32/decode/" + WithoutKvHeads(parts[2]) + "/" + parts[3] + "/" + LibraryName(peer);
}

const char* DecodeStreamRatioName(const std::string& benchmark_name) {
  return benchmark_name.rfind("f32/", 0) == 0 ? "vs_no_gqa" : "vs_f32";
}

}  // namespace edgeattn_bench
