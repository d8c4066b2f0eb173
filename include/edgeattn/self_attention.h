/* edgeattn single-head self-attention: Y = Attention(X W_Q^T, X W_K^T,
 * X W_V^T) with positions added to X, float32 and fixed point. */
#ifndef EDGEATTN_SELF_ATTENTION_H_
#define EDGEATTN_SELF_ATTENTION_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/attention.h"
#include "edgeattn/common.h"
#include "edgeattn/linear.h"
#include "edgeattn/positions.h"
#include "edgeattn/quant.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fixed-point single-head self-attention: MHA's chain for one head of d_k
 * query/key and d_v value channels, without W_O (y is the context). */
typedef struct ea_self_attention_quant_scales {
  ea_quant input;          /* x_emb: the run's x */
  ea_quant position;       /* the quantized position table (ignored without positions) */
  ea_quant positioned;     /* ADD(x_emb, P) (ignored without positions) */
  ea_quant q;              /* q = x' W_Q^T + b_Q */
  ea_quant k;              /* k = x' W_K^T + b_K */
  ea_quant v;              /* v = x' W_V^T + b_V */
  ea_quant scores;         /* q k^T, before the softmax */
  ea_quant output;         /* y = probs v */
  const float* w_q_scales; /* [d_k], one per row of w_q */
  const float* w_k_scales; /* [d_k] */
  const float* w_v_scales; /* [d_v] */
  /* The softmax's beta, as ea_mha_quant_scales.softmax_beta (0: 1/sqrt(d_k)). */
  float softmax_beta;
} ea_self_attention_quant_scales;

/* Or the chain's TFLite integers, as ea_self_attention_quant_derive fills
 * them. */
typedef struct ea_self_attention_quant_params {
  ea_add_quant_params add;             /* ignored without positions */
  ea_linear_quant_params q_proj;       /* d_k channels */
  ea_linear_quant_params k_proj;       /* d_k channels */
  ea_linear_quant_params v_proj;       /* d_v channels */
  ea_attention_quant_params attention; /* scores, softmax, context */
  ea_quant position; /* a plan-time table's quantization, as ea_mha_quant_params' */
} ea_self_attention_quant_params;

/* And ea_self_attention_quant_derive: 2 * (2 * d_k + d_v) int32. */
#define EA_SELF_ATTENTION_QUANT_CHANNEL_INTS(d_k, d_v) \
  ((size_t)2 * ((size_t)2 * (size_t)(d_k) + (size_t)(d_v)))

/* Y = Attention(X' W_Q^T + b_Q, X' W_K^T + b_K, X' W_V^T + b_V), X' = X + P. */
typedef struct ea_self_attention_config {
  ea_dtype dtype;       /* F32 (ea_self_attention_*) or INT8 / INT16 (_quant_) */
  int32_t max_tokens;   /* n: a run may use any 1..max_tokens */
  int32_t d_model;      /* width of x, > 0 */
  int32_t d_k;          /* query and key width, > 0 */
  int32_t d_v;          /* value width, and y's, > 0 */
  ea_mask mask;         /* EA_MASK_NONE or EA_MASK_CAUSAL */
  ea_position position; /* absolute positions added to x, or EA_POSITION_NONE */
  /* SINUSOIDAL: NULL to fill a table into the arena at plan time, or a
   * precomputed [max_tokens, d_model] table (e.g. edgeattn::SinusoidalTable in
   * flash). LEARNED: the caller's table, required. NONE: ignored. */
  const float* position_table;
  ea_weights_layout weights_layout; /* of w_q, w_k, w_v */
  ea_parallel_for parallel;         /* zero: single-threaded */
  /* Fixed-point dtypes only, as in ea_mha_config (NULL for F32). */
  const ea_self_attention_quant_scales* quant_scales;
  const ea_self_attention_quant_params*
      quant_params;                 /* given integers, or NULL: from quant_scales */
  const void* quant_position_table; /* quantized table, as ea_mha_config's */
} ea_self_attention_config;

/* ROW_MAJOR: w_q [d_k, d_model], w_k [d_k, d_model], w_v [d_v, d_model].
 * PACKED: each packed by ea_linear_pack_weights with the same shape. */
typedef struct ea_self_attention_weights {
  const float* w_q; /* [d_k, d_model] */
  const float* w_k; /* [d_k, d_model] */
  const float* w_v; /* [d_v, d_model] */
  const float* b_q; /* [d_k] or NULL */
  const float* b_k; /* [d_k] or NULL */
  const float* b_v; /* [d_v] or NULL */
} ea_self_attention_weights;

/* A float self-attention plan, filled by ea_self_attention_init; opaque. */
typedef struct ea_self_attention_plan {
  uint32_t ready;
  ea_self_attention_config config;
  ea_self_attention_weights weights;
  const float* position_table; /* resolved table or NULL */
  const float* packed_w_q;     /* packed weights: arena regions or the caller's */
  const float* packed_w_k;
  const float* packed_w_v;
  float* x_positioned;    /* [n, d_model] or NULL without positions */
  float* q;               /* [n, d_k] */
  float* k;               /* [n, d_k] */
  float* v;               /* [n, d_v] */
  ea_attention_plan core; /* planned for max_tokens x max_tokens */
} ea_self_attention_plan;

/* Validates a float *config (fixed point: EA_ERR_BAD_ARGUMENT) and writes the
 * arena bytes ea_self_attention_init carves into *bytes
 * (SelfAttentionArenaBytes in edgeattn/arena_sizes.hpp). */
ea_status ea_self_attention_arena_size(const ea_self_attention_config* config, size_t* bytes);
/* Biases and PACKED weights are referenced, not copied: they must outlive the
 * plan. ROW_MAJOR weights are read once, packed into the arena. */
ea_status ea_self_attention_init(ea_self_attention_plan* plan,
                                 const ea_self_attention_config* config,
                                 const ea_self_attention_weights* weights, ea_arena* arena);
/* x: [n_tokens, d_model]; y: [n_tokens, d_v]; attn_weights: NULL or [n_tokens, n_tokens].
 * n_valid_keys in [0, n_tokens] (key padding; pass n_tokens for none).
 * Memory rules (EA_ERR_BAD_ARGUMENT otherwise, nothing written): y may be x
 * (in place); y and attn_weights overlap neither each other, the weights and
 * biases, the position table, nor the plan's arena regions; x lies outside
 * the plan's arena regions. */
ea_status ea_self_attention_run(const ea_self_attention_plan* plan, const float* x,
                                int32_t n_tokens, int32_t n_valid_keys, float* y,
                                float* attn_weights);

/* Fixed-point self-attention (INT8 or INT16, as fixed-point MHA): int8
 * weights in TFLite FULLY_CONNECTED layout, symmetric per output channel.
 * weights_layout and position_table are not read. */
typedef struct ea_self_attention_quant_weights {
  const int8_t* w_q; /* [d_k, d_model] */
  const int8_t* w_k; /* [d_k, d_model] */
  const int8_t* w_v; /* [d_v, d_model] */
  const void* b_q;   /* [d_k] int32 (INT8) / int64 (INT16), or NULL */
  const void* b_k;   /* [d_k], as b_q */
  const void* b_v;   /* [d_v], as b_q */
} ea_self_attention_quant_weights;

/* A fixed-point self-attention plan, filled by ea_self_attention_quant_init;
 * opaque. */
typedef struct ea_self_attention_quant_plan {
  uint32_t ready;
  ea_self_attention_config config;
  ea_self_attention_quant_weights weights;
  ea_self_attention_quant_params params; /* per-channel arrays in the arena */
  const void* position_table;            /* quantized table or NULL */
  void* x_positioned;                    /* [n, d_model] or NULL */
  void* q;                               /* [n, d_k] */
  void* k;                               /* [n, d_k] */
  void* v;                               /* [n, d_v] */
  void* weight_panels[3];                /* W_Q, W_K, W_V packed */
  ea_quant_core core;
  const void* carve; /* the plan's arena bytes */
  size_t carve_bytes;
} ea_self_attention_quant_plan;

/* TFLite's Prepare on config->quant_scales, as ea_mha_quant_derive
 * (channel_ints: EA_SELF_ATTENTION_QUANT_CHANNEL_INTS(d_k, d_v) int32). */
ea_status ea_self_attention_quant_derive(const ea_self_attention_config* config,
                                         ea_self_attention_quant_params* params,
                                         int32_t* channel_ints, size_t channel_int_count);
/* As ea_mha_quant_arena_size and ea_mha_quant_init. */
ea_status ea_self_attention_quant_arena_size(const ea_self_attention_config* config, size_t* bytes);
/* Validates as ea_self_attention_quant_arena_size does, with the weight, bias
 * and table rules of ea_mha_quant_init (w_q, w_k, w_v required), carves the
 * arena and makes *plan ready for the run of its dtype. */
ea_status ea_self_attention_quant_init(ea_self_attention_quant_plan* plan,
                                       const ea_self_attention_config* config,
                                       const ea_self_attention_quant_weights* weights,
                                       ea_arena* arena);
/* x: [n_tokens, d_model]; y: [n_tokens, d_v]; attn_weights: NULL or
 * [n_tokens, n_tokens] probabilities (masked: the zero probability).
 * n_valid_keys in [0, n_tokens], padding as in ea_attention_quant_run_s8. Memory
 * rules as in ea_self_attention_run (y may be x), the softmax's int16 tables
 * of quant_params (if given) kept as the weights are. */
ea_status ea_self_attention_quant_run_s8(const ea_self_attention_quant_plan* plan, const int8_t* x,
                                         int32_t n_tokens, int32_t n_valid_keys, int8_t* y,
                                         int8_t* attn_weights);
/* The int16 twin of ea_self_attention_quant_run_s8, for INT16 plans. */
ea_status ea_self_attention_quant_run_s16(const ea_self_attention_quant_plan* plan,
                                          const int16_t* x, int32_t n_tokens, int32_t n_valid_keys,
                                          int16_t* y, int16_t* attn_weights);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_SELF_ATTENTION_H_ */
