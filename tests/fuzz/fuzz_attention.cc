// Driver for Attention(Q, K, V): ea_attention_arena_size, _init and
// _run on one decoded AttentionCase, every invariant of the brief checked
// (statuses against the documented rules, untouched memory on errors, the
// carve on success, the float contract and error bound, bit-identical
// reruns and re-plans in another arena, a broken re-plan of a ready plan).
#include <math.h>
#include <string.h>

#include <optional>
#include <vector>

#include "attention_facts.h"
#include "contract_checks.h"
#include "driver_support.h"
#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "expected_status.h"
#include "failure.h"
#include "fuzz_case.h"
#include "fuzz_drivers.h"
#include "known_defects.h"
#include "memory_pool.h"
#include "reference_bound.h"
#include "simd_targets.h"
#include "tensor_fill.h"

namespace edgeattn_fuzz {
namespace {

// A parallel-for on the fuzzing thread that runs tasks backwards and rotates
// worker indices: every worker's tile gets used, results must not change.
void BackwardsPool(void* context, int32_t n_tasks, ea_task_fn task, void* task_context) {
  const int32_t workers = *static_cast<const int32_t*>(context);
  for (int32_t i = n_tasks - 1; i >= 0; --i) task(task_context, i, i % workers);
}

int32_t g_pool_workers = 1;

ea_attention_config MakeConfig(const AttentionCase& c) {
  ea_attention_config config{};
  config.dtype = static_cast<ea_dtype>(c.dtype);
  config.n_q = c.n_q;
  config.n_kv = c.n_kv;
  config.d_k = c.d_k;
  config.d_v = c.d_v;
  config.mask = static_cast<ea_mask>(c.mask);
  config.scale = ScaleValue(c.scale_kind, c.scale_bits);
  if (c.workers % 4 > 1) {
    g_pool_workers = c.workers % 4;
    config.parallel = ea_parallel_for{&BackwardsPool, &g_pool_workers, g_pool_workers};
  }
  return config;
}

// A config that breaks at least one rule, for re-planning a ready plan.
ea_attention_config BrokenConfig(const ea_attention_config& good, const Common& common) {
  ea_attention_config bad = good;
  float value;
  memcpy(&value, &common.replan_value, sizeof(value));
  switch (common.replan_field % 7) {
    case 0:
      bad.dtype = static_cast<ea_dtype>(common.replan_value);
      break;
    case 1:
      bad.n_q = common.replan_value;
      break;
    case 2:
      bad.n_kv = common.replan_value;
      break;
    case 3:
      bad.d_k = common.replan_value;
      break;
    case 4:
      bad.d_v = common.replan_value;
      break;
    case 5:
      bad.mask = static_cast<ea_mask>(common.replan_value);
      break;
    default:
      bad.scale = value;
      break;
  }
  if (!AttentionConfigRules(bad).MustFail()) bad.n_kv = 0;
  return bad;
}

struct Buffers {
  int arena = -1, q = -1, k = -1, v = -1, out = -1, weights = -1;
};

struct RunArgs {
  const ea_attention_plan* plan;
  const float *q, *k, *v;
  int32_t n_valid;
  float *out, *weights;
};

ea_status Run(const RunArgs& a) {
  return ea_attention_run(a.plan, a.q, a.k, a.v, a.n_valid, a.out, a.weights);
}

}  // namespace

void FuzzAttention(ByteReader& input) {
  AttentionCase c;
  Visit(input, c);
  const uint16_t nulls = c.common.Nulls();
  const ea_attention_config config = MakeConfig(c);
  const StatusSet config_rules = AttentionConfigRules(config);
  const bool config_valid = !config_rules.MustFail();

  // --- ea_attention_arena_size
  SetContext("ea_attention_arena_size", "-");
  {
    size_t bytes = 0x5A5A;
    StatusSet rules = config_rules;
    if (nulls & (kNullSizeConfig | kNullSizeBytes)) rules.Add(EA_ERR_NULL_POINTER);
    const ea_status status = ea_attention_arena_size(nulls & kNullSizeConfig ? nullptr : &config,
                                                     nulls & kNullSizeBytes ? nullptr : &bytes);
    ExpectStatus("ea_attention_arena_size", status, rules);
    if (status != EA_OK && bytes != 0x5A5A) Fail("arena_size wrote *bytes on error");
    const uint64_t formula =
        edgeattn::AttentionArenaBytes(config.n_kv, config.d_k, config.parallel.max_workers);
    if (status == EA_OK && bytes != formula) {
      Fail("arena_size = %zu, AttentionArenaBytes = %llu", bytes,
           static_cast<unsigned long long>(formula));
    }
  }
  const uint64_t need = config_valid ? edgeattn::AttentionArenaBytes(config.n_kv, config.d_k,
                                                                     config.parallel.max_workers)
                                     : 0;

  // --- the pool: arena first, then the operands when a run is affordable
  const size_t q_count = BoundedCount(c.n_q, c.d_k), k_count = BoundedCount(c.n_kv, c.d_k),
               v_count = BoundedCount(c.n_kv, c.d_v), out_count = BoundedCount(c.n_q, c.d_v);
  const bool want_weights = c.want_weights >= 96;
  // A run refused before any work (NULL pointers, n_valid_keys out of range,
  // a weights output past EA_MAX_ELEMENTS) needs no work cap; an oversized
  // weights output is then a 16-float stand-in.
  const int32_t n_valid_early = c.n_valid.Resolve(c.n_kv);
  const bool weights_overflow = want_weights && TooManyElements(c.n_q, c.n_kv);
  const bool refused_early =
      weights_overflow || n_valid_early < 0 || n_valid_early > c.n_kv ||
      (nulls & (kNullRunPlan | kNullInput0 | kNullInput1 | kNullInput2 | kNullOutput)) != 0;
  const size_t weight_count =
      want_weights ? (weights_overflow ? 16 : BoundedCount(c.n_q, c.n_kv)) : 0;
  const bool can_run = config_valid && q_count && k_count && v_count && out_count &&
                       (!want_weights || weight_count) &&
                       (refused_early || static_cast<double>(c.n_q) * c.n_kv *
                                                 (static_cast<double>(c.d_k) + c.d_v) <=
                                             static_cast<double>(kMaxRunWork));
  const ArenaLayout layout = LayOutArena(c.arena, need);
  MemoryPool pool;
  Buffers b;
  b.arena = pool.AddSeparate("arena", layout.capacity, 64, layout.misalign);
  if (can_run) {
    b.q = PlaceRegion(&pool, "q", q_count * 4, c.q, {b.arena});
    b.k = PlaceRegion(&pool, "k", k_count * 4, c.k, {b.arena, b.q});
    b.v = PlaceRegion(&pool, "v", v_count * 4, c.v, {b.arena, b.q, b.k});
    b.out = PlaceRegion(&pool, "out", out_count * 4, c.out, {b.arena, b.q, b.k, b.v});
    if (want_weights) {
      b.weights = PlaceRegion(&pool, "weights", weight_count * 4, c.weights,
                              {b.arena, b.q, b.k, b.v, b.out});
    }
  }
  pool.Allocate();
  Debug(
      "ea_attention case: dtype %d n_q %d n_kv %d d_k %d d_v %d mask %d scale %g need %llu "
      "capacity %llu pre-used %llu misalign %u nulls %#x n_valid %d weights %d can_run %d\n",
      c.dtype, c.n_q, c.n_kv, c.d_k, c.d_v, c.mask, config.scale,
      static_cast<unsigned long long>(need), static_cast<unsigned long long>(layout.capacity),
      static_cast<unsigned long long>(layout.pre_used), layout.misalign, nulls,
      c.n_valid.Resolve(c.n_kv), want_weights, can_run);
  if (Debugging()) pool.Dump();
  if (can_run) {
    FillTensor(c.q_values, pool.Floats(b.q), q_count);
    FillTensor(c.k_values, pool.Floats(b.k), k_count);
    FillTensor(c.v_values, pool.Floats(b.v), v_count);
    if (Debugging()) {
      const int regions[3] = {b.q, b.k, b.v};
      const size_t counts[3] = {q_count, k_count, v_count};
      for (int i = 0; i < 3; ++i) {
        Debug("  %s:", pool.Name(regions[i]));
        for (size_t j = 0; j < counts[i] && j < 64; ++j) Debug(" %.9g", pool.Floats(regions[i])[j]);
        Debug("%s\n", counts[i] > 64 ? " ..." : "");
      }
    }
  }

  // --- ea_arena_init + ea_attention_init
  ea_arena arena;
  InitArena(c.arena, layout, pool.Bytes(b.arena), nulls & kNullArenaBase, &arena);
  ea_attention_plan plan;
  memset(&plan, 0, sizeof(plan));
  StatusSet plan_rules = config_rules;
  if (nulls & (kNullPlan | kNullPlanConfig | kNullArena)) plan_rules.Add(EA_ERR_NULL_POINTER);
  if (!(nulls & kNullArena)) plan_rules.Merge(ArenaRules(arena, need, config_valid));
  pool.Snapshot();
  const size_t used_before = arena.used;
  SetContext("ea_attention_init", "-");
  const ea_status plan_status = ea_attention_init(nulls & kNullPlan ? nullptr : &plan,
                                                  nulls & kNullPlanConfig ? nullptr : &config,
                                                  nulls & kNullArena ? nullptr : &arena);
  ExpectStatus("ea_attention_init", plan_status, plan_rules);
  if (plan_status != EA_OK) {
    if (arena.used != used_before) Fail("failed init moved arena.used");
    ExpectUntouched("ea_attention_init", pool, {}, "failed");
    if (can_run && !(nulls & kNullPlan)) {
      // A plan that init did not complete must be refused.
      SetContext("ea_attention_run", "unplanned");
      const ea_status status =
          ea_attention_run(&plan, pool.Floats(b.q), pool.Floats(b.k), pool.Floats(b.v), c.n_kv,
                           pool.Floats(b.out), b.weights >= 0 ? pool.Floats(b.weights) : nullptr);
      StatusSet refused;
      refused.Add(EA_ERR_BAD_ARGUMENT);
      ExpectStatus("ea_attention_run on a failed plan", status, refused);
      ExpectUntouched("ea_attention_run", pool, {}, "refused an unplanned plan");
    }
    return;
  }
  const ByteRange carve = CarveRange(pool, arena, used_before);
  if (arena.used - used_before != need) {
    Fail("init carved %zu bytes, arena_size said %llu", arena.used - used_before,
         static_cast<unsigned long long>(need));
  }
  if (ea_arena_remaining(&arena) != arena.capacity - arena.used) Fail("ea_arena_remaining wrong");
  ExpectUntouched("ea_attention_init", pool, {carve}, "succeeded");
  if (!can_run) return;

  // --- run-time arguments and what they must give
  const int32_t n_valid = c.n_valid.Resolve(c.n_kv);
  RunArgs args{nulls & kNullRunPlan ? nullptr : &plan,
               nulls & kNullInput0 ? nullptr : pool.Floats(b.q),
               nulls & kNullInput1 ? nullptr : pool.Floats(b.k),
               nulls & kNullInput2 ? nullptr : pool.Floats(b.v),
               n_valid,
               nulls & kNullOutput ? nullptr : pool.Floats(b.out),
               b.weights >= 0 ? pool.Floats(b.weights) : nullptr};
  StatusSet run_rules;
  if (!args.plan || !args.q || !args.k || !args.v || !args.out) run_rules.Add(EA_ERR_NULL_POINTER);
  if (n_valid < 0 || n_valid > c.n_kv) run_rules.Add(EA_ERR_BAD_ARGUMENT);
  if (weights_overflow) run_rules.Add(EA_ERR_DIMENSION_OVERFLOW);
  const ByteRange out_range = pool.Range(b.out);
  const ByteRange weights_range = b.weights >= 0 ? pool.Range(b.weights) : ByteRange{};
  bool documented_overlap = out_range.Overlaps(weights_range);
  for (int input : {b.q, b.k, b.v}) {
    documented_overlap = documented_overlap || out_range.Overlaps(pool.Range(input)) ||
                         weights_range.Overlaps(pool.Range(input));
  }
  if (documented_overlap) run_rules.Add(EA_ERR_BAD_ARGUMENT);
  // Outputs over the plan's own arena regions: refused once defect (4) is fixed.
  const bool scratch_overlap = out_range.Overlaps(carve) || weights_range.Overlaps(carve);
  if (scratch_overlap) {
    if (!run_rules.MustFail() && SkipKnown(kOverlapChecks)) return;
    run_rules.Add(EA_ERR_BAD_ARGUMENT);
  }
  // Inputs inside the plan's scratch: refused (a memory rule since 7262ae5;
  // before it they were accepted and clobbered). A run that wrongly accepts
  // them may clobber them, so every run starts from the full snapshot.
  bool inputs_in_scratch = false;
  for (int input : {b.q, b.k, b.v}) {
    if (pool.Range(input).Overlaps(carve)) inputs_in_scratch = true;
  }
  if (inputs_in_scratch) {
    if (!run_rules.MustFail() && SkipKnown(kInputInScratch)) return;
    run_rules.Add(EA_ERR_BAD_ARGUMENT);
  }
  auto reset = [&] {
    if (inputs_in_scratch) {
      pool.Restore();
    } else {
      pool.RestoreExcept({carve});
    }
  };

  // --- what the results must be, from the inputs as the run will see them
  const std::vector<float> q0(pool.Floats(b.q), pool.Floats(b.q) + q_count);
  const std::vector<float> k0(pool.Floats(b.k), pool.Floats(b.k) + k_count);
  const std::vector<float> v0(pool.Floats(b.v), pool.Floats(b.v) + v_count);
  // The documented scale: 0 selects 1/sqrt(d_k).
  const float scale = config.scale != 0.0f ? config.scale : 1.0f / sqrtf(static_cast<float>(c.d_k));
  const AttentionShape shape{c.n_q, c.n_kv, config.mask == EA_MASK_CAUSAL, n_valid, scale};
  const Operand vq = FromFloats(q0.data(), c.n_q, c.d_k, c.d_k);
  const Operand vk = FromFloats(k0.data(), c.n_kv, c.d_k, c.d_k);
  const Operand vv = FromFloats(v0.data(), c.n_kv, c.d_v, c.d_v);
  std::vector<RowFacts> facts;
  bool bounded = false;
  if (!run_rules.MustFail()) {
    facts = ClassifyRows(shape, vq, vk, vv);
    if (n_valid >= kLongRowKeys && SkipKnown(kLongRows)) return;
    bounded = AllFinite(q0.data(), q_count) && AllFinite(k0.data(), k_count) &&
              AllFinite(v0.data(), v_count) && c.n_kv <= kBoundMaxKeys &&
              c.d_k <= kBoundMaxFeatures && c.d_v <= kBoundMaxFeatures;
    for (const RowFacts& f : facts) {
      if (f.kind == RowKind::kNaN || f.kind == RowKind::kUnchecked) {
        if (SkipKnown(kNonFiniteScores)) return;
        bounded = false;
      }
      if (f.kind == RowKind::kFinite) {
        if (f.max_abs_score > kBoundScoreLimit) {
          if (SkipKnown(kLargeScores)) return;
          bounded = false;  // beyond ~100 only the contract holds (README "Numerics")
        }
        if (!f.values_bounded) bounded = false;
      }
    }
  }
  const bool outputs_alone = !documented_overlap && !scratch_overlap && !inputs_in_scratch;
  pool.Snapshot();

  // A second plan of the same config in another arena at another address.
  MemoryPool pool2;
  const int filler = pool2.AddSeparate("filler", 64 * (1 + c.common.targets % 7) + 4, 4, 0);
  (void)filler;
  const int arena2_region = pool2.AddSeparate("arena2", static_cast<size_t>(need), 64, 0);
  pool2.Allocate();
  ea_arena arena2;
  ea_attention_plan plan2;
  memset(&plan2, 0, sizeof(plan2));
  if (ea_arena_init(&arena2, pool2.Bytes(arena2_region), static_cast<size_t>(need)) != EA_OK ||
      ea_attention_init(&plan2, &config, &arena2) != EA_OK) {
    Fail("the same config did not plan in a second arena");
  }
  pool2.Snapshot();
  const ByteRange carve2 = pool2.Range(arena2_region);

  std::optional<BoundCheck> bound;
  if (bounded) {
    const edgeattn_test::AttentionProblem problem{
        c.n_q, c.n_kv, c.d_k, c.d_v, shape.causal, n_valid, static_cast<double>(scale)};
    bound = BoundCheck::Attention(problem, q0.data(), k0.data(), v0.data());
  }
  const size_t out_bytes = out_count * 4, weight_bytes = weight_count * 4;
  for (int64_t target : SelectTargets(c.common.targets)) {
    ForceTarget(target);
    SetContext("ea_attention_run", TargetName(target));
    reset();
    const ea_status status = Run(args);
    ExpectStatus("ea_attention_run", status, run_rules);
    if (status != EA_OK) {
      ExpectUntouched("ea_attention_run", pool, {carve}, "failed");
      continue;
    }
    ExpectUntouched("ea_attention_run", pool, {carve, out_range, weights_range}, "succeeded");
    CheckAttentionContract("ea_attention_run", facts, vv, args.out, c.d_v, true, args.weights,
                           c.n_kv);
    if (bound.has_value()) bound->Check(args.out, args.weights);
    if (!outputs_alone) continue;
    // Reruns: same plan (stale scratch), then the plan in the other arena.
    const std::vector<uint8_t> out1 = CopyBytes(args.out, out_bytes);
    const std::vector<uint8_t> weights1 =
        args.weights ? CopyBytes(args.weights, weight_bytes) : std::vector<uint8_t>();
    for (int rerun = 0; rerun < 2; ++rerun) {
      reset();
      memset(args.out, kRerunCanary, out_bytes);
      if (args.weights) memset(args.weights, kRerunCanary, weight_bytes);
      RunArgs again = args;
      if (rerun == 1) again.plan = &plan2;
      if (Run(again) != EA_OK) Fail("rerun %d refused what the first run accepted", rerun);
      ExpectSameBits(rerun == 0 ? "rerun on the same plan" : "run on a plan in another arena", out1,
                     args.out);
      if (args.weights) {
        ExpectSameBits(rerun == 0 ? "rerun weights" : "weights with a plan in another arena",
                       weights1, args.weights);
      }
    }
    ExpectUntouched("ea_attention_run (second arena)", pool2, {carve2}, "succeeded");
  }
  ForceTarget(0);

  // --- re-plan the ready plan with a broken config: it must stop being ready
  if (c.common.Replan() && args.plan != nullptr) {
    // Either a broken config, or a valid one with no arena left.
    ea_attention_config bad = config;
    ea_arena replan_arena = arena;
    StatusSet replan_rules;
    if (c.common.replan_field % 8 == 7) {
      replan_arena.used = replan_arena.capacity;
      replan_rules = ArenaRules(replan_arena, need, true);
    } else {
      bad = BrokenConfig(config, c.common);
      replan_rules = AttentionConfigRules(bad);
      replan_rules.Merge(ArenaRules(arena, 0, false));
    }
    reset();
    pool.Snapshot();
    const size_t used = replan_arena.used;
    SetContext("ea_attention_init", "re-plan");
    const ea_status status = ea_attention_init(&plan, &bad, &replan_arena);
    ExpectStatus("re-plan of a ready plan", status, replan_rules);
    if (replan_arena.used != used) Fail("failed re-plan moved arena.used");
    ExpectUntouched("re-plan", pool, {}, "failed");
    if (!SkipKnown(kFailedReplan) && args.q && args.k && args.v && args.out) {
      SetContext("ea_attention_run", "after a failed re-plan");
      const ea_status after = Run(args);
      StatusSet refused;
      refused.Add(EA_ERR_BAD_ARGUMENT);
      ExpectStatus("ea_attention_run after a failed re-plan", after, refused);
      ExpectUntouched("ea_attention_run", pool, {carve}, "after a failed re-plan");
    }
  }
}

}  // namespace edgeattn_fuzz
