// Driver for the fixed-point cross-attention (edgeattn/cross.h):
// ea_cross_quant_arena_size, _derive, _init, _set_memory_s8 / _s16 and
// _run_s8 / _s16 on one decoded QuantCrossCase: a fixed-point MHA layer as
// the fixed-point decoder family builds it (unmasked, no positions: the
// config is flat, flat_quant_configs.h), max_queries, max_memory, grouped
// KV heads, the memory's
// own quantization, the integers derived from the scales, given (edited) or
// those ea_cross_quant_derive gave, then up to eight calls (set_memory of
// valid, zero, negative, too many counts, NULL or over the arena / weights,
// the other dtype's; runs of valid, zero, too many queries, before any
// memory, the other dtype's, x and y over the arena, weights or each other;
// re-inits with a broken config or the good one), replayed from init on
// every selected SIMD target. Checked: statuses against cross.h's rules
// (its own rules first: n_kv_heads < 0 or max_memory <= 0
// EA_ERR_BAD_DIMENSION, max_memory > 65535 EA_ERR_DIMENSION_OVERFLOW; then
// the queries' layer's as ea_mha_quant_arena_size's, max_queries for
// max_tokens, n_kv_heads dividing n_heads, the memory's quantization when
// the scales are used) and a model of `ready` and the
// memory held; derive's integers equal TFLite's Prepare with k's and v's
// input the memory's; arena_size = CrossQuantArenaBytes (arena_sizes.hpp)
// = the carve;
// nothing written on any refusal (a refused set_memory keeps `n_memory` and
// the memory held), set_memory writing only the carve, run only y and the
// carve; every accepted run's y equal, bit for bit, to the integer chain
// reference's cross-attention (tests/reference ChainShape::n_memory) over
// the memory held.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "driver_support.h"
#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/cross.h"
#include "edgeattn/edgeattn.h"
#include "expected_status.h"
#include "failure.h"
#include "flat_quant_configs.h"
#include "fuzz_case.h"
#include "fuzz_drivers.h"
#include "known_defects.h"
#include "memory_pool.h"
#include "quant_case_support.h"
#include "quant_cross_case.h"
#include "quant_mha_chain.h"
#include "simd_targets.h"

namespace edgeattn_fuzz {
namespace {

using edgeattn_test::CrossLayerOf;
using edgeattn_test::SetCrossLayer;

// Cross-attention counters, printed at exit.
struct CrossStats {
  size_t cases = 0, derived = 0, initialised = 0, memories = 0, refused_memories = 0, runs = 0,
         refused_runs = 0, compared = 0, not_compared = 0, grouped_compared = 0,
         chunked_compared = 0, reinits = 0;
};
CrossStats& Stats() {
  static CrossStats* stats = [] {
    static CrossStats s;
    atexit([] {
      fprintf(stderr,
              "edgeattn fuzz: fixed-point cross: %zu cases, %zu derives, %zu inits, %zu "
              "set_memory (%zu refused), %zu runs (%zu refused), %zu compared with the cross "
              "chain (%zu grouped, %zu over a memory set in chunks), %zu not (int32 limits), "
              "%zu re-inits\n",
              s.cases, s.derived, s.initialised, s.memories, s.refused_memories, s.runs,
              s.refused_runs, s.compared, s.grouped_compared, s.chunked_compared, s.not_compared,
              s.reinits);
    });
    return &s;
  }();
  return *stats;
}

int64_t ClampToInt32(int64_t v) {
  return std::min<int64_t>(std::max<int64_t>(v, INT32_MIN), INT32_MAX);
}

// A call's count (QuantCrossOp::count_kind) against its maximum.
int32_t CallCount(const QuantCrossOp& op, int32_t maximum) {
  if (op.count_kind < 144) {
    if (maximum < 1) return 1;
    return static_cast<int32_t>(1 + op.x_seed % static_cast<uint32_t>(maximum));
  }
  if (op.count_kind < 160) return 0;
  if (op.count_kind < 176) return -1;
  if (op.count_kind < 192) return static_cast<int32_t>(ClampToInt32(int64_t{maximum} + 1));
  if (op.count_kind < 224) return maximum;
  return op.count_value;
}

// The cross-attention's own rules (cross.h: checked before the layer's).
StatusSet CrossOwnRules(const ea_cross_quant_config& c) {
  StatusSet set;
  if (c.n_kv_heads < 0 || c.max_memory <= 0) set.Add(EA_ERR_BAD_DIMENSION);
  if (c.max_memory > 65535) set.Add(EA_ERR_DIMENSION_OVERFLOW);
  return set;
}

// The queries' layer's rules (CrossLayerOf: unmasked, no positions,
// single-threaded, max_queries rows) as ea_mha_quant_arena_size's (the
// shape, the dtype, a quantization present), the KV heads dividing the
// heads, the memory of max_memory rows within EA_MAX_ELEMENTS.
StatusSet CrossLayerRules(const ea_cross_quant_config& c) {
  StatusSet set = QuantMhaShapeRules(CrossLayerOf(c));
  if (c.n_kv_heads > 0 && c.n_heads > 0 && c.n_heads % c.n_kv_heads != 0) {
    set.Add(EA_ERR_HEADS_MISMATCH);
  }
  if (c.d_model > 0 && c.max_memory > 0 && TooManyElements(c.max_memory, c.d_model)) {
    set.Add(EA_ERR_DIMENSION_OVERFLOW);
  }
  return set;
}

// Own rules first (documented), then the layer's: strict where own ones fail.
StatusSet CrossShapeRules(const ea_cross_quant_config& c) {
  const StatusSet own = CrossOwnRules(c);
  if (own.MustFail()) return own;
  return CrossLayerRules(c);
}

// A config that breaks at least one rule: one layer field (BreakOneField;
// its mask, position or parallel-for, which the flat config does not have,
// break nothing), max_memory or n_kv_heads; else max_memory 0.
ea_cross_quant_config BrokenCrossConfig(const ea_cross_quant_config& good, uint8_t field,
                                        int32_t value) {
  ea_cross_quant_config bad = good;
  if (field % 10 == 8) {
    bad.max_memory = value;
  } else if (field % 10 == 9) {
    bad.n_kv_heads = value;
  } else {
    Common common;
    common.replan_field = field;
    common.replan_value = value;
    SetCrossLayer(BreakOneField(CrossLayerOf(good), common, 1,
                                [](ea_mha_config* c, int, int32_t v) { c->n_heads = v; }),
                  &bad);
  }
  StatusSet all = CrossOwnRules(bad);
  all.Merge(CrossLayerRules(bad));
  if (!all.MustFail()) bad.max_memory = 0;
  return bad;
}

ea_status SetMemory(ea_dtype as, ea_cross_quant* cross, const void* memory, int32_t n) {
  if (as == EA_DTYPE_INT8) {
    return ea_cross_quant_set_memory_s8(cross, static_cast<const int8_t*>(memory), n);
  }
  return ea_cross_quant_set_memory_s16(cross, static_cast<const int16_t*>(memory), n);
}

ea_status Run(ea_dtype as, ea_cross_quant* cross, const void* x, int32_t n, void* y) {
  if (as == EA_DTYPE_INT8) {
    return ea_cross_quant_run_s8(cross, static_cast<const int8_t*>(x), n, static_cast<int8_t*>(y));
  }
  return ea_cross_quant_run_s16(cross, static_cast<const int16_t*>(x), n, static_cast<int16_t*>(y));
}

void ExpectSameDerived(const ea_mha_quant_params& got, const ea_mha_quant_params& want, int32_t e,
                       int32_t kv_width, bool int8) {
  ExpectSameLinear("q_proj", got.q_proj, want.q_proj, e);
  ExpectSameLinear("k_proj", got.k_proj, want.k_proj, kv_width);
  ExpectSameLinear("v_proj", got.v_proj, want.v_proj, kv_width);
  ExpectSameLinear("out_proj", got.out_proj, want.out_proj, e);
  ExpectSameMatmul("scores", got.scores, want.scores);
  ExpectSameMatmul("context", got.context, want.context);
  ExpectSameSoftmax(int8, got.softmax, want.softmax);
}

}  // namespace

void FuzzQuantCross(ByteReader& input) {
  QuantCrossCase c;
  Visit(input, c);
  const QuantCommon& qc = c.quant;
  ++Stats().cases;
  const uint16_t nulls = c.common.Nulls();
  const ea_dtype dtype = QuantDtype(c.dtype_kind, c.dtype_raw);
  const bool fixed = IsFixed(dtype);
  const bool int8 = dtype == EA_DTYPE_INT8;
  const int32_t e = c.d_model, max_tokens = c.MaxTokens(), max_memory = c.MaxMemory();
  const int32_t heads = HeadsOf(c);
  const size_t element = ElementBytes(dtype), bias_bytes = BiasBytes(dtype);
  const bool dims_ok = max_tokens > 0 && e > 0 && heads > 0 && e % heads == 0;
  const size_t in_count = BoundedCount(3 * int64_t{e}, e);
  const bool materialised = in_count > 0 && BoundedCount(max_tokens, e) > 0;

  // The queries' layer as the MHA family's helpers read it (unmasked, no
  // positions, single-threaded: the case's mask, position and qc.workers
  // are unused since the config is flat), copied into cconfig
  // (SetCrossLayer) after every change.
  ea_cross_quant_config cconfig{};
  ea_mha_config config = CrossLayerOf(cconfig);
  config.dtype = dtype;
  config.max_tokens = max_tokens;
  config.d_model = e;
  config.n_heads = heads;
  cconfig.max_memory = max_memory;
  cconfig.n_kv_heads = c.KvHeads(heads);
  const int32_t groups = cconfig.n_kv_heads == 0 ? heads : cconfig.n_kv_heads;
  const bool kv_ok = dims_ok && groups > 0 && heads % groups == 0;
  const int32_t kv_width = kv_ok ? groups * (e / heads) : e;

  // --- the quantization: the layer's as the fixed-point MHA family makes
  // it, the memory's of its own (nominal: the input's scale), k's and v's
  // integers derived from the memory's.
  MhaQuantization quantization;
  {
    const Nominal nominal = NominalScales(dtype, e > 1 ? e : 1, dims_ok ? e / heads : 1, false);
    cconfig.memory = QuantOf(c.memory_quant, nominal.tensor[0], int8);
  }
  QuantizeLayer(c.tensors, qc, c.ScalesGiven(), materialised, kv_width, &config, &quantization,
                &cconfig.memory);
  SetCrossLayer(config, &cconfig);
  const bool memory_valid = ValidQuant(dtype, cconfig.memory);
  const StatusSet& scales_rules = quantization.scales_rules;
  const bool derivable = quantization.derivable;
  const bool infinite = quantization.infinite;
  if (infinite && SkipKnown(kQuantInfiniteMultiplier)) return;
  const Derivation& derivation = quantization.derivation;
  const StatusSet own_rules = CrossOwnRules(cconfig);
  const bool own_ok = !own_rules.MustFail();

  // --- ea_cross_quant_derive (on the scales; quant_params ignored)
  Integers derived_given;  // what derive gave, given to init where the case says so
  bool derived_used = false;
  if (fixed && materialised) {
    SetContext("ea_cross_quant_derive", "-");
    StatusSet rules;
    ea_cross_quant_config scales_only = cconfig;
    scales_only.quant_params = nullptr;
    if (own_ok) {
      rules = CrossLayerRules(scales_only);
      if (config.quant_scales != nullptr) {
        if (!memory_valid) rules.Add(EA_ERR_BAD_ARGUMENT);
        rules.Merge(scales_rules);
        if (derivable) {
          rules.Merge(QuantParamsRules(config, kv_width, derivation.integers.params));
          if (infinite) rules.Tolerate(EA_ERR_BAD_ARGUMENT);
        }
      }
    } else {
      rules = own_rules;
    }
    const size_t channel_ints = EA_MHA_QUANT_CHANNEL_INTS(e);
    std::vector<int32_t> channels(channel_ints, 0x5A5A5A5A);
    const std::vector<int32_t> channels_before = channels;
    ea_mha_quant_params params;
    memset(&params, 0xCD, sizeof(params));
    ea_mha_quant_params before;
    memcpy(&before, &params, sizeof(params));
    const ea_status status =
        ea_cross_quant_derive(&cconfig, &params, channels.data(), channels.size());
    Debug("quant cross: derive %d (want %s)\n", static_cast<int>(status), rules.Describe().c_str());
    ExpectStatus("ea_cross_quant_derive", status, rules);
    if (status != EA_OK) {
      if (memcmp(&params, &before, sizeof(params)) != 0) Fail("refused derive wrote *params");
      // Known (as ea_mha_quant_derive): a refusal of the derived integers may leave them.
      const bool by_integers =
          derivable && QuantParamsRules(config, kv_width, derivation.integers.params).MustFail();
      if (channels != channels_before && !(by_integers && SkipKnown(kQuantRefusalWrites))) {
        Fail("refused derive wrote its channel buffer");
      }
    } else {
      ++Stats().derived;
      if (!derivable) Fail("derive accepted scales the model cannot derive");
      ExpectSameDerived(params, derivation.integers.params, e, kv_width, int8);
      if (c.DerivedGiven() && !quantization.params_given) {
        derived_given.params = params;
        for (int l = 0; l < 4; ++l) {
          const int32_t n = l == 1 || l == 2 ? kv_width : e;
          const ea_linear_quant_params* p = derived_given.Linear(l);
          derived_given.multipliers[l].assign(p->output_multiplier, p->output_multiplier + n);
          derived_given.shifts[l].assign(p->output_shift, p->output_shift + n);
          derived_given.multipliers[l].resize(static_cast<size_t>(e), 0);
          derived_given.shifts[l].resize(static_cast<size_t>(e), 0);
        }
        derived_given.Point();
        config.quant_params = &derived_given.params;
        SetCrossLayer(config, &cconfig);
        derived_used = true;
      }
    }
  }
  const bool params_given = quantization.params_given || derived_used;
  const ea_mha_quant_params* used = derived_used ? &derived_given.params : quantization.used;
  const ea_mha_quant_params* given = derived_used                ? &derived_given.params
                                     : quantization.params_given ? &quantization.given.params
                                                                 : nullptr;

  // --- ea_cross_quant_arena_size
  const StatusSet shape_rules = CrossShapeRules(cconfig);
  const bool shape_valid = fixed && dims_ok && !shape_rules.MustFail();
  StatusSet size_rules = shape_rules;
  StatusSet quant_rules;  // init's, beyond the shape
  if (own_ok && fixed && dims_ok) {
    bool derived_refused = false;
    if (params_given) {
      quant_rules.Merge(QuantParamsRules(config, kv_width, *given));
      size_rules.Merge(QuantParamsRules(config, kv_width, *given));
    } else if (config.quant_scales != nullptr && materialised) {
      quant_rules.Merge(scales_rules);
      if (derivable) {
        const StatusSet derived_rules =
            QuantParamsRules(config, kv_width, derivation.integers.params);
        derived_refused = derived_rules.MustFail();
        quant_rules.Merge(derived_rules);
      }
    }
    // The memory's quantization: checked when the scales are used.
    if (config.quant_scales != nullptr && !memory_valid) {
      if (params_given) {
        size_rules.Tolerate(EA_ERR_BAD_ARGUMENT);
        quant_rules.Tolerate(EA_ERR_BAD_ARGUMENT);
      } else {
        size_rules.Add(EA_ERR_BAD_ARGUMENT);
        quant_rules.Add(EA_ERR_BAD_ARGUMENT);
      }
    }
    if (scales_rules.MustFail() || derived_refused) size_rules.Tolerate(EA_ERR_BAD_ARGUMENT);
    if (scales_rules.MustFail()) size_rules.Tolerate(EA_ERR_NULL_POINTER);
    if (infinite) {
      size_rules.Tolerate(EA_ERR_BAD_ARGUMENT);
      quant_rules.Tolerate(EA_ERR_BAD_ARGUMENT);
    }
  }
  const uint64_t need = shape_valid ? edgeattn::CrossQuantArenaBytes(cconfig) : 0;
  Debug(
      "quant cross: dtype %d max_queries %d d_model %d heads %d kv heads %d max_memory %d "
      "memory %g/%d scales %d params %d (derived %d) size rules %s\n",
      static_cast<int>(dtype), max_tokens, e, heads, cconfig.n_kv_heads, max_memory,
      static_cast<double>(cconfig.memory.scale), cconfig.memory.zero_point, c.ScalesGiven(),
      params_given, derived_used, size_rules.Describe().c_str());
  CheckArenaSize("ea_cross_quant_arena_size", &ea_cross_quant_arena_size, cconfig, nulls,
                 size_rules, need);

  // --- the pool: arena, kept tensors, each call's input and y
  MemoryPool pool;
  const ArenaLayout layout = QuantArenaLayout(qc, need, materialised);
  const int arena_region = pool.AddSeparate("arena", layout.capacity, 64, layout.misalign);
  const size_t ee = materialised ? static_cast<size_t>(e) * e : 1;
  const size_t channels = materialised ? static_cast<size_t>(e) : 1;
  const size_t in_rows =
      materialised ? static_cast<size_t>(e) + 2 * static_cast<size_t>(kv_width) : 1;
  const size_t in_w_bytes = materialised ? in_rows * static_cast<size_t>(e) : 1;
  const int in_w_region = pool.AddSeparate("in_proj_weight", in_w_bytes, 1);
  const int out_w_region = pool.AddSeparate("out_proj_weight", ee, 1);
  const bool in_bias = materialised && (qc.biases & 1), out_bias = materialised && (qc.biases & 2);
  const int in_b_region = in_bias ? pool.AddSeparate("in_proj_bias", in_rows * bias_bytes, 8) : -1;
  const int out_b_region =
      out_bias ? pool.AddSeparate("out_proj_bias", channels * bias_bytes, 8) : -1;

  // Calls are made where every reference over the memory is cheap.
  const double dm = static_cast<double>(max_memory), dq = static_cast<double>(max_tokens),
               de = static_cast<double>(e);
  const bool can_call = fixed && shape_valid && materialised && BoundedCount(max_memory, e) > 0 &&
                        2.0 * dm * de * de + 2.0 * dq * de * de + 2.0 * dq * dm * de <=
                            static_cast<double>(kMaxRunWork);
  const size_t row_bytes = can_call ? static_cast<size_t>(e) * element : 0;
  std::vector<int> kept = {in_w_region, out_w_region};
  for (int r : {in_b_region, out_b_region}) {
    if (r >= 0) kept.push_back(r);
  }
  std::vector<int> x_regions(kMaxQuantCrossOps, -1), y_regions(kMaxQuantCrossOps, -1);
  if (can_call) {
    std::vector<int> candidates = {arena_region};
    candidates.insert(candidates.end(), kept.begin(), kept.end());
    for (int i = 0; i < c.OpCount(); ++i) {
      const QuantCrossOp& op = c.ops[i];
      if (op.Kind() == kQuantCrossReinit) continue;
      const size_t rows = static_cast<size_t>(op.SetsMemory() ? max_memory : max_tokens);
      x_regions[i] =
          PlaceRegion(&pool, op.SetsMemory() ? "memory" : "x", rows * row_bytes, op.x, candidates);
      if (!op.SetsMemory()) {
        std::vector<int> y_candidates = candidates;
        y_candidates.push_back(x_regions[i]);
        y_regions[i] = PlaceRegion(&pool, "y", rows * row_bytes, op.y, y_candidates);
      }
    }
  }
  pool.Allocate();

  FillQuantWeights(qc,
                   {reinterpret_cast<int8_t*>(pool.Bytes(in_w_region)),
                    reinterpret_cast<int8_t*>(pool.Bytes(out_w_region))},
                   {materialised ? in_w_bytes : 0, materialised ? ee : 0});
  const std::vector<BiasSlot> bias_slots = {
      {in_b_region >= 0 ? pool.Bytes(in_b_region) : nullptr, in_rows},
      {out_b_region >= 0 ? pool.Bytes(out_b_region) : nullptr, channels}};
  FillQuantBiases(qc, dtype, (qc.biases >> 2) % 4, bias_slots);
  const std::vector<uint8_t> in_w0 = CopyBytes(pool.Bytes(in_w_region), in_w_bytes);
  const std::vector<uint8_t> out_w0 = CopyBytes(pool.Bytes(out_w_region), ee);
  const std::vector<uint8_t> in_b0 =
      in_b_region >= 0 ? CopyBytes(pool.Bytes(in_b_region), pool.Size(in_b_region))
                       : std::vector<uint8_t>();
  const std::vector<uint8_t> out_b0 =
      out_b_region >= 0 ? CopyBytes(pool.Bytes(out_b_region), pool.Size(out_b_region))
                        : std::vector<uint8_t>();
  ea_mha_quant_weights weights{};
  weights.in_proj_weight =
      nulls & kNullInput1 ? nullptr : reinterpret_cast<const int8_t*>(pool.Bytes(in_w_region));
  weights.in_proj_bias = in_b_region >= 0 ? pool.Bytes(in_b_region) : nullptr;
  weights.out_proj_weight =
      nulls & kNullWeights ? nullptr : reinterpret_cast<const int8_t*>(pool.Bytes(out_w_region));
  weights.out_proj_bias = out_b_region >= 0 ? pool.Bytes(out_b_region) : nullptr;
  const bool null_weights_struct = nulls & kNullInput2;
  Debug("ea_cross_quant case: need %llu capacity %llu ops %d can_call %d\n",
        static_cast<unsigned long long>(need), static_cast<unsigned long long>(layout.capacity),
        c.OpCount(), can_call);
  if (Debugging()) pool.Dump();

  // --- init's rules
  StatusSet init_rules = shape_rules;
  if (own_ok) init_rules.Merge(quant_rules);
  if ((nulls & (kNullPlan | kNullPlanConfig | kNullArena)) || null_weights_struct ||
      weights.in_proj_weight == nullptr || weights.out_proj_weight == nullptr) {
    init_rules.Add(EA_ERR_NULL_POINTER);
  }
  if (own_ok && fixed && dims_ok && !int8 && Int16BiasOutOfRange(bias_slots)) {
    init_rules.Add(EA_ERR_BAD_ARGUMENT);
  }
  const ea_cross_quant_config* init_config = nulls & kNullPlanConfig ? nullptr : &cconfig;
  const ea_mha_quant_weights* init_weights = null_weights_struct ? nullptr : &weights;
  ea_arena arena;
  InitArena(qc.arena, layout, pool.Bytes(arena_region), nulls & kNullArenaBase, &arena);
  const size_t used_before = arena.used;
  if (!(nulls & kNullArena) && own_ok) init_rules.Merge(ArenaRules(arena, need, shape_valid));
  pool.Snapshot();
  std::vector<ByteRange> kept_ranges;
  for (int r : kept) kept_ranges.push_back(pool.Range(r));

  // An op's reference, kept for the next target while its inputs (the
  // memory held, the queries) are the same.
  std::vector<int32_t> want_cache[kMaxQuantCrossOps];
  std::vector<uint8_t> want_key[kMaxQuantCrossOps];
  bool counted = false;
  const ea_dtype wrong_dtype = int8 ? EA_DTYPE_INT16 : EA_DTYPE_INT8;

  for (int64_t target : SelectTargets(c.common.targets)) {
    ForceTarget(target);
    SetContext("ea_cross_quant_init", TargetName(target));
    pool.Snapshot();
    arena.used = used_before;
    ea_cross_quant cross;
    memset(&cross, 0, sizeof(cross));
    ea_cross_quant* const handle = nulls & kNullPlan ? nullptr : &cross;
    const ea_status init_status = ea_cross_quant_init(handle, init_config, init_weights,
                                                      nulls & kNullArena ? nullptr : &arena);
    ExpectStatus("ea_cross_quant_init", init_status, init_rules);
    const ByteRange carve =
        CheckInitWrites("ea_cross_quant_init", init_status, pool, arena, used_before, need);
    if (init_status == EA_OK) {
      if (cross.n_memory != 0) Fail("init left n_memory %d", cross.n_memory);
      if (!counted) ++Stats().initialised;
    }
    counted = true;
    if (!can_call) continue;

    // The model: ready, the memory held (its rows' bytes).
    bool ready = init_status == EA_OK;
    int32_t held_n = 0;
    std::vector<uint8_t> held;
    bool held_chunked = false;
    for (int i = 0; i < c.OpCount(); ++i) {
      const QuantCrossOp& op = c.ops[i];
      const uint8_t op_nulls = op.Nulls();
      ea_cross_quant* const handle_op = op_nulls & kCrossNullPlan ? nullptr : &cross;
      if (op.Kind() == kQuantCrossReinit) {
        SetContext("ea_cross_quant_init", "re-init");
        ++Stats().reinits;
        const bool good = op.reinit_field >= 240 && init_status == EA_OK;
        const ea_cross_quant_config bad =
            BrokenCrossConfig(cconfig, op.reinit_field, op.reinit_value);
        StatusSet rules;
        if (good) {
          rules = init_rules;
          arena.used = used_before;  // the same bytes again
        } else {
          rules = CrossOwnRules(bad);
          rules.Merge(CrossLayerRules(bad));
          if (IsFixed(bad.dtype)) rules.Merge(ArenaRules(arena, 0, false));
          rules.Add(EA_ERR_BAD_ARGUMENT);
          rules.Add(EA_ERR_NULL_POINTER);
        }
        if (op_nulls & (kCrossNullPlan | kCrossNullFirst | kCrossNullSecond)) {
          rules.Add(EA_ERR_NULL_POINTER);
        }
        pool.Snapshot();
        const size_t used_now = arena.used;
        const ea_status status = ea_cross_quant_init(
            handle_op, op_nulls & kCrossNullFirst ? nullptr : (good ? &cconfig : &bad),
            init_weights, op_nulls & kCrossNullSecond ? nullptr : &arena);
        Debug("op %d: re-init (%s): %d (want %s)\n", i, good ? "good" : "broken",
              static_cast<int>(status), rules.Describe().c_str());
        ExpectStatus(good ? "re-init with the good config" : "re-init with a broken config", status,
                     rules);
        if (!good && status == EA_OK) Fail("a broken re-init was accepted");
        // A good re-init carves the first init's bytes again (used_now is
        // used_before then).
        CheckInitWrites("re-init", status, pool, arena, used_now, need);
        if (status != EA_OK) {
          if (handle_op != nullptr) ready = false;  // a failed init clears ready
          continue;
        }
        if (cross.n_memory != 0) Fail("re-init left n_memory %d", cross.n_memory);
        ready = true;
        held_n = 0;
        held.clear();
        continue;
      }

      const bool memory_call = op.SetsMemory();
      const bool wrong = op.Kind() == kQuantCrossWrongSetMemory || op.Kind() == kQuantCrossWrongRun;
      const char* call = memory_call ? (wrong ? "set_memory (other dtype)" : "set_memory")
                                     : (wrong ? "run (other dtype)" : "run");
      SetContext(memory_call ? "ea_cross_quant_set_memory" : "ea_cross_quant_run",
                 TargetName(target));
      const int32_t maximum = memory_call ? max_memory : max_tokens;
      const int32_t n = CallCount(op, maximum);
      const size_t region_bytes = static_cast<size_t>(maximum) * row_bytes;
      const ByteRange x_region = pool.Range(x_regions[i]);
      bool x_apart = !pool.Range(arena_region).Overlaps(x_region);
      for (const ByteRange& r : kept_ranges) x_apart = x_apart && !r.Overlaps(x_region);
      if (x_apart) {
        FillActivations(pool.Bytes(x_regions[i]), region_bytes / element, dtype, qc.x_mode,
                        op.x_seed);
      }
      const uint8_t* x = op_nulls & kCrossNullFirst ? nullptr : pool.Bytes(x_regions[i]);
      uint8_t* y = nullptr;
      if (!memory_call && !(op_nulls & kCrossNullSecond)) y = pool.Bytes(y_regions[i]);
      StatusSet rules;
      if (handle_op == nullptr || x == nullptr || (!memory_call && y == nullptr)) {
        rules.Add(EA_ERR_NULL_POINTER);
      }
      if (!ready || wrong || (!memory_call && held_n == 0)) rules.Add(EA_ERR_BAD_ARGUMENT);
      const bool n_ok = n >= 1 && n <= maximum;
      if (!n_ok) rules.Add(EA_ERR_BAD_DIMENSION);
      ByteRange x_range, y_range;
      const size_t bytes = n_ok ? static_cast<size_t>(n) * row_bytes : 0;
      if (n_ok) {
        x_range = x != nullptr ? ByteRange{x_region.begin, x_region.begin + bytes} : ByteRange{};
        if (y != nullptr) {
          const ByteRange y_region = pool.Range(y_regions[i]);
          y_range = ByteRange{y_region.begin, y_region.begin + bytes};
        }
        for (const ByteRange& r : kept_ranges) {
          if (r.Overlaps(x_range) || r.Overlaps(y_range)) rules.Add(EA_ERR_BAD_ARGUMENT);
        }
        if (ready && (carve.Overlaps(x_range) || carve.Overlaps(y_range))) {
          rules.Add(EA_ERR_BAD_ARGUMENT);
        }
        // y may be x or overlap it (a decoder step's memory rules): no rule.
      }
      const std::vector<uint8_t> x0 =
          n_ok ? CopyBytes(pool.Bytes(x_regions[i]), bytes) : std::vector<uint8_t>();
      pool.Snapshot();
      const ea_dtype as = wrong ? wrong_dtype : dtype;
      const ea_status status =
          memory_call ? SetMemory(as, handle_op, x, n) : Run(as, handle_op, x, n, y);
      Debug("op %d: %s of %d (memory held %d): %d (want %s)\n", i, call, n, held_n,
            static_cast<int>(status), rules.Describe().c_str());
      ExpectStatus(call, status, rules);
      ++(memory_call ? Stats().memories : Stats().runs);
      if (status != EA_OK) {
        ++(memory_call ? Stats().refused_memories : Stats().refused_runs);
        ExpectUntouched(call, pool, {}, "was refused");
        if (ready && cross.n_memory != held_n) {
          Fail("a refused %s left n_memory %d, the memory held has %d rows", call, cross.n_memory,
               held_n);
        }
        continue;
      }
      if (memory_call) {
        ExpectUntouched(call, pool, {carve}, "succeeded");
        held = x0;
        held_n = n;
        held_chunked = n > edgeattn::CrossQuantStepRows(max_tokens, cconfig.max_memory);
        if (cross.n_memory != n) Fail("set_memory of %d rows left n_memory %d", n, cross.n_memory);
        continue;
      }
      ExpectUntouched(call, pool, {carve, y_range}, "succeeded");
      if (cross.n_memory != held_n) Fail("a run changed n_memory to %d", cross.n_memory);
      const bool safe = used != nullptr && [&] {
        const ProjectionBound bounds[4] = {{&used->q_proj, e},
                                           {&used->k_proj, kv_width},
                                           {&used->v_proj, kv_width},
                                           {&used->out_proj, e}};
        return ReferenceSafe(int8, int8 ? MaxInt8Bias(bias_slots) : 0, e, {bounds, bounds + 4},
                             used->scores, e / heads, used->context, max_memory);
      }();
      if (!safe) {
        ++Stats().not_compared;
        continue;
      }
      std::vector<uint8_t> key = held;
      key.insert(key.end(), x0.begin(), x0.end());
      if (want_key[i] != key) {
        const auto in_b = in_b0.empty() ? nullptr : in_b0.data();
        const auto out_b = out_b0.empty() ? nullptr : out_b0.data();
        want_cache[i] = MhaReference(config, *used, n, n, x0.data(), nullptr,
                                     reinterpret_cast<const int8_t*>(in_w0.data()),
                                     reinterpret_cast<const int8_t*>(out_w0.data()), in_b, out_b, 0,
                                     cconfig.n_kv_heads, nullptr, held.data(), held_n)
                            .y;
        want_key[i] = key;
      }
      const size_t count = static_cast<size_t>(n) * static_cast<size_t>(e);
      if (want_cache[i].size() != count) {
        Fail("the reference gave %zu values for %d queries over %d memory rows",
             want_cache[i].size(), n, held_n);
      }
      const std::vector<int32_t> got = Widen(dtype, pool.Bytes(y_regions[i]), count);
      for (size_t j = 0; j < count; ++j) {
        if (got[j] != want_cache[i][j]) {
          Fail("run of %d queries over %d memory rows: y[%zu] = %d, the cross chain says %d", n,
               held_n, j, got[j], want_cache[i][j]);
        }
      }
      ++Stats().compared;
      if (groups != heads) ++Stats().grouped_compared;
      if (held_chunked) ++Stats().chunked_compared;
    }
  }
  ForceTarget(0);
}

}  // namespace edgeattn_fuzz
