/* edgeattn multi-head attention: Concat(head_1..head_h) W_O^T, in PyTorch
 * nn.MultiheadAttention's weight layout, float32 and fixed point. */
#ifndef EDGEATTN_MHA_H_
#define EDGEATTN_MHA_H_

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

/* The quantization of every tensor of the MHA chain, as a TFLite model
 * stores it. int16 zero points must be 0. */
typedef struct ea_mha_quant_scales {
  ea_quant input;                     /* x_emb: the run's x */
  ea_quant position;                  /* the quantized position table (ignored without positions) */
  ea_quant positioned;                /* ADD(x_emb, P) (ignored without positions) */
  ea_quant q;                         /* the Q projection, x' W_Q^T + b_Q */
  ea_quant k;                         /* the K projection */
  ea_quant v;                         /* the V projection */
  ea_quant scores;                    /* q_h k_h^T, before the softmax */
  ea_quant context;                   /* o: the heads' outputs, concatenated */
  ea_quant output;                    /* y */
  const float* in_proj_weight_scales; /* [3*d_model], one per in_proj row */
  const float* out_proj_weight_scales; /* [d_model] */
  /* Or W_Q's, W_K's and W_V's per-channel scales as three arrays, as a TFLite
   * model's three FULLY_CONNECTED ops hold them ([d_model] each). Give either
   * in_proj_weight_scales or all three (both: EA_ERR_BAD_ARGUMENT; neither, or
   * one of the three missing: EA_ERR_NULL_POINTER). This form is independent
   * of the weights' (ea_mha_quant_weights). */
  const float* q_proj_weight_scales;
  const float* k_proj_weight_scales; /* W_K's, [d_model] */
  const float* v_proj_weight_scales; /* W_V's, [d_model] */
  /* The softmax's beta: SOFTMAX(beta * scores). 0 means 1/sqrt(d_k), the
   * textbook scaling; a model whose scores are scaled before the softmax
   * (Keras exports: beta 1) gives its own. Positive and finite, else
   * EA_ERR_BAD_ARGUMENT. Given integers (quant_params) carry beta in
   * softmax.input_multiplier already. */
  float softmax_beta;
} ea_mha_quant_scales;

/* Or the chain's TFLite integers, as ea_mha_quant_derive fills them from
 * ea_mha_quant_scales. */
typedef struct ea_mha_quant_params {
  ea_add_quant_params add;         /* ignored without positions */
  ea_linear_quant_params q_proj;   /* d_model channels each */
  ea_linear_quant_params k_proj;   /* d_model channels */
  ea_linear_quant_params v_proj;   /* d_model channels */
  ea_matmul_quant_params scores;   /* q_h (lhs) times k_h^T (rhs) */
  ea_softmax_quant_params softmax; /* SOFTMAX(beta * scores), beta included */
  ea_matmul_quant_params context;  /* probs (lhs) times v_h (rhs) */
  ea_linear_quant_params out_proj; /* W_O: d_model channels */
  /* The quantization of a SINUSOIDAL table the plan fills (no
   * quant_position_table): TFLite's QUANTIZE to this scale and zero point,
   * so that given integers need no quant_scales (ea_mha_quant_derive copies
   * quant_scales->position here when the config has positions). All bytes
   * zero ({0.0f, 0}, as a struct written before this field has it): not
   * given, quant_scales->position is used. Else, -0.0f included, it must be
   * valid as a quant_scales entry (EA_ERR_BAD_ARGUMENT otherwise, also from
   * ea_mha_quant_arena_size). Ignored without such a table. */
  ea_quant position;
} ea_mha_quant_params;

/* Per-channel storage ea_mha_quant_derive needs: 8 * d_model int32 (a size_t). */
#define EA_MHA_QUANT_CHANNEL_INTS(d_model) ((size_t)8 * (size_t)(d_model))

/* MHA(X) = Concat(head_1..head_h) W_O^T + b_O, head_i = Attention on columns
 * i*d_k..(i+1)*d_k-1 of the Q, K, V projections, d_k = d_model / heads.
 * Weights use PyTorch nn.MultiheadAttention's layout exactly, so a state_dict
 * loads without reshuffling: in_proj_weight [3*d_model, d_model] (rows: W_Q,
 * then W_K, then W_V), in_proj_bias [3*d_model], out_proj.weight
 * [d_model, d_model], out_proj.bias [d_model]. */
typedef struct ea_mha_config {
  ea_dtype dtype;                   /* F32 (ea_mha_*) or INT8 / INT16 (ea_mha_quant_*) */
  int32_t max_tokens;               /* n: a run may use any 1..max_tokens */
  int32_t d_model;                  /* model width, > 0 */
  int32_t n_heads;                  /* heads, dividing d_model (EA_ERR_HEADS_MISMATCH) */
  ea_mask mask;                     /* EA_MASK_NONE or EA_MASK_CAUSAL */
  ea_position position;             /* absolute positions added to x, or EA_POSITION_NONE */
  const float* position_table;      /* as in ea_self_attention_config */
  ea_weights_layout weights_layout; /* of in_proj_weight and out_proj_weight */
  ea_parallel_for parallel;         /* zero: single-threaded */
  /* Fixed-point dtypes only (NULL for F32): the chain's quantization, as
   * scales or as TFLite's integers (used as given when non-NULL). */
  const ea_mha_quant_scales* quant_scales;
  const ea_mha_quant_params* quant_params; /* given integers, or NULL: from quant_scales */
  /* Fixed point with positions: the quantized [max_tokens, d_model] table
   * (int8 or int16, e.g. constant data). LEARNED: required. SINUSOIDAL: NULL
   * to fill the table at plan time and quantize it (TFLite's QUANTIZE) with
   * quant_params->position, or quant_scales->position where that is not
   * given. position_table is not read by fixed-point plans. */
  const void* quant_position_table;
} ea_mha_config;

/* PACKED: in_proj_weight is the packing of the whole [3*d_model, d_model]
 * matrix, out_proj_weight that of [d_model, d_model]. */
typedef struct ea_mha_weights {
  const float* in_proj_weight;  /* [3*d_model, d_model] */
  const float* in_proj_bias;    /* [3*d_model] or NULL */
  const float* out_proj_weight; /* [d_model, d_model] */
  const float* out_proj_bias;   /* [d_model] or NULL */
  /* Or W_Q, W_K and W_V as three tensors, as a TFLite model's three
   * FULLY_CONNECTED ops or a Hugging Face checkpoint's q_proj, k_proj and
   * v_proj hold them, read in place: no concatenated copy. Init packs them
   * into the arena exactly as the one matrix (same arena size, same results
   * bit for bit), so this form needs EA_WEIGHTS_ROW_MAJOR (with
   * EA_WEIGHTS_PACKED: EA_ERR_BAD_ARGUMENT; pack the concatenated matrix
   * instead). Give in_proj_weight or all three weights (both:
   * EA_ERR_BAD_ARGUMENT; neither, or one of the three missing:
   * EA_ERR_NULL_POINTER), and in_proj_bias or the three biases (each may be
   * NULL; in_proj_bias beside any of them: EA_ERR_BAD_ARGUMENT). The two
   * choices are independent: PyTorch nn.MultiheadAttention with kdim/vdim
   * saves q/k/v_proj_weight with one in_proj_bias. kv below is d_model, or
   * n_kv_heads * d_model / n_heads where a config has n_kv_heads (GQA). */
  const float* q_proj_weight; /* [d_model, d_model] */
  const float* k_proj_weight; /* [kv, d_model] */
  const float* v_proj_weight; /* [kv, d_model] */
  const float* q_proj_bias;   /* [d_model] or NULL */
  const float* k_proj_bias;   /* [kv] or NULL */
  const float* v_proj_bias;   /* [kv] or NULL */
} ea_mha_weights;

/* A float MHA plan, filled by ea_mha_init; opaque. */
typedef struct ea_mha_plan {
  uint32_t ready;
  ea_mha_config config;
  ea_mha_weights weights;
  const float* position_table;
  const float* packed_in_proj; /* packed weights: arena regions or the caller's */
  const float* packed_out_proj;
  float* x_positioned; /* [n, d_model] or NULL */
  float* qkv;          /* [n, 3*d_model]: Q, K, V; head h in columns h*d_k.. of each */
  float* heads_concat; /* [n, d_model] */
  ea_attention_plan core;
} ea_mha_plan;

/* Validates a float *config (fixed point: EA_ERR_BAD_ARGUMENT) and writes the
 * arena bytes ea_mha_init carves into *bytes (MhaArenaBytes in
 * edgeattn/arena_sizes.hpp). */
ea_status ea_mha_arena_size(const ea_mha_config* config, size_t* bytes);
/* Weights as in ea_self_attention_init. */
ea_status ea_mha_init(ea_mha_plan* plan, const ea_mha_config* config, const ea_mha_weights* weights,
                      ea_arena* arena);
/* x, y: [n_tokens, d_model]; attn_weights: NULL or [heads, n_tokens, n_tokens]
 * (per head; PyTorch's average_attn_weights=False).
 * Memory rules as in ea_self_attention_run. */
ea_status ea_mha_run(const ea_mha_plan* plan, const float* x, int32_t n_tokens,
                     int32_t n_valid_keys, float* y, float* attn_weights);

/* Fixed-point MHA: weights in TFLite FULLY_CONNECTED / PyTorch layout,
 * int8, symmetric per output channel (scales in ea_mha_quant_scales). */
typedef struct ea_mha_quant_weights {
  const int8_t* in_proj_weight;  /* [3*d_model, d_model]: W_Q, W_K, W_V rows */
  const void* in_proj_bias;      /* [3*d_model] int32 (INT8) / int64 (INT16), or NULL */
  const int8_t* out_proj_weight; /* [d_model, d_model] */
  const void* out_proj_bias;     /* [d_model], as in_proj_bias */
  /* Or W_Q, W_K and W_V as three tensors, as a TFLite model's three
   * FULLY_CONNECTED ops hold them ([d_model, d_model] each, anywhere, e.g. in
   * flash), read in place like in_proj_weight: no copy into one matrix. The
   * rules are ea_mha_weights': in_proj_weight or all three weights (both:
   * EA_ERR_BAD_ARGUMENT; neither, or one of the three missing:
   * EA_ERR_NULL_POINTER), and in_proj_bias or the three biases (each may be
   * NULL; in_proj_bias beside any of them: EA_ERR_BAD_ARGUMENT), the two
   * choices independent. */
  const int8_t* q_proj_weight;
  const int8_t* k_proj_weight; /* [d_model, d_model] */
  const int8_t* v_proj_weight; /* [d_model, d_model] */
  const void* q_proj_bias;     /* [d_model] int32 (INT8) / int64 (INT16), or NULL */
  const void* k_proj_bias;     /* [d_model], as q_proj_bias */
  const void* v_proj_bias;     /* [d_model], as q_proj_bias */
} ea_mha_quant_weights;

/* A fixed-point MHA plan, filled by ea_mha_quant_init; opaque. */
typedef struct ea_mha_quant_plan {
  uint32_t ready;
  ea_mha_config config;
  ea_mha_quant_weights weights;
  ea_mha_quant_params params; /* per-channel arrays in the arena */
  const void* position_table; /* quantized table or NULL */
  void* q; /* [n, d_k] each, one head's (microcontrollers, Arm), or [n, d_model] (x86) */
  void* k;
  void* v;
  void* context;          /* [n, d_model] */
  void* weight_panels[4]; /* W_Q, W_K, W_V, W_O packed */
  ea_quant_core core;     /* heads run one after another */
  const void* carve;      /* the plan's arena bytes */
  size_t carve_bytes;
} ea_mha_quant_plan;

/* TFLite's Prepare on config->quant_scales: fills *params, whose per-channel
 * arrays point into channel_ints (EA_MHA_QUANT_CHANNEL_INTS(d_model) int32;
 * fewer: EA_ERR_ARENA_TOO_SMALL). EA_ERR_BAD_ARGUMENT for a scale that is not
 * positive and finite, a zero point out of range (int8: [-128, 127]; int16:
 * 0), or derived integers outside the ranges above (e.g. an int16 shift
 * above 7). On any refusal neither *params nor channel_ints is written. */
ea_status ea_mha_quant_derive(const ea_mha_config* config, ea_mha_quant_params* params,
                              int32_t* channel_ints, size_t channel_int_count);

/* Fixed-point configs only (a float one: EA_ERR_BAD_ARGUMENT, as
 * ea_mha_arena_size and ea_mha_init refuse fixed point). */
ea_status ea_mha_quant_arena_size(const ea_mha_config* config, size_t* bytes);

/* config->dtype INT8 or INT16, max_tokens up to 65535 (the int16 softmax's
 * int32 sum; EA_ERR_DIMENSION_OVERFLOW above). Biases and weights are
 * referenced, not copied; int16 biases must lie in (-2^47, 2^47), TFLite's
 * accumulator domain, and biases and quant_position_table must be aligned to
 * their elements (int32 / int64 biases, int8 / int16 table; both
 * EA_ERR_BAD_ARGUMENT). A SINUSOIDAL table filled at plan time needs its
 * quantization: quant_params->position, else quant_scales->position
 * (EA_ERR_NULL_POINTER with neither). */
ea_status ea_mha_quant_init(ea_mha_quant_plan* plan, const ea_mha_config* config,
                            const ea_mha_quant_weights* weights, ea_arena* arena);

/* x, y: [n_tokens, d_model]; attn_weights: NULL or [heads, n_tokens, n_tokens]
 * probabilities (masked entries at the zero probability: -128 / 0; more than
 * EA_MAX_ELEMENTS of them: EA_ERR_DIMENSION_OVERFLOW). n_valid_keys in
 * [0, n_tokens] (EA_ERR_BAD_ARGUMENT outside), padding as in
 * ea_attention_quant_run_s8: every head's softmax skips keys from n_valid_keys
 * on, and a row with no key gives the context's zero point. Memory rules as in
 * ea_self_attention_run (y may be x; the softmax's int16 tables of
 * quant_params, if given, kept as the weights are), and: y that is not x
 * does not overlap it, nor does attn_weights (the run keeps ADD(x, P) in y
 * and reads x until the last head; EA_ERR_BAD_ARGUMENT, nothing written). ea_mha_quant_run_s8 runs
 * INT8 plans, _s16 INT16 ones (the other gets EA_ERR_BAD_ARGUMENT). */
ea_status ea_mha_quant_run_s8(const ea_mha_quant_plan* plan, const int8_t* x, int32_t n_tokens,
                              int32_t n_valid_keys, int8_t* y, int8_t* attn_weights);
/* The int16 twin of ea_mha_quant_run_s8, for INT16 plans. */
ea_status ea_mha_quant_run_s16(const ea_mha_quant_plan* plan, const int16_t* x, int32_t n_tokens,
                               int32_t n_valid_keys, int16_t* y, int16_t* attn_weights);

/* The intermediate tensors of one fixed-point MHA run, as TFLite's op chain
 * holds them, for comparing a layer with a model's tensors one by one
 * instead of composing lower-level calls. Each pointer is NULL (not
 * written) or a buffer of the plan's dtype (int8_t for INT8 plans, int16_t
 * for INT16) and quantization; head h owns columns h d_k .. (h + 1) d_k - 1
 * of q, k, v and context, as the FULLY_CONNECTED outputs do. */
typedef struct ea_mha_quant_taps {
  void* positioned; /* [n_tokens, d_model]: ADD(x, P) (x itself without positions) */
  void* q;          /* [n_tokens, d_model]: FULLY_CONNECTED(positioned, W_Q) */
  void* k;          /* [n_tokens, d_model] */
  void* v;          /* [n_tokens, d_model] */
  /* [n_heads, n_tokens, n_tokens]: BATCH_MATMUL(q_h, k_h^T), the softmax's
   * input. Keys a row does not see (causal mask, padding) hold the dtype's
   * minimum: TFLite's BATCH_MATMUL scores them, but no softmax reads them. */
  void* scores;
  void* probs;   /* [n_heads, n_tokens, n_tokens]: SOFTMAX, as run's attn_weights */
  void* context; /* [n_tokens, d_model]: every head's BATCH_MATMUL(probs_h, v_h), W_O's input */
} ea_mha_quant_taps;

/* ea_mha_quant_run_s8 (its statuses and rules) that also writes the
 * intermediates *taps asks for; taps NULL is the run alone. y and the
 * probabilities are the run's, bit for bit: the taps are copies of what it
 * computes (scores and probs are n_heads n_tokens^2 elements: past
 * EA_MAX_ELEMENTS EA_ERR_DIMENSION_OVERFLOW). Each tap overlaps neither x,
 * y, another tap, the weights and tables nor the plan's arena
 * (EA_ERR_BAD_ARGUMENT, nothing written). For debugging: the copies cost
 * time a run does not spend. */
ea_status ea_mha_quant_trace_s8(const ea_mha_quant_plan* plan, const int8_t* x, int32_t n_tokens,
                                int32_t n_valid_keys, int8_t* y, const ea_mha_quant_taps* taps);
/* The int16 twin of ea_mha_quant_trace_s8, for INT16 plans. */
ea_status ea_mha_quant_trace_s16(const ea_mha_quant_plan* plan, const int16_t* x, int32_t n_tokens,
                                 int32_t n_valid_keys, int16_t* y, const ea_mha_quant_taps* taps);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_MHA_H_ */
