/* edgeattn fixed-point MHA decode: the layer of ea_mha_run_s8 / _s16 with a
 * causal mask, one step at a time, its keys and values kept in the arena as
 * the chain's own integers instead of recomputed.
 *
 * Every op of TFLite's chain (edgeattn.h, "fixed point") works on one token's
 * row at a time, except the scores and the softmax, whose causal row i sees
 * keys 0..i. A step of n tokens at positions p..p+n-1 therefore runs
 *
 *   x' = ADD(x, P[p..p+n-1])                   (with positions)
 *   q, k, v = FULLY_CONNECTED(x')              k and v go to the cache
 *   per head, row i: BATCH_MATMUL(q_i, K[0..p+i]^T) -> SOFTMAX -> BATCH_MATMUL(probs, V)
 *   y = FULLY_CONNECTED(o)
 *
 * with the same integers, so a stream of steps gives, bit for bit and on every
 * target, the rows one causal ea_mha_run_s8 / _s16 over the whole sequence
 * gives. The cache holds K as [max positions, d_model] rows (the full run's
 * k, ld d_model) and V transposed per head ([heads, d_k, max positions]): a
 * step writes them once, the score and P V loops read them in place. On x86
 * a decoder also keeps each head's K and V in the panels of the AVX512-VNNI
 * kernels (int8: 4-byte groups; int16: pairs; a step adds its keys to them),
 * which its attention reads on AVX3_DL; the rows serve every other target,
 * so a step may run on any target whatever the earlier ones ran on.
 *
 * The layer is an ea_mha_config, the one ea_mha_quant_plan_init takes, with
 *   - dtype EA_DTYPE_INT8 or EA_DTYPE_INT16 and mask EA_MASK_CAUSAL (others:
 *     EA_ERR_BAD_ARGUMENT);
 *   - max_tokens the longest stream (positions since reset, up to 65535),
 *     and so the rows of quant_position_table;
 *   - parallel unused: a step runs on the calling thread.
 * Its weights are ea_mha_quant_weights, referenced, not copied.
 *
 * Memory: ea_mha_quant_decoder_arena_size bytes (MhaQuantDecoderArenaBytes
 * in edgeattn/arena_sizes.hpp); no heap. A decoder is used by one thread at a
 * time.
 */
#ifndef EDGEATTN_MHA_QUANT_DECODE_H_
#define EDGEATTN_MHA_QUANT_DECODE_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ea_mha_quant_decoder_config {
  ea_mha_config layer;     /* as above */
  int32_t max_step_tokens; /* most tokens per step, in [1, layer.max_tokens] */
} ea_mha_quant_decoder_config;

/* Filled by ea_mha_quant_decoder_init; read `length`, treat the rest as opaque. */
typedef struct ea_mha_quant_decoder {
  ea_mha_quant_decoder_config config;
  ea_mha_quant_weights weights;
  ea_mha_quant_params params; /* per-channel arrays in the arena */
  const void* position_table; /* quantized [max_tokens, d_model] table or NULL */
  void* x_positioned;         /* [max_step_tokens, d_model] or NULL */
  void* q;                    /* [max_step_tokens, d_model] */
  void* v;                    /* [max_step_tokens, d_model]: before the transpose */
  void* context;              /* [max_step_tokens, d_model] */
  void* keys;                 /* cache: [max_tokens, d_model] */
  void* values_transposed;    /* cache: [heads, d_k, max_tokens] */
  void* head_panels;          /* cache, x86: per head K and V packed, or NULL */
  void* weight_panels[4];     /* W_Q, W_K, W_V, W_O packed */
  void* softmax_table;        /* int8: the softmax's table */
  void* row_scratch;          /* one query block's scores and probabilities */
  const void* carve;          /* the plan's arena bytes */
  size_t carve_bytes;
  int64_t length; /* tokens stepped since init or reset */
  uint32_t ready;
} ea_mha_quant_decoder;

/* Validation as ea_mha_quant_plan_init's, plus the rules above. */
ea_status ea_mha_quant_decoder_arena_size(const ea_mha_quant_decoder_config* config, size_t* bytes);
ea_status ea_mha_quant_decoder_init(ea_mha_quant_decoder* decoder,
                                    const ea_mha_quant_decoder_config* config,
                                    const ea_mha_quant_weights* weights, ea_arena* arena);
/* Starts a new stream at position 0 (the cache's bytes are not cleared). */
ea_status ea_mha_quant_decoder_reset(ea_mha_quant_decoder* decoder);
/* x, y: [n_tokens, d_model], the next n_tokens tokens of the stream.
 * n_tokens in [1, max_step_tokens] (EA_ERR_BAD_DIMENSION); a stream longer
 * than layer.max_tokens: EA_ERR_CACHE_FULL. y may be x (or overlap it: x is
 * read before y is written); neither overlaps the plan's arena, the weights
 * and biases, or the position table (EA_ERR_BAD_ARGUMENT). _s8 steps
 * INT8 decoders, _s16 INT16 ones (the other: EA_ERR_BAD_ARGUMENT). On any
 * error y and the cache are not written. */
ea_status ea_mha_quant_decoder_step_s8(ea_mha_quant_decoder* decoder, const int8_t* x,
                                       int32_t n_tokens, int8_t* y);
ea_status ea_mha_quant_decoder_step_s16(ea_mha_quant_decoder* decoder, const int16_t* x,
                                        int32_t n_tokens, int16_t* y);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_MHA_QUANT_DECODE_H_ */
