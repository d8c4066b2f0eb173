// One KV-cache row made runnable: edgeattn's cache (edgeattn/kv_cache.h) decoding a stream of
// tokens, one per Step: ea_kv_cache_append of the token's K and V, then ea_kv_cache_attend of
// its query. The cache is a ring with window = capacity = n (max_queries 1), filled with n
// tokens before the first Step, so every Step overwrites the oldest position and attends to
// exactly n: the working set stays the same however long the benchmark runs. The tokens come
// from a fixed pool of kStreamPoolTokens deterministic pseudo-random ones, cycled (values do
// not change the speed, and a pool of n tokens would add its own bytes to the working set).
#ifndef EDGEATTN_BENCH_DECODE_STREAM_H_
#define EDGEATTN_BENCH_DECODE_STREAM_H_

#include <stdint.h>

#include <memory>
#include <vector>

#include "bench_inputs.h"
#include "edgeattn/kv_cache.h"
#include "shapes.h"

namespace edgeattn_bench {

inline constexpr int32_t kStreamPoolTokens = 64;

class DecodeStream {
 public:
  // A kDecodeStream shape; the cache is made and filled here (plan_status says whether it was).
  explicit DecodeStream(const Shape& shape);
  DecodeStream(const DecodeStream&) = delete;
  DecodeStream& operator=(const DecodeStream&) = delete;

  // EA_OK once ea_kv_cache_arena_size, ea_kv_cache_init and the n filling appends succeeded.
  ea_status plan_status() const { return plan_status_; }
  // The next token of the stream: append its K/V, attend its query into output().
  ea_status Step();

  // Tokens appended so far; token t is pool token t % kStreamPoolTokens.
  int64_t tokens() const { return tokens_; }
  // Token t's key and value rows [n_kv_heads * d_head] and query row [n_heads * d_head].
  const float* Key(int64_t token) const { return k_.data() + Slot(token) * kv_row_; }
  const float* Value(int64_t token) const { return v_.data() + Slot(token) * kv_row_; }
  const float* Query(int64_t token) const { return q_.data() + Slot(token) * q_row_; }
  // The latest Step's output [n_heads * d_head].
  const std::vector<float>& output() const { return out_; }

 private:
  static size_t Slot(int64_t token) { return static_cast<size_t>(token % kStreamPoolTokens); }

  size_t kv_row_;
  size_t q_row_;
  std::vector<float> k_, v_, q_, out_;
  std::unique_ptr<AlignedBuffer> buffer_;
  ea_kv_cache cache_ = {};
  int64_t tokens_ = 0;
  ea_status plan_status_ = EA_ERR_BAD_ARGUMENT;
};

// The cache configuration of a kDecodeStream shape.
ea_kv_cache_config DecodeStreamConfig(const Shape& shape);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_DECODE_STREAM_H_
