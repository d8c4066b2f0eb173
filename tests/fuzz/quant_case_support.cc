// The fixed-point drivers' shared pieces (quant_case_support.h): kept in one
// place so that MHA and self-attention cases are built and checked alike.
#include "quant_case_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <deque>
#include <string>
#include <utility>

#include "driver_support.h"
#include "failure.h"
#include "reference/random_tensor.h"
#include "simd_targets.h"
#include "softmax_luts.h"

namespace edgeattn_fuzz {
namespace {

constexpr int64_t kBiasLimit = int64_t{1} << 47;

// A deque: the references StatsFor hands out stay valid as labels are added.
// Never destroyed: PrintStats reads it at exit.
std::deque<std::pair<std::string, QuantStats>>& AllStats() {
  static auto* all = new std::deque<std::pair<std::string, QuantStats>>;
  return *all;
}

void PrintStats() {
  for (const auto& entry : AllStats()) {
    const QuantStats& s = entry.second;
    fprintf(stderr,
            "edgeattn fuzz: %s: %zu cases, %zu derived, %zu planned, %zu runs, "
            "%zu compared with the integer reference, %zu not (int32 limits)",
            entry.first.c_str(), s.cases, s.derived, s.planned, s.runs, s.reference_checks,
            s.reference_skipped);
    // Only fixed-point MHA has a decoder to stream through.
    if (s.streamed > 0) fprintf(stderr, ", %zu streamed through the decoder", s.streamed);
    if (s.traced > 0) fprintf(stderr, ", %zu traced with every tap", s.traced);
    fprintf(stderr, "\n");
  }
}

// Runs tasks last to first, rotating worker indices (as fuzz_attention.cc).
void BackwardsPool(void* context, int32_t n_tasks, ea_task_fn task, void* task_context) {
  const int32_t workers = *static_cast<const int32_t*>(context);
  for (int32_t i = n_tasks - 1; i >= 0; --i) task(task_context, i, i % workers);
}
int32_t g_main_workers = 1;
int32_t g_second_workers = 3;

}  // namespace

QuantStats& StatsFor(const char* label) {
  static const bool registered = [] { return atexit(PrintStats) == 0; }();
  (void)registered;
  std::deque<std::pair<std::string, QuantStats>>& all = AllStats();
  for (auto& entry : all) {
    if (entry.first == label) return entry.second;
  }
  all.emplace_back(label, QuantStats{});
  return all.back().second;
}

ea_parallel_for MainParallel(uint8_t workers) {
  if (workers % 4 <= 1) return ea_parallel_for{};
  g_main_workers = workers % 4;
  return ea_parallel_for{&BackwardsPool, &g_main_workers, g_main_workers};
}

ea_parallel_for SecondParallel(const ea_parallel_for& main) {
  return main.max_workers > 1
             ? ea_parallel_for{}
             : ea_parallel_for{&BackwardsPool, &g_second_workers, g_second_workers};
}

bool IsFixed(ea_dtype dtype) { return dtype == EA_DTYPE_INT8 || dtype == EA_DTYPE_INT16; }

ea_dtype QuantDtype(uint8_t kind, int32_t raw) {
  if (kind < 112) return EA_DTYPE_INT8;
  if (kind < 224) return EA_DTYPE_INT16;
  if (kind < 240) return EA_DTYPE_F32;
  return static_cast<ea_dtype>(raw);
}

float QuantSpecialScale(uint8_t index) {
  static const float kScales[14] = {0.0f,    -0.0f,  -1.0f, NAN,   INFINITY, -INFINITY, 1.4e-45f,
                                    3.4e38f, 1e-38f, 1e38f, 1e20f, 1e-20f,   1e-9f,     1e9f};
  return kScales[index % 14];
}

ea_quant QuantOf(const QuantTensor& t, float nominal, bool int8) {
  static const int32_t kZeroPoints[11] = {-129,      128,       127, -128, 1,    -1,
                                          INT32_MIN, INT32_MAX, 255, -255, 32767};
  ea_quant q;
  q.scale = t.kind < 224 ? static_cast<float>(nominal * exp2(t.jitter / 8.0))
                         : QuantSpecialScale(static_cast<uint8_t>(t.kind - 224));
  if (t.zp_kind >= 192) {
    q.zero_point = kZeroPoints[(t.zp_kind - 192) % 11];
  } else {
    q.zero_point = int8 ? static_cast<int8_t>(t.zp_value) : 0;
  }
  return q;
}

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

std::vector<float> WeightScales(const QuantCommon& c, float base_scale, size_t count) {
  std::vector<float> scales(count);
  edgeattn_test::RandomStream stream(c.weight_scale_seed);
  const double base = base_scale * exp2(c.weight_jitter / 8.0);
  for (float& s : scales) s = static_cast<float>(base * exp2(2.0 * stream.Uniform() - 1.0));
  if (c.bad_weight_scale >= 224 && c.bad_weight_scale < 255 && count > 0) {
    scales[c.bad_channel % count] = QuantSpecialScale(c.bad_value);
  }
  return scales;
}

ref::QuantizedMultiplier Saturate(ref::QuantizedMultiplier m) {
#if defined(EDGEATTN_SINGLE_ROUNDING)
  return m.shift > 30 ? ref::QuantizedMultiplier{INT32_MAX, 30} : m;
#else
  return m;
#endif
}

ea_add_quant_params AddLikeTflite(bool int8, ea_quant input, ea_quant position,
                                  ea_quant positioned) {
  const ref::AddParams a =
      ref::PrepareAdd(Ref(input), Ref(position), Ref(positioned), int8 ? 20 : 15);
  const ref::QuantizedMultiplier m1 = Saturate({a.input1_multiplier, a.input1_shift});
  const ref::QuantizedMultiplier m2 = Saturate({a.input2_multiplier, a.input2_shift});
  const ref::QuantizedMultiplier mo = Saturate({a.output_multiplier, a.output_shift});
  return ea_add_quant_params{a.left_shift,    a.input1_offset, m1.multiplier, m1.shift,
                             a.input2_offset, m2.multiplier,   m2.shift,      a.output_offset,
                             mo.multiplier,   mo.shift};
}

ea_mul_quant_params MulLikeTflite(ea_quant a, ea_quant b, ea_quant out) {
  const ref::MulParams r = ref::PrepareMul(Ref(a), Ref(b), Ref(out));
  const ref::QuantizedMultiplier m = Saturate({r.output_multiplier, r.output_shift});
  ea_mul_quant_params p{};
  p.input1_offset = r.input1_offset;
  p.input2_offset = r.input2_offset;
  p.output_offset = r.output_offset;
  p.output_multiplier = m.multiplier;
  p.output_shift = m.shift;
  return p;
}

void LinearLikeTflite(ea_quant in, const float* weight_scales, int32_t channels, ea_quant out,
                      ea_linear_quant_params* linear, std::vector<int32_t>* multipliers,
                      std::vector<int32_t>* shifts) {
  const ref::FullyConnectedParams f =
      ref::PrepareFullyConnectedPerChannel(Ref(in), weight_scales, channels, Ref(out));
  linear->input_offset = f.input_offset;
  linear->output_offset = f.output_offset;
  for (int32_t i = 0; i < channels; ++i) {
    const ref::QuantizedMultiplier m = Saturate({f.multiplier[i], f.shift[i]});
    multipliers->push_back(m.multiplier);
    shifts->push_back(m.shift);
  }
}

namespace {

ea_matmul_quant_params MatmulLikeTflite(ea_quant lhs, ea_quant rhs, ea_quant out) {
  const ref::BatchMatMulParams b = ref::PrepareBatchMatMul(Ref(lhs), Ref(rhs), Ref(out));
  const ref::QuantizedMultiplier m = Saturate({b.output_multiplier, b.output_shift});
  return ea_matmul_quant_params{b.lhs_offset, b.rhs_offset, b.output_offset, m.multiplier, m.shift};
}

}  // namespace

ea_matmul_quant_params ScoresLikeTflite(ea_quant q, ea_quant k, ea_quant scores, bool* infinite) {
  *infinite = isinf(q.scale * k.scale);
  if (*infinite) {
    return ea_matmul_quant_params{-q.zero_point, -k.zero_point, scores.zero_point, INT32_MAX, 30};
  }
  return MatmulLikeTflite(q, k, scores);
}

ea_matmul_quant_params ContextLikeTflite(bool int8, ea_quant v, ea_quant out) {
  const ea_quant probs = int8 ? ea_quant{1.0f / 256.0f, -128} : ea_quant{1.0f / 32768.0f, 0};
  return MatmulLikeTflite(probs, v, out);
}

namespace {

// Set by name: the struct grows at its end (the int16 tables, 0.23.0).
ea_softmax_quant_params SoftmaxOf(int32_t multiplier, int32_t left_shift, int32_t diff_min) {
  ea_softmax_quant_params p{};
  p.input_multiplier = multiplier;
  p.input_left_shift = left_shift;
  p.diff_min = diff_min;
  return p;
}

}  // namespace

ea_softmax_quant_params SoftmaxLikeTflite(bool int8, float beta, float scores_scale) {
  if (int8) {
    const ref::QuantizedMultiplier m = Saturate(ref::PreprocessSoftmaxScaling(
        static_cast<double>(beta), static_cast<double>(scores_scale), 5));
    const int32_t diff_min = m.shift >= 0 ? -ref::CalculateInputRadius(5, m.shift) : 0;
    return SoftmaxOf(m.multiplier, m.shift, diff_min);
  }
  const ref::SoftmaxInt16Params m = ref::PrepareSoftmaxInt16(beta, scores_scale, nullptr, nullptr);
  const ref::QuantizedMultiplier q = Saturate({m.input_multiplier, m.input_left_shift});
  return SoftmaxOf(q.multiplier, q.shift, 0);
}

ref::AddParams RefAdd(const ea_add_quant_params& a) {
  return ref::AddParams{a.left_shift,   a.input1_offset, a.input1_multiplier,
                        a.input1_shift, a.input2_offset, a.input2_multiplier,
                        a.input2_shift, a.output_offset, a.output_multiplier,
                        a.output_shift};
}

ref::MulParams RefMul(const ea_mul_quant_params& m) {
  return ref::MulParams{m.input1_offset, m.input2_offset, m.output_offset, m.output_multiplier,
                        m.output_shift};
}

ref::RopeParams RefRope(const ea_rope_quant_params& p) {
  return {RefMul(p.cos), RefMul(p.sin), RefAdd(p.add)};
}

ref::FullyConnectedParams RefLinear(const ea_linear_quant_params& l, int32_t channels) {
  ref::FullyConnectedParams f;
  f.input_offset = l.input_offset;
  f.output_offset = l.output_offset;
  f.multiplier.assign(l.output_multiplier, l.output_multiplier + channels);
  f.shift.assign(l.output_shift, l.output_shift + channels);
  return f;
}

ref::BatchMatMulParams RefMatmul(const ea_matmul_quant_params& m) {
  return ref::BatchMatMulParams{m.input_offset, m.weights_offset, m.output_offset,
                                m.output_multiplier, m.output_shift};
}

ref::SoftmaxInt8Params RefSoftmaxInt8(const ea_softmax_quant_params& s) {
  return ref::SoftmaxInt8Params{s.input_multiplier, s.input_left_shift, s.diff_min};
}

ref::SoftmaxInt16Params RefSoftmaxInt16(const ea_softmax_quant_params& s) {
  const bool given = s.exp_lut != nullptr;
  return ref::SoftmaxInt16Params{
      s.input_multiplier, s.input_left_shift, given ? s.exp_lut : edgeattn_fuzz_softmax_exp_lut,
      given ? s.one_over_one_plus_x_lut : edgeattn_fuzz_softmax_one_over_one_plus_x_lut};
}

void GiveSoftmaxTables(uint8_t params_kind, uint32_t seed, std::vector<int16_t>* tables,
                       ea_softmax_quant_params* softmax) {
  constexpr size_t kEntries = 513;
  tables->assign(edgeattn_fuzz_softmax_exp_lut, edgeattn_fuzz_softmax_exp_lut + kEntries);
  tables->insert(tables->end(), edgeattn_fuzz_softmax_one_over_one_plus_x_lut,
                 edgeattn_fuzz_softmax_one_over_one_plus_x_lut + kEntries);
  uint32_t state = seed | 1u;
  for (int16_t& entry : *tables) {
    state = state * 1664525u + 1013904223u;
    const int moved = entry + static_cast<int>((state >> 24) % 7) - 3;
    entry = static_cast<int16_t>(moved < 0 ? 0 : (moved > 32767 ? 32767 : moved));
  }
  int16_t* exp = tables->data();
  int16_t* reciprocal = tables->data() + kEntries;
  softmax->exp_lut = exp;
  softmax->one_over_one_plus_x_lut = reciprocal;
  switch (params_kind % 8) {
    case 0:
      exp[seed % kEntries] = -1;
      break;
    case 1:
      reciprocal[seed % kEntries] = INT16_MIN;
      break;
    case 2:
      softmax->one_over_one_plus_x_lut = nullptr;
      break;
    case 3:
      softmax->exp_lut = nullptr;
      break;
    case 4:
      exp[511] = 16383;
      exp[512] = 16383;
      break;
    case 5:
      exp[511] = 16384;
      exp[512] = 16384;
      break;
    default:
      break;
  }
}

void DefaultScalars(bool int8, ea_add_quant_params* add, ea_matmul_quant_params* scores,
                    ea_matmul_quant_params* context, ea_softmax_quant_params* softmax) {
  *add = ea_add_quant_params{int8 ? 20 : 15, 0, 1 << 30, -1, 0, 1 << 30, -1, 0, 1 << 30, -19};
  *scores = ea_matmul_quant_params{0, 0, 0, 1 << 30, -8};
  *context = ea_matmul_quant_params{int8 ? 128 : 0, 0, 0, 1 << 30, -8};
  *softmax = SoftmaxOf(1 << 30, int8 ? 20 : -5, int8 ? -1984 : 0);
}

std::vector<int32_t*> ScalarFields(ea_add_quant_params* add, ea_matmul_quant_params* scores,
                                   ea_matmul_quant_params* context,
                                   ea_softmax_quant_params* softmax) {
  return {&add->left_shift,
          &add->input1_offset,
          &add->input1_multiplier,
          &add->input1_shift,
          &add->input2_offset,
          &add->input2_multiplier,
          &add->input2_shift,
          &add->output_offset,
          &add->output_multiplier,
          &add->output_shift,
          &scores->input_offset,
          &scores->weights_offset,
          &scores->output_offset,
          &scores->output_multiplier,
          &scores->output_shift,
          &context->input_offset,
          &context->weights_offset,
          &context->output_offset,
          &context->output_multiplier,
          &context->output_shift,
          &softmax->input_multiplier,
          &softmax->input_left_shift,
          &softmax->diff_min};
}

namespace {

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

}  // namespace

void ApplyEdit(const ParamEdit& edit, const EditableFields& fields) {
  const size_t scalars = fields.scalars.size();
  const int field = edit.field % static_cast<int>(scalars + 5 * fields.linears.size());
  if (field < static_cast<int>(scalars)) {
    *fields.scalars[field] = EditedValue(*fields.scalars[field], edit);
    return;
  }
  const size_t rest = static_cast<size_t>(field) - scalars;
  const EditableLinear& l = fields.linears[rest / 5];
  const size_t channels = l.multipliers->size();
  const size_t channel = channels > 0 ? edit.channel % channels : 0;
  switch (rest % 5) {
    case 0:
      l.params->input_offset = EditedValue(l.params->input_offset, edit);
      break;
    case 1:
      l.params->output_offset = EditedValue(l.params->output_offset, edit);
      break;
    case 2:
      if (channels > 0) (*l.multipliers)[channel] = EditedValue((*l.multipliers)[channel], edit);
      break;
    case 3:
      if (channels > 0) (*l.shifts)[channel] = EditedValue((*l.shifts)[channel], edit);
      break;
    default:
      if (edit.value & 1) {
        l.params->output_multiplier = nullptr;
      } else {
        l.params->output_shift = nullptr;
      }
      break;
  }
}

void ExpectSameAdd(const ea_add_quant_params& got, const ea_add_quant_params& want) {
  if (memcmp(&got, &want, sizeof(got)) != 0) {
    Fail(
        "derived ADD integers differ from TFLite's Prepare (multipliers %d/%d/%d, shifts "
        "%d/%d/%d; want %d/%d/%d, %d/%d/%d)",
        got.input1_multiplier, got.input2_multiplier, got.output_multiplier, got.input1_shift,
        got.input2_shift, got.output_shift, want.input1_multiplier, want.input2_multiplier,
        want.output_multiplier, want.input1_shift, want.input2_shift, want.output_shift);
  }
}

void ExpectSameMul(const ea_mul_quant_params& got, const ea_mul_quant_params& want) {
  if (memcmp(&got, &want, sizeof(got)) != 0) {
    Fail(
        "derived MUL integers differ from TFLite's Prepare (offsets %d/%d/%d, multiplier %d, "
        "shift %d; want %d/%d/%d, %d, %d)",
        got.input1_offset, got.input2_offset, got.output_offset, got.output_multiplier,
        got.output_shift, want.input1_offset, want.input2_offset, want.output_offset,
        want.output_multiplier, want.output_shift);
  }
}

void ExpectSameQuant(const char* name, ea_quant got, ea_quant want) {
  if (memcmp(&got.scale, &want.scale, sizeof(float)) != 0 || got.zero_point != want.zero_point) {
    Fail("derived %s quantization (%g, %d) differs from the scales' (%g, %d)", name,
         static_cast<double>(got.scale), got.zero_point, static_cast<double>(want.scale),
         want.zero_point);
  }
}

void ExpectSameLinear(const char* name, const ea_linear_quant_params& got,
                      const ea_linear_quant_params& want, int32_t channels) {
  bool same = got.input_offset == want.input_offset && got.output_offset == want.output_offset;
  for (int32_t i = 0; same && i < channels; ++i) {
    same = got.output_multiplier[i] == want.output_multiplier[i] &&
           got.output_shift[i] == want.output_shift[i];
  }
  if (!same) Fail("derived %s integers differ from TFLite's", name);
}

void ExpectSameMatmul(const char* name, const ea_matmul_quant_params& got,
                      const ea_matmul_quant_params& want) {
  if (memcmp(&got, &want, sizeof(got)) != 0) {
    Fail("derived %s integers %d,%d differ from TFLite's %d,%d", name, got.output_multiplier,
         got.output_shift, want.output_multiplier, want.output_shift);
  }
}

void ExpectSameSoftmax(bool int8, const ea_softmax_quant_params& got,
                       const ea_softmax_quant_params& want) {
  if (got.input_multiplier != want.input_multiplier ||
      got.input_left_shift != want.input_left_shift || (int8 && got.diff_min != want.diff_min)) {
    Fail("derived softmax integers %d,%d,%d differ from TFLite's %d,%d,%d", got.input_multiplier,
         got.input_left_shift, got.diff_min, want.input_multiplier, want.input_left_shift,
         want.diff_min);
  }
}

void FillQuantWeights(const QuantCommon& c, const std::vector<int8_t*>& matrices,
                      const std::vector<size_t>& counts) {
  edgeattn_test::RandomStream stream(c.weight_seed);
  for (size_t m = 0; m < matrices.size(); ++m) {
    for (size_t i = 0; i < counts[m]; ++i) {
      const uint64_t bits = stream.NextBits();
      switch (c.weight_mode % 4) {
        case 0:
          matrices[m][i] = static_cast<int8_t>(static_cast<int32_t>(bits % 255) - 127);
          break;
        case 1:
          matrices[m][i] = 0;
          break;
        case 2:
          matrices[m][i] = (bits & 1) ? 127 : -127;
          break;
        default:
          matrices[m][i] = static_cast<int8_t>(static_cast<int32_t>(bits % 9) - 4);
          break;
      }
    }
  }
}

void FillQuantBiases(const QuantCommon& c, ea_dtype dtype, int magnitude,
                     const std::vector<BiasSlot>& slots) {
  const bool int8 = dtype == EA_DTYPE_INT8;
  edgeattn_test::RandomStream stream(c.bias_seed);
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
  size_t total = 0;
  for (const BiasSlot& slot : slots) total += slot.count;
  const size_t bytes = BiasBytes(dtype);
  size_t index = 0;
  for (const BiasSlot& slot : slots) {
    for (size_t i = 0; i < slot.count; ++i, ++index) {
      int64_t value = draw();
      if (c.bias_edge >= 224 && c.bias_edge_index % total == index) {
        static const int64_t kEdges[] = {kBiasLimit, kBiasLimit - 1, -kBiasLimit, -kBiasLimit - 1,
                                         INT64_MAX,  INT64_MIN,      INT32_MAX,   INT32_MIN};
        value = kEdges[c.bias_edge % 8];
      }
      if (slot.bytes == nullptr) continue;
      uint8_t* at = slot.bytes + i * bytes;
      if (bytes == 4) {
        const int32_t narrow = static_cast<int32_t>(value);
        memcpy(at, &narrow, 4);
      } else {
        memcpy(at, &value, 8);
      }
    }
  }
}

void FillActivations(uint8_t* out, size_t count, ea_dtype dtype, uint8_t mode, uint32_t seed) {
  const bool int8 = dtype == EA_DTYPE_INT8;
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
    if (ElementBytes(dtype) == 1) {
      out[i] = static_cast<uint8_t>(static_cast<int8_t>(v));
    } else {
      const int16_t v16 = static_cast<int16_t>(v);
      memcpy(out + 2 * i, &v16, 2);
    }
  }
}

int64_t MaxInt8Bias(const std::vector<BiasSlot>& slots) {
  int64_t max_bias = 0;
  for (const BiasSlot& slot : slots) {
    if (slot.bytes == nullptr) continue;
    for (size_t i = 0; i < slot.count; ++i) {
      int32_t v;
      memcpy(&v, slot.bytes + 4 * i, 4);
      max_bias = std::max(max_bias, v < 0 ? -int64_t{v} : int64_t{v});
    }
  }
  return max_bias;
}

bool Int16BiasOutOfRange(const std::vector<BiasSlot>& slots) {
  for (const BiasSlot& slot : slots) {
    if (slot.bytes == nullptr) continue;
    for (size_t i = 0; i < slot.count; ++i) {
      int64_t v;
      memcpy(&v, slot.bytes + 8 * i, 8);
      if (v >= kBiasLimit || v < -kBiasLimit) return true;
    }
  }
  return false;
}

std::vector<uint8_t> QuantizedSinusoid(bool int8, int64_t n, int32_t e, ea_quant position) {
  const size_t count = static_cast<size_t>(n) * static_cast<size_t>(e);
  std::vector<float> sinusoid(count);
  if (ea_sinusoidal_table_fill(sinusoid.data(), static_cast<int32_t>(n), e) != EA_OK) {
    Fail("ea_sinusoidal_table_fill refused a planned shape");
  }
  std::vector<uint8_t> table(count * (int8 ? 1 : 2));
  const int32_t lo = int8 ? -128 : -32768, hi = int8 ? 127 : 32767;
  for (size_t i = 0; i < count; ++i) {
    float r = roundf(sinusoid[i] / position.scale);
    r = r < -65536.0f ? -65536.0f : (r > 65536.0f ? 65536.0f : r);
    const int32_t q = std::min(std::max(static_cast<int32_t>(r) + position.zero_point, lo), hi);
    if (int8) {
      table[i] = static_cast<uint8_t>(static_cast<int8_t>(q));
    } else {
      const int16_t q16 = static_cast<int16_t>(q);
      memcpy(&table[2 * i], &q16, 2);
    }
  }
  return table;
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

bool ReferenceSafe(bool int8, int64_t max_bias, int32_t depth,
                   const std::vector<ProjectionBound>& projections,
                   const ea_matmul_quant_params& scores, int32_t score_depth,
                   const ea_matmul_quant_params& context, int32_t keys) {
  if (!int8) return true;
  const double limit = 2147483647.0 - 512.0;
  const auto real = [](int32_t m, int32_t shift) {
    return ldexp(static_cast<double>(m), shift - 31);
  };
  const double fc_acc = static_cast<double>(max_bias) + 255.0 * 128.0 * depth;
  if (fc_acc > limit) return false;
  for (const ProjectionBound& p : projections) {
    for (int32_t i = 0; i < p.channels; ++i) {
      if (fc_acc * real(p.params->output_multiplier[i], p.params->output_shift[i]) > limit) {
        return false;
      }
    }
  }
  const double scores_acc = 255.0 * 255.0 * score_depth;
  const double context_acc = 255.0 * 255.0 * keys;
  return scores_acc * real(scores.output_multiplier, scores.output_shift) <= limit &&
         context_acc * real(context.output_multiplier, context.output_shift) <= limit;
}

ArenaLayout QuantArenaLayout(const QuantCommon& qc, uint64_t need, bool materialised) {
  ArenaLayout layout = LayOutArena(qc.arena, need);
  if (!materialised && need > 0 && layout.capacity >= layout.pre_used + need) {
    layout.capacity = layout.pre_used + need - 1;
  }
  return layout;
}

void GivePositionQuantization(const QuantCommon& qc, ea_quant layer_position, ea_quant* given) {
  // Bit 3: independent of the softmax-table variants (GiveSoftmaxTables, % 8).
  *given = (qc.params_kind & 8) != 0 ? layer_position : ea_quant{};
}

PlanTimeTable PlanTimeTableNeeds(ea_dtype dtype, ea_position position, const void* quant_table,
                                 const ea_quant* position_quant) {
  PlanTimeTable t;
  if (IsFixed(dtype) && position == EA_POSITION_SINUSOIDAL && quant_table == nullptr) {
    t.no_scales = position_quant == nullptr;
    t.bad = !t.no_scales && (!ValidQuantScale(position_quant->scale) ||
                             !ValidZeroPoint(dtype, position_quant->zero_point));
  }
  return t;
}

RunLengths ResolveRun(const QuantCommon& qc, int32_t max_tokens, ea_dtype dtype, uint16_t nulls,
                      int64_t matrices) {
  RunLengths r;
  r.n_tokens = qc.n_tokens.Resolve(max_tokens);
  r.n_ok = r.n_tokens >= 1 && r.n_tokens <= max_tokens;
  r.n = r.n_ok ? r.n_tokens : 1;
  r.n_valid_keys = qc.n_valid.Resolve(r.n_tokens);
  r.n_valid_ok = r.n_valid_keys >= 0 && r.n_valid_keys <= r.n_tokens;
  r.want_weights = qc.want_weights >= 96;
  r.weights_overflow = r.want_weights && r.n_ok && TooManyElements(r.n * r.n, matrices);
  const bool int8 = dtype == EA_DTYPE_INT8;
  r.run_dtype = qc.wrong_run >= 240 ? (int8 ? EA_DTYPE_INT16 : EA_DTYPE_INT8) : dtype;
  r.refused_early = r.weights_overflow || !r.n_ok || !r.n_valid_ok || r.run_dtype != dtype ||
                    (nulls & (kNullRunPlan | kNullInput0 | kNullOutput)) != 0;
  return r;
}

RunRegions PlaceRunRegions(MemoryPool* pool, const QuantCommon& qc, std::vector<int> candidates,
                           size_t x_bytes, size_t y_bytes, size_t attn_bytes) {
  RunRegions r;
  r.x = PlaceRegion(pool, "x", x_bytes, qc.x, candidates);
  candidates.push_back(r.x);
  r.y = PlaceRegion(pool, "y", y_bytes, qc.y, candidates);
  candidates.push_back(r.y);
  if (attn_bytes > 0)
    r.attn = PlaceRegion(pool, "attn_weights", attn_bytes, qc.weights, candidates);
  return r;
}

void FillTableAndInput(const MemoryPool& pool, const QuantCommon& qc, ea_dtype dtype,
                       int table_region, size_t table_count, int x_region, size_t x_count) {
  if (table_region >= 0) {
    FillActivations(pool.Bytes(table_region), table_count, dtype,
                    static_cast<uint8_t>(qc.x_mode + 1), qc.x_seed ^ 0x5A5A5A5Au);
  }
  if (x_region >= 0) FillActivations(pool.Bytes(x_region), x_count, dtype, qc.x_mode, qc.x_seed);
}

std::vector<uint8_t> PlannedTable(const MemoryPool& pool, int table_region, ea_dtype dtype,
                                  int64_t n, int32_t e, ea_quant position) {
  if (table_region < 0) return QuantizedSinusoid(dtype == EA_DTYPE_INT8, n, e, position);
  const uint8_t* table = pool.Bytes(table_region);
  return std::vector<uint8_t>(
      table, table + static_cast<size_t>(n) * static_cast<size_t>(e) * ElementBytes(dtype));
}

RunBuffers RunBuffersOf(const MemoryPool& pool, const RunRegions& regions, uint16_t nulls) {
  RunBuffers b;
  b.x = nulls & kNullInput0 ? nullptr : pool.Bytes(regions.x);
  b.y = nulls & kNullOutput ? nullptr : pool.Bytes(regions.y);
  b.attn = regions.attn >= 0 ? pool.Bytes(regions.attn) : nullptr;
  b.x_range = pool.Range(regions.x);
  b.y_range = pool.Range(regions.y);
  b.attn_range = regions.attn >= 0 ? pool.Range(regions.attn) : ByteRange{};
  return b;
}

RunMemory ModelRunRules(const MemoryPool& pool, const RunBuffers& b, const std::vector<int>& kept,
                        const ByteRange& carve, bool null_plan, const RunLengths& lengths,
                        ea_dtype dtype) {
  RunMemory m;
  if (null_plan || b.x == nullptr || b.y == nullptr) m.rules.Add(EA_ERR_NULL_POINTER);
  if (lengths.run_dtype != dtype) m.rules.Add(EA_ERR_BAD_ARGUMENT);
  if (!lengths.n_ok) m.rules.Add(EA_ERR_BAD_DIMENSION);
  if (!lengths.n_valid_ok) m.rules.Add(EA_ERR_BAD_ARGUMENT);
  if (lengths.weights_overflow) m.rules.Add(EA_ERR_DIMENSION_OVERFLOW);
  if (b.y_range.Overlaps(b.attn_range)) m.rules.Add(EA_ERR_BAD_ARGUMENT);
  for (const ByteRange& out : {b.y_range, b.attn_range}) {
    for (int r : kept) {
      if (out.Overlaps(pool.Range(r))) m.rules.Add(EA_ERR_BAD_ARGUMENT);
    }
    if (out.Overlaps(carve)) m.rules.Add(EA_ERR_BAD_ARGUMENT);
  }
  m.x_in_scratch = b.x_range.Overlaps(carve);
  if (m.x_in_scratch) m.rules.Add(EA_ERR_BAD_ARGUMENT);
  m.in_place = b.x_range.begin == b.y_range.begin;
  m.refusable = (!m.in_place && b.x_range.Overlaps(b.y_range)) || b.x_range.Overlaps(b.attn_range);
  if (m.refusable) m.rules.AllowRefusal();
  return m;
}

void ResetForRun(MemoryPool* pool, const ByteRange& carve, bool x_in_scratch) {
  if (x_in_scratch) {
    pool->Restore();
  } else {
    pool->RestoreExcept({carve});
  }
}

void SecondArena::Plan(uint64_t need, uint8_t targets,
                       const std::function<ea_status(ea_arena*)>& init) {
  pool.AddSeparate("filler", 64 * (1 + targets % 7) + 4, 4, 0);
  const int region = pool.AddSeparate("arena2", static_cast<size_t>(need), 64, 0);
  pool.Allocate();
  ea_arena arena;
  if (ea_arena_init(&arena, pool.Bytes(region), static_cast<size_t>(need)) != EA_OK ||
      init(&arena) != EA_OK) {
    Fail("the same config did not plan in a second arena with other workers");
  }
  pool.Snapshot();
  carve = pool.Range(region);
}

void ExpectUnplannedRefused(MemoryPool* pool, const char* entry_point,
                            const std::function<ea_status()>& run) {
  SetContext(entry_point, "unplanned");
  StatusSet refused;
  refused.Add(EA_ERR_BAD_ARGUMENT);
  refused.Add(EA_ERR_BAD_DIMENSION);
  pool->Snapshot();
  ExpectStatus("run on a failed plan", run(), refused);
  ExpectUntouched(entry_point, *pool, {}, "refused an unplanned plan");
}

void ExpectReplanRefused(const char* plan_call, MemoryPool* pool, const ByteRange& carve,
                         bool x_in_scratch, const ea_arena& arena, StatusSet rules,
                         bool fixed_dtype, const std::function<ea_status()>& replan,
                         const std::function<ea_status()>& run) {
  if (fixed_dtype) rules.Merge(ArenaRules(arena, 0, false));
  // A broken dtype, position or quantization may be found by later rules too.
  rules.Add(EA_ERR_BAD_ARGUMENT);
  rules.Add(EA_ERR_NULL_POINTER);
  ResetForRun(pool, carve, x_in_scratch);
  pool->Snapshot();
  const size_t used = arena.used;
  SetContext(plan_call, "re-plan");
  const ea_status status = replan();
  ExpectStatus("re-plan of a ready plan", status, rules);
  if (status == EA_OK) Fail("a broken re-plan was accepted");
  if (arena.used != used) Fail("failed re-plan moved arena.used");
  ExpectUntouched("re-plan", *pool, {}, "failed");
  SetContext("run", "after a failed re-plan");
  StatusSet refused;
  refused.Add(EA_ERR_BAD_ARGUMENT);
  refused.Add(EA_ERR_BAD_DIMENSION);
  ExpectStatus("run after a failed re-plan", run(), refused);
  ExpectUntouched("run", *pool, {carve}, "after a failed re-plan");
}

void CheckProbabilities(ea_dtype dtype, const std::vector<int32_t>& probs, int heads, int n,
                        bool causal, int n_valid_keys) {
  const bool int8 = dtype == EA_DTYPE_INT8;
  const int32_t zero = int8 ? -128 : 0;
  for (int h = 0; h < heads; ++h) {
    for (int i = 0; i < n; ++i) {
      const int32_t* row = probs.data() + (static_cast<size_t>(h) * n + i) * n;
      const int visible = ref::VisibleKeysOf(causal, n, n, n_valid_keys, i);
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

void ExpectSameValues(const char* what, const std::vector<int32_t>& got,
                      const std::vector<int32_t>& want) {
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    if (got[i] != want[i])
      Fail("%s[%zu] = %d, the integer reference says %d", what, i, got[i], want[i]);
  }
}

void RunOnEveryTarget(const QuantRunCheck& k, QuantStats* stats) {
  MemoryPool& pool = *k.pool;
  const RunBuffers& b = k.buffers;
  const size_t element = ElementBytes(k.dtype);
  const size_t probs_count =
      b.attn != nullptr ? static_cast<size_t>(k.heads) * k.n * static_cast<size_t>(k.n) : 0;
  const size_t y_bytes = k.y_count * element, attn_bytes = probs_count * element;
  const bool outputs_alone = !k.rules.rules.MustFail() && !k.rules.refusable && !k.rules.in_place;
  for (int64_t target : SelectTargets(k.targets)) {
    ForceTarget(target);
    SetContext(k.entry_point, TargetName(target));
    ResetForRun(&pool, k.carve, k.rules.x_in_scratch);
    const ea_status status = k.run(0);
    ExpectStatus("run", status, k.rules.rules);
    if (status != EA_OK) {
      ExpectUntouched("run", pool, {k.carve}, "failed");
      continue;
    }
    ExpectUntouched("run", pool, {k.carve, b.y_range, b.attn_range}, "succeeded");
    ++stats->runs;
    // Accepted overlaps of x with an output must compute the same result.
    const std::vector<int32_t> got_probs = Widen(k.dtype, b.attn, probs_count);
    if (b.attn != nullptr)
      CheckProbabilities(k.dtype, got_probs, k.heads, k.n, k.causal, k.n_valid_keys);
    if (k.want_y == nullptr) {
      ++stats->reference_skipped;
    } else {
      ++stats->reference_checks;
      ExpectSameValues("y", Widen(k.dtype, b.y, k.y_count), *k.want_y);
      if (b.attn != nullptr) ExpectSameValues("attn_weights", got_probs, *k.want_probs);
    }
    if (!outputs_alone) continue;
    const std::vector<uint8_t> y1 = CopyBytes(b.y, y_bytes);
    const std::vector<uint8_t> attn1 =
        b.attn ? CopyBytes(b.attn, attn_bytes) : std::vector<uint8_t>();
    for (int rerun = 0; rerun < 2; ++rerun) {
      ResetForRun(&pool, k.carve, k.rules.x_in_scratch);
      memset(b.y, kRerunCanary, y_bytes);
      if (b.attn) memset(b.attn, kRerunCanary, attn_bytes);
      if (k.run(rerun) != EA_OK) Fail("rerun %d refused what the first run accepted", rerun);
      ExpectSameBits(rerun == 0 ? "rerun on the same plan" : "run on a plan with other workers", y1,
                     b.y);
      if (b.attn)
        ExpectSameBits(rerun == 0 ? "rerun weights" : "weights, other workers", attn1, b.attn);
    }
    ExpectUntouched("run (second arena)", k.second->pool, {k.second->carve}, "succeeded");
  }
  ForceTarget(0);
}

}  // namespace edgeattn_fuzz
