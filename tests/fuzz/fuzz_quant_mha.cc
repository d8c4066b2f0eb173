// Driver for fixed-point multi-head attention: ea_mha_arena_size on an INT8 /
// INT16 config, ea_mha_quant_derive, ea_mha_quant_plan_init, ea_mha_run_s8
// and ea_mha_run_s16 on one decoded QuantCase. Checked: statuses against the
// documented rules (expected_status.h), nothing written on a refusal (one
// canary-filled pool), a plan carving exactly ea_mha_arena_size's bytes and
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
#include "edgeattn/edgeattn.h"
#include "expected_status.h"
#include "failure.h"
#include "fuzz_case.h"
#include "fuzz_drivers.h"
#include "known_defects.h"
#include "memory_pool.h"
#include "reference/random_tensor.h"
#include "reference/tflite_chain_reference.h"
#include "simd_targets.h"
#include "softmax_luts.h"

namespace edgeattn_fuzz {
namespace {

namespace ref = tflite_ref;

constexpr int64_t kBiasLimit = int64_t{1} << 47;

// Runs tasks last to first, rotating worker indices (as fuzz_attention.cc).
void BackwardsPool(void* context, int32_t n_tasks, ea_task_fn task, void* task_context) {
  const int32_t workers = *static_cast<const int32_t*>(context);
  for (int32_t i = n_tasks - 1; i >= 0; --i) task(task_context, i, i % workers);
}
int32_t g_main_workers = 1;
int32_t g_second_workers = 3;

// How far the fixed-point cases got, printed at exit.
struct QuantStats {
  size_t cases = 0, derived = 0, planned = 0, runs = 0, reference_checks = 0, reference_skipped = 0;
};
QuantStats& Stats() {
  static QuantStats stats;
  static const bool registered = [] {
    atexit([] {
      const QuantStats& s = Stats();
      fprintf(stderr,
              "edgeattn fuzz: fixed point: %zu cases, %zu derived, %zu planned, %zu runs, "
              "%zu compared with the integer reference, %zu not (int32 limits)\n",
              s.cases, s.derived, s.planned, s.runs, s.reference_checks, s.reference_skipped);
    });
    return true;
  }();
  (void)registered;
  return stats;
}

bool IsFixed(ea_dtype dtype) { return dtype == EA_DTYPE_INT8 || dtype == EA_DTYPE_INT16; }

ea_dtype DtypeOf(const QuantCase& c) {
  if (c.dtype_kind < 112) return EA_DTYPE_INT8;
  if (c.dtype_kind < 224) return EA_DTYPE_INT16;
  if (c.dtype_kind < 240) return EA_DTYPE_F32;
  return static_cast<ea_dtype>(c.dtype_raw);
}

int32_t HeadsOf(const QuantCase& c) {
  if (c.heads_kind >= 200 || c.d_model <= 0 || c.d_model > (1 << 16)) return c.heads;
  std::vector<int32_t> divisors;
  for (int32_t h = 1; h <= c.d_model; ++h) {
    if (c.d_model % h == 0) divisors.push_back(h);
  }
  return divisors[c.heads_kind % divisors.size()];
}

// index: a QuantTensor's kind - 224, or a weight scale's bad_value.
float QuantSpecialScale(uint8_t index) {
  static const float kScales[14] = {0.0f,    -0.0f,  -1.0f, NAN,   INFINITY, -INFINITY, 1.4e-45f,
                                    3.4e38f, 1e-38f, 1e38f, 1e20f, 1e-20f,   1e-9f,     1e9f};
  return kScales[index % 14];
}

// index: a QuantTensor's zp_kind - 192.
int32_t QuantEdgeZeroPoint(uint8_t index) {
  static const int32_t kZeroPoints[11] = {-129,      128,       127, -128, 1,    -1,
                                          INT32_MIN, INT32_MAX, 255, -255, 32767};
  return kZeroPoints[index % 11];
}

// The scales that make each tensor span its range
// (tests/reference/quant_mha_fixture.cc, RandomQuantMha, without its jitter).
struct Nominal {
  float tensor[kQuantTensors];
  float weight;
};
Nominal NominalScales(ea_dtype dtype, int32_t e, int32_t d_k, bool positions) {
  const bool int8 = dtype != EA_DTYPE_INT16;
  const double spread = int8 ? 74.0 : 18900.0;
  Nominal n{};
  const double input = 0.02, position = 1.0 / (int8 ? 127.0 : 32767.0);
  const double positioned = input + position * 0.5;
  const double s_in = positions ? positioned : input;
  const double projection = 2.0 * 74.0 / 127.0;
  const double q = projection * s_in;
  const double scores = sqrt(static_cast<double>(d_k)) * 0.5 * spread * q * q;
  const double values[kQuantTensors] = {input,  position, positioned,    q, q, q,
                                        scores, q,        projection * q};
  for (int i = 0; i < kQuantTensors; ++i) n.tensor[i] = static_cast<float>(values[i]);
  n.weight = static_cast<float>(1.0 / (127.0 * sqrt(static_cast<double>(e))));
  return n;
}

ea_quant* TensorField(ea_mha_quant_scales* s, int i) {
  ea_quant* fields[kQuantTensors] = {&s->input, &s->position, &s->positioned, &s->q,     &s->k,
                                     &s->v,     &s->scores,   &s->context,    &s->output};
  return fields[i];
}

// Integers with caller-owned per-channel arrays (given, or the harness's).
struct Integers {
  ea_mha_quant_params params{};
  std::vector<int32_t> multipliers[4], shifts[4];

  ea_linear_quant_params* Linear(int l) {
    ea_linear_quant_params* all[4] = {&params.q_proj, &params.k_proj, &params.v_proj,
                                      &params.out_proj};
    return all[l];
  }
  void Point() {
    for (int l = 0; l < 4; ++l) {
      Linear(l)->output_multiplier = multipliers[l].data();
      Linear(l)->output_shift = shifts[l].data();
    }
  }
};

ref::QuantizedMultiplier Saturate(ref::QuantizedMultiplier m) {
  // Shifts past 30 saturate only in single-rounding builds, as in TFLite
  // (README.md note 17); otherwise the plan's range checks refuse them.
#if defined(EDGEATTN_SINGLE_ROUNDING)
  return m.shift > 30 ? ref::QuantizedMultiplier{INT32_MAX, 30} : m;
#else
  return m;
#endif
}

ref::TensorQuantization Ref(ea_quant q) { return {q.scale, q.zero_point}; }

// TFLite's Prepare on valid scales, through the reference's formulas.
// infinite: q.scale * k.scale overflows float (the real multiplier is +inf).
struct Derivation {
  Integers integers;
  bool infinite_scores = false;
};
Derivation DeriveLikeTflite(const ea_mha_config& c) {
  const ea_mha_quant_scales& s = *c.quant_scales;
  const bool int8 = c.dtype == EA_DTYPE_INT8;
  const bool positions = c.position != EA_POSITION_NONE;
  const int32_t e = c.d_model;
  Derivation d;
  ea_mha_quant_params& p = d.integers.params;
  const ref::TensorQuantization x = Ref(positions ? s.positioned : s.input);
  if (positions) {
    const ref::AddParams a =
        ref::PrepareAdd(Ref(s.input), Ref(s.position), Ref(s.positioned), int8 ? 20 : 15);
    const ref::QuantizedMultiplier m1 = Saturate({a.input1_multiplier, a.input1_shift});
    const ref::QuantizedMultiplier m2 = Saturate({a.input2_multiplier, a.input2_shift});
    const ref::QuantizedMultiplier mo = Saturate({a.output_multiplier, a.output_shift});
    p.add = ea_add_quant_params{a.left_shift,    a.input1_offset, m1.multiplier, m1.shift,
                                a.input2_offset, m2.multiplier,   m2.shift,      a.output_offset,
                                mo.multiplier,   mo.shift};
  }
  const struct {
    ref::TensorQuantization in;
    const float* weights;
    ea_quant out;
  } linears[4] = {{x, s.in_proj_weight_scales, s.q},
                  {x, s.in_proj_weight_scales + e, s.k},
                  {x, s.in_proj_weight_scales + 2 * e, s.v},
                  {Ref(s.context), s.out_proj_weight_scales, s.output}};
  for (int l = 0; l < 4; ++l) {
    const ref::FullyConnectedParams f = ref::PrepareFullyConnectedPerChannel(
        linears[l].in, linears[l].weights, e, Ref(linears[l].out));
    d.integers.Linear(l)->input_offset = f.input_offset;
    d.integers.Linear(l)->output_offset = f.output_offset;
    for (int32_t i = 0; i < e; ++i) {
      const ref::QuantizedMultiplier m = Saturate({f.multiplier[i], f.shift[i]});
      d.integers.multipliers[l].push_back(m.multiplier);
      d.integers.shifts[l].push_back(m.shift);
    }
  }
  d.integers.Point();
  const auto matmul = [](ea_quant lhs, ea_quant rhs, ea_quant out) {
    const ref::BatchMatMulParams b = ref::PrepareBatchMatMul(Ref(lhs), Ref(rhs), Ref(out));
    const ref::QuantizedMultiplier m = Saturate({b.output_multiplier, b.output_shift});
    return ea_matmul_quant_params{b.lhs_offset, b.rhs_offset, b.output_offset, m.multiplier,
                                  m.shift};
  };
  if (isinf(s.q.scale * s.k.scale)) {
    // Defined here as the saturated multiplier (or a refusal, see the rules).
    d.infinite_scores = true;
    p.scores = ea_matmul_quant_params{-s.q.zero_point, -s.k.zero_point, s.scores.zero_point,
                                      INT32_MAX, 30};
  } else {
    p.scores = matmul(s.q, s.k, s.scores);
  }
  const ea_quant probs = int8 ? ea_quant{1.0f / 256.0f, -128} : ea_quant{1.0f / 32768.0f, 0};
  p.context = matmul(probs, s.v, s.context);
  const float beta = 1.0f / sqrtf(static_cast<float>(e / c.heads));
  if (int8) {
    const ref::QuantizedMultiplier m = Saturate(ref::PreprocessSoftmaxScaling(
        static_cast<double>(beta), static_cast<double>(s.scores.scale), 5));
    const int32_t diff_min = m.shift >= 0 ? -ref::CalculateInputRadius(5, m.shift) : 0;
    p.softmax = ea_softmax_quant_params{m.multiplier, m.shift, diff_min};
  } else {
    const ref::SoftmaxInt16Params m =
        ref::PrepareSoftmaxInt16(beta, s.scores.scale, nullptr, nullptr);
    const ref::QuantizedMultiplier q = Saturate({m.input_multiplier, m.input_left_shift});
    p.softmax = ea_softmax_quant_params{q.multiplier, q.shift, 0};
  }
  return d;
}

// The fields a ParamEdit can change.
constexpr int kParamFields = 43;

int32_t EditedValue(int32_t current, const ParamEdit& e) {
  static const int32_t kEdges[] = {-1,   0,    1,   -31,  -32,  7,       8,         15,
                                   16,   20,   21,  30,   31,   32,      127,       128,
                                   -127, -128, 129, -129, -255, 1 << 30, INT32_MAX, INT32_MIN};
  if (e.value_kind < 96) {
    return static_cast<int32_t>(int64_t{current} + static_cast<int8_t>(e.value & 0xFF));
  }
  if (e.value_kind < 192) return kEdges[static_cast<uint32_t>(e.value) % (sizeof(kEdges) / 4)];
  return e.value;
}

void ApplyEdit(const ParamEdit& edit, int32_t e, Integers* g) {
  ea_mha_quant_params& p = g->params;
  const int field = edit.field % kParamFields;
  int32_t* scalar[] = {&p.add.left_shift,
                       &p.add.input1_offset,
                       &p.add.input1_multiplier,
                       &p.add.input1_shift,
                       &p.add.input2_offset,
                       &p.add.input2_multiplier,
                       &p.add.input2_shift,
                       &p.add.output_offset,
                       &p.add.output_multiplier,
                       &p.add.output_shift,
                       &p.scores.lhs_offset,
                       &p.scores.rhs_offset,
                       &p.scores.output_offset,
                       &p.scores.output_multiplier,
                       &p.scores.output_shift,
                       &p.context.lhs_offset,
                       &p.context.rhs_offset,
                       &p.context.output_offset,
                       &p.context.output_multiplier,
                       &p.context.output_shift,
                       &p.softmax.input_multiplier,
                       &p.softmax.input_left_shift,
                       &p.softmax.diff_min};
  constexpr int kScalars = sizeof(scalar) / sizeof(scalar[0]);  // 23
  if (field < kScalars) {
    *scalar[field] = EditedValue(*scalar[field], edit);
    return;
  }
  // 4 linears x (input offset, output offset, one multiplier, one shift, NULL arrays).
  const int rest = field - kScalars;
  const int l = rest / 5 % 4;
  ea_linear_quant_params* linear = g->Linear(l);
  const size_t channel = e > 0 ? edit.channel % static_cast<uint32_t>(e) : 0;
  switch (rest % 5) {
    case 0:
      linear->input_offset = EditedValue(linear->input_offset, edit);
      break;
    case 1:
      linear->output_offset = EditedValue(linear->output_offset, edit);
      break;
    case 2:
      g->multipliers[l][channel] = EditedValue(g->multipliers[l][channel], edit);
      break;
    case 3:
      g->shifts[l][channel] = EditedValue(g->shifts[l][channel], edit);
      break;
    default:
      if (edit.value & 1) {
        linear->output_multiplier = nullptr;
      } else {
        linear->output_shift = nullptr;
      }
      break;
  }
}

// Plausible integers where none were derived (invalid scales): unit
// multipliers, zero offsets (the context's 128 for int8).
Integers DefaultIntegers(const ea_mha_config& c) {
  Integers g;
  const bool int8 = c.dtype == EA_DTYPE_INT8;
  g.params.add =
      ea_add_quant_params{int8 ? 20 : 15, 0, 1 << 30, -1, 0, 1 << 30, -1, 0, 1 << 30, -19};
  for (int l = 0; l < 4; ++l) {
    g.multipliers[l].assign(static_cast<size_t>(c.d_model), 1 << 30);
    g.shifts[l].assign(static_cast<size_t>(c.d_model), -6);
  }
  g.Point();
  g.params.scores = ea_matmul_quant_params{0, 0, 0, 1 << 30, -8};
  g.params.context = ea_matmul_quant_params{int8 ? 128 : 0, 0, 0, 1 << 30, -8};
  g.params.softmax = ea_softmax_quant_params{1 << 30, int8 ? 20 : -5, int8 ? -1984 : 0};
  return g;
}

bool SameLinear(const ea_linear_quant_params& a, const ea_linear_quant_params& b, int32_t e) {
  if (a.input_offset != b.input_offset || a.output_offset != b.output_offset) return false;
  for (int32_t i = 0; i < e; ++i) {
    if (a.output_multiplier[i] != b.output_multiplier[i] || a.output_shift[i] != b.output_shift[i])
      return false;
  }
  return true;
}

void ExpectSameIntegers(const ea_mha_config& c, const ea_mha_quant_params& got,
                        const ea_mha_quant_params& want) {
  const bool positions = c.position != EA_POSITION_NONE;
  if (positions && memcmp(&got.add, &want.add, sizeof(got.add)) != 0) {
    Fail(
        "derived ADD integers differ from TFLite's Prepare (multipliers %d/%d/%d, shifts "
        "%d/%d/%d; want %d/%d/%d, %d/%d/%d)",
        got.add.input1_multiplier, got.add.input2_multiplier, got.add.output_multiplier,
        got.add.input1_shift, got.add.input2_shift, got.add.output_shift,
        want.add.input1_multiplier, want.add.input2_multiplier, want.add.output_multiplier,
        want.add.input1_shift, want.add.input2_shift, want.add.output_shift);
  }
  const char* names[4] = {"q_proj", "k_proj", "v_proj", "out_proj"};
  const ea_linear_quant_params* g[4] = {&got.q_proj, &got.k_proj, &got.v_proj, &got.out_proj};
  const ea_linear_quant_params* w[4] = {&want.q_proj, &want.k_proj, &want.v_proj, &want.out_proj};
  for (int l = 0; l < 4; ++l) {
    if (!SameLinear(*g[l], *w[l], c.d_model))
      Fail("derived %s integers differ from TFLite's", names[l]);
  }
  if (memcmp(&got.scores, &want.scores, sizeof(got.scores)) != 0) {
    Fail("derived scores integers %d,%d differ from TFLite's %d,%d", got.scores.output_multiplier,
         got.scores.output_shift, want.scores.output_multiplier, want.scores.output_shift);
  }
  if (memcmp(&got.context, &want.context, sizeof(got.context)) != 0) {
    Fail("derived context integers differ from TFLite's");
  }
  const bool int8 = c.dtype == EA_DTYPE_INT8;
  if (got.softmax.input_multiplier != want.softmax.input_multiplier ||
      got.softmax.input_left_shift != want.softmax.input_left_shift ||
      (int8 && got.softmax.diff_min != want.softmax.diff_min)) {
    Fail("derived softmax integers %d,%d,%d differ from TFLite's %d,%d,%d",
         got.softmax.input_multiplier, got.softmax.input_left_shift, got.softmax.diff_min,
         want.softmax.input_multiplier, want.softmax.input_left_shift, want.softmax.diff_min);
  }
}

// The reference computes `requantised + output_offset` and int8
// accumulators in int32 (undefined past it, as TFLite): used only where no
// value can come near the int32 limits.
bool ReferenceSafe(const ea_mha_config& c, const ea_mha_quant_params& p, int64_t max_bias, int n) {
  if (c.dtype != EA_DTYPE_INT8) return true;
  const double limit = 2147483647.0 - 512.0;
  const auto real = [](int32_t m, int32_t shift) {
    return ldexp(static_cast<double>(m), shift - 31);
  };
  const double fc_acc = static_cast<double>(max_bias) + 255.0 * 128.0 * c.d_model;
  if (fc_acc > limit) return false;
  const ea_linear_quant_params* linears[4] = {&p.q_proj, &p.k_proj, &p.v_proj, &p.out_proj};
  for (const ea_linear_quant_params* l : linears) {
    for (int32_t i = 0; i < c.d_model; ++i) {
      if (fc_acc * real(l->output_multiplier[i], l->output_shift[i]) > limit) return false;
    }
  }
  const double scores_acc = 255.0 * 255.0 * (c.d_model / c.heads);
  const double context_acc = 255.0 * 255.0 * n;
  return scores_acc * real(p.scores.output_multiplier, p.scores.output_shift) <= limit &&
         context_acc * real(p.context.output_multiplier, p.context.output_shift) <= limit;
}

template <typename T>
std::vector<T> Typed(const uint8_t* bytes, size_t count) {
  std::vector<T> values(count);
  memcpy(values.data(), bytes, count * sizeof(T));
  return values;
}

// The integer reference on the integers the plan uses: y, and the
// probabilities concatenated over heads.
struct ReferenceOutputs {
  std::vector<int32_t> y, probs;
};

template <typename T, typename Bias, typename SoftmaxParams>
ReferenceOutputs RunReference(const ea_mha_config& c, const ea_mha_quant_params& p,
                              const SoftmaxParams& softmax, int n, const uint8_t* x,
                              const uint8_t* table, const int8_t* in_w, const int8_t* out_w,
                              const uint8_t* in_b, const uint8_t* out_b) {
  const size_t e = static_cast<size_t>(c.d_model);
  ref::ChainParams<SoftmaxParams> chain;
  const ea_add_quant_params& a = p.add;
  chain.add =
      ref::AddParams{a.left_shift,        a.input1_offset,     a.input1_multiplier, a.input1_shift,
                     a.input2_offset,     a.input2_multiplier, a.input2_shift,      a.output_offset,
                     a.output_multiplier, a.output_shift};
  const auto fc = [&](const ea_linear_quant_params& l) {
    ref::FullyConnectedParams f;
    f.input_offset = l.input_offset;
    f.output_offset = l.output_offset;
    f.multiplier.assign(l.output_multiplier, l.output_multiplier + e);
    f.shift.assign(l.output_shift, l.output_shift + e);
    return f;
  };
  chain.fc_q = fc(p.q_proj);
  chain.fc_k = fc(p.k_proj);
  chain.fc_v = fc(p.v_proj);
  chain.fc_o = fc(p.out_proj);
  const auto bmm = [](const ea_matmul_quant_params& m) {
    return ref::BatchMatMulParams{m.lhs_offset, m.rhs_offset, m.output_offset, m.output_multiplier,
                                  m.output_shift};
  };
  chain.bmm_scores = bmm(p.scores);
  chain.bmm_context = bmm(p.context);
  chain.softmax = softmax;
  const size_t elements = static_cast<size_t>(n) * e;
  const std::vector<T> x_t = Typed<T>(x, elements);
  const std::vector<T> pe = table != nullptr ? Typed<T>(table, elements) : std::vector<T>();
  const std::vector<Bias> b_in = in_b != nullptr ? Typed<Bias>(in_b, 3 * e) : std::vector<Bias>();
  const std::vector<Bias> b_out = out_b != nullptr ? Typed<Bias>(out_b, e) : std::vector<Bias>();
  ref::ChainInputs<T, Bias> in{};
  in.x_emb = x_t.data();
  in.pe = table != nullptr ? pe.data() : nullptr;
  in.w_q = in_w;
  in.w_k = in_w + e * e;
  in.w_v = in_w + 2 * e * e;
  in.w_o = out_w;
  in.b_q = in_b != nullptr ? b_in.data() : nullptr;
  in.b_k = in_b != nullptr ? b_in.data() + e : nullptr;
  in.b_v = in_b != nullptr ? b_in.data() + 2 * e : nullptr;
  in.b_o = out_b != nullptr ? b_out.data() : nullptr;
  const ref::ChainShape shape{n, c.d_model, c.heads, c.mask == EA_MASK_CAUSAL};
  ref::ChainTensors<T> t;
  if constexpr (sizeof(T) == 1) {
    t = ref::RunChainInt8(shape, chain, in);
  } else {
    t = ref::RunChainInt16(shape, chain, in);
  }
  ReferenceOutputs out;
  out.y.assign(t.y.begin(), t.y.end());
  for (const auto& head : t.probs) out.probs.insert(out.probs.end(), head.begin(), head.end());
  return out;
}

std::vector<int32_t> Widen(ea_dtype dtype, const uint8_t* bytes, size_t count) {
  std::vector<int32_t> values(count);
  for (size_t i = 0; i < count; ++i) {
    if (dtype == EA_DTYPE_INT8) {
      values[i] = static_cast<int8_t>(bytes[i]);
    } else {
      int16_t v;
      memcpy(&v, bytes + 2 * i, 2);
      values[i] = v;
    }
  }
  return values;
}

void ExpectSameValues(const char* what, const std::vector<int32_t>& got,
                      const std::vector<int32_t>& want) {
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    if (got[i] != want[i])
      Fail("%s[%zu] = %d, the integer reference says %d", what, i, got[i], want[i]);
  }
}

// Probabilities the contract fixes without a reference: masked entries at
// the zero probability; int8 rows sum to at most 1 plus half an LSB per key.
void CheckProbabilities(ea_dtype dtype, const std::vector<int32_t>& probs, int heads, int n,
                        bool causal) {
  const bool int8 = dtype == EA_DTYPE_INT8;
  const int32_t zero = int8 ? -128 : 0;
  for (int h = 0; h < heads; ++h) {
    for (int i = 0; i < n; ++i) {
      const int32_t* row = probs.data() + (static_cast<size_t>(h) * n + i) * n;
      const int visible = causal ? i + 1 : n;
      int64_t sum = 0;
      for (int j = 0; j < n; ++j) {
        if (j >= visible && row[j] != zero) {
          Fail("head %d row %d: masked probability [%d] = %d, want %d", h, i, j, row[j], zero);
        }
        if (!int8 && row[j] < 0) Fail("int16 probability %d below 0", row[j]);
        sum += row[j] - zero;
      }
      // Each probability rounds to nearest: at most about half an LSB over.
      if (int8 && sum > 256 + visible + 1) {
        Fail("head %d row %d: int8 probabilities sum to %lld / 256", h, i,
             static_cast<long long>(sum));
      }
    }
  }
}

ea_status Run(ea_dtype run_dtype, const ea_mha_quant_plan* plan, const void* x, int32_t n, void* y,
              void* attn) {
  if (run_dtype == EA_DTYPE_INT8) {
    return ea_mha_run_s8(plan, static_cast<const int8_t*>(x), n, static_cast<int8_t*>(y),
                         static_cast<int8_t*>(attn));
  }
  return ea_mha_run_s16(plan, static_cast<const int16_t*>(x), n, static_cast<int16_t*>(y),
                        static_cast<int16_t*>(attn));
}

// A config that breaks at least one rule, for re-planning a ready plan.
ea_mha_config BrokenConfig(const ea_mha_config& good, const Common& common) {
  ea_mha_config bad = good;
  const int32_t v = common.replan_value;
  switch (common.replan_field % 8) {
    case 0:
      bad.dtype = static_cast<ea_dtype>(v == EA_DTYPE_INT8 || v == EA_DTYPE_INT16 ? 3 : v);
      break;
    case 1:
      bad.max_tokens = v;
      break;
    case 2:
      bad.d_model = v;
      break;
    case 3:
      bad.heads = v;
      break;
    case 4:
      bad.mask = static_cast<ea_mask>(v);
      break;
    case 5:
      bad.position = static_cast<ea_position>(v);
      break;
    case 6:
      bad.quant_scales = nullptr;
      bad.quant_params = nullptr;
      break;
    default:
      bad.parallel = ea_parallel_for{nullptr, nullptr, v};
      break;
  }
  StatusSet rules = QuantMhaShapeRules(bad);
  if (!rules.MustFail()) bad.heads = 0;
  return bad;
}

}  // namespace

void FuzzQuantMha(ByteReader& input) {
  QuantCase c;
  Visit(input, c);
  ++Stats().cases;
  const uint16_t nulls = c.common.Nulls();
  const ea_dtype dtype = DtypeOf(c);
  const bool fixed = IsFixed(dtype);
  const bool int8 = dtype == EA_DTYPE_INT8;
  const int32_t heads = HeadsOf(c);
  const int32_t e = c.d_model, max_tokens = c.max_tokens;
  const size_t element = dtype == EA_DTYPE_INT16 ? 2 : 1;
  const size_t bias_bytes = dtype == EA_DTYPE_INT16 ? 8 : 4;
  const bool positions = c.position != EA_POSITION_NONE;
  const bool dims_ok = max_tokens > 0 && e > 0 && heads > 0 && e % heads == 0;
  // Tensors small enough to build: in_proj [3E, E] and the table [n, E].
  const size_t in_count = BoundedCount(3 * int64_t{e}, e);
  const size_t table_count = BoundedCount(max_tokens, e);
  const bool materialised = in_count > 0 && table_count > 0;

  // --- the quantization: scales (nominal, jittered, or bad) and weights' scales
  const Nominal nominal = NominalScales(dtype, std::max(e, 1), dims_ok ? e / heads : 1, positions);
  ea_mha_quant_scales scales{};
  for (int i = 0; i < kQuantTensors; ++i) {
    const QuantTensor& t = c.tensors[i];
    ea_quant* q = TensorField(&scales, i);
    q->scale = t.kind < 224 ? static_cast<float>(nominal.tensor[i] * exp2(t.jitter / 8.0))
                            : QuantSpecialScale(static_cast<uint8_t>(t.kind - 224));
    if (t.zp_kind >= 192) {
      q->zero_point = QuantEdgeZeroPoint(static_cast<uint8_t>(t.zp_kind - 192));
    } else {
      q->zero_point = int8 ? static_cast<int8_t>(t.zp_value) : 0;
    }
  }
  const size_t channels = materialised ? static_cast<size_t>(e) : 1;
  std::vector<float> in_scales(3 * channels), out_scales(channels);
  {
    edgeattn_test::RandomStream stream(c.weight_scale_seed);
    const double base = nominal.weight * exp2(c.weight_jitter / 8.0);
    for (float& s : in_scales) s = static_cast<float>(base * exp2(2.0 * stream.Uniform() - 1.0));
    for (float& s : out_scales) s = static_cast<float>(base * exp2(2.0 * stream.Uniform() - 1.0));
    if (c.bad_weight_scale >= 224 && c.bad_weight_scale < 255) {
      const size_t index = c.bad_channel % (4 * channels);
      float* slot = index < 3 * channels ? &in_scales[index] : &out_scales[index - 3 * channels];
      *slot = QuantSpecialScale(c.bad_value);
    }
  }
  const bool null_weight_scales = c.bad_weight_scale == 255;
  scales.in_proj_weight_scales = null_weight_scales ? nullptr : in_scales.data();
  scales.out_proj_weight_scales = null_weight_scales ? nullptr : out_scales.data();

  ea_mha_config config{};
  config.dtype = dtype;
  config.max_tokens = max_tokens;
  config.d_model = e;
  config.heads = heads;
  config.mask = static_cast<ea_mask>(c.mask);
  config.position = static_cast<ea_position>(c.position);
  config.weights_layout = EA_WEIGHTS_ROW_MAJOR;
  if (c.workers % 4 > 1) {
    g_main_workers = c.workers % 4;
    config.parallel = ea_parallel_for{&BackwardsPool, &g_main_workers, g_main_workers};
  }
  config.quant_scales = c.ScalesGiven() ? &scales : nullptr;
  static const uint8_t kStandIn[64] = {};
  config.quant_position_table = c.CallerTable() ? kStandIn : nullptr;

  // What TFLite's Prepare gives for these scales (valid ones, built shapes).
  const bool scales_checkable = fixed && dims_ok && materialised && config.quant_scales != nullptr;
  const StatusSet scales_rules = scales_checkable ? QuantScalesRules(config) : StatusSet();
  const bool derivable = scales_checkable && !scales_rules.MustFail();
  Derivation derivation;
  if (derivable) {
    derivation = DeriveLikeTflite(config);
    derivation.integers.Point();
  }
  const bool infinite = derivable && derivation.infinite_scores;
  if (infinite && SkipKnown(kQuantInfiniteMultiplier)) return;

  // Given integers: the derived ones (or defaults), edited.
  Integers given;
  const bool params_given = c.ParamsGiven() && fixed && dims_ok && materialised;
  if (params_given) {
    given = derivable ? derivation.integers : DefaultIntegers(config);
    given.Point();
    for (uint8_t i = 0; i < c.edit_count % (kMaxParamEdits + 1); ++i) {
      ApplyEdit(c.edits[i], e, &given);
    }
    config.quant_params = &given.params;
  }
  // The integers the plan uses, when it plans.
  const ea_mha_quant_params* used =
      params_given ? &given.params : (derivable ? &derivation.integers.params : nullptr);

  // --- ea_mha_arena_size
  StatusSet shape_rules;
  if (fixed) {
    shape_rules = QuantMhaShapeRules(config);
  } else {
    shape_rules.Add(EA_ERR_BAD_ARGUMENT);
  }
  const bool shape_valid = !shape_rules.MustFail() && dims_ok;
  StatusSet size_rules = shape_rules;
  if (params_given && shape_valid) size_rules.Merge(QuantParamsRules(config, given.params));
  // The sinusoidal table filled at plan time is quantized with
  // quant_scales->position, integers given or not: it needs them, valid.
  // plan_init must refuse a missing or bad one; ea_mha_arena_size may.
  bool table_no_scales = false, table_bad_quant = false;
  if (fixed && config.position == EA_POSITION_SINUSOIDAL &&
      config.quant_position_table == nullptr) {
    table_no_scales = config.quant_scales == nullptr;
    table_bad_quant = !table_no_scales && (!ValidQuantScale(scales.position.scale) ||
                                           !ValidZeroPoint(dtype, scales.position.zero_point));
  }
  if (table_no_scales) size_rules.Tolerate(EA_ERR_NULL_POINTER);
  if (table_bad_quant) size_rules.Tolerate(EA_ERR_BAD_ARGUMENT);
  const uint64_t need =
      shape_valid
          ? edgeattn::MhaQuantArenaBytes(
                max_tokens, e, heads, dtype,
                edgeattn::StorageOf(config.position, config.quant_position_table == nullptr),
                config.parallel.max_workers)
          : 0;
  SetContext("ea_mha_arena_size", "-");
  if (dtype != EA_DTYPE_F32) {  // F32 is the float entry point's (fuzz_model.cc)
    size_t bytes = 0x5A5A;
    StatusSet rules = size_rules;
    if (nulls & (kNullSizeConfig | kNullSizeBytes)) rules.Add(EA_ERR_NULL_POINTER);
    const ea_status status = ea_mha_arena_size(nulls & kNullSizeConfig ? nullptr : &config,
                                               nulls & kNullSizeBytes ? nullptr : &bytes);
    ExpectStatus("ea_mha_arena_size", status, rules);
    if (status != EA_OK && bytes != 0x5A5A) Fail("ea_mha_arena_size wrote *bytes on error");
    if (status == EA_OK && bytes != need) {
      Fail("ea_mha_arena_size = %zu, the arena_sizes.hpp formula says %llu", bytes,
           static_cast<unsigned long long>(need));
    }
  }

  // --- the pool: arena, weights, biases, table, derive's buffer, x, y, weights out
  MemoryPool pool;
  ArenaLayout layout = LayOutArena(c.arena, need);
  if (!materialised && need > 0 && layout.capacity >= layout.pre_used + need) {
    layout.capacity = layout.pre_used + need - 1;
  }
  const int arena_region = pool.AddSeparate("arena", layout.capacity, 64, layout.misalign);
  const size_t ee = materialised ? static_cast<size_t>(e) * e : 1;
  const int in_w_region = pool.AddSeparate("in_proj_weight", materialised ? 3 * ee : 1, 1);
  const int out_w_region = pool.AddSeparate("out_proj_weight", ee, 1);
  // Biases only for built shapes: int16 biases are read before the arena check.
  const bool in_bias = materialised && (c.biases & 1), out_bias = materialised && (c.biases & 2);
  const int in_b_region =
      in_bias ? pool.AddSeparate("in_proj_bias", 3 * channels * bias_bytes, 8) : -1;
  const int out_b_region =
      out_bias ? pool.AddSeparate("out_proj_bias", channels * bias_bytes, 8) : -1;
  const int table_region =
      c.CallerTable() && materialised ? pool.AddSeparate("table", table_count * element, 2) : -1;
  const size_t channel_ints = EA_MHA_QUANT_CHANNEL_INTS(static_cast<size_t>(channels));
  const int channel_region = pool.AddSeparate("channel_ints", channel_ints * 4, 4);

  const int32_t n_tokens = c.n_tokens.Resolve(max_tokens);
  const bool n_ok = n_tokens >= 1 && n_tokens <= max_tokens;
  const int64_t n = n_ok ? n_tokens : 1;
  const bool want_weights = c.want_weights >= 96;
  const bool weights_overflow = want_weights && n_ok && TooManyElements(n * n, heads);
  const ea_dtype run_dtype = c.wrong_run >= 240 ? (int8 ? EA_DTYPE_INT16 : EA_DTYPE_INT8) : dtype;
  const bool refused_early = weights_overflow || !n_ok || run_dtype != dtype ||
                             (nulls & (kNullRunPlan | kNullInput0 | kNullOutput)) != 0;
  const size_t x_count = BoundedCount(n, e);
  const size_t attn_count = want_weights ? (weights_overflow ? 16 : BoundedCount(n * n, heads)) : 0;
  const double dn = static_cast<double>(n), de = static_cast<double>(e);
  const double work = 4.0 * dn * de * de + 2.0 * dn * dn * de;
  const bool can_run = fixed && shape_valid && materialised && x_count > 0 &&
                       (!want_weights || attn_count > 0) &&
                       (refused_early || work <= static_cast<double>(kMaxRunWork));
  std::vector<int> earlier = {arena_region, in_w_region, out_w_region};
  if (in_b_region >= 0) earlier.push_back(in_b_region);
  if (out_b_region >= 0) earlier.push_back(out_b_region);
  if (table_region >= 0) earlier.push_back(table_region);
  int x_region = -1, y_region = -1, attn_region = -1;
  if (can_run) {
    x_region = PlaceRegion(&pool, "x", x_count * element, c.x, earlier);
    earlier.push_back(x_region);
    y_region = PlaceRegion(&pool, "y", x_count * element, c.y, earlier);
    earlier.push_back(y_region);
    if (want_weights) {
      attn_region = PlaceRegion(&pool, "attn_weights", attn_count * element, c.weights, earlier);
    }
  }
  pool.Allocate();

  // Contents: int8 weights, biases, the caller's table, x.
  {
    edgeattn_test::RandomStream stream(c.weight_seed);
    int8_t* w[2] = {reinterpret_cast<int8_t*>(pool.Bytes(in_w_region)),
                    reinterpret_cast<int8_t*>(pool.Bytes(out_w_region))};
    const size_t counts[2] = {materialised ? 3 * ee : 0, materialised ? ee : 0};
    for (int m = 0; m < 2; ++m) {
      for (size_t i = 0; i < counts[m]; ++i) {
        const uint64_t bits = stream.NextBits();
        switch (c.weight_mode % 4) {
          case 0:
            w[m][i] = static_cast<int8_t>(static_cast<int32_t>(bits % 255) - 127);
            break;
          case 1:
            w[m][i] = 0;
            break;
          case 2:
            w[m][i] = (bits & 1) ? 127 : -127;
            break;
          default:
            w[m][i] = static_cast<int8_t>(static_cast<int32_t>(bits % 9) - 4);
            break;
        }
      }
    }
  }
  {
    edgeattn_test::RandomStream stream(c.bias_seed);
    const int magnitude = (c.biases >> 2) % 4;  // int8: 2^10, 2^20, 2^30, any; int16: 2^20..2^47
    const auto draw = [&]() -> int64_t {
      const uint64_t bits = stream.NextBits();
      if (int8) {
        if (magnitude == 3) return static_cast<int32_t>(static_cast<uint32_t>(bits));
        const int64_t range = int64_t{1} << (10 * (magnitude + 1));
        return static_cast<int64_t>(bits % static_cast<uint64_t>(2 * range + 1)) - range;
      }
      const int64_t range = int64_t{1} << (magnitude == 3 ? 47 : 20 + 8 * magnitude);
      return static_cast<int64_t>(bits % static_cast<uint64_t>(2 * range)) - range;
    };
    const int regions[2] = {in_b_region, out_b_region};
    const size_t counts[2] = {3 * channels, channels};
    size_t index = 0;
    for (int r = 0; r < 2; ++r) {
      for (size_t i = 0; i < counts[r]; ++i, ++index) {
        int64_t value = draw();
        if (c.bias_edge >= 224 && c.bias_edge_index % (4 * channels) == index) {
          static const int64_t kEdges[] = {kBiasLimit, kBiasLimit - 1, -kBiasLimit, -kBiasLimit - 1,
                                           INT64_MAX,  INT64_MIN,      INT32_MAX,   INT32_MIN};
          value = kEdges[c.bias_edge % 8];
        }
        if (regions[r] < 0) continue;
        uint8_t* at = pool.Bytes(regions[r]) + i * bias_bytes;
        if (int8) {
          const int32_t narrow = static_cast<int32_t>(value);
          memcpy(at, &narrow, 4);
        } else {
          memcpy(at, &value, 8);
        }
      }
    }
  }
  const auto fill_activations = [&](uint8_t* out, size_t count, uint8_t mode, uint32_t seed) {
    edgeattn_test::RandomStream stream(seed);
    const int32_t lo = int8 ? -128 : -32768, hi = int8 ? 127 : 32767;
    for (size_t i = 0; i < count; ++i) {
      const uint64_t bits = stream.NextBits();
      int32_t v;
      switch (mode % 4) {
        case 0:
          v = lo + static_cast<int32_t>(bits % static_cast<uint64_t>(hi - lo + 1));
          break;
        case 1:
          v = static_cast<int32_t>(seed % static_cast<uint32_t>(hi - lo + 1)) + lo;
          break;
        case 2:
          v = (bits & 1) ? hi : lo;
          break;
        default:
          v = static_cast<int32_t>(bits % 17) - 8;
          break;
      }
      if (element == 1) {
        out[i] = static_cast<uint8_t>(static_cast<int8_t>(v));
      } else {
        const int16_t v16 = static_cast<int16_t>(v);
        memcpy(out + 2 * i, &v16, 2);
      }
    }
  };
  if (table_region >= 0) {
    fill_activations(pool.Bytes(table_region), table_count, c.x_mode + 1, c.x_seed ^ 0x5A5A5A5Au);
    config.quant_position_table = pool.Bytes(table_region);
  } else if (c.CallerTable()) {
    config.quant_position_table = kStandIn;  // never read: the shape is refused or not planned
  }
  if (can_run) fill_activations(pool.Bytes(x_region), x_count, c.x_mode, c.x_seed);
  const int8_t* in_w = reinterpret_cast<const int8_t*>(pool.Bytes(in_w_region));
  const int8_t* out_w = reinterpret_cast<const int8_t*>(pool.Bytes(out_w_region));
  const uint8_t* in_b = in_b_region >= 0 ? pool.Bytes(in_b_region) : nullptr;
  const uint8_t* out_b = out_b_region >= 0 ? pool.Bytes(out_b_region) : nullptr;
  Debug(
      "ea_mha_quant case: dtype %d max_tokens %d d_model %d heads %d mask %d position %d "
      "caller table %d scales %d params %d need %llu capacity %llu n_tokens %d weights %d "
      "can_run %d\n",
      static_cast<int>(dtype), max_tokens, e, heads, c.mask, c.position, c.CallerTable(),
      c.ScalesGiven(), params_given, static_cast<unsigned long long>(need),
      static_cast<unsigned long long>(layout.capacity), n_tokens, want_weights, can_run);
  if (Debugging()) pool.Dump();

  // --- ea_mha_quant_derive: TFLite's Prepare, nothing written on refusal
  if (fixed && materialised && !(e > INT32_MAX / 8 && SkipKnown(kQuantChannelCountOverflow))) {
    SetContext("ea_mha_quant_derive", "-");
    StatusSet rules;
    const bool null_channels = nulls & kNullInput2;
    const bool short_channels = c.derive_kind >= 224;
    if (null_channels) rules.Add(EA_ERR_NULL_POINTER);
    if (e <= 0 || heads <= 0) rules.Add(EA_ERR_BAD_DIMENSION);
    if (e > 0 && heads > 0 && e % heads != 0) rules.Add(EA_ERR_HEADS_MISMATCH);
    if (short_channels) rules.Add(EA_ERR_ARENA_TOO_SMALL);
    if (config.quant_scales == nullptr) rules.Add(EA_ERR_NULL_POINTER);
    if (scales_checkable) rules.Merge(scales_rules);
    bool refused_by_integers = false;
    if (derivable) {
      const StatusSet derived_rules = QuantParamsRules(config, derivation.integers.params);
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

  // --- ea_mha_quant_plan_init
  const ea_mha_quant_weights weights{nulls & kNullInput1 ? nullptr : in_w, in_b,
                                     nulls & kNullWeights ? nullptr : out_w, out_b};
  StatusSet plan_rules = shape_rules;
  if ((nulls & (kNullPlan | kNullPlanConfig | kNullArena)) || weights.in_proj_weight == nullptr ||
      weights.out_proj_weight == nullptr) {
    plan_rules.Add(EA_ERR_NULL_POINTER);
  }
  bool refusal_by_derived_integers = false;
  if (fixed && shape_valid) {
    if (params_given) {
      plan_rules.Merge(QuantParamsRules(config, given.params));
      if ((table_no_scales || table_bad_quant) && !plan_rules.MustFail() &&
          SkipKnown(kQuantTableQuantization)) {
        return;  // the library dereferences NULL or quantizes with an invalid scale
      }
    }
    if (table_no_scales) plan_rules.Add(EA_ERR_NULL_POINTER);
    if (table_bad_quant) plan_rules.Add(EA_ERR_BAD_ARGUMENT);
    if (!params_given && config.quant_scales != nullptr && materialised) {
      plan_rules.Merge(scales_rules);
      if (derivable) {
        const StatusSet derived_rules = QuantParamsRules(config, derivation.integers.params);
        refusal_by_derived_integers = derived_rules.MustFail();
        plan_rules.Merge(derived_rules);
        if (infinite) plan_rules.Tolerate(EA_ERR_BAD_ARGUMENT);
      }
    }
    // int16 biases inside TFLite's [-2^47, 2^47) accumulator domain.
    if (!int8) {
      bool bad = false;
      for (const uint8_t* b : {in_b, out_b}) {
        if (b == nullptr) continue;
        const size_t count = b == in_b ? 3 * channels : channels;
        for (size_t i = 0; i < count; ++i) {
          int64_t v;
          memcpy(&v, b + 8 * i, 8);
          bad = bad || v >= kBiasLimit || v < -kBiasLimit;
        }
      }
      if (bad) plan_rules.Add(EA_ERR_BAD_ARGUMENT);
    }
  }
  ea_arena arena;
  InitArena(c.arena, layout, pool.Bytes(arena_region), nulls & kNullArenaBase, &arena);
  if (!(nulls & kNullArena)) plan_rules.Merge(ArenaRules(arena, need, shape_valid));
  ea_mha_quant_plan plan;
  memset(&plan, 0, sizeof(plan));
  pool.Snapshot();
  const size_t used_before = arena.used;
  SetContext("ea_mha_quant_plan_init", "-");
  const ea_status plan_status = ea_mha_quant_plan_init(
      nulls & kNullPlan ? nullptr : &plan, nulls & kNullPlanConfig ? nullptr : &config, &weights,
      nulls & kNullArena ? nullptr : &arena);
  ExpectStatus("ea_mha_quant_plan_init", plan_status, plan_rules);
  if (plan_status != EA_OK) {
    if (arena.used != used_before) Fail("failed plan_init moved arena.used");
    // Known: a refusal of the derived integers leaves them in the arena's free bytes.
    if (!(refusal_by_derived_integers && SkipKnown(kQuantRefusalWrites))) {
      ExpectUntouched("ea_mha_quant_plan_init", pool, {}, "failed");
    }
    if (can_run && !(nulls & kNullPlan)) {
      SetContext("ea_mha_run", "unplanned");
      StatusSet refused;
      refused.Add(EA_ERR_BAD_ARGUMENT);
      refused.Add(EA_ERR_BAD_DIMENSION);
      pool.Snapshot();
      ExpectStatus("run on a failed plan",
                   Run(dtype, &plan, pool.Bytes(x_region), n_tokens, pool.Bytes(y_region),
                       attn_region >= 0 ? pool.Bytes(attn_region) : nullptr),
                   refused);
      ExpectUntouched("ea_mha_run", pool, {}, "refused an unplanned plan");
    }
    return;
  }
  const ByteRange carve = CarveRange(pool, arena, used_before);
  if (arena.used - used_before != need) {
    Fail("ea_mha_quant_plan_init carved %zu bytes, arena_size said %llu", arena.used - used_before,
         static_cast<unsigned long long>(need));
  }
  ExpectUntouched("ea_mha_quant_plan_init", pool, {carve}, "succeeded");
  ++Stats().planned;
  if (!can_run) return;
  if (weights_overflow && SkipKnown(kQuantWeightsOverflow)) return;

  // --- runs
  uint8_t* x = nulls & kNullInput0 ? nullptr : pool.Bytes(x_region);
  uint8_t* y = nulls & kNullOutput ? nullptr : pool.Bytes(y_region);
  uint8_t* attn = attn_region >= 0 ? pool.Bytes(attn_region) : nullptr;
  const ea_mha_quant_plan* run_plan = nulls & kNullRunPlan ? nullptr : &plan;
  StatusSet run_rules;
  if (!run_plan || !x || !y) run_rules.Add(EA_ERR_NULL_POINTER);
  if (run_dtype != dtype) run_rules.Add(EA_ERR_BAD_ARGUMENT);
  if (!n_ok) run_rules.Add(EA_ERR_BAD_DIMENSION);
  if (weights_overflow) run_rules.Add(EA_ERR_DIMENSION_OVERFLOW);
  const ByteRange x_range = pool.Range(x_region), y_range = pool.Range(y_region);
  const ByteRange attn_range = attn_region >= 0 ? pool.Range(attn_region) : ByteRange{};
  if (y_range.Overlaps(attn_range)) run_rules.Add(EA_ERR_BAD_ARGUMENT);
  bool refusable = false;
  for (const ByteRange& out : {y_range, attn_range}) {
    for (int r : {in_w_region, out_w_region, in_b_region, out_b_region}) {
      if (r >= 0 && out.Overlaps(pool.Range(r))) run_rules.Add(EA_ERR_BAD_ARGUMENT);
    }
    if (table_region >= 0 && positions) {
      // The plan references the whole [max_tokens, E] table.
      if (out.Overlaps(pool.Range(table_region))) run_rules.Add(EA_ERR_BAD_ARGUMENT);
    }
    if (out.Overlaps(carve)) run_rules.Add(EA_ERR_BAD_ARGUMENT);
  }
  const bool x_in_scratch = x_range.Overlaps(carve);
  if (x_in_scratch) run_rules.Add(EA_ERR_BAD_ARGUMENT);
  // "y may be x; nothing else may overlap" (the header); other overlaps of x
  // with an output cannot change the result: refused or computed from x.
  const bool in_place = x_range.begin == y_range.begin;
  if ((!in_place && x_range.Overlaps(y_range)) || x_range.Overlaps(attn_range)) refusable = true;
  if (refusable) run_rules.AllowRefusal();
  const auto reset = [&] {
    if (x_in_scratch) {
      pool.Restore();
    } else {
      pool.RestoreExcept({carve});
    }
  };
  const std::vector<uint8_t> x0(pool.Bytes(x_region), pool.Bytes(x_region) + x_count * element);

  // The reference, on the integers the plan uses.
  std::vector<int32_t> want_y, want_probs;
  bool reference = false;
  if (!run_rules.MustFail() && used != nullptr) {
    int64_t max_bias = 0;
    for (const uint8_t* b : {in_b, out_b}) {
      if (b == nullptr || !int8) continue;
      const size_t count = b == in_b ? 3 * channels : channels;
      for (size_t i = 0; i < count; ++i) {
        int32_t v;
        memcpy(&v, b + 4 * i, 4);
        max_bias = std::max(max_bias, v < 0 ? -int64_t{v} : int64_t{v});
      }
    }
    reference = ReferenceSafe(config, *used, max_bias, static_cast<int>(n));
  }
  if (reference) {
    // The table as the plan has it: the caller's, or TFLite's QUANTIZE of
    // the sinusoids (float division, round half away, clamp).
    std::vector<uint8_t> table;
    if (positions) {
      if (table_region >= 0) {
        table.assign(pool.Bytes(table_region), pool.Bytes(table_region) + x_count * element);
      } else {
        std::vector<float> sinusoid(x_count);
        if (ea_sinusoidal_table_fill(sinusoid.data(), static_cast<int32_t>(n), e) != EA_OK) {
          Fail("ea_sinusoidal_table_fill refused a planned shape");
        }
        table.resize(x_count * element);
        const int32_t lo = int8 ? -128 : -32768, hi = int8 ? 127 : 32767;
        for (size_t i = 0; i < x_count; ++i) {
          float r = roundf(sinusoid[i] / scales.position.scale);
          r = r < -65536.0f ? -65536.0f : (r > 65536.0f ? 65536.0f : r);
          const int32_t q =
              std::min(std::max(static_cast<int32_t>(r) + scales.position.zero_point, lo), hi);
          if (int8) {
            table[i] = static_cast<uint8_t>(static_cast<int8_t>(q));
          } else {
            const int16_t q16 = static_cast<int16_t>(q);
            memcpy(&table[2 * i], &q16, 2);
          }
        }
      }
    }
    const uint8_t* pe = positions ? table.data() : nullptr;
    ReferenceOutputs r;
    if (int8) {
      const ref::SoftmaxInt8Params softmax{used->softmax.input_multiplier,
                                           used->softmax.input_left_shift, used->softmax.diff_min};
      r = RunReference<int8_t, int32_t>(config, *used, softmax, static_cast<int>(n), x0.data(), pe,
                                        in_w, out_w, in_b, out_b);
    } else {
      const ref::SoftmaxInt16Params softmax{
          used->softmax.input_multiplier, used->softmax.input_left_shift,
          edgeattn_fuzz_softmax_exp_lut, edgeattn_fuzz_softmax_one_over_one_plus_x_lut};
      r = RunReference<int16_t, int64_t>(config, *used, softmax, static_cast<int>(n), x0.data(), pe,
                                         in_w, out_w, in_b, out_b);
    }
    want_y = r.y;
    want_probs = r.probs;
  }
  const bool outputs_alone = !run_rules.MustFail() && !refusable && !in_place;
  pool.Snapshot();

  // The same config planned in another arena, on another worker count.
  ea_mha_config config2 = config;
  config2.parallel = config.parallel.max_workers > 1
                         ? ea_parallel_for{}
                         : ea_parallel_for{&BackwardsPool, &g_second_workers, g_second_workers};
  const uint64_t need2 = edgeattn::MhaQuantArenaBytes(
      max_tokens, e, heads, dtype,
      edgeattn::StorageOf(config2.position, config2.quant_position_table == nullptr),
      config2.parallel.max_workers);
  MemoryPool pool2;
  pool2.AddSeparate("filler", 64 * (1 + c.common.targets % 7) + 4, 4, 0);
  const int arena2_region = pool2.AddSeparate("arena2", static_cast<size_t>(need2), 64, 0);
  pool2.Allocate();
  ea_arena arena2;
  ea_mha_quant_plan plan2;
  memset(&plan2, 0, sizeof(plan2));
  if (ea_arena_init(&arena2, pool2.Bytes(arena2_region), static_cast<size_t>(need2)) != EA_OK ||
      ea_mha_quant_plan_init(&plan2, &config2, &weights, &arena2) != EA_OK) {
    Fail("the same config did not plan in a second arena with other workers");
  }
  pool2.Snapshot();
  const ByteRange carve2 = pool2.Range(arena2_region);

  const size_t y_bytes = x_count * element, attn_bytes = attn_count * element;
  for (int64_t target : SelectTargets(c.common.targets)) {
    ForceTarget(target);
    SetContext(run_dtype == EA_DTYPE_INT8 ? "ea_mha_run_s8" : "ea_mha_run_s16", TargetName(target));
    reset();
    const ea_status status = Run(run_dtype, run_plan, x, n_tokens, y, attn);
    ExpectStatus("run", status, run_rules);
    if (status != EA_OK) {
      ExpectUntouched("run", pool, {carve}, "failed");
      continue;
    }
    ExpectUntouched("run", pool, {carve, y_range, attn_range}, "succeeded");
    ++Stats().runs;
    const size_t probs_count = attn != nullptr ? static_cast<size_t>(heads) * n * n : 0;
    const std::vector<int32_t> got_probs = Widen(dtype, attn, probs_count);
    if (attn != nullptr && !refusable) {
      CheckProbabilities(dtype, got_probs, heads, static_cast<int>(n), c.mask == EA_MASK_CAUSAL);
    }
    if (!reference) ++Stats().reference_skipped;
    if (reference && !refusable) {
      ++Stats().reference_checks;
      ExpectSameValues("y", Widen(dtype, y, x_count), want_y);
      if (attn != nullptr) ExpectSameValues("attn_weights", got_probs, want_probs);
    }
    if (!outputs_alone) continue;
    const std::vector<uint8_t> y1 = CopyBytes(y, y_bytes);
    const std::vector<uint8_t> attn1 = attn ? CopyBytes(attn, attn_bytes) : std::vector<uint8_t>();
    for (int rerun = 0; rerun < 2; ++rerun) {
      reset();
      memset(y, kRerunCanary, y_bytes);
      if (attn) memset(attn, kRerunCanary, attn_bytes);
      if (Run(run_dtype, rerun == 0 ? run_plan : &plan2, x, n_tokens, y, attn) != EA_OK) {
        Fail("rerun %d refused what the first run accepted", rerun);
      }
      ExpectSameBits(rerun == 0 ? "rerun on the same plan" : "run on a plan with other workers", y1,
                     y);
      if (attn)
        ExpectSameBits(rerun == 0 ? "rerun weights" : "weights, other workers", attn1, attn);
    }
    ExpectUntouched("run (second arena)", pool2, {carve2}, "succeeded");
  }
  ForceTarget(0);

  // --- re-plan the ready plan with a broken config: refused, not runnable
  if (c.common.Replan() && run_plan != nullptr && x && y) {
    const ea_mha_config bad = BrokenConfig(config, c.common);
    StatusSet replan_rules = QuantMhaShapeRules(bad);
    if (bad.dtype == EA_DTYPE_INT8 || bad.dtype == EA_DTYPE_INT16) {
      replan_rules.Merge(ArenaRules(arena, 0, false));
    }
    // A broken dtype, position or quantization may be found by later rules too.
    replan_rules.Add(EA_ERR_BAD_ARGUMENT);
    replan_rules.Add(EA_ERR_NULL_POINTER);
    reset();
    pool.Snapshot();
    const size_t used = arena.used;
    SetContext("ea_mha_quant_plan_init", "re-plan");
    const ea_status status = ea_mha_quant_plan_init(&plan, &bad, &weights, &arena);
    ExpectStatus("re-plan of a ready plan", status, replan_rules);
    if (status == EA_OK) Fail("a broken re-plan was accepted");
    if (arena.used != used) Fail("failed re-plan moved arena.used");
    ExpectUntouched("re-plan", pool, {}, "failed");
    SetContext("run", "after a failed re-plan");
    StatusSet refused;
    refused.Add(EA_ERR_BAD_ARGUMENT);
    refused.Add(EA_ERR_BAD_DIMENSION);
    ExpectStatus("run after a failed re-plan", Run(dtype, &plan, x, n_tokens, y, attn), refused);
    ExpectUntouched("run", pool, {carve}, "after a failed re-plan");
  }
}

}  // namespace edgeattn_fuzz
