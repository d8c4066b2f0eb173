// Shape lists, names and FLOP counting rules for the benchmarks (see shapes.h).
#include "shapes.h"

#include "edgeattn/arena_sizes.hpp"

namespace edgeattn_bench {
namespace {

constexpr int32_t kMhaHeadDim = kMhaDModel / kMhaHeads;

Shape Prefill(int32_t n, int32_t d, bool causal, SimdTarget simd = SimdTarget::kBest) {
  return Shape{Kind::kPrefill, n, d, causal, simd};
}

Shape Mha(int32_t n, SimdTarget simd = SimdTarget::kBest) {
  Shape shape{Kind::kMha, n, kMhaHeadDim, false, simd};
  shape.heads = kMhaHeads;
  return shape;
}

Shape Decode(int32_t n_kv) {
  return Shape{Kind::kDecode, n_kv, kDecodeHeadDim, false, SimdTarget::kBest};
}

Shape DecodeStream(int32_t n_kv, ea_kv_storage storage, int32_t kv_heads = kDecodeHeads,
                   int32_t head_dim = kDecodeHeadDim) {
  Shape shape = Decode(n_kv);
  shape.kind = Kind::kDecodeStream;
  shape.kv_storage = storage;
  shape.kv_heads = kv_heads;
  shape.head_dim = head_dim;
  return shape;
}

Shape MhaDecode(int32_t n) {
  Shape shape{Kind::kMhaDecode, n, kDecodeHeadDim, true, SimdTarget::kBest};
  shape.heads = kDecodeHeads;
  return shape;
}

// The KV-cache heads of the grouped-query rows: 8 query heads on 2 KV heads (groups of 4).
constexpr int32_t kGqaKvHeads = 2;

// The dense decode of length n_kv (every library), then edgeattn's KV cache at the same length:
// float32, float16, int8, int4, and float32 with grouped-query attention. The f32 cache row follows
// the dense rows, and the others follow it, so every ratio's reference row ran before.
void AddDecodeRows(std::vector<Shape>* shapes, int32_t n_kv) {
  shapes->push_back(Decode(n_kv));
  shapes->push_back(DecodeStream(n_kv, EA_KV_STORAGE_F32));
  shapes->push_back(DecodeStream(n_kv, EA_KV_STORAGE_F16));
  shapes->push_back(DecodeStream(n_kv, EA_KV_STORAGE_Q8));
  shapes->push_back(DecodeStream(n_kv, EA_KV_STORAGE_Q4));
  shapes->push_back(DecodeStream(n_kv, EA_KV_STORAGE_F32, kGqaKvHeads));
}

// The long-context rows, a cache of DRAM size: AddDecodeRows at n_kv, then float16, int8 and
// int4 with grouped-query attention, whose vs_f32 is against the float32 grouped-query row.
// Heads of another width than kDecodeHeadDim have the cache rows only: the peers' dense
// decode is written for kDecodeHeadDim.
void AddLongContextRows(std::vector<Shape>* shapes, int32_t n_kv, int32_t head_dim) {
  if (head_dim == kDecodeHeadDim) {
    AddDecodeRows(shapes, n_kv);
  } else {
    for (const ea_kv_storage storage :
         {EA_KV_STORAGE_F32, EA_KV_STORAGE_F16, EA_KV_STORAGE_Q8, EA_KV_STORAGE_Q4}) {
      shapes->push_back(DecodeStream(n_kv, storage, kDecodeHeads, head_dim));
    }
    shapes->push_back(DecodeStream(n_kv, EA_KV_STORAGE_F32, kGqaKvHeads, head_dim));
  }
  shapes->push_back(DecodeStream(n_kv, EA_KV_STORAGE_F16, kGqaKvHeads, head_dim));
  shapes->push_back(DecodeStream(n_kv, EA_KV_STORAGE_Q8, kGqaKvHeads, head_dim));
  shapes->push_back(DecodeStream(n_kv, EA_KV_STORAGE_Q4, kGqaKvHeads, head_dim));
}

// The shape, then the same shape with edgeattn capped at AVX2.
void AddWithAvx2Twin(std::vector<Shape>* shapes, Shape shape) {
  shapes->push_back(shape);
  shape.simd = SimdTarget::kAvx2;
  shapes->push_back(shape);
}

// The same shape with edgeattn on kParallelWorkers workers (best target), then on 1 and on
// kParallelWorkers workers beside a busy process: the 2-worker busy row's vs_one_worker is
// against the 1-worker busy row, which is registered before it.
void AddWorkersRows(std::vector<Shape>* shapes, Shape shape) {
  shape.workers = kParallelWorkers;
  shapes->push_back(shape);
  shape.busy = true;
  shape.workers = 1;
  shapes->push_back(shape);
  shape.workers = kParallelWorkers;
  shapes->push_back(shape);
}

// The full suite's shapes with a 2-worker row (and the busy pair): the long prefills where a
// second core has most to share (d64 n2048 with and without the mask, d64 n4096), and both MHA
// sizes.
bool HasWorkersTwin(const Shape& shape) {
  if (shape.kind == Kind::kMha) return true;
  if (shape.kind != Kind::kPrefill || shape.head_dim != 64) return false;
  return shape.n == 2048 || (shape.n == 4096 && !shape.causal);
}

// The full suite's shapes with s8 and s16 rows: both MHA sizes, and prefill d64 at n512 and
// n2048, causal too at n2048.
bool HasFixedPointRows(const Shape& shape) {
  if (shape.kind == Kind::kMha) return true;
  if (shape.kind != Kind::kPrefill || shape.head_dim != 64) return false;
  return shape.n == 2048 || (shape.n == 512 && !shape.causal);
}

// The s8 and s16 rows of an f32 shape (best target, 1 worker), each preceded by their F32Twin
// where that is another shape (prefill: the f32 MHA of the same single-head layer), or, for a
// decoding layer, by the f32 shape itself.
void AddFixedPointRows(std::vector<Shape>* shapes, const Shape& f32_shape) {
  Shape fixed = f32_shape;
  fixed.simd = SimdTarget::kBest;
  fixed.workers = 1;
  fixed.precision = Precision::kS8;
  const Shape twin = F32Twin(fixed);
  if (ShapeName(twin) != ShapeName(f32_shape) || f32_shape.kind == Kind::kMhaDecode) {
    shapes->push_back(twin);
  }
  shapes->push_back(fixed);
  fixed.precision = Precision::kS16;
  shapes->push_back(fixed);
}

// A KV-cache row's first name component: its storage ("s8kv", not "s8": the queries and the
// arithmetic stay float32, unlike the fixed-point MHA rows).
const char* KvStorageName(ea_kv_storage storage) {
  switch (storage) {
    case EA_KV_STORAGE_F32:
      return "f32";
    case EA_KV_STORAGE_F16:
      return "f16";
    case EA_KV_STORAGE_Q8:
      return "s8kv";
    case EA_KV_STORAGE_Q4:
      return "s4kv";
    default:
      return "?";
  }
}

const char* PrecisionName(Precision precision) {
  switch (precision) {
    case Precision::kF32:
      return "f32";
    case Precision::kS8:
      return "s8";
    case Precision::kS16:
      return "s16";
  }
  return "?";
}

// Attention(Q, K, V) over all heads of width `width` (d, or d_model for MHA): 4 n^2 width,
// causal 2 n (n + 1) width.
double AttentionFlops(double n, double width, bool causal) {
  return causal ? 2.0 * n * (n + 1.0) * width : 4.0 * n * n * width;
}

}  // namespace

std::vector<Shape> BenchmarkShapes(Suite suite) {
  std::vector<Shape> shapes;
  if (suite == Suite::kQuick) {
    shapes.push_back(Prefill(128, 64, false));
    shapes.push_back(Prefill(512, 64, false));
    AddWithAvx2Twin(&shapes, Prefill(2048, 64, false));
    AddWorkersRows(&shapes, Prefill(2048, 64, false));
    AddFixedPointRows(&shapes, Prefill(2048, 64, false));
    shapes.push_back(Prefill(2048, 64, true));
    shapes.push_back(Mha(128));
    AddWorkersRows(&shapes, Mha(128));
    AddFixedPointRows(&shapes, Mha(128));
    AddWithAvx2Twin(&shapes, Mha(1024));
    AddWorkersRows(&shapes, Mha(1024));
    AddFixedPointRows(&shapes, Mha(1024));
    for (const int32_t n : {512, 4096}) AddDecodeRows(&shapes, n);
    AddFixedPointRows(&shapes, MhaDecode(512));
    return shapes;
  }
  for (const int32_t d : {64, 128}) {
    for (const int32_t n : {128, 512, 2048, 4096}) {
      for (const bool causal : {false, true}) {
        const Shape shape = Prefill(n, d, causal);
        AddWithAvx2Twin(&shapes, shape);
        if (HasWorkersTwin(shape)) AddWorkersRows(&shapes, shape);
        if (HasFixedPointRows(shape)) AddFixedPointRows(&shapes, shape);
      }
    }
  }
  for (const int32_t n : {128, 1024}) {
    AddWithAvx2Twin(&shapes, Mha(n));
    AddWorkersRows(&shapes, Mha(n));
    AddFixedPointRows(&shapes, Mha(n));
  }
  for (const int32_t n : {512, 4096}) AddDecodeRows(&shapes, n);
  for (const int32_t n : {512, 4096}) AddFixedPointRows(&shapes, MhaDecode(n));
  for (const int32_t head_dim : {kDecodeHeadDim, kLongContextWideHeadDim}) {
    AddLongContextRows(&shapes, kLongContextKeys, head_dim);
  }
  return shapes;
}

std::string ShapeName(const Shape& shape) {
  const std::string precision =
      std::string(shape.kind == Kind::kDecodeStream ? KvStorageName(shape.kv_storage)
                                                    : PrecisionName(shape.precision)) +
      (shape.simd == SimdTarget::kAvx2 ? "_avx2" : "") + (shape.busy ? "_busy" : "") +
      (shape.workers > 1 ? "_" + std::to_string(shape.workers) + "workers" : "") + "/";
  const std::string n = std::to_string(shape.n);
  const std::string d = std::to_string(shape.head_dim);
  switch (shape.kind) {
    case Kind::kPrefill:
      return precision + (shape.causal ? "prefill_causal" : "prefill") + "/d" + d + "/n" + n;
    case Kind::kMha:
      return precision + (shape.causal ? "mha_causal" : "mha") + "/dm" +
             std::to_string(DModel(shape)) + "h" + std::to_string(shape.heads) + "/n" + n;
    case Kind::kMhaDecode:
      return precision + "mha_decode/dm" + std::to_string(DModel(shape)) + "h" +
             std::to_string(shape.heads) + "/n" + n;
    case Kind::kDecode:
      return precision + "decode/h" + std::to_string(kDecodeHeads) + "d" + d + "/kv" + n;
    case Kind::kDecodeStream:
      return precision + "decode_stream/h" + std::to_string(kDecodeHeads) +
             (shape.kv_heads != kDecodeHeads ? "kvh" + std::to_string(shape.kv_heads) : "") + "d" +
             d + "/kv" + n;
  }
  return "?";
}

const char* SimdCapName(SimdTarget simd) { return simd == SimdTarget::kAvx2 ? "AVX2" : nullptr; }

// Counting rules (multiply-add = 2 FLOPs; softmax exp/max/sum are not counted):
// - prefill, no mask: Q K^T is 2 n^2 d and P V is 2 n^2 d, so 4 n^2 d.
// - prefill, causal: only the n (n + 1) / 2 visible query-key pairs are useful work, 4 d FLOPs
//   each, so 2 n (n + 1) d. Eigen and oneDNN compute the full square and then mask it; they are
//   still charged only the useful FLOPs, the same as edgeattn, so the ratios stay time ratios.
// - MHA: Q, K, V and output projections 4 x 2 n E^2, plus attention 4 n^2 E over all heads
//   (causal: 2 n (n + 1) E).
// - decode: per head 4 L d for one query against L keys; times the number of (query) heads.
//   The same for a KV-cache row, whatever its storage or KV heads (grouped-query attention
//   reads fewer bytes, not fewer FLOPs); the append is not counted.
// - fixed point (s8, s16): integer operations, 2 per multiply-accumulate, counting exactly the
//   f32 MHA rule above for the same layer (a fixed-point prefill row is MHA with E = d), so
//   gops / the F32Twin's gflops is the twin's time / this row's time. Offsets, requantisation
//   and the integer softmax are not counted, as the float softmax is not.
// - a decoding MHA layer (f32, s8, s16): the causal MHA rule, the work of the stream's n steps.
double ShapeFlops(const Shape& shape) {
  const double n = shape.n;
  const double d = shape.head_dim;
  if (IsFixedPoint(shape) || shape.kind == Kind::kMha || shape.kind == Kind::kMhaDecode) {
    const double e = DModel(shape);
    return 2.0 * n * e * e * 4.0 + AttentionFlops(n, e, shape.causal);
  }
  switch (shape.kind) {
    case Kind::kPrefill:
      return AttentionFlops(n, d, shape.causal);
    case Kind::kMha:
    case Kind::kMhaDecode:
      break;  // above
    case Kind::kDecode:
    case Kind::kDecodeStream:
      return kDecodeHeads * 4.0 * n * d;
  }
  return 0.0;
}

// Per position and KV head: d K and d V elements (int4: half a byte each), and for int8 and
// int4 a K and a V scale per scale group (KvCodeBytes and KvScaleBytes are per record of
// kKeyBlock positions). The records' padding to 64 bytes is not counted (none at d = 64).
uint64_t ShapeCacheBytes(const Shape& shape) {
  const uint64_t n = static_cast<uint64_t>(shape.n);
  const uint64_t d = static_cast<uint64_t>(shape.head_dim);
  switch (shape.kind) {
    case Kind::kDecode:
      return n * kDecodeHeads * 2 * d * sizeof(float);
    case Kind::kDecodeStream:
      return n * static_cast<uint64_t>(shape.kv_heads) *
             (2 * edgeattn::KvCodeBytes(d, shape.kv_storage) +
              edgeattn::KvScaleBytes(shape.head_dim, shape.kv_storage)) /
             edgeattn::kKeyBlock;
    default:
      return 0;
  }
}

bool IsFixedPoint(const Shape& shape) { return shape.precision != Precision::kF32; }

int32_t DModel(const Shape& shape) { return shape.heads * shape.head_dim; }

Shape F32Twin(const Shape& shape) {
  Shape twin = shape;
  twin.precision = Precision::kF32;
  if (IsFixedPoint(shape) && shape.kind == Kind::kPrefill) {
    twin.kind = Kind::kMha;
    twin.heads = 1;
  }
  return twin;
}

Shape DecodeStreamTwin(const Shape& shape) {
  Shape twin = shape;
  if (shape.kv_storage == EA_KV_STORAGE_F32) twin.kv_heads = kDecodeHeads;  // vs_no_gqa
  twin.kv_storage = EA_KV_STORAGE_F32;  // vs_f32: the same KV heads
  return twin;
}

Shape DecodeStreamPeer(const Shape& shape) { return Decode(shape.n); }

}  // namespace edgeattn_bench
