/* Rotary position embedding (RoPE, Su et al. 2021), applied to queries and
 * keys before they meet: the score of query position m and key position n
 * then depends on m - n only.
 *
 * For each head of d_head channels (d_head even), pair p = (a, b) of channels
 * is rotated by the angle theta_i = position * base^(-2i / d_head):
 *   a' = a cos(theta_i) - b sin(theta_i),  b' = a sin(theta_i) + b cos(theta_i).
 * EA_ROPE_HALF pairs channels (i, i + d_head/2) (Hugging Face's rotate_half:
 * Llama, GPT-NeoX); EA_ROPE_INTERLEAVED pairs (2i, 2i + 1) (GPT-J, Meta's
 * original Llama code).
 *
 * The angles come from a table of [n_positions, d_head] floats whose columns
 * 2i and 2i + 1 hold sin(theta_i) and cos(theta_i) of each position: for
 * base 10000 that is exactly the sinusoidal position table of d_model =
 * d_head (ea_sinusoidal_table_fill, or edgeattn::MakeSinusoidalTable as
 * constant data in flash); ea_rope_table_fill makes one for any base.
 *
 * With the KV cache (edgeattn/kv_cache.h), rotate a token's keys before
 * ea_kv_cache_append and its queries before ea_kv_cache_attend, both at the
 * token's position (cache->length before the append, plus the token's index).
 */
#ifndef EDGEATTN_ROPE_H_
#define EDGEATTN_ROPE_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/common.h"
#include "edgeattn/quant.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which channels of a head RoPE rotates together (this file's comment). */
typedef enum ea_rope_layout {
  EA_ROPE_HALF = 0,        /* (i, i + d_head/2): rotate_half */
  EA_ROPE_INTERLEAVED = 1, /* (2i, 2i + 1) */
  EA_ROPE_LAYOUT_RANGE_MIN_ = EA_ENUM_RANGE_MIN_,
  EA_ROPE_LAYOUT_RANGE_MAX_ = EA_ENUM_RANGE_MAX_
} ea_rope_layout;

/* table [n_positions, d_head]: sin and cos of position * base^(-2i / d_head)
 * in columns 2i and 2i + 1, computed in double and rounded once to float.
 * d_head even (EA_ERR_BAD_DIMENSION), base > 1 and finite
 * (EA_ERR_BAD_ARGUMENT). */
ea_status ea_rope_table_fill(float* table, int32_t n_positions, int32_t d_head, float base);

/* Rotates x [n_tokens, n_heads * d_head] in place, row t at position
 * first_position + t, with the angles of `table` ([table_positions, d_head],
 * see above). The rows' positions must lie in [0, table_positions)
 * (EA_ERR_BAD_DIMENSION); d_head even (EA_ERR_BAD_DIMENSION); x and table do
 * not overlap (EA_ERR_BAD_ARGUMENT). On any error x is not written. */
ea_status ea_rope_apply(float* x, int32_t n_tokens, int32_t n_heads, int32_t d_head,
                        int64_t first_position, const float* table, int32_t table_positions,
                        ea_rope_layout layout);

/* ------------------------------------------- fixed point (int8, int16) */

/* The quantization of the RoPE graph's tensors (ea_rope_quant_derive's
 * input): RoPE as a quantized model computes it. TFLite has no RoPE op:
 * converted models express x * cos + rotate_half(x) * sin as element-wise ops on two
 * constant tables, each op with its own output quantization,
 *   y = ADD(MUL(x, C), MUL(swap(x), S)),
 * with TFLite's MUL and ADD (ea_mul_quant_run_s8, ea_add_quant_run_s8), so y
 * is that graph's integers bit for bit. C and S are the model's tables
 * [table_positions, d_head] of the run's dtype, with their own quantization:
 * for EA_ROPE_HALF C = [cos, cos] and S = [-sin, sin] by halves of the head
 * and swap exchanges the halves; for EA_ROPE_INTERLEAVED pair i holds
 * (cos_i, cos_i) in C and (-sin_i, sin_i) in S, and swap exchanges the two
 * members. The sign of rotate_half is in S: a graph with NEG and
 * CONCATENATION instead is expected to give the same integers where its NEG
 * is exact and S's -sin codes are the exact negations of its sin codes
 * (untested against such a graph).
 * int16 tensors have zero point 0 (as in TFLite's 16x8 models), as for MUL. */
typedef struct ea_rope_quant_scales {
  ea_quant x;           /* the tensor rotated (a projection's q or k) */
  ea_quant cos_table;   /* C */
  ea_quant sin_table;   /* S */
  ea_quant cos_product; /* MUL(x, C) */
  ea_quant sin_product; /* MUL(swap(x), S) */
  ea_quant rotated;     /* y = ADD of the two products */
} ea_rope_quant_scales;

/* TFLite's integers of the graph's three ops, as ea_rope_quant_derive fills
 * them. */
typedef struct ea_rope_quant_params {
  ea_mul_quant_params cos; /* x, C -> cos_product */
  ea_mul_quant_params sin; /* swap(x), S -> sin_product */
  ea_add_quant_params add; /* cos_product, sin_product -> rotated */
} ea_rope_quant_params;

/* TFLite's Prepare of the three ops (ea_mul_quant_derive twice,
 * ea_add_quant_derive once); their statuses; NULL scales or params:
 * EA_ERR_NULL_POINTER. On any error *params is not written. */
ea_status ea_rope_quant_derive(ea_dtype dtype, const ea_rope_quant_scales* scales,
                               ea_rope_quant_params* params);

/* Rotates x [n_tokens, n_heads * d_head] in place, row t at position
 * first_position + t, with that row of cos_table and sin_table. Rules as
 * ea_rope_apply's (table_positions the tables' rows), and the params'
 * integers within the ranges quant.h gives MUL and ADD for the dtype
 * (EA_ERR_BAD_ARGUMENT); x overlapping a table: EA_ERR_BAD_ARGUMENT. On any
 * error x is not written. */
ea_status ea_rope_quant_apply_s8(int8_t* x, int32_t n_tokens, int32_t n_heads, int32_t d_head,
                                 int64_t first_position, const int8_t* cos_table,
                                 const int8_t* sin_table, int32_t table_positions,
                                 ea_rope_layout layout, const ea_rope_quant_params* params);
/* The int16 twin of ea_rope_quant_apply_s8, for int16 x and tables. */
ea_status ea_rope_quant_apply_s16(int16_t* x, int32_t n_tokens, int32_t n_heads, int32_t d_head,
                                  int64_t first_position, const int16_t* cos_table,
                                  const int16_t* sin_table, int32_t table_positions,
                                  ea_rope_layout layout, const ea_rope_quant_params* params);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_ROPE_H_ */
