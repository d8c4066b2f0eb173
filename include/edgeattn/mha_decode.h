/* edgeattn MHA decode: the layer of ea_mha_run one step at a time, its keys
 * and values kept in a KV cache (edgeattn/kv_cache.h) instead of recomputed.
 *
 * Decoder (self-attention, causal): each step takes the embeddings of the
 * next n tokens and returns their outputs,
 *
 *   x' = x + P[position]          (absolute table: sinusoidal or learned)
 *   q, k, v = x' W^T + b          (one packed in_proj)
 *   rotate q, k at their positions (RoPE table, optional)
 *   append k, v; o = attend q     (causal over every earlier token, window,
 *                                  ALiBi, grouped-query heads)
 *   y = o W_O^T + b_O
 *
 * so that a stream of steps gives, row for row, what one causal ea_mha_run
 * over the whole sequence gives (within the float32 bound; the cache's
 * storage rounds k and v as kv_cache.h says).
 *
 * Cross-attention: nn.MultiheadAttention(query = x, key = memory, value =
 * memory). ea_mha_cross_set_memory projects the memory's keys and values once
 * into the cache; every ea_mha_cross_run then projects its queries and
 * attends to all of the memory (no mask, no positions: add them to x and the
 * memory before, as PyTorch's callers do).
 *
 * Weights are ea_mha_weights in PyTorch's layout, row-major or packed
 * (ea_pack_linear_weights of the whole matrix); with n_kv_heads < n_heads
 * in_proj_weight has (n_heads + 2 n_kv_heads) d_head rows: W_Q, then W_K and
 * W_V of n_kv_heads heads each. d_head = d_model / n_heads. Weights, biases
 * and tables are referenced, not copied, and must stay unchanged.
 *
 * Memory: the _arena_size functions; plans carve everything at init. No heap.
 * A plan is used by one thread at a time.
 */
#ifndef EDGEATTN_MHA_DECODE_H_
#define EDGEATTN_MHA_DECODE_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"
#include "edgeattn/kv_cache.h"
#include "edgeattn/rope.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Dimensions > 0 (window >= 0). */
typedef struct ea_mha_decoder_config {
  int32_t d_model;
  int32_t n_heads;
  int32_t n_kv_heads;    /* divides n_heads */
  int32_t max_positions; /* longest stream (tokens since reset); rows of the tables */
  int32_t max_tokens;    /* most tokens per step */
  int32_t window;        /* 0: none; else as ea_kv_cache_config's */
  ea_kv_storage storage;
  ea_position position;        /* absolute positions added to x */
  const float* position_table; /* [max_positions, d_model]; SINUSOIDAL: NULL fills one */
  const float* rope_table;     /* NULL, or [max_positions, d_head] (ea_rope_table_fill) */
  ea_rope_layout rope_layout;
  const float* alibi_slopes; /* NULL, or n_heads slopes (ea_alibi_slopes_fill) */
  ea_weights_layout weights_layout;
} ea_mha_decoder_config;

/* Filled by ea_mha_decoder_init; read `cache.length`, treat the rest as opaque. */
typedef struct ea_mha_decoder {
  ea_mha_decoder_config config;
  ea_mha_weights weights;
  const float* position_table; /* the caller's or the arena's, or NULL */
  const float* packed_in_proj;
  const float* packed_out_proj;
  float* x_positioned; /* [max_tokens, d_model] or NULL */
  float* qkv;          /* [max_tokens, (n_heads + 2 n_kv_heads) d_head] */
  float* q;            /* [max_tokens, n_heads d_head] */
  float* k;            /* [max_tokens, n_kv_heads d_head] */
  float* v;
  float* heads_out; /* [max_tokens, d_model] */
  ea_kv_cache cache;
  const void* carve; /* the plan's arena bytes */
  size_t carve_bytes;
  uint32_t ready;
} ea_mha_decoder;

/* The cache's capacity is max_positions without a window and
 * window + max_tokens - 1 with one (past INT32_MAX:
 * EA_ERR_DIMENSION_OVERFLOW); its rules (kv_cache.h) give the same statuses
 * here. init validates the config before any arithmetic on it, and returns
 * the status _arena_size returns for it. d_model + 2 n_kv_heads d_head (the in_proj rows) past
 * EA_MAX_ELEMENTS: EA_ERR_DIMENSION_OVERFLOW; so is a position or RoPE table
 * of max_positions rows past it (without tables a stream, a windowed one,
 * may be longer). Tables must hold max_positions rows: the library cannot
 * check a pointer's extent. */
ea_status ea_mha_decoder_arena_size(const ea_mha_decoder_config* config, size_t* bytes);
ea_status ea_mha_decoder_init(ea_mha_decoder* decoder, const ea_mha_decoder_config* config,
                              const ea_mha_weights* weights, ea_arena* arena);
/* Starts a new stream at position 0. */
ea_status ea_mha_decoder_reset(ea_mha_decoder* decoder);
/* x, y: [n_tokens, d_model], the next n_tokens tokens of the stream.
 * n_tokens in [1, max_tokens] (EA_ERR_BAD_DIMENSION); a stream longer than
 * max_positions: EA_ERR_CACHE_FULL. y may be x (or overlap it: x is read
 * before y is written); neither overlaps the plan's arena, the weights and
 * biases, or the tables and slopes (EA_ERR_BAD_ARGUMENT). On any error y and
 * the cache are not written. */
ea_status ea_mha_decoder_step(ea_mha_decoder* decoder, const float* x, int32_t n_tokens, float* y);

/* Dimensions > 0. */
typedef struct ea_mha_cross_config {
  int32_t d_model;
  int32_t n_heads;
  int32_t max_memory;  /* most memory rows */
  int32_t max_queries; /* most query rows per run (independent of max_memory) */
  ea_kv_storage storage;
  ea_weights_layout weights_layout; /* in_proj [3 d_model, d_model], out_proj */
} ea_mha_cross_config;

typedef struct ea_mha_cross {
  ea_mha_cross_config config;
  ea_mha_weights weights;
  const float* packed_in_proj;
  const float* packed_out_proj;
  float* q;        /* [max_queries, d_model] */
  float* kv_chunk; /* memory rows projected to K|V, a chunk at a time */
  float* k;        /* [chunk, d_model] */
  float* v;
  float* heads_out; /* [max_queries, d_model] */
  ea_kv_cache cache;
  const void* carve;
  size_t carve_bytes;
  uint32_t ready;
} ea_mha_cross;

ea_status ea_mha_cross_arena_size(const ea_mha_cross_config* config, size_t* bytes);
ea_status ea_mha_cross_init(ea_mha_cross* cross, const ea_mha_cross_config* config,
                            const ea_mha_weights* weights, ea_arena* arena);
/* memory: [n_memory, d_model], n_memory in [1, max_memory]
 * (EA_ERR_BAD_DIMENSION); replaces the memory held. It overlaps neither the
 * plan's arena nor the weights and biases (EA_ERR_BAD_ARGUMENT); on any
 * error the memory held is unchanged. */
ea_status ea_mha_cross_set_memory(ea_mha_cross* cross, const float* memory, int32_t n_memory);
/* x, y: [n_queries, d_model], n_queries in [1, max_queries]; a memory must be
 * set (EA_ERR_BAD_ARGUMENT before). y may be x; memory rules as
 * ea_mha_decoder_step's (the weights and biases; this layer has no tables).
 * On any error y is not written. */
ea_status ea_mha_cross_run(ea_mha_cross* cross, const float* x, int32_t n_queries, float* y);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_MHA_DECODE_H_ */
