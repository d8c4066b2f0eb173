// Driver for MHA cross-attention (edgeattn/cross.h): ea_cross_arena_size
// and ea_cross_init on a decoded config (every storage, row-major or
// packed weights, memories of one or several projection chunks, more
// queries than memory rows), then up to kMaxDecoderOps set_memory, run and
// broken re-init calls, replayed from the same start on every selected SIMD
// target. Checked: statuses against the header's rules (a model of
// readiness and the memory held); a refusal writes no pool byte and leaves
// the plan struct as it was (a refused set_memory keeps the old memory); a
// failed init clears `ready`; arena_size is CrossArenaBytes and init
// carves exactly that; set_memory writes only the carve, a run only y and
// the carve; y against ReferenceCross over the memory held
// (decoder_check.h), the first target's y within twice that allowance; a
// replay over the stale carve gives the same statuses and bits.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <map>
#include <memory>
#include <vector>

#include "decoder_case.h"
#include "decoder_check.h"
#include "driver_support.h"
#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/cross.h"
#include "edgeattn/edgeattn.h"
#include "expected_status.h"
#include "failure.h"
#include "fuzz_drivers.h"
#include "known_defects.h"
#include "kv_cache_check.h"
#include "memory_pool.h"
#include "plan_ops_support.h"
#include "simd_targets.h"
#include "tensor_fill.h"

namespace edgeattn_fuzz {
namespace {

const char* const kOpNames[kMaxDecoderOps][2] = {
    {"op0 in", "op0 y"}, {"op1 in", "op1 y"}, {"op2 in", "op2 y"}, {"op3 in", "op3 y"},
    {"op4 in", "op4 y"}, {"op5 in", "op5 y"}, {"op6 in", "op6 y"}, {"op7 in", "op7 y"},
    {"op8 in", "op8 y"}, {"op9 in", "op9 y"}};
const char* const kKindNames[3] = {"set_memory", "run", "re-init"};

ea_cross_config MakeConfig(const CrossCase& c) {
  ea_cross_config config;
  memset(&config, 0, sizeof(config));
  config.d_model = c.DModel();
  config.n_heads = c.n_heads;
  config.n_kv_heads = c.NKvHeads();
  config.max_memory = c.MaxMemory();
  config.max_queries = c.MaxQueries();
  config.storage = static_cast<ea_kv_storage>(c.storage);
  config.weights_layout = static_cast<ea_weights_layout>(c.weights_layout);
  return config;
}

ea_cross_config BrokenConfig(const ea_cross_config& good, uint8_t field, int32_t value) {
  ea_cross_config bad = good;
  switch (field % 7) {
    case 0:
      bad.d_model = value;
      break;
    case 1:
      bad.n_heads = value;
      break;
    case 6:
      bad.n_kv_heads = value;
      break;
    case 2:
      bad.max_memory = value;
      break;
    case 3:
      bad.max_queries = value;
      break;
    case 4:
      bad.storage = static_cast<ea_kv_storage>(value);
      break;
    default:
      bad.weights_layout = static_cast<ea_weights_layout>(value);
      break;
  }
  if (!MhaCrossConfigRules(bad).MustFail()) bad.max_memory = 0;
  return bad;
}

struct Model {
  bool ready = false;
  int32_t memory = 0;  // rows held, 0: none set
};

// The rules of set_memory (no output) or run on a plan the model describes.
StatusSet CallRules(const Model& m, const ea_cross_config& config, bool run, uint8_t op_nulls,
                    int32_t n, const ByteRange& x, const ByteRange& y, const CallMemory& memory) {
  StatusSet rules;
  if (op_nulls & kOpNullPlan) {
    rules.Add(EA_ERR_NULL_POINTER);
    return rules;
  }
  if ((op_nulls & kOpNullInput) || (run && (op_nulls & kOpNullOutput))) {
    rules.Add(EA_ERR_NULL_POINTER);
  }
  if (!m.ready) {
    rules.Add(EA_ERR_BAD_ARGUMENT);
    if (n <= 0) rules.Add(EA_ERR_BAD_DIMENSION);
    return rules;
  }
  if (n < 1 || n > (run ? config.max_queries : config.max_memory)) rules.Add(EA_ERR_BAD_DIMENSION);
  if (run && m.memory == 0) rules.Add(EA_ERR_BAD_ARGUMENT);
  CallMemoryRules(memory, (op_nulls & kOpNullInput) ? ByteRange{} : x,
                  run && !(op_nulls & kOpNullOutput) ? y : ByteRange{}, &rules);
  return rules;
}

struct RunOut {
  int op = -1;
  uint64_t key = 0;  // the memory and the queries
  std::vector<float> y;
};

}  // namespace

void FuzzMhaCross(ByteReader& input) {
  PrintLayerStatsAtExit();
  CrossCase c;
  Visit(input, c);
  const uint16_t nulls = c.common.Nulls();
  const ea_cross_config config = MakeConfig(c);
  const int64_t e = config.d_model;
  const StatusSet config_rules = MhaCrossConfigRules(config);
  const bool config_valid = !config_rules.MustFail();
  const uint64_t need = config_valid ? edgeattn::CrossArenaBytes(config) : 0;

  Debug(
      "ea_cross config: d_model %d heads %d/%d max_memory %d max_queries %d storage %d weights "
      "%d\n",
      config.d_model, config.n_heads, config.n_kv_heads, config.max_memory, config.max_queries,
      static_cast<int>(config.storage), static_cast<int>(config.weights_layout));
  CheckArenaSize("ea_cross_arena_size", ea_cross_arena_size, config, nulls, config_rules, need);

  // in_proj's rows (at most 3 d_model); 0 where the shape leaves them undefined.
  const int64_t rows = e > 0 && e <= INT32_MAX / 3 ? c.InProjRows() : 0;
  const bool materialised =
      WeightFloats(rows, e, c.weights_layout) > 0 && WeightFloats(e, e, c.weights_layout) > 0;
  ArenaLayout layout = LayOutArena(c.arena, need);
  if (!materialised && need > 0 && layout.capacity >= layout.pre_used + need) {
    layout.capacity = layout.pre_used + need - 1;
  }
  MemoryPool pool;
  const int arena_region = pool.AddSeparate("arena", layout.capacity, 64, layout.misalign);
  LayerWeights weights;
  weights.Place(&pool, rows, e, c.weights_layout, c.biases);
  const bool init_predicted =
      InitPredicted(config_valid, materialised, nulls, c.arena, layout, need);
  CallMemory memory;
  for (int region : weights.Regions()) memory.kept.push_back(pool.Range(region));
  const size_t carve_begin = pool.Range(arena_region).begin + layout.pre_used;
  memory.carve = ByteRange{carve_begin, carve_begin + static_cast<size_t>(need)};

  std::vector<int> candidates = {arena_region};
  for (int region : weights.Regions()) candidates.push_back(region);
  std::vector<int32_t> counts(static_cast<size_t>(c.OpCount()), 0);
  std::vector<OpBuffers> buffers(counts.size());
  {
    Model m;
    m.ready = init_predicted;
    int64_t budget = 2 * kMaxTensorFloats;
    for (int i = 0; i < c.OpCount(); ++i) {
      const PlanOp& op = c.ops[i];
      const uint8_t kind = c.OpKind(i);
      if (kind == kCrossReinit) {
        if (!(op.Nulls() & kOpNullPlan)) m.ready = false;
        continue;
      }
      const bool run = kind == kCrossRun;
      const int64_t maximum = run ? config.max_queries : config.max_memory;
      const int64_t bound =
          m.ready ? maximum : std::min<int64_t>(std::max<int64_t>(maximum, 1), 64);
      const int32_t n = ResolveOpCount(op, bound, bound);
      counts[static_cast<size_t>(i)] = n;
      const OpBuffers b = PlaceOpBuffers(&pool, op, kOpNames[i][0], kOpNames[i][1], n,
                                         e > 0 ? e : 1, &budget, &candidates);
      buffers[static_cast<size_t>(i)] = b;
      const int64_t bytes = RowBytes(n, e);
      const StatusSet rules = CallRules(m, config, run, op.Nulls(), n, Span(pool, b.x, bytes),
                                        Span(pool, b.y, bytes), memory);
      if (!run && !rules.MustFail() && !b.stand_in) m.memory = n;
    }
  }
  pool.Allocate();

  FillCache fills;
  auto prepare = [&](bool keep_arena) {
    for (int region : candidates) {
      if (keep_arena && region == arena_region) continue;
      memset(pool.Bytes(region), MemoryPool::kCanary, pool.Size(region));
    }
    weights.Fill(pool, c.w_values, c.b_values, &fills);
    for (int i = 0; i < c.OpCount(); ++i) {
      if (c.OpKind(i) == kCrossReinit) continue;
      const OpBuffers& b = buffers[static_cast<size_t>(i)];
      fills.Fill(c.ops[i].x_values, pool.Floats(b.x), b.floats);
    }
  };
  prepare(false);

  const bool numerics = config_valid && materialised && rows > 0;
  LayerCopy layer_copy;
  LayerSpec spec;
  if (numerics) {
    layer_copy.Read(pool, weights, &spec);
    spec.n_heads = config.n_heads;
    spec.n_kv_heads = c.LayerKvHeads();
    spec.storage = StoredAsOf(config.storage);
  }
  const ea_mha_weights layer_weights = weights.Arguments(pool, nulls);

  if (Debugging()) {
    Debug(
        "ea_cross case: d_model %d heads %d/%d max_memory %d max_queries %d storage %d weights "
        "%d need %llu capacity %llu pre-used %llu misalign %u nulls %#x, %d ops:",
        config.d_model, config.n_heads, config.n_kv_heads, config.max_memory, config.max_queries,
        static_cast<int>(config.storage), static_cast<int>(config.weights_layout),
        static_cast<unsigned long long>(need), static_cast<unsigned long long>(layout.capacity),
        static_cast<unsigned long long>(layout.pre_used), layout.misalign, nulls, c.OpCount());
    std::vector<uint8_t> kinds;
    std::vector<bool> with_buffers;
    for (int i = 0; i < c.OpCount(); ++i) {
      kinds.push_back(c.OpKind(i));
      with_buffers.push_back(c.OpKind(i) != kCrossReinit);
    }
    DebugOps(kKindNames, kinds, with_buffers, counts, buffers, c.ops);
    pool.Dump();
  }

  std::map<uint64_t, std::unique_ptr<LayerCheck>> checks;
  std::vector<RunOut> first_outs;

  auto run_ops = [&](const char* target_name, bool replay, std::vector<OpRecord>* records,
                     std::vector<RunOut>* outs) {
    prepare(replay);
    ea_arena arena;
    InitArena(c.arena, layout, pool.Bytes(arena_region), nulls & kNullArenaBase, &arena);
    ea_cross cross;
    CallMemory call_memory = memory;
    const ea_status init_status =
        CheckedInit("ea_cross_init", target_name, ea_cross_init, &cross, config, layer_weights,
                    &arena, nulls, config_rules, need, config_valid, pool, &call_memory.carve);
    records->push_back(OpRecord{init_status, {}});
    Model m;
    m.ready = init_status == EA_OK;

    std::vector<float> held;  // the memory rows set
    for (int i = 0; i < c.OpCount(); ++i) {
      const PlanOp& op = c.ops[i];
      const uint8_t kind = c.OpKind(i);
      const uint8_t op_nulls = op.Nulls();
      ea_cross* cross_arg = op_nulls & kOpNullPlan ? nullptr : &cross;
      const std::vector<uint8_t> before = CopyBytes(&cross, sizeof(cross));
      if (kind == kCrossReinit) {
        ea_status status = EA_OK;
        CheckedReinit("ea_cross_init", ea_cross_init, &cross, op, config, config_rules, need,
                      config_valid, 6, BrokenConfig, MhaCrossConfigRules, layer_weights, nulls,
                      arena, pool, &status);
        records->push_back(OpRecord{status, {}});
        if (cross_arg != nullptr) m.ready = false;
        continue;
      }
      const bool run = kind == kCrossRun;
      const int32_t n = counts[static_cast<size_t>(i)];
      const OpBuffers& b = buffers[static_cast<size_t>(i)];
      const int64_t bytes = RowBytes(n, e);
      const ByteRange x_range = Span(pool, b.x, bytes), y_range = Span(pool, b.y, bytes);
      StatusSet rules = CallRules(m, config, run, op_nulls, n, x_range, y_range, call_memory);
      if (!rules.MustFail() && b.stand_in) continue;
      const float* x = op_nulls & kOpNullInput ? nullptr : pool.Floats(b.x);
      float* y = op_nulls & kOpNullOutput ? nullptr : pool.Floats(b.y);
      std::vector<float> x_copy;
      if (x != nullptr && !b.stand_in && bytes / 4 == static_cast<int64_t>(b.floats)) {
        x_copy.assign(x, x + b.floats);
      }
      pool.Snapshot();
      SetContext(run ? "ea_cross_run" : "ea_cross_set_memory", target_name);
      const ea_status status =
          run ? ea_cross_run(cross_arg, x, n, y) : ea_cross_set_memory(cross_arg, x, n);
      ExpectStatus(run ? "ea_cross_run" : "ea_cross_set_memory", status, rules);
      Debug("  %s op %d %s %d: status %d\n", target_name, i, kKindNames[kind], n,
            static_cast<int>(status));
      OpRecord record{status, {}};
      if (status != EA_OK) {
        ExpectUntouched(kKindNames[kind], pool, {}, "failed");
        if (memcmp(before.data(), &cross, sizeof(cross)) != 0) {
          Fail("a refused %s changed the cross plan struct", kKindNames[kind]);
        }
        records->push_back(std::move(record));
        continue;
      }
      if (!run) {
        ExpectUntouched("ea_cross_set_memory", pool, {call_memory.carve}, "succeeded");
        records->push_back(std::move(record));
        held = x_copy;
        m.memory = n;
        continue;
      }
      ExpectUntouched("ea_cross_run", pool, {call_memory.carve, y_range}, "succeeded");
      record.y = CopyBytes(y, static_cast<size_t>(bytes));
      records->push_back(std::move(record));
      if (replay || !numerics) continue;
      RunOut out;
      out.op = i;
      out.key = HashBytes(HashBytes(HashBytes(kHashSeed, &m.memory, sizeof(m.memory)), held.data(),
                                    held.size() * 4),
                          x_copy.data(), x_copy.size() * 4);
      out.y.assign(y, y + static_cast<size_t>(n) * e);
      std::unique_ptr<LayerCheck>& check = checks[out.key];
      if (!check) {
        check.reset(new LayerCheck(LayerCheck::Cross(spec, x_copy, n, held, m.memory)));
      }
      const float* other = nullptr;
      for (const RunOut& f : first_outs) {
        if (f.op == out.op && f.key == out.key && outs != &first_outs) other = f.y.data();
      }
      SetContext("ea_cross_run", target_name);
      check->Check("ea_cross_run", out.y.data(), 0, n, other);
      outs->push_back(std::move(out));
    }
  };

  RunOnTargets("ea_cross", c.common.targets, c.rerun, &first_outs, run_ops);
}

}  // namespace edgeattn_fuzz
