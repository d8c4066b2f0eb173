// Driver for fixed-point Attention(Q, K, V): ea_attention_quant_arena_size on an
// INT8 / INT16 config, ea_attention_quant_init, ea_attention_quant_run_s8 and
// ea_attention_quant_run_s16 on one decoded QuantAttentionCase. Checked: statuses
// against the header's rules (expected_status.h, QuantAttention*Rules and the
// run's memory rules, "as in ea_attention_run"), nothing written on a
// refusal (one canary-filled pool), a plan carving exactly
// ea_attention_quant_arena_size's bytes (= AttentionQuantArenaBytes) and writing
// only its carve, a run writing only out, attn_weights and the carve; out
// and the probabilities equal to the integer reference's BATCH_MATMUL,
// SOFTMAX (each row over the keys the bottom-right causal mask leaves it),
// BATCH_MATMUL (tests/reference/tflite_chain_reference.h) on the integers
// the plan uses, on every selected SIMD target; bit-identical reruns, and a
// second plan in another arena on another worker count; a broken re-plan
// refused and not runnable. The API has no n_valid_keys: every key is valid.
#include <math.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "driver_support.h"
#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "expected_status.h"
#include "failure.h"
#include "fuzz_case.h"
#include "fuzz_drivers.h"
#include "known_defects.h"
#include "memory_pool.h"
#include "quant_attention_case.h"
#include "quant_case_support.h"
#include "reference/tflite_chain_reference.h"
#include "simd_targets.h"
#include "tensor_fill.h"

namespace edgeattn_fuzz {
namespace {

QuantStats& Stats() {
  static QuantStats& stats = StatsFor("fixed-point attention");
  return stats;
}

ea_quant* TensorField(ea_attention_quant_scales* s, int i) {
  ea_quant* fields[kQuantAttentionTensors] = {&s->q, &s->k, &s->v, &s->scores, &s->output};
  return fields[i];
}

// tests/ops/quant_attention_test.cc's scales: q, k, v spanning their range,
// scores scaled for d_k, the output 0.7 of v's.
float NominalScale(int i, bool int8, int32_t d_k) {
  const double range = int8 ? 74.0 : 18900.0;
  const double values[kQuantAttentionTensors] = {
      0.05, 0.04, 0.03, 0.05 * 0.04 * range * sqrt(static_cast<double>(std::max(d_k, 1))) / 4.0,
      0.03 * 0.7};
  return static_cast<float>(values[i]);
}

// The plan's integers as a case gives them: derived (or defaults), edited.
struct AttentionIntegers {
  ea_attention_quant_params params{};

  void Point() {}
  // scores (5), context (5) and softmax (3): ScalarFields less ADD's ten.
  EditableFields Fields() {
    ea_add_quant_params unused{};
    const std::vector<int32_t*> all =
        ScalarFields(&unused, &params.scores, &params.context, &params.softmax);
    EditableFields f;
    f.scalars.assign(all.begin() + 10, all.end());
    return f;
  }
};

float Beta(const ea_attention_config& c) {
  return c.scale != 0.0f ? c.scale : 1.0f / sqrtf(static_cast<float>(c.d_k));
}

// TFLite's Prepare on valid scales. infinite: q.scale * k.scale overflows.
ea_attention_quant_params DeriveLikeTflite(const ea_attention_config& c, bool* infinite) {
  const ea_attention_quant_scales& s = *c.quant_scales;
  const bool int8 = c.dtype == EA_DTYPE_INT8;
  ea_attention_quant_params p{};
  p.scores = ScoresLikeTflite(s.q, s.k, s.scores, infinite);
  p.softmax = SoftmaxLikeTflite(int8, Beta(c), s.scores.scale);
  p.context = ContextLikeTflite(int8, s.v, s.output);
  return p;
}

// Keys row i of the configuration's n_q queries sees.
int32_t Visible(const ea_attention_config& c, int32_t n_valid_keys, int32_t i) {
  return ref::VisibleKeysOf(c.mask == EA_MASK_CAUSAL, c.n_q, c.n_kv, n_valid_keys, i);
}

struct Expected {
  std::vector<int32_t> out, probs;
};

template <typename T, typename SoftmaxParams>
Expected Reference(const ea_attention_config& c, const ea_attention_quant_params& p,
                   const SoftmaxParams& softmax, int32_t n_valid_keys, const uint8_t* q_bytes,
                   const uint8_t* k_bytes, const uint8_t* v_bytes) {
  const size_t nq = static_cast<size_t>(c.n_q), nkv = static_cast<size_t>(c.n_kv);
  const size_t dk = static_cast<size_t>(c.d_k), dv = static_cast<size_t>(c.d_v);
  const std::vector<T> q = Typed<T>(q_bytes, nq * dk), k = Typed<T>(k_bytes, nkv * dk);
  const std::vector<T> v = Typed<T>(v_bytes, nkv * dv);
  const std::vector<T> scores =
      ref::BatchMatMul(RefMatmul(p.scores), q.data(), c.n_q, c.d_k, k.data(), c.n_kv);
  std::vector<T> probs(nq * nkv, static_cast<T>(sizeof(T) == 1 ? -128 : 0));
  for (int32_t i = 0; i < c.n_q; ++i) {
    const int32_t visible = Visible(c, n_valid_keys, i);
    if (visible == 0) continue;
    const T* row = scores.data() + static_cast<size_t>(i) * nkv;
    T* out = probs.data() + static_cast<size_t>(i) * nkv;
    if constexpr (sizeof(T) == 1) {
      ref::SoftmaxInt8Row(softmax, row, visible, out);
    } else {
      ref::SoftmaxInt16Row(softmax, row, visible, out);
    }
  }
  std::vector<T> v_t(dv * nkv);
  for (size_t j = 0; j < nkv; ++j) {
    for (size_t t = 0; t < dv; ++t) v_t[t * nkv + j] = v[j * dv + t];
  }
  const std::vector<T> out =
      ref::BatchMatMul(RefMatmul(p.context), probs.data(), c.n_q, c.n_kv, v_t.data(), c.d_v);
  Expected e;
  e.out.assign(out.begin(), out.end());
  e.probs.assign(probs.begin(), probs.end());
  return e;
}

ea_status Run(ea_dtype run_dtype, const ea_attention_quant_plan* plan, const void* q, const void* k,
              const void* v, int32_t n_valid_keys, void* out, void* attn) {
  if (run_dtype == EA_DTYPE_INT8) {
    return ea_attention_quant_run_s8(plan, static_cast<const int8_t*>(q),
                                     static_cast<const int8_t*>(k), static_cast<const int8_t*>(v),
                                     n_valid_keys, static_cast<int8_t*>(out),
                                     static_cast<int8_t*>(attn));
  }
  return ea_attention_quant_run_s16(plan, static_cast<const int16_t*>(q),
                                    static_cast<const int16_t*>(k), static_cast<const int16_t*>(v),
                                    n_valid_keys, static_cast<int16_t*>(out),
                                    static_cast<int16_t*>(attn));
}

// Masked probabilities at the zero value (rows with no key: all of them);
// int8 rows summing to at most 1 plus about half an LSB per key.
void CheckProbabilities(const ea_attention_config& c, int32_t n_valid_keys,
                        const std::vector<int32_t>& probs) {
  const bool int8 = c.dtype == EA_DTYPE_INT8;
  const int32_t zero = int8 ? -128 : 0;
  for (int32_t i = 0; i < c.n_q; ++i) {
    const int32_t* row = probs.data() + static_cast<size_t>(i) * static_cast<size_t>(c.n_kv);
    const int32_t visible = Visible(c, n_valid_keys, i);
    int64_t sum = 0;
    for (int32_t j = 0; j < c.n_kv; ++j) {
      if (j >= visible && row[j] != zero) {
        Fail("row %d: masked probability [%d] = %d, want %d", i, j, row[j], zero);
      }
      if (!int8 && row[j] < 0) Fail("int16 probability %d below 0", row[j]);
      sum += row[j] - zero;
    }
    if (int8 && sum > 256 + visible + 1) {
      Fail("row %d: int8 probabilities sum to %lld / 256", i, static_cast<long long>(sum));
    }
  }
}

// A config that breaks at least one rule: dtype, a dimension, the mask, the
// scale, the quantization or the parallel-for set to replan_value.
ea_attention_config BrokenConfig(const ea_attention_config& good, const Common& common) {
  ea_attention_config bad = good;
  const int32_t v = common.replan_value;
  switch (common.replan_field % 9) {
    case 0:
      bad.dtype = static_cast<ea_dtype>(v == EA_DTYPE_INT8 || v == EA_DTYPE_INT16 ? 3 : v);
      break;
    case 1:
      bad.n_q = v;
      break;
    case 2:
      bad.n_kv = v;
      break;
    case 3:
      bad.d_k = v;
      break;
    case 4:
      bad.d_v = v;
      break;
    case 5:
      bad.mask = static_cast<ea_mask>(v);
      break;
    case 6:
      bad.scale = -1.0f;
      break;
    case 7:
      bad.quant_scales = nullptr;
      bad.quant_params = nullptr;
      break;
    default:
      bad.parallel = ea_parallel_for{nullptr, nullptr, v};
      break;
  }
  if (!QuantAttentionShapeRules(bad).MustFail()) bad.n_q = 0;
  return bad;
}

}  // namespace

void FuzzQuantAttention(ByteReader& input) {
  QuantAttentionCase c;
  Visit(input, c);
  ++Stats().cases;
  const uint16_t nulls = c.common.Nulls();
  const ea_dtype dtype = QuantDtype(c.dtype_kind, c.dtype_raw);
  const bool fixed = IsFixed(dtype);
  const bool int8 = dtype == EA_DTYPE_INT8;
  const size_t element = ElementBytes(dtype);

  ea_attention_quant_scales scales{};
  for (int i = 0; i < kQuantAttentionTensors; ++i) {
    *TensorField(&scales, i) = QuantOf(c.tensors[i], NominalScale(i, int8, c.d_k), int8);
  }
  ea_attention_config config{};
  config.dtype = dtype;
  config.n_q = c.n_q;
  config.n_kv = c.n_kv;
  config.d_k = c.d_k;
  config.d_v = c.d_v;
  config.mask = static_cast<ea_mask>(c.mask);
  config.scale = ScaleValue(c.scale_kind, c.scale_bits);
  config.parallel = MainParallel(c.workers);
  config.quant_scales = c.ScalesGiven() ? &scales : nullptr;

  // --- the rules of the config, its scales and its integers
  const bool dims_ok = c.n_q > 0 && c.n_kv > 0 && c.d_k > 0 && c.d_v > 0;
  const bool beta_ok = config.scale == 0.0f || (config.scale > 0.0f && isfinite(config.scale));
  const StatusSet scales_rules =
      config.quant_scales != nullptr && fixed ? QuantAttentionScalesRules(config) : StatusSet();
  const bool derivable =
      fixed && dims_ok && beta_ok && config.quant_scales != nullptr && !scales_rules.MustFail();
  bool infinite = false;
  AttentionIntegers derived;
  if (derivable) derived.params = DeriveLikeTflite(config, &infinite);
  if (infinite && SkipKnown(kQuantInfiniteMultiplier)) return;
  AttentionIntegers given;
  const bool params_given = c.ParamsGiven() && fixed;
  if (params_given) {
    if (derivable) {
      given = derived;
    } else {
      ea_add_quant_params unused{};
      DefaultScalars(int8, &unused, &given.params.scores, &given.params.context,
                     &given.params.softmax);
    }
    QuantCommon edits;
    edits.edit_count = c.edit_count;
    for (int i = 0; i < kMaxParamEdits; ++i) edits.edits[i] = c.edits[i];
    ApplyEdits(edits, &given);
    config.quant_params = &given.params;
  }
  const ea_attention_quant_params* used =
      params_given ? &given.params : (derivable ? &derived.params : nullptr);
  const StatusSet shape_rules = QuantAttentionShapeRules(config);  // quant_params set
  const bool shape_valid = fixed && dims_ok && !shape_rules.MustFail();
  StatusSet config_rules = shape_rules;
  if (fixed) {
    if (params_given) {
      config_rules.Merge(QuantAttentionParamsRules(dtype, given.params));
    } else if (config.quant_scales != nullptr) {
      config_rules.Merge(scales_rules);
      if (derivable) config_rules.Merge(QuantAttentionParamsRules(dtype, derived.params));
      if (infinite) config_rules.Tolerate(EA_ERR_BAD_ARGUMENT);  // or the saturated multiplier
    }
  }
  const uint64_t need = shape_valid ? edgeattn::AttentionQuantArenaBytes(
                                          c.n_kv, c.d_k, c.d_v, dtype, config.parallel.max_workers)
                                    : 0;
  Debug("quant attention: dtype %d %dx%d d %d/%d mask %d scale %g scales %d params %d rules %s\n",
        static_cast<int>(dtype), c.n_q, c.n_kv, c.d_k, c.d_v, c.mask,
        static_cast<double>(config.scale), c.ScalesGiven(), params_given,
        config_rules.Describe().c_str());
  // --- ea_attention_quant_arena_size (F32 and values that are no dtype: refused)
  CheckArenaSize("ea_attention_quant_arena_size", &ea_attention_quant_arena_size, config, nulls,
                 config_rules, need);

  // --- the pool: arena, q, k, v, out, attn_weights
  const bool want_weights = c.want_weights >= 96;
  const bool weights_overflow = want_weights && TooManyElements(c.n_q, c.n_kv);
  const size_t q_count = BoundedCount(c.n_q, c.d_k), k_count = BoundedCount(c.n_kv, c.d_k);
  const size_t v_count = BoundedCount(c.n_kv, c.d_v), out_count = BoundedCount(c.n_q, c.d_v);
  const size_t attn_count =
      want_weights ? (weights_overflow ? 16 : BoundedCount(c.n_q, c.n_kv)) : 0;
  const ea_dtype run_dtype = c.wrong_run >= 240 ? (int8 ? EA_DTYPE_INT16 : EA_DTYPE_INT8) : dtype;
  const int32_t n_valid = c.n_valid.Resolve(c.n_kv);
  const bool n_valid_ok = n_valid >= 0 && n_valid <= c.n_kv;
  const bool refused_early =
      weights_overflow || run_dtype != dtype || !n_valid_ok ||
      (nulls & (kNullRunPlan | kNullInput0 | kNullInput1 | kNullInput2 | kNullOutput)) != 0;
  const double work = static_cast<double>(c.n_q) * static_cast<double>(c.n_kv) *
                      (static_cast<double>(c.d_k) + static_cast<double>(c.d_v));
  const bool can_run = shape_valid && q_count > 0 && k_count > 0 && v_count > 0 && out_count > 0 &&
                       (!want_weights || attn_count > 0) &&
                       (refused_early || work <= static_cast<double>(kMaxRunWork));
  MemoryPool pool;
  const ArenaLayout layout = LayOutArena(c.arena, need);
  const int arena_region = pool.AddSeparate("arena", layout.capacity, 64, layout.misalign);
  int q_region = -1, k_region = -1, v_region = -1, out_region = -1, attn_region = -1;
  if (can_run) {
    q_region = PlaceRegion(&pool, "q", q_count * element, c.q, {arena_region});
    k_region = PlaceRegion(&pool, "k", k_count * element, c.k, {arena_region, q_region});
    v_region = PlaceRegion(&pool, "v", v_count * element, c.v, {arena_region, q_region, k_region});
    out_region = PlaceRegion(&pool, "out", out_count * element, c.out,
                             {arena_region, q_region, k_region, v_region});
    if (want_weights) {
      attn_region = PlaceRegion(&pool, "attn_weights", attn_count * element, c.weights,
                                {arena_region, q_region, k_region, v_region, out_region});
    }
  }
  pool.Allocate();
  if (can_run) {
    FillActivations(pool.Bytes(q_region), q_count, dtype, c.value_mode, c.value_seed);
    FillActivations(pool.Bytes(k_region), k_count, dtype, c.value_mode, c.value_seed ^ 0x1111u);
    FillActivations(pool.Bytes(v_region), v_count, dtype, c.value_mode >> 2,
                    c.value_seed ^ 0x2222u);
  }
  Debug(
      "ea_attention quant case: dtype %d n_q %d n_kv %d d_k %d d_v %d mask %d scale %g scales %d "
      "params %d need %llu capacity %llu weights %d run dtype %d n_valid %d can_run %d\n",
      static_cast<int>(dtype), c.n_q, c.n_kv, c.d_k, c.d_v, c.mask,
      static_cast<double>(config.scale), c.ScalesGiven(), params_given,
      static_cast<unsigned long long>(need), static_cast<unsigned long long>(layout.capacity),
      want_weights, static_cast<int>(run_dtype), n_valid, can_run);
  if (Debugging()) pool.Dump();

  // --- ea_attention_quant_init
  StatusSet plan_rules = config_rules;
  if (nulls & (kNullPlan | kNullPlanConfig | kNullArena)) plan_rules.Add(EA_ERR_NULL_POINTER);
  ea_arena arena;
  InitArena(c.arena, layout, pool.Bytes(arena_region), nulls & kNullArenaBase, &arena);
  if (!(nulls & kNullArena)) plan_rules.Merge(ArenaRules(arena, need, shape_valid));
  ea_attention_quant_plan plan;
  memset(&plan, 0, sizeof(plan));
  pool.Snapshot();
  const size_t used_before = arena.used;
  SetContext("ea_attention_quant_init", "-");
  const ea_status plan_status = ea_attention_quant_init(nulls & kNullPlan ? nullptr : &plan,
                                                        nulls & kNullPlanConfig ? nullptr : &config,
                                                        nulls & kNullArena ? nullptr : &arena);
  ExpectStatus("ea_attention_quant_init", plan_status, plan_rules);
  const auto run_on = [&](const ea_attention_quant_plan* p, ea_dtype as) {
    return Run(as, p, nulls & kNullInput0 ? nullptr : pool.Bytes(q_region),
               nulls & kNullInput1 ? nullptr : pool.Bytes(k_region),
               nulls & kNullInput2 ? nullptr : pool.Bytes(v_region), n_valid,
               nulls & kNullOutput ? nullptr : pool.Bytes(out_region),
               attn_region >= 0 ? pool.Bytes(attn_region) : nullptr);
  };
  if (plan_status != EA_OK) {
    if (arena.used != used_before) Fail("failed init moved arena.used");
    ExpectUntouched("ea_attention_quant_init", pool, {}, "failed");
    if (plan.ready != 0) Fail("failed init left the plan ready");
    if (can_run && !(nulls & kNullPlan)) {
      ExpectUnplannedRefused(&pool, "ea_attention_run", [&] {
        return Run(dtype, &plan, pool.Bytes(q_region), pool.Bytes(k_region), pool.Bytes(v_region),
                   n_valid, pool.Bytes(out_region),
                   attn_region >= 0 ? pool.Bytes(attn_region) : nullptr);
      });
    }
    return;
  }
  const ByteRange carve = CarveRange(pool, arena, used_before);
  if (arena.used - used_before != need) {
    Fail("ea_attention_quant_init carved %zu bytes, arena_size said %llu", arena.used - used_before,
         static_cast<unsigned long long>(need));
  }
  ExpectUntouched("ea_attention_quant_init", pool, {carve}, "succeeded");
  ++Stats().planned;
  if (!params_given) ++Stats().derived;  // the plan derived its integers from the scales
  if (!can_run) return;

  // --- the run's rules ("as in ea_attention_run")
  const ea_attention_quant_plan* run_plan = nulls & kNullRunPlan ? nullptr : &plan;
  const auto range = [&](int region, uint16_t null_bit, size_t count) {
    return region < 0 || (nulls & null_bit)
               ? ByteRange{}
               : ByteRange{pool.Range(region).begin, pool.Range(region).begin + count * element};
  };
  const ByteRange q_range = range(q_region, kNullInput0, q_count);
  const ByteRange k_range = range(k_region, kNullInput1, k_count);
  const ByteRange v_range = range(v_region, kNullInput2, v_count);
  const ByteRange out_range = range(out_region, kNullOutput, out_count);
  const ByteRange attn_range = range(attn_region, 0, weights_overflow ? 0 : attn_count);
  StatusSet run_rules;
  if (run_plan == nullptr || (nulls & (kNullInput0 | kNullInput1 | kNullInput2 | kNullOutput))) {
    run_rules.Add(EA_ERR_NULL_POINTER);
  }
  if (run_dtype != dtype || !n_valid_ok) run_rules.Add(EA_ERR_BAD_ARGUMENT);
  if (weights_overflow) run_rules.Add(EA_ERR_DIMENSION_OVERFLOW);
  bool input_in_carve = false;
  for (const ByteRange& in : {q_range, k_range, v_range}) {
    if (in.Overlaps(out_range) || in.Overlaps(attn_range)) run_rules.Add(EA_ERR_BAD_ARGUMENT);
    input_in_carve = input_in_carve || in.Overlaps(carve);
  }
  if (input_in_carve || out_range.Overlaps(attn_range) || out_range.Overlaps(carve) ||
      attn_range.Overlaps(carve)) {
    run_rules.Add(EA_ERR_BAD_ARGUMENT);
  }
  // q, k, v as the run reads them (the carve may have overwritten them).
  const std::vector<uint8_t> q0 = CopyBytes(pool.Bytes(q_region), q_count * element);
  const std::vector<uint8_t> k0 = CopyBytes(pool.Bytes(k_region), k_count * element);
  const std::vector<uint8_t> v0 = CopyBytes(pool.Bytes(v_region), v_count * element);
  Expected want;
  bool reference = false;
  if (!run_rules.MustFail() && used != nullptr) {
    reference = ReferenceSafe(int8, 0, 0, {}, used->scores, c.d_k, used->context, c.n_kv);
    if (reference) {
      want = int8 ? Reference<int8_t>(config, *used, RefSoftmaxInt8(used->softmax), n_valid,
                                      q0.data(), k0.data(), v0.data())
                  : Reference<int16_t>(config, *used, RefSoftmaxInt16(used->softmax), n_valid,
                                       q0.data(), k0.data(), v0.data());
    }
  }
  pool.Snapshot();

  // The same config planned in another arena, on another worker count.
  ea_attention_config config2 = config;
  config2.parallel = SecondParallel(config.parallel);
  ea_attention_quant_plan plan2;
  memset(&plan2, 0, sizeof(plan2));
  SecondArena second;
  second.Plan(
      edgeattn::AttentionQuantArenaBytes(c.n_kv, c.d_k, c.d_v, dtype, config2.parallel.max_workers),
      c.common.targets,
      [&](ea_arena* arena2) { return ea_attention_quant_init(&plan2, &config2, arena2); });

  const char* entry =
      run_dtype == EA_DTYPE_INT8 ? "ea_attention_quant_run_s8" : "ea_attention_quant_run_s16";
  uint8_t* out = pool.Bytes(out_region);
  uint8_t* attn = attn_region >= 0 ? pool.Bytes(attn_region) : nullptr;
  const size_t out_bytes = out_count * element, attn_bytes = attn_range.end - attn_range.begin;
  for (int64_t target : SelectTargets(c.common.targets)) {
    ForceTarget(target);
    SetContext(entry, TargetName(target));
    ResetForRun(&pool, carve, input_in_carve);
    pool.Snapshot();
    const ea_status status = run_on(run_plan, run_dtype);
    ExpectStatus("run", status, run_rules);
    if (status != EA_OK) {
      ExpectUntouched("run", pool, {}, "failed");
      continue;
    }
    ExpectUntouched("run", pool, {carve, out_range, attn_range}, "succeeded");
    ++Stats().runs;
    const std::vector<int32_t> got_probs =
        attn != nullptr ? Widen(dtype, attn, attn_count) : std::vector<int32_t>();
    if (attn != nullptr) CheckProbabilities(config, n_valid, got_probs);
    if (!reference) {
      ++Stats().reference_skipped;
    } else {
      ++Stats().reference_checks;
      ExpectSameValues("out", Widen(dtype, out, out_count), want.out);
      if (attn != nullptr) ExpectSameValues("attn_weights", got_probs, want.probs);
    }
    const std::vector<uint8_t> out1 = CopyBytes(out, out_bytes);
    const std::vector<uint8_t> attn1 = attn ? CopyBytes(attn, attn_bytes) : std::vector<uint8_t>();
    for (int rerun = 0; rerun < 2; ++rerun) {
      ResetForRun(&pool, carve, false);
      memset(out, kRerunCanary, out_bytes);
      if (attn) memset(attn, kRerunCanary, attn_bytes);
      if (run_on(rerun == 0 ? run_plan : &plan2, run_dtype) != EA_OK) {
        Fail("rerun %d refused what the first run accepted", rerun);
      }
      ExpectSameBits(rerun == 0 ? "rerun on the same plan" : "run on a plan with other workers",
                     out1, out);
      if (attn)
        ExpectSameBits(rerun == 0 ? "rerun weights" : "weights, other workers", attn1, attn);
    }
    ExpectUntouched("run (second arena)", second.pool, {second.carve}, "succeeded");
  }
  ForceTarget(0);

  // --- re-plan the ready plan with a broken config: refused, not runnable
  if (c.common.Replan() && run_plan != nullptr && !weights_overflow &&
      !(nulls & (kNullInput0 | kNullInput1 | kNullInput2 | kNullOutput))) {
    const ea_attention_config bad = BrokenConfig(config, c.common);
    ExpectReplanRefused(
        "ea_attention_quant_init", &pool, carve, input_in_carve, arena,
        QuantAttentionShapeRules(bad), IsFixed(bad.dtype),
        [&] { return ea_attention_quant_init(&plan, &bad, &arena); },
        [&] { return run_on(&plan, dtype); });
  }
}

}  // namespace edgeattn_fuzz
