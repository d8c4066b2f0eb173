// The fixed-point decoder's cache (K rows, V^T and on x86 the VNNI panels
// per KV head, a ring with a window) and the two halves of a step over it:
// storing a step's keys and values, and attending query rows to what the
// cache holds. ea_decoder_quant runs both per step; ea_cross_quant stores a
// memory once and attends every run's queries to it, unmasked.
#ifndef EDGEATTN_SRC_OPS_DECODE_QUANT_CACHE_H_
#define EDGEATTN_SRC_OPS_DECODE_QUANT_CACHE_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"

namespace edgeattn {

// The config as the MHA chain's steps (ops/mha/mha_quant_api.h) read it: a
// causal layer of max_positions tokens, single-threaded.
ea_mha_config DecoderQuantLayer(const ea_decoder_quant_config& c);
int32_t HeadWidth(const ea_decoder_quant_config& c);
// The channels of k and v: n_kv_heads * d_k.
int32_t KvWidth(const ea_decoder_quant_config& c);
// Positions the cache holds (DecoderQuantCapacity).
int32_t Capacity(const ea_decoder_quant_config& c);
bool HasRope(const ea_decoder_quant_config& c);

// One of in_proj's projections (0 q, 1 k, 2 v) of `count` rows into out,
// all of its channels (ld the same), on the calling thread.
void ProjectStepRows(const ea_decoder_quant& d, int32_t which, const ea_linear_quant_params& params,
                     const int8_t* rows, int32_t count, int8_t* out);
void ProjectStepRows(const ea_decoder_quant& d, int32_t which, const ea_linear_quant_params& params,
                     const int16_t* rows, int32_t count, int16_t* out);

// k and v of n rows of `input` into the cache from `slot` on, wrapping at
// the capacity (once: n <= Capacity), k rotated for positions
// [position, position + n) with RoPE. n is at most max_step_tokens, the rows
// of the v buffer (a cross-attention's core has max_step_tokens beyond a
// decoder's rules, and stores at most its capacity: no wrap).
void StoreKeysValues(const ea_decoder_quant& d, const int8_t* input, int32_t n, int32_t slot,
                     size_t position);
void StoreKeysValues(const ea_decoder_quant& d, const int16_t* input, int32_t n, int32_t slot,
                     size_t position);

// Every query head of the n rows in d.q over the cache's `held` keys (the
// oldest in slot `rotation`), causal with the config's window or unmasked,
// then W_O into y.
void AttendHeads(const ea_decoder_quant& d, int32_t n, int32_t held, int32_t rotation, bool causal,
                 int8_t* y);
void AttendHeads(const ea_decoder_quant& d, int32_t n, int32_t held, int32_t rotation, bool causal,
                 int16_t* y);

// A config's plan in `bytes` of the arena (DecoderQuantArenaBytes), the
// config validated by its owner (the decoder's Validate, or the
// cross-attention's for its core):
// the integers (derived, or the config's), the storages (q and the heads'
// outputs of query_rows rows: the decoder's max_step_tokens, a
// cross-attention's run), length 0. The caller sets `ready`.
void CarveDecoderQuant(ea_decoder_quant* d, const ea_decoder_quant_config& config,
                       int32_t query_rows, const ea_mha_quant_weights& weights,
                       const ea_mha_quant_params& derived, const ea_rope_quant_params rope[2],
                       uint64_t bytes, ea_arena* arena);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_OPS_DECODE_QUANT_CACHE_H_
