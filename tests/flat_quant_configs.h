// The fixed-point decoder's and cross-attention's configs are flat
// (edgeattn/decoder.h, edgeattn/cross.h: no nested ea_mha_config, no mask,
// no parallel-for). The tests and the fuzz drivers build the layer as an
// ea_mha_config, as the fixed-point MHA family does (QuantizeLayer,
// QuantParamsRules, MhaReference, the quant MHA fixture read one), and
// convert here, in both directions: the layer a flat config describes, as
// the headers define it, and the layer's fields copied into a flat config
// (the config's own fields, such as n_kv_heads, max_step_tokens, window,
// max_memory and memory, kept). A caller that changes its layer after
// building the flat config copies it in again.
#ifndef EDGEATTN_TESTS_FLAT_QUANT_CONFIGS_H_
#define EDGEATTN_TESTS_FLAT_QUANT_CONFIGS_H_

#include "edgeattn/cross.h"
#include "edgeattn/decoder.h"
#include "edgeattn/edgeattn.h"

namespace edgeattn_test {

// The fields both flat configs share with ea_mha_config, one way and the
// other: a single-threaded layer of `max_tokens` rows, masked as `mask`.
template <class Flat>
ea_mha_config SharedLayerOf(const Flat& c, int32_t max_tokens, ea_mask mask) {
  ea_mha_config layer{};
  layer.dtype = c.dtype;
  layer.max_tokens = max_tokens;
  layer.d_model = c.d_model;
  layer.n_heads = c.n_heads;
  layer.mask = mask;
  layer.weights_layout = EA_WEIGHTS_ROW_MAJOR;
  layer.quant_scales = c.quant_scales;
  layer.quant_params = c.quant_params;
  return layer;
}
template <class Flat>
void SetSharedFields(const ea_mha_config& layer, Flat* c) {
  c->dtype = layer.dtype;
  c->d_model = layer.d_model;
  c->n_heads = layer.n_heads;
  c->quant_scales = layer.quant_scales;
  c->quant_params = layer.quant_params;
}

// A decoder's layer: causal, max_tokens the config's max_positions (the
// rows of the position table).
inline ea_mha_config DecoderLayerOf(const ea_decoder_quant_config& c) {
  ea_mha_config layer = SharedLayerOf(c, c.max_positions, EA_MASK_CAUSAL);
  layer.position = c.position;
  layer.quant_position_table = c.quant_position_table;
  return layer;
}
// The layer's fields a decoder config has (its own fields kept).
inline void SetDecoderLayer(const ea_mha_config& layer, ea_decoder_quant_config* c) {
  SetSharedFields(layer, c);
  c->max_positions = layer.max_tokens;
  c->position = layer.position;
  c->quant_position_table = layer.quant_position_table;
}

// A cross-attention's queries' layer: unmasked, no positions, max_tokens
// the config's max_queries.
inline ea_mha_config CrossLayerOf(const ea_cross_quant_config& c) {
  return SharedLayerOf(c, c.max_queries, EA_MASK_NONE);
}
// The layer's fields a cross config has (its own fields kept; the layer's
// mask and position have no field there).
inline void SetCrossLayer(const ea_mha_config& layer, ea_cross_quant_config* c) {
  SetSharedFields(layer, c);
  c->max_queries = layer.max_tokens;
}

}  // namespace edgeattn_test

#endif  // EDGEATTN_TESTS_FLAT_QUANT_CONFIGS_H_
