// The benchmarked shapes, their names and their FLOP counts. Every library is charged the same
// FLOPs for a shape, so a ratio of GFLOP/s between two libraries is exactly the inverse ratio of
// their times. A shape also says how edgeattn runs it: precision (float32, or the fixed-point
// int8 / int16 MHA, edgeattn only), SIMD target, and workers (threads of the bench's pthread
// pool, through ea_parallel_for); the peers always run their normal float32 build on one
// thread.
#ifndef EDGEATTN_BENCH_SHAPES_H_
#define EDGEATTN_BENCH_SHAPES_H_

#include <stdint.h>

#include <string>
#include <vector>

#include "edgeattn/kv_cache.h"

namespace edgeattn_bench {

enum class Kind {
  kPrefill,       // f32: Attention(Q, K, V), n queries x n keys, head dimension Shape::head_dim;
                  // s8 / s16: single-head MHA with d_model = head_dim (see Precision)
  kMha,           // multi-head self-attention with projections, d_model = heads x head_dim
  kDecode,        // one query per head against n keys, kDecodeHeads heads of 64, K/V given as
                  // dense [n, 64] matrices (every library)
  kDecodeStream,  // edgeattn's KV cache (edgeattn/kv_cache.h), one token per iteration: append
                  // its K/V, attend its query; window = capacity = n, so n positions are read
  kMhaDecode      // a whole causal MHA layer (kDecodeHeads heads of head_dim, projections
                  // included) decoding a stream of n tokens, one per step from position 0:
                  // ea_decoder (f32 cache), ea_decoder_quant (s8, s16); one iteration is
                  // the whole stream (reset, n steps), so it reads caches of 0 to n - 1 positions
};

// The SIMD target edgeattn's kernels run on (the peers always run their normal build).
enum class SimdTarget {
  kBest,  // what dynamic dispatch picks on this CPU (AVX3_DL on the development machine)
  kAvx2   // capped at AVX2 through ea_set_max_simd_target
};

// The arithmetic of edgeattn's row. The fixed-point dtypes exist for MHA only
// (ea_mha_quant_run_s8 / _s16), so an s8 or s16 "prefill" row is the MHA layer of one head with
// d_model = head_dim, no position table: the three projections, Attention(Q, K, V) and the
// output projection, where an f32 prefill row is Attention(Q, K, V) alone. Its f32 reference
// row (F32Twin) is therefore the f32 MHA of that layer, "f32/mha/dm64h1/...".
enum class Precision {
  kF32,  // float32 (every library)
  kS8,   // EA_DTYPE_INT8, ea_mha_quant_run_s8 (edgeattn only)
  kS16   // EA_DTYPE_INT16 (TFLite 16x8), ea_mha_quant_run_s16 (edgeattn only)
};

inline constexpr int32_t kMhaDModel = 256;
inline constexpr int32_t kMhaHeads = 4;
inline constexpr int32_t kDecodeHeads = 8;
inline constexpr int32_t kDecodeHeadDim = 64;
// The full suite's long-context length: its f32 cache (8 heads x 64, 128 MiB; grouped-query on
// 2 KV heads 32 MiB) is larger than the last-level cache of the machines the bench runs on.
inline constexpr int32_t kLongContextKeys = 32768;
// The long-context rows are at kDecodeHeadDim and at this head width too.
inline constexpr int32_t kLongContextWideHeadDim = 128;
// Workers of the multi-worker rows (f32_2workers/...): the development VM has 2 cores.
inline constexpr int32_t kParallelWorkers = 2;

struct Shape {
  Kind kind;
  int32_t n;         // tokens (prefill, MHA) or KV-cache length (decode)
  int32_t head_dim;  // d of one head (MHA: d_model / heads)
  bool causal;       // prefill and MHA
  SimdTarget simd;
  int32_t workers = 1;  // edgeattn only: 1 (no hook) or kParallelWorkers (the pool's hook)
  bool busy = false;    // edgeattn only: beside a process that keeps a core busy (busy_process.h)
  int32_t heads = 1;    // MHA: d_model = heads x head_dim (fixed-point prefill: 1)
  Precision precision = Precision::kF32;
  // kDecodeStream only: how the cache stores K/V, and its key/value heads (kDecodeHeads, or
  // fewer for grouped-query attention). The queries, outputs and arithmetic stay float32.
  ea_kv_storage kv_storage = EA_KV_STORAGE_F32;
  int32_t kv_heads = kDecodeHeads;
};

enum class Suite {
  kFull,  // make bench
  kQuick  // make bench-quick: the headline shapes
};

// The shapes a suite measures, in report order. An AVX2 shape, then a 2-worker shape, follow
// their best-target twin; a 2-worker shape is followed by its busy pair, 1 worker then 2
// workers beside a busy process; then come the shape's fixed-point rows, s8 and s16, each
// after its F32Twin (which is added right before them when it is not the shape itself), so
// that the f32 time vs_f32 needs is known when they are reported.
std::vector<Shape> BenchmarkShapes(Suite suite);

// "f32/prefill/d64/n2048", "f32/prefill_causal/d64/n2048", "f32/mha/dm256h4/n1024",
// "f32/mha_causal/dm64h1/n2048", "f32/decode/h8d64/kv512"; "f32_avx2/..." when edgeattn is
// capped at AVX2, "f32_2workers/..." when it runs on 2 workers, "f32_busy/..." and
// "f32_busy_2workers/..." on 1 and 2 workers beside a busy process; "s8/..." and "s16/..." for
// the fixed-point rows ("s8/prefill/d64/n2048": the MHA layer dm64h1, see Precision). KV-cache
// rows name their storage first: "f32/decode_stream/h8d64/kv512", "f16/...", "s8kv/...",
// "s4kv/...", and
// grouped-query attention its KV heads: "f32/decode_stream/h8kvh2d64/kv512". A decoding MHA
// layer: "f32/mha_decode/dm512h8/n4096", "s8/mha_decode/dm512h8/n4096".
std::string ShapeName(const Shape& shape);

// The Highway target name ea_set_max_simd_target takes ("AVX2"), or nullptr for kBest.
const char* SimdCapName(SimdTarget simd);

// Bytes of K and V one decode step reads (kDecode: float32 [n, 64] per head; kDecodeStream: the
// cache's n positions at its storage, int8's scales included); 0 for the other kinds. The
// read-bandwidth probe runs at these working sets.
uint64_t ShapeCacheBytes(const Shape& shape);

// Useful floating-point operations of one run, or integer operations of a fixed-point one,
// counted the same way (see shapes.cc for the counting rules).
double ShapeFlops(const Shape& shape);

bool IsFixedPoint(const Shape& shape);

// d_model of an MHA shape or of a fixed-point prefill shape: heads x head_dim.
int32_t DModel(const Shape& shape);

// The f32 edgeattn row a fixed-point row's vs_f32 is measured against: the same MHA layer in
// float32 (an s8 / s16 prefill shape: the single-head MHA "f32/mha[_causal]/dm<d>h1/n<n>").
Shape F32Twin(const Shape& shape);

// The rows a KV-cache row's ratios are measured against, both registered before it:
// DecodeStreamTwin is the float32 cache of the same length, with the same KV heads for an f16
// or int8 cache (vs_f32) and with kDecodeHeads for a float32 grouped-query one (vs_no_gqa; the
// shape itself for the float32 cache with kDecodeHeads),
// DecodeStreamPeer the dense decode of the same length, whose Eigen and oneDNN rows give that
// f32 row its vs_eigen and vs_onednn.
Shape DecodeStreamTwin(const Shape& shape);
Shape DecodeStreamPeer(const Shape& shape);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_SHAPES_H_
