// C entry points of the fixed-point MHA decoder (edgeattn/decoder.h):
// ea_mha_quant_run_s8 / _s16's causal layer one step at a time. A step's k is
// projected straight into its cache rows and its v transposed into the
// cache's V^T (on x86 both also added to each head's VNNI panels), so the
// attention of its queries reads the cache in place, with the kernels and
// integers of the full run. With grouped-query heads the cache holds the KV
// heads' k and v once, and every query head of a group reads its KV head's.
// With a sliding window the cache is a ring (position p in slot
// p % capacity): a step's rows may wrap, and the row kernels read the ring's
// keys rotated (AttentionQArgs::key_rotation).
#include <stddef.h>
#include <stdint.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/decoder.h"
#include "kernels/int/rope_int.h"
#include "ops/decode/quant_cache.h"
#include "ops/mha/mha_quant_api.h"
#include "ops/quant_model_steps.h"
#include "runtime/arena.h"
#include "runtime/simd_target_cap.h"
#include "runtime/validation.h"
#include "tflite/mha_quant_params.h"
#include "tflite/rope_quant_params.h"

namespace edgeattn {
namespace {

// What RoPE gives a plan (decoder.h's rules): q's and k's rotations, and
// with scales the quantization of the rotated q and k, which the scores'
// BATCH_MATMUL reads (the unrotated q and k are then never its operands).
struct RopePlan {
  ea_rope_quant_params rope[2];
  ea_quant rotated[2];
  bool rotated_scales;

  MhaQuantOperands Operands() const { return {rotated_scales ? rotated : nullptr, nullptr}; }
};

ea_status ValidateRope(const ea_decoder_quant_config& c, RopePlan* plan) {
  *plan = RopePlan{};
  if (!HasRope(c)) {
    return c.rope_scales == nullptr && c.rope_params == nullptr ? EA_OK : EA_ERR_BAD_ARGUMENT;
  }
  if (c.rope_cos_table == nullptr || c.rope_sin_table == nullptr) return EA_ERR_BAD_ARGUMENT;
  if (HeadWidth(c) % 2 != 0) return EA_ERR_BAD_DIMENSION;
  if (CheckQuantTableAlignment(c.dtype, c.rope_cos_table) != EA_OK ||
      CheckQuantTableAlignment(c.dtype, c.rope_sin_table) != EA_OK) {
    return EA_ERR_BAD_ARGUMENT;
  }
  if (c.rope_layout != EA_ROPE_HALF && c.rope_layout != EA_ROPE_INTERLEAVED) {
    return EA_ERR_BAD_ARGUMENT;
  }
  const ea_dtype dtype = c.dtype;
  if (c.quant_params != nullptr) {
    if (c.rope_params == nullptr) return EA_ERR_NULL_POINTER;
    for (int i = 0; i < 2; ++i) {
      if (CheckRope(dtype, c.rope_params[i]) != EA_OK) return EA_ERR_BAD_ARGUMENT;
      plan->rope[i] = c.rope_params[i];
    }
    return EA_OK;
  }
  const ea_mha_quant_scales* s = c.quant_scales;
  if (s == nullptr || c.rope_scales == nullptr) return EA_ERR_NULL_POINTER;
  const auto same = [](ea_quant a, ea_quant b) {
    return a.scale == b.scale && a.zero_point == b.zero_point;
  };
  if (!same(c.rope_scales[0].x, s->q) || !same(c.rope_scales[1].x, s->k)) {
    return EA_ERR_BAD_ARGUMENT;
  }
  for (int i = 0; i < 2; ++i) {
    const ea_status status = DeriveRope(dtype, c.rope_scales[i], &plan->rope[i]);
    if (status != EA_OK) return status;
    plan->rotated[i] = c.rope_scales[i].rotated;
  }
  plan->rotated_scales = true;
  return EA_OK;
}

ea_status Validate(const ea_decoder_quant_config& c, RopePlan* rope) {
  if (c.n_kv_heads < 0) return EA_ERR_BAD_DIMENSION;
  ea_status status = ValidateMhaQuantConfig(DecoderQuantLayer(c), KvHeads(c));
  if (status != EA_OK) return status;
  if (c.max_step_tokens <= 0 || c.max_step_tokens > c.max_positions || c.window < 0) {
    return EA_ERR_BAD_DIMENSION;
  }
  size_t bytes = 0;
  status = ToSize(DecoderQuantArenaBytes(c), &bytes);
  if (status != EA_OK) return status;
  return ValidateRope(c, rope);
}

// The RoPE tables a decoder reads at every step ([max_positions, d_k] each),
// as kept extents (none without RoPE).
struct RopeTables {
  Extent extents[2];
};
RopeTables RopeTablesOf(const ea_decoder_quant_config& c) {
  const size_t bytes = HasRope(c) ? static_cast<size_t>(c.max_positions) *
                                        static_cast<size_t>(HeadWidth(c)) * FixedPointBytes(c.dtype)
                                  : 0;
  return {{{c.rope_cos_table, bytes}, {c.rope_sin_table, bytes}}};
}

// One step of n tokens at positions [p, p + n). Arguments are validated.
template <typename T>
void Step(const ea_decoder_quant& d, const T* x, int32_t n, T* y) {
  const ea_mha_config& c = d.layer;
  const ea_mha_quant_params& p = d.params;
  const size_t e = static_cast<size_t>(c.d_model);
  const size_t position = static_cast<size_t>(d.length);
  const int32_t capacity = Capacity(d.config);
  const int32_t d_k = HeadWidth(d.config);
  const T* input = x;
  if (d.position_table != nullptr) {
    T* positioned = static_cast<T*>(d.x_positioned);
    AddPositions(x, static_cast<const T*>(d.position_table) + position * e, p.add, positioned,
                 static_cast<size_t>(n) * e);
    input = positioned;
  }
  T* q = static_cast<T*>(d.q);
  ProjectStepRows(d, 0, p.q_proj, input, n, q);
  if (HasRope(d.config)) {
    const size_t row = static_cast<size_t>(d_k);
    RopeRows(q, n, c.n_heads, d_k, static_cast<const T*>(d.config.rope_cos_table) + position * row,
             static_cast<const T*>(d.config.rope_sin_table) + position * row, d.config.rope_layout,
             d.rope[0]);
  }
  StoreKeysValues(d, input, n, static_cast<int32_t>(d.length % capacity), position);
  // The cache's keys in the order of their positions: the last `held` of
  // the stream, the oldest in slot `rotation` once the ring has wrapped.
  const int64_t seen = d.length + n;
  const int32_t held = seen < capacity ? static_cast<int32_t>(seen) : capacity;
  const int32_t rotation = seen > capacity ? static_cast<int32_t>(seen % capacity) : 0;
  AttendHeads(d, n, held, rotation, /*causal=*/true, y);
}

template <typename T>
ea_status CheckedStep(ea_decoder_quant* decoder, ea_dtype dtype, const T* x, int32_t n_tokens,
                      T* y) {
  if (decoder == nullptr || x == nullptr || y == nullptr) return EA_ERR_NULL_POINTER;
  if (decoder->ready != EA_PLAN_READY || decoder->config.dtype != dtype) {
    return EA_ERR_BAD_ARGUMENT;
  }
  const ea_mha_config& c = decoder->layer;
  if (n_tokens <= 0 || n_tokens > decoder->config.max_step_tokens) return EA_ERR_BAD_DIMENSION;
  if (decoder->length + n_tokens > c.max_tokens) return EA_ERR_CACHE_FULL;
  const size_t io_bytes =
      static_cast<size_t>(n_tokens) * static_cast<size_t>(c.d_model) * sizeof(T);
  const MhaQuantKept kept = MhaQuantKeptExtents(c, KvWidth(decoder->config), decoder->weights,
                                                decoder->position_table, decoder->params.softmax);
  Extent extents[kMhaQuantKeptCount + 2];
  for (size_t i = 0; i < kMhaQuantKeptCount; ++i) extents[i] = kept.extents[i];
  const RopeTables tables = RopeTablesOf(decoder->config);
  extents[kMhaQuantKeptCount] = tables.extents[0];
  extents[kMhaQuantKeptCount + 1] = tables.extents[1];
  const ea_status status =
      CheckStepMemory({x, io_bytes}, {y, io_bytes}, extents, kMhaQuantKeptCount + 2,
                      {decoder->carve, decoder->carve_bytes});
  if (status != EA_OK) return status;
  Step(*decoder, x, n_tokens, y);
  decoder->length += n_tokens;
  return EA_OK;
}

}  // namespace
}  // namespace edgeattn

extern "C" {

ea_status ea_decoder_quant_arena_size(const ea_decoder_quant_config* config, size_t* bytes) {
  if (config == nullptr || bytes == nullptr) return EA_ERR_NULL_POINTER;
  edgeattn::RopePlan rope;
  const ea_status status = edgeattn::Validate(*config, &rope);
  if (status != EA_OK) return status;
  return edgeattn::ToSize(edgeattn::DecoderQuantArenaBytes(*config), bytes);
}

ea_status ea_decoder_quant_derive(const ea_decoder_quant_config* config,
                                  ea_mha_quant_params* params, int32_t* channel_ints,
                                  size_t channel_int_count) {
  using namespace edgeattn;  // NOLINT(google-build-using-namespace): one entry point
  if (config == nullptr || params == nullptr || channel_ints == nullptr) return EA_ERR_NULL_POINTER;
  ea_decoder_quant_config scales_only = *config;
  scales_only.quant_params = nullptr;
  RopePlan rope;
  ea_status status = Validate(scales_only, &rope);
  if (status != EA_OK) return status;
  if (channel_int_count < EA_MHA_QUANT_CHANNEL_INTS(config->d_model)) {
    return EA_ERR_ARENA_TOO_SMALL;
  }
  return DeriveMhaQuantParams(DecoderQuantLayer(*config), KvWidth(*config), params, channel_ints,
                              rope.Operands());
}

ea_status ea_decoder_quant_init(ea_decoder_quant* decoder, const ea_decoder_quant_config* config,
                                const ea_mha_quant_weights* weights, ea_arena* arena) {
  using namespace edgeattn;  // NOLINT(google-build-using-namespace): one entry point
  if (decoder == nullptr) return EA_ERR_NULL_POINTER;
  decoder->ready = 0;  // a failed re-init must not leave the old plan usable
  ApplySimdTargetCap();
  if (config == nullptr || weights == nullptr || arena == nullptr) return EA_ERR_NULL_POINTER;
  ea_status status = CheckInProjForms(*weights);
  if (status != EA_OK) return status;
  const ea_mha_config c = DecoderQuantLayer(*config);
  RopePlan rope;
  status = Validate(*config, &rope);
  const uint64_t bytes = status == EA_OK ? DecoderQuantArenaBytes(*config) : 0;
  const int32_t kv_width = status == EA_OK ? KvWidth(*config) : 0;
  if (status == EA_OK && HasRope(*config) && CheckArenaFits(arena, bytes) == EA_OK) {
    status = CheckKeptOutsideCarve(RopeTablesOf(*config).extents, 2, NextCarve(*arena, bytes));
  }
  ea_mha_quant_params derived{};
  if (status == EA_OK) {
    status = PrepareMhaQuantCarve(c, kv_width, *weights, *arena, bytes, &derived, rope.Operands());
  }
  if (status != EA_OK) return status;

  CarveDecoderQuant(decoder, *config, config->max_step_tokens, *weights, derived, rope.rope, bytes,
                    arena);
  decoder->length = 0;
  decoder->ready = EA_PLAN_READY;
  return EA_OK;
}

ea_status ea_decoder_quant_reset(ea_decoder_quant* decoder) {
  if (decoder == nullptr) return EA_ERR_NULL_POINTER;
  if (decoder->ready != EA_PLAN_READY) return EA_ERR_BAD_ARGUMENT;
  decoder->length = 0;
  return EA_OK;
}

ea_status ea_decoder_quant_step_s8(ea_decoder_quant* decoder, const int8_t* x, int32_t n_tokens,
                                   int8_t* y) {
  return edgeattn::CheckedStep(decoder, EA_DTYPE_INT8, x, n_tokens, y);
}

ea_status ea_decoder_quant_step_s16(ea_decoder_quant* decoder, const int16_t* x, int32_t n_tokens,
                                    int16_t* y) {
  return edgeattn::CheckedStep(decoder, EA_DTYPE_INT16, x, n_tokens, y);
}

}  // extern "C"
