// What the fixed-point decoder needs from fixed-point MHA's entry points: the
// validation and carving steps it (edgeattn/decoder.h) shares with
// ea_mha_quant_init. Each takes kv_width, the output channels of W_K and
// W_V: d_model for MHA, n_kv_heads * d_k for a grouped-query decoder.
#ifndef EDGEATTN_SRC_OPS_MHA_MHA_QUANT_API_H_
#define EDGEATTN_SRC_OPS_MHA_MHA_QUANT_API_H_

#include <stddef.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "ops/in_proj_forms.h"
#include "ops/quant_attention_core.h"
#include "ops/quant_model_steps.h"
#include "runtime/arena.h"
#include "runtime/validation.h"
#include "tflite/mha_quant_params.h"

namespace edgeattn {

// W_Q, W_K or W_V (which = 0, 1, 2) and its bias (NULL: none), each from
// in_proj (rows W_Q, W_K, W_V) or from the three separate tensors, whichever
// form the weights and the biases give (independently: CheckInProjForms).
struct InProjPart {
  const int8_t* weight;  // [channels, d_model]
  const uint8_t* bias;   // [channels] int32 / int64
  int32_t channels;      // d_model (W_Q) or kv_width
};
InProjPart InProjOf(const ea_mha_config& config, int32_t kv_width,
                    const ea_mha_quant_weights& weights, int32_t which);

// MHA's kv_width: its W_K and W_V are as wide as W_Q.
inline int32_t MhaKvWidth(const ea_mha_config& config) { return config.d_model; }

// ea_mha_quant_init's rules for the config (with n_kv_heads KV heads, which
// must be positive and divide n_heads: MHA passes n_heads), and for the
// tensors it reads as void*: biases (aligned; int16 ones within TFLite's 2^47
// accumulator domain) and the caller's position table (aligned).
ea_status ValidateMhaQuantConfig(const ea_mha_config& config, int32_t n_kv_heads);
ea_status CheckMhaQuantTensors(const ea_mha_config& config, int32_t kv_width,
                               const ea_mha_quant_weights& weights);

// What a fixed-point MHA reads and must not overwrite: W_Q, W_K, W_V and
// their biases (in either form, as InProjOf finds them), out_proj weight and
// bias, the caller's quantized position table, the model's int16 softmax
// tables (the plan's or decoder's softmax params).
inline constexpr size_t kMhaQuantKeptCount = 9 + kSoftmaxLutCount;
struct MhaQuantKept {
  Extent extents[kMhaQuantKeptCount];
};
MhaQuantKept MhaQuantKeptExtents(const ea_mha_config& config, int32_t kv_width,
                                 const ea_mha_quant_weights& weights, const void* table,
                                 const ea_softmax_quant_params& softmax);
// The softmax params an init reads the tables from: the config's integers',
// or none (derived integers use the built-in tables).
ea_softmax_quant_params GivenSoftmax(const ea_mha_config& config);

// Where the position table comes from (the caller's quantized table, or
// none, or one quantized into the arena at plan time).
PositionStorage MhaQuantPositions(const ea_mha_config& config);

// What the plan and the decoder check before they carve `carve_bytes` of the
// arena (config already validated): int16 biases, that the carve fits and
// misses the kept tensors, then a plan's integers. TFLite's Prepare on the
// config's scales (if it gives no integers) writes the per-channel arrays
// into the arena's next free bytes, so a refusal leaves the arena unused;
// the first carve (CarveMhaQuantParams) then takes those bytes
// (EA_MHA_QUANT_CHANNEL_INTS) and *derived is the derived integers, or
// untouched where the config gives its own. operands: as
// DeriveMhaQuantParams's.
ea_status PrepareMhaQuantCarve(const ea_mha_config& config, int32_t kv_width,
                               const ea_mha_quant_weights& weights, const ea_arena& arena,
                               uint64_t carve_bytes, ea_mha_quant_params* derived,
                               const MhaQuantOperands& operands = {});
// *params: the plan's own copy of the config's integers, or the derived ones.
void CarveMhaQuantParams(ea_arena* arena, const ea_mha_config& config, int32_t kv_width,
                         const ea_mha_quant_params& derived, ea_mha_quant_params* params);

// The position table the plan adds (quantized into the arena now where the
// config asks for it), or NULL without positions.
const void* ResolveMhaQuantPositionTable(ea_arena* arena, const ea_mha_config& config);

// W_Q, W_K, W_V and W_O packed for the dot-product instructions (NULL each
// where the CPU family has none).
void CarveMhaQuantPanels(ea_arena* arena, const ea_mha_config& config, int32_t kv_width,
                         const ea_mha_quant_weights& weights, void* panels[4]);

// out [rows, columns] (ld columns) = FULLY_CONNECTED(x [rows, d_model])
// through output channels [first_column, first_column + columns) of in_proj's
// W_Q, W_K or W_V (which = 0, 1, 2), with their biases and integers, on the
// parallel-for. Panels (x86) only for all of the weight's channels. False
// when the hook broke its worker contract.
template <typename T>
bool ProjectInProj(const ea_parallel_for& parallel, const ea_mha_config& c, int32_t kv_width,
                   const ea_mha_quant_weights& w, const void* panels, int32_t which,
                   const ea_linear_quant_params& params, const T* x, int32_t rows,
                   int32_t first_column, int32_t columns, T* out) {
  const size_t e = static_cast<size_t>(c.d_model);
  const size_t first = static_cast<size_t>(first_column);
  const InProjPart part = InProjOf(c, kv_width, w, which);
  const ea_linear_quant_params slice{params.input_offset, params.output_offset,
                                     params.output_multiplier + first_column,
                                     params.output_shift + first_column};
  return RunProjection(
      parallel,
      ProjectionArgs(x, rows, c.d_model, part.weight + first * e,
                     part.bias != nullptr ? part.bias + first * QuantBiasBytes(c.dtype) : nullptr,
                     slice, columns, out, static_cast<size_t>(columns),
                     columns == part.channels ? panels : nullptr));
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_OPS_MHA_MHA_QUANT_API_H_
