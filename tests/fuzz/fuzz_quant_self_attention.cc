// Driver for fixed-point single-head self-attention, the 0.5.0 API beside
// fixed-point MHA (fuzz_quant_mha.cc, whose structure it follows):
// ea_self_attention_quant_arena_size on an INT8 / INT16 config,
// ea_self_attention_quant_derive, ea_self_attention_quant_init,
// ea_self_attention_quant_run_s8 and _s16 on one decoded QuantSelfAttentionCase
// (d_k and d_v of their own, not divisors of d_model). Checked: statuses
// against the documented rules (expected_status.h), nothing written on a
// refusal (one canary-filled pool; the plan struct but its ready flag), a
// plan carving exactly ea_self_attention_quant_arena_size's bytes and writing only
// its carve, a run writing only its outputs and the carve; derive's integers
// against TFLite's Prepare as tests/reference restates it; y and the
// probabilities against the reference's ops (ADD, FULLY_CONNECTED per
// channel, BATCH_MATMUL, SOFTMAX on causal prefixes, BATCH_MATMUL with V
// transposed) on the integers the plan uses, on every SIMD target;
// bit-identical reruns and a second plan in another arena on another worker
// count; a broken re-plan.
#include <math.h>
#include <stdio.h>
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
#include "memory_pool.h"
#include "quant_case_support.h"
#include "reference/tflite_chain_reference.h"

namespace edgeattn_fuzz {
namespace {

QuantStats& Stats() {
  static QuantStats& stats = StatsFor("fixed-point self-attention");
  return stats;
}

ea_quant* TensorField(ea_self_attention_quant_scales* s, int i) {
  ea_quant* fields[kQuantSelfAttentionTensors] = {
      &s->input, &s->position, &s->positioned, &s->q, &s->k, &s->v, &s->scores, &s->output};
  return fields[i];
}

// Integers with caller-owned per-channel arrays (given, or the harness's):
// q_proj and k_proj of d_k channels, v_proj of d_v.
struct Integers {
  ea_self_attention_quant_params params{};
  std::vector<int32_t> multipliers[3], shifts[3];

  ea_linear_quant_params* Linear(int l) {
    ea_linear_quant_params* all[3] = {&params.q_proj, &params.k_proj, &params.v_proj};
    return all[l];
  }
  void Point() {
    for (int l = 0; l < 3; ++l) {
      Linear(l)->output_multiplier = multipliers[l].data();
      Linear(l)->output_shift = shifts[l].data();
    }
  }
  // The fields a ParamEdit can change (23 + 3 * 5).
  EditableFields Fields() {
    ea_attention_quant_params& a = params.attention;
    EditableFields f;
    f.scalars = ScalarFields(&params.add, &a.scores, &a.context, &a.softmax);
    for (int l = 0; l < 3; ++l) f.linears.push_back({Linear(l), &multipliers[l], &shifts[l]});
    return f;
  }
};

int32_t ChannelsOf(const ea_self_attention_config& c, int l) { return l < 2 ? c.d_k : c.d_v; }

// TFLite's Prepare on valid scales (the softmax's beta 1/sqrt(d_k) in float).
struct Derivation {
  Integers integers;
  bool infinite_scores = false;
};
Derivation DeriveLikeTflite(const ea_self_attention_config& c) {
  const ea_self_attention_quant_scales& s = *c.quant_scales;
  const bool int8 = c.dtype == EA_DTYPE_INT8;
  const bool positions = c.position != EA_POSITION_NONE;
  Derivation d;
  ea_self_attention_quant_params& p = d.integers.params;
  const ea_quant x = positions ? s.positioned : s.input;
  if (positions) {
    p.add = AddLikeTflite(int8, s.input, s.position, s.positioned);
    p.position = s.position;
  }
  const float* weight_scales[3] = {s.w_q_scales, s.w_k_scales, s.w_v_scales};
  const ea_quant outputs[3] = {s.q, s.k, s.v};
  for (int l = 0; l < 3; ++l) {
    LinearLikeTflite(x, weight_scales[l], ChannelsOf(c, l), outputs[l], d.integers.Linear(l),
                     &d.integers.multipliers[l], &d.integers.shifts[l]);
  }
  d.integers.Point();
  ea_attention_quant_params& a = p.attention;
  a.scores = ScoresLikeTflite(s.q, s.k, s.scores, &d.infinite_scores);
  a.context = ContextLikeTflite(int8, s.v, s.output);
  a.softmax = SoftmaxLikeTflite(int8, 1.0f / sqrtf(static_cast<float>(c.d_k)), s.scores.scale);
  return d;
}

Integers DefaultIntegers(const ea_self_attention_config& c) {
  Integers g;
  ea_attention_quant_params& a = g.params.attention;
  DefaultScalars(c.dtype == EA_DTYPE_INT8, &g.params.add, &a.scores, &a.context, &a.softmax);
  for (int l = 0; l < 3; ++l) {
    g.multipliers[l].assign(static_cast<size_t>(ChannelsOf(c, l)), kDefaultMultiplier);
    g.shifts[l].assign(static_cast<size_t>(ChannelsOf(c, l)), kDefaultShift);
  }
  g.Point();
  return g;
}

const ea_linear_quant_params* LinearOf(const ea_self_attention_quant_params& p, int l) {
  const ea_linear_quant_params* all[3] = {&p.q_proj, &p.k_proj, &p.v_proj};
  return all[l];
}

void ExpectSameIntegers(const ea_self_attention_config& c,
                        const ea_self_attention_quant_params& got,
                        const ea_self_attention_quant_params& want) {
  if (c.position != EA_POSITION_NONE) {
    ExpectSameAdd(got.add, want.add);
    ExpectSameQuant("position", got.position, want.position);
  }
  const char* names[3] = {"q_proj", "k_proj", "v_proj"};
  for (int l = 0; l < 3; ++l) {
    ExpectSameLinear(names[l], *LinearOf(got, l), *LinearOf(want, l), ChannelsOf(c, l));
  }
  ExpectSameMatmul("scores", got.attention.scores, want.attention.scores);
  ExpectSameMatmul("context", got.attention.context, want.attention.context);
  ExpectSameSoftmax(c.dtype == EA_DTYPE_INT8, got.attention.softmax, want.attention.softmax);
}

// The chain of tests/reference's ops on the integers the plan uses: y
// [n, d_v] and the probabilities [n, n] (causal row i: the softmax of
// scores[i, 0..i], the rest at the zero probability).
struct ReferenceOutputs {
  std::vector<int32_t> y, probs;
};

struct ReferenceInputs {
  const uint8_t* x;      // [n, d_model]
  const uint8_t* table;  // [n, d_model] or NULL: no ADD
  const int8_t* w[3];    // w_q, w_k, w_v
  const uint8_t* b[3];   // b_q, b_k, b_v (NULL: none)
};

template <typename T, typename Bias, typename SoftmaxParams>
ReferenceOutputs RunReference(const ea_self_attention_config& c,
                              const ea_self_attention_quant_params& p, const SoftmaxParams& softmax,
                              int n, int n_valid_keys, const ReferenceInputs& in) {
  const size_t elements = static_cast<size_t>(n) * static_cast<size_t>(c.d_model);
  std::vector<T> x = Typed<T>(in.x, elements);
  if (in.table != nullptr) {
    const std::vector<T> table = Typed<T>(in.table, elements);
    x = ref::Add(RefAdd(p.add), x.data(), table.data(), elements);
  }
  std::vector<T> projected[3];
  for (int l = 0; l < 3; ++l) {
    const int32_t channels = ChannelsOf(c, l);
    const std::vector<Bias> bias = in.b[l] != nullptr
                                       ? Typed<Bias>(in.b[l], static_cast<size_t>(channels))
                                       : std::vector<Bias>();
    projected[l] = ref::FullyConnectedPerChannel(
        RefLinear(*LinearOf(p, l), channels), x.data(), n, c.d_model, in.w[l],
        in.b[l] != nullptr ? bias.data() : nullptr, channels);
  }
  const std::vector<T>& q = projected[0];
  const std::vector<T>& k = projected[1];
  const std::vector<T>& v = projected[2];
  const ea_attention_quant_params& a = p.attention;
  const std::vector<T> scores =
      ref::BatchMatMul(RefMatmul(a.scores), q.data(), n, c.d_k, k.data(), n);
  const size_t nn = static_cast<size_t>(n);
  std::vector<T> probs(nn * nn, static_cast<T>(sizeof(T) == 1 ? -128 : 0));
  for (int i = 0; i < n; ++i) {
    const int visible = ref::VisibleKeysOf(c.mask == EA_MASK_CAUSAL, n, n, n_valid_keys, i);
    if (visible == 0) continue;  // every probability at the zero value
    const T* row = scores.data() + static_cast<size_t>(i) * nn;
    T* out = probs.data() + static_cast<size_t>(i) * nn;
    if constexpr (sizeof(T) == 1) {
      ref::SoftmaxInt8Row(softmax, row, visible, out);
    } else {
      ref::SoftmaxInt16Row(softmax, row, visible, out);
    }
  }
  const size_t d_v = static_cast<size_t>(c.d_v);
  std::vector<T> v_t(d_v * nn);
  for (size_t j = 0; j < nn; ++j) {
    for (size_t t = 0; t < d_v; ++t) v_t[t * nn + j] = v[j * d_v + t];
  }
  const std::vector<T> y =
      ref::BatchMatMul(RefMatmul(a.context), probs.data(), n, n, v_t.data(), c.d_v);
  ReferenceOutputs r;
  r.y.assign(y.begin(), y.end());
  r.probs.assign(probs.begin(), probs.end());
  return r;
}

ea_status Run(ea_dtype run_dtype, const ea_self_attention_quant_plan* plan, const void* x,
              const RunLengths& run, void* y, void* attn) {
  if (run_dtype == EA_DTYPE_INT8) {
    return ea_self_attention_quant_run_s8(plan, static_cast<const int8_t*>(x), run.n_tokens,
                                          run.n_valid_keys, static_cast<int8_t*>(y),
                                          static_cast<int8_t*>(attn));
  }
  return ea_self_attention_quant_run_s16(plan, static_cast<const int16_t*>(x), run.n_tokens,
                                         run.n_valid_keys, static_cast<int16_t*>(y),
                                         static_cast<int16_t*>(attn));
}

// A config that breaks at least one rule, for re-planning a ready plan.
ea_self_attention_config BrokenConfig(const ea_self_attention_config& good, const Common& common) {
  ea_self_attention_config bad =
      BreakOneField(good, common, 2, [](ea_self_attention_config* c, int which, int32_t v) {
        (which == 0 ? c->d_k : c->d_v) = v;
      });
  if (!QuantSelfAttentionShapeRules(bad).MustFail()) bad.d_v = 0;
  return bad;
}

// init refused: the plan struct is as it was but for its ready flag,
// which is 0.
void ExpectPlanUntouched(const ea_self_attention_quant_plan& plan,
                         const ea_self_attention_quant_plan& before) {
  if (plan.ready != 0) Fail("a refused init left ready = 0x%x", plan.ready);
  ea_self_attention_quant_plan masked = plan;
  masked.ready = before.ready;
  if (memcmp(&masked, &before, sizeof(masked)) != 0) {
    Fail("a refused init wrote the plan struct past its ready flag");
  }
}

}  // namespace

void FuzzQuantSelfAttention(ByteReader& input) {
  QuantSelfAttentionCase c;
  Visit(input, c);
  const QuantCommon& qc = c.quant;
  ++Stats().cases;
  const uint16_t nulls = c.common.Nulls();
  const ea_dtype dtype = QuantDtype(c.dtype_kind, c.dtype_raw);
  const bool fixed = IsFixed(dtype);
  const bool int8 = dtype == EA_DTYPE_INT8;
  const int32_t e = c.d_model, d_k = c.d_k, d_v = c.d_v, max_tokens = c.max_tokens;
  const size_t element = ElementBytes(dtype);
  const size_t bias_bytes = BiasBytes(dtype);
  const bool positions = c.position != EA_POSITION_NONE;
  const bool dims_ok = max_tokens > 0 && e > 0 && d_k > 0 && d_v > 0;
  // Per-channel arrays (weight scales, given integers) of d_k and d_v entries.
  const bool channels_built =
      d_k > 0 && d_v > 0 && d_k <= kMaxTensorFloats && d_v <= kMaxTensorFloats;
  // Tensors small enough to build: W_Q, W_K [d_k, E], W_V [d_v, E], the table [n, E].
  const size_t wk_count = BoundedCount(d_k, e), wv_count = BoundedCount(d_v, e);
  const size_t table_count = BoundedCount(max_tokens, e);
  const bool materialised = wk_count > 0 && wv_count > 0 && table_count > 0;

  // --- the quantization: scales (nominal, jittered, or bad) and weights' scales
  const Nominal nominal = NominalScales(dtype, std::max(e, 1), std::max(d_k, 1), positions);
  ea_self_attention_quant_scales scales{};
  // The output's nominal scale is the context's (index 7), as in MHA.
  for (int i = 0; i < kQuantSelfAttentionTensors; ++i) {
    *TensorField(&scales, i) = QuantOf(c.tensors[i], nominal.tensor[i], int8);
  }
  const size_t k_channels = channels_built ? static_cast<size_t>(d_k) : 1;
  const size_t v_channels = channels_built ? static_cast<size_t>(d_v) : 1;
  // W_Q's d_k scales, W_K's d_k, W_V's d_v.
  const std::vector<float> weight_scales =
      WeightScales(qc, nominal.weight, 2 * k_channels + v_channels);
  if (qc.bad_weight_scale != 255) {
    scales.w_q_scales = weight_scales.data();
    scales.w_k_scales = weight_scales.data() + k_channels;
    scales.w_v_scales = weight_scales.data() + 2 * k_channels;
  }

  ea_self_attention_config config{};
  config.dtype = dtype;
  config.max_tokens = max_tokens;
  config.d_model = e;
  config.d_k = d_k;
  config.d_v = d_v;
  config.mask = static_cast<ea_mask>(c.mask);
  config.position = static_cast<ea_position>(c.position);
  // Not read by fixed-point plans: anything goes.
  static const float kFloatStandIn[64] = {};
  static const int32_t kLayouts[4] = {EA_WEIGHTS_ROW_MAJOR, EA_WEIGHTS_PACKED, 77, -1};
  config.position_table = (c.unread & 1) ? kFloatStandIn : nullptr;
  config.weights_layout = static_cast<ea_weights_layout>(kLayouts[(c.unread >> 1) % 4]);
  config.parallel = MainParallel(qc.workers);
  config.quant_scales = c.ScalesGiven() ? &scales : nullptr;
  static const uint8_t kStandIn[64] = {};
  config.quant_position_table = c.CallerTable() ? kStandIn : nullptr;

  // What TFLite's Prepare gives for these scales (valid ones). derive reads
  // neither max_tokens nor the mask: any d_model > 0 will do.
  const bool scales_checkable = fixed && e > 0 && channels_built && config.quant_scales != nullptr;
  const StatusSet scales_rules =
      scales_checkable ? QuantSelfAttentionScalesRules(config) : StatusSet();
  const bool derivable = scales_checkable && !scales_rules.MustFail();
  Derivation derivation;
  if (derivable) {
    derivation = DeriveLikeTflite(config);
    derivation.integers.Point();
  }
  const bool infinite = derivable && derivation.infinite_scores;
  const StatusSet derived_rules =
      derivable ? QuantSelfAttentionParamsRules(config, derivation.integers.params) : StatusSet();

  // Given integers: the derived ones (or defaults), edited.
  Integers given;
  const bool params_given = qc.ParamsGiven() && fixed && dims_ok && channels_built;
  if (params_given) {
    given = derivable ? derivation.integers : DefaultIntegers(config);
    ApplyEdits(qc, &given);
    GivePositionQuantization(qc, scales.position, &given.params.position);
    config.quant_params = &given.params;
  }
  const StatusSet given_rules =
      params_given ? QuantSelfAttentionParamsRules(config, given.params) : StatusSet();
  // The integers the plan uses, when it plans.
  const ea_self_attention_quant_params* used =
      params_given ? &given.params : (derivable ? &derivation.integers.params : nullptr);

  // --- ea_self_attention_quant_arena_size (its fixed-point branch)
  StatusSet shape_rules;
  if (fixed) {
    shape_rules = QuantSelfAttentionShapeRules(config);
  } else {
    shape_rules.Add(EA_ERR_BAD_ARGUMENT);
  }
  const bool shape_valid = !shape_rules.MustFail() && dims_ok;
  StatusSet size_rules = shape_rules;
  if (shape_valid) size_rules.Merge(given_rules);
  // A plan-time table's missing or bad quantization: refused by the size
  // call as by init.
  const PlanTimeTable table_needs = PlanTimeTableNeeds(
      dtype, config.position, config.quant_position_table, TableQuantization(config));
  if (table_needs.no_scales) size_rules.Add(EA_ERR_NULL_POINTER);
  if (table_needs.bad) size_rules.Add(EA_ERR_BAD_ARGUMENT);
  const uint64_t need =
      shape_valid
          ? edgeattn::SelfAttentionQuantArenaBytes(
                max_tokens, e, d_k, d_v, dtype,
                edgeattn::StorageOf(config.position, config.quant_position_table == nullptr),
                config.parallel.max_workers)
          : 0;
  // F32 and values that are no dtype: EA_ERR_BAD_ARGUMENT (shape_rules).
  CheckArenaSize("ea_self_attention_quant_arena_size", &ea_self_attention_quant_arena_size, config,
                 nulls, size_rules, need);

  // --- the pool: arena, weights, biases, table, derive's buffer, x, y, weights out
  MemoryPool pool;
  const ArenaLayout layout = QuantArenaLayout(qc, need, materialised);
  const int arena_region = pool.AddSeparate("arena", layout.capacity, 64, layout.misalign);
  const size_t w_counts[3] = {materialised ? wk_count : 1, materialised ? wk_count : 1,
                              materialised ? wv_count : 1};
  const char* w_names[3] = {"w_q", "w_k", "w_v"};
  const char* b_names[3] = {"b_q", "b_k", "b_v"};
  const size_t channels[3] = {k_channels, k_channels, v_channels};
  int w_regions[3], b_regions[3];
  for (int l = 0; l < 3; ++l) w_regions[l] = pool.AddSeparate(w_names[l], w_counts[l], 1);
  // Biases only for built shapes: int16 biases are read before the arena check.
  for (int l = 0; l < 3; ++l) {
    const bool present = materialised && ((qc.biases >> l) & 1);
    b_regions[l] = present ? pool.AddSeparate(b_names[l], channels[l] * bias_bytes, 8) : -1;
  }
  const int table_region =
      c.CallerTable() && materialised ? pool.AddSeparate("table", table_count * element, 2) : -1;
  const size_t channel_ints = EA_SELF_ATTENTION_QUANT_CHANNEL_INTS(k_channels, v_channels);
  const int channel_region = pool.AddSeparate("channel_ints", channel_ints * 4, 4);

  const RunLengths run = ResolveRun(qc, max_tokens, dtype, nulls, 1);
  const int64_t n = run.n;
  const size_t x_count = BoundedCount(n, e), y_count = BoundedCount(n, d_v);
  const size_t attn_count = run.want_weights ? (run.weights_overflow ? 16 : BoundedCount(n, n)) : 0;
  const double dn = static_cast<double>(n), de = static_cast<double>(e);
  const double dk = static_cast<double>(d_k), dv = static_cast<double>(d_v);
  const double work = dn * de * (2.0 * dk + dv) + dn * dn * (dk + dv);
  const bool can_run = fixed && shape_valid && materialised && x_count > 0 && y_count > 0 &&
                       (!run.want_weights || attn_count > 0) &&
                       (run.refused_early || work <= static_cast<double>(kMaxRunWork));
  // Placement candidates: arena, w_q, w_k, w_v, the biases present, the table, x, y.
  std::vector<int> earlier(w_regions, w_regions + 3);
  earlier.insert(earlier.begin(), arena_region);
  for (int r : {b_regions[0], b_regions[1], b_regions[2], table_region}) {
    if (r >= 0) earlier.push_back(r);
  }
  const RunRegions regions = can_run ? PlaceRunRegions(&pool, qc, earlier, x_count * element,
                                                       y_count * element, attn_count * element)
                                     : RunRegions{};
  pool.Allocate();

  // Contents: int8 weights, biases, the caller's table, x.
  int8_t* w[3];
  for (int l = 0; l < 3; ++l) w[l] = reinterpret_cast<int8_t*>(pool.Bytes(w_regions[l]));
  FillQuantWeights(qc, {w[0], w[1], w[2]},
                   {materialised ? w_counts[0] : 0, materialised ? w_counts[1] : 0,
                    materialised ? w_counts[2] : 0});
  std::vector<BiasSlot> bias_slots;
  for (int l = 0; l < 3; ++l) {
    bias_slots.push_back({b_regions[l] >= 0 ? pool.Bytes(b_regions[l]) : nullptr, channels[l]});
  }
  // Magnitude: int8 2^10, 2^20, 2^30, any; int16 2^20..2^47.
  FillQuantBiases(qc, dtype, (qc.biases >> 3) % 4, bias_slots);
  FillTableAndInput(pool, qc, dtype, table_region, table_count, regions.x, x_count);
  if (table_region >= 0) {
    config.quant_position_table = pool.Bytes(table_region);
  } else if (c.CallerTable()) {
    config.quant_position_table = kStandIn;  // never read: the shape is refused or not planned
  }
  Debug(
      "ea_self_attention_quant case: dtype %d max_tokens %d d_model %d d_k %d d_v %d mask %d "
      "position %d caller table %d scales %d params %d need %llu capacity %llu n_tokens %d n_valid "
      "%d "
      "weights %d can_run %d\n",
      static_cast<int>(dtype), max_tokens, e, d_k, d_v, c.mask, c.position, c.CallerTable(),
      c.ScalesGiven(), params_given, static_cast<unsigned long long>(need),
      static_cast<unsigned long long>(layout.capacity), run.n_tokens, run.n_valid_keys,
      run.want_weights, can_run);
  if (Debugging()) pool.Dump();

  // --- ea_self_attention_quant_derive: TFLite's Prepare, nothing written on refusal
  if (channels_built) {
    SetContext("ea_self_attention_quant_derive", "-");
    StatusSet rules;
    const bool null_channels = nulls & kNullInput2;
    const bool null_config = nulls & kNullPlanConfig, null_params = nulls & kNullPlan;
    const bool short_channels = qc.derive_kind >= 224;
    if (null_channels || null_config || null_params) rules.Add(EA_ERR_NULL_POINTER);
    if (!fixed) rules.Add(EA_ERR_BAD_ARGUMENT);
    if (e <= 0) rules.Add(EA_ERR_BAD_DIMENSION);
    if (TooManyElements(d_k, e) || TooManyElements(d_v, e)) rules.Add(EA_ERR_DIMENSION_OVERFLOW);
    if (short_channels) rules.Add(EA_ERR_ARENA_TOO_SMALL);
    if (config.quant_scales == nullptr) rules.Add(EA_ERR_NULL_POINTER);
    rules.Merge(scales_rules);
    rules.Merge(derived_rules);
    if (infinite) rules.Tolerate(EA_ERR_BAD_ARGUMENT);  // or the saturated multiplier
    pool.Snapshot();
    ea_self_attention_quant_params params;
    memset(&params, 0xCD, sizeof(params));
    const ea_self_attention_quant_params before = params;
    int32_t* buffer = reinterpret_cast<int32_t*>(pool.Bytes(channel_region));
    const ea_status status = ea_self_attention_quant_derive(
        null_config ? nullptr : &config, null_params ? nullptr : &params,
        null_channels ? nullptr : buffer, channel_ints - (short_channels ? 1 : 0));
    ExpectStatus("ea_self_attention_quant_derive", status, rules);
    if (status != EA_OK) {
      if (memcmp(&params, &before, sizeof(params)) != 0) Fail("refused derive wrote *params");
      ExpectUntouched("ea_self_attention_quant_derive", pool, {}, "refused");
    } else {
      ++Stats().derived;
      ExpectUntouched("ea_self_attention_quant_derive", pool, {pool.Range(channel_region)},
                      "succeeded");
      if (derivable) ExpectSameIntegers(config, params, derivation.integers.params);
      for (int l = 0; l < 3; ++l) {
        const ea_linear_quant_params* linear = LinearOf(params, l);
        for (const int32_t* a : {linear->output_multiplier, linear->output_shift}) {
          if (a < buffer || a + ChannelsOf(config, l) > buffer + channel_ints) {
            Fail("derive's per-channel arrays do not point into channel_ints");
          }
        }
      }
    }
  } else {
    // d_k or d_v not positive, or too large to build their arrays: refused
    // before the scales are read (8 ints are short for more than 65536).
    SetContext("ea_self_attention_quant_derive", "large or bad shape");
    StatusSet rules;
    if (!fixed) rules.Add(EA_ERR_BAD_ARGUMENT);
    if (e <= 0 || d_k <= 0 || d_v <= 0) {
      rules.Add(EA_ERR_BAD_DIMENSION);
    } else {
      if (TooManyElements(d_k, e) || TooManyElements(d_v, e)) {
        rules.Add(EA_ERR_DIMENSION_OVERFLOW);
      }
      rules.Add(EA_ERR_ARENA_TOO_SMALL);
    }
    ea_self_attention_quant_params params;
    memset(&params, 0xCD, sizeof(params));
    const ea_self_attention_quant_params before = params;
    int32_t small[8];
    memset(small, 0xCD, sizeof(small));
    ExpectStatus("ea_self_attention_quant_derive",
                 ea_self_attention_quant_derive(&config, &params, small, 8), rules);
    for (int32_t v : small) {
      if (v != static_cast<int32_t>(0xCDCDCDCDu)) Fail("refused derive wrote channel_ints");
    }
    if (memcmp(&params, &before, sizeof(params)) != 0) Fail("refused derive wrote *params");
  }

  // --- ea_self_attention_quant_init
  const uint8_t* b[3];
  for (int l = 0; l < 3; ++l) b[l] = bias_slots[static_cast<size_t>(l)].bytes;
  const ea_self_attention_quant_weights weights{nulls & kNullInput1 ? nullptr : w[0],
                                                nulls & kNullInput3 ? nullptr : w[1],
                                                nulls & kNullWeights ? nullptr : w[2],
                                                b[0],
                                                b[1],
                                                b[2]};
  StatusSet plan_rules = shape_rules;
  if ((nulls & (kNullPlan | kNullPlanConfig | kNullArena)) || weights.w_q == nullptr ||
      weights.w_k == nullptr || weights.w_v == nullptr) {
    plan_rules.Add(EA_ERR_NULL_POINTER);
  }
  if (fixed && shape_valid) {
    plan_rules.Merge(given_rules);
    if (table_needs.no_scales) plan_rules.Add(EA_ERR_NULL_POINTER);
    if (table_needs.bad) plan_rules.Add(EA_ERR_BAD_ARGUMENT);
    if (!params_given && config.quant_scales != nullptr && channels_built) {
      plan_rules.Merge(scales_rules);
      plan_rules.Merge(derived_rules);
      if (infinite) plan_rules.Tolerate(EA_ERR_BAD_ARGUMENT);
    }
    // int16 biases inside TFLite's [-2^47, 2^47) accumulator domain.
    if (!int8 && Int16BiasOutOfRange(bias_slots)) plan_rules.Add(EA_ERR_BAD_ARGUMENT);
  }
  ea_arena arena;
  InitArena(qc.arena, layout, pool.Bytes(arena_region), nulls & kNullArenaBase, &arena);
  if (!(nulls & kNullArena)) plan_rules.Merge(ArenaRules(arena, need, shape_valid));
  ea_self_attention_quant_plan plan;
  memset(&plan, 0xCD, sizeof(plan));
  const ea_self_attention_quant_plan plan_before = plan;
  pool.Snapshot();
  const size_t used_before = arena.used;
  SetContext("ea_self_attention_quant_init", "-");
  const ea_status plan_status = ea_self_attention_quant_init(
      nulls & kNullPlan ? nullptr : &plan, nulls & kNullPlanConfig ? nullptr : &config, &weights,
      nulls & kNullArena ? nullptr : &arena);
  ExpectStatus("ea_self_attention_quant_init", plan_status, plan_rules);
  if (plan_status != EA_OK) {
    if (arena.used != used_before) Fail("failed init moved arena.used");
    ExpectUntouched("ea_self_attention_quant_init", pool, {}, "failed");
    if (nulls & kNullPlan) return;
    ExpectPlanUntouched(plan, plan_before);
    if (can_run) {
      ExpectUnplannedRefused(&pool, "ea_self_attention_run", [&] {
        return Run(dtype, &plan, pool.Bytes(regions.x), run, pool.Bytes(regions.y),
                   regions.attn >= 0 ? pool.Bytes(regions.attn) : nullptr);
      });
    }
    return;
  }
  const ByteRange carve = CarveRange(pool, arena, used_before);
  if (arena.used - used_before != need) {
    Fail("ea_self_attention_quant_init carved %zu bytes, arena_size said %llu",
         arena.used - used_before, static_cast<unsigned long long>(need));
  }
  ExpectUntouched("ea_self_attention_quant_init", pool, {carve}, "succeeded");
  ++Stats().planned;
  if (!can_run) return;

  // --- runs
  const RunBuffers bufs = RunBuffersOf(pool, regions, nulls);
  const ea_self_attention_quant_plan* run_plan = nulls & kNullRunPlan ? nullptr : &plan;
  std::vector<int> kept(w_regions, w_regions + 3);
  for (int r : b_regions) {
    if (r >= 0) kept.push_back(r);
  }
  // The plan reads the whole [max_tokens, E] table (none without positions).
  if (table_region >= 0 && positions) kept.push_back(table_region);
  const RunMemory run_rules =
      ModelRunRules(pool, bufs, kept, carve, run_plan == nullptr, run, dtype);
  const std::vector<uint8_t> x0(pool.Bytes(regions.x), pool.Bytes(regions.x) + x_count * element);

  // The reference, on the integers the plan uses.
  std::vector<int32_t> want_y, want_probs;
  bool reference = false;
  if (!run_rules.rules.MustFail() && used != nullptr) {
    const ProjectionBound bounds[3] = {
        {&used->q_proj, d_k}, {&used->k_proj, d_k}, {&used->v_proj, d_v}};
    reference = ReferenceSafe(int8, int8 ? MaxInt8Bias(bias_slots) : 0, e, {bounds, bounds + 3},
                              used->attention.scores, d_k, used->attention.context,
                              static_cast<int32_t>(n));
  }
  if (reference) {
    const std::vector<uint8_t> table =
        positions ? PlannedTable(pool, table_region, dtype, n, e, TableQuantizationValue(config))
                  : std::vector<uint8_t>();
    const ReferenceInputs in{
        x0.data(), positions ? table.data() : nullptr, {w[0], w[1], w[2]}, {b[0], b[1], b[2]}};
    const ReferenceOutputs r =
        int8 ? RunReference<int8_t, int32_t>(config, *used, RefSoftmaxInt8(used->attention.softmax),
                                             static_cast<int>(n), run.n_valid_keys, in)
             : RunReference<int16_t, int64_t>(config, *used,
                                              RefSoftmaxInt16(used->attention.softmax),
                                              static_cast<int>(n), run.n_valid_keys, in);
    want_y = r.y;
    want_probs = r.probs;
  }
  pool.Snapshot();

  // The same config planned in another arena, on another worker count.
  ea_self_attention_config config2 = config;
  config2.parallel = SecondParallel(config.parallel);
  ea_self_attention_quant_plan plan2;
  memset(&plan2, 0, sizeof(plan2));
  SecondArena second;
  second.Plan(edgeattn::SelfAttentionQuantArenaBytes(
                  max_tokens, e, d_k, d_v, dtype,
                  edgeattn::StorageOf(config2.position, config2.quant_position_table == nullptr),
                  config2.parallel.max_workers),
              c.common.targets, [&](ea_arena* arena2) {
                return ea_self_attention_quant_init(&plan2, &config2, &weights, arena2);
              });

  const auto run_on = [&](const ea_self_attention_quant_plan* p) {
    return Run(run.run_dtype, p, bufs.x, run, bufs.y, bufs.attn);
  };
  RunOnEveryTarget(QuantRunCheck{&pool, carve, &second, c.common.targets,
                                 run.run_dtype == EA_DTYPE_INT8 ? "ea_self_attention_quant_run_s8"
                                                                : "ea_self_attention_quant_run_s16",
                                 run_rules, dtype, bufs, y_count, 1, static_cast<int>(n),
                                 c.mask == EA_MASK_CAUSAL, run.n_valid_keys,
                                 reference ? &want_y : nullptr, reference ? &want_probs : nullptr,
                                 [&](int which) { return run_on(which == 0 ? run_plan : &plan2); }},
                   &Stats());

  // --- re-plan the ready plan with a broken config: refused, not runnable
  if (c.common.Replan() && run_plan != nullptr && bufs.x && bufs.y) {
    const ea_self_attention_config bad = BrokenConfig(config, c.common);
    ExpectReplanRefused(
        "ea_self_attention_quant_init", &pool, carve, run_rules.x_in_scratch, arena,
        QuantSelfAttentionShapeRules(bad), IsFixed(bad.dtype),
        [&] { return ea_self_attention_quant_init(&plan, &bad, &weights, &arena); },
        [&] { return Run(dtype, &plan, bufs.x, run, bufs.y, bufs.attn); });
  }
}

}  // namespace edgeattn_fuzz
