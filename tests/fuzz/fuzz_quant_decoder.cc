// Driver for the fixed-point MHA decoder's own API (edgeattn/decoder.h):
// ea_decoder_quant_arena_size, _init, _reset, _step_s8 and _step_s16 on
// one decoded QuantDecoderCase: a layer as the fixed-point MHA family builds
// it (causal: the config is flat, flat_quant_configs.h; every other field
// sometimes at an edge), its
// max_step_tokens, window and grouped-query heads, its kept tensors (weights, biases, the caller's
// table) apart or inside the arena, then up to eight calls (steps of valid, zero, negative, too
// many or past-the-stream counts, the other dtype's step, resets, re-inits with a broken config or
// the good one), replayed from init on every selected SIMD target. Checked: statuses against the
// header's rules (expected_status.h QuantDecoderShapeRules and the rules below, a model of `ready`
// and `length`), nothing written on any refusal (the cache included), arena_size =
// DecoderQuantArenaBytes = the carve, a step writing only y and the carve, `length` as the model
// says, and every accepted step's y equal, bit for bit, to the causal integer chain
// (tests/reference; windowed, grouped) over the tokens stepped since init or
// reset. A grouped layer's in_proj and bias hold d_model + 2 kv_width rows;
// its scales and given integers are the first of MHA's arrays (see the
// README).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "driver_support.h"
#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/decoder.h"
#include "edgeattn/edgeattn.h"
#include "expected_status.h"
#include "failure.h"
#include "flat_quant_configs.h"
#include "fuzz_case.h"
#include "fuzz_drivers.h"
#include "known_defects.h"
#include "memory_pool.h"
#include "quant_attention_case.h"
#include "quant_case_support.h"
#include "quant_mha_chain.h"
#include "reference/quant_rope_tables.h"
#include "simd_targets.h"

namespace edgeattn_fuzz {
namespace {

using edgeattn_test::DecoderLayerOf;
using edgeattn_test::SetDecoderLayer;

// Decoder counters, printed at exit.
struct DecoderStats {
  size_t cases = 0, initialised = 0, steps = 0, refused_steps = 0, compared = 0, not_compared = 0,
         resets = 0, reinits = 0, grouped_compared = 0, windowed_compared = 0, rope_compared = 0;
};
DecoderStats& Stats() {
  static DecoderStats* stats = [] {
    static DecoderStats s;
    atexit([] {
      fprintf(stderr,
              "edgeattn fuzz: fixed-point decoder: %zu cases, %zu inits, %zu steps (%zu refused), "
              "%zu compared with the causal chain (%zu grouped, %zu windowed, %zu RoPE), %zu not "
              "(int32 limits), %zu resets, %zu re-inits\n",
              s.cases, s.initialised, s.steps, s.refused_steps, s.compared, s.grouped_compared,
              s.windowed_compared, s.rope_compared, s.not_compared, s.resets, s.reinits);
    });
    return &s;
  }();
  return *stats;
}

int64_t ClampToInt32(int64_t v) {
  return std::min<int64_t>(std::max<int64_t>(v, INT32_MIN), INT32_MAX);
}

// A step's n_tokens (QuantDecoderOp::count_kind) for a stream of `length`
// tokens on a decoder of these limits (which may be invalid).
int32_t StepCount(const QuantDecoderOp& op, int64_t length, int32_t max_tokens, int32_t max_step) {
  const int64_t remaining = int64_t{max_tokens} - length;
  if (op.count_kind < 144) {
    const int64_t room = std::min<int64_t>(max_step, remaining);
    if (room < 1) return 1;
    return static_cast<int32_t>(1 + op.x_seed % static_cast<uint64_t>(room));
  }
  if (op.count_kind < 160) return 0;
  if (op.count_kind < 176) return -1;
  if (op.count_kind < 192) return static_cast<int32_t>(ClampToInt32(int64_t{max_step} + 1));
  if (op.count_kind < 208) return static_cast<int32_t>(ClampToInt32(remaining + 1));
  if (op.count_kind < 224) return max_step;
  return op.count_value;
}

ea_status Step(ea_dtype as, ea_decoder_quant* d, const void* x, int32_t n, void* y) {
  if (as == EA_DTYPE_INT8) {
    return ea_decoder_quant_step_s8(d, static_cast<const int8_t*>(x), n, static_cast<int8_t*>(y));
  }
  return ea_decoder_quant_step_s16(d, static_cast<const int16_t*>(x), n, static_cast<int16_t*>(y));
}

// A decoder config that breaks at least one rule: one layer field
// (BreakOneField; its mask or parallel-for, which the flat config does not
// have, break nothing) or max_step_tokens set to `value`; else n_heads 0.
ea_decoder_quant_config BrokenDecoderConfig(const ea_decoder_quant_config& good, uint8_t field,
                                            int32_t value) {
  ea_decoder_quant_config bad = good;
  if (field % 9 == 8) {
    bad.max_step_tokens = value;
  } else {
    Common common;
    common.replan_field = field;
    common.replan_value = value;
    SetDecoderLayer(BreakOneField(DecoderLayerOf(good), common, 1,
                                  [](ea_mha_config* c, int, int32_t v) { c->n_heads = v; }),
                    &bad);
  }
  if (!QuantDecoderShapeRules(bad).MustFail()) bad.n_heads = 0;
  return bad;
}

}  // namespace

void FuzzQuantDecoder(ByteReader& input) {
  QuantDecoderCase c;
  Visit(input, c);
  const QuantCommon& qc = c.quant;
  ++Stats().cases;
  const uint16_t nulls = c.common.Nulls();
  const ea_dtype dtype = QuantDtype(c.dtype_kind, c.dtype_raw);
  const bool fixed = IsFixed(dtype);
  const bool int8 = dtype == EA_DTYPE_INT8;
  const int32_t heads = HeadsOf(c);
  const int32_t e = c.d_model, max_tokens = c.max_tokens, max_step = c.MaxStepTokens();
  const size_t element = ElementBytes(dtype), bias_bytes = BiasBytes(dtype);
  const bool positions = c.position != EA_POSITION_NONE;
  const bool dims_ok = max_tokens > 0 && e > 0 && heads > 0 && e % heads == 0;
  const size_t in_count = BoundedCount(3 * int64_t{e}, e);
  const size_t table_count = BoundedCount(max_tokens, e);
  const bool materialised = in_count > 0 && table_count > 0;

  // The layer as the MHA family's helpers read it (causal, single-threaded:
  // the case's mask and qc.workers are unused since the config is flat),
  // copied into dconfig (SetDecoderLayer) after every change.
  ea_decoder_quant_config dconfig{};
  ea_mha_config config = DecoderLayerOf(dconfig);
  config.dtype = dtype;
  config.max_tokens = max_tokens;
  config.d_model = e;
  config.n_heads = heads;
  config.position = static_cast<ea_position>(c.position);
  alignas(8) static const uint8_t kStandIn[64] = {};  // aligned as a table must be
  config.quant_position_table = c.CallerTable() ? kStandIn : nullptr;
  dconfig.max_step_tokens = max_step;
  dconfig.window = c.Window();
  dconfig.n_kv_heads = c.KvHeads(heads);
  // W_K's and W_V's channels where the KV heads are valid (else the decoder
  // refuses them before it reads a scale: MHA's width, which the buffers have).
  const int32_t groups = dconfig.n_kv_heads == 0 ? heads : dconfig.n_kv_heads;
  const bool kv_ok = dims_ok && groups > 0 && heads % groups == 0;
  const int32_t kv_width = kv_ok ? groups * (e / heads) : e;

  // --- the layer's quantization, as the fixed-point MHA family makes it
  MhaQuantization quantization;
  QuantizeLayer(c.tensors, qc, c.ScalesGiven(), materialised, kv_width, &config, &quantization);
  SetDecoderLayer(config, &dconfig);
  const size_t channels = materialised ? static_cast<size_t>(e) : 1;
  // in_proj's rows (and biases) as the decoder reads them: W_Q's d_model,
  // W_K's and W_V's kv_width each; the buffers hold exactly those, so that a
  // step's x or y just past them is apart from every kept tensor.
  const size_t in_rows =
      materialised ? static_cast<size_t>(e) + 2 * static_cast<size_t>(kv_width) : 1;
  const size_t in_w_bytes = materialised ? in_rows * static_cast<size_t>(e) : 1;
  const StatusSet& scales_rules = quantization.scales_rules;
  const bool derivable = quantization.derivable;
  bool infinite = quantization.infinite;  // with RoPE: or the rotated scores
  if (infinite && SkipKnown(kQuantInfiniteMultiplier)) return;
  const bool params_given = quantization.params_given;
  const ea_mha_quant_params* used = quantization.used;
  const Integers& given = quantization.given;
  const Derivation& derivation = quantization.derivation;

  // --- RoPE (decoder.h): the model's tables at 1/127 or 1/32767
  // (quant_rope_tables.h), the rotations' scales from the layer's q and k as
  // the tests' fixture makes them (products at 2 and 1.5 times, the result at
  // 3 times, int8 zero points of their own) and, for given integers, their
  // TFLite integers (or defaults); then the case's fault. The tables are
  // stand-ins until the pool holds them (only their NULL-ness counts before
  // init).
  const bool rope = c.Rope();
  const int32_t d_k = dims_ok ? e / heads : 0;
  ea_rope_quant_scales rope_scales[2]{};
  ea_rope_quant_params rope_params[2]{};
  if (rope) {
    const ea_quant table{int8 ? 1.0f / 127 : 1.0f / 32767, 0};
    const ea_quant xs[2] = {quantization.scales.q, quantization.scales.k};
    ea_add_quant_params default_add{};
    ea_matmul_quant_params unused_scores, unused_context;
    ea_softmax_quant_params unused_softmax;
    DefaultScalars(int8, &default_add, &unused_scores, &unused_context, &unused_softmax);
    for (int i = 0; i < 2; ++i) {
      const int32_t zp = int8 ? 2 + i : 0;
      ea_rope_quant_scales& r = rope_scales[i];
      r = {xs[i],
           table,
           table,
           {2 * xs[i].scale, zp},
           {1.5f * xs[i].scale, -zp},
           {3 * xs[i].scale, 2 * zp}};
      const auto usable = [&](ea_quant q) { return ValidQuant(dtype, q); };
      const bool valid = fixed && usable(r.x) && usable(r.cos_product) && usable(r.sin_product) &&
                         usable(r.rotated);
      if (valid) {
        rope_params[i].cos = MulLikeTflite(r.x, r.cos_table, r.cos_product);
        rope_params[i].sin = MulLikeTflite(r.x, r.sin_table, r.sin_product);
        rope_params[i].add = AddLikeTflite(int8, r.cos_product, r.sin_product, r.rotated);
      } else {
        rope_params[i].cos = rope_params[i].sin = ea_mul_quant_params{0, 0, 0, 1 << 30, -1};
        rope_params[i].add = default_add;
      }
    }
    dconfig.rope_layout = c.RopeLayout();
    dconfig.rope_cos_table = kStandIn;
    dconfig.rope_sin_table = kStandIn;
    dconfig.rope_scales = rope_scales;
    dconfig.rope_params = config.quant_params != nullptr ? rope_params : nullptr;
    switch (c.RopeFault()) {
      case 0:
        dconfig.rope_sin_table = nullptr;
        break;
      case 1:
        dconfig.rope_scales = nullptr;
        dconfig.rope_params = nullptr;
        break;
      case 2:
        rope_scales[1].x.scale *= 2.0f;  // not k's quantization
        break;
      case 3:
        rope_scales[0].cos_product.scale = 1e-30f;
        rope_params[0].cos.output_shift = 31;
        break;
      case 4:
        dconfig.rope_cos_table = dconfig.rope_sin_table = nullptr;  // scales without tables
        break;
      default:
        break;
    }
  }
  const StatusSet rope_rules = DecoderRopeRules(dconfig);
  // With RoPE the scores read the rotated q and k: derived integers take
  // them from the rotated scales, as the library does (the unrotated q and
  // k are then no operands of the scores: their quantization is not
  // checked against the scores').
  RopeInputs rope_inputs{};
  const bool rope_used = rope && dconfig.rope_cos_table != nullptr &&
                         dconfig.rope_sin_table != nullptr && !rope_rules.MustFail();
  if (rope_used) {
    rope_inputs.q = rope_params[0];
    rope_inputs.k = rope_params[1];
    rope_inputs.interleaved = dconfig.rope_layout == EA_ROPE_INTERLEAVED;
    if (!params_given && derivable) {
      bool rotated_infinite = false;
      quantization.derivation.integers.params.scores =
          ScoresLikeTflite(rope_scales[0].rotated, rope_scales[1].rotated,
                           quantization.scales.scores, &rotated_infinite);
      infinite = infinite || rotated_infinite;
    }
  }

  // --- ea_decoder_quant_arena_size
  const StatusSet shape_rules = QuantDecoderShapeRules(dconfig);
  const bool shape_valid = fixed && dims_ok && !shape_rules.MustFail();
  StatusSet size_rules = shape_rules;
  const PlanTimeTable table_needs = PlanTimeTableNeeds(
      dtype, config.position, config.quant_position_table, TableQuantization(config));
  StatusSet quant_rules;  // init's, beyond the shape
  bool derived_refused = false;
  // The layer's quantization counts whenever its dimensions do (a
  // max_step_tokens refusal may come after it).
  if (fixed && dims_ok) {
    if (params_given) {
      quant_rules.Merge(QuantParamsRules(config, kv_width, given.params));
    } else if (config.quant_scales != nullptr && materialised) {
      quant_rules.Merge(scales_rules);
      if (derivable) {
        const StatusSet derived_rules =
            QuantParamsRules(config, kv_width, derivation.integers.params);
        derived_refused = derived_rules.MustFail();
        quant_rules.Merge(derived_rules);
        if (infinite) quant_rules.Tolerate(EA_ERR_BAD_ARGUMENT);
      }
    }
    if (table_needs.no_scales) quant_rules.Add(EA_ERR_NULL_POINTER);
    if (table_needs.bad) quant_rules.Add(EA_ERR_BAD_ARGUMENT);
    // "Validation as ea_mha_quant_init's": given integers are checked
    // by the size call as ea_mha_quant_arena_size checks them; the scales, their
    // derivation and a plan-time table's quantization may be checked there.
    if (params_given) size_rules.Merge(QuantParamsRules(config, kv_width, given.params));
    if (scales_rules.MustFail() || derived_refused) size_rules.Tolerate(EA_ERR_BAD_ARGUMENT);
    if (scales_rules.MustFail()) size_rules.Tolerate(EA_ERR_NULL_POINTER);
    // A plan-time table's missing or bad quantization: refused by the size call too.
    if (table_needs.bad) size_rules.Add(EA_ERR_BAD_ARGUMENT);
    if (table_needs.no_scales) size_rules.Add(EA_ERR_NULL_POINTER);
    if (infinite) size_rules.Tolerate(EA_ERR_BAD_ARGUMENT);
    size_rules.Merge(rope_rules);
    quant_rules.Merge(rope_rules);
  }
  const uint64_t need = shape_valid ? edgeattn::DecoderQuantArenaBytes(dconfig) : 0;
  Debug(
      "quant decoder: dtype %d max_positions %d d_model %d heads %d position %d max_step %d "
      "window %d kv heads %d scales %d params %d size rules %s\n",
      static_cast<int>(dtype), max_tokens, e, heads, c.position, max_step, dconfig.window,
      dconfig.n_kv_heads, c.ScalesGiven(), params_given, size_rules.Describe().c_str());
  CheckArenaSize("ea_decoder_quant_arena_size", &ea_decoder_quant_arena_size, dconfig, nulls,
                 size_rules, need);

  // --- the pool: arena, kept tensors (apart or in the arena), each step's x and y
  MemoryPool pool;
  const ArenaLayout layout = QuantArenaLayout(qc, need, materialised);
  const int arena_region = pool.AddSeparate("arena", layout.capacity, 64, layout.misalign);
  const size_t ee = materialised ? static_cast<size_t>(e) * e : 1;
  const int kept_in_arena = c.KeptInArena() ? c.kept_kind % 5 : -1;
  const auto add_kept = [&](int which, const char* name, size_t bytes, size_t align) {
    if (which == kept_in_arena) {
      return pool.AddOver(name, bytes, arena_region, int64_t{c.kept_offset} * 64);
    }
    return pool.AddSeparate(name, bytes, align);
  };
  const int in_w_region = add_kept(0, "in_proj_weight", in_w_bytes, 1);
  const int out_w_region = add_kept(1, "out_proj_weight", ee, 1);
  const bool in_bias = materialised && (qc.biases & 1), out_bias = materialised && (qc.biases & 2);
  const int in_b_region = in_bias ? add_kept(2, "in_proj_bias", in_rows * bias_bytes, 8) : -1;
  const int out_b_region = out_bias ? add_kept(3, "out_proj_bias", channels * bias_bytes, 8) : -1;
  const int table_region =
      c.CallerTable() && materialised ? add_kept(4, "table", table_count * element, 2) : -1;
  // RoPE's tables: regions of their own (a table in the arena is init's
  // rule, checked by tests/ops), kept as the weights are.
  const bool rope_tables = rope && dconfig.rope_cos_table != nullptr;
  const size_t rope_table_bytes =
      materialised && d_k > 0 ? static_cast<size_t>(max_tokens) * static_cast<size_t>(d_k) * element
                              : 64;
  const int rope_cos_region = rope_tables ? pool.AddSeparate("rope cos", rope_table_bytes, 2) : -1;
  const int rope_sin_region = rope_tables ? pool.AddSeparate("rope sin", rope_table_bytes, 2) : -1;

  // Steps are built where the whole stream's reference is cheap.
  const double dn = static_cast<double>(max_tokens), de = static_cast<double>(e);
  const bool can_step = fixed && shape_valid && materialised && max_step >= 1 &&
                        BoundedCount(max_step, e) > 0 &&
                        4.0 * dn * de * de + 2.0 * dn * dn * de <= static_cast<double>(kMaxRunWork);
  const size_t row_bytes = can_step ? static_cast<size_t>(e) * element : 0;
  const size_t io_bytes = can_step ? static_cast<size_t>(max_step) * row_bytes : 0;
  std::vector<int> kept = {in_w_region, out_w_region};
  for (int r : {in_b_region, out_b_region}) {
    if (r >= 0) kept.push_back(r);
  }
  if (table_region >= 0 && positions) kept.push_back(table_region);
  if (rope_cos_region >= 0) kept.push_back(rope_cos_region);
  if (rope_sin_region >= 0 && dconfig.rope_sin_table != nullptr) kept.push_back(rope_sin_region);
  std::vector<int> x_regions(kMaxQuantDecoderOps, -1), y_regions(kMaxQuantDecoderOps, -1);
  if (can_step) {
    std::vector<int> candidates = {arena_region, in_w_region, out_w_region};
    for (int r : {in_b_region, out_b_region, table_region, rope_cos_region, rope_sin_region}) {
      if (r >= 0) candidates.push_back(r);
    }
    for (int i = 0; i < c.OpCount(); ++i) {
      const uint8_t kind = c.ops[i].Kind();
      if (kind != kQuantDecoderStep && kind != kQuantDecoderWrongStep) continue;
      x_regions[i] = PlaceRegion(&pool, "x", io_bytes, c.ops[i].x, candidates);
      std::vector<int> y_candidates = candidates;
      y_candidates.push_back(x_regions[i]);
      y_regions[i] = PlaceRegion(&pool, "y", io_bytes, c.ops[i].y, y_candidates);
    }
  }
  pool.Allocate();

  // Contents: weights, biases, the caller's table; the reference's copies
  // (init may carve over a kept tensor the header wants outside the arena).
  FillQuantWeights(qc,
                   {reinterpret_cast<int8_t*>(pool.Bytes(in_w_region)),
                    reinterpret_cast<int8_t*>(pool.Bytes(out_w_region))},
                   {materialised ? in_w_bytes : 0, materialised ? ee : 0});
  const std::vector<BiasSlot> bias_slots = {
      {in_b_region >= 0 ? pool.Bytes(in_b_region) : nullptr, in_rows},
      {out_b_region >= 0 ? pool.Bytes(out_b_region) : nullptr, channels}};
  FillQuantBiases(qc, dtype, (qc.biases >> 2) % 4, bias_slots);
  FillTableAndInput(pool, qc, dtype, table_region, table_count, -1, 0);
  if (table_region >= 0) {
    config.quant_position_table = pool.Bytes(table_region);
    SetDecoderLayer(config, &dconfig);
  }
  std::vector<uint8_t> rope_cos0, rope_sin0;
  if (rope_tables) {
    if (materialised && d_k > 0 && d_k % 2 == 0) {  // an odd d_k has no pairs (refused)
      const edgeattn_test::RopeTables exact =
          edgeattn_test::ExactRopeTables(max_tokens, d_k, rope_inputs.interleaved);
      const ea_quant table{int8 ? 1.0f / 127 : 1.0f / 32767, 0};
      for (int which = 0; which < 2; ++which) {
        const std::vector<double>& values = which == 0 ? exact.cos : exact.sin;
        uint8_t* to = pool.Bytes(which == 0 ? rope_cos_region : rope_sin_region);
        if (int8) {
          const std::vector<int8_t> codes = edgeattn_test::QuantizeTable<int8_t>(values, table);
          memcpy(to, codes.data(), codes.size());
        } else {
          const std::vector<int16_t> codes = edgeattn_test::QuantizeTable<int16_t>(values, table);
          memcpy(to, codes.data(), codes.size() * 2);
        }
      }
    }
    rope_cos0 = CopyBytes(pool.Bytes(rope_cos_region), rope_table_bytes);
    rope_sin0 = CopyBytes(pool.Bytes(rope_sin_region), rope_table_bytes);
    rope_inputs.cos = rope_cos0.data();
    rope_inputs.sin = rope_sin0.data();
    dconfig.rope_cos_table = pool.Bytes(rope_cos_region);
    if (dconfig.rope_sin_table != nullptr) dconfig.rope_sin_table = pool.Bytes(rope_sin_region);
  }
  const std::vector<uint8_t> in_w0 = CopyBytes(pool.Bytes(in_w_region), in_w_bytes);
  const std::vector<uint8_t> out_w0 = CopyBytes(pool.Bytes(out_w_region), ee);
  const std::vector<uint8_t> in_b0 =
      in_b_region >= 0 ? CopyBytes(pool.Bytes(in_b_region), pool.Size(in_b_region))
                       : std::vector<uint8_t>();
  const std::vector<uint8_t> out_b0 =
      out_b_region >= 0 ? CopyBytes(pool.Bytes(out_b_region), pool.Size(out_b_region))
                        : std::vector<uint8_t>();
  // The caller's table as given; a plan-time one is quantized when a step
  // first needs it (its scale is valid once init accepted it).
  std::vector<uint8_t> table0;
  if (can_step && positions && table_region >= 0) {
    table0 = PlannedTable(pool, table_region, dtype, max_tokens, e, TableQuantizationValue(config));
  }
  ea_mha_quant_weights weights{};  // by name: the struct grows at its end
  weights.in_proj_weight =
      nulls & kNullInput1 ? nullptr : reinterpret_cast<const int8_t*>(pool.Bytes(in_w_region));
  weights.in_proj_bias = in_b_region >= 0 ? pool.Bytes(in_b_region) : nullptr;
  weights.out_proj_weight =
      nulls & kNullWeights ? nullptr : reinterpret_cast<const int8_t*>(pool.Bytes(out_w_region));
  weights.out_proj_bias = out_b_region >= 0 ? pool.Bytes(out_b_region) : nullptr;
  const bool null_weights_struct = nulls & kNullInput2;
  Debug(
      "ea_decoder_quant case: dtype %d max_positions %d d_model %d heads %d position %d "
      "max_step %d caller table %d scales %d params %d need %llu capacity %llu kept in arena %d "
      "ops %d can_step %d\n",
      static_cast<int>(dtype), max_tokens, e, heads, c.position, max_step, c.CallerTable(),
      c.ScalesGiven(), params_given, static_cast<unsigned long long>(need),
      static_cast<unsigned long long>(layout.capacity), kept_in_arena, c.OpCount(), can_step);
  if (Debugging()) pool.Dump();

  // --- init's rules
  StatusSet init_rules = shape_rules;
  init_rules.Merge(quant_rules);
  if ((nulls & (kNullPlan | kNullPlanConfig | kNullArena)) || null_weights_struct ||
      weights.in_proj_weight == nullptr || weights.out_proj_weight == nullptr) {
    init_rules.Add(EA_ERR_NULL_POINTER);
  }
  if (fixed && dims_ok && !int8 && Int16BiasOutOfRange(bias_slots)) {
    init_rules.Add(EA_ERR_BAD_ARGUMENT);
  }
  // Kept in a misaligned arena, a bias or a read table may be off its
  // element's alignment: refused before it is read (0.19.0's finding).
  const auto misaligned = [&](int region, size_t alignment) {
    return region >= 0 && reinterpret_cast<uintptr_t>(pool.Bytes(region)) % alignment != 0;
  };
  if (fixed && dims_ok &&
      (misaligned(in_b_region, bias_bytes) || misaligned(out_b_region, bias_bytes) ||
       (positions && misaligned(table_region, element)))) {
    init_rules.Add(EA_ERR_BAD_ARGUMENT);
  }
  const ea_decoder_quant_config* init_config = nulls & kNullPlanConfig ? nullptr : &dconfig;
  const ea_mha_quant_weights* init_weights = null_weights_struct ? nullptr : &weights;
  ea_arena arena;
  InitArena(qc.arena, layout, pool.Bytes(arena_region), nulls & kNullArenaBase, &arena);
  const size_t used_before = arena.used;
  if (!(nulls & kNullArena)) init_rules.Merge(ArenaRules(arena, need, shape_valid));
  // Kept tensors inside the bytes the carve would take: the header keeps x
  // and y off them but says nothing of init; refused, or the stream must
  // still be the reference's (on the tensors as given).
  const ByteRange next_carve =
      arena.base != nullptr && shape_valid && arena.used <= arena.capacity
          ? pool.RangeOf(arena.base + arena.used, static_cast<size_t>(need))
          : ByteRange{};
  // The refusal may come before another rule's status: init checks the
  // carve before it derives the integers (whose NULL scales would say
  // EA_ERR_NULL_POINTER), as ea_mha_quant_init does.
  for (int r : kept) {
    if (pool.Range(r).Overlaps(next_carve)) {
      init_rules.AllowRefusal();
      init_rules.Tolerate(EA_ERR_BAD_ARGUMENT);
    }
  }
  pool.Snapshot();
  const std::vector<ByteRange> kept_ranges = [&] {
    std::vector<ByteRange> ranges;
    for (int r : kept) ranges.push_back(pool.Range(r));
    return ranges;
  }();

  // The reference of op i, kept for the next target while the stream it
  // was computed on is the same: an x that is not a buffer of its own (over
  // the arena's bytes before the carve, say) is not refilled, so a step in
  // place on an earlier target changes what a later one reads.
  std::vector<int32_t> want_cache[kMaxQuantDecoderOps];
  std::vector<uint8_t> want_stream[kMaxQuantDecoderOps];
  bool counted = false;
  const ea_dtype wrong_dtype = int8 ? EA_DTYPE_INT16 : EA_DTYPE_INT8;

  for (int64_t target : SelectTargets(c.common.targets)) {
    ForceTarget(target);
    SetContext("ea_decoder_quant_init", TargetName(target));
    // The pool as the previous target left it: init writes its carve again,
    // and a step reads no cache byte it has not written since init or reset.
    pool.Snapshot();
    arena.used = used_before;
    ea_decoder_quant decoder;
    memset(&decoder, 0, sizeof(decoder));
    ea_decoder_quant* const handle = nulls & kNullPlan ? nullptr : &decoder;
    const ea_status init_status = ea_decoder_quant_init(handle, init_config, init_weights,
                                                        nulls & kNullArena ? nullptr : &arena);
    ExpectStatus("ea_decoder_quant_init", init_status, init_rules);
    const ByteRange carve =
        CheckInitWrites("ea_decoder_quant_init", init_status, pool, arena, used_before, need);
    if (init_status == EA_OK) {
      if (decoder.length != 0)
        Fail("init left length %lld", static_cast<long long>(decoder.length));
      if (!counted) ++Stats().initialised;
    }
    counted = true;
    if (!can_step) continue;

    // The model of the decoder: ready, the tokens since init or reset.
    bool ready = init_status == EA_OK;
    int64_t length = 0;
    std::vector<uint8_t> stream;
    for (int i = 0; i < c.OpCount(); ++i) {
      const QuantDecoderOp& op = c.ops[i];
      const uint8_t op_nulls = op.Nulls();
      ea_decoder_quant* const d = op_nulls & kDecNullDecoder ? nullptr : &decoder;
      switch (op.Kind()) {
        case kQuantDecoderStep:
        case kQuantDecoderWrongStep: {
          const bool wrong = op.Kind() == kQuantDecoderWrongStep;
          SetContext(wrong ? "ea_decoder_quant_step (other dtype)" : "ea_decoder_quant_step",
                     TargetName(target));
          const int32_t n = StepCount(op, length, max_tokens, max_step);
          const ByteRange x_region = pool.Range(x_regions[i]), y_region = pool.Range(y_regions[i]);
          // The step's tokens, where x is a buffer of its own.
          bool x_apart = true;
          for (const ByteRange& r : kept_ranges) x_apart = x_apart && !r.Overlaps(x_region);
          x_apart = x_apart && !pool.Range(arena_region).Overlaps(x_region);
          if (x_apart) {
            FillActivations(pool.Bytes(x_regions[i]), io_bytes / element, dtype, qc.x_mode,
                            op.x_seed);
          }
          const uint8_t* x = op_nulls & kDecNullFirst ? nullptr : pool.Bytes(x_regions[i]);
          uint8_t* y = op_nulls & kDecNullSecond ? nullptr : pool.Bytes(y_regions[i]);
          StatusSet rules;
          if (d == nullptr || x == nullptr || y == nullptr) rules.Add(EA_ERR_NULL_POINTER);
          if (!ready || wrong) rules.Add(EA_ERR_BAD_ARGUMENT);
          const bool n_ok = n >= 1 && n <= max_step;
          if (!n_ok) rules.Add(EA_ERR_BAD_DIMENSION);
          if (n_ok && length + n > max_tokens) rules.Add(EA_ERR_CACHE_FULL);
          ByteRange x_range, y_range;
          if (n_ok) {
            const size_t bytes = static_cast<size_t>(n) * row_bytes;
            x_range =
                x != nullptr ? ByteRange{x_region.begin, x_region.begin + bytes} : ByteRange{};
            y_range =
                y != nullptr ? ByteRange{y_region.begin, y_region.begin + bytes} : ByteRange{};
            for (const ByteRange& r : kept_ranges) {
              if (r.Overlaps(x_range) || r.Overlaps(y_range)) rules.Add(EA_ERR_BAD_ARGUMENT);
            }
            if (ready && (carve.Overlaps(x_range) || carve.Overlaps(y_range))) {
              rules.Add(EA_ERR_BAD_ARGUMENT);
            }
            // y may be x or overlap it ("x is read before y is written"): no rule.
          }
          const std::vector<uint8_t> x0 =
              n_ok ? CopyBytes(pool.Bytes(x_regions[i]), static_cast<size_t>(n) * row_bytes)
                   : std::vector<uint8_t>();
          pool.Snapshot();
          const ea_status status = Step(wrong ? wrong_dtype : dtype, d, x, n, y);
          Debug("op %d: step of %d at %lld%s: %d (want %s)\n", i, n, static_cast<long long>(length),
                wrong ? " (other dtype)" : "", static_cast<int>(status), rules.Describe().c_str());
          ExpectStatus("step", status, rules);
          ++Stats().steps;
          if (status != EA_OK) {
            ++Stats().refused_steps;
            ExpectUntouched("step", pool, {}, "was refused");
            if (ready && decoder.length != length) Fail("a refused step moved length");
            break;
          }
          ExpectUntouched("step", pool, {carve, y_range}, "succeeded");
          stream.insert(stream.end(), x0.begin(), x0.end());
          length += n;
          if (decoder.length != length) {
            Fail("length %lld after a step, want %lld", static_cast<long long>(decoder.length),
                 static_cast<long long>(length));
          }
          // The causal chain over the stream since init or reset (with the
          // decoder's window).
          const bool safe = used != nullptr && [&] {
            const ProjectionBound bounds[4] = {{&used->q_proj, e},
                                               {&used->k_proj, kv_width},
                                               {&used->v_proj, kv_width},
                                               {&used->out_proj, e}};
            return ReferenceSafe(int8, int8 ? MaxInt8Bias(bias_slots) : 0, e, {bounds, bounds + 4},
                                 used->scores, e / heads, used->context, max_tokens);
          }();
          if (!safe) {
            ++Stats().not_compared;
            break;
          }
          if (want_stream[i] != stream) {
            if (positions && table0.empty()) {
              table0 = QuantizedSinusoid(int8, max_tokens, e, TableQuantizationValue(config));
            }
            const auto in_b = in_b0.empty() ? nullptr : in_b0.data();
            const auto out_b = out_b0.empty() ? nullptr : out_b0.data();
            want_cache[i] =
                MhaReference(config, *used, static_cast<int>(length), static_cast<int>(length),
                             stream.data(), positions ? table0.data() : nullptr,
                             reinterpret_cast<const int8_t*>(in_w0.data()),
                             reinterpret_cast<const int8_t*>(out_w0.data()), in_b, out_b,
                             dconfig.window, dconfig.n_kv_heads, rope_used ? &rope_inputs : nullptr)
                    .y;
            want_stream[i] = stream;
          }
          const size_t first = static_cast<size_t>(length - n) * static_cast<size_t>(e);
          const std::vector<int32_t> got = Widen(dtype, pool.Bytes(y_regions[i]),
                                                 static_cast<size_t>(n) * static_cast<size_t>(e));
          for (size_t j = 0; j < got.size(); ++j) {
            if (got[j] != want_cache[i][first + j]) {
              Fail("step of %d tokens at position %lld: y[%zu] = %d, the causal chain says %d", n,
                   static_cast<long long>(length - n), j, got[j], want_cache[i][first + j]);
            }
          }
          ++Stats().compared;
          if (groups != heads) ++Stats().grouped_compared;
          if (dconfig.window > 0) ++Stats().windowed_compared;
          if (rope_used) ++Stats().rope_compared;
          break;
        }
        case kQuantDecoderReset: {
          SetContext("ea_decoder_quant_reset", TargetName(target));
          StatusSet rules;
          if (d == nullptr) rules.Add(EA_ERR_NULL_POINTER);
          if (!ready) rules.Add(EA_ERR_BAD_ARGUMENT);
          pool.Snapshot();
          const ea_status status = ea_decoder_quant_reset(d);
          ExpectStatus("reset", status, rules);
          ExpectUntouched("reset", pool, {}, "returned");
          ++Stats().resets;
          if (status == EA_OK) {
            length = 0;
            stream.clear();
            if (decoder.length != 0)
              Fail("reset left length %lld", static_cast<long long>(decoder.length));
          }
          break;
        }
        default: {
          SetContext("ea_decoder_quant_init", "re-init");
          ++Stats().reinits;
          const bool good = op.reinit_field >= 240 && init_status == EA_OK;
          const ea_decoder_quant_config bad =
              BrokenDecoderConfig(dconfig, op.reinit_field, op.reinit_value);
          StatusSet rules;
          if (good) {
            rules = init_rules;
            arena.used = used_before;  // the same bytes again
          } else {
            rules = QuantDecoderShapeRules(bad);
            if (IsFixed(bad.dtype)) rules.Merge(ArenaRules(arena, 0, false));
            // A broken dtype, position or quantization may be found by later rules too.
            rules.Add(EA_ERR_BAD_ARGUMENT);
            rules.Add(EA_ERR_NULL_POINTER);
          }
          if (op_nulls & (kDecNullDecoder | kDecNullFirst | kDecNullSecond)) {
            rules.Add(EA_ERR_NULL_POINTER);
          }
          pool.Snapshot();
          const size_t used = arena.used;
          const ea_status status = ea_decoder_quant_init(
              d, op_nulls & kDecNullFirst ? nullptr : (good ? &dconfig : &bad), init_weights,
              op_nulls & kDecNullSecond ? nullptr : &arena);
          ExpectStatus(good ? "re-init with the good config" : "re-init with a broken config",
                       status, rules);
          if (!good && status == EA_OK) Fail("a broken re-init was accepted");
          if (status != EA_OK) {
            if (arena.used != used) Fail("failed re-init moved arena.used");
            ExpectUntouched("re-init", pool, {}, "failed");
            if (d != nullptr) ready = false;  // a failed init clears ready
            break;
          }
          ExpectUntouched("re-init", pool, {carve}, "succeeded");
          if (arena.used - used_before != need) Fail("re-init carved other bytes");
          ready = true;
          length = 0;
          stream.clear();
          break;
        }
      }
    }
  }
  ForceTarget(0);
}

}  // namespace edgeattn_fuzz
