// Fixed-point MHA workloads and their quantization (see quant_workloads.h).
#include "quant_workloads.h"

#include <cmath>
#include <limits>
#include <set>

#include "bench_inputs.h"
#include "edgeattn/decoder.h"

namespace edgeattn_bench {
namespace {

// The int8 design, real ranges first. x: integers uniform in +-100 LSB around its zero point
// (real +-2, standard deviation 1.15, as a normalised embedding). Weights: integers uniform in
// [-127, 127] with per-channel scales kWeightRange / (127 sqrt(E)) x [0.8, 1.2): real weights
// within +-2 / sqrt(E), standard deviation about 1.15 / sqrt(E). So q, k, v have a standard
// deviation of about 1.35 and maxima near 7: a scale of 0.06 covers +-7.7. The scores
// q_h k_h^T over d_k = 64 have a standard deviation of about 8 x 1.35^2 = 15 and maxima near
// 100 (measured at n = 2048): a scale of 0.8 covers +-102, and the softmax logits (beta =
// 1/8) spread by about 1.8, enough for int8's 1/256 probability step to tell keys apart among
// 2048 (a scale of 0.1 would clip the scores at one sigma and flatten every row). The context
// (probability-weighted values) and the output stay within about +-3.2: scales 0.03 (+-3.8).
// Biases: real uniform in +-0.25, stored as TFLite does, round(b / (s_in s_w[c])).
constexpr float kInputScale = 0.02f;
constexpr float kInputRangeLsb = 100.0f;
constexpr float kWeightRange = 2.0f;
constexpr float kProjectionScale = 0.06f;
constexpr float kScoresScale = 0.8f;
constexpr float kContextScale = 0.03f;
constexpr float kOutputScale = 0.03f;
constexpr float kBiasRange = 0.25f;
// int8 zero points: small and non-zero, so every offset path of TFLite's kernels runs.
constexpr int32_t kInputZero = 3, kQZero = -2, kKZero = 1, kVZero = 4, kScoresZero = -5,
                  kContextZero = 2, kOutputZero = -3;
// int16 ("16x8"): the same real ranges at a 256 times finer step, zero points 0.
constexpr float kInt16StepRatio = 256.0f;

// int8 activations with int32 biases, or int16 activations with int64 biases.
template <typename T>
struct Dtype;
template <>
struct Dtype<int8_t> {
  using Bias = int32_t;
  static constexpr ea_dtype kDtype = EA_DTYPE_INT8;
  static constexpr float kStepRatio = 1.0f;
  static int32_t Zero(int32_t int8_zero_point) { return int8_zero_point; }
  static ea_status Run(const ea_mha_quant_plan* plan, const int8_t* x, int32_t n, int8_t* y) {
    return ea_mha_quant_run_s8(plan, x, n, n, y, nullptr);
  }
  static ea_status Step(ea_decoder_quant* decoder, const int8_t* x, int8_t* y) {
    return ea_decoder_quant_step_s8(decoder, x, 1, y);
  }
};
template <>
struct Dtype<int16_t> {
  using Bias = int64_t;
  static constexpr ea_dtype kDtype = EA_DTYPE_INT16;
  static constexpr float kStepRatio = kInt16StepRatio;
  static int32_t Zero(int32_t) { return 0; }
  static ea_status Run(const ea_mha_quant_plan* plan, const int16_t* x, int32_t n, int16_t* y) {
    return ea_mha_quant_run_s16(plan, x, n, n, y, nullptr);
  }
  static ea_status Step(ea_decoder_quant* decoder, const int16_t* x, int16_t* y) {
    return ea_decoder_quant_step_s16(decoder, x, 1, y);
  }
};

template <typename T>
ea_quant Quant(float int8_scale, int32_t int8_zero_point) {
  return ea_quant{int8_scale / Dtype<T>::kStepRatio, Dtype<T>::Zero(int8_zero_point)};
}

// Per-channel weight scales kWeightRange / (127 sqrt(E)) x [0.8, 1.2).
std::vector<float> WeightScales(size_t channels, int32_t d_model, uint32_t seed) {
  std::vector<float> scales = RandomFloats(channels, seed, 0.2f);
  const float base = kWeightRange / (127.0f * std::sqrt(static_cast<float>(d_model)));
  for (float& scale : scales) scale = base * (1.0f + scale);
  return scales;
}

std::vector<int8_t> RandomWeights(size_t count, uint32_t seed) {
  std::vector<int8_t> weights;
  weights.reserve(count);
  for (const float unit : RandomFloats(count, seed)) {
    weights.push_back(static_cast<int8_t>(std::lround(127.0f * unit)));
  }
  return weights;
}

template <typename T>
class QuantMhaWorkload final : public QuantWorkload {
 public:
  using Bias = typename Dtype<T>::Bias;

  explicit QuantMhaWorkload(const Shape& shape)
      : n_(shape.n),
        d_model_(DModel(shape)),
        decode_(shape.kind == Kind::kMhaDecode),
        in_scales_(WeightScales(3 * static_cast<size_t>(d_model_), d_model_, 31)),
        out_scales_(WeightScales(static_cast<size_t>(d_model_), d_model_, 32)),
        in_proj_(RandomWeights(3 * static_cast<size_t>(d_model_) * d_model_, 33)),
        out_proj_(RandomWeights(static_cast<size_t>(d_model_) * d_model_, 34)),
        y_(static_cast<size_t>(n_) * d_model_) {
    scales_.input = Quant<T>(kInputScale, kInputZero);
    scales_.position = scales_.input;  // no position table: ignored, but valid
    scales_.positioned = scales_.input;
    scales_.q = Quant<T>(kProjectionScale, kQZero);
    scales_.k = Quant<T>(kProjectionScale, kKZero);
    scales_.v = Quant<T>(kProjectionScale, kVZero);
    scales_.scores = Quant<T>(kScoresScale, kScoresZero);
    scales_.context = Quant<T>(kContextScale, kContextZero);
    scales_.output = Quant<T>(kOutputScale, kOutputZero);
    scales_.in_proj_weight_scales = in_scales_.data();
    scales_.out_proj_weight_scales = out_scales_.data();

    const float input_lsb = kInputRangeLsb * Dtype<T>::kStepRatio;
    for (const float unit : RandomFloats(static_cast<size_t>(n_) * d_model_, 35)) {
      x_.push_back(static_cast<T>(std::lround(input_lsb * unit) + scales_.input.zero_point));
    }
    in_bias_ =
        Biases(RandomFloats(in_scales_.size(), 36, kBiasRange), scales_.input.scale, in_scales_);
    out_bias_ = Biases(RandomFloats(out_scales_.size(), 37, kBiasRange), scales_.context.scale,
                       out_scales_);
    Dequantize(shape);

    ea_mha_config config = {};
    config.dtype = Dtype<T>::kDtype;
    config.max_tokens = n_;
    config.d_model = d_model_;
    config.n_heads = shape.heads;
    config.mask = shape.causal ? EA_MASK_CAUSAL : EA_MASK_NONE;
    config.position = EA_POSITION_NONE;
    config.quant_scales = &scales_;
    ea_mha_quant_weights weights{};  // by name: the structs grow at their ends
    weights.in_proj_weight = in_proj_.data();
    weights.in_proj_bias = in_bias_.data();
    weights.out_proj_weight = out_proj_.data();
    weights.out_proj_bias = out_bias_.data();
    ea_decoder_quant_config decoder_config{};  // the same layer, stepped one token at a time
    decoder_config.dtype = config.dtype;
    decoder_config.d_model = config.d_model;
    decoder_config.n_heads = config.n_heads;
    decoder_config.max_positions = config.max_tokens;
    decoder_config.max_step_tokens = 1;
    decoder_config.quant_scales = config.quant_scales;
    size_t bytes = 0;
    plan_status_ = decode_ ? ea_decoder_quant_arena_size(&decoder_config, &bytes)
                           : ea_mha_quant_arena_size(&config, &bytes);
    if (plan_status_ != EA_OK) return;
    buffer_ = std::make_unique<AlignedBuffer>(bytes);
    ea_arena arena;
    plan_status_ = ea_arena_init(&arena, buffer_->data(), buffer_->size());
    if (plan_status_ != EA_OK) return;
    plan_status_ = decode_ ? ea_decoder_quant_init(&decoder_, &decoder_config, &weights, &arena)
                           : ea_mha_quant_init(&plan_, &config, &weights, &arena);
  }

  ea_status Run() override {
    if (plan_status_ != EA_OK) return plan_status_;
    if (!decode_) return Dtype<T>::Run(&plan_, x_.data(), n_, y_.data());
    ea_status status = ea_decoder_quant_reset(&decoder_);
    const size_t row = static_cast<size_t>(d_model_);
    for (int32_t t = 0; t < n_ && status == EA_OK; ++t) {
      status = Dtype<T>::Step(&decoder_, x_.data() + t * row, y_.data() + t * row);
    }
    return status;
  }

  std::vector<float> DequantizedOutput() const override {
    std::vector<float> y;
    y.reserve(y_.size());
    for (const T value : y_) {
      y.push_back(scales_.output.scale * static_cast<float>(value - scales_.output.zero_point));
    }
    return y;
  }

  QuantOutputSpread OutputSpread() const override {
    QuantOutputSpread spread;
    size_t saturated = 0;
    std::set<T> distinct;
    for (const T value : y_) {
      if (value == std::numeric_limits<T>::min() || value == std::numeric_limits<T>::max()) {
        ++saturated;
      }
      distinct.insert(value);
    }
    spread.saturated_share = y_.empty() ? 0.0 : static_cast<double>(saturated) / y_.size();
    spread.distinct_values = distinct.size();
    return spread;
  }

 private:
  // TFLite's bias quantization: scale s_in x s_w[c], zero point 0.
  static std::vector<Bias> Biases(const std::vector<float>& real, float input_scale,
                                  const std::vector<float>& weight_scales) {
    std::vector<Bias> biases;
    for (size_t c = 0; c < real.size(); ++c) {
      biases.push_back(static_cast<Bias>(std::llround(
          static_cast<double>(real[c]) / (static_cast<double>(input_scale) * weight_scales[c]))));
    }
    return biases;
  }

  void Dequantize(const Shape& shape) {
    DequantizedMha& d = dequantized_;
    d.n = n_;
    d.d_model = d_model_;
    d.heads = shape.heads;
    d.causal = shape.causal;
    for (const T value : x_) {
      d.x.push_back(scales_.input.scale * static_cast<float>(value - scales_.input.zero_point));
    }
    const size_t e = static_cast<size_t>(d_model_);
    const auto weights = [e](const std::vector<int8_t>& w, const std::vector<float>& scales) {
      std::vector<float> real(w.size());
      for (size_t i = 0; i < w.size(); ++i) real[i] = scales[i / e] * static_cast<float>(w[i]);
      return real;
    };
    const auto biases = [](const std::vector<Bias>& b, float input_scale,
                           const std::vector<float>& scales) {
      std::vector<float> real(b.size());
      for (size_t c = 0; c < b.size(); ++c) {
        real[c] = static_cast<float>(static_cast<double>(b[c]) * input_scale * scales[c]);
      }
      return real;
    };
    d.in_proj = weights(in_proj_, in_scales_);
    d.out_proj = weights(out_proj_, out_scales_);
    d.in_bias = biases(in_bias_, scales_.input.scale, in_scales_);
    d.out_bias = biases(out_bias_, scales_.context.scale, out_scales_);
  }

  int32_t n_;
  int32_t d_model_;
  bool decode_;  // kMhaDecode: the stream through ea_decoder_quant, one token per step
  ea_mha_quant_scales scales_ = {};
  std::vector<float> in_scales_, out_scales_;
  std::vector<int8_t> in_proj_, out_proj_;
  std::vector<Bias> in_bias_, out_bias_;
  std::vector<T> x_, y_;
  ea_mha_quant_plan plan_ = {};
  ea_decoder_quant decoder_ = {};
  std::unique_ptr<AlignedBuffer> buffer_;
};

}  // namespace

std::unique_ptr<QuantWorkload> MakeQuantWorkload(const Shape& shape) {
  if (shape.precision == Precision::kS16) return std::make_unique<QuantMhaWorkload<int16_t>>(shape);
  return std::make_unique<QuantMhaWorkload<int8_t>>(shape);
}

}  // namespace edgeattn_bench
