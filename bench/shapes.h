// The benchmarked shapes and their FLOP counts. Both libraries are charged the same FLOPs for a
// shape, so the edgeattn/Eigen ratio of GFLOP/s is exactly the inverse ratio of their times.
#ifndef EDGEATTN_BENCH_SHAPES_H_
#define EDGEATTN_BENCH_SHAPES_H_

#include <stdint.h>

#include <string>
#include <vector>

namespace edgeattn_bench {

enum class Kind {
  kPrefill,  // Attention(Q, K, V), n queries x n keys, head dimension kHeadDim
  kMha,      // multi-head self-attention with projections, kMhaDModel / kMhaHeads
  kDecode    // one query per head against a KV cache of n keys, kDecodeHeads heads
};

inline constexpr int32_t kHeadDim = 64;
inline constexpr int32_t kMhaDModel = 256;
inline constexpr int32_t kMhaHeads = 4;
inline constexpr int32_t kDecodeHeads = 8;

struct Shape {
  Kind kind;
  int32_t n;    // tokens (prefill, MHA) or KV-cache length (decode)
  bool causal;  // prefill only
};

// Every shape `make bench` measures, in report order.
std::vector<Shape> BenchmarkShapes();

// "prefill/n512/causal", "mha/E256h4/n128", "decode/kv4096/8x64": benchmark name prefix.
std::string ShapeName(const Shape& shape);

// Useful floating-point operations of one run (see shapes.cc for the counting rules).
double ShapeFlops(const Shape& shape);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_SHAPES_H_
