/* edgeattn KV cache: token-by-token decode with the keys and values of
 * earlier tokens kept in the arena.
 *
 * A transformer on a device runs one token at a time: each new token's query
 * attends to every earlier key and value. The cache stores them in the layout
 * the decode kernel streams (written once at append, never repacked), so a
 * step reads the cache once, at its stored size:
 *
 *   ea_kv_cache_append(cache, k, v, n)    the new tokens' keys and values
 *   ea_kv_cache_attend(cache, q, n, out)  their queries against the cache
 *   ea_kv_cache_attend_all(...)           other queries against all of it
 *
 * Query i of an attend of n sits at position length - n + i (length: tokens
 * appended so far) and sees positions max(0, p - window + 1) .. p: causal,
 * aligned at the bottom-right as EA_MASK_CAUSAL, within the sliding window
 * when one is set. Grouped-query attention: query head h reads key/value head
 * h / (n_heads / n_kv_heads), as PyTorch's repeat_interleave of the KV heads
 * (n_kv_heads = 1 is multi-query attention, n_kv_heads = n_heads plain MHA).
 *
 * Storage (Q8 and Q4 are codes with float scales, the cache's own format,
 * not the TFLite integers of the fixed-point dtypes EA_DTYPE_INT8 / INT16):
 *   F32   as given;
 *   F16   IEEE binary16, rounded to nearest even at append (binary16's
 *         largest value is 65504; magnitudes of 65520 and above round to
 *         inf, those below it to at most 65504: in K a query that sees an
 *         inf outputs NaN, as for any non-finite score; in V it reaches the
 *         outputs of the queries that see it, as in ea_attention_run);
 *   Q8    symmetric int8 codes with one float scale per token and KV head, for K
 *         and for V: scale = max|x| / 127 over the head's d_head values,
 *         x_q = the float32 quotient x / scale (one IEEE division, itself
 *         rounded) rounded to the nearest integer, ties to even; it is not
 *         the exact quotient that is rounded (an all-zero head stores
 *         scale 0; a non-finite one stores a NaN scale, so that every query
 *         seeing it outputs NaN; a head whose max|x| is within 1 % of
 *         FLT_MAX may dequantise to +-inf, the correctly rounded value).
 *   Q4    Q8's rule with codes -7..7 (scale = max|x| / 7), one scale per
 *         token, KV head and group of EA_KV_Q4_GROUP channels along d_head
 *         (the last group holds the rest: d_head 80 is groups of 64 and 16),
 *         two codes a byte: a quarter of f16's bytes, an eighth of f32's,
 *         plus 8 bytes of scales per group and position. Each group of K and
 *         of V is rounded after a Walsh-Hadamard rotation, which spreads a
 *         few large channels over the group: the group is split into blocks
 *         of the powers of two in its width's binary form, largest first
 *         (64; 16; 8 + 4 + 1 for 13), and a block x of b values is stored as
 *         H_b x / b, computed in float as log2(b) butterfly stages (pair
 *         distance 1, 2, ..., b / 2, (x, y) -> (x + y, x - y)) and then one
 *         multiplication by 1 / b (a block holding a magnitude of 2^120 or
 *         more is multiplied by 2^-7 first and its sums by 2^7 / b). Attend
 *         rotates each query group as H_b q / EA_KV_Q4_GROUP, so that a
 *         score is unchanged up to that factor, which multiplies the query's
 *         scale, and rotates each output group back by H_b (H_b H_b = b I).
 *         Counted once on the trained reversal model (50000 held-out
 *         sequences, a throwaway driver):
 *         99.80 % decoded without the rotation, 99.90 % with K rotated,
 *         99.96 % with K and V.
 * The same inputs give the same stored bytes on every CPU and SIMD target
 * (f16: integer rounding; int8, int4: IEEE float divisions, scalar or vector,
 * in the default rounding mode, and rounding by the exact remainder); f32 and f16
 * outputs meet the float32 error bound (README, "Numerics contract") on every
 * target.
 *
 * Q8 and Q4 attend with integer dot products: each query row and head is rounded
 * to int8 as a key is (its own scale), a score is the exact integer sum of
 * code products times the two scales and `scale`, and the probabilities of
 * each 64-position block times the values' scales are rounded to 8 bits
 * against the block's largest (codes 0..255, step largest / 255), so that
 * P V is an integer sum too. The integers are the same on every target. The
 * outputs are within 1e-5 (norm-scaled, as the float32 bound) of
 * double-precision attention over the stored keys and values and the rounded
 * queries, plus that rounding of the probabilities: at most, per output
 * element, the sum over blocks of (largest weight / 510) times the block's
 * |value codes| (README, "KV cache storage"; tested on every target). The
 * scales are multiplied before the sum: where k_scale * q_scale * scale
 * passes FLT_MAX the score is +-inf, or NaN for a sum of 0, and the query's
 * output NaN (largest |k| * largest |q| * scale past about 5e42). Q4 is
 * Q8 group by group on the rotated keys, values and queries: a score is
 * the sum over the groups of each group's integer sum times its key scale
 * (times q_scale * EA_KV_Q4_GROUP * scale), and each group's weights
 * p_j * v_scale_j are rounded against their own block largest, so the bound
 * above holds in the rotated domain with the group's scales and codes; an
 * output element, rotated back, moves by at most the sum of its block's
 * bounds. The rotations are float adds in a fixed order and multiplications
 * by powers of two, so the stored bytes are still the same on every target.
 * AVX-512 VNNI reads the packed nibbles directly; the other targets widen
 * each int4 record to int8 codes in the arena as an attend reaches it, and
 * int8's kernels read them. The integers are the same either way.
 *
 * With a window, the cache is a ring: appends never fill it, and the oldest
 * positions are overwritten once `capacity` are held. capacity must cover
 * window + max_queries - 1 positions, so that every query of an attend still
 * finds its whole window: EA_ERR_BAD_DIMENSION otherwise. Without a window
 * max_queries and capacity are independent (an attend's queries are tokens
 * the cache holds; attend_all's may be more than it holds).
 *
 * Positions: ALiBi through the config's alibi_slopes; RoPE by rotating
 * queries and keys before they reach the cache (edgeattn/rope.h).
 *
 * Memory: ea_kv_cache_arena_size bytes, KvCacheArenaBytes in
 * edgeattn/arena_sizes.hpp for compile-time sizes. No heap; a cache is used by
 * one thread at a time: attend writes the cache's scratch, const or not.
 */
#ifndef EDGEATTN_KV_CACHE_H_
#define EDGEATTN_KV_CACHE_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Q8 and Q4 storage hold heads of at most this many channels (larger
 * d_head: EA_ERR_BAD_DIMENSION): their score sums, 255 * 127 per channel,
 * stay within int32. */
#define EA_KV_Q8_MAX_D_HEAD 65536
/* Q4 storage: channels per scale along d_head (kv_cache.h, "Q4"). */
#define EA_KV_Q4_GROUP 64

/* How the cache stores keys and values (this file's "Storage" notes). */
typedef enum ea_kv_storage {
  EA_KV_STORAGE_F32 = 0, /* float32, as given */
  EA_KV_STORAGE_F16 = 1, /* IEEE binary16 */
  EA_KV_STORAGE_Q8 = 2,  /* int8 codes, a scale per token and KV head */
  EA_KV_STORAGE_Q4 = 3,  /* int4 codes, a scale per token, KV head and channel group */
  EA_KV_STORAGE_RANGE_MIN_ = EA_ENUM_RANGE_MIN_,
  EA_KV_STORAGE_RANGE_MAX_ = EA_ENUM_RANGE_MAX_
} ea_kv_storage;

/* Dimensions are > 0 (window >= 0). Keys, values and queries of a token are
 * rows of heads: head h in columns [h * d_head, (h + 1) * d_head). */
typedef struct ea_kv_cache_config {
  int32_t capacity;      /* positions held; with no window, the most ever appended */
  int32_t n_heads;       /* query heads */
  int32_t n_kv_heads;    /* key/value heads; divides n_heads (EA_ERR_HEADS_MISMATCH) */
  int32_t d_head;        /* channels per head, for queries, keys and values */
  int32_t max_queries;   /* most queries per attend */
  int32_t window;        /* 0: none; else each query sees its last `window` positions */
  ea_kv_storage storage; /* F32, F16, Q8 or Q4 */
  float scale;           /* score scale; 0 means 1 / sqrt(d_head) */
  /* NULL, or ALiBi (Press et al. 2022): n_heads finite slopes m_h, and query
   * head h adds m_h * (key position - query position) to its scaled scores.
   * ea_alibi_slopes_fill gives the paper's slopes. The cache reads them at
   * every attend: they stay the caller's, outside the arena and out of every
   * attend's out, finite and unchanged while the cache is used. */
  const float* alibi_slopes;
} ea_kv_cache_config;

/* Filled by ea_kv_cache_init; read `length`, treat the rest as opaque. */
typedef struct ea_kv_cache {
  ea_kv_cache_config config;
  uint8_t* records;   /* arena: the stored keys and values */
  void* row_states;   /* arena: one online-softmax state per attended row */
  float* score_tile;  /* arena: the decode kernel's score tile */
  void* query_codes;  /* arena, int8 and int4 storage: an attend's queries as
                         int8 (int4: and one record widened to int8) */
  size_t carve_bytes; /* bytes from records to the end of the carve */
  int64_t length;     /* tokens appended since init or reset */
  uint32_t ready;
} ea_kv_cache;

/* Validates *config and writes the arena bytes ea_kv_cache_init carves into
 * *bytes (KvCacheArenaBytes in edgeattn/arena_sizes.hpp). */
ea_status ea_kv_cache_arena_size(const ea_kv_cache_config* config, size_t* bytes);

/* The ALiBi paper's slopes for n_heads heads: 2^(-8 (h + 1) / n) for h < n when
 * n is a power of two; otherwise those of the largest power of two n' < n,
 * then every other slope of 2 n' (the paper's reference code). */
ea_status ea_alibi_slopes_fill(float* slopes, int32_t n_heads);
/* Validates the config and carves the arena; the cache starts empty. */
ea_status ea_kv_cache_init(ea_kv_cache* cache, const ea_kv_cache_config* config, ea_arena* arena);
/* Empties the cache (length 0). The stored bytes are not cleared. */
ea_status ea_kv_cache_reset(ea_kv_cache* cache);

/* Stores n_tokens tokens: k and v are [n_tokens, n_kv_heads * d_head].
 * n_tokens in [1, capacity] (EA_ERR_BAD_DIMENSION); with no window,
 * length + n_tokens <= capacity (EA_ERR_CACHE_FULL). k and v must lie outside
 * the cache's arena regions (EA_ERR_BAD_ARGUMENT); on any error nothing is
 * stored. */
ea_status ea_kv_cache_append(ea_kv_cache* cache, const float* k, const float* v, int32_t n_tokens);

/* out[i] = softmax(scale q_i K^T) V per head over the positions query i sees
 * (see above), for the queries of the last n_queries appended tokens:
 * q and out are [n_queries, n_heads * d_head]. n_queries in
 * [1, min(max_queries, length)] (EA_ERR_BAD_DIMENSION). out overlaps neither
 * q nor the cache's arena regions, and q lies outside them
 * (EA_ERR_BAD_ARGUMENT); on any error out is not written. */
ea_status ea_kv_cache_attend(const ea_kv_cache* cache, const float* q, int32_t n_queries,
                             float* out);

/* Cross-attention: as ea_kv_cache_attend, but every query sits at the newest
 * position (length - 1): it sees every position the cache holds (the last
 * `window` of them with a window), whatever n_queries is. For queries that
 * are not tokens of the cached sequence, such as a decoder's over an encoder
 * memory (nn.MultiheadAttention(query, memory, memory)). n_queries in
 * [1, max_queries] and length >= 1 (EA_ERR_BAD_DIMENSION); memory rules and
 * errors as ea_kv_cache_attend. */
ea_status ea_kv_cache_attend_all(const ea_kv_cache* cache, const float* q, int32_t n_queries,
                                 float* out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_KV_CACHE_H_ */
