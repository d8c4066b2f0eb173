/* edgeattn cross-attention: nn.MultiheadAttention(query = x, key = memory, value =
 * memory). ea_cross_set_memory projects the memory's keys and values once
 * into the cache; every ea_cross_run then projects its queries and
 * attends to all of the memory (no mask, no positions: add them to x and the
 * memory before, as PyTorch's callers do).
 *
 * Weights are ea_mha_weights in PyTorch's layout (in_proj [(n_heads +
 * 2 n_kv_heads) d_head, d_model]: W_Q, then W_K and W_V of n_kv_heads heads
 * each, d_head = d_model / n_heads, so [3 d_model, d_model] for plain MHA;
 * out_proj [d_model, d_model]), row-major or packed (ea_linear_pack_weights
 * of the whole matrix), referenced, not copied. With n_kv_heads < n_heads
 * (grouped-query attention, as ea_decoder_config) query head h reads the
 * memory's head h / (n_heads / n_kv_heads).
 * Memory: ea_cross_arena_size; the plan carves everything at init. No heap.
 * A cross-attention is used by one thread at a time.
 */
#ifndef EDGEATTN_CROSS_H_
#define EDGEATTN_CROSS_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/common.h"
#include "edgeattn/decoder.h"
#include "edgeattn/kv_cache.h"
#include "edgeattn/linear.h"
#include "edgeattn/mha.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Dimensions > 0 (n_kv_heads >= 0). */
typedef struct ea_cross_config {
  int32_t d_model;                  /* width of x, the memory and y */
  int32_t n_heads;                  /* query heads, dividing d_model (EA_ERR_HEADS_MISMATCH) */
  int32_t max_memory;               /* most memory rows */
  int32_t max_queries;              /* most query rows per run (independent of max_memory) */
  ea_kv_storage storage;            /* how the cache stores the memory's keys and values */
  ea_weights_layout weights_layout; /* in_proj [d_model + 2 n_kv_heads d_head, d_model], out_proj */
  /* 0: n_heads (plain MHA); else grouped-query heads, dividing n_heads
   * (EA_ERR_HEADS_MISMATCH). Last, so that a config written before it
   * existed (0 here) still means plain MHA. */
  int32_t n_kv_heads;
} ea_cross_config;

/* Filled by ea_cross_init; treat it as opaque. */
typedef struct ea_cross {
  ea_cross_config config;
  ea_mha_weights weights;
  const float* packed_in_proj;
  const float* packed_out_proj;
  float* q;        /* [max_queries, d_model] */
  float* kv_chunk; /* memory rows projected to K|V, a chunk at a time */
  float* k;        /* [chunk, n_kv_heads d_head] */
  float* v;
  float* heads_out; /* [max_queries, d_model] */
  ea_kv_cache cache;
  const void* carve;
  size_t carve_bytes;
  uint32_t ready;
} ea_cross;

/* Validates *config and writes the arena bytes ea_cross_init carves into
 * *bytes (CrossArenaBytes in edgeattn/arena_sizes.hpp). */
ea_status ea_cross_arena_size(const ea_cross_config* config, size_t* bytes);
/* Validates *config as ea_cross_arena_size does (its statuses), carves that
 * many bytes (EA_ERR_ARENA_MISALIGNED, EA_ERR_ARENA_TOO_SMALL) and fills
 * *cross with no memory set. NULL in_proj or out_proj weight:
 * EA_ERR_NULL_POINTER; weights or biases inside the carved bytes:
 * EA_ERR_BAD_ARGUMENT. */
ea_status ea_cross_init(ea_cross* cross, const ea_cross_config* config,
                        const ea_mha_weights* weights, ea_arena* arena);
/* memory: [n_memory, d_model], n_memory in [1, max_memory]
 * (EA_ERR_BAD_DIMENSION); replaces the memory held. It overlaps neither the
 * plan's arena nor the weights and biases (EA_ERR_BAD_ARGUMENT); on any
 * error the memory held is unchanged. */
ea_status ea_cross_set_memory(ea_cross* cross, const float* memory, int32_t n_memory);
/* x, y: [n_queries, d_model], n_queries in [1, max_queries]; a memory must be
 * set (EA_ERR_BAD_ARGUMENT before). y may be x; memory rules as
 * ea_decoder_step's (the weights and biases; this layer has no tables).
 * On any error y is not written. */
ea_status ea_cross_run(ea_cross* cross, const float* x, int32_t n_queries, float* y);

/* ------------------------------------------- fixed-point cross-attention */

/* The fixed-point cross-attention: TFLite's chain (edgeattn/quant.h) with
 * q = FULLY_CONNECTED(x) and k, v = FULLY_CONNECTED(memory), each query
 * row's SOFTMAX over every memory row (no mask, no positions), then
 * BATCH_MATMUL(probs, V) and W_O, bit for bit as the chain's reference on
 * every target. ea_cross_quant_set_memory_s8 / _s16 projects the memory's k
 * and v once into the cache (the fixed-point decoder's storages: K rows, V^T
 * and on x86 the VNNI panels, per KV head); every run then projects only its
 * queries.
 *
 * The config names its fields as ea_cross_config does; dtype, d_model,
 * n_heads, quant_scales and quant_params mean what they mean in
 * ea_mha_config: the scales (quant_scales: input is x's quantization, k
 * and v the memory's projections') or TFLite's integers (quant_params:
 * k_proj's and v_proj's input_offset are the memory's). Weights as ea_decoder_quant's
 * (ea_mha_quant_weights: in_proj or separate W_Q, W_K, W_V; W_K and W_V of
 * kv_width = n_kv_heads * d_k rows).
 *
 * Memory: ea_cross_quant_arena_size bytes (CrossQuantArenaBytes in
 * edgeattn/arena_sizes.hpp); no heap. set_memory projects the memory in
 * steps of max(max_queries, min(max_memory, 16)) rows (the arena
 * holds one step), a run its queries at once. */
typedef struct ea_cross_quant_config {
  ea_dtype dtype;      /* EA_DTYPE_INT8 or EA_DTYPE_INT16 (else EA_ERR_BAD_ARGUMENT) */
  int32_t d_model;     /* width of x, the memory and y */
  int32_t n_heads;     /* dividing d_model (EA_ERR_HEADS_MISMATCH) */
  int32_t n_kv_heads;  /* 0: n_heads; else dividing it (EA_ERR_HEADS_MISMATCH;
                          < 0: EA_ERR_BAD_DIMENSION) */
  int32_t max_memory;  /* most memory rows, in [1, 65535] (0 or less:
                          EA_ERR_BAD_DIMENSION; more: EA_ERR_DIMENSION_OVERFLOW) */
  int32_t max_queries; /* most query rows of a run, in [1, 65535] (as
                          max_memory's statuses) */
  const ea_mha_quant_scales* quant_scales; /* the scales, or NULL with quant_params */
  const ea_mha_quant_params* quant_params; /* given integers, or NULL: derived */
  ea_quant memory;                         /* with quant_scales: the memory's quantization, a
                                              positive finite scale and a zero point of the dtype
                                              (int16: 0), else EA_ERR_BAD_ARGUMENT */
} ea_cross_quant_config;

/* Filled by ea_cross_quant_init; read `n_memory`, treat the rest as opaque. */
typedef struct ea_cross_quant {
  ea_cross_quant_config config;
  ea_decoder_quant core; /* the storages and kernels a decoder step uses */
  int32_t n_memory;      /* rows of the memory held; 0 before the first */
  uint32_t ready;
} ea_cross_quant;

/* Checked in this order: max_memory and n_kv_heads < 0, then the layer's
 * rules as ea_mha_quant_arena_size validates them (its statuses, with
 * max_queries for max_tokens; n_kv_heads dividing n_heads among them), then
 * the memory's quantization. A run is single-threaded. */
ea_status ea_cross_quant_arena_size(const ea_cross_quant_config* config, size_t* bytes);
/* ea_mha_quant_derive for a cross-attention: k_proj and v_proj from the
 * memory's quantization (config->memory), with kv_width channels; as
 * ea_decoder_quant_derive otherwise. */
ea_status ea_cross_quant_derive(const ea_cross_quant_config* config, ea_mha_quant_params* params,
                                int32_t* channel_ints, size_t channel_int_count);
/* Validates *config as ea_cross_quant_arena_size does and the weights as
 * ea_mha_quant_init does (their statuses), carves the arena and fills
 * *cross with no memory set (n_memory 0). */
ea_status ea_cross_quant_init(ea_cross_quant* cross, const ea_cross_quant_config* config,
                              const ea_mha_quant_weights* weights, ea_arena* arena);
/* memory: [n_memory, d_model], n_memory in [1, max_memory]
 * (EA_ERR_BAD_DIMENSION); replaces the memory held. Memory rules as a
 * decoder step's x (EA_ERR_BAD_ARGUMENT); on any error the memory held is
 * unchanged. _s8 for INT8 layers, _s16 for INT16 (the other:
 * EA_ERR_BAD_ARGUMENT). */
ea_status ea_cross_quant_set_memory_s8(ea_cross_quant* cross, const int8_t* memory,
                                       int32_t n_memory);
/* The int16 twin of ea_cross_quant_set_memory_s8 (INT16 cross-attentions). */
ea_status ea_cross_quant_set_memory_s16(ea_cross_quant* cross, const int16_t* memory,
                                        int32_t n_memory);
/* x, y: [n_queries, d_model], n_queries in [1, max_queries]
 * (EA_ERR_BAD_DIMENSION); a memory must be set (EA_ERR_BAD_ARGUMENT
 * before). y may be x (or overlap it: x is read before y is written);
 * memory rules as a decoder step's. On any error y is not written. */
ea_status ea_cross_quant_run_s8(ea_cross_quant* cross, const int8_t* x, int32_t n_queries,
                                int8_t* y);
/* The int16 twin of ea_cross_quant_run_s8 (INT16 cross-attentions). */
ea_status ea_cross_quant_run_s16(ea_cross_quant* cross, const int16_t* x, int32_t n_queries,
                                 int16_t* y);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_CROSS_H_ */
