/* edgeattn: attention for edge CPUs, with no heap. The whole C API, one
 * header per family (each may be included on its own):
 *
 *   common.h          status, arena, dtype, mask, parallel-for, SIMD target, version
 *   linear.h          weight layouts and packing
 *   positions.h       absolute position tables (sinusoidal, learned)
 *   rope.h            rotary positions
 *   quant.h           fixed point: TFLite's integers, shared parameters, ADD
 *   attention.h       Attention(Q, K, V)                     ea_attention_*
 *   self_attention.h  single-head self-attention            ea_self_attention_*
 *   mha.h             multi-head attention                  ea_mha_*
 *   kv_cache.h        the KV cache for decoding             ea_kv_cache_*
 *   decoder.h         an MHA layer one step at a time       ea_decoder_*
 *   cross.h           MHA cross-attention over a memory     ea_cross_*
 *   weight_file.h     weight files in memory or flash       ea_weight_file_*
 *
 * Names follow one rule: ea_{family}[_quant]_{verb}[_s8|_s16], where _quant
 * marks the fixed-point (TFLite integer) functions and _s8 / _s16 the
 * activation dtype of a run. The verbs: arena_size, init, run (and reset,
 * step, append, attend, set_memory where a family has state). */
#ifndef EDGEATTN_EDGEATTN_H_
#define EDGEATTN_EDGEATTN_H_

#include "edgeattn/attention.h"
#include "edgeattn/common.h"
#include "edgeattn/cross.h"
#include "edgeattn/decoder.h"
#include "edgeattn/kv_cache.h"
#include "edgeattn/linear.h"
#include "edgeattn/mha.h"
#include "edgeattn/positions.h"
#include "edgeattn/quant.h"
#include "edgeattn/rope.h"
#include "edgeattn/self_attention.h"
#include "edgeattn/weight_file.h"

#endif /* EDGEATTN_EDGEATTN_H_ */
