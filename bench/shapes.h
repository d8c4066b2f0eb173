// The benchmarked shapes, their names and their FLOP counts. Every library is charged the same
// FLOPs for a shape, so a ratio of GFLOP/s between two libraries is exactly the inverse ratio of
// their times. A shape also says how edgeattn runs it: SIMD target, and workers (threads of the
// bench's pthread pool, through ea_parallel_for); the peers always run their normal build on
// one thread.
#ifndef EDGEATTN_BENCH_SHAPES_H_
#define EDGEATTN_BENCH_SHAPES_H_

#include <stdint.h>

#include <string>
#include <vector>

namespace edgeattn_bench {

enum class Kind {
  kPrefill,  // Attention(Q, K, V), n queries x n keys, head dimension Shape::head_dim
  kMha,      // multi-head self-attention with projections, kMhaDModel / kMhaHeads
  kDecode    // one query per head against a KV cache of n keys, kDecodeHeads heads of 64
};

// The SIMD target edgeattn's kernels run on (the peers always run their normal build).
enum class SimdTarget {
  kBest,  // what dynamic dispatch picks on this CPU (AVX3_DL on the development machine)
  kAvx2   // capped at AVX2 through ea_set_max_simd_target
};

inline constexpr int32_t kMhaDModel = 256;
inline constexpr int32_t kMhaHeads = 4;
inline constexpr int32_t kDecodeHeads = 8;
inline constexpr int32_t kDecodeHeadDim = 64;
// Workers of the multi-worker rows (f32_2workers/...): the development VM has 2 cores.
inline constexpr int32_t kParallelWorkers = 2;

struct Shape {
  Kind kind;
  int32_t n;         // tokens (prefill, MHA) or KV-cache length (decode)
  int32_t head_dim;  // d of one head (MHA: kMhaDModel / kMhaHeads)
  bool causal;       // prefill only
  SimdTarget simd;
  int32_t workers = 1;  // edgeattn only: 1 (no hook) or kParallelWorkers (the pool's hook)
};

enum class Suite {
  kFull,  // make bench
  kQuick  // make bench-quick: the headline shapes
};

// The shapes a suite measures, in report order; an AVX2 shape, then a 2-worker shape, follow
// their best-target twin.
std::vector<Shape> BenchmarkShapes(Suite suite);

// "f32/prefill/d64/n2048", "f32/prefill_causal/d64/n2048", "f32/mha/dm256h4/n1024",
// "f32/decode/h8d64/kv512"; "f32_avx2/..." when edgeattn is capped at AVX2, "f32_2workers/..."
// when it runs on 2 workers.
std::string ShapeName(const Shape& shape);

// The Highway target name ea_set_max_simd_target takes ("AVX2"), or nullptr for kBest.
const char* SimdCapName(SimdTarget simd);

// Useful floating-point operations of one run (see shapes.cc for the counting rules).
double ShapeFlops(const Shape& shape);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_SHAPES_H_
