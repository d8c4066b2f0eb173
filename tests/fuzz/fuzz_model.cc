// Drivers for single-head self-attention and MHA, which share everything but
// their layer shapes: X + P, Q/K/V projections, attention per head, and for
// MHA the output projection. One template over a small traits struct per
// operation; the checks are those of fuzz_attention.cc plus the model's own
// rules (in-place y = x, caller tables, weights referenced by the plan).
#include <math.h>
#include <string.h>

#include <algorithm>
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

struct SelfAttentionOp {
  using Config = ea_self_attention_config;
  using Weights = ea_self_attention_weights;
  using Plan = ea_self_attention_plan;
  static constexpr bool kMha = false;
  static constexpr int kWeightCount = 3;
  static constexpr const char* kSize = "ea_self_attention_arena_size";
  static constexpr const char* kPlanInit = "ea_self_attention_init";
  static constexpr const char* kRun = "ea_self_attention_run";

  static Config MakeConfig(const ModelCase& c, const float* table) {
    return Config{static_cast<ea_dtype>(c.dtype),
                  c.max_tokens,
                  c.d_model,
                  c.d_k,
                  c.d_v,
                  static_cast<ea_mask>(c.mask),
                  static_cast<ea_position>(c.position),
                  table,
                  EA_WEIGHTS_ROW_MAJOR,
                  ea_parallel_for{},
                  nullptr,
                  nullptr,
                  nullptr};
  }
  static Weights MakeWeights(const float* const* w, const float* const* b) {
    return Weights{w[0], w[1], w[2], b[0], b[1], b[2]};
  }
  static StatusSet Rules(const Config& c) { return SelfAttentionConfigRules(c); }
  static uint64_t Need(const Config& c) {
    return edgeattn::SelfAttentionArenaBytes(
        c.max_tokens, c.d_model, c.d_k, c.d_v,
        edgeattn::StorageOf(c.position, c.position_table == nullptr), c.weights_layout);
  }
  static ea_status Size(const Config* c, size_t* bytes) {
    return ea_self_attention_arena_size(c, bytes);
  }
  static ea_status PlanInit(Plan* p, const Config* c, const Weights* w, ea_arena* a) {
    return ea_self_attention_init(p, c, w, a);
  }
  static ea_status Run(const Plan* p, const float* x, int32_t n, int32_t n_valid, float* y,
                       float* weights) {
    return ea_self_attention_run(p, x, n, n_valid, y, weights);
  }
  static int YCols(const ModelCase& c) { return c.d_v; }
  static int Heads(const ModelCase&) { return 1; }
  static bool WeightsNull(const Weights& w) { return !w.w_q || !w.w_k || !w.w_v; }
  static void Break(Config* c, int field, int32_t value) {
    switch (field) {
      case 0:
        c->dtype = static_cast<ea_dtype>(value);
        break;
      case 1:
        c->max_tokens = value;
        break;
      case 2:
        c->d_model = value;
        break;
      case 3:
        c->d_k = value;
        break;
      case 4:
        c->d_v = value;
        break;
      case 5:
        c->mask = static_cast<ea_mask>(value);
        break;
      default:
        c->position = static_cast<ea_position>(value);
        break;
    }
    if (!Rules(*c).MustFail()) c->d_k = 0;
  }
};

struct MhaOp {
  using Config = ea_mha_config;
  using Weights = ea_mha_weights;
  using Plan = ea_mha_plan;
  static constexpr bool kMha = true;
  static constexpr int kWeightCount = 2;
  static constexpr const char* kSize = "ea_mha_arena_size";
  static constexpr const char* kPlanInit = "ea_mha_init";
  static constexpr const char* kRun = "ea_mha_run";

  static Config MakeConfig(const ModelCase& c, const float* table) {
    return Config{static_cast<ea_dtype>(c.dtype),
                  c.max_tokens,
                  c.d_model,
                  c.heads,
                  static_cast<ea_mask>(c.mask),
                  static_cast<ea_position>(c.position),
                  table,
                  EA_WEIGHTS_ROW_MAJOR,
                  ea_parallel_for{},
                  nullptr,
                  nullptr,
                  nullptr};
  }
  static Weights MakeWeights(const float* const* w, const float* const* b) {
    Weights weights{};  // by name: the struct grows at its end
    weights.in_proj_weight = w[0];
    weights.in_proj_bias = b[0];
    weights.out_proj_weight = w[1];
    weights.out_proj_bias = b[1];
    return weights;
  }
  static StatusSet Rules(const Config& c) { return MhaConfigRules(c); }
  static uint64_t Need(const Config& c) {
    return edgeattn::MhaArenaBytes(c.max_tokens, c.d_model, c.n_heads,
                                   edgeattn::StorageOf(c.position, c.position_table == nullptr),
                                   c.weights_layout);
  }
  static ea_status Size(const Config* c, size_t* bytes) { return ea_mha_arena_size(c, bytes); }
  static ea_status PlanInit(Plan* p, const Config* c, const Weights* w, ea_arena* a) {
    return ea_mha_init(p, c, w, a);
  }
  static ea_status Run(const Plan* p, const float* x, int32_t n, int32_t n_valid, float* y,
                       float* weights) {
    return ea_mha_run(p, x, n, n_valid, y, weights);
  }
  static int YCols(const ModelCase& c) { return c.d_model; }
  static int Heads(const ModelCase& c) { return c.heads; }
  static bool WeightsNull(const Weights& w) { return !w.in_proj_weight || !w.out_proj_weight; }
  static void Break(Config* c, int field, int32_t value) {
    switch (field) {
      case 0:
        c->dtype = static_cast<ea_dtype>(value);
        break;
      case 1:
        c->max_tokens = value;
        break;
      case 2:
        c->d_model = value;
        break;
      case 3:
        c->n_heads = value;
        break;
      case 4:
        c->mask = static_cast<ea_mask>(value);
        break;
      default:
        c->position = static_cast<ea_position>(value);
        break;
    }
    if (!Rules(*c).MustFail()) c->n_heads = 0;
  }
};

const char* const kWeightNames[3] = {"weight0", "weight1", "weight2"};
const char* const kBiasNames[3] = {"bias0", "bias1", "bias2"};

// Classifies every head and output row of a run from the inputs it sees.
struct ModelFacts {
  std::vector<std::vector<RowFacts>> heads;  // [head][row]
  std::vector<Operand> head_values;          // V columns of each head
  std::vector<OutputRow> y_rows;             // MHA: after W_O
  bool bounded = true;                       // the error bound applies
  bool non_finite_scores = false;
  bool large_scores = false;
};

template <class Op>
ModelFacts Classify(const ModelCase& c, int n, int n_valid, const float* x, const float* table,
                    const float* const* w, const float* const* bias) {
  ModelFacts facts;
  const int e = c.d_model;
  const int heads = Op::Heads(c);
  const int d_k = Op::kMha ? e / heads : c.d_k;
  const int d_v = Op::kMha ? e / heads : c.d_v;
  // X + P in float, exactly as the library adds them.
  std::vector<float> positioned(x, x + static_cast<size_t>(n) * e);
  if (table != nullptr) {
    for (size_t i = 0; i < positioned.size(); ++i) positioned[i] = x[i] + table[i];
  }
  const Operand input = FromFloats(positioned.data(), n, e, e);
  const size_t ee = static_cast<size_t>(e) * e;
  const Operand q =
      Op::kMha ? Project(input, w[0], bias[0], e) : Project(input, w[0], bias[0], d_k);
  const Operand k = Op::kMha ? Project(input, w[0] + ee, bias[0] ? bias[0] + e : nullptr, e)
                             : Project(input, w[1], bias[1], d_k);
  const Operand v = Op::kMha ? Project(input, w[0] + 2 * ee, bias[0] ? bias[0] + 2 * e : nullptr, e)
                             : Project(input, w[2], bias[2], d_v);
  facts.bounded = AllFinite(positioned.data(), positioned.size()) && n <= kBoundMaxKeys &&
                  e <= kBoundMaxFeatures && d_k <= kBoundMaxFeatures && d_v <= kBoundMaxFeatures;
  const float scale = 1.0f / sqrtf(static_cast<float>(d_k));
  const AttentionShape shape{n, n, c.mask == EA_MASK_CAUSAL, n_valid, scale};
  for (int h = 0; h < heads; ++h) {
    const Operand hv = Columns(v, h * d_v, d_v);
    facts.heads.push_back(
        ClassifyRows(shape, Columns(q, h * d_k, d_k), Columns(k, h * d_k, d_k), hv));
    facts.head_values.push_back(hv);
    double head_max = 0.0;
    for (const RowFacts& f : facts.heads.back()) head_max = std::max(head_max, f.max_abs_score);
    Debug("  head %d: max |scaled score| %g\n", h, head_max);
    for (const RowFacts& f : facts.heads.back()) {
      if (f.kind == RowKind::kNaN || f.kind == RowKind::kUnchecked) {
        facts.non_finite_scores = true;
        facts.bounded = false;
      }
      if (f.kind == RowKind::kFinite) {
        if (f.max_abs_score > kBoundScoreLimit) {
          facts.large_scores = true;
          facts.bounded = false;
        }
        if (!f.values_bounded) facts.bounded = false;
      }
    }
  }
  if (!Op::kMha) return facts;
  // y = Concat(heads) W_O^T + b_O: a NaN head row makes the whole y row NaN;
  // finite, bounded heads and finite W_O, b_O make it finite.
  const float* w_o = w[1];
  const float* b_o = bias[1];
  const bool out_finite = AllFinite(w_o, ee) && (b_o == nullptr || AllFinite(b_o, e));
  double largest_w = 0.0, largest_b = 0.0;
  for (size_t i = 0; i < ee; ++i)
    largest_w = std::max(largest_w, fabs(static_cast<double>(w_o[i])));
  for (int i = 0; b_o != nullptr && i < e; ++i)
    largest_b = std::max(largest_b, fabs(double{b_o[i]}));
  const double largest_v = MaxAbs(v);
  const bool accumulable = largest_v * largest_w * e + largest_b < kFloatSafe;
  if (!out_finite || !accumulable) facts.bounded = false;
  for (int i = 0; i < n; ++i) {
    bool nan_row = false, finite_row = out_finite && accumulable;
    for (int h = 0; h < heads; ++h) {
      const RowFacts& f = facts.heads[h][i];
      if (f.kind == RowKind::kNaN) nan_row = true;
      if (!(f.kind == RowKind::kZero || (f.kind == RowKind::kFinite && f.values_bounded))) {
        finite_row = false;
      }
    }
    facts.y_rows.push_back(nan_row ? OutputRow::kAllNaN
                                   : (finite_row ? OutputRow::kAllFinite : OutputRow::kUnchecked));
  }
  return facts;
}

template <class Op>
void FuzzModel(ByteReader& input) {
  ModelCase c;
  Visit(input, c, Op::kMha);
  const uint16_t nulls = c.common.Nulls();
  const int64_t rows = c.max_tokens, e = c.d_model;
  const bool table_used = c.position == EA_POSITION_SINUSOIDAL || c.position == EA_POSITION_LEARNED;
  const size_t table_count = c.CallerTable() ? BoundedCount(rows, e) : 0;

  // --- the pool: arena, model weights and biases, the caller's table, then
  // x, y and the weights output when a run is affordable. Model tensors too
  // large to materialise are small stand-ins; the arena is then made too
  // small so that no plan references them.
  MemoryPool pool;
  size_t weight_counts[3] = {0, 0, 0}, bias_counts[3] = {0, 0, 0};
  bool materialised = !c.CallerTable() || table_count > 0;
  for (int i = 0; i < Op::kWeightCount; ++i) {
    weight_counts[i] = ModelWeightCount(c, Op::kMha, i);
    bias_counts[i] = ModelBiasCount(c, Op::kMha, i);
    if (weight_counts[i] == 0 || bias_counts[i] == 0) materialised = false;
  }
  // The config the size function sees (its table pointer only matters as
  // NULL or not, so a stand-in address is enough here).
  static const float kStandIn[16] = {};
  typename Op::Config config = Op::MakeConfig(c, c.CallerTable() ? kStandIn : nullptr);
  const StatusSet config_rules = Op::Rules(config);
  const bool config_valid = !config_rules.MustFail();
  const uint64_t need = config_valid ? Op::Need(config) : 0;

  SetContext(Op::kSize, "-");
  {
    size_t bytes = 0x5A5A;
    StatusSet rules = config_rules;
    if (nulls & (kNullSizeConfig | kNullSizeBytes)) rules.Add(EA_ERR_NULL_POINTER);
    const ea_status status = Op::Size(nulls & kNullSizeConfig ? nullptr : &config,
                                      nulls & kNullSizeBytes ? nullptr : &bytes);
    ExpectStatus(Op::kSize, status, rules);
    if (status != EA_OK && bytes != 0x5A5A) Fail("%s wrote *bytes on error", Op::kSize);
    if (status == EA_OK && bytes != need) {
      Fail("%s = %zu, the arena_sizes.hpp formula says %llu", Op::kSize, bytes,
           static_cast<unsigned long long>(need));
    }
  }

  ArenaLayout layout = LayOutArena(c.arena, need);
  if (!materialised && need > 0 && layout.capacity >= layout.pre_used + need) {
    layout.capacity = layout.pre_used + need - 1;
  }
  const int arena_region = pool.AddSeparate("arena", layout.capacity, 64, layout.misalign);
  int weight_regions[3] = {-1, -1, -1}, bias_regions[3] = {-1, -1, -1};
  for (int i = 0; i < Op::kWeightCount; ++i) {
    weight_regions[i] =
        pool.AddSeparate(kWeightNames[i], std::max<size_t>(weight_counts[i], 1) * 4, 4);
    if (c.biases & (1 << i)) {
      bias_regions[i] = pool.AddSeparate(kBiasNames[i], std::max<size_t>(bias_counts[i], 1) * 4, 4);
    }
  }
  const int table_region =
      c.CallerTable() ? pool.AddSeparate("table", std::max<size_t>(table_count, 1) * 4, 4) : -1;

  // Run-time lengths. Invalid ones still run, on one-row buffers: a library
  // that wrongly accepted them would write past those (ASan) or the guards.
  const int32_t n_tokens = c.n_tokens.Resolve(c.max_tokens);
  const bool n_ok = n_tokens >= 1 && n_tokens <= c.max_tokens;
  const int32_t n_valid = c.n_valid.Resolve(n_ok ? n_tokens : 1);
  const int heads = Op::Heads(c);
  const int y_cols = Op::YCols(c);
  const bool want_weights = c.want_weights >= 96;
  const int64_t n = n_ok ? n_tokens : 1;
  const size_t x_count = BoundedCount(n, e), y_count = BoundedCount(n, y_cols);
  // As in fuzz_attention.cc: runs refused before any work need no work cap,
  // and an oversized weights output is a 16-float stand-in.
  const bool weights_overflow = want_weights && n_ok && TooManyElements(n * n, heads);
  const bool refused_early = weights_overflow || !n_ok || n_valid < 0 || n_valid > n_tokens ||
                             (nulls & (kNullRunPlan | kNullInput0 | kNullOutput)) != 0;
  const size_t attn_count = want_weights ? (weights_overflow ? 16 : BoundedCount(n * n, heads)) : 0;
  const int64_t d_k = Op::kMha ? (heads > 0 ? e / heads : 0) : c.d_k;
  const int64_t d_v = Op::kMha ? d_k : c.d_v;
  // Multiply-adds of one run, in double: the factors may be any int32.
  const double dn = static_cast<double>(n), de = static_cast<double>(e);
  const double work = dn * de * (2.0 * d_k + d_v) * heads + dn * dn * (d_k + d_v) * heads +
                      (Op::kMha ? dn * de * de : 0.0);
  const bool can_run = config_valid && materialised && x_count && y_count &&
                       (!want_weights || attn_count) &&
                       (refused_early || work <= static_cast<double>(kMaxRunWork));
  std::vector<int> earlier = {arena_region};
  for (int i = 0; i < 3; ++i) {
    if (weight_regions[i] >= 0) earlier.push_back(weight_regions[i]);
    if (bias_regions[i] >= 0) earlier.push_back(bias_regions[i]);
  }
  if (table_region >= 0) earlier.push_back(table_region);
  int x_region = -1, y_region = -1, attn_region = -1;
  if (can_run) {
    x_region = PlaceRegion(&pool, "x", x_count * 4, c.x, earlier);
    earlier.push_back(x_region);
    y_region = PlaceRegion(&pool, "y", y_count * 4, c.y, earlier);
    earlier.push_back(y_region);
    if (want_weights)
      attn_region = PlaceRegion(&pool, "attn_weights", attn_count * 4, c.weights, earlier);
  }
  pool.Allocate();
  Debug(
      "%s case: dtype %d max_tokens %d d_model %d d_k %d d_v %d heads %d mask %d position %d "
      "caller table %d biases %d need %llu capacity %llu pre-used %llu misalign %u nulls %#x "
      "n_tokens %d n_valid %d weights %d can_run %d\n",
      Op::kRun, c.dtype, c.max_tokens, c.d_model, c.d_k, c.d_v, c.heads, c.mask, c.position,
      c.CallerTable(), c.biases, static_cast<unsigned long long>(need),
      static_cast<unsigned long long>(layout.capacity),
      static_cast<unsigned long long>(layout.pre_used), layout.misalign, nulls, n_tokens, n_valid,
      want_weights, can_run);
  if (Debugging()) pool.Dump();
  const float* w[3] = {nullptr, nullptr, nullptr};
  const float* bias[3] = {nullptr, nullptr, nullptr};
  for (int i = 0; i < Op::kWeightCount; ++i) {
    FillTensor(c.w_values[i], pool.Floats(weight_regions[i]), weight_counts[i]);
    w[i] = pool.Floats(weight_regions[i]);
    if (bias_regions[i] >= 0) {
      FillTensor(c.b_values[i], pool.Floats(bias_regions[i]), bias_counts[i]);
      bias[i] = pool.Floats(bias_regions[i]);
    }
  }
  if (table_region >= 0) FillTensor(c.table_values, pool.Floats(table_region), table_count);
  if (can_run) FillTensor(c.x_values, pool.Floats(x_region), x_count);
  const float* table = table_region >= 0 ? pool.Floats(table_region) : nullptr;
  config = Op::MakeConfig(c, table);
  if (Debugging()) {
    auto dump = [](const char* name, const float* data, size_t count) {
      Debug("  %s:", name);
      for (size_t i = 0; i < count && i < 64; ++i) Debug(" %.9g", data[i]);
      Debug("%s\n", count > 64 ? " ..." : "");
    };
    for (int i = 0; i < Op::kWeightCount; ++i) {
      dump(kWeightNames[i], w[i], weight_counts[i]);
      if (bias[i] != nullptr) dump(kBiasNames[i], bias[i], bias_counts[i]);
    }
    if (table != nullptr) dump("table", table, table_count);
    if (can_run) dump("x", pool.Floats(x_region), x_count);
  }
  // NULL weight matrices (nulls bits) are refused at plan time.
  const float* w_args[3] = {w[0], w[1], w[2]};
  if (nulls & kNullInput1) w_args[0] = nullptr;
  if (nulls & kNullInput2) w_args[1] = nullptr;
  if (nulls & kNullWeights) w_args[Op::kWeightCount - 1] = nullptr;
  const typename Op::Weights weights = Op::MakeWeights(w_args, bias);

  // --- ea_arena_init + init
  ea_arena arena;
  InitArena(c.arena, layout, pool.Bytes(arena_region), nulls & kNullArenaBase, &arena);
  typename Op::Plan plan;
  memset(&plan, 0, sizeof(plan));
  StatusSet plan_rules = config_rules;
  if ((nulls & (kNullPlan | kNullPlanConfig | kNullArena)) || Op::WeightsNull(weights)) {
    plan_rules.Add(EA_ERR_NULL_POINTER);
  }
  if (!(nulls & kNullArena)) plan_rules.Merge(ArenaRules(arena, need, config_valid));
  pool.Snapshot();
  const size_t used_before = arena.used;
  SetContext(Op::kPlanInit, "-");
  const ea_status plan_status =
      Op::PlanInit(nulls & kNullPlan ? nullptr : &plan, nulls & kNullPlanConfig ? nullptr : &config,
                   &weights, nulls & kNullArena ? nullptr : &arena);
  ExpectStatus(Op::kPlanInit, plan_status, plan_rules);
  if (plan_status != EA_OK) {
    if (arena.used != used_before) Fail("failed init moved arena.used");
    ExpectUntouched(Op::kPlanInit, pool, {}, "failed");
    if (can_run && !(nulls & kNullPlan)) {
      SetContext(Op::kRun, "unplanned");
      const ea_status status =
          Op::Run(&plan, pool.Floats(x_region), n_tokens, n_valid, pool.Floats(y_region),
                  attn_region >= 0 ? pool.Floats(attn_region) : nullptr);
      StatusSet refused;
      refused.Add(EA_ERR_BAD_ARGUMENT);
      refused.Add(EA_ERR_BAD_DIMENSION);  // n_tokens may be checked first
      ExpectStatus("run on a failed plan", status, refused);
      ExpectUntouched(Op::kRun, pool, {}, "refused an unplanned plan");
    }
    return;
  }
  const ByteRange carve = CarveRange(pool, arena, used_before);
  if (arena.used - used_before != need) {
    Fail("%s carved %zu bytes, arena_size said %llu", Op::kPlanInit, arena.used - used_before,
         static_cast<unsigned long long>(need));
  }
  if (ea_arena_remaining(&arena) != arena.capacity - arena.used) Fail("ea_arena_remaining wrong");
  ExpectUntouched(Op::kPlanInit, pool, {carve}, "succeeded");
  if (!can_run) return;

  // --- run arguments and the statuses they call for
  float* x = nulls & kNullInput0 ? nullptr : pool.Floats(x_region);
  float* y = nulls & kNullOutput ? nullptr : pool.Floats(y_region);
  float* attn = attn_region >= 0 ? pool.Floats(attn_region) : nullptr;
  const typename Op::Plan* run_plan = nulls & kNullRunPlan ? nullptr : &plan;
  StatusSet run_rules;
  if (!run_plan || !x || !y) run_rules.Add(EA_ERR_NULL_POINTER);
  if (!n_ok) run_rules.Add(EA_ERR_BAD_DIMENSION);
  if (n_ok && (n_valid < 0 || n_valid > n_tokens)) run_rules.Add(EA_ERR_BAD_ARGUMENT);
  if (weights_overflow) run_rules.Add(EA_ERR_DIMENSION_OVERFLOW);
  const ByteRange x_range = pool.Range(x_region), y_range = pool.Range(y_region);
  const ByteRange attn_range = attn_region >= 0 ? pool.Range(attn_region) : ByteRange{};
  if (y_range.Overlaps(attn_range)) run_rules.Add(EA_ERR_BAD_ARGUMENT);  // documented
  // Outputs over what the plan references or owns: refused once defect (4)
  // is fixed. A caller table only counts where this run reads it.
  bool new_overlap = false, refusable = false;
  for (const ByteRange& out : {y_range, attn_range}) {
    for (int i = 0; i < 3; ++i) {
      if (weight_regions[i] >= 0 && out.Overlaps(pool.Range(weight_regions[i]))) new_overlap = true;
      if (bias_regions[i] >= 0 && out.Overlaps(pool.Range(bias_regions[i]))) new_overlap = true;
    }
    if (table_region >= 0 && table_used) {
      const ByteRange whole = pool.Range(table_region);
      const ByteRange read{whole.begin, whole.begin + static_cast<size_t>(n) * e * 4};
      if (out.Overlaps(read)) new_overlap = true;
      if (out.Overlaps(whole)) refusable = true;
    }
    if (out.Overlaps(carve)) new_overlap = true;
  }
  if (new_overlap) {
    if (!run_rules.MustFail() && SkipKnown(kOverlapChecks)) return;
    run_rules.Add(EA_ERR_BAD_ARGUMENT);
  }
  // x inside the plan's scratch is refused (a memory rule since 7262ae5).
  // y may be x; other overlaps of x with an output are not documented
  // either way: refused, or computed from x as it was.
  const bool x_in_scratch = x_range.Overlaps(carve);
  if (x_in_scratch) {
    if (!run_rules.MustFail() && SkipKnown(kInputInScratch)) return;
    run_rules.Add(EA_ERR_BAD_ARGUMENT);
  }
  const bool in_place = x_range.begin == y_range.begin;
  if ((!in_place && x_range.Overlaps(y_range)) || x_range.Overlaps(attn_range)) refusable = true;
  if (refusable) run_rules.AllowRefusal();
  // In place or not, a rerun must start again from the original x.
  auto reset = [&] {
    if (x_in_scratch) {
      pool.Restore();
    } else {
      pool.RestoreExcept({carve});
    }
  };

  // --- what the results must be. The table the plan filled into its arena
  // is the one ea_sinusoidal_table_fill gives.
  std::vector<float> x0(pool.Floats(x_region), pool.Floats(x_region) + x_count);
  std::vector<float> filled;
  const float* run_table = table_used ? table : nullptr;
  if (c.position == EA_POSITION_SINUSOIDAL && table == nullptr) {
    filled.resize(static_cast<size_t>(n) * e);
    if (ea_sinusoidal_table_fill(filled.data(), static_cast<int32_t>(n), c.d_model) != EA_OK) {
      Fail("ea_sinusoidal_table_fill refused a planned shape");
    }
    run_table = filled.data();
  }
  ModelFacts facts;
  if (!run_rules.MustFail()) {
    if (n_valid >= kLongRowKeys && SkipKnown(kLongRows)) return;
    facts = Classify<Op>(c, n_tokens, n_valid, x0.data(), run_table, w, bias);
    if (facts.non_finite_scores && SkipKnown(kNonFiniteScores)) return;
    if (facts.large_scores && SkipKnown(kLargeScores)) return;
    for (int i = 0; i < 3; ++i) {
      if (weight_regions[i] >= 0 && !AllFinite(w[i], weight_counts[i])) facts.bounded = false;
      if (bias[i] != nullptr && !AllFinite(bias[i], bias_counts[i])) facts.bounded = false;
    }
  }
  const bool outputs_alone = !run_rules.MustFail() && !refusable && !in_place;
  pool.Snapshot();

  // The same plan in another arena, at another address.
  MemoryPool pool2;
  pool2.AddSeparate("filler", 64 * (1 + c.common.targets % 7) + 4, 4, 0);
  const int arena2_region = pool2.AddSeparate("arena2", static_cast<size_t>(need), 64, 0);
  pool2.Allocate();
  ea_arena arena2;
  typename Op::Plan plan2;
  memset(&plan2, 0, sizeof(plan2));
  if (ea_arena_init(&arena2, pool2.Bytes(arena2_region), static_cast<size_t>(need)) != EA_OK ||
      Op::PlanInit(&plan2, &config, &weights, &arena2) != EA_OK) {
    Fail("the same config did not plan in a second arena");
  }
  pool2.Snapshot();
  const ByteRange carve2 = pool2.Range(arena2_region);

  std::optional<BoundCheck> bound;
  if (facts.bounded && !run_rules.MustFail()) {
    if (Op::kMha) {
      const edgeattn_test::ReferenceMhaProblem problem{
          n_tokens, c.d_model, heads,    c.mask == EA_MASK_CAUSAL, n_valid, w[0], bias[0],
          w[1],     bias[1],   run_table};
      bound = BoundCheck::Mha(problem, x0.data());
    } else {
      const SelfAttentionInputs in{n_tokens, c.d_model, c.d_k,     c.d_v,  c.mask == EA_MASK_CAUSAL,
                                   n_valid,  x0.data(), run_table, w[0],   w[1],
                                   w[2],     bias[0],   bias[1],   bias[2]};
      bound = BoundCheck::SelfAttention(in);
    }
  }
  const size_t y_bytes = y_count * 4, attn_bytes = attn_count * 4;
  const size_t n_squared = static_cast<size_t>(n) * static_cast<size_t>(n);
  for (int64_t target : SelectTargets(c.common.targets)) {
    ForceTarget(target);
    SetContext(Op::kRun, TargetName(target));
    reset();
    const ea_status status = Op::Run(run_plan, x, n_tokens, n_valid, y, attn);
    ExpectStatus(Op::kRun, status, run_rules);
    if (status != EA_OK) {
      ExpectUntouched(Op::kRun, pool, {carve}, "failed");
      continue;
    }
    ExpectUntouched(Op::kRun, pool, {carve, y_range, attn_range}, "succeeded");
    for (int h = 0; h < heads; ++h) {
      CheckAttentionContract(Op::kRun, facts.heads[h], facts.head_values[h], y, y_cols, !Op::kMha,
                             attn ? attn + h * n_squared : nullptr, static_cast<int>(n));
    }
    if (Op::kMha) CheckOutputRows(Op::kRun, facts.y_rows, y, y_cols);
    if (bound.has_value()) bound->Check(y, attn);
    if (!outputs_alone) continue;
    const std::vector<uint8_t> y1 = CopyBytes(y, y_bytes);
    const std::vector<uint8_t> attn1 = attn ? CopyBytes(attn, attn_bytes) : std::vector<uint8_t>();
    for (int rerun = 0; rerun < 2; ++rerun) {
      reset();
      memset(y, kRerunCanary, y_bytes);
      if (attn) memset(attn, kRerunCanary, attn_bytes);
      if (Op::Run(rerun == 0 ? run_plan : &plan2, x, n_tokens, n_valid, y, attn) != EA_OK) {
        Fail("rerun %d refused what the first run accepted", rerun);
      }
      ExpectSameBits(rerun == 0 ? "rerun on the same plan" : "run on a plan in another arena", y1,
                     y);
      if (attn) ExpectSameBits(rerun == 0 ? "rerun weights" : "weights, other arena", attn1, attn);
    }
    ExpectUntouched("run (second arena)", pool2, {carve2}, "succeeded");
  }
  ForceTarget(0);

  // --- re-plan the ready plan with a broken config (or no arena left)
  if (c.common.Replan() && run_plan != nullptr && x && y) {
    typename Op::Config bad = config;
    ea_arena replan_arena = arena;
    StatusSet replan_rules;
    if (c.common.replan_field % 8 == 7) {
      replan_arena.used = replan_arena.capacity;
      replan_rules = ArenaRules(replan_arena, need, true);
    } else {
      Op::Break(&bad, c.common.replan_field % 8, c.common.replan_value);
      replan_rules = Op::Rules(bad);
      replan_rules.Merge(ArenaRules(arena, 0, false));
    }
    reset();
    pool.Snapshot();
    const size_t used = replan_arena.used;
    SetContext(Op::kPlanInit, "re-plan");
    const ea_status status = Op::PlanInit(&plan, &bad, &weights, &replan_arena);
    ExpectStatus("re-plan of a ready plan", status, replan_rules);
    if (replan_arena.used != used) Fail("failed re-plan moved arena.used");
    ExpectUntouched("re-plan", pool, {}, "failed");
    if (!SkipKnown(kFailedReplan)) {
      SetContext(Op::kRun, "after a failed re-plan");
      const ea_status after = Op::Run(&plan, x, n_tokens, n_valid, y, attn);
      StatusSet refused;
      refused.Add(EA_ERR_BAD_ARGUMENT);
      refused.Add(EA_ERR_BAD_DIMENSION);
      ExpectStatus("run after a failed re-plan", after, refused);
      ExpectUntouched(Op::kRun, pool, {carve}, "after a failed re-plan");
    }
  }
}

}  // namespace

void FuzzSelfAttention(ByteReader& input) { FuzzModel<SelfAttentionOp>(input); }
void FuzzMha(ByteReader& input) { FuzzModel<MhaOp>(input); }

}  // namespace edgeattn_fuzz
