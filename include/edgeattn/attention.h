/* edgeattn Attention(Q, K, V): softmax(scale Q K^T + mask) V on the caller's
 * Q, K and V, float32 and fixed point. */
#ifndef EDGEATTN_ATTENTION_H_
#define EDGEATTN_ATTENTION_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/common.h"
#include "edgeattn/quant.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fixed-point Attention(Q, K, V): the quantization of its tensors
 * (probabilities: edgeattn/quant.h), or TFLite's integers. */
typedef struct ea_attention_quant_scales {
  ea_quant q;      /* the run's q */
  ea_quant k;      /* the run's k */
  ea_quant v;      /* the run's v */
  ea_quant scores; /* q k^T, before the softmax */
  ea_quant output; /* the run's out */
} ea_attention_quant_scales;

/* Or the chain's TFLite integers (edgeattn/quant.h), as TFLite's Prepare
 * derives them from the scales. */
typedef struct ea_attention_quant_params {
  ea_matmul_quant_params scores;   /* q (lhs) times k^T (rhs) */
  ea_softmax_quant_params softmax; /* SOFTMAX of each row of scores, beta included */
  ea_matmul_quant_params context;  /* probs (lhs) times v (rhs) */
} ea_attention_quant_params;

/* out = softmax(scale * Q K^T + mask) V, Q: [n_q, d_k], K: [n_kv, d_k],
 * V: [n_kv, d_v], out: [n_q, d_v]. */
typedef struct ea_attention_config {
  ea_dtype dtype;           /* F32 (ea_attention_*) or INT8 / INT16 (ea_attention_quant_*) */
  int32_t n_q;              /* query rows, > 0 */
  int32_t n_kv;             /* key and value rows, > 0 */
  int32_t d_k;              /* query and key width, > 0 */
  int32_t d_v;              /* value and output width, > 0 */
  ea_mask mask;             /* EA_MASK_NONE or EA_MASK_CAUSAL */
  float scale;              /* 0: use 1/sqrt(d_k); fixed point: the softmax's beta */
  ea_parallel_for parallel; /* zero: single-threaded */
  /* Fixed-point dtypes only (NULL for F32): scales, or TFLite's integers
   * (used as given when non-NULL). */
  const ea_attention_quant_scales* quant_scales;
  const ea_attention_quant_params* quant_params; /* given integers, or NULL: from quant_scales */
} ea_attention_config;

/* Treat the fields of every plan as private: they may change in any release.
 * A plan that init did not complete is refused by run (EA_ERR_BAD_ARGUMENT),
 * provided it was zero-initialised (static storage, or `= {0}`). An init
 * that fails clears the plan's ready state first, so a struct that held a
 * ready plan is not runnable after a failed re-plan.
 * A plan refers to its arena regions: a copy of the struct shares them, so a
 * plan and its copy must not run at the same time. */
#define EA_PLAN_READY 0x45415031u /* "EAP1" */
/* A float Attention(Q, K, V) plan, filled by ea_attention_init; opaque. */
typedef struct ea_attention_plan {
  uint32_t ready; /* EA_PLAN_READY once init succeeded */
  ea_attention_config config;
  float scale;
  float* packed_keys; /* [d_k, n_kv rounded up to 64] arena region */
  float* score_tile;  /* [workers, 6, 256] arena region: one tile per worker */
} ea_attention_plan;

/* Validates a float *config (fixed point: EA_ERR_BAD_ARGUMENT) and writes the
 * arena bytes ea_attention_init carves into *bytes (AttentionArenaBytes in
 * edgeattn/arena_sizes.hpp). */
ea_status ea_attention_arena_size(const ea_attention_config* config, size_t* bytes);
/* Validates *config as ea_attention_arena_size does (its statuses), carves
 * that many bytes from the arena (EA_ERR_ARENA_MISALIGNED,
 * EA_ERR_ARENA_TOO_SMALL) and makes *plan ready for ea_attention_run. */
ea_status ea_attention_init(ea_attention_plan* plan, const ea_attention_config* config,
                            ea_arena* arena);
/* n_valid_keys in [0, n_kv]: keys from n_valid_keys on are padding (masked).
 * attn_weights: NULL, or [n_q, n_kv] to receive the softmax probabilities.
 * Rows with no visible key output 0 (and all-zero weights). A row whose
 * visible scaled scores include a NaN or +-inf (non-finite inputs, or a dot
 * product past FLT_MAX) outputs NaN across its output and weights rows. For
 * -inf this differs on purpose from PyTorch, which gives such a key weight 0:
 * masks are the mask argument and n_valid_keys, and a -inf score here is an
 * overflow to report, not a mask. NaN or inf in V reaches every row that sees
 * that key (0 * inf is NaN), even where the key's weight underflowed to 0.
 * Memory rules (EA_ERR_BAD_ARGUMENT otherwise, nothing written): out and
 * attn_weights overlap neither q, k, v, each other, nor the plan's arena
 * regions (the output rows are the running accumulator), and q, k, v lie
 * outside the plan's arena regions. */
ea_status ea_attention_run(const ea_attention_plan* plan, const float* q, const float* k,
                           const float* v, int32_t n_valid_keys, float* out, float* attn_weights);

/* Fixed-point Attention(Q, K, V) (dtype INT8 or INT16; arena size from
 * ea_attention_quant_arena_size): TFLite's BATCH_MATMUL(q, k^T) -> SOFTMAX ->
 * BATCH_MATMUL(probs, v), bit for bit. q [n_q, d_k], k [n_kv, d_k],
 * v [n_kv, d_v], out [n_q, d_v], attn_weights NULL or [n_q, n_kv]
 * probabilities. n_valid_keys in [0, n_kv] (EA_ERR_BAD_ARGUMENT outside):
 * keys from n_valid_keys on are padding. Each row's SOFTMAX runs over the keys
 * it sees (valid, and with the causal mask up to its diagonal); masked
 * probabilities are the zero probability (-128 / 0), as the BATCH_MATMUL
 * (probs, v) of a TFLite graph with a masked softmax reads them, so a row that
 * sees no key outputs the output's zero point (real 0). Memory rules as in
 * ea_attention_run. */
typedef struct ea_attention_quant_plan {
  uint32_t ready;
  ea_attention_config config;
  ea_attention_quant_params params;
  ea_quant_core core;
  const void* carve;
  size_t carve_bytes;
} ea_attention_quant_plan;

/* Each refuses a float config (EA_ERR_BAD_ARGUMENT), as ea_attention_arena_size
 * and ea_attention_init refuse a fixed-point one. init: the softmax's int16
 * tables of quant_params (if given) lie outside the bytes it carves. Runs:
 * the memory rules of ea_attention_run, and out and attn_weights keep off
 * those tables too. */
ea_status ea_attention_quant_arena_size(const ea_attention_config* config, size_t* bytes);
/* Validates *config and its quantization as ea_attention_quant_arena_size
 * does (integers derived from quant_scales unless quant_params is given),
 * carves the arena and makes *plan ready for the run of its dtype. */
ea_status ea_attention_quant_init(ea_attention_quant_plan* plan, const ea_attention_config* config,
                                  ea_arena* arena);
/* Runs an INT8 plan on int8 q, k and v (an INT16 plan: EA_ERR_BAD_ARGUMENT). */
ea_status ea_attention_quant_run_s8(const ea_attention_quant_plan* plan, const int8_t* q,
                                    const int8_t* k, const int8_t* v, int32_t n_valid_keys,
                                    int8_t* out, int8_t* attn_weights);
/* The int16 twin of ea_attention_quant_run_s8, for INT16 plans. */
ea_status ea_attention_quant_run_s16(const ea_attention_quant_plan* plan, const int16_t* q,
                                     const int16_t* k, const int16_t* v, int32_t n_valid_keys,
                                     int16_t* out, int16_t* attn_weights);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_ATTENTION_H_ */
