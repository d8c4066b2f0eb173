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
#include "edgeattn/kv_cache.h"
#include "edgeattn/linear.h"
#include "edgeattn/mha.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Dimensions > 0. */
typedef struct ea_cross_config {
  int32_t d_model;
  int32_t n_heads;
  int32_t max_memory;  /* most memory rows */
  int32_t max_queries; /* most query rows per run (independent of max_memory) */
  ea_kv_storage storage;
  ea_weights_layout weights_layout; /* in_proj [d_model + 2 n_kv_heads d_head, d_model], out_proj */
  /* Key/value heads: divides n_heads (EA_ERR_HEADS_MISMATCH); n_heads for
   * plain MHA. Last, so that a config written before it existed (0 here) is
   * refused (EA_ERR_BAD_DIMENSION), not read with its fields shifted. */
  int32_t n_kv_heads;
} ea_cross_config;

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

ea_status ea_cross_arena_size(const ea_cross_config* config, size_t* bytes);
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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_CROSS_H_ */
