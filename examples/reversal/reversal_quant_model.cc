#include "reversal_quant_model.h"

#include "edgeattn/arena_sizes.hpp"
#include "reversal_quant_weights.h"

namespace reversal {
namespace {

ea_quant Quant(const float* scale, const int32_t* zero_point) {
  return ea_quant{scale[0], zero_point[0]};
}

constexpr ea_decoder_quant_config LayerConfig() {
  ea_decoder_quant_config c{};
  c.dtype = EA_DTYPE_INT8;
  c.d_model = kDModel;
  c.n_heads = kHeads;
  c.max_positions = kPositions;  // the longest stream
  c.max_step_tokens = kPromptTokens;
  c.position = EA_POSITION_NONE;  // added before the first layer only
  return c;
}

constexpr uint64_t kArenaBytes = edgeattn::DecoderQuantArenaBytes(LayerConfig());
alignas(64) uint8_t g_arenas[kLayers][kArenaBytes];

// Per layer: what ea_decoder_quant_init reads from the weights header.
struct LayerTensors {
  const int8_t* in_proj_weight;
  const int32_t* in_proj_bias;
  const float* in_proj_weight_scales;
  const int8_t* out_proj_weight;
  const int32_t* out_proj_bias;
  const float* out_proj_weight_scales;
  ea_quant input, q, k, v, scores, context, output, residual;
};

LayerTensors Layer(int32_t l) {
  if (l == 0) {
    return {revq_layers_0_in_proj_weight,
            revq_layers_0_in_proj_bias,
            revq_layers_0_in_proj_weight_scales,
            revq_layers_0_out_proj_weight,
            revq_layers_0_out_proj_bias,
            revq_layers_0_out_proj_weight_scales,
            Quant(revq_h0_scale, revq_h0_zero_point),
            Quant(revq_layers_0_q_scale, revq_layers_0_q_zero_point),
            Quant(revq_layers_0_k_scale, revq_layers_0_k_zero_point),
            Quant(revq_layers_0_v_scale, revq_layers_0_v_zero_point),
            Quant(revq_layers_0_scores_scale, revq_layers_0_scores_zero_point),
            Quant(revq_layers_0_context_scale, revq_layers_0_context_zero_point),
            Quant(revq_layers_0_output_scale, revq_layers_0_output_zero_point),
            Quant(revq_layers_0_residual_scale, revq_layers_0_residual_zero_point)};
  }
  return {revq_layers_1_in_proj_weight,
          revq_layers_1_in_proj_bias,
          revq_layers_1_in_proj_weight_scales,
          revq_layers_1_out_proj_weight,
          revq_layers_1_out_proj_bias,
          revq_layers_1_out_proj_weight_scales,
          Quant(revq_layers_0_residual_scale, revq_layers_0_residual_zero_point),
          Quant(revq_layers_1_q_scale, revq_layers_1_q_zero_point),
          Quant(revq_layers_1_k_scale, revq_layers_1_k_zero_point),
          Quant(revq_layers_1_v_scale, revq_layers_1_v_zero_point),
          Quant(revq_layers_1_scores_scale, revq_layers_1_scores_zero_point),
          Quant(revq_layers_1_context_scale, revq_layers_1_context_zero_point),
          Quant(revq_layers_1_output_scale, revq_layers_1_output_zero_point),
          Quant(revq_layers_1_residual_scale, revq_layers_1_residual_zero_point)};
}

// The readout: int32 accumulators of the last hidden row (one weight scale
// for the whole matrix, so their argmax is the logits').
int32_t Readout(const int8_t* h) {
  const int32_t offset = -revq_layers_1_residual_zero_point[0];
  int32_t best = 0;
  int32_t best_sum = 0;
  for (int32_t v = 0; v < kVocab; ++v) {
    int32_t sum = revq_readout_bias[v];
    for (int32_t i = 0; i < kDModel; ++i) {
      sum += int32_t{revq_readout_weight[v * kDModel + i]} * (int32_t{h[i]} + offset);
    }
    if (v == 0 || sum > best_sum) {
      best = v;
      best_sum = sum;
    }
  }
  return best;
}

}  // namespace

ea_status QuantModel::Init() {
  length_ = 0;
  const ea_quant embedding = Quant(revq_embedding_scale, revq_embedding_zero_point);
  const ea_quant positions = Quant(revq_positions_scale, revq_positions_zero_point);
  ea_status status = ea_add_quant_derive(EA_DTYPE_INT8, embedding, positions,
                                         Quant(revq_h0_scale, revq_h0_zero_point), &position_add_);
  for (int32_t l = 0; status == EA_OK && l < kLayers; ++l) {
    const LayerTensors t = Layer(l);
    ea_mha_quant_scales& s = scales_[l];
    s = ea_mha_quant_scales{};
    s.input = t.input;
    s.q = t.q;
    s.k = t.k;
    s.v = t.v;
    s.scores = t.scores;
    s.context = t.context;
    s.output = t.output;
    s.in_proj_weight_scales = t.in_proj_weight_scales;
    s.out_proj_weight_scales = t.out_proj_weight_scales;
    ea_decoder_quant_config config = LayerConfig();
    config.quant_scales = &s;
    ea_mha_quant_weights weights{};  // by name: the struct grows at its end
    weights.in_proj_weight = t.in_proj_weight;
    weights.in_proj_bias = t.in_proj_bias;
    weights.out_proj_weight = t.out_proj_weight;
    weights.out_proj_bias = t.out_proj_bias;
    ea_arena arena;
    status = ea_arena_init(&arena, g_arenas[l], sizeof(g_arenas[l]));
    if (status == EA_OK) status = ea_decoder_quant_init(&layers_[l], &config, &weights, &arena);
    if (status == EA_OK) {
      status = ea_add_quant_derive(EA_DTYPE_INT8, t.input, t.output, t.residual, &residual_add_[l]);
    }
  }
  return status;
}

// Runs tokens [n] at positions length_.. through both layers; *next is the
// greedy prediction after the last of them.
ea_status QuantModel::Step(const int32_t* tokens, int32_t n, int32_t* next) {
  int8_t h[kPromptTokens][kDModel];
  int8_t attended[kPromptTokens][kDModel];
  for (int32_t t = 0; t < n; ++t) {
    for (int32_t i = 0; i < kDModel; ++i) h[t][i] = revq_embedding_weight[tokens[t] * kDModel + i];
  }
  const size_t values = static_cast<size_t>(n) * kDModel;
  ea_status status = ea_add_quant_run_s8(&h[0][0], revq_positions + length_ * kDModel, values,
                                         &position_add_, &h[0][0]);
  for (int32_t l = 0; status == EA_OK && l < kLayers; ++l) {
    status = ea_decoder_quant_step_s8(&layers_[l], &h[0][0], n, &attended[0][0]);
    if (status == EA_OK) {
      status = ea_add_quant_run_s8(&h[0][0], &attended[0][0], values, &residual_add_[l], &h[0][0]);
    }
  }
  if (status != EA_OK) return status;
  length_ += n;
  *next = Readout(h[n - 1]);
  return EA_OK;
}

ea_status QuantModel::Reverse(const int32_t* digits, int32_t* out) {
  for (ea_decoder_quant& layer : layers_) {
    const ea_status status = ea_decoder_quant_reset(&layer);
    if (status != EA_OK) return status;
  }
  length_ = 0;
  return GreedyReversal(digits, out, [this](const int32_t* tokens, int32_t n, int32_t* next) {
    return Step(tokens, n, next);
  });
}

}  // namespace reversal
