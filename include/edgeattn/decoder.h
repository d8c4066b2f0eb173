/* edgeattn decoder: the layer of ea_mha_run one step at a time, its keys
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
 * Weights are ea_mha_weights in PyTorch's layout, row-major or packed
 * (ea_linear_pack_weights of the whole matrix); with n_kv_heads < n_heads
 * in_proj_weight has (n_heads + 2 n_kv_heads) d_head rows: W_Q, then W_K and
 * W_V of n_kv_heads heads each. d_head = d_model / n_heads. Weights, biases
 * and tables are referenced, not copied, and must stay unchanged.
 *
 * Memory: the _arena_size functions; plans carve everything at init. No heap.
 * A plan is used by one thread at a time.
 */
#ifndef EDGEATTN_DECODER_H_
#define EDGEATTN_DECODER_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/common.h"
#include "edgeattn/kv_cache.h"
#include "edgeattn/linear.h"
#include "edgeattn/mha.h"
#include "edgeattn/positions.h"
#include "edgeattn/quant.h"
#include "edgeattn/rope.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Dimensions > 0 (window, n_kv_heads >= 0). */
typedef struct ea_decoder_config {
  int32_t d_model;                  /* width of x and y */
  int32_t n_heads;                  /* query heads, dividing d_model */
  int32_t n_kv_heads;               /* 0: n_heads (plain MHA); else grouped-query heads,
                                       dividing n_heads (EA_ERR_HEADS_MISMATCH) */
  int32_t max_positions;            /* longest stream (tokens since reset); rows of the tables */
  int32_t max_step_tokens;          /* most tokens per step */
  int32_t window;                   /* 0: none; else as ea_kv_cache_config's */
  ea_kv_storage storage;            /* how the cache stores keys and values (kv_cache.h) */
  ea_position position;             /* absolute positions added to x */
  const float* position_table;      /* [max_positions, d_model]; SINUSOIDAL: NULL fills one */
  const float* rope_table;          /* NULL, or [max_positions, d_head] (ea_rope_table_fill) */
  ea_rope_layout rope_layout;       /* rope_table's channel pairs; read only with it */
  const float* alibi_slopes;        /* NULL, or n_heads slopes (ea_alibi_slopes_fill) */
  ea_weights_layout weights_layout; /* of in_proj_weight and out_proj_weight */
} ea_decoder_config;

/* Filled by ea_decoder_init; read `cache.length`, treat the rest as opaque. */
typedef struct ea_decoder {
  ea_decoder_config config;
  ea_mha_weights weights;
  const float* position_table; /* the caller's or the arena's, or NULL */
  const float* packed_in_proj;
  const float* packed_out_proj;
  float* x_positioned; /* [max_step_tokens, d_model] or NULL */
  float* qkv;          /* [max_step_tokens, (n_heads + 2 n_kv_heads) d_head] */
  float* q;            /* [max_step_tokens, n_heads d_head] */
  float* k;            /* [max_step_tokens, n_kv_heads d_head] */
  float* v;
  float* heads_out; /* [max_step_tokens, d_model] */
  ea_kv_cache cache;
  const void* carve; /* the plan's arena bytes */
  size_t carve_bytes;
  uint32_t ready;
} ea_decoder;

/* The cache's capacity is max_positions without a window and
 * window + max_step_tokens - 1 with one (past INT32_MAX:
 * EA_ERR_DIMENSION_OVERFLOW); its rules (kv_cache.h) give the same statuses
 * here. init validates the config before any arithmetic on it, and returns
 * the status _arena_size returns for it. d_model + 2 n_kv_heads d_head (the in_proj rows) past
 * EA_MAX_ELEMENTS: EA_ERR_DIMENSION_OVERFLOW; so is a position or RoPE table
 * of max_positions rows past it (without tables a stream, a windowed one,
 * may be longer). Tables must hold max_positions rows: the library cannot
 * check a pointer's extent. */
ea_status ea_decoder_arena_size(const ea_decoder_config* config, size_t* bytes);
/* Validates *config as ea_decoder_arena_size does (its statuses), carves that
 * many bytes (EA_ERR_ARENA_MISALIGNED, EA_ERR_ARENA_TOO_SMALL), fills a
 * SINUSOIDAL table there when position_table is NULL, and starts an empty
 * stream. NULL in_proj or out_proj weight: EA_ERR_NULL_POINTER; weights,
 * biases, tables or slopes inside the carved bytes: EA_ERR_BAD_ARGUMENT. */
ea_status ea_decoder_init(ea_decoder* decoder, const ea_decoder_config* config,
                          const ea_mha_weights* weights, ea_arena* arena);
/* Starts a new stream at position 0. */
ea_status ea_decoder_reset(ea_decoder* decoder);
/* x, y: [n_tokens, d_model], the next n_tokens tokens of the stream.
 * n_tokens in [1, max_step_tokens] (EA_ERR_BAD_DIMENSION); a stream longer than
 * max_positions: EA_ERR_CACHE_FULL. y may be x (or overlap it: x is read
 * before y is written); neither overlaps the plan's arena, the weights and
 * biases, or the tables and slopes (EA_ERR_BAD_ARGUMENT). On any error y and
 * the cache are not written. */
ea_status ea_decoder_step(ea_decoder* decoder, const float* x, int32_t n_tokens, float* y);

/* ------------------------------------------------ fixed-point decoder */

/* The fixed-point decoder: the layer of ea_mha_quant_run_s8 / _s16 with a
 * causal mask, one step at a time, its keys and values kept in the arena as
 * the chain's own integers instead of recomputed.
 *
 * Every op of TFLite's chain (edgeattn/quant.h) works on one token's
 * row at a time, except the scores and the softmax, whose causal row i sees
 * keys 0..i. A step of n tokens at positions p..p+n-1 therefore runs
 *
 *   x' = ADD(x, P[p..p+n-1])                   (with positions)
 *   q, k, v = FULLY_CONNECTED(x')              k and v go to the cache
 *   q, k = RoPE(q, k at p..p+n-1)              (with RoPE tables, below)
 *   per head, row i: BATCH_MATMUL(q_i, K[w..p+i]^T) -> SOFTMAX -> BATCH_MATMUL(probs, V)
 *   y = FULLY_CONNECTED(o)
 *
 * (w = 0, or with a sliding window w = max(0, p + i - window + 1)) with the
 * same integers, so a stream of steps gives, bit for bit and on every target,
 * the rows one causal ea_mha_quant_run_s8 / _s16 over the whole sequence
 * gives (with a window: the causal chain whose softmax row i sees keys
 * i - window + 1 .. i, the float decoder's window; ea_mha_quant has no
 * window, the project's integer reference is that chain). With grouped-query
 * heads (n_kv_heads < n_heads) k and v have kv_width = n_kv_heads * d_k
 * channels and query head h reads KV head h / (n_heads / n_kv_heads), as in
 * the float decoder (ea_mha_quant has no such heads; the reference chain
 * is the oracle). The cache holds K as [capacity, kv_width] rows (the full
 * run's k) and V transposed per KV head ([n_kv_heads, d_k, capacity]),
 * capacity = max_positions, or with a window min(max_positions, window +
 * max_step_tokens - 1) as a ring (position p at p % capacity): a step writes
 * them once, the score and P V loops of every query head of a group read them
 * in place. On x86 a decoder also keeps each KV head's K and V in the panels
 * of the AVX512-VNNI kernels (int8: 4-byte groups; int16: pairs; a step adds
 * its keys to them), which its attention reads on AVX3_DL; the rows serve
 * every other target, so a step may run on any target whatever the earlier
 * ones ran on.
 *
 * The config names the layer's fields as ea_decoder_config does; those it
 * shares with ea_mha_config (dtype, d_model, n_heads, position,
 * quant_position_table, quant_scales, quant_params) mean what they mean
 * there, with max_positions for ea_mha_config's max_tokens (the rows of the
 * position table), and are validated as ea_mha_quant_init validates them
 * (its statuses). A step runs on the calling thread.
 * The weights are ea_mha_quant_weights, referenced, not copied. With
 * grouped-query heads W_K and W_V have kv_width rows each: in_proj_weight
 * [d_model + 2 kv_width, d_model] (W_Q, W_K, W_V rows) and in_proj_bias
 * [d_model + 2 kv_width], or k_proj_weight / v_proj_weight [kv_width, d_model]
 * with biases [kv_width]; the same for the weights' per-channel scales
 * (in_proj_weight_scales [d_model + 2 kv_width], or k_proj_weight_scales /
 * v_proj_weight_scales [kv_width]) and for given integers (k_proj and v_proj:
 * kv_width channels; ea_decoder_quant_derive derives them).
 *
 * Memory: ea_decoder_quant_arena_size bytes (DecoderQuantArenaBytes
 * in edgeattn/arena_sizes.hpp); no heap. A decoder is used by one thread at a
 * time.
 */

typedef struct ea_decoder_quant_config {
  ea_dtype dtype;          /* EA_DTYPE_INT8 or EA_DTYPE_INT16 (else EA_ERR_BAD_ARGUMENT) */
  int32_t d_model;         /* width of x and y */
  int32_t n_heads;         /* dividing d_model (EA_ERR_HEADS_MISMATCH) */
  int32_t n_kv_heads;      /* 0: n_heads (plain MHA); else grouped-query
                              heads, dividing n_heads (EA_ERR_HEADS_MISMATCH;
                              < 0: EA_ERR_BAD_DIMENSION) */
  int32_t max_positions;   /* longest stream (positions since reset), in
                              [1, 65535] (more: EA_ERR_DIMENSION_OVERFLOW);
                              the rows of the position and RoPE tables */
  int32_t max_step_tokens; /* most tokens per step, in [1, max_positions]
                              (else EA_ERR_BAD_DIMENSION) */
  int32_t window;          /* 0: none; else a token sees the last `window`
                              positions, itself included (< 0:
                              EA_ERR_BAD_DIMENSION) */
  ea_position position;    /* absolute positions added to x, as ea_mha_config's */
  /* The quantized [max_positions, d_model] position table, as
   * ea_mha_config's quant_position_table (SINUSOIDAL: NULL fills one). */
  const void* quant_position_table;
  /* RoPE, as a quantized model's graph computes it (rope.h's fixed point):
   * q (every head) and k (every KV head) rotated after their projections,
   * position p with row p of the model's tables C and S, each
   * [max_positions, d_k] of the dtype; the scores then read the rotated
   * q and k. Both tables NULL: no RoPE (and rope_scales, rope_params NULL,
   * else EA_ERR_BAD_ARGUMENT); one NULL: EA_ERR_BAD_ARGUMENT. With tables,
   * d_k even (EA_ERR_BAD_DIMENSION), rope_layout EA_ROPE_HALF or
   * EA_ROPE_INTERLEAVED (EA_ERR_BAD_ARGUMENT), and
   *   - with quant_scales: rope_scales [2], q's then k's rotation,
   *     their x equal to quant_scales->q and ->k (EA_ERR_BAD_ARGUMENT; NULL:
   *     EA_ERR_NULL_POINTER); the scores' integers are derived from the
   *     rotated scales;
   *   - with quant_params: rope_params [2] (q's, k's; ranges as
   *     ea_rope_quant_apply_s8's; NULL: EA_ERR_NULL_POINTER), and
   *     quant_params->scores for the rotated tensors
   *     (ea_decoder_quant_derive gives them).
   * rope_scales is read only beside quant_scales, rope_params only beside
   * quant_params, rope_layout only with tables. The tables are aligned to
   * their elements (EA_ERR_BAD_ARGUMENT) and read at every step where they
   * are (kept by pointer, as the weights): outside the plan's arena bytes
   * (init: EA_ERR_BAD_ARGUMENT) and apart from a step's x and y (the step:
   * EA_ERR_BAD_ARGUMENT). */
  ea_rope_layout rope_layout;
  const void* rope_cos_table; /* C: NULL, or [max_positions, d_k] of the dtype */
  const void* rope_sin_table; /* S: as rope_cos_table */
  /* The chain's quantization, as ea_mha_config's: scales, or TFLite's
   * integers (used as given when non-NULL). */
  const ea_mha_quant_scales* quant_scales;
  const ea_mha_quant_params* quant_params; /* given integers, or NULL: from quant_scales */
  const ea_rope_quant_scales* rope_scales; /* RoPE with quant_scales: [2], else NULL */
  const ea_rope_quant_params* rope_params; /* RoPE with quant_params: [2], else NULL */
} ea_decoder_quant_config;

/* Filled by ea_decoder_quant_init; read `length`, treat the rest as opaque. */
typedef struct ea_decoder_quant {
  ea_decoder_quant_config config;
  ea_mha_config layer; /* the config as the MHA chain's steps read it */
  ea_mha_quant_weights weights;
  ea_mha_quant_params params;   /* per-channel arrays in the arena */
  ea_rope_quant_params rope[2]; /* q's and k's, with RoPE */
  const void* position_table;   /* quantized [max_positions, d_model] table or NULL */
  void* x_positioned;           /* [max_step_tokens, d_model] or NULL */
  void* q;                      /* [max_step_tokens, d_model] */
  void* v;                      /* [max_step_tokens, kv_width]: before the transpose */
  void* context;                /* [max_step_tokens, d_model] */
  void* keys;                   /* cache: [capacity, kv_width] */
  void* values_transposed;      /* cache: [n_kv_heads, d_k, capacity] */
  void* head_panels;            /* cache, x86: per KV head K and V packed, or NULL */
  void* weight_panels[4];       /* W_Q, W_K, W_V, W_O packed */
  void* softmax_table;          /* the softmax's tables */
  void* row_scratch;            /* one query block's scores and probabilities */
  const void* carve;            /* the plan's arena bytes */
  size_t carve_bytes;
  int64_t length; /* tokens stepped since init or reset */
  uint32_t ready;
} ea_decoder_quant;

/* Validation as ea_mha_quant_init's, plus the rules above. */
ea_status ea_decoder_quant_arena_size(const ea_decoder_quant_config* config, size_t* bytes);
/* ea_mha_quant_derive for a decoder's layer (config->quant_scales),
 * with W_K's and W_V's kv_width channels: fills *params, whose per-channel
 * arrays point into channel_ints (EA_MHA_QUANT_CHANNEL_INTS(d_model)
 * int32 are enough for any n_kv_heads; fewer: EA_ERR_ARENA_TOO_SMALL), for
 * a config whose quant_params is then set to them, e.g. to give the model's
 * int16 softmax tables. The config is validated as ea_decoder_quant_arena_size
 * validates it (its statuses), its quant_params ignored; then the scales as
 * ea_mha_quant_derive checks them (its statuses). With RoPE the scores'
 * integers are those of the rotated q and k (rope_scales); the rotations'
 * own integers come from ea_rope_quant_derive. On any refusal neither
 * *params nor channel_ints is written. */
ea_status ea_decoder_quant_derive(const ea_decoder_quant_config* config,
                                  ea_mha_quant_params* params, int32_t* channel_ints,
                                  size_t channel_int_count);
/* Validates *config as ea_decoder_quant_arena_size does and the weights as
 * ea_mha_quant_init does (their statuses; RoPE tables inside the carved
 * bytes: EA_ERR_BAD_ARGUMENT), carves the arena and starts an empty stream
 * (length 0). */
ea_status ea_decoder_quant_init(ea_decoder_quant* decoder, const ea_decoder_quant_config* config,
                                const ea_mha_quant_weights* weights, ea_arena* arena);
/* Starts a new stream at position 0 (the cache's bytes are not cleared). */
ea_status ea_decoder_quant_reset(ea_decoder_quant* decoder);
/* x, y: [n_tokens, d_model], the next n_tokens tokens of the stream.
 * n_tokens in [1, max_step_tokens] (EA_ERR_BAD_DIMENSION); a stream longer
 * than max_positions: EA_ERR_CACHE_FULL. y may be x (or overlap it: x is
 * read before y is written); neither overlaps the plan's arena, the weights
 * and biases, the position table, the softmax's int16 tables or the RoPE
 * tables (EA_ERR_BAD_ARGUMENT). _s8 steps
 * INT8 decoders, _s16 INT16 ones (the other: EA_ERR_BAD_ARGUMENT). On any
 * error y and the cache are not written. */
ea_status ea_decoder_quant_step_s8(ea_decoder_quant* decoder, const int8_t* x, int32_t n_tokens,
                                   int8_t* y);
/* The int16 twin of ea_decoder_quant_step_s8, for INT16 decoders. */
ea_status ea_decoder_quant_step_s16(ea_decoder_quant* decoder, const int16_t* x, int32_t n_tokens,
                                    int16_t* y);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_DECODER_H_ */
