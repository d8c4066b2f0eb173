// C entry points of the MHA decoder (edgeattn/decoder.h): ea_mha_run's
// layer one step at a time, keys and values kept in a KV cache. A step is
// x + P -> one in_proj GEMM -> Q, K, V split into rows of heads -> RoPE ->
// append -> causal attend -> out_proj.
#include <stddef.h>
#include <stdint.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/decoder.h"
#include "kernels/f32/f32_kernels.h"
#include "kv_cache/row_slices.h"
#include "ops/in_proj_f32.h"
#include "ops/model_input.h"
#include "runtime/arena.h"
#include "runtime/simd_target_cap.h"
#include "runtime/validation.h"

namespace edgeattn {
namespace {

int32_t HeadWidth(const ea_decoder_config& c) { return c.d_model / c.n_heads; }
int32_t KvWidth(const ea_decoder_config& c) { return KvHeads(c) * HeadWidth(c); }
// The in_proj rows: past int32 for d_model near INT32_MAX, so Validate checks
// it in int64 (EA_MAX_ELEMENTS); everything after Validate uses QkvWidth.
int64_t QkvWidth64(const ea_decoder_config& c) { return c.d_model + 2 * int64_t{KvWidth(c)}; }
int32_t QkvWidth(const ea_decoder_config& c) { return static_cast<int32_t>(QkvWidth64(c)); }

ea_kv_cache_config CacheConfig(const ea_decoder_config& c) {
  ea_kv_cache_config cache{};
  cache.capacity = DecoderCacheCapacity(c.max_positions, c.max_step_tokens, c.window);
  cache.n_heads = c.n_heads;
  cache.n_kv_heads = KvHeads(c);
  cache.d_head = HeadWidth(c);
  cache.max_queries = c.max_step_tokens;
  cache.window = c.window;
  cache.storage = c.storage;
  cache.scale = 0.0f;
  cache.alibi_slopes = c.alibi_slopes;
  return cache;
}

ea_status Validate(const ea_decoder_config& c) {
  ea_status status = CheckPositive(c.d_model, c.n_heads, c.max_positions, c.max_step_tokens);
  if (status != EA_OK) return status;
  if (c.n_kv_heads < 0 || c.window < 0) return EA_ERR_BAD_DIMENSION;
  if (c.d_model % c.n_heads != 0 || c.n_heads % KvHeads(c) != 0) return EA_ERR_HEADS_MISMATCH;
  // Only the tables have max_positions rows: without them a stream (a
  // windowed ring's) may run past EA_MAX_ELEMENTS / d_model tokens.
  status = CheckPosition(c.position, c.position_table);
  if (status == EA_OK && c.position != EA_POSITION_NONE) {
    status = CheckElements(c.max_positions, c.d_model);
  }
  if (status != EA_OK) return status;
  if (c.rope_table != nullptr) {
    if (HeadWidth(c) % 2 != 0) return EA_ERR_BAD_DIMENSION;
    if (c.rope_layout != EA_ROPE_HALF && c.rope_layout != EA_ROPE_INTERLEAVED) {
      return EA_ERR_BAD_ARGUMENT;
    }
    status = CheckElements(c.max_positions, HeadWidth(c));
    if (status != EA_OK) return status;
  }
  // The cache's capacity in int64 first: it must fit an int32.
  if (c.window > 0 && int64_t{c.window} + c.max_step_tokens - 1 > INT32_MAX) {
    return EA_ERR_DIMENSION_OVERFLOW;
  }
  status = CheckElements(c.max_step_tokens, QkvWidth64(c));
  if (status == EA_OK) status = CheckWeightMatrix(c.weights_layout, QkvWidth(c), c.d_model);
  // The cache's rules, then whether the whole layer's size fits a size_t.
  size_t cache_bytes = 0, layer_bytes = 0;
  const ea_kv_cache_config cache = CacheConfig(c);
  if (status == EA_OK) status = ea_kv_cache_arena_size(&cache, &cache_bytes);
  if (status == EA_OK) status = ToSize(DecoderArenaBytes(c), &layer_bytes);
  return status;
}

// What steps read and must not overwrite: weights, biases, the tables, the
// ALiBi slopes.
constexpr size_t kKeptCount = kInProjExtents + 5;
struct Kept {
  Extent extents[kKeptCount];
};
Kept KeptExtents(const ea_decoder_config& c, const ea_mha_weights& w, const float* table) {
  Kept kept{};
  InProjF32Extents(w, c.d_model, KvWidth(c), c.weights_layout, kept.extents);
  kept.extents[kInProjExtents] =
      Extent{w.out_proj_weight, WeightMatrixBytes(c.d_model, c.d_model, c.weights_layout)};
  kept.extents[kInProjExtents + 1] = Extent{w.out_proj_bias, FloatBytes(c.d_model)};
  kept.extents[kInProjExtents + 2] =
      Extent{table, FloatBytes(int64_t{c.max_positions} * c.d_model)};
  kept.extents[kInProjExtents + 3] =
      Extent{c.rope_table, FloatBytes(int64_t{c.max_positions} * HeadWidth(c))};
  kept.extents[kInProjExtents + 4] =
      Extent{c.alibi_slopes, c.alibi_slopes != nullptr ? FloatBytes(c.n_heads) : 0};
  return kept;
}

}  // namespace
}  // namespace edgeattn

extern "C" {

ea_status ea_decoder_arena_size(const ea_decoder_config* config, size_t* bytes) {
  if (config == nullptr || bytes == nullptr) return EA_ERR_NULL_POINTER;
  const ea_status status = edgeattn::Validate(*config);
  if (status != EA_OK) return status;
  return edgeattn::ToSize(edgeattn::DecoderArenaBytes(*config), bytes);
}

ea_status ea_decoder_init(ea_decoder* decoder, const ea_decoder_config* config,
                          const ea_mha_weights* weights, ea_arena* arena) {
  if (decoder == nullptr) return EA_ERR_NULL_POINTER;
  decoder->ready = 0;  // a failed re-init must not leave the old plan usable
  edgeattn::ApplySimdTargetCap();
  if (config == nullptr || weights == nullptr || arena == nullptr) return EA_ERR_NULL_POINTER;
  ea_status status = edgeattn::CheckInProjForms(*weights);
  if (status != EA_OK) return status;
  const ea_decoder_config& c = *config;
  // Validate before any arithmetic on the config (n_heads 0 divides by it).
  status = edgeattn::Validate(c);
  if (status == EA_OK) status = edgeattn::CheckInProjF32Layout(*weights, c.weights_layout);
  const uint64_t bytes = status == EA_OK ? edgeattn::DecoderArenaBytes(c) : 0;
  if (status == EA_OK) status = edgeattn::CheckArenaFits(arena, bytes);
  const edgeattn::Extent carve =
      status == EA_OK ? edgeattn::NextCarve(*arena, bytes) : edgeattn::Extent{nullptr, 0};
  if (status == EA_OK) {
    const edgeattn::Kept kept = edgeattn::KeptExtents(
        c, *weights, edgeattn::TableTheModeReads(c.position, c.position_table));
    status = edgeattn::CheckKeptOutsideCarve(kept.extents, edgeattn::kKeptCount, carve);
  }
  if (status != EA_OK) return status;

  const size_t used_before = arena->used;
  decoder->config = c;
  decoder->weights = *weights;
  const uint64_t tokens = static_cast<uint64_t>(c.max_step_tokens);
  decoder->position_table = nullptr;
  decoder->x_positioned = nullptr;
  switch (edgeattn::StorageOf(c.position, c.position_table == nullptr)) {
    case edgeattn::PositionStorage::kNone:
      break;
    case edgeattn::PositionStorage::kCaller:
      decoder->position_table = c.position_table;
      break;
    case edgeattn::PositionStorage::kArena: {
      float* table = edgeattn::CarveFloats(
          arena, static_cast<uint64_t>(c.max_positions) * static_cast<uint64_t>(c.d_model));
      ea_sinusoidal_table_fill(table, c.max_positions, c.d_model);
      decoder->position_table = table;
      break;
    }
  }
  if (decoder->position_table != nullptr) {
    decoder->x_positioned = edgeattn::CarveFloats(arena, tokens * static_cast<uint64_t>(c.d_model));
  }
  decoder->packed_in_proj =
      edgeattn::PackInProjF32(*weights, c.d_model, edgeattn::KvWidth(c), c.weights_layout, arena);
  decoder->packed_out_proj = edgeattn::ResolvePackedWeights(weights->out_proj_weight, c.d_model,
                                                            c.d_model, c.weights_layout, arena);
  decoder->qkv = edgeattn::CarveFloats(arena, tokens * edgeattn::QkvWidth(c));
  decoder->q = edgeattn::CarveFloats(arena, tokens * c.d_model);
  decoder->k = edgeattn::CarveFloats(arena, tokens * edgeattn::KvWidth(c));
  decoder->v = edgeattn::CarveFloats(arena, tokens * edgeattn::KvWidth(c));
  decoder->heads_out = edgeattn::CarveFloats(arena, tokens * c.d_model);
  const ea_kv_cache_config cache = edgeattn::CacheConfig(c);
  status = ea_kv_cache_init(&decoder->cache, &cache, arena);
  decoder->carve = carve.begin;
  decoder->carve_bytes = arena->used - used_before;
  if (status != EA_OK) return status;  // validated above: not reached
  decoder->ready = EA_PLAN_READY;
  return EA_OK;
}

ea_status ea_decoder_reset(ea_decoder* decoder) {
  if (decoder == nullptr) return EA_ERR_NULL_POINTER;
  if (decoder->ready != EA_PLAN_READY) return EA_ERR_BAD_ARGUMENT;
  return ea_kv_cache_reset(&decoder->cache);
}

ea_status ea_decoder_step(ea_decoder* decoder, const float* x, int32_t n_tokens, float* y) {
  if (decoder == nullptr || x == nullptr || y == nullptr) return EA_ERR_NULL_POINTER;
  if (decoder->ready != EA_PLAN_READY) return EA_ERR_BAD_ARGUMENT;
  const ea_decoder_config& c = decoder->config;
  if (n_tokens <= 0 || n_tokens > c.max_step_tokens) return EA_ERR_BAD_DIMENSION;
  const int64_t position = decoder->cache.length;
  if (position + n_tokens > c.max_positions) return EA_ERR_CACHE_FULL;
  const size_t io_bytes = edgeattn::FloatBytes(int64_t{n_tokens} * c.d_model);
  const edgeattn::Kept kept = edgeattn::KeptExtents(c, decoder->weights, decoder->position_table);
  const edgeattn::Extent carve{decoder->carve, decoder->carve_bytes};
  ea_status status = edgeattn::CheckStepMemory({x, io_bytes}, {y, io_bytes}, kept.extents,
                                               edgeattn::kKeptCount, carve);
  if (status != EA_OK) return status;

  const size_t rows = static_cast<size_t>(n_tokens);
  const size_t e = static_cast<size_t>(c.d_model);
  const size_t kv = static_cast<size_t>(edgeattn::KvWidth(c));
  const size_t ld_qkv = static_cast<size_t>(edgeattn::QkvWidth(c));
  const float* table =
      decoder->position_table != nullptr ? decoder->position_table + position * c.d_model : nullptr;
  const float* input =
      edgeattn::PositionedInput(x, table, decoder->x_positioned, n_tokens, c.d_model);
  edgeattn::LinearF32(input, e, n_tokens, c.d_model, decoder->packed_in_proj,
                      edgeattn::FusedInProjBias(decoder->weights), edgeattn::QkvWidth(c),
                      decoder->qkv, ld_qkv);
  edgeattn::AddInProjBiases(decoder->weights, c.d_model, edgeattn::KvWidth(c), decoder->qkv, ld_qkv,
                            n_tokens);
  edgeattn::CopyColumns(decoder->qkv, ld_qkv, 0, e, rows, decoder->q);
  edgeattn::CopyColumns(decoder->qkv, ld_qkv, e, kv, rows, decoder->k);
  edgeattn::CopyColumns(decoder->qkv, ld_qkv, e + kv, kv, rows, decoder->v);
  if (c.rope_table != nullptr) {
    // Checked at init: the positions are within the table, d_head is even.
    const int32_t d_head = edgeattn::HeadWidth(c);
    ea_rope_apply(decoder->q, n_tokens, c.n_heads, d_head, position, c.rope_table, c.max_positions,
                  c.rope_layout);
    ea_rope_apply(decoder->k, n_tokens, edgeattn::KvHeads(c), d_head, position, c.rope_table,
                  c.max_positions, c.rope_layout);
  }
  status = ea_kv_cache_append(&decoder->cache, decoder->k, decoder->v, n_tokens);
  if (status == EA_OK) {
    status = ea_kv_cache_attend(&decoder->cache, decoder->q, n_tokens, decoder->heads_out);
  }
  if (status != EA_OK) return status;  // validated above: not reached
  edgeattn::LinearF32(decoder->heads_out, e, n_tokens, c.d_model, decoder->packed_out_proj,
                      decoder->weights.out_proj_bias, c.d_model, y, e);
  return EA_OK;
}

}  // extern "C"
