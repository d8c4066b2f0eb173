// Shape list and FLOP counting rules for the benchmarks (see shapes.h).
#include "shapes.h"

namespace edgeattn_bench {

std::vector<Shape> BenchmarkShapes() {
  std::vector<Shape> shapes;
  for (const int32_t n : {128, 512, 2048, 4096}) {
    shapes.push_back(Shape{Kind::kPrefill, n, false});
    shapes.push_back(Shape{Kind::kPrefill, n, true});
  }
  for (const int32_t n : {128, 1024}) shapes.push_back(Shape{Kind::kMha, n, false});
  for (const int32_t n : {512, 4096}) shapes.push_back(Shape{Kind::kDecode, n, false});
  return shapes;
}

std::string ShapeName(const Shape& shape) {
  const std::string n = std::to_string(shape.n);
  switch (shape.kind) {
    case Kind::kPrefill:
      return "prefill/d" + std::to_string(kHeadDim) + "/n" + n +
             (shape.causal ? "/causal" : "/full");
    case Kind::kMha:
      return "mha/E" + std::to_string(kMhaDModel) + "h" + std::to_string(kMhaHeads) + "/n" + n;
    case Kind::kDecode:
      return "decode/" + std::to_string(kDecodeHeads) + "x" + std::to_string(kHeadDim) + "/kv" + n;
  }
  return "?";
}

// Counting rules (multiply-add = 2 FLOPs; softmax exp/max/sum are not counted):
// - prefill, no mask: Q K^T is 2 n^2 d and P V is 2 n^2 d, so 4 n^2 d.
// - prefill, causal: only the n (n + 1) / 2 visible query-key pairs are useful work, 4 d FLOPs
//   each, so 2 n (n + 1) d. Eigen computes the full square and then masks it; it is still
//   charged only the useful FLOPs, the same as edgeattn, so both ratios stay time ratios.
// - MHA: Q, K, V and output projections 4 x 2 n E^2, plus attention 4 n^2 E over all heads.
// - decode: per head 4 L d for one query against L keys; times the number of heads.
double ShapeFlops(const Shape& shape) {
  const double n = shape.n;
  const double d = kHeadDim;
  switch (shape.kind) {
    case Kind::kPrefill:
      return shape.causal ? 2.0 * n * (n + 1.0) * d : 4.0 * n * n * d;
    case Kind::kMha: {
      const double e = kMhaDModel;
      return 2.0 * n * e * e * 4.0 + 4.0 * n * n * e;
    }
    case Kind::kDecode:
      return kDecodeHeads * 4.0 * n * d;
  }
  return 0.0;
}

}  // namespace edgeattn_bench
