// The KV-cache decode stream (see decode_stream.h).
#include "decode_stream.h"

namespace edgeattn_bench {

ea_kv_cache_config DecodeStreamConfig(const Shape& shape) {
  ea_kv_cache_config config = {};
  config.capacity = shape.n;
  config.n_heads = kDecodeHeads;
  config.n_kv_heads = shape.kv_heads;
  config.d_head = shape.head_dim;
  config.max_queries = 1;
  config.window = shape.n;
  config.storage = shape.kv_storage;
  config.scale = 0.0f;  // 1 / sqrt(d_head), as the dense decode rows
  return config;
}

DecodeStream::DecodeStream(const Shape& shape)
    : kv_row_(static_cast<size_t>(shape.kv_heads) * static_cast<size_t>(shape.head_dim)),
      q_row_(static_cast<size_t>(kDecodeHeads) * static_cast<size_t>(shape.head_dim)),
      k_(RandomFloats(kStreamPoolTokens * kv_row_, 31)),
      v_(RandomFloats(kStreamPoolTokens * kv_row_, 32)),
      q_(RandomFloats(kStreamPoolTokens * q_row_, 33)),
      out_(q_row_, 0.0f) {
  const ea_kv_cache_config config = DecodeStreamConfig(shape);
  size_t bytes = 0;
  plan_status_ = ea_kv_cache_arena_size(&config, &bytes);
  if (plan_status_ != EA_OK) return;
  buffer_ = std::make_unique<AlignedBuffer>(bytes);
  ea_arena arena;
  plan_status_ = ea_arena_init(&arena, buffer_->data(), buffer_->size());
  if (plan_status_ == EA_OK) plan_status_ = ea_kv_cache_init(&cache_, &config, &arena);
  // Fill the window: from here on every append replaces the oldest position.
  for (int32_t t = 0; t < shape.n && plan_status_ == EA_OK; ++t, ++tokens_) {
    plan_status_ = ea_kv_cache_append(&cache_, Key(tokens_), Value(tokens_), 1);
  }
}

ea_status DecodeStream::Step() {
  const ea_status status = ea_kv_cache_append(&cache_, Key(tokens_), Value(tokens_), 1);
  if (status != EA_OK) return status;
  ++tokens_;
  return ea_kv_cache_attend(&cache_, Query(tokens_ - 1), 1, out_.data());
}

}  // namespace edgeattn_bench
