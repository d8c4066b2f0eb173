// One driver per entry-point family; fuzz_main.cc picks one per input.
#ifndef EDGEATTN_TESTS_FUZZ_FUZZ_DRIVERS_H_
#define EDGEATTN_TESTS_FUZZ_FUZZ_DRIVERS_H_

#include "byte_reader.h"

namespace edgeattn_fuzz {

void FuzzAttention(ByteReader& input);
void FuzzSelfAttention(ByteReader& input);
void FuzzMha(ByteReader& input);
// Fixed-point MHA: ea_mha_quant_derive, ea_mha_quant_init, ea_mha_quant_run_s8 / _s16.
void FuzzQuantMha(ByteReader& input);
// Fixed-point single-head self-attention: ea_self_attention_quant_derive,
// ea_self_attention_quant_init, ea_self_attention_quant_run_s8 / _s16.
void FuzzQuantSelfAttention(ByteReader& input);
// The KV cache: ea_kv_cache_arena_size, _init, _append, _attend, _reset.
void FuzzKvCache(ByteReader& input);
// Weight files: a raw file or one built from a WeightFileCase
// (weight_file_case.h), then open, open_scratch, scratch_size, find and mha
// against an independent reader (weight_file_model.h).
void FuzzWeightFile(ByteReader& input);
// Fixed-point element-wise ops: ADD (ea_add_quant_derive, ea_add_quant_run_s8
// / _s16) and MUL (ea_mul_quant_derive, ea_mul_quant_run_s8 / _s16).
void FuzzElementwise(ByteReader& input);
// Fixed-point Attention(Q, K, V): ea_attention_arena_size (INT8 / INT16),
// ea_attention_quant_init, ea_attention_quant_run_s8 / _s16.
void FuzzQuantAttention(ByteReader& input);
// The fixed-point MHA decoder: ea_decoder_quant_arena_size, _init,
// _reset, _step_s8 / _s16 over a sequence of calls.
void FuzzQuantDecoder(ByteReader& input);
// The MHA decoder: ea_decoder_arena_size, _init, then a sequence of
// _step, _reset and re-inits.
void FuzzMhaDecoder(ByteReader& input);
// MHA cross-attention: ea_cross_arena_size, _init, then a sequence of
// _set_memory, _run and re-inits.
void FuzzMhaCross(ByteReader& input);
// Fixed-point RoPE: ea_rope_quant_derive, ea_rope_quant_apply_s8 / _s16.
void FuzzQuantRope(ByteReader& input);
// The fixed-point cross-attention: ea_cross_quant_arena_size, _derive,
// _init, then a sequence of _set_memory_s8 / _s16, _run_s8 / _s16 and re-inits.
void FuzzQuantCross(ByteReader& input);
// Arena functions, status strings, target names, the sinusoidal table.
void FuzzApi(ByteReader& input);

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_FUZZ_DRIVERS_H_
