#include "reversal_model.h"

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/sinusoidal_table.hpp"
#include "reversal_weights.h"

namespace reversal {
namespace {

constexpr ea_decoder_config LayerConfig(ea_kv_storage storage) {
  ea_decoder_config c{};
  c.d_model = kDModel;
  c.n_heads = kHeads;
  c.n_kv_heads = kHeads;
  c.max_positions = kPositions;
  c.max_step_tokens = kPromptTokens;
  c.window = 0;
  c.storage = storage;
  c.position = EA_POSITION_NONE;  // the model adds P before the first layer only
  c.weights_layout = EA_WEIGHTS_PACKED;
  return c;
}

// The largest of the storages' arenas, so one static buffer serves all.
constexpr uint64_t kArenaBytes = edgeattn::DecoderArenaBytes(LayerConfig(EA_KV_STORAGE_F32));
static_assert(kArenaBytes >= edgeattn::DecoderArenaBytes(LayerConfig(EA_KV_STORAGE_Q8)), "");
static_assert(kArenaBytes >= edgeattn::DecoderArenaBytes(LayerConfig(EA_KV_STORAGE_Q4)), "");
alignas(64) uint8_t g_arenas[kLayers][kArenaBytes];

// sin/cos positions as constant data, computed by the compiler.
constexpr auto kPositionTable = edgeattn::MakeSinusoidalTable<kPositions, kDModel>();

// A layer's PyTorch tensors, fields set by name (a struct that grows keeps
// compiling) and still constant data: no start-up code.
constexpr ea_mha_weights InProjWeights(const float* in_proj_weight, const float* in_proj_bias,
                                       const float* out_proj_weight, const float* out_proj_bias) {
  ea_mha_weights weights{};
  weights.in_proj_weight = in_proj_weight;
  weights.in_proj_bias = in_proj_bias;
  weights.out_proj_weight = out_proj_weight;
  weights.out_proj_bias = out_proj_bias;
  return weights;
}
constexpr ea_mha_weights kWeights[kLayers] = {
    InProjWeights(rev_layers_0_in_proj_weight, rev_layers_0_in_proj_bias,
                  rev_layers_0_out_proj_weight, rev_layers_0_out_proj_bias),
    InProjWeights(rev_layers_1_in_proj_weight, rev_layers_1_in_proj_bias,
                  rev_layers_1_out_proj_weight, rev_layers_1_out_proj_bias)};

int32_t Argmax(const float* logits) {
  int32_t best = 0;
  for (int32_t v = 1; v < kVocab; ++v) {
    if (logits[v] > logits[best]) best = v;
  }
  return best;
}

}  // namespace

ea_status Model::Init(ea_kv_storage storage, bool positions) {
  positions_ = positions;
  length_ = 0;
  const ea_decoder_config config = LayerConfig(storage);
  for (int32_t l = 0; l < kLayers; ++l) {
    ea_arena arena;
    ea_status status = ea_arena_init(&arena, g_arenas[l], sizeof(g_arenas[l]));
    if (status == EA_OK) status = ea_decoder_init(&layers_[l], &config, &kWeights[l], &arena);
    if (status != EA_OK) return status;
  }
  return EA_OK;
}

// Runs tokens [n] at positions length_.. through both layers; *next is the
// greedy prediction after the last of them.
ea_status Model::Step(const int32_t* tokens, int32_t n, int32_t* next) {
  float h[kPromptTokens][kDModel];
  float attended[kPromptTokens][kDModel];
  for (int32_t t = 0; t < n; ++t) {
    for (int32_t i = 0; i < kDModel; ++i) {
      h[t][i] = rev_embedding_weight[tokens[t] * kDModel + i] +
                (positions_ ? kPositionTable.values[(length_ + t) * kDModel + i] : 0.0f);
    }
  }
  for (int32_t l = 0; l < kLayers; ++l) {
    const ea_status status = ea_decoder_step(&layers_[l], &h[0][0], n, &attended[0][0]);
    if (status != EA_OK) return status;
    for (int32_t t = 0; t < n; ++t) {
      for (int32_t i = 0; i < kDModel; ++i) h[t][i] += attended[t][i];  // residual
    }
  }
  length_ += n;
  float logits[kVocab];
  for (int32_t v = 0; v < kVocab; ++v) {
    float sum = rev_readout_bias[v];
    for (int32_t i = 0; i < kDModel; ++i) sum += rev_readout_weight[v * kDModel + i] * h[n - 1][i];
    logits[v] = sum;
  }
  *next = Argmax(logits);
  return EA_OK;
}

ea_status Model::Reverse(const int32_t* digits, int32_t* out) {
  for (ea_decoder& layer : layers_) {
    const ea_status status = ea_decoder_reset(&layer);
    if (status != EA_OK) return status;
  }
  length_ = 0;
  return GreedyReversal(digits, out, [this](const int32_t* tokens, int32_t n, int32_t* next) {
    return Step(tokens, n, next);
  });
}

}  // namespace reversal
