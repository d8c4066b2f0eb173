// Prefill, MHA and decode workloads for the three libraries (see workloads.h).
#include "workloads.h"

#include <algorithm>
#include <cmath>

#include "bench_inputs.h"
#include "edgeattn/decoder.h"
#include "eigen_attention.h"
#include "onednn_attention.h"

namespace edgeattn_bench {
namespace {

// Plans an Attention(Q, K, V) of the given shape into its own aligned arena, sized with the
// same config (so with the hook's workers).
struct AttentionPlan {
  AttentionPlan(int32_t n_q, int32_t n_kv, int32_t d, ea_mask mask, const ea_parallel_for& parallel)
      : config{EA_DTYPE_F32, n_q, n_kv, d, d, mask, 0.0f, parallel, nullptr, nullptr} {
    size_t bytes = 0;
    status = ea_attention_arena_size(&config, &bytes);
    buffer = std::make_unique<AlignedBuffer>(bytes);
    ea_arena arena;
    if (status == EA_OK) status = ea_arena_init(&arena, buffer->data(), buffer->size());
    if (status == EA_OK) status = ea_attention_init(&plan, &config, &arena);
  }

  ea_attention_config config;
  ea_attention_plan plan = {};
  std::unique_ptr<AlignedBuffer> buffer;
  ea_status status;
};

float InverseSqrt(int32_t d) { return 1.0f / std::sqrt(static_cast<float>(d)); }

// One attention over contiguous row-major [n_q, d], [n_kv, d], [n_kv, d], [n_q, d] matrices.
OnednnAttentionShape DenseAttention(int32_t n_q, int32_t n_kv, int32_t d, bool causal) {
  const StridedMatrices queries{int64_t{n_q} * d, d};
  const StridedMatrices keys{int64_t{n_kv} * d, d};
  return OnednnAttentionShape{1,      n_q,     n_kv, d,    InverseSqrt(d),
                              causal, queries, keys, keys, queries};
}

// Attention(Q, K, V), n x n, head dimension d, optionally causal.
class PrefillWorkload : public Workload {
 public:
  PrefillWorkload(int32_t n, int32_t d, bool causal, const ea_parallel_for& parallel)
      : Workload(static_cast<size_t>(n) * d),
        n_(n),
        d_(d),
        causal_(causal),
        q_(RandomFloats(static_cast<size_t>(n) * d, 1)),
        k_(RandomFloats(static_cast<size_t>(n) * d, 2)),
        v_(RandomFloats(static_cast<size_t>(n) * d, 3)),
        plan_(n, n, d, causal ? EA_MASK_CAUSAL : EA_MASK_NONE, parallel),
        onednn_(DenseAttention(n, n, d, causal), q_.data(), k_.data(), v_.data(),
                onednn_out_.data()) {
    plan_status_ = plan_.status;
  }

  ea_status RunEdgeattn() override {
    return ea_attention_run(&plan_.plan, q_.data(), k_.data(), v_.data(), n_, edgeattn_out_.data(),
                            nullptr);
  }

  void RunEigen() override {
    EigenAttention(ConstRowMap(q_.data(), n_, d_), ConstRowMap(k_.data(), n_, d_),
                   ConstRowMap(v_.data(), n_, d_), InverseSqrt(d_), causal_, &scores_,
                   RowMap(eigen_out_.data(), n_, d_));
  }

  void RunOnednn() override { onednn_.Run(); }

  std::string OnednnImplementations() const override { return onednn_.Implementations(); }

 private:
  int32_t n_;
  int32_t d_;
  bool causal_;
  std::vector<float> q_, k_, v_;
  AttentionPlan plan_;
  RowMatrix scores_;
  OnednnAttention onednn_;
};

// MHA over d_model = heads x head_dim (kMhaDModel with kMhaHeads heads, or the single-head
// layers of the fixed-point prefill rows' F32Twin), no mask or causal, no positions, with
// biases. A decoding workload (kMhaDecode, causal) runs edgeattn's side as ea_decoder, one
// token per step from position 0, whose stream gives the rows of the peers' causal MHA.
class MhaWorkload : public Workload {
 public:
  MhaWorkload(int32_t n, int32_t d_model, int32_t heads, bool causal, bool decode,
              const ea_parallel_for& parallel)
      : Workload(static_cast<size_t>(n) * d_model),
        n_(n),
        d_model_(d_model),
        decode_(decode),
        x_(RandomFloats(static_cast<size_t>(n) * d_model, 11)),
        // Weights scaled by 1/sqrt(E) keep projected values of order 1, like trained layers.
        in_proj_(
            RandomFloats(3 * static_cast<size_t>(d_model) * d_model, 12, InverseSqrt(d_model))),
        in_bias_(RandomFloats(3 * static_cast<size_t>(d_model), 13, 0.1f)),
        out_proj_(RandomFloats(static_cast<size_t>(d_model) * d_model, 14, InverseSqrt(d_model))),
        out_bias_(RandomFloats(static_cast<size_t>(d_model), 15, 0.1f)),
        weights_{in_proj_.data(), in_bias_.data(), out_proj_.data(), out_bias_.data()},
        eigen_(d_model, heads, causal, weights_),
        onednn_(d_model, heads, causal, n, weights_, x_.data(), onednn_out_.data()) {
    if (decode) {
      PlanDecoder(heads);
      return;
    }
    ea_mha_config config = {};
    config.dtype = EA_DTYPE_F32;
    config.max_tokens = n;
    config.d_model = d_model;
    config.n_heads = heads;
    config.mask = causal ? EA_MASK_CAUSAL : EA_MASK_NONE;
    config.position = EA_POSITION_NONE;
    config.parallel = parallel;
    const ea_mha_weights weights = EdgeattnWeights();
    size_t bytes = 0;
    plan_status_ = ea_mha_arena_size(&config, &bytes);
    buffer_ = std::make_unique<AlignedBuffer>(bytes);
    ea_arena arena;
    if (plan_status_ == EA_OK) {
      plan_status_ = ea_arena_init(&arena, buffer_->data(), buffer_->size());
    }
    if (plan_status_ == EA_OK) plan_status_ = ea_mha_init(&plan_, &config, &weights, &arena);
  }

  ea_status RunEdgeattn() override {
    if (!decode_) return ea_mha_run(&plan_, x_.data(), n_, n_, edgeattn_out_.data(), nullptr);
    ea_status status = ea_decoder_reset(&decoder_);
    const size_t row = static_cast<size_t>(d_model_);
    for (int32_t t = 0; t < n_ && status == EA_OK; ++t) {
      status = ea_decoder_step(&decoder_, x_.data() + t * row, 1, edgeattn_out_.data() + t * row);
    }
    return status;
  }

  void RunEigen() override { eigen_.Run(x_.data(), n_, eigen_out_.data()); }

  void RunOnednn() override { onednn_.Run(); }

  std::string OnednnImplementations() const override { return onednn_.Implementations(); }

 private:
  // The workload's weights, as edgeattn's plans and decoders take them.
  ea_mha_weights EdgeattnWeights() const {
    ea_mha_weights weights{};  // by name: the struct grows at its end
    weights.in_proj_weight = weights_.in_proj_weight;
    weights.in_proj_bias = weights_.in_proj_bias;
    weights.out_proj_weight = weights_.out_proj_weight;
    weights.out_proj_bias = weights_.out_proj_bias;
    return weights;
  }

  // An f32 cache of n positions, one token per step, no positions or window.
  void PlanDecoder(int32_t heads) {
    ea_decoder_config config = {};
    config.d_model = d_model_;
    config.n_heads = heads;
    config.n_kv_heads = heads;
    config.max_positions = n_;
    config.max_step_tokens = 1;
    config.storage = EA_KV_STORAGE_F32;
    config.position = EA_POSITION_NONE;
    const ea_mha_weights weights = EdgeattnWeights();
    size_t bytes = 0;
    plan_status_ = ea_decoder_arena_size(&config, &bytes);
    if (plan_status_ != EA_OK) return;
    buffer_ = std::make_unique<AlignedBuffer>(bytes);
    ea_arena arena;
    plan_status_ = ea_arena_init(&arena, buffer_->data(), buffer_->size());
    if (plan_status_ == EA_OK) {
      plan_status_ = ea_decoder_init(&decoder_, &config, &weights, &arena);
    }
  }

  int32_t n_;
  int32_t d_model_;
  bool decode_;
  std::vector<float> x_, in_proj_, in_bias_, out_proj_, out_bias_;
  MhaWeights weights_;
  ea_mha_plan plan_ = {};
  ea_decoder decoder_ = {};
  std::unique_ptr<AlignedBuffer> buffer_;
  EigenMha eigen_;
  OnednnMha onednn_;
};

// One new token per head against a KV cache of n_kv keys: kDecodeHeads independent
// Attention(1 x d, n_kv x d, n_kv x d). Each head's K and V are contiguous [n_kv, d] blocks.
// Every library runs the heads one by one.
class DecodeWorkload : public Workload {
 public:
  DecodeWorkload(int32_t n_kv, const ea_parallel_for& parallel)
      : Workload(static_cast<size_t>(kDecodeHeads) * kDecodeHeadDim),
        n_kv_(n_kv),
        q_(RandomFloats(static_cast<size_t>(kDecodeHeads) * kDecodeHeadDim, 21)),
        k_(RandomFloats(static_cast<size_t>(kDecodeHeads) * n_kv * kDecodeHeadDim, 22)),
        v_(RandomFloats(static_cast<size_t>(kDecodeHeads) * n_kv * kDecodeHeadDim, 23)),
        plan_(1, n_kv, kDecodeHeadDim, EA_MASK_NONE, parallel) {
    plan_status_ = plan_.status;
    onednn_heads_.reserve(kDecodeHeads);
    for (int32_t h = 0; h < kDecodeHeads; ++h) {
      onednn_heads_.emplace_back(DenseAttention(1, n_kv, kDecodeHeadDim, false),
                                 q_.data() + HeadOffset(h, 1), k_.data() + HeadOffset(h, n_kv),
                                 v_.data() + HeadOffset(h, n_kv),
                                 onednn_out_.data() + HeadOffset(h, 1));
    }
  }

  ea_status RunEdgeattn() override {
    ea_status status = EA_OK;
    for (int32_t h = 0; h < kDecodeHeads && status == EA_OK; ++h) {
      status = ea_attention_run(&plan_.plan, q_.data() + HeadOffset(h, 1),
                                k_.data() + HeadOffset(h, n_kv_), v_.data() + HeadOffset(h, n_kv_),
                                n_kv_, edgeattn_out_.data() + HeadOffset(h, 1), nullptr);
    }
    return status;
  }

  void RunEigen() override {
    for (int32_t h = 0; h < kDecodeHeads; ++h) {
      EigenAttention(ConstRowMap(q_.data() + HeadOffset(h, 1), 1, kDecodeHeadDim),
                     ConstRowMap(k_.data() + HeadOffset(h, n_kv_), n_kv_, kDecodeHeadDim),
                     ConstRowMap(v_.data() + HeadOffset(h, n_kv_), n_kv_, kDecodeHeadDim),
                     InverseSqrt(kDecodeHeadDim), false, &scores_,
                     RowMap(eigen_out_.data() + HeadOffset(h, 1), 1, kDecodeHeadDim));
    }
  }

  void RunOnednn() override {
    for (OnednnAttention& head : onednn_heads_) head.Run();
  }

  std::string OnednnImplementations() const override {
    return onednn_heads_.front().Implementations();
  }

 private:
  static size_t HeadOffset(int32_t head, int32_t rows) {
    return static_cast<size_t>(head) * static_cast<size_t>(rows) * kDecodeHeadDim;
  }

  int32_t n_kv_;
  std::vector<float> q_, k_, v_;
  AttentionPlan plan_;
  RowMatrix scores_;
  std::vector<OnednnAttention> onednn_heads_;
};

}  // namespace

Workload::Workload(size_t output_floats)
    : edgeattn_out_(output_floats, 0.0f),
      eigen_out_(output_floats, 0.0f),
      onednn_out_(output_floats, 0.0f) {}

double Workload::RelativeGap(Library peer) const {
  const std::vector<float>& peer_out = peer == Library::kOnednn ? onednn_out_ : eigen_out_;
  double gap = 0.0, scale = 0.0;
  for (size_t i = 0; i < peer_out.size(); ++i) {
    gap = std::max(gap, static_cast<double>(std::fabs(edgeattn_out_[i] - peer_out[i])));
    scale = std::max(scale, static_cast<double>(std::fabs(peer_out[i])));
  }
  return scale > 0.0 ? gap / scale : gap;
}

std::unique_ptr<Workload> MakeWorkload(const Shape& shape, const ea_parallel_for& parallel) {
  switch (shape.kind) {
    case Kind::kPrefill:
      return std::make_unique<PrefillWorkload>(shape.n, shape.head_dim, shape.causal, parallel);
    case Kind::kMha:
    case Kind::kMhaDecode:
      return std::make_unique<MhaWorkload>(shape.n, DModel(shape), shape.heads, shape.causal,
                                           shape.kind == Kind::kMhaDecode, parallel);
    case Kind::kDecode:
      return std::make_unique<DecodeWorkload>(shape.n, parallel);
    case Kind::kDecodeStream:
      break;  // edgeattn only: decode_stream.h
  }
  return nullptr;
}

}  // namespace edgeattn_bench
