// KV-cache outputs against Eigen over the same window (see decode_stream_check.h).
#include "decode_stream_check.h"

#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <cmath>

#include "cross_check.h"
#include "decode_stream.h"
#include "eigen_attention.h"

namespace edgeattn_bench {
namespace {

// max |stream's latest output - Eigen's| / max |Eigen's|, Eigen attending the latest token's
// query to the n tokens the cache holds.
double GapToEigen(const DecodeStream& stream, const Shape& shape) {
  const int32_t n = shape.n;
  const int32_t d = shape.head_dim;
  const int32_t group = kDecodeHeads / shape.kv_heads;
  const int64_t last = stream.tokens() - 1;
  RowMatrix k(n, d), v(n, d), scores;
  std::vector<float> reference(static_cast<size_t>(kDecodeHeads) * d, 0.0f);
  for (int32_t g = 0; g < shape.kv_heads; ++g) {
    for (int32_t j = 0; j < n; ++j) {
      const int64_t token = last - n + 1 + j;
      memcpy(k.row(j).data(), stream.Key(token) + static_cast<size_t>(g) * d, d * sizeof(float));
      memcpy(v.row(j).data(), stream.Value(token) + static_cast<size_t>(g) * d, d * sizeof(float));
    }
    for (int32_t h = g * group; h < (g + 1) * group; ++h) {
      const size_t offset = static_cast<size_t>(h) * d;
      EigenAttention(ConstRowMap(stream.Query(last) + offset, 1, d), k, v,
                     1.0f / std::sqrt(static_cast<float>(d)), false, &scores,
                     RowMap(reference.data() + offset, 1, d));
    }
  }
  double gap = 0.0, scale = 0.0;
  for (size_t i = 0; i < reference.size(); ++i) {
    gap = std::max(gap, static_cast<double>(std::fabs(stream.output()[i] - reference[i])));
    scale = std::max(scale, static_cast<double>(std::fabs(reference[i])));
  }
  return scale > 0.0 ? gap / scale : gap;
}

}  // namespace

DecodeStreamCheckResult CheckDecodeStreams(const std::vector<Shape>& shapes) {
  DecodeStreamCheckResult result;
  for (const Shape& shape : shapes) {
    if (shape.kind != Kind::kDecodeStream) continue;
    ++result.shapes;
    const std::string name = ShapeName(shape);
    DecodeStream stream(shape);
    ea_status status = stream.plan_status();
    if (status == EA_OK) status = stream.Step();
    if (status != EA_OK) {
      printf("decode-stream check %s: ea_kv_cache_* failed: %s (%d)\n", name.c_str(),
             ea_status_str(status), static_cast<int>(status));
      result.passed = false;
      continue;
    }
    const double gap = GapToEigen(stream, shape);
    double limit = kMaxRelativeGap;
    double* worst = &result.worst_gap_f32;
    if (shape.kv_storage == EA_KV_STORAGE_F16) {
      limit = kMaxStreamGapF16;
      worst = &result.worst_gap_f16;
    } else if (shape.kv_storage == EA_KV_STORAGE_Q8) {
      limit = kMaxStreamGapInt8;
      worst = &result.worst_gap_int8;
    } else if (shape.kv_storage == EA_KV_STORAGE_Q4) {
      limit = kMaxStreamGapInt4;
      worst = &result.worst_gap_int4;
    }
    *worst = std::max(*worst, gap);
    if (!(gap <= limit)) {
      printf("decode-stream check %s: max |edgeattn - Eigen| / max |Eigen| = %.3g (limit %.0e)\n",
             name.c_str(), gap, limit);
      result.passed = false;
    }
  }
  printf(
      "decode-stream check of %d KV-cache shapes against Eigen on the same window: worst max "
      "|edgeattn - Eigen| / max |Eigen| = %.2g (f32), %.2g (f16), %.2g (int8), %.2g (int4) "
      "(limits %.0e, %.0e, %.0e, %.0e): %s\n",
      result.shapes, result.worst_gap_f32, result.worst_gap_f16, result.worst_gap_int8,
      result.worst_gap_int4, kMaxRelativeGap, kMaxStreamGapF16, kMaxStreamGapInt8,
      kMaxStreamGapInt4, result.passed ? "passed" : "FAILED");
  return result;
}

}  // namespace edgeattn_bench
