// Driver for fixed-point multi-head attention: ea_mha_quant_arena_size on an INT8 /
// INT16 config, ea_mha_quant_derive, ea_mha_quant_init, ea_mha_quant_run_s8
// and ea_mha_quant_run_s16 on one decoded QuantCase. Checked: statuses against the
// documented rules (expected_status.h), nothing written on a refusal (one
// canary-filled pool), a plan carving exactly ea_mha_quant_arena_size's bytes and
// writing only its carve, a run writing only its outputs and the carve;
// derive's integers against TFLite's Prepare as tests/reference restates it;
// a run's y and probabilities against the integer reference
// (tests/reference/tflite_chain_reference.h) on the integers the plan uses,
// on every SIMD target; bit-identical reruns, and a second plan in another
// arena on a parallel-for of another worker count; a broken re-plan.
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
#include "quant_case_support.h"
#include "quant_mha_chain.h"
#include "reference/tflite_chain_reference.h"
#include "simd_targets.h"
#include "softmax_luts.h"
#include "test_support.h"

namespace edgeattn_fuzz {
namespace {

using edgeattn_test::SetDecoderLayer;

QuantStats& Stats() {
  static QuantStats& stats = StatsFor("fixed point");
  return stats;
}

void ExpectSameIntegers(const ea_mha_config& c, const ea_mha_quant_params& got,
                        const ea_mha_quant_params& want) {
  if (c.position != EA_POSITION_NONE) {
    ExpectSameAdd(got.add, want.add);
    ExpectSameQuant("position", got.position, want.position);
  }
  const char* names[4] = {"q_proj", "k_proj", "v_proj", "out_proj"};
  const ea_linear_quant_params* g[4] = {&got.q_proj, &got.k_proj, &got.v_proj, &got.out_proj};
  const ea_linear_quant_params* w[4] = {&want.q_proj, &want.k_proj, &want.v_proj, &want.out_proj};
  for (int l = 0; l < 4; ++l) ExpectSameLinear(names[l], *g[l], *w[l], c.d_model);
  ExpectSameMatmul("scores", got.scores, want.scores);
  ExpectSameMatmul("context", got.context, want.context);
  ExpectSameSoftmax(c.dtype == EA_DTYPE_INT8, got.softmax, want.softmax);
}

ea_status Run(ea_dtype run_dtype, const ea_mha_quant_plan* plan, const void* x,
              const RunLengths& run, void* y, void* attn) {
  if (run_dtype == EA_DTYPE_INT8) {
    return ea_mha_quant_run_s8(plan, static_cast<const int8_t*>(x), run.n_tokens, run.n_valid_keys,
                               static_cast<int8_t*>(y), static_cast<int8_t*>(attn));
  }
  return ea_mha_quant_run_s16(plan, static_cast<const int16_t*>(x), run.n_tokens, run.n_valid_keys,
                              static_cast<int16_t*>(y), static_cast<int16_t*>(attn));
}

ea_status Trace(ea_dtype run_dtype, const ea_mha_quant_plan* plan, const void* x,
                const RunLengths& run, void* y, const ea_mha_quant_taps* taps) {
  if (run_dtype == EA_DTYPE_INT8) {
    return ea_mha_quant_trace_s8(plan, static_cast<const int8_t*>(x), run.n_tokens,
                                 run.n_valid_keys, static_cast<int8_t*>(y), taps);
  }
  return ea_mha_quant_trace_s16(plan, static_cast<const int16_t*>(x), run.n_tokens,
                                run.n_valid_keys, static_cast<int16_t*>(y), taps);
}

// ea_mha_quant_trace with every tap in buffers of its own against the run
// into fresh y and attn_weights: the same status, and on success the same
// y and probabilities, bytes for bytes (the taps are copies, never a
// different computation).
void ExpectTraceIsTheRun(ea_dtype dtype, const ea_mha_quant_plan* plan, const void* x,
                         const RunLengths& run, int32_t d_model, int32_t heads) {
  const size_t element = dtype == EA_DTYPE_INT16 ? 2 : 1;
  const size_t n = static_cast<size_t>(run.n_tokens);
  const size_t activations = n * static_cast<size_t>(d_model) * element;
  const size_t per_head = static_cast<size_t>(heads) * n * n * element;
  std::vector<uint8_t> y(activations, 0x5A), probs(per_head, 0x5A), traced_y(activations, 0x6B);
  std::vector<uint8_t> taps_bytes[7];  // positioned, q, k, v, scores, probs, context
  void* buffers[7];
  for (int t = 0; t < 7; ++t) {
    taps_bytes[t].assign(t == 4 || t == 5 ? per_head : activations, 0x6B);
    buffers[t] = taps_bytes[t].data();
  }
  const ea_mha_quant_taps taps = edgeattn_test::QuantTaps(buffers);
  const ea_status ran = Run(dtype, plan, x, run, y.data(), probs.data());
  const ea_status traced = Trace(dtype, plan, x, run, traced_y.data(), &taps);
  SetContext("ea_mha_quant_trace", "-");
  if (ran != traced) Fail("trace returned %d, the run %d", traced, ran);
  if (ran == EA_OK && (y != traced_y || probs != taps_bytes[5])) {
    Fail("trace's y or probabilities differ from the run's");
  }
}

// The causal layer streamed through ea_decoder_quant, in steps whose
// sizes the input's x picks: y must be the reference's bit for bit, on every
// selected target. x and y in buffers of their own; the decoder's arena
// from its arena_size.
void ExpectStreamEqualsFullRun(const ea_mha_config& config, const ea_mha_quant_weights& weights,
                               const std::vector<uint8_t>& x, int32_t n, size_t element,
                               uint8_t target_selector, const std::vector<int32_t>& want_y) {
  ea_decoder_quant_config decoder_config{};  // by name: the struct grows at its end
  SetDecoderLayer(config, &decoder_config);  // causal; the parallel-for is not the decoder's
  decoder_config.max_step_tokens = 1 + static_cast<int32_t>(x[0] % static_cast<uint32_t>(n));
  SetContext("ea_decoder_quant", "stream");
  size_t bytes = 0;
  ea_status status = ea_decoder_quant_arena_size(&decoder_config, &bytes);
  if (status != EA_OK) {
    Fail("ea_decoder_quant_arena_size refused a layer ea_mha_quant_init took: %s",
         ea_status_str(status));
    return;
  }
  if (bytes != edgeattn::DecoderQuantArenaBytes(decoder_config)) {
    Fail("ea_decoder_quant_arena_size differs from DecoderQuantArenaBytes");
  }
  std::vector<uint8_t> storage(bytes + 64);
  uint8_t* base = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
  const size_t row = static_cast<size_t>(config.d_model) * element;
  for (int64_t target : SelectTargets(target_selector)) {
    ForceTarget(target);
    SetContext("ea_decoder_quant", TargetName(target));
    ea_arena arena;
    ea_arena_init(&arena, base, bytes);
    ea_decoder_quant decoder;
    memset(&decoder, 0, sizeof(decoder));
    status = ea_decoder_quant_init(&decoder, &decoder_config, &weights, &arena);
    if (status != EA_OK) {
      Fail("ea_decoder_quant_init refused a layer ea_mha_quant_init took: %s",
           ea_status_str(status));
      break;
    }
    std::vector<uint8_t> y(x.size(), 0xA5);
    for (int32_t t = 0, i = 1; t < n && status == EA_OK; ++i) {
      const int32_t pick = 1 + static_cast<int32_t>(x[static_cast<size_t>(i) % x.size()] % 5u);
      const int32_t step = std::min({pick, decoder_config.max_step_tokens, n - t});
      const size_t at = static_cast<size_t>(t) * row;
      status =
          element == 1
              ? ea_decoder_quant_step_s8(&decoder, reinterpret_cast<const int8_t*>(x.data() + at),
                                         step, reinterpret_cast<int8_t*>(y.data() + at))
              : ea_decoder_quant_step_s16(&decoder, reinterpret_cast<const int16_t*>(x.data() + at),
                                          step, reinterpret_cast<int16_t*>(y.data() + at));
      t += step;
    }
    if (status != EA_OK) {
      Fail("ea_decoder_quant_step: %s", ea_status_str(status));
      break;
    }
    for (size_t i = 0; i < want_y.size(); ++i) {
      int16_t got16 = 0;
      if (element == 2) memcpy(&got16, y.data() + 2 * i, 2);
      const int32_t got = element == 1 ? static_cast<int8_t>(y[i]) : got16;
      if (got != want_y[i]) {
        Fail("the stream's y[%zu] = %d, the causal chain's %d", i, got, want_y[i]);
        break;
      }
    }
  }
  ForceTarget(0);
}

}  // namespace

void FuzzQuantMha(ByteReader& input) {
  QuantCase c;
  Visit(input, c);
  const QuantCommon& qc = c.quant;
  ++Stats().cases;
  const uint16_t nulls = c.common.Nulls();
  const ea_dtype dtype = QuantDtype(c.dtype_kind, c.dtype_raw);
  const bool fixed = IsFixed(dtype);
  const bool int8 = dtype == EA_DTYPE_INT8;
  const int32_t heads = HeadsOf(c);
  const int32_t e = c.d_model, max_tokens = c.max_tokens;
  const size_t element = ElementBytes(dtype);
  const size_t bias_bytes = BiasBytes(dtype);
  const bool positions = c.position != EA_POSITION_NONE;
  const bool dims_ok = max_tokens > 0 && e > 0 && heads > 0 && e % heads == 0;
  // Tensors small enough to build: in_proj [3E, E] and the table [n, E].
  const size_t in_count = BoundedCount(3 * int64_t{e}, e);
  const size_t table_count = BoundedCount(max_tokens, e);
  const bool materialised = in_count > 0 && table_count > 0;

  ea_mha_config config{};
  config.dtype = dtype;
  config.max_tokens = max_tokens;
  config.d_model = e;
  config.n_heads = heads;
  config.mask = static_cast<ea_mask>(c.mask);
  config.position = static_cast<ea_position>(c.position);
  config.weights_layout = EA_WEIGHTS_ROW_MAJOR;
  config.parallel = MainParallel(qc.workers);
  static const uint8_t kStandIn[64] = {};
  config.quant_position_table = c.CallerTable() ? kStandIn : nullptr;

  // --- the quantization: scales (nominal, jittered, or bad), weights' scales,
  // TFLite's Prepare on valid ones, given integers (derived or defaults, edited)
  MhaQuantization quantization;
  QuantizeLayer(c.tensors, qc, c.ScalesGiven(), materialised, config.d_model, &config,
                &quantization);
  const size_t channels = materialised ? static_cast<size_t>(e) : 1;
  const StatusSet& scales_rules = quantization.scales_rules;
  const bool scales_checkable = fixed && dims_ok && materialised && config.quant_scales != nullptr;
  const bool derivable = quantization.derivable, infinite = quantization.infinite;
  const Derivation& derivation = quantization.derivation;
  if (infinite && SkipKnown(kQuantInfiniteMultiplier)) return;
  const bool params_given = quantization.params_given;
  const Integers& given = quantization.given;
  // The integers the plan uses, when it plans.
  const ea_mha_quant_params* used = quantization.used;

  // --- ea_mha_quant_arena_size
  StatusSet shape_rules;
  if (fixed) {
    shape_rules = QuantMhaShapeRules(config);
  } else {
    shape_rules.Add(EA_ERR_BAD_ARGUMENT);
  }
  const bool shape_valid = !shape_rules.MustFail() && dims_ok;
  StatusSet size_rules = shape_rules;
  if (params_given && shape_valid)
    size_rules.Merge(QuantParamsRules(config, config.d_model, given.params));
  // A plan-time table's missing or bad quantization: refused by the size
  // call as by init.
  const PlanTimeTable table_needs = PlanTimeTableNeeds(
      dtype, config.position, config.quant_position_table, TableQuantization(config));
  if (table_needs.no_scales) size_rules.Add(EA_ERR_NULL_POINTER);
  if (table_needs.bad) size_rules.Add(EA_ERR_BAD_ARGUMENT);
  const uint64_t need =
      shape_valid
          ? edgeattn::MhaQuantArenaBytes(
                max_tokens, e, heads, dtype,
                edgeattn::StorageOf(config.position, config.quant_position_table == nullptr),
                config.parallel.max_workers)
          : 0;
  // F32 and values that are no dtype: EA_ERR_BAD_ARGUMENT (shape_rules).
  CheckArenaSize("ea_mha_quant_arena_size", &ea_mha_quant_arena_size, config, nulls, size_rules,
                 need);

  // --- the pool: arena, weights, biases, table, derive's buffer, x, y, weights out
  MemoryPool pool;
  const ArenaLayout layout = QuantArenaLayout(qc, need, materialised);
  const int arena_region = pool.AddSeparate("arena", layout.capacity, 64, layout.misalign);
  const size_t ee = materialised ? static_cast<size_t>(e) * e : 1;
  const int in_w_region = pool.AddSeparate("in_proj_weight", materialised ? 3 * ee : 1, 1);
  const int out_w_region = pool.AddSeparate("out_proj_weight", ee, 1);
  // Biases only for built shapes: int16 biases are read before the arena check.
  const bool in_bias = materialised && (qc.biases & 1), out_bias = materialised && (qc.biases & 2);
  const int in_b_region =
      in_bias ? pool.AddSeparate("in_proj_bias", 3 * channels * bias_bytes, 8) : -1;
  const int out_b_region =
      out_bias ? pool.AddSeparate("out_proj_bias", channels * bias_bytes, 8) : -1;
  const int table_region =
      c.CallerTable() && materialised ? pool.AddSeparate("table", table_count * element, 2) : -1;
  const size_t channel_ints = EA_MHA_QUANT_CHANNEL_INTS(static_cast<size_t>(channels));
  const int channel_region = pool.AddSeparate("channel_ints", channel_ints * 4, 4);

  const RunLengths run = ResolveRun(qc, max_tokens, dtype, nulls, heads);
  const int64_t n = run.n;
  const size_t x_count = BoundedCount(n, e);
  const size_t attn_count =
      run.want_weights ? (run.weights_overflow ? 16 : BoundedCount(n * n, heads)) : 0;
  const double dn = static_cast<double>(n), de = static_cast<double>(e);
  const double work = 4.0 * dn * de * de + 2.0 * dn * dn * de;
  const bool can_run = fixed && shape_valid && materialised && x_count > 0 &&
                       (!run.want_weights || attn_count > 0) &&
                       (run.refused_early || work <= static_cast<double>(kMaxRunWork));
  std::vector<int> earlier = {arena_region, in_w_region, out_w_region};
  for (int r : {in_b_region, out_b_region, table_region}) {
    if (r >= 0) earlier.push_back(r);
  }
  const RunRegions regions = can_run ? PlaceRunRegions(&pool, qc, earlier, x_count * element,
                                                       x_count * element, attn_count * element)
                                     : RunRegions{};
  pool.Allocate();

  // Contents: int8 weights, biases, the caller's table, x.
  FillQuantWeights(qc,
                   {reinterpret_cast<int8_t*>(pool.Bytes(in_w_region)),
                    reinterpret_cast<int8_t*>(pool.Bytes(out_w_region))},
                   {materialised ? 3 * ee : 0, materialised ? ee : 0});
  // Magnitude: int8 2^10, 2^20, 2^30, any; int16 2^20..2^47.
  const std::vector<BiasSlot> bias_slots = {
      {in_b_region >= 0 ? pool.Bytes(in_b_region) : nullptr, 3 * channels},
      {out_b_region >= 0 ? pool.Bytes(out_b_region) : nullptr, channels}};
  FillQuantBiases(qc, dtype, (qc.biases >> 2) % 4, bias_slots);
  FillTableAndInput(pool, qc, dtype, table_region, table_count, regions.x, x_count);
  if (table_region >= 0) {
    config.quant_position_table = pool.Bytes(table_region);
  } else if (c.CallerTable()) {
    config.quant_position_table = kStandIn;  // never read: the shape is refused or not planned
  }
  const int8_t* in_w = reinterpret_cast<const int8_t*>(pool.Bytes(in_w_region));
  const int8_t* out_w = reinterpret_cast<const int8_t*>(pool.Bytes(out_w_region));
  const uint8_t* in_b = in_b_region >= 0 ? pool.Bytes(in_b_region) : nullptr;
  const uint8_t* out_b = out_b_region >= 0 ? pool.Bytes(out_b_region) : nullptr;
  Debug(
      "ea_mha_quant case: dtype %d max_tokens %d d_model %d heads %d mask %d position %d "
      "caller table %d scales %d params %d need %llu capacity %llu n_tokens %d n_valid %d weights "
      "%d "
      "can_run %d\n",
      static_cast<int>(dtype), max_tokens, e, heads, c.mask, c.position, c.CallerTable(),
      c.ScalesGiven(), params_given, static_cast<unsigned long long>(need),
      static_cast<unsigned long long>(layout.capacity), run.n_tokens, run.n_valid_keys,
      run.want_weights, can_run);
  if (Debugging()) pool.Dump();

  // --- ea_mha_quant_derive: TFLite's Prepare, nothing written on refusal
  if (fixed && materialised && !(e > INT32_MAX / 8 && SkipKnown(kQuantChannelCountOverflow))) {
    SetContext("ea_mha_quant_derive", "-");
    StatusSet rules;
    const bool null_channels = nulls & kNullInput2;
    const bool short_channels = qc.derive_kind >= 224;
    if (null_channels) rules.Add(EA_ERR_NULL_POINTER);
    if (e <= 0 || heads <= 0) rules.Add(EA_ERR_BAD_DIMENSION);
    if (e > 0 && heads > 0 && e % heads != 0) rules.Add(EA_ERR_HEADS_MISMATCH);
    if (short_channels) rules.Add(EA_ERR_ARENA_TOO_SMALL);
    if (config.quant_scales == nullptr) rules.Add(EA_ERR_NULL_POINTER);
    if (scales_checkable) rules.Merge(scales_rules);
    bool refused_by_integers = false;
    if (derivable) {
      const StatusSet derived_rules =
          QuantParamsRules(config, config.d_model, derivation.integers.params);
      refused_by_integers = derived_rules.MustFail();
      rules.Merge(derived_rules);
      if (infinite) rules.Tolerate(EA_ERR_BAD_ARGUMENT);  // or the saturated multiplier
    }
    pool.Snapshot();
    ea_mha_quant_params params;
    memset(&params, 0xCD, sizeof(params));
    const ea_mha_quant_params before = params;
    int32_t* buffer = reinterpret_cast<int32_t*>(pool.Bytes(channel_region));
    const ea_status status = ea_mha_quant_derive(&config, &params, null_channels ? nullptr : buffer,
                                                 channel_ints - (short_channels ? 1 : 0));
    ExpectStatus("ea_mha_quant_derive", status, rules);
    if (status != EA_OK) {
      if (memcmp(&params, &before, sizeof(params)) != 0) Fail("refused derive wrote *params");
      // Known: a refusal of the derived integers leaves them in channel_ints.
      const bool known = refused_by_integers && SkipKnown(kQuantRefusalWrites);
      if (!known) ExpectUntouched("ea_mha_quant_derive", pool, {}, "refused");
    } else {
      ++Stats().derived;
      ExpectUntouched("ea_mha_quant_derive", pool, {pool.Range(channel_region)}, "succeeded");
      if (derivable) ExpectSameIntegers(config, params, derivation.integers.params);
      const ea_linear_quant_params* linears[4] = {&params.q_proj, &params.k_proj, &params.v_proj,
                                                  &params.out_proj};
      for (const ea_linear_quant_params* l : linears) {
        const int32_t* arrays[2] = {l->output_multiplier, l->output_shift};
        for (const int32_t* a : arrays) {
          if (a < buffer || a + e > buffer + channel_ints) {
            Fail("derive's per-channel arrays do not point into channel_ints");
          }
        }
      }
    }
  }
  // Shapes too large to build: a buffer of 8 ints is short for any d_model
  // >= 2 (8 * d_model must not overflow on the way: finding 15).
  if (fixed && !materialised && e >= 2 &&
      !(e > INT32_MAX / 8 && SkipKnown(kQuantChannelCountOverflow))) {
    SetContext("ea_mha_quant_derive", "large shape");
    StatusSet rules;
    if (heads <= 0) rules.Add(EA_ERR_BAD_DIMENSION);
    if (heads > 0 && e % heads != 0) rules.Add(EA_ERR_HEADS_MISMATCH);
    // in_proj's 3 * d_model^2 elements past EA_MAX_ELEMENTS are checked first.
    if (int64_t{e} * e > static_cast<int64_t>(EA_MAX_ELEMENTS) / 3) {
      rules.Add(EA_ERR_DIMENSION_OVERFLOW);
    }
    rules.Add(EA_ERR_ARENA_TOO_SMALL);
    ea_mha_quant_params params;
    memset(&params, 0xCD, sizeof(params));
    const ea_mha_quant_params before = params;
    int32_t small[8];
    memset(small, 0xCD, sizeof(small));
    ExpectStatus("ea_mha_quant_derive", ea_mha_quant_derive(&config, &params, small, 8), rules);
    for (int32_t v : small) {
      if (v != static_cast<int32_t>(0xCDCDCDCDu)) Fail("refused derive wrote channel_ints");
    }
    if (memcmp(&params, &before, sizeof(params)) != 0) Fail("refused derive wrote *params");
  }
  if (!fixed && materialised) {
    ea_mha_quant_params params{};
    std::vector<int32_t> buffer(channel_ints);
    StatusSet rules;
    rules.Add(EA_ERR_BAD_ARGUMENT);
    SetContext("ea_mha_quant_derive", "bad dtype");
    ExpectStatus("ea_mha_quant_derive",
                 ea_mha_quant_derive(&config, &params, buffer.data(), buffer.size()), rules);
  }

  // --- ea_mha_quant_init
  ea_mha_quant_weights weights{};  // by name: the struct grows at its end
  weights.in_proj_weight = nulls & kNullInput1 ? nullptr : in_w;
  weights.in_proj_bias = in_b;
  weights.out_proj_weight = nulls & kNullWeights ? nullptr : out_w;
  weights.out_proj_bias = out_b;
  // W_Q, W_K, W_V as three tensors (kNullInput1: W_K missing); their biases
  // in the same form, or (bit 6) in the other one: the forms are independent.
  const bool separate_weights = (qc.biases & 16) && materialised;
  if (separate_weights) {
    weights.in_proj_weight = nullptr;
    weights.q_proj_weight = in_w;
    weights.k_proj_weight = nulls & kNullInput1 ? nullptr : in_w + ee;
    weights.v_proj_weight = in_w + 2 * ee;
  }
  if (separate_weights != ((qc.biases & 64) && materialised)) {
    const size_t part_bias = channels * bias_bytes;
    weights.in_proj_bias = nullptr;
    weights.q_proj_bias = in_b;
    weights.k_proj_bias = in_b != nullptr ? in_b + part_bias : nullptr;
    weights.v_proj_bias = in_b != nullptr ? in_b + 2 * part_bias : nullptr;
  }
  const bool in_proj_missing =
      weights.in_proj_weight == nullptr &&
      (weights.q_proj_weight == nullptr || weights.k_proj_weight == nullptr ||
       weights.v_proj_weight == nullptr);
  StatusSet plan_rules = shape_rules;
  if ((nulls & (kNullPlan | kNullPlanConfig | kNullArena)) || in_proj_missing ||
      weights.out_proj_weight == nullptr) {
    plan_rules.Add(EA_ERR_NULL_POINTER);
  }
  bool refusal_by_derived_integers = false;
  if (fixed && shape_valid) {
    if (params_given) {
      plan_rules.Merge(QuantParamsRules(config, config.d_model, given.params));
    }
    if (table_needs.no_scales) plan_rules.Add(EA_ERR_NULL_POINTER);
    if (table_needs.bad) plan_rules.Add(EA_ERR_BAD_ARGUMENT);
    if (!params_given && config.quant_scales != nullptr && materialised) {
      plan_rules.Merge(scales_rules);
      if (derivable) {
        const StatusSet derived_rules =
            QuantParamsRules(config, config.d_model, derivation.integers.params);
        refusal_by_derived_integers = derived_rules.MustFail();
        plan_rules.Merge(derived_rules);
        if (infinite) plan_rules.Tolerate(EA_ERR_BAD_ARGUMENT);
      }
    }
    // int16 biases inside TFLite's [-2^47, 2^47) accumulator domain.
    if (!int8 && Int16BiasOutOfRange(bias_slots)) plan_rules.Add(EA_ERR_BAD_ARGUMENT);
  }
  ea_arena arena;
  InitArena(qc.arena, layout, pool.Bytes(arena_region), nulls & kNullArenaBase, &arena);
  if (!(nulls & kNullArena)) plan_rules.Merge(ArenaRules(arena, need, shape_valid));
  ea_mha_quant_plan plan;
  memset(&plan, 0, sizeof(plan));
  pool.Snapshot();
  const size_t used_before = arena.used;
  SetContext("ea_mha_quant_init", "-");
  const ea_status plan_status = ea_mha_quant_init(nulls & kNullPlan ? nullptr : &plan,
                                                  nulls & kNullPlanConfig ? nullptr : &config,
                                                  &weights, nulls & kNullArena ? nullptr : &arena);
  ExpectStatus("ea_mha_quant_init", plan_status, plan_rules);
  if (plan_status != EA_OK) {
    if (arena.used != used_before) Fail("failed init moved arena.used");
    // Known: a refusal of the derived integers leaves them in the arena's free bytes.
    if (!(refusal_by_derived_integers && SkipKnown(kQuantRefusalWrites))) {
      ExpectUntouched("ea_mha_quant_init", pool, {}, "failed");
    }
    if (can_run && !(nulls & kNullPlan)) {
      ExpectUnplannedRefused(&pool, "ea_mha_run", [&] {
        return Run(dtype, &plan, pool.Bytes(regions.x), run, pool.Bytes(regions.y),
                   regions.attn >= 0 ? pool.Bytes(regions.attn) : nullptr);
      });
    }
    return;
  }
  const ByteRange carve = CarveRange(pool, arena, used_before);
  if (arena.used - used_before != need) {
    Fail("ea_mha_quant_init carved %zu bytes, arena_size said %llu", arena.used - used_before,
         static_cast<unsigned long long>(need));
  }
  ExpectUntouched("ea_mha_quant_init", pool, {carve}, "succeeded");
  ++Stats().planned;
  if (!can_run) return;
  if (run.weights_overflow && SkipKnown(kQuantWeightsOverflow)) return;

  // --- runs
  const RunBuffers b = RunBuffersOf(pool, regions, nulls);
  const ea_mha_quant_plan* run_plan = nulls & kNullRunPlan ? nullptr : &plan;
  std::vector<int> kept = {in_w_region, out_w_region};
  for (int r : {in_b_region, out_b_region}) {
    if (r >= 0) kept.push_back(r);
  }
  // The plan references the whole [max_tokens, E] table.
  if (table_region >= 0 && positions) kept.push_back(table_region);
  const RunMemory run_rules = ModelRunRules(pool, b, kept, carve, run_plan == nullptr, run, dtype);
  const std::vector<uint8_t> x0(pool.Bytes(regions.x), pool.Bytes(regions.x) + x_count * element);

  // The reference, on the integers the plan uses.
  std::vector<int32_t> want_y, want_probs;
  bool reference = false;
  if (!run_rules.rules.MustFail() && used != nullptr) {
    const ProjectionBound bounds[4] = {
        {&used->q_proj, e}, {&used->k_proj, e}, {&used->v_proj, e}, {&used->out_proj, e}};
    reference = ReferenceSafe(int8, int8 ? MaxInt8Bias(bias_slots) : 0, e, {bounds, bounds + 4},
                              used->scores, e / heads, used->context, static_cast<int32_t>(n));
  }
  if (reference) {
    const std::vector<uint8_t> table =
        positions ? PlannedTable(pool, table_region, dtype, n, e, TableQuantizationValue(config))
                  : std::vector<uint8_t>();
    const uint8_t* pe = positions ? table.data() : nullptr;
    const ReferenceOutputs r = MhaReference(config, *used, static_cast<int>(n), run.n_valid_keys,
                                            x0.data(), pe, in_w, out_w, in_b, out_b);
    want_y = r.y;
    want_probs = r.probs;
  }
  pool.Snapshot();

  // The same config planned in another arena, on another worker count.
  ea_mha_config config2 = config;
  config2.parallel = SecondParallel(config.parallel);
  ea_mha_quant_plan plan2;
  memset(&plan2, 0, sizeof(plan2));
  SecondArena second;
  second.Plan(edgeattn::MhaQuantArenaBytes(
                  max_tokens, e, heads, dtype,
                  edgeattn::StorageOf(config2.position, config2.quant_position_table == nullptr),
                  config2.parallel.max_workers),
              c.common.targets, [&](ea_arena* arena2) {
                return ea_mha_quant_init(&plan2, &config2, &weights, arena2);
              });

  const auto run_on = [&](const ea_mha_quant_plan* p) {
    return Run(run.run_dtype, p, b.x, run, b.y, b.attn);
  };
  RunOnEveryTarget(
      QuantRunCheck{&pool, carve, &second, c.common.targets,
                    run.run_dtype == EA_DTYPE_INT8 ? "ea_mha_quant_run_s8" : "ea_mha_quant_run_s16",
                    run_rules, dtype, b, x_count, heads, static_cast<int>(n),
                    c.mask == EA_MASK_CAUSAL, run.n_valid_keys, reference ? &want_y : nullptr,
                    reference ? &want_probs : nullptr,
                    [&](int which) { return run_on(which == 0 ? run_plan : &plan2); }},
      &Stats());

  // --- the run again with every debug tap: the run's status and outputs
  // (where the tensors fit the harness's budget)
  if (run_plan != nullptr && b.x != nullptr && run.n_ok && run.run_dtype == dtype && dims_ok &&
      int64_t{heads} * run.n_tokens * run.n_tokens <= kMaxTensorFloats) {
    ExpectTraceIsTheRun(dtype, run_plan, b.x, run, e, heads);
    ++Stats().traced;
  }

  // --- the same causal layer a step at a time
  if (reference && c.mask == EA_MASK_CAUSAL && run.run_dtype == dtype && !want_y.empty() &&
      static_cast<int32_t>(n) == run.n_tokens && run.n_valid_keys == run.n_tokens &&
      !in_proj_missing && weights.out_proj_weight != nullptr) {
    ExpectStreamEqualsFullRun(config, weights, x0, static_cast<int32_t>(n), element,
                              c.common.targets, want_y);
    ++Stats().streamed;
  }

  // --- re-plan the ready plan with a broken config: refused, not runnable
  if (c.common.Replan() && run_plan != nullptr && b.x && b.y) {
    const ea_mha_config bad = BrokenConfig(config, c.common);
    ExpectReplanRefused(
        "ea_mha_quant_init", &pool, carve, run_rules.x_in_scratch, arena, QuantMhaShapeRules(bad),
        IsFixed(bad.dtype), [&] { return ea_mha_quant_init(&plan, &bad, &weights, &arena); },
        [&] { return Run(dtype, &plan, b.x, run, b.y, b.attn); });
  }
}

}  // namespace edgeattn_fuzz
