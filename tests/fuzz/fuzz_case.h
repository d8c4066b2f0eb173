// What one fuzz input means: the decoded case for each entry-point family,
// and its byte layout as one Visit template per case.
//
// Fields hold their encoded form (a class byte and a raw value) and small
// accessors give their meaning, so that the same Visit serves the fuzzer
// (ByteReader fills the struct) and make_seeds.cc (ByteWriter emits it).
// Layout changes therefore regenerate valid seeds instead of breaking them.
#ifndef EDGEATTN_TESTS_FUZZ_FUZZ_CASE_H_
#define EDGEATTN_TESTS_FUZZ_FUZZ_CASE_H_

#include <stddef.h>
#include <stdint.h>

#include <vector>

namespace edgeattn_fuzz {

// The operation an input drives (its first byte, modulo kOperationCount).
enum Operation : uint8_t {
  kAttention = 0,
  kSelfAttention = 1,
  kMha = 2,
  kApi = 3,
  kQuantMha = 4,
  kQuantSelfAttention = 5,
  kKvCache = 6,
  kWeightFile = 7,
  kElementwise = 8,
  kQuantAttention = 9,  // quant_attention_case.h
  kMhaDecoder = 10,     // decoder_case.h
  kMhaCross = 11,       // decoder_case.h
  kQuantDecoder = 12,   // quant_attention_case.h
  kQuantRope = 13,      // quant_rope_case.h
  kQuantCross = 14      // quant_cross_case.h
};
inline constexpr uint8_t kOperationCount = 15;

// Upper bounds that keep one iteration well under a millisecond in the
// common case: a tensor of at most kMaxTensorFloats is materialised, a run
// happens only when its multiply-adds stay under kMaxRunWork, and an arena
// is allocated only up to kMaxArenaBytes. Larger (valid) shapes still go
// through the size, plan and bad-argument paths.
inline constexpr int64_t kMaxTensorFloats = 1 << 16;
inline constexpr int64_t kMaxRunWork = 1 << 18;
inline constexpr int64_t kMaxArenaBytes = 4 << 20;

// How a tensor's values are made: a distribution, then up to
// kMaxSprinkles special values (NaN, +-inf, huge, denormal...) written at
// chosen positions.
inline constexpr uint8_t kMaxSprinkles = 4;
inline constexpr size_t kMaxElementBytes = 256;

enum TensorMode : uint8_t {
  kNormal = 0,        // N(0, sigma^2), sigma = 2^(magnitude % 21 - 10)
  kPerElement = 1,    // one input byte per element (cyclic past kMaxElementBytes)
  kConstant = 2,      // every element ElementValue(magnitude)
  kSmallIntegers = 3  // uniform integers in [-4, 4] times sigma: exact products
};
inline constexpr uint8_t kTensorModeCount = 4;

struct Sprinkle {
  uint16_t position = 0;  // modulo the element count
  uint8_t value = 0;      // SpecialValue(value)
};

struct TensorSpec {
  uint8_t mode = kNormal;
  uint8_t magnitude = 10;
  uint32_t seed = 1;
  uint8_t sprinkles = 0;  // count, modulo kMaxSprinkles + 1
  Sprinkle sprinkle[kMaxSprinkles];
  std::vector<uint8_t> elements;  // kPerElement only

  uint8_t Mode() const { return mode % kTensorModeCount; }
  uint8_t SprinkleCount() const { return sprinkles % (kMaxSprinkles + 1); }
};

// Where a buffer lives: its own region of the pool (where < 128), or over
// region (where - 128) % count at `offset` floats from that region's start.
struct Placement {
  uint8_t where = 0;
  int16_t offset = 0;

  bool Separate() const { return where < 128; }
  int Target(int count) const { return (where - 128) % count; }
};

// A length decided at run time, relative to a bound (n_valid_keys against
// n_kv, n_tokens against max_tokens): mostly the bound, sometimes anything in
// [0, bound], sometimes any int32.
struct RunLength {
  uint8_t kind = 0;
  int32_t value = 0;

  int32_t Resolve(int32_t bound) const {
    if (kind < 128) return bound;
    if (kind < 224) {
      const uint32_t range = static_cast<uint32_t>(bound) + 1u;
      return bound >= 0 ? static_cast<int32_t>(static_cast<uint32_t>(value) % range) : value;
    }
    return value;
  }
};

// The caller's arena: capacity relative to what the plan needs, a
// misaligned buffer, bytes already used before this plan.
struct ArenaSpec {
  uint8_t capacity_mode = 0;
  uint32_t capacity_delta = 0;
  uint8_t misalign = 0;
  uint8_t pre_used_mode = 0;
  uint16_t pre_used = 0;

  // Buffer misalignment in bytes, 0..63.
  uint32_t Misalignment() const { return misalign >= 192 ? 1u + misalign % 63u : 0u; }
  // Capacity handed to ea_arena_init for a plan needing `need` bytes after `used`.
  uint64_t Capacity(uint64_t used, uint64_t need) const {
    switch (capacity_mode % 8) {
      case 4:
        return used + need + capacity_delta % 4096;
      case 5:
        return used + (need > 0 ? need - 1 - capacity_delta % need : 0);
      case 6:
        return used + capacity_delta % (need + 1);
      case 7:
        return 0;
      default:
        return used + need;
    }
  }
  // Bytes the arena has used before the plan (multiples of 64 stay aligned).
  uint64_t PreUsed() const {
    if (pre_used_mode < 192) return 0;
    return pre_used_mode % 2 == 0 ? (pre_used % 64u) * 64u : pre_used % 4096u;
  }
  // arena.used > capacity: a corrupted arena struct.
  bool Overfull() const { return pre_used_mode == 255; }
};

// Bits of AttentionCase::nulls (and the model cases' nulls): which pointer
// argument is passed as NULL.
enum NullBit : uint16_t {
  kNullSizeConfig = 1 << 0,
  kNullSizeBytes = 1 << 1,
  kNullPlan = 1 << 2,
  kNullPlanConfig = 1 << 3,
  kNullArena = 1 << 4,
  kNullRunPlan = 1 << 5,
  kNullInput0 = 1 << 6,  // q (attention) or x
  kNullInput1 = 1 << 7,  // k, or the first weight matrix
  kNullInput2 = 1 << 8,  // v, or the second weight matrix
  kNullOutput = 1 << 9,
  kNullWeights = 1 << 10,  // the third weight matrix / out_proj weight
  kNullArenaBase = 1 << 11,
  kNullInput3 = 1 << 12  // the second of three weight matrices (self-attention's w_k)
};

// Which Highway targets to run on: bit i selects the i-th supported target;
// 0 means all of them, one after the other.
struct Common {
  uint8_t null_select = 0;  // >= 232: `null_bits` apply
  uint16_t null_bits = 0;
  uint8_t targets = 0;
  uint8_t replan = 0;  // >= 160: re-plan the ready plan with a broken config
  uint8_t replan_field = 0;
  int32_t replan_value = 0;

  uint16_t Nulls() const { return null_select >= 232 ? null_bits : 0; }
  bool Replan() const { return replan >= 160; }
};

struct AttentionCase {
  Common common;
  int32_t dtype = 0, n_q = 1, n_kv = 1, d_k = 1, d_v = 1, mask = 0;
  uint8_t scale_kind = 0;  // < 128: 0 (default scale); else ScaleValue
  uint32_t scale_bits = 0;
  ArenaSpec arena;
  RunLength n_valid;
  uint8_t want_weights = 0;  // >= 96: request attention weights
  Placement q, k, v, out, weights;
  TensorSpec q_values, k_values, v_values;
  uint8_t workers = 0;  // % 4 > 1: run on a parallel-for of that many workers
};

// Self-attention (heads == 0 in the layout) and MHA share one case shape.
struct ModelCase {
  Common common;
  int32_t dtype = 0, max_tokens = 1, d_model = 1, d_k = 1, d_v = 1, heads = 1, mask = 0,
          position = 0;
  uint8_t table_kind = 0;  // >= 128: the caller passes a table (else NULL)
  uint8_t biases = 0;      // bit i: bias i present (q, k, v / in_proj, out_proj)
  ArenaSpec arena;
  RunLength n_tokens, n_valid;
  uint8_t want_weights = 0;
  Placement x, y, weights;
  TensorSpec x_values, table_values;
  TensorSpec w_values[4], b_values[4];

  bool CallerTable() const { return table_kind >= 128; }
};

// The small entry points: arena functions, status strings, target names and
// the sinusoidal table.
struct ApiCase {
  int32_t status_value = 0;
  uint8_t arena_misalign = 0;
  uint32_t arena_capacity = 0;
  uint8_t arena_flags = 0;
  int32_t n_positions = 1, d_model = 1;
  uint8_t table_flags = 0;
  uint8_t cap_kind = 0;  // ea_set_max_simd_target's argument (fuzz_api.cc)
  std::vector<uint8_t> cap_name;
  // RoPE and ALiBi (position_checks.cc): ea_rope_table_fill's shape and base,
  // ea_rope_apply's rows, heads, first position, layout and buffers,
  // ea_alibi_slopes_fill's head count; flags pick NULLs and overlaps.
  int32_t rope_positions = 1, rope_d_head = 2, rope_tokens = 1, rope_heads = 1;
  uint8_t rope_base_kind = 0;
  float rope_base_bits = 0.0f;
  uint8_t rope_first_kind = 0;
  int32_t rope_first = 0;
  int32_t rope_layout = 0;
  uint8_t rope_flags = 0;
  std::vector<uint8_t> rope_values;  // x's elements (bytes), cycled
  int32_t alibi_heads = 1;
  uint8_t alibi_flags = 0;
  // EDGEATTN_MAX_SIMD_TARGET set to cap_name for ea_simd_target's note.
  uint8_t environment_kind = 0;
};

// Fixed-point MHA (ea_mha_quant_derive, _init, ea_mha_quant_run_s8 / _s16):
// a config, its quantization as float scales and / or TFLite's integers
// (derived by the harness, then edited), int8 weights, int32 / int64 biases,
// int8 / int16 activations.
inline constexpr int kQuantTensors = 9;  // ea_mha_quant_scales' ea_quant fields, in order
inline constexpr uint8_t kMaxParamEdits = 4;

// One tensor's quantization: a nominal scale for the shape (scaled so the
// tensor spans its range, as tests/reference/quant_mha_fixture.cc does)
// times 2^(jitter / 8), or a bad or extreme scale; a zero point.
struct QuantTensor {
  uint8_t kind = 0;  // < 224: nominal * 2^(jitter / 8); else QuantSpecialScale
  int8_t jitter = 0;
  uint8_t zp_kind = 0;  // < 192: int8 (int8_t)zp_value, int16 0; else QuantEdgeZeroPoint
  uint8_t zp_value = 0;
};

// One change to the integers the harness derived (or to their per-channel
// arrays) before they are given as quant_params.
struct ParamEdit {
  uint8_t field = 0;       // QuantParamField, modulo its count
  uint16_t channel = 0;    // per-channel fields: modulo d_model
  uint8_t value_kind = 0;  // < 96: current + (int8)value; < 192: an edge; else value itself
  int32_t value = 0;
};

// What fixed-point model cases share after their shape and their tensors'
// quantization: the weights' per-channel scales, the integers given, the
// biases, weights and activations, the arena, the run and where its buffers
// live.
struct QuantCommon {
  int8_t weight_jitter = 0;        // the per-channel weight scales: nominal * 2^(jitter / 8)
  uint32_t weight_scale_seed = 0;  // and a spread of 2^(+-1) between channels
  uint8_t bad_weight_scale = 0;    // >= 224: one channel's scale bad; 255: NULL arrays
  uint16_t bad_channel = 0;
  uint8_t bad_value = 0;
  uint8_t params_kind = 0;  // < 144: scales only; else integers given (+ edits);
                            // >= 224 with int16 softmax tables (GiveSoftmaxTables)
  uint8_t edit_count = 0;   // modulo kMaxParamEdits + 1
  ParamEdit edits[kMaxParamEdits];
  uint8_t biases = 0;  // which biases are present, and their magnitude (per model)
  uint32_t bias_seed = 0;
  uint8_t bias_edge = 0;  // >= 224: one bias at an edge value
  uint16_t bias_edge_index = 0;
  uint8_t weight_mode = 0;  // % 4: uniform [-127, 127], zeros, +-127, small
  uint32_t weight_seed = 0;
  uint8_t x_mode = 0;  // % 4: uniform over the range, a constant, the extremes, small
  uint32_t x_seed = 0;
  ArenaSpec arena;
  RunLength n_tokens;
  RunLength n_valid;         // the run's n_valid_keys against its n_tokens
  uint8_t want_weights = 0;  // >= 96: request the probabilities
  uint8_t wrong_run = 0;     // >= 240: the other dtype's run function
  uint8_t workers = 0;       // % 4 > 1: the plan's parallel-for has that many workers
  Placement x, y, weights;
  uint8_t derive_kind = 0;  // >= 224: derive's channel buffer one int short

  bool ParamsGiven() const { return params_kind >= 144; }
  bool SoftmaxTablesGiven() const { return params_kind >= 224; }
};

struct QuantCase {
  Common common;
  uint8_t dtype_kind = 0;  // < 112 INT8, < 224 INT16, < 240 F32, else dtype_raw
  int32_t dtype_raw = 0;
  int32_t max_tokens = 1, d_model = 1;
  uint8_t heads_kind = 0;  // < 200: a divisor of d_model (heads_kind-th); else `heads`
  int32_t heads = 1;
  int32_t mask = 0, position = 0;
  uint8_t table_kind = 0;   // >= 128: the caller passes a quantized table
  uint8_t scales_kind = 0;  // >= 240: quant_scales NULL
  QuantTensor tensors[kQuantTensors];
  // biases: bit 0 in_proj_bias, bit 1 out_proj_bias; bits 2-3 magnitude; bit 4
  // W_Q, W_K, W_V (and biases) as three tensors, bit 5 their scales as three
  // arrays, bit 6 the biases in the other form than the weights'.
  QuantCommon quant;

  bool CallerTable() const { return table_kind >= 128; }
  bool ScalesGiven() const { return scales_kind < 240; }
};

// Fixed-point single-head self-attention (ea_self_attention_quant_derive,
// _init, ea_self_attention_quant_run_s8 / _s16): MHA's case with d_k and d_v
// for heads, the eight ea_quant fields of ea_self_attention_quant_scales,
// and the fields a fixed-point plan must not read.
inline constexpr int kQuantSelfAttentionTensors = 8;

struct QuantSelfAttentionCase {
  Common common;
  uint8_t dtype_kind = 0;  // as QuantCase
  int32_t dtype_raw = 0;
  int32_t max_tokens = 1, d_model = 1, d_k = 1, d_v = 1;
  int32_t mask = 0, position = 0;
  uint8_t table_kind = 0;   // >= 128: the caller passes a quantized table
  uint8_t scales_kind = 0;  // >= 240: quant_scales NULL
  uint8_t unread = 0;       // bit 0: a float position_table; bits 1-2: weights_layout 0, 1, 77, -1
  QuantTensor tensors[kQuantSelfAttentionTensors];
  QuantCommon quant;  // biases: bits 0-2 b_q, b_k, b_v; bits 3-4 magnitude

  bool CallerTable() const { return table_kind >= 128; }
  bool ScalesGiven() const { return scales_kind < 240; }
};

// Fixed-point element-wise ops, ADD (ea_add_quant_derive, ea_add_quant_run_s8
// / _s16) and MUL (ea_mul_quant_*): the three tensors' quantization, the
// integers a run gets (derived, or edited), the element count, where out
// lives and the values (fuzz_elementwise.cc).
inline constexpr size_t kMaxElementwiseValueBytes = 512;  // per input; cyclic past it

// Where out lives relative to a and b (ElementwiseCase::layout % kElementwiseLayoutCount).
enum ElementwiseLayout : uint8_t {
  kOutApart = 0,    // three regions of their own
  kOutIsA = 1,      // out == a
  kOutIsB = 2,      // out == b
  kSameInputs = 3,  // a == b, out apart
  kAllSame = 4,     // a == b == out
  kOutOverA = 5,    // out = a + shift elements, shift in [-count, count]
  kOutOverB = 6     // out = b + shift elements
};
inline constexpr uint8_t kElementwiseLayoutCount = 7;

struct ElementwiseCase {
  uint8_t targets = 0;     // Common::targets
  uint8_t dtype_kind = 0;  // QuantDtype: < 112 INT8, < 224 INT16, < 240 F32, else dtype_raw
  int32_t dtype_raw = 0;
  QuantTensor a_quant, b_quant, out_quant;  // nominal 1/64 (int8), 1/4096 (int16) x 2^(jitter/8)
  uint8_t null_select = 0;  // >= 232: null_bits apply (bit 0 derive's params; 1 a, 2 b,
  uint8_t null_bits = 0;    // 3 the run's params, 4 out)
  uint8_t params_kind = 0;  // < 144: as derived (or TFLite's / defaults); else given + edits
  uint8_t edit_count = 0;   // modulo kMaxParamEdits + 1; field % the op's (ADD 10, MUL 5)
  ParamEdit edits[kMaxParamEdits];
  uint8_t wrong_run = 0;   // >= 240: the other dtype's run function
  int32_t count = 1;       // Dim
  uint8_t count_high = 0;  // >= 240: count + (count_high - 239) * 2^32 (size_t)
  uint8_t layout =
      0;              // < 128: kOutApart; else ElementwiseLayout (layout % kElementwiseLayoutCount)
  int16_t shift = 0;  // kOutOverA / B: shift % (2 count + 1) - count
  uint8_t misalign = 0;    // bits 0-2 a, 3-5 b, 6-7 out: that many elements past 64 bytes
  uint8_t value_mode = 0;  // % 4: bytes; the dtype's extremes by bit; small; a constant
  std::vector<uint8_t> a_values, b_values;
  uint8_t op = 0;  // >= 128: MUL, else ADD (last, so ADD's inputs of 0.27.0 stay ADD's)

  bool Mul() const { return op >= 128; }
  bool ParamsGiven() const { return params_kind >= 144; }
  uint8_t Layout() const { return layout < 128 ? kOutApart : layout % kElementwiseLayoutCount; }
  uint8_t EditCount() const { return edit_count % (kMaxParamEdits + 1); }
  uint16_t Nulls() const { return null_select >= 232 ? null_bits : 0; }
};

// The KV cache (edgeattn/kv_cache.h): a config, the arena, then a sequence
// of up to kMaxKvOps calls on the cache, each with its own count, NULL
// pointers, buffers (own regions, or over the arena, an earlier op's buffer
// or, for out, this op's q) and values.
inline constexpr int kMaxKvOps = 8;

enum KvOpKind : uint8_t { kKvAppend = 0, kKvAttend = 1, kKvReset = 2, kKvReinit = 3 };

// Bits of KvOp::null_bits: the cache, then the op's first and second pointer
// (append: k, v; attend: q, out; re-init: config, arena).
enum KvNullBit : uint8_t { kKvNullCache = 1, kKvNullFirst = 2, kKvNullSecond = 4 };

struct KvOp {
  uint8_t kind = 0;  // < 104 append, < 200 attend (from 176 attend_all), < 228 reset, else re-init
  // The count (append's n_tokens, attend's n_queries), resolved against the
  // cache as the documented rules leave it (fuzz_kv_cache.cc KvCount): < 96 a
  // chunk the stream can attend (attend: the last append's), < 160 anything
  // valid, < 192 one past the largest valid, < 208 zero, else length_value.
  uint8_t length_kind = 0;
  int32_t length_value = 0;
  uint8_t null_select = 0;  // >= 232: null_bits apply
  uint8_t null_bits = 0;
  Placement first, second;                 // append: k, v; attend: q, out
  TensorSpec first_values, second_values;  // append: k, v; attend: q
  uint8_t reinit_field = 0;  // re-init: config field % 8 set to reinit_value; 8: no arena left
  int32_t reinit_value = 0;

  uint8_t Kind() const {
    return kind < 104 ? kKvAppend : kind < 200 ? kKvAttend : kind < 228 ? kKvReset : kKvReinit;
  }
  uint8_t Nulls() const { return null_select >= 232 ? null_bits : 0; }
  // An attend as ea_kv_cache_attend_all: every query at the newest position.
  bool All() const { return kind >= 176 && kind < 200; }
};

// A layer's key/value heads: the kind-th divisor of n_heads (kind < 200),
// else the case's own n_kv_heads (any value). Shared by every case with heads.
inline int32_t KvHeadsOf(int32_t n_heads, uint8_t kind, int32_t n_kv_heads) {
  if (kind >= 200 || n_heads <= 0 || n_heads > (1 << 12)) return n_kv_heads;
  int32_t divisors[64];
  int count = 0;
  for (int32_t h = 1; h <= n_heads && count < 64; ++h) {
    if (n_heads % h == 0) divisors[count++] = h;
  }
  return divisors[kind % count];
}

// KvHeadsOf for the decoder and cross-attention configs, whose n_kv_heads 0
// means n_heads: kinds in [200, 216) give that 0.
inline int32_t ConfigKvHeadsOf(int32_t n_heads, uint8_t kind, int32_t n_kv_heads) {
  if (kind >= 200 && kind < 216) return 0;
  return KvHeadsOf(n_heads, kind, n_kv_heads);
}

struct KvCacheCase {
  Common common;  // Nulls(): kNullSizeConfig, kNullSizeBytes, kNullPlan (the cache),
                  // kNullPlanConfig, kNullArena, kNullArenaBase; targets
  int32_t capacity = 8, n_heads = 1, n_kv_heads = 1, d_head = 4;
  uint8_t heads_kind = 0;        // < 200: the heads_kind-th divisor of n_heads; else n_kv_heads
  uint8_t max_queries_kind = 0;  // < 112: 1; < 224: 1 + kind % 8; else max_queries
  int32_t max_queries = 1;
  uint8_t window_kind = 0;  // < 160: no window; else window
  int32_t window = 0;
  uint8_t capacity_kind = 0;  // < 128: at least Needed(); < 160: exactly Needed(); else capacity
  int32_t storage = 0;
  uint8_t scale_kind = 0;  // ScaleValue(scale_kind, scale_bits)
  uint32_t scale_bits = 0;
  ArenaSpec arena;
  uint8_t op_count = 0;  // modulo kMaxKvOps + 1
  KvOp ops[kMaxKvOps];

  int32_t NKvHeads() const { return KvHeadsOf(n_heads, heads_kind, n_kv_heads); }
  int32_t MaxQueries() const {
    return max_queries_kind < 112   ? 1
           : max_queries_kind < 224 ? 1 + max_queries_kind % 8
                                    : max_queries;
  }
  int32_t Window() const { return window_kind < 160 ? 0 : window; }
  // The positions the window rule asks for (max_queries without a window).
  int64_t Needed() const {
    const int64_t w = Window(), m = MaxQueries();
    return w > 0 ? w + m - 1 : m;
  }
  int32_t Capacity() const {
    const int64_t needed = Needed();
    if (capacity_kind >= 160 || needed < 1 || needed > INT32_MAX) return capacity;
    if (capacity_kind >= 128) return static_cast<int32_t>(needed);
    return capacity >= needed ? capacity : static_cast<int32_t>(needed);
  }
  int32_t OpCount() const { return op_count % (kMaxKvOps + 1); }
};

// Element counts of a case's tensors; the TensorSpec layout depends on them.
inline size_t BoundedCount(int64_t rows, int64_t cols) {
  if (rows <= 0 || cols <= 0 || rows > kMaxTensorFloats || cols > kMaxTensorFloats) return 0;
  const int64_t count = rows * cols;
  return count <= kMaxTensorFloats ? static_cast<size_t>(count) : 0;
}

template <class Io>
void Visit(Io& io, TensorSpec& t, size_t element_count) {
  io.U8(t.mode);
  io.U8(t.magnitude);
  io.U32(t.seed);
  io.U8(t.sprinkles);
  for (uint8_t i = 0; i < t.SprinkleCount(); ++i) {
    io.U16(t.sprinkle[i].position);
    io.U8(t.sprinkle[i].value);
  }
  if (t.Mode() == kPerElement) {
    io.Bytes(t.elements, element_count < kMaxElementBytes ? element_count : kMaxElementBytes);
  }
}

template <class Io>
void Visit(Io& io, Placement& p) {
  io.U8(p.where);
  uint16_t bits = static_cast<uint16_t>(p.offset);
  io.U16(bits);
  p.offset = static_cast<int16_t>(bits);
}

template <class Io>
void Visit(Io& io, RunLength& r) {
  io.U8(r.kind);
  io.I32(r.value);
}

template <class Io>
void Visit(Io& io, ArenaSpec& a) {
  io.U8(a.capacity_mode);
  io.U32(a.capacity_delta);
  io.U8(a.misalign);
  io.U8(a.pre_used_mode);
  io.U16(a.pre_used);
}

template <class Io>
void Visit(Io& io, Common& c) {
  io.U8(c.null_select);
  io.U16(c.null_bits);
  io.U8(c.targets);
  io.U8(c.replan);
  io.U8(c.replan_field);
  io.I32(c.replan_value);
}

template <class Io>
void Visit(Io& io, AttentionCase& c) {
  Visit(io, c.common);
  io.Enum(c.dtype, 1);
  io.Dim(c.n_q);
  io.Dim(c.n_kv);
  io.Dim(c.d_k);
  io.Dim(c.d_v);
  io.Enum(c.mask, 2);
  io.U8(c.scale_kind);
  io.U32(c.scale_bits);
  Visit(io, c.arena);
  Visit(io, c.n_valid);
  io.U8(c.want_weights);
  Visit(io, c.q);
  Visit(io, c.k);
  Visit(io, c.v);
  Visit(io, c.out);
  Visit(io, c.weights);
  Visit(io, c.q_values, BoundedCount(c.n_q, c.d_k));
  Visit(io, c.k_values, BoundedCount(c.n_kv, c.d_k));
  Visit(io, c.v_values, BoundedCount(c.n_kv, c.d_v));
  io.U8(c.workers);
}

// Element counts of the model weights: W_Q, W_K, W_V (self-attention) or
// in_proj, out_proj (MHA), and the matching biases.
inline size_t ModelWeightCount(const ModelCase& c, bool mha, int i) {
  if (mha) {
    if (i >= 2) return 0;
    return BoundedCount(i == 0 ? 3 * static_cast<int64_t>(c.d_model) : c.d_model, c.d_model);
  }
  if (i >= 3) return 0;
  return BoundedCount(i == 2 ? c.d_v : c.d_k, c.d_model);
}
inline size_t ModelBiasCount(const ModelCase& c, bool mha, int i) {
  if (mha) {
    if (i >= 2) return 0;
    return BoundedCount(i == 0 ? 3 * static_cast<int64_t>(c.d_model) : c.d_model, 1);
  }
  if (i >= 3) return 0;
  return BoundedCount(i == 2 ? c.d_v : c.d_k, 1);
}

template <class Io>
void Visit(Io& io, ModelCase& c, bool mha) {
  Visit(io, c.common);
  io.Enum(c.dtype, 1);
  io.Dim(c.max_tokens);
  io.Dim(c.d_model);
  if (mha) {
    io.Dim(c.heads);
  } else {
    io.Dim(c.d_k);
    io.Dim(c.d_v);
  }
  io.Enum(c.mask, 2);
  io.Enum(c.position, 3);
  io.U8(c.table_kind);
  io.U8(c.biases);
  Visit(io, c.arena);
  Visit(io, c.n_tokens);
  Visit(io, c.n_valid);
  io.U8(c.want_weights);
  Visit(io, c.x);
  Visit(io, c.y);
  Visit(io, c.weights);
  Visit(io, c.x_values, BoundedCount(c.max_tokens, c.d_model));
  Visit(io, c.table_values, BoundedCount(c.max_tokens, c.d_model));
  for (int i = 0; i < (mha ? 2 : 3); ++i) {
    Visit(io, c.w_values[i], ModelWeightCount(c, mha, i));
    Visit(io, c.b_values[i], ModelBiasCount(c, mha, i));
  }
}

template <class Io>
void Visit(Io& io, QuantTensor& t) {
  io.U8(t.kind);
  uint8_t jitter = static_cast<uint8_t>(t.jitter);
  io.U8(jitter);
  t.jitter = static_cast<int8_t>(jitter);
  io.U8(t.zp_kind);
  io.U8(t.zp_value);
}

template <class Io>
void Visit(Io& io, ParamEdit& e) {
  io.U8(e.field);
  io.U16(e.channel);
  io.U8(e.value_kind);
  io.I32(e.value);
}

template <class Io>
void Visit(Io& io, QuantCommon& c) {
  uint8_t jitter = static_cast<uint8_t>(c.weight_jitter);
  io.U8(jitter);
  c.weight_jitter = static_cast<int8_t>(jitter);
  io.U32(c.weight_scale_seed);
  io.U8(c.bad_weight_scale);
  if (c.bad_weight_scale >= 224) {
    io.U16(c.bad_channel);
    io.U8(c.bad_value);
  }
  io.U8(c.params_kind);
  if (c.ParamsGiven()) {
    io.U8(c.edit_count);
    for (uint8_t i = 0; i < c.edit_count % (kMaxParamEdits + 1); ++i) Visit(io, c.edits[i]);
  }
  io.U8(c.biases);
  io.U32(c.bias_seed);
  io.U8(c.bias_edge);
  if (c.bias_edge >= 224) io.U16(c.bias_edge_index);
  io.U8(c.weight_mode);
  io.U32(c.weight_seed);
  io.U8(c.x_mode);
  io.U32(c.x_seed);
  Visit(io, c.arena);
  Visit(io, c.n_tokens);
  Visit(io, c.n_valid);
  io.U8(c.want_weights);
  io.U8(c.wrong_run);
  io.U8(c.workers);
  Visit(io, c.x);
  Visit(io, c.y);
  Visit(io, c.weights);
  io.U8(c.derive_kind);
}

// What QuantCase and QuantSelfAttentionCase begin with: the dtype, then
// max_tokens and d_model; after their own dimensions, mask, position and
// the kinds of table and scales.
template <class Io, class Case>
void VisitQuantHead(Io& io, Case& c) {
  Visit(io, c.common);
  io.U8(c.dtype_kind);
  if (c.dtype_kind >= 240) io.I32(c.dtype_raw);
  io.Dim(c.max_tokens);
  io.Dim(c.d_model);
}
template <class Io, class Case>
void VisitQuantModes(Io& io, Case& c) {
  io.Enum(c.mask, 2);
  io.Enum(c.position, 3);
  io.U8(c.table_kind);
  io.U8(c.scales_kind);
}

template <class Io>
void Visit(Io& io, QuantCase& c) {
  VisitQuantHead(io, c);
  io.U8(c.heads_kind);
  if (c.heads_kind >= 200) io.Dim(c.heads);
  VisitQuantModes(io, c);
  for (QuantTensor& t : c.tensors) Visit(io, t);
  Visit(io, c.quant);
}

template <class Io>
void Visit(Io& io, QuantSelfAttentionCase& c) {
  VisitQuantHead(io, c);
  io.Dim(c.d_k);
  io.Dim(c.d_v);
  VisitQuantModes(io, c);
  io.U8(c.unread);
  for (QuantTensor& t : c.tensors) Visit(io, t);
  Visit(io, c.quant);
}

// Per-element bytes of a KV op's tensors: one row block of max_queries rows
// (cyclic past it), so that the layout depends on the config alone.
inline size_t KvElementCount(const KvCacheCase& c, int32_t heads) {
  const size_t count =
      BoundedCount(c.MaxQueries(), static_cast<int64_t>(heads) * static_cast<int64_t>(c.d_head));
  return count > 0 ? count : 16;
}

template <class Io>
void Visit(Io& io, KvOp& op, size_t kv_count, size_t q_count) {
  io.U8(op.kind);
  io.U8(op.length_kind);
  io.I32(op.length_value);
  io.U8(op.null_select);
  io.U8(op.null_bits);
  switch (op.Kind()) {
    case kKvAppend:
      Visit(io, op.first);
      Visit(io, op.second);
      Visit(io, op.first_values, kv_count);
      Visit(io, op.second_values, kv_count);
      break;
    case kKvAttend:
      Visit(io, op.first);
      Visit(io, op.second);
      Visit(io, op.first_values, q_count);
      break;
    case kKvReinit:
      io.U8(op.reinit_field);
      io.I32(op.reinit_value);
      break;
    default:
      break;
  }
}

template <class Io>
void Visit(Io& io, KvCacheCase& c) {
  Visit(io, c.common);
  io.Dim(c.n_heads);
  io.U8(c.heads_kind);
  if (c.heads_kind >= 200) io.Dim(c.n_kv_heads);
  io.Dim(c.d_head);
  io.U8(c.max_queries_kind);
  if (c.max_queries_kind >= 224) io.Dim(c.max_queries);
  io.U8(c.window_kind);
  if (c.window_kind >= 160) io.Dim(c.window);
  io.U8(c.capacity_kind);
  io.Dim(c.capacity);
  io.Enum(c.storage, 4);
  io.U8(c.scale_kind);
  io.U32(c.scale_bits);
  Visit(io, c.arena);
  io.U8(c.op_count);
  const size_t kv_count = KvElementCount(c, c.NKvHeads());
  const size_t q_count = KvElementCount(c, c.n_heads);
  for (int i = 0; i < c.OpCount(); ++i) Visit(io, c.ops[i], kv_count, q_count);
}

template <class Io>
void Visit(Io& io, ElementwiseCase& c) {
  io.U8(c.targets);
  io.U8(c.dtype_kind);
  if (c.dtype_kind >= 240) io.I32(c.dtype_raw);
  Visit(io, c.a_quant);
  Visit(io, c.b_quant);
  Visit(io, c.out_quant);
  io.U8(c.null_select);
  if (c.null_select >= 232) io.U8(c.null_bits);
  io.U8(c.params_kind);
  if (c.ParamsGiven()) {
    io.U8(c.edit_count);
    for (uint8_t i = 0; i < c.EditCount(); ++i) Visit(io, c.edits[i]);
  }
  io.U8(c.wrong_run);
  io.Dim(c.count);
  io.U8(c.count_high);
  io.U8(c.layout);
  if (c.layout >= 128) {
    uint16_t bits = static_cast<uint16_t>(c.shift);
    io.U16(bits);
    c.shift = static_cast<int16_t>(bits);
  }
  io.U8(c.misalign);
  io.U8(c.value_mode);
  // Two bytes per int16 element: the layout depends on dtype_kind and count
  // (Dim's small and medium values, 1..280; 16 for the others).
  const size_t elements = c.count >= 1 && c.count <= 280 ? static_cast<size_t>(c.count) : 16;
  const size_t bytes = elements * (c.dtype_kind >= 112 && c.dtype_kind < 224 ? 2 : 1);
  io.Bytes(c.a_values, bytes < kMaxElementwiseValueBytes ? bytes : kMaxElementwiseValueBytes);
  if (c.Layout() != kSameInputs && c.Layout() != kAllSame) {
    io.Bytes(c.b_values, bytes < kMaxElementwiseValueBytes ? bytes : kMaxElementwiseValueBytes);
  }
  io.U8(c.op);
}

template <class Io>
void Visit(Io& io, ApiCase& c) {
  io.I32(c.status_value);
  io.U8(c.arena_misalign);
  io.U32(c.arena_capacity);
  io.U8(c.arena_flags);
  io.Dim(c.n_positions);
  io.Dim(c.d_model);
  io.U8(c.table_flags);
  io.U8(c.cap_kind);
  io.Bytes(c.cap_name, 8);
  io.Dim(c.rope_positions);
  io.Dim(c.rope_d_head);
  io.Dim(c.rope_tokens);
  io.Dim(c.rope_heads);
  io.U8(c.rope_base_kind);
  io.F32(c.rope_base_bits);
  io.U8(c.rope_first_kind);
  io.I32(c.rope_first);
  io.Enum(c.rope_layout, 2);
  io.U8(c.rope_flags);
  io.Bytes(c.rope_values, 16);
  io.Dim(c.alibi_heads);
  io.U8(c.alibi_flags);
  io.U8(c.environment_kind);
}

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_FUZZ_CASE_H_
