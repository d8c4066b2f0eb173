// Bad input for the fixed-point MHA entry points (ea_mha_quant_arena_size on an
// INT8 / INT16 config, ea_mha_quant_derive, ea_mha_quant_init,
// ea_mha_quant_run_s8 and ea_mha_quant_run_s16), in the style of bad_input_test.cc: each
// table row breaks one thing in an otherwise valid call (a random case of
// tests/reference/quant_mha_fixture.h), fills what the call may write with a
// canary, and checks the status and that no watched byte changed ("on any
// error no output byte is written"; a failed init leaves the arena's
// used, its bytes and the plan, but its ready word, as they were). Rows whose
// expected status is EA_OK are the valid boundary cases next to the refused
// ones; they also run the plan once.
// A row that fails here is a library bug: fix the library, not the row.
#include <gtest/gtest.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "edgeattn/edgeattn.h"
#include "reference/device_softmax_luts.h"
#include "reference/quant_mha_fixture.h"
#include "test_support.h"
#include "untouched_bytes.h"

namespace edgeattn_test {
namespace {

constexpr int32_t kTokens = 6;
constexpr int32_t kDModel = 12;
constexpr int32_t kHeads = 3;
constexpr size_t kE = kDModel;
// Plenty for every valid configuration below (about 2 KB are needed).
constexpr size_t kArenaBytes = 1 << 16;
// Slack after each caller block, so that an output placed over the start of
// one of its tensors stays inside the block even where it is longer.
constexpr size_t kBlockSlack = 1024;
constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kBiasLimit = int64_t{1} << 47;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Expected-status markers of the config table, outside ea_status's values.
// ea_mha_quant_arena_size does not derive (the size depends on the shape only): a
// bad scale may be accepted by it, or refused with init's status.
constexpr ea_status kOkOrAsPlan = static_cast<ea_status>(1000);
// The function does not read what the row breaks (derive ignores max_tokens,
// the mask, the position table, quant_params...): not called.
constexpr ea_status kNotCalled = static_cast<ea_status>(1001);

std::string Num(int64_t value) {
  return value < 0 ? "Minus" + std::to_string(-static_cast<uint64_t>(value))
                   : std::to_string(value);
}

const char* DtypeName(ea_dtype dtype) { return dtype == EA_DTYPE_INT8 ? "S8" : "S16"; }

// ------------------------------------------------------------ a valid case

// Everything a valid fixed-point MHA call needs, built from one random case
// of the fixture (6 tokens, d_model 12, 3 heads, causal, sinusoidal positions
// quantized at plan time). Caller tensors live in blocks with slack after
// them (see kBlockSlack). Not copyable: the config and weights point into it.
class QuantSetup {
 public:
  explicit QuantSetup(ea_dtype dtype_in)
      : dtype(dtype_in),
        base(RandomQuantMha(dtype_in, {kTokens, kDModel, kHeads, true, true},
                            dtype_in == EA_DTYPE_INT8 ? 9101 : 9102)) {
    in_scales = base.in_scales;
    out_scales = base.out_scales;
    scales = base.scales;
    scales.in_proj_weight_scales = in_scales.data();
    scales.out_proj_weight_scales = out_scales.data();
    weight_block.assign(4 * kE * kE + kBlockSlack, 0);
    memcpy(weight_block.data(), base.in_proj.data(), 3 * kE * kE);
    memcpy(weight_block.data() + 3 * kE * kE, base.out_proj.data(), kE * kE);
    bias_block.assign(4 * kE * BiasBytes() + kBlockSlack, 0);
    for (size_t i = 0; i < 3 * kE; ++i) SetBias(i, base.in_bias[i]);
    for (size_t i = 0; i < kE; ++i) SetBias(3 * kE + i, base.out_bias[i]);
    weights = edgeattn_test::InProjQuantWeights(InProj(), InBias(), OutProj(), OutBias());
    // A valid quantized table for LEARNED rows: the fixture's x, as table.
    table_block.assign(TensorBytes(kTokens) + kBlockSlack, 0);
    StoreActivations(base.x_emb, table_block.data());
    x.assign(TensorBytes(kTokens), 0);
    StoreActivations(base.x_emb, x.data());
    config.dtype = dtype;
    config.max_tokens = kTokens;
    config.d_model = kDModel;
    config.n_heads = kHeads;
    config.mask = EA_MASK_CAUSAL;
    config.position = EA_POSITION_SINUSOIDAL;
    config.position_table = nullptr;
    config.weights_layout = EA_WEIGHTS_ROW_MAJOR;
    config.parallel = ea_parallel_for{};
    config.quant_scales = &scales;
    config.quant_params = nullptr;
    config.quant_position_table = nullptr;
  }
  QuantSetup(const QuantSetup&) = delete;
  QuantSetup& operator=(const QuantSetup&) = delete;

  size_t ElementBytes() const { return dtype == EA_DTYPE_INT16 ? 2 : 1; }
  size_t BiasBytes() const { return dtype == EA_DTYPE_INT16 ? 8 : 4; }
  size_t TensorBytes(int32_t rows) const { return static_cast<size_t>(rows) * kE * ElementBytes(); }
  size_t WeightsBytes(int32_t rows) const {
    return static_cast<size_t>(kHeads) * rows * rows * ElementBytes();
  }
  int8_t* InProj() { return weight_block.data(); }
  int8_t* OutProj() { return weight_block.data() + 3 * kE * kE; }
  uint8_t* InBias() { return bias_block.data(); }
  uint8_t* OutBias() { return bias_block.data() + 3 * kE * BiasBytes(); }

  // Bias i of in_proj_bias (i < 3E), then of out_proj_bias (3E + i).
  void SetBias(size_t i, int64_t value) {
    if (dtype == EA_DTYPE_INT16) {
      memcpy(bias_block.data() + 8 * i, &value, 8);
    } else {
      const int32_t narrow = static_cast<int32_t>(value);
      memcpy(bias_block.data() + 4 * i, &narrow, 4);
    }
  }

  void StoreActivations(const std::vector<int32_t>& values, uint8_t* out) const {
    for (size_t i = 0; i < values.size(); ++i) {
      if (dtype == EA_DTYPE_INT16) {
        const int16_t v = static_cast<int16_t>(values[i]);
        memcpy(out + 2 * i, &v, 2);
      } else {
        out[i] = static_cast<uint8_t>(static_cast<int8_t>(values[i]));
      }
    }
  }

  // The caller passes TFLite's integers: those ea_mha_quant_derive gives for
  // the scales, copied into per-channel arrays of the caller's own.
  // keep_scales false: quant_scales NULL, and SINUSOIDAL becomes NONE (rows
  // about the table's quantization in the integers drop the scales themselves).
  void UseGivenParams(bool keep_scales) {
    std::vector<int32_t> derived(EA_MHA_QUANT_CHANNEL_INTS(kDModel));
    ea_mha_quant_params p{};
    const ea_status status = ea_mha_quant_derive(&config, &p, derived.data(), derived.size());
    if (status != EA_OK) ADD_FAILURE() << "derive of the valid case: " << StatusName(status);
    params = p;
    ea_linear_quant_params* linears[4] = {&params.q_proj, &params.k_proj, &params.v_proj,
                                          &params.out_proj};
    for (int l = 0; l < 4; ++l) {
      mult[l].assign(linears[l]->output_multiplier, linears[l]->output_multiplier + kE);
      shift[l].assign(linears[l]->output_shift, linears[l]->output_shift + kE);
      linears[l]->output_multiplier = mult[l].data();
      linears[l]->output_shift = shift[l].data();
    }
    config.quant_params = &params;
    if (!keep_scales) {
      config.quant_scales = nullptr;
      if (config.position == EA_POSITION_SINUSOIDAL) config.position = EA_POSITION_NONE;
    }
  }
  ea_linear_quant_params& Linear(int l) {
    ea_linear_quant_params* linears[4] = {&params.q_proj, &params.k_proj, &params.v_proj,
                                          &params.out_proj};
    return *linears[l];
  }

  void UseLearnedTable() {
    config.position = EA_POSITION_LEARNED;
    config.quant_position_table = table_block.data();
  }

  // Given integers with a device's int16 softmax tables (exp, then 1 / (1 +
  // x), in lut_block).
  void UseSoftmaxTables() {
    UseGivenParams(true);
    lut_block.assign(DeviceExpLut(), DeviceExpLut() + 513);
    lut_block.insert(lut_block.end(), DeviceReciprocalLut(), DeviceReciprocalLut() + 513);
    lut_block.resize(lut_block.size() + kBlockSlack, 0);
    params.softmax.exp_lut = ExpLut();
    params.softmax.one_over_one_plus_x_lut = ReciprocalLut();
  }
  int16_t* ExpLut() { return lut_block.data(); }
  int16_t* ReciprocalLut() { return lut_block.data() + 513; }

  ea_dtype dtype;
  QuantMhaCase base;
  std::vector<float> in_scales, out_scales;
  ea_mha_quant_scales scales{};
  std::vector<int8_t> weight_block;  // in_proj [3E, E], out_proj [E, E], slack
  std::vector<uint8_t> bias_block;   // in_proj_bias [3E], out_proj_bias [E], slack
  std::vector<uint8_t> table_block;  // a quantized [max_tokens, E] table, slack
  std::vector<uint8_t> x;            // [kTokens, E]
  std::vector<int16_t> lut_block;    // a device's softmax tables (int16), slack
  ea_mha_quant_weights weights{};
  ea_mha_quant_params params{};
  std::vector<int32_t> mult[4], shift[4];  // given per-channel arrays: q, k, v, out
  ea_mha_config config{};
};

ea_status RunTyped(ea_dtype run_dtype, const ea_mha_quant_plan* plan, const void* x,
                   int32_t n_tokens, int32_t n_valid_keys, void* y, void* attn_weights) {
  if (run_dtype == EA_DTYPE_INT8) {
    return ea_mha_quant_run_s8(plan, static_cast<const int8_t*>(x), n_tokens, n_valid_keys,
                               static_cast<int8_t*>(y), static_cast<int8_t*>(attn_weights));
  }
  return ea_mha_quant_run_s16(plan, static_cast<const int16_t*>(x), n_tokens, n_valid_keys,
                              static_cast<int16_t*>(y), static_cast<int16_t*>(attn_weights));
}

ea_status TraceTyped(ea_dtype run_dtype, const ea_mha_quant_plan* plan, const void* x,
                     int32_t n_tokens, int32_t n_valid_keys, void* y,
                     const ea_mha_quant_taps* taps) {
  if (run_dtype == EA_DTYPE_INT8) {
    return ea_mha_quant_trace_s8(plan, static_cast<const int8_t*>(x), n_tokens, n_valid_keys,
                                 static_cast<int8_t*>(y), taps);
  }
  return ea_mha_quant_trace_s16(plan, static_cast<const int16_t*>(x), n_tokens, n_valid_keys,
                                static_cast<int16_t*>(y), taps);
}

struct Outputs {
  ea_status status = EA_ERR_BAD_ARGUMENT;
  std::vector<uint8_t> y, attn_weights;
};

// Plans `s` in a fresh arena and runs it over all its tokens.
Outputs PlanAndRun(QuantSetup* s) {
  Outputs out;
  size_t bytes = 0;
  out.status = ea_mha_quant_arena_size(&s->config, &bytes);
  if (out.status != EA_OK) return out;
  AlignedBytes storage(bytes);
  ea_arena arena{};
  ea_arena_init(&arena, storage.data(), bytes);
  ea_mha_quant_plan plan{};
  out.status = ea_mha_quant_init(&plan, &s->config, &s->weights, &arena);
  if (out.status != EA_OK) return out;
  out.y.assign(s->TensorBytes(kTokens), kCanaryByte);
  out.attn_weights.assign(s->WeightsBytes(kTokens), kCanaryByte);
  out.status = RunTyped(s->dtype, &plan, s->x.data(), kTokens, kTokens, out.y.data(),
                        out.attn_weights.data());
  return out;
}

// ------------------------------------------------- the config table (3 calls)

struct QuantConfigCase {
  std::string name;
  ea_dtype dtype;
  std::function<void(QuantSetup*)> arrange;
  ea_status size;    // ea_mha_quant_arena_size, or kOkOrAsPlan / kNotCalled
  ea_status plan;    // ea_mha_quant_init
  ea_status derive;  // ea_mha_quant_derive, or kNotCalled
};

void PrintTo(const QuantConfigCase& c, std::ostream* os) { *os << c.name; }

struct CaseName {
  template <typename Param>
  std::string operator()(const testing::TestParamInfo<Param>& info) const {
    return info.param.name;
  }
};

class CaseList {
 public:
  // One row per dtype in `dtypes`, named DTYPE_name.
  void Add(std::initializer_list<ea_dtype> dtypes, const std::string& name,
           std::function<void(QuantSetup*)> arrange, ea_status size, ea_status plan,
           ea_status derive) {
    for (const ea_dtype dtype : dtypes) {
      cases_.push_back(
          {std::string(DtypeName(dtype)) + "_" + name, dtype, arrange, size, plan, derive});
    }
  }
  const std::vector<QuantConfigCase>& cases() const { return cases_; }

 private:
  std::vector<QuantConfigCase> cases_;
};

constexpr std::initializer_list<ea_dtype> kBoth = {EA_DTYPE_INT8, EA_DTYPE_INT16};
constexpr std::initializer_list<ea_dtype> kS8 = {EA_DTYPE_INT8};
constexpr std::initializer_list<ea_dtype> kS16 = {EA_DTYPE_INT16};

// Shapes, enums, the parallel-for, the quantization's presence.
void ConfigRows(CaseList* l) {
  const auto dim = [](int32_t ea_mha_config::*field, int32_t value) {
    return [field, value](QuantSetup* s) { s->config.*field = value; };
  };
  l->Add(kBoth, "MaxTokensZero", dim(&ea_mha_config::max_tokens, 0), EA_ERR_BAD_DIMENSION,
         EA_ERR_BAD_DIMENSION, kNotCalled);
  l->Add(kBoth, "MaxTokensNegative", dim(&ea_mha_config::max_tokens, -1), EA_ERR_BAD_DIMENSION,
         EA_ERR_BAD_DIMENSION, kNotCalled);
  l->Add(kBoth, "MaxTokensInt32Min", dim(&ea_mha_config::max_tokens, kInt32Min),
         EA_ERR_BAD_DIMENSION, EA_ERR_BAD_DIMENSION, kNotCalled);
  l->Add(kBoth, "DModelZero", dim(&ea_mha_config::d_model, 0), EA_ERR_BAD_DIMENSION,
         EA_ERR_BAD_DIMENSION, EA_ERR_BAD_DIMENSION);
  l->Add(kBoth, "DModelNegative", dim(&ea_mha_config::d_model, -12), EA_ERR_BAD_DIMENSION,
         EA_ERR_BAD_DIMENSION, EA_ERR_BAD_DIMENSION);
  l->Add(kBoth, "HeadsZero", dim(&ea_mha_config::n_heads, 0), EA_ERR_BAD_DIMENSION,
         EA_ERR_BAD_DIMENSION, EA_ERR_BAD_DIMENSION);
  l->Add(kBoth, "HeadsNegative", dim(&ea_mha_config::n_heads, -3), EA_ERR_BAD_DIMENSION,
         EA_ERR_BAD_DIMENSION, EA_ERR_BAD_DIMENSION);
  l->Add(kBoth, "HeadsDoNotDivideDModel", dim(&ea_mha_config::n_heads, 5), EA_ERR_HEADS_MISMATCH,
         EA_ERR_HEADS_MISMATCH, EA_ERR_HEADS_MISMATCH);
  l->Add(kBoth, "HeadsAboveDModel", dim(&ea_mha_config::n_heads, 24), EA_ERR_HEADS_MISMATCH,
         EA_ERR_HEADS_MISMATCH, EA_ERR_HEADS_MISMATCH);
  l->Add(kBoth, "HeadsInt32Max", dim(&ea_mha_config::n_heads, kInt32Max), EA_ERR_HEADS_MISMATCH,
         EA_ERR_HEADS_MISMATCH, EA_ERR_HEADS_MISMATCH);
  l->Add(kBoth, "MaxTokensInt32Max", dim(&ea_mha_config::max_tokens, kInt32Max),
         EA_ERR_DIMENSION_OVERFLOW, EA_ERR_DIMENSION_OVERFLOW, kNotCalled);
  // x [max_tokens, d_model] past EA_MAX_ELEMENTS.
  l->Add(
      kBoth, "InputAboveMaxElements",
      [](QuantSetup* s) {
        s->config.max_tokens = 1 << 14;
        s->config.d_model = (1 << 14) + 1;
        s->config.n_heads = 1;
      },
      EA_ERR_DIMENSION_OVERFLOW, EA_ERR_DIMENSION_OVERFLOW, kNotCalled);
  // in_proj [3 d_model, d_model]: 3 * 9460^2 > 2^28 with one token.
  l->Add(
      kBoth, "InProjAboveMaxElements",
      [](QuantSetup* s) {
        s->config.max_tokens = 1;
        s->config.d_model = 9460;
        s->config.n_heads = 1;
      },
      EA_ERR_DIMENSION_OVERFLOW, EA_ERR_DIMENSION_OVERFLOW, kNotCalled);
  // INT32_MAX is prime: one head isolates the overflow. derive refuses the
  // shape itself (in_proj's 3 d_model^2 elements) before it looks at its
  // buffer, and 8 * d_model is never computed in int32 (undefined behaviour
  // under UBSan).
  l->Add(
      kBoth, "DModelInt32Max",
      [](QuantSetup* s) {
        s->config.d_model = kInt32Max;
        s->config.n_heads = 1;
      },
      EA_ERR_DIMENSION_OVERFLOW, EA_ERR_DIMENSION_OVERFLOW, EA_ERR_DIMENSION_OVERFLOW);
  l->Add(
      kBoth, "MaskUnknown2", [](QuantSetup* s) { StoreRawEnum(&s->config.mask, 2); },
      EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT, kNotCalled);
  l->Add(
      kBoth, "MaskUnknownMinus1", [](QuantSetup* s) { StoreRawEnum(&s->config.mask, -1); },
      EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT, kNotCalled);
  l->Add(
      kBoth, "PositionUnknown3", [](QuantSetup* s) { StoreRawEnum(&s->config.position, 3); },
      EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT, kNotCalled);
  l->Add(
      kBoth, "PositionUnknownMinus1", [](QuantSetup* s) { StoreRawEnum(&s->config.position, -1); },
      EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT, kNotCalled);
  l->Add(
      kBoth, "LearnedWithoutTable", [](QuantSetup* s) { s->config.position = EA_POSITION_LEARNED; },
      EA_ERR_NULL_POINTER, EA_ERR_NULL_POINTER, kNotCalled);
  // position_table (float) is not read by fixed-point plans.
  l->Add(
      kBoth, "LearnedWithOnlyAFloatTable",
      [](QuantSetup* s) {
        static const float kTable[kTokens * kDModel] = {};
        s->config.position = EA_POSITION_LEARNED;
        s->config.position_table = kTable;
      },
      EA_ERR_NULL_POINTER, EA_ERR_NULL_POINTER, kNotCalled);
  l->Add(
      kBoth, "LearnedWithItsQuantizedTable", [](QuantSetup* s) { s->UseLearnedTable(); }, EA_OK,
      EA_OK, EA_OK);
  l->Add(
      kBoth, "NoPositions", [](QuantSetup* s) { s->config.position = EA_POSITION_NONE; }, EA_OK,
      EA_OK, EA_OK);
  l->Add(
      kBoth, "MaskNone", [](QuantSetup* s) { s->config.mask = EA_MASK_NONE; }, EA_OK, EA_OK, EA_OK);
  // The float entry point's dtype on the fixed-point init and derive.
  l->Add(
      kBoth, "DtypeF32", [](QuantSetup* s) { s->config.dtype = EA_DTYPE_F32; }, kNotCalled,
      EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT);
  l->Add(
      kBoth, "DtypeUnknown3", [](QuantSetup* s) { StoreRawEnum(&s->config.dtype, 3); },
      EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT);
  l->Add(
      kBoth, "DtypeUnknownMinus1", [](QuantSetup* s) { StoreRawEnum(&s->config.dtype, -1); },
      EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT);
  l->Add(
      kBoth, "TwoWorkersWithoutRun",
      [](QuantSetup* s) {
        s->config.parallel = ea_parallel_for{nullptr, nullptr, 2};
      },
      EA_ERR_NULL_POINTER, EA_ERR_NULL_POINTER, kNotCalled);
  l->Add(
      kBoth, "WorkersNegative",
      [](QuantSetup* s) {
        s->config.parallel = ea_parallel_for{nullptr, nullptr, -1};
      },
      EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT, kNotCalled);
  l->Add(
      kBoth, "WorkersAboveMax",
      [](QuantSetup* s) {
        s->config.parallel = ea_parallel_for{nullptr, nullptr, EA_MAX_WORKERS + 1};
      },
      EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT, kNotCalled);
  l->Add(
      kBoth, "NeitherScalesNorParams", [](QuantSetup* s) { s->config.quant_scales = nullptr; },
      EA_ERR_NULL_POINTER, EA_ERR_NULL_POINTER, EA_ERR_NULL_POINTER);
}

// ea_mha_quant_scales: scales and zero points of each tensor, the weights'
// per-channel scales, and scales whose derived integers leave the range.
void ScaleRows(CaseList* l) {
  struct Tensor {
    const char* name;
    ea_quant ea_mha_quant_scales::*field;
  };
  const Tensor tensors[] = {{"Input", &ea_mha_quant_scales::input},
                            {"Position", &ea_mha_quant_scales::position},
                            {"Positioned", &ea_mha_quant_scales::positioned},
                            {"Q", &ea_mha_quant_scales::q},
                            {"K", &ea_mha_quant_scales::k},
                            {"V", &ea_mha_quant_scales::v},
                            {"Scores", &ea_mha_quant_scales::scores},
                            {"Context", &ea_mha_quant_scales::context},
                            {"Output", &ea_mha_quant_scales::output}};
  const struct {
    const char* name;
    float value;
  } bad_scales[] = {
      {"Zero", 0.0f},      {"MinusZero", -0.0f},
      {"Negative", -0.5f}, {"NegativeDenormal", -std::numeric_limits<float>::denorm_min()},
      {"NaN", kNaN},       {"PlusInf", kInf},
      {"MinusInf", -kInf}};
  for (const Tensor& t : tensors) {
    const auto field = t.field;
    for (const auto& bad : bad_scales) {
      const float value = bad.value;
      l->Add(
          kBoth, std::string(t.name) + "Scale" + bad.name,
          [field, value](QuantSetup* s) { (s->scales.*field).scale = value; }, kOkOrAsPlan,
          EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT);
    }
    const int32_t s8_bad_zero_points[] = {-129, 128, kInt32Min, kInt32Max};
    for (const int32_t zp : s8_bad_zero_points) {
      l->Add(
          kS8, std::string(t.name) + "ZeroPoint" + Num(zp),
          [field, zp](QuantSetup* s) { (s->scales.*field).zero_point = zp; }, kOkOrAsPlan,
          EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT);
    }
    for (const int32_t zp : std::initializer_list<int32_t>{1, -1, 32767, kInt32Min}) {
      l->Add(
          kS16, std::string(t.name) + "ZeroPoint" + Num(zp),
          [field, zp](QuantSetup* s) { (s->scales.*field).zero_point = zp; }, kOkOrAsPlan,
          EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT);
    }
    // The range's ends, accepted.
    for (const int32_t zp : {-128, 127}) {
      l->Add(
          kS8, std::string(t.name) + "ZeroPoint" + Num(zp) + "Accepted",
          [field, zp](QuantSetup* s) { (s->scales.*field).zero_point = zp; }, EA_OK, EA_OK, EA_OK);
    }
  }
  // Every zero point at one end of the int8 range at once.
  for (const int32_t zp : {-128, 127}) {
    l->Add(
        kS8, "EveryZeroPoint" + Num(zp) + "Accepted",
        [zp](QuantSetup* s) {
          for (ea_quant* q : {&s->scales.input, &s->scales.position, &s->scales.positioned,
                              &s->scales.q, &s->scales.k, &s->scales.v, &s->scales.scores,
                              &s->scales.context, &s->scales.output}) {
            q->zero_point = zp;
          }
        },
        EA_OK, EA_OK, EA_OK);
  }
  // Without positions the position and positioned quantizations are ignored.
  l->Add(
      kBoth, "PositionQuantizationIgnoredWithoutPositions",
      [](QuantSetup* s) {
        s->config.position = EA_POSITION_NONE;
        s->scales.position = ea_quant{kNaN, kInt32Max};
        s->scales.positioned = ea_quant{-1.0f, kInt32Min};
      },
      EA_OK, EA_OK, EA_OK);
  // A LEARNED table is the caller's: its scale still feeds ADD's multipliers.
  l->Add(
      kBoth, "LearnedTableScaleNaN",
      [](QuantSetup* s) {
        s->UseLearnedTable();
        s->scales.position.scale = kNaN;
      },
      kOkOrAsPlan, EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT);

  // Per-channel weight scales: first and last of each array.
  const struct {
    const char* name;
    float value;
  } bad_weight_scales[] = {
      {"Zero", 0.0f}, {"Negative", -1e-3f}, {"NaN", kNaN}, {"PlusInf", kInf}, {"MinusInf", -kInf}};
  for (const auto& bad : bad_weight_scales) {
    const float value = bad.value;
    l->Add(
        kBoth, std::string("InProjWeightScaleFirst") + bad.name,
        [value](QuantSetup* s) { s->in_scales.front() = value; }, kOkOrAsPlan, EA_ERR_BAD_ARGUMENT,
        EA_ERR_BAD_ARGUMENT);
    l->Add(
        kBoth, std::string("InProjWeightScaleLast") + bad.name,
        [value](QuantSetup* s) { s->in_scales.back() = value; }, kOkOrAsPlan, EA_ERR_BAD_ARGUMENT,
        EA_ERR_BAD_ARGUMENT);
    l->Add(
        kBoth, std::string("OutProjWeightScaleFirst") + bad.name,
        [value](QuantSetup* s) { s->out_scales.front() = value; }, kOkOrAsPlan, EA_ERR_BAD_ARGUMENT,
        EA_ERR_BAD_ARGUMENT);
    l->Add(
        kBoth, std::string("OutProjWeightScaleLast") + bad.name,
        [value](QuantSetup* s) { s->out_scales.back() = value; }, kOkOrAsPlan, EA_ERR_BAD_ARGUMENT,
        EA_ERR_BAD_ARGUMENT);
  }
  l->Add(
      kBoth, "NullInProjWeightScales",
      [](QuantSetup* s) { s->scales.in_proj_weight_scales = nullptr; }, kOkOrAsPlan,
      EA_ERR_NULL_POINTER, EA_ERR_NULL_POINTER);
  l->Add(
      kBoth, "NullOutProjWeightScales",
      [](QuantSetup* s) { s->scales.out_proj_weight_scales = nullptr; }, kOkOrAsPlan,
      EA_ERR_NULL_POINTER, EA_ERR_NULL_POINTER);
  const std::pair<const char*, float> bad_betas[] = {
      {"Negative", -1.0f}, {"Infinite", INFINITY}, {"NaN", NAN}};
  for (const auto& [name, beta] : bad_betas) {
    l->Add(
        kBoth, std::string("SoftmaxBeta") + name,
        [beta](QuantSetup* s) { s->scales.softmax_beta = beta; }, kOkOrAsPlan, EA_ERR_BAD_ARGUMENT,
        EA_ERR_BAD_ARGUMENT);
  }
  // W_Q's, W_K's, W_V's scales as three arrays: all three, instead of in_proj's.
  l->Add(
      kBoth, "InProjAndQProjWeightScales",
      [](QuantSetup* s) { s->scales.q_proj_weight_scales = s->in_scales.data(); }, kOkOrAsPlan,
      EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT);
  l->Add(
      kBoth, "SeparateWeightScalesWithoutV",
      [](QuantSetup* s) {
        s->scales.in_proj_weight_scales = nullptr;
        s->scales.q_proj_weight_scales = s->in_scales.data();
        s->scales.k_proj_weight_scales = s->in_scales.data() + kE;
      },
      kOkOrAsPlan, EA_ERR_NULL_POINTER, EA_ERR_NULL_POINTER);
  l->Add(
      kBoth, "SeparateWeightScaleOfVNotFinite",
      [](QuantSetup* s) {
        s->scales.in_proj_weight_scales = nullptr;
        s->scales.q_proj_weight_scales = s->in_scales.data();
        s->scales.k_proj_weight_scales = s->in_scales.data() + kE;
        s->scales.v_proj_weight_scales = s->in_scales.data() + 2 * kE;
        s->in_scales[3 * kE - 1] = INFINITY;
      },
      kOkOrAsPlan, EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT);

  // Valid scales whose derived integers TFLite refuses or saturates.
  // q 10^6 times finer: the Q projection's multiplier ~2^11. int16's 64-bit
  // requantisation allows shifts up to 7 only; int8 takes it.
  l->Add(
      kS16, "QScaleTinyShiftAbove7", [](QuantSetup* s) { s->scales.q.scale *= 1e-6f; }, kOkOrAsPlan,
      EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT);
  l->Add(
      kS8, "QScaleTinyAccepted", [](QuantSetup* s) { s->scales.q.scale *= 1e-6f; }, EA_OK, EA_OK,
      EA_OK);
  // Multipliers past 2^30: TFLite's default Prepare gives shifts above 30,
  // which its requantisation cannot apply (undefined), so the plan refuses
  // them; below 2^-31 they flush to 0.
  l->Add(
      kS8, "OutputScaleTinyShiftAbove30Refused",
      [](QuantSetup* s) { s->scales.output.scale = 1e-30f; }, EA_OK, EA_ERR_BAD_ARGUMENT,
      EA_ERR_BAD_ARGUMENT);
  l->Add(
      kBoth, "OutputScaleHugeMultiplierFlushesToZeroAccepted",
      [](QuantSetup* s) { s->scales.output.scale = 1e30f; }, EA_OK, EA_OK, EA_OK);
  // Scores 10^-9: the int8 softmax's input multiplier beta * s * 2^26 < 1/2
  // has a negative left shift (TFLite's QuantizeMultiplierGreaterThanOne
  // refuses it); int16's score requantisation needs a shift above 7.
  l->Add(
      kBoth, "ScoresScaleTiny", [](QuantSetup* s) { s->scales.scores.scale = 1e-9f; }, kOkOrAsPlan,
      EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT);
}

// ea_mha_quant_params given by the caller, quant_scales kept unless a row
// drops them.
void ParamRows(CaseList* l) {
  const auto given = [](std::function<void(QuantSetup*)> change) {
    return [change](QuantSetup* s) {
      s->UseGivenParams(true);
      change(s);
    };
  };
  // Params are validated by ea_mha_quant_arena_size too; derive does not read them.
  const auto add = [&](std::initializer_list<ea_dtype> dtypes, const std::string& name,
                       std::function<void(QuantSetup*)> change, ea_status status) {
    l->Add(dtypes, "Given" + name, given(change), status, status, kNotCalled);
  };
  add(
      kBoth, "EqualToDerivedAccepted", [](QuantSetup*) {}, EA_OK);
  add(
      kBoth, "WithoutScalesNoPositionsAccepted",
      [](QuantSetup* s) {
        s->config.quant_scales = nullptr;
        s->config.position = EA_POSITION_NONE;
      },
      EA_OK);
  add(
      kBoth, "WithoutScalesLearnedAccepted",
      [](QuantSetup* s) {
        s->config.quant_scales = nullptr;
        s->UseLearnedTable();
      },
      EA_OK);
  // The sinusoidal table filled at plan time is quantized with the integers'
  // `position` (derive filled it): quant_scales are not needed, nor read.
  add(
      kBoth, "PositionWithoutScalesAccepted",
      [](QuantSetup* s) { s->config.quant_scales = nullptr; }, EA_OK);
  add(
      kBoth, "PositionOverBadScalesAccepted",
      [](QuantSetup* s) { s->scales.position.scale = kNaN; }, EA_OK);
  // The integers' position all zero (a struct written before the field):
  // quant_scales->position is used, and must be there and valid.
  add(
      kBoth, "PositionAllZeroWithoutScales",
      [](QuantSetup* s) {
        s->params.position = ea_quant{};
        s->config.quant_scales = nullptr;
      },
      EA_ERR_NULL_POINTER);
  const struct {
    const char* name;
    std::initializer_list<ea_dtype> dtypes;
    ea_quant value;
  } bad_positions[] = {
      {"ScaleNaN", kBoth, {kNaN, 0}},
      {"ScaleNegative", kBoth, {-1.0f / 128, 0}},
      {"ScalePlusInf", kBoth, {kInf, 0}},
      {"ScaleZeroZeroPointOne", kBoth, {0.0f, 1}},  // not all zero: given, and bad
      {"ScaleMinusZero", kBoth, {-0.0f, 0}},        // not all zero bits: given, and bad
      {"ZeroPoint128", kS8, {1.0f / 128, 128}},
      {"ZeroPointMinus129", kS8, {1.0f / 128, -129}},
      {"ZeroPointInt32Max", kBoth, {1.0f / 128, kInt32Max}},
      {"ZeroPoint1", kS16, {1.0f / 32768, 1}},
  };
  for (const auto& bad : bad_positions) {
    const ea_quant value = bad.value;
    add(
        bad.dtypes, std::string("Position") + bad.name,
        [value](QuantSetup* s) { s->params.position = value; }, EA_ERR_BAD_ARGUMENT);
    add(
        bad.dtypes, std::string("PositionAllZeroScalesPosition") + bad.name,
        [value](QuantSetup* s) {
          s->params.position = ea_quant{};
          s->scales.position = value;
        },
        EA_ERR_BAD_ARGUMENT);
    // Read only for a table the plan fills.
    add(
        bad.dtypes, std::string("Position") + bad.name + "IgnoredWithALearnedTable",
        [value](QuantSetup* s) {
          s->params.position = value;
          s->UseLearnedTable();
        },
        EA_OK);
    add(
        bad.dtypes, std::string("Position") + bad.name + "IgnoredWithACallersTable",
        [value](QuantSetup* s) {
          s->params.position = value;
          s->config.quant_position_table = s->table_block.data();  // SINUSOIDAL, precomputed
        },
        EA_OK);
    add(
        bad.dtypes, std::string("Position") + bad.name + "IgnoredWithoutPositions",
        [value](QuantSetup* s) {
          s->params.position = value;
          s->config.position = EA_POSITION_NONE;
        },
        EA_OK);
  }

  const char* const linear_names[4] = {"QProj", "KProj", "VProj", "OutProj"};
  for (int li = 0; li < 4; ++li) {
    const std::string name = linear_names[li];
    for (const ea_dtype dtype : kBoth) {
      const int32_t max_shift = dtype == EA_DTYPE_INT8 ? 30 : 7;
      const std::initializer_list<ea_dtype> one = dtype == EA_DTYPE_INT8 ? kS8 : kS16;
      for (const int32_t shift :
           std::initializer_list<int32_t>{-32, max_shift + 1, kInt32Min, kInt32Max}) {
        add(
            one, name + "ShiftLast" + Num(shift),
            [li, shift](QuantSetup* s) { s->shift[li].back() = shift; }, EA_ERR_BAD_ARGUMENT);
      }
      for (const int32_t shift : std::initializer_list<int32_t>{-31, max_shift}) {
        add(
            one, name + "ShiftFirst" + Num(shift) + "Accepted",
            [li, shift](QuantSetup* s) { s->shift[li].front() = shift; }, EA_OK);
      }
    }
    for (const int32_t m : std::initializer_list<int32_t>{-1, kInt32Min}) {
      add(
          kBoth, name + "MultiplierFirst" + Num(m),
          [li, m](QuantSetup* s) { s->mult[li].front() = m; }, EA_ERR_BAD_ARGUMENT);
    }
    for (const int32_t m : std::initializer_list<int32_t>{0, 1, kInt32Max}) {
      add(
          kBoth, name + "MultiplierLast" + Num(m) + "Accepted",
          [li, m](QuantSetup* s) { s->mult[li].back() = m; }, EA_OK);
    }
    add(
        kBoth, name + "NullMultipliers",
        [li](QuantSetup* s) { s->Linear(li).output_multiplier = nullptr; }, EA_ERR_NULL_POINTER);
    add(
        kBoth, name + "NullShifts", [li](QuantSetup* s) { s->Linear(li).output_shift = nullptr; },
        EA_ERR_NULL_POINTER);
    // Offsets: the negated input zero point in [-127, 128], the output zero
    // point in [-128, 127]; int16 ones 0.
    for (const int32_t offset : std::initializer_list<int32_t>{-128, 129, kInt32Min}) {
      add(
          kS8, name + "InputOffset" + Num(offset),
          [li, offset](QuantSetup* s) { s->Linear(li).input_offset = offset; },
          EA_ERR_BAD_ARGUMENT);
    }
    for (const int32_t offset : {-127, 128}) {
      add(
          kS8, name + "InputOffset" + Num(offset) + "Accepted",
          [li, offset](QuantSetup* s) { s->Linear(li).input_offset = offset; }, EA_OK);
    }
    for (const int32_t offset : std::initializer_list<int32_t>{-129, 128, kInt32Max}) {
      add(
          kS8, name + "OutputOffset" + Num(offset),
          [li, offset](QuantSetup* s) { s->Linear(li).output_offset = offset; },
          EA_ERR_BAD_ARGUMENT);
    }
    for (const int32_t offset : {-128, 127}) {
      add(
          kS8, name + "OutputOffset" + Num(offset) + "Accepted",
          [li, offset](QuantSetup* s) { s->Linear(li).output_offset = offset; }, EA_OK);
    }
    add(
        kS16, name + "InputOffset1", [li](QuantSetup* s) { s->Linear(li).input_offset = 1; },
        EA_ERR_BAD_ARGUMENT);
    add(
        kS16, name + "OutputOffsetMinus1",
        [li](QuantSetup* s) { s->Linear(li).output_offset = -1; }, EA_ERR_BAD_ARGUMENT);
  }

  // BATCH_MATMUL: the scores (q times k^T) and the context (probs times v).
  const struct {
    const char* name;
    ea_matmul_quant_params ea_mha_quant_params::*field;
  } matmuls[] = {{"Scores", &ea_mha_quant_params::scores},
                 {"Context", &ea_mha_quant_params::context}};
  for (const auto& mm : matmuls) {
    const auto field = mm.field;
    const std::string name = mm.name;
    const bool context = field == &ea_mha_quant_params::context;
    for (const ea_dtype dtype : kBoth) {
      const std::initializer_list<ea_dtype> one = dtype == EA_DTYPE_INT8 ? kS8 : kS16;
      const int32_t max_shift = dtype == EA_DTYPE_INT8 ? 30 : 7;
      for (const int32_t shift : std::initializer_list<int32_t>{-32, max_shift + 1}) {
        add(
            one, name + "Shift" + Num(shift),
            [field, shift](QuantSetup* s) { (s->params.*field).output_shift = shift; },
            EA_ERR_BAD_ARGUMENT);
      }
      for (const int32_t shift : std::initializer_list<int32_t>{-31, max_shift}) {
        add(
            one, name + "Shift" + Num(shift) + "Accepted",
            [field, shift](QuantSetup* s) { (s->params.*field).output_shift = shift; }, EA_OK);
      }
    }
    add(
        kBoth, name + "MultiplierMinus1",
        [field](QuantSetup* s) { (s->params.*field).output_multiplier = -1; }, EA_ERR_BAD_ARGUMENT);
    add(
        kBoth, name + "Multiplier0Accepted",
        [field](QuantSetup* s) { (s->params.*field).output_multiplier = 0; }, EA_OK);
    for (const int32_t offset : {-128, 129}) {
      add(
          kS8, name + "RhsOffset" + Num(offset),
          [field, offset](QuantSetup* s) { (s->params.*field).weights_offset = offset; },
          EA_ERR_BAD_ARGUMENT);
    }
    for (const int32_t offset : {-129, 128}) {
      add(
          kS8, name + "OutputOffset" + Num(offset),
          [field, offset](QuantSetup* s) { (s->params.*field).output_offset = offset; },
          EA_ERR_BAD_ARGUMENT);
    }
    add(
        kS16, name + "RhsOffset1",
        [field](QuantSetup* s) { (s->params.*field).weights_offset = 1; }, EA_ERR_BAD_ARGUMENT);
    add(
        kS16, name + "OutputOffset1",
        [field](QuantSetup* s) { (s->params.*field).output_offset = 1; }, EA_ERR_BAD_ARGUMENT);
    if (!context) {
      for (const int32_t offset : {-128, 129}) {
        add(
            kS8, name + "LhsOffset" + Num(offset),
            [field, offset](QuantSetup* s) { (s->params.*field).input_offset = offset; },
            EA_ERR_BAD_ARGUMENT);
      }
      for (const int32_t offset : {-127, 128}) {
        add(
            kS8, name + "LhsOffset" + Num(offset) + "Accepted",
            [field, offset](QuantSetup* s) { (s->params.*field).input_offset = offset; }, EA_OK);
      }
      add(
          kS16, name + "LhsOffset1",
          [field](QuantSetup* s) { (s->params.*field).input_offset = 1; }, EA_ERR_BAD_ARGUMENT);
    }
  }
  // The context's left operand is the probabilities: zero point -128 (int8)
  // or 0 (int16), so its lhs_offset is 128 or 0 and nothing else.
  for (const int32_t offset : {127, 0, -128, 129}) {
    add(
        kS8, "ContextLhsOffset" + Num(offset),
        [offset](QuantSetup* s) { s->params.context.input_offset = offset; }, EA_ERR_BAD_ARGUMENT);
  }
  for (const int32_t offset : {1, -1, 128}) {
    add(
        kS16, "ContextLhsOffset" + Num(offset),
        [offset](QuantSetup* s) { s->params.context.input_offset = offset; }, EA_ERR_BAD_ARGUMENT);
  }

  // ADD (positions): left_shift in [0, 20] (int8) / [0, 15] (int16), the
  // shifts <= 0 and >= -31.
  add(
      kBoth, "AddLeftShiftMinus1", [](QuantSetup* s) { s->params.add.left_shift = -1; },
      EA_ERR_BAD_ARGUMENT);
  add(
      kS8, "AddLeftShift21", [](QuantSetup* s) { s->params.add.left_shift = 21; },
      EA_ERR_BAD_ARGUMENT);
  add(
      kS16, "AddLeftShift16", [](QuantSetup* s) { s->params.add.left_shift = 16; },
      EA_ERR_BAD_ARGUMENT);
  add(
      kBoth, "AddLeftShift0Accepted", [](QuantSetup* s) { s->params.add.left_shift = 0; }, EA_OK);
  const struct {
    const char* name;
    int32_t ea_add_quant_params::*field;
  } add_shifts[] = {{"Input1Shift", &ea_add_quant_params::input1_shift},
                    {"Input2Shift", &ea_add_quant_params::input2_shift},
                    {"OutputShift", &ea_add_quant_params::output_shift}};
  for (const auto& f : add_shifts) {
    const auto field = f.field;
    for (const int32_t shift : std::initializer_list<int32_t>{1, -32, kInt32Max}) {
      add(
          kBoth, std::string("Add") + f.name + Num(shift),
          [field, shift](QuantSetup* s) { s->params.add.*field = shift; }, EA_ERR_BAD_ARGUMENT);
    }
    for (const int32_t shift : {0, -31}) {
      add(
          kBoth, std::string("Add") + f.name + Num(shift) + "Accepted",
          [field, shift](QuantSetup* s) { s->params.add.*field = shift; }, EA_OK);
    }
  }
  const struct {
    const char* name;
    int32_t ea_add_quant_params::*field;
  } add_multipliers[] = {{"Input1Multiplier", &ea_add_quant_params::input1_multiplier},
                         {"Input2Multiplier", &ea_add_quant_params::input2_multiplier},
                         {"OutputMultiplier", &ea_add_quant_params::output_multiplier}};
  for (const auto& f : add_multipliers) {
    const auto field = f.field;
    add(
        kBoth, std::string("Add") + f.name + "Minus1",
        [field](QuantSetup* s) { s->params.add.*field = -1; }, EA_ERR_BAD_ARGUMENT);
  }
  add(
      kS8, "AddInput1Offset129", [](QuantSetup* s) { s->params.add.input1_offset = 129; },
      EA_ERR_BAD_ARGUMENT);
  add(
      kS8, "AddInput2OffsetMinus128", [](QuantSetup* s) { s->params.add.input2_offset = -128; },
      EA_ERR_BAD_ARGUMENT);
  add(
      kS8, "AddOutputOffset128", [](QuantSetup* s) { s->params.add.output_offset = 128; },
      EA_ERR_BAD_ARGUMENT);
  add(
      kS16, "AddInput1Offset1", [](QuantSetup* s) { s->params.add.input1_offset = 1; },
      EA_ERR_BAD_ARGUMENT);
  add(
      kS16, "AddOutputOffset1", [](QuantSetup* s) { s->params.add.output_offset = 1; },
      EA_ERR_BAD_ARGUMENT);
  // Without positions there is no ADD: its integers are ignored.
  add(
      kBoth, "AddIgnoredWithoutPositionsAccepted",
      [](QuantSetup* s) {
        s->config.position = EA_POSITION_NONE;
        s->params.add = ea_add_quant_params{-1, kInt32Min, -1, 99, kInt32Max, -1, 99, 7, -1, 5};
      },
      EA_OK);

  // SOFTMAX. int8: multiplier >= 0, left shift in [0, 31], diff_min <= 0,
  // and every difference down to max(diff_min, -255) times 2^left_shift
  // inside int32.
  add(
      kBoth, "SoftmaxMultiplierMinus1",
      [](QuantSetup* s) { s->params.softmax.input_multiplier = -1; }, EA_ERR_BAD_ARGUMENT);
  add(
      kBoth, "SoftmaxMultiplier0Accepted",
      [](QuantSetup* s) { s->params.softmax.input_multiplier = 0; }, EA_OK);
  const auto softmax = [](int32_t left_shift, int32_t diff_min) {
    return [left_shift, diff_min](QuantSetup* s) {
      s->params.softmax.input_left_shift = left_shift;
      s->params.softmax.diff_min = diff_min;
    };
  };
  add(kS8, "SoftmaxLeftShiftMinus1", softmax(-1, 0), EA_ERR_BAD_ARGUMENT);
  add(kS8, "SoftmaxLeftShift32", softmax(32, 0), EA_ERR_BAD_ARGUMENT);
  add(kS8, "SoftmaxDiffMin1", softmax(20, 1), EA_ERR_BAD_ARGUMENT);
  add(kS8, "SoftmaxLeftShift31DiffMin0Accepted", softmax(31, 0), EA_OK);
  add(kS8, "SoftmaxLeftShift31DiffMinMinus1", softmax(31, -1), EA_ERR_BAD_ARGUMENT);
  add(kS8, "SoftmaxLeftShift24DiffMinMinus128", softmax(24, -128), EA_ERR_BAD_ARGUMENT);
  add(kS8, "SoftmaxLeftShift24DiffMinMinus127Accepted", softmax(24, -127), EA_OK);
  add(kS8, "SoftmaxLeftShift0DiffMinInt32MinAccepted", softmax(0, kInt32Min), EA_OK);
  add(kS8, "SoftmaxLeftShift23DiffMinInt32MinAccepted", softmax(23, kInt32Min), EA_OK);
  add(kS8, "SoftmaxLeftShift24DiffMinInt32Min", softmax(24, kInt32Min), EA_ERR_BAD_ARGUMENT);
  // int16: the left shift is a requantisation shift in [-31, 30]; no diff_min.
  add(kS16, "SoftmaxLeftShiftMinus32", softmax(-32, 0), EA_ERR_BAD_ARGUMENT);
  add(kS16, "SoftmaxLeftShift31", softmax(31, 0), EA_ERR_BAD_ARGUMENT);
  add(kS16, "SoftmaxLeftShiftMinus31Accepted", softmax(-31, 0), EA_OK);
  add(kS16, "SoftmaxLeftShift30DiffMinIgnoredAccepted", softmax(30, kInt32Max), EA_OK);
  // A device's int16 tables: both or neither, int16 only, entries in
  // [0, 32767], exp at 0 (entry 511 interpolated 127/128 of the way to 512)
  // at least 16384.
  const auto tables = [](std::function<void(QuantSetup*)> change) {
    return [change](QuantSetup* s) {
      s->UseSoftmaxTables();
      change(s);
    };
  };
  l->Add(kS16, "SoftmaxTablesAccepted", tables([](QuantSetup*) {}), EA_OK, EA_OK, kNotCalled);
  l->Add(kS8, "SoftmaxTablesOfAnInt8Model", tables([](QuantSetup*) {}), EA_ERR_BAD_ARGUMENT,
         EA_ERR_BAD_ARGUMENT, kNotCalled);
  l->Add(kS16, "SoftmaxExpLutAlone",
         tables([](QuantSetup* s) { s->params.softmax.one_over_one_plus_x_lut = nullptr; }),
         EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT, kNotCalled);
  l->Add(kS16, "SoftmaxReciprocalLutAlone",
         tables([](QuantSetup* s) { s->params.softmax.exp_lut = nullptr; }), EA_ERR_BAD_ARGUMENT,
         EA_ERR_BAD_ARGUMENT, kNotCalled);
  l->Add(kS16, "SoftmaxExpLutFirstEntryMinus1", tables([](QuantSetup* s) { s->ExpLut()[0] = -1; }),
         EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT, kNotCalled);
  l->Add(kS16, "SoftmaxReciprocalLutLastEntryInt16Min",
         tables([](QuantSetup* s) { s->ReciprocalLut()[512] = INT16_MIN; }), EA_ERR_BAD_ARGUMENT,
         EA_ERR_BAD_ARGUMENT, kNotCalled);
  l->Add(kS16, "SoftmaxExpLutAllZero",
         tables([](QuantSetup* s) { std::fill(s->ExpLut(), s->ExpLut() + 513, int16_t{0}); }),
         EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT, kNotCalled);
  l->Add(kS16, "SoftmaxExpLut16383AtZero", tables([](QuantSetup* s) {
           s->ExpLut()[511] = 16383;
           s->ExpLut()[512] = 16383;
         }),
         EA_ERR_BAD_ARGUMENT, EA_ERR_BAD_ARGUMENT, kNotCalled);
  l->Add(kS16, "SoftmaxExpLut16384AtZeroAccepted", tables([](QuantSetup* s) {
           s->ExpLut()[511] = 16384;
           s->ExpLut()[512] = 16384;
         }),
         EA_OK, EA_OK, kNotCalled);
  l->Add(kS16, "SoftmaxReciprocalLutAllZeroAccepted", tables([](QuantSetup* s) {
           std::fill(s->ReciprocalLut(), s->ReciprocalLut() + 513, int16_t{0});
         }),
         EA_OK, EA_OK, kNotCalled);
}

// Biases: int8 takes any int32; int16 ones must lie in TFLite's int64
// accumulator domain [-2^47, 2^47). ea_mha_quant_arena_size sees no weights.
void BiasRows(CaseList* l) {
  const auto bias = [](size_t index, int64_t value) {
    return [index, value](QuantSetup* s) { s->SetBias(index, value); };
  };
  const size_t last = 4 * kE - 1;  // out_proj_bias's last
  for (const int64_t value : {kBiasLimit, -kBiasLimit - 1, std::numeric_limits<int64_t>::max(),
                              std::numeric_limits<int64_t>::min()}) {
    l->Add(kS16, "InProjBiasFirst" + Num(value), bias(0, value), EA_OK, EA_ERR_BAD_ARGUMENT,
           kNotCalled);
    l->Add(kS16, "OutProjBiasLast" + Num(value), bias(last, value), EA_OK, EA_ERR_BAD_ARGUMENT,
           kNotCalled);
  }
  for (const int64_t value : {kBiasLimit - 1, -kBiasLimit}) {
    l->Add(kS16, "InProjBiasLast" + Num(value) + "Accepted", bias(3 * kE - 1, value), EA_OK, EA_OK,
           kNotCalled);
    l->Add(kS16, "OutProjBiasFirst" + Num(value) + "Accepted", bias(3 * kE, value), EA_OK, EA_OK,
           kNotCalled);
  }
  for (const int64_t value : {int64_t{kInt32Min}, int64_t{kInt32Max}}) {
    l->Add(kS8, "InProjBiasFirst" + Num(value) + "Accepted", bias(0, value), EA_OK, EA_OK,
           kNotCalled);
  }
  l->Add(
      kBoth, "NoBiasesAccepted",
      [](QuantSetup* s) { s->weights.in_proj_bias = s->weights.out_proj_bias = nullptr; }, EA_OK,
      EA_OK, kNotCalled);
}

std::vector<QuantConfigCase> AllConfigCases() {
  CaseList list;
  ConfigRows(&list);
  ScaleRows(&list);
  ParamRows(&list);
  BiasRows(&list);
  return list.cases();
}

std::vector<QuantConfigCase> CasesFor(ea_status QuantConfigCase::*column) {
  std::vector<QuantConfigCase> chosen;
  for (const QuantConfigCase& c : AllConfigCases()) {
    if (c.*column != kNotCalled) chosen.push_back(c);
  }
  return chosen;
}

// Every accepted row also runs (integer paths on the boundary values) and
// carves exactly what ea_mha_quant_arena_size said.
void ExpectPlanRuns(QuantSetup* s, ea_mha_quant_plan* plan) {
  std::vector<uint8_t> y(s->TensorBytes(kTokens), kCanaryByte);
  std::vector<uint8_t> attn(s->WeightsBytes(kTokens), kCanaryByte);
  EXPECT_STATUS(RunTyped(s->dtype, plan, s->x.data(), kTokens, kTokens, y.data(), attn.data()),
                EA_OK);
  // Causal: every head's last row has every probability, row 0 one.
  EXPECT_NE(memcmp(y.data(), std::vector<uint8_t>(y.size(), kCanaryByte).data(), y.size()), 0);
}

class QuantMhaBadArenaSize : public testing::TestWithParam<QuantConfigCase> {};

TEST_P(QuantMhaBadArenaSize, StatusAndSizeUntouchedOnRefusal) {
  const QuantConfigCase& c = GetParam();
  QuantSetup s(c.dtype);
  c.arrange(&s);
  size_t bytes = 0;
  UntouchedBytes watched;
  watched.FillWithCanary("bytes", &bytes, sizeof(bytes));
  const ea_status status = ea_mha_quant_arena_size(&s.config, &bytes);
  if (c.size == kOkOrAsPlan) {
    if (status == EA_OK) return;
    EXPECT_STATUS(status, c.plan);
  } else {
    EXPECT_STATUS(status, c.size);
    if (status == EA_OK) return;
  }
  watched.ExpectUntouched();
}
INSTANTIATE_TEST_SUITE_P(QuantMha, QuantMhaBadArenaSize,
                         testing::ValuesIn(CasesFor(&QuantConfigCase::size)), CaseName());

// What a init may not change, recorded after the row's arrange.
void WatchPlanInputs(QuantSetup* s, UntouchedBytes* watched) {
  watched->Remember("weights", s->weight_block.data(), s->weight_block.size());
  watched->Remember("biases", s->bias_block.data(), s->bias_block.size());
  watched->Remember("table", s->table_block.data(), s->table_block.size());
  watched->Remember("softmax tables", s->lut_block.data(), s->lut_block.size() * 2);
  watched->Remember("scales struct", &s->scales, sizeof(s->scales));
  watched->Remember("in_proj weight scales", s->in_scales.data(), s->in_scales.size() * 4);
  watched->Remember("out_proj weight scales", s->out_scales.data(), s->out_scales.size() * 4);
  watched->Remember("params struct", &s->params, sizeof(s->params));
  for (int l = 0; l < 4; ++l) {
    watched->Remember("given multipliers", s->mult[l].data(), s->mult[l].size() * 4);
    watched->Remember("given shifts", s->shift[l].data(), s->shift[l].size() * 4);
  }
}

class QuantMhaBadPlanInitConfig : public testing::TestWithParam<QuantConfigCase> {};

TEST_P(QuantMhaBadPlanInitConfig, StatusAndNothingWrittenOnRefusal) {
  const QuantConfigCase& c = GetParam();
  QuantSetup s(c.dtype);
  c.arrange(&s);
  AlignedBytes storage(kArenaBytes, kCanaryByte);
  ea_arena arena{};
  ASSERT_STATUS(ea_arena_init(&arena, storage.data(), storage.size()), EA_OK);
  ea_mha_quant_plan plan;
  UntouchedBytes watched;
  watched.FillWithCanary("plan", &plan, sizeof(plan));
  watched.Remember("arena struct", &arena, sizeof(arena));
  watched.Remember("arena buffer", storage.data(), storage.size());
  WatchPlanInputs(&s, &watched);
  const ea_status status = ea_mha_quant_init(&plan, &s.config, &s.weights, &arena);
  EXPECT_STATUS(status, c.plan);
  if (status == EA_OK) {
    size_t bytes = 0;
    ASSERT_STATUS(ea_mha_quant_arena_size(&s.config, &bytes), EA_OK);
    EXPECT_EQ(arena.used, bytes);
    ExpectPlanRuns(&s, &plan);
    return;
  }
  EXPECT_EQ(plan.ready, 0u) << "a refused init must leave the plan not ready";
  memset(&plan.ready, kCanaryByte, sizeof(plan.ready));
  EXPECT_EQ(arena.used, 0u);
  watched.ExpectUntouched();
}
INSTANTIATE_TEST_SUITE_P(QuantMha, QuantMhaBadPlanInitConfig,
                         testing::ValuesIn(CasesFor(&QuantConfigCase::plan)), CaseName());

class QuantMhaBadDerive : public testing::TestWithParam<QuantConfigCase> {};

// "On any error no output byte is written": neither *params nor channel_ints.
TEST_P(QuantMhaBadDerive, StatusAndParamsAndChannelsUntouchedOnRefusal) {
  const QuantConfigCase& c = GetParam();
  QuantSetup s(c.dtype);
  c.arrange(&s);
  const size_t count = EA_MHA_QUANT_CHANNEL_INTS(kDModel);
  std::vector<int32_t> channels(count + 16);
  ea_mha_quant_params params;
  UntouchedBytes watched;
  watched.FillWithCanary("params", &params, sizeof(params));
  watched.FillWithCanary("channel ints", channels.data(), channels.size() * 4);
  WatchPlanInputs(&s, &watched);
  const ea_status status = ea_mha_quant_derive(&s.config, &params, channels.data(), count);
  EXPECT_STATUS(status, c.derive);
  if (status != EA_OK) {
    watched.ExpectUntouched();
    return;
  }
  // Only the first 8 d_model ints are the function's; the arrays point there.
  for (size_t i = count; i < channels.size(); ++i) {
    EXPECT_EQ(static_cast<uint32_t>(channels[i]), 0xA5A5A5A5u) << "channel int " << i;
  }
  const int32_t* begin = channels.data();
  const int32_t* end = channels.data() + count;
  for (const ea_linear_quant_params* p :
       {&params.q_proj, &params.k_proj, &params.v_proj, &params.out_proj}) {
    EXPECT_TRUE(p->output_multiplier >= begin && p->output_multiplier + kE <= end);
    EXPECT_TRUE(p->output_shift >= begin && p->output_shift + kE <= end);
  }
}
INSTANTIATE_TEST_SUITE_P(QuantMha, QuantMhaBadDerive,
                         testing::ValuesIn(CasesFor(&QuantConfigCase::derive)), CaseName());

// q and k at 1e20 are valid scales, but their product, which TFLite's
// BATCH_MATMUL Prepare (and the library) form in float, is +inf: the real
// multiplier q k / scores is infinite. TFLite's QuantizeMultiplier is then
// undefined (an infinite double converted to int64); the result must be a
// refusal or the saturated multiplier, never a multiplier of 0 (which turns
// the largest scores into the zero point).
TEST(QuantMhaDerive, InfiniteScoreMultiplierIsRefusedOrSaturated) {
  for (const ea_dtype dtype : kBoth) {
    SCOPED_TRACE(DtypeName(dtype));
    QuantSetup s(dtype);
    s.scales.q.scale = 1e20f;
    s.scales.k.scale = 1e20f;
    std::vector<int32_t> channels(EA_MHA_QUANT_CHANNEL_INTS(kDModel));
    ea_mha_quant_params params{};
    const ea_status status =
        ea_mha_quant_derive(&s.config, &params, channels.data(), channels.size());
    if (status != EA_OK) {
      EXPECT_STATUS(status, EA_ERR_BAD_ARGUMENT);
      continue;
    }
    EXPECT_EQ(dtype, EA_DTYPE_INT8) << "int16 shifts stop at 7: a saturated multiplier is refused";
    EXPECT_EQ(params.scores.output_multiplier, kInt32Max);
    EXPECT_EQ(params.scores.output_shift, 30);
  }
}

// ---------------------------------------------- derive's own pointer rules

TEST(QuantMhaDeriveArguments, NullPointersAndShortChannelBuffer) {
  for (const ea_dtype dtype : kBoth) {
    SCOPED_TRACE(DtypeName(dtype));
    QuantSetup s(dtype);
    const size_t count = EA_MHA_QUANT_CHANNEL_INTS(kDModel);
    std::vector<int32_t> channels(count);
    ea_mha_quant_params params;
    UntouchedBytes watched;
    watched.FillWithCanary("params", &params, sizeof(params));
    watched.FillWithCanary("channel ints", channels.data(), channels.size() * 4);
    EXPECT_STATUS(ea_mha_quant_derive(nullptr, &params, channels.data(), count),
                  EA_ERR_NULL_POINTER);
    EXPECT_STATUS(ea_mha_quant_derive(&s.config, nullptr, channels.data(), count),
                  EA_ERR_NULL_POINTER);
    EXPECT_STATUS(ea_mha_quant_derive(&s.config, &params, nullptr, count), EA_ERR_NULL_POINTER);
    // Fewer than EA_MHA_QUANT_CHANNEL_INTS(d_model) ints (the header names
    // no status for this; the code returns EA_ERR_ARENA_TOO_SMALL).
    EXPECT_STATUS(ea_mha_quant_derive(&s.config, &params, channels.data(), count - 1),
                  EA_ERR_ARENA_TOO_SMALL);
    EXPECT_STATUS(ea_mha_quant_derive(&s.config, &params, channels.data(), 0),
                  EA_ERR_ARENA_TOO_SMALL);
    watched.ExpectUntouched();
    EXPECT_STATUS(ea_mha_quant_derive(&s.config, &params, channels.data(), count), EA_OK);
  }
}

// ---------------------------------------- init's pointer and arena rules

struct PlanInitArgs {
  explicit PlanInitArgs(ea_dtype dtype) : s(dtype) {
    ea_arena_init(&arena, storage.data(), storage.size());
  }
  QuantSetup s;
  AlignedBytes storage{kArenaBytes, kCanaryByte};
  ea_arena arena{};
  ea_mha_quant_plan plan{};
  ea_mha_quant_plan* plan_arg = &plan;
  const ea_mha_config* config_arg = &s.config;
  const ea_mha_quant_weights* weights_arg = &s.weights;
  ea_arena* arena_arg = &arena;

  size_t Needed() {
    size_t bytes = 0;
    if (ea_mha_quant_arena_size(&s.config, &bytes) != EA_OK) ADD_FAILURE() << "arena size";
    return bytes;
  }
  // The plan's carve starts at the arena's next free byte: copies of a
  // caller tensor at `offset` bytes into it (or before it, negative).
  uint8_t* InArena(int64_t offset, const void* data, size_t bytes) {
    uint8_t* at = arena.base + arena.used + offset;
    memcpy(at, data, bytes);
    return at;
  }
  // A copy of a caller tensor `skew` bytes past an aligned address, outside
  // the arena: legal C for the void* tensors, which the plan must refuse
  // rather than read through a misaligned int32/int64/int16 pointer.
  AlignedBytes loose{kArenaBytes, 0};
  uint8_t* Skewed(size_t skew, const void* data, size_t bytes) {
    uint8_t* at = loose.data() + skew;
    memcpy(at, data, bytes);
    return at;
  }
};

struct PlanInitCase {
  std::string name;
  ea_dtype dtype;
  std::function<void(PlanInitArgs*)> arrange;
  ea_status expected;
};
void PrintTo(const PlanInitCase& c, std::ostream* os) { *os << c.name; }

std::vector<PlanInitCase> PlanInitCases() {
  std::vector<PlanInitCase> cases;
  const auto add = [&](const std::string& name, std::function<void(PlanInitArgs*)> arrange,
                       ea_status expected) {
    for (const ea_dtype dtype : kBoth) {
      cases.push_back({std::string(DtypeName(dtype)) + "_" + name, dtype, arrange, expected});
    }
  };
  add(
      "NullConfig", [](PlanInitArgs* a) { a->config_arg = nullptr; }, EA_ERR_NULL_POINTER);
  add(
      "NullWeights", [](PlanInitArgs* a) { a->weights_arg = nullptr; }, EA_ERR_NULL_POINTER);
  add(
      "NullArena", [](PlanInitArgs* a) { a->arena_arg = nullptr; }, EA_ERR_NULL_POINTER);
  add(
      "NullInProjWeight", [](PlanInitArgs* a) { a->s.weights.in_proj_weight = nullptr; },
      EA_ERR_NULL_POINTER);
  add(
      "NullOutProjWeight", [](PlanInitArgs* a) { a->s.weights.out_proj_weight = nullptr; },
      EA_ERR_NULL_POINTER);
  // W_Q, W_K, W_V as in_proj or as three tensors, never both.
  add(
      "InProjAndQProjWeight", [](PlanInitArgs* a) { a->s.weights.q_proj_weight = a->s.InProj(); },
      EA_ERR_BAD_ARGUMENT);
  add(
      "InProjAndVProjBias", [](PlanInitArgs* a) { a->s.weights.v_proj_bias = a->s.InBias(); },
      EA_ERR_BAD_ARGUMENT);
  const auto separate = [](PlanInitArgs* a) {
    a->s.weights.in_proj_weight = nullptr;
    a->s.weights.q_proj_weight = a->s.InProj();
    a->s.weights.k_proj_weight = a->s.InProj() + kE * kE;
    a->s.weights.v_proj_weight = a->s.InProj() + 2 * kE * kE;
  };
  add(
      "SeparateWithoutKProjWeight",
      [separate](PlanInitArgs* a) {
        separate(a);
        a->s.weights.in_proj_bias = nullptr;
        a->s.weights.k_proj_weight = nullptr;
      },
      EA_ERR_NULL_POINTER);
  // The biases' form is independent of the weights' (PyTorch's kdim form:
  // three weights, one in_proj_bias), never both forms of the biases.
  add(
      "SeparateWithTheInProjBiasAccepted", [separate](PlanInitArgs* a) { separate(a); }, EA_OK);
  add(
      "SeparateWithTheInProjBiasAndKProjBias",
      [separate](PlanInitArgs* a) {
        separate(a);
        a->s.weights.k_proj_bias = a->s.InBias();
      },
      EA_ERR_BAD_ARGUMENT);
  add(
      "InProjWithThreeBiasesAccepted",
      [](PlanInitArgs* a) {
        a->s.weights.q_proj_bias = a->s.InBias();
        a->s.weights.k_proj_bias = a->s.InBias() + kE * a->s.BiasBytes();
        a->s.weights.v_proj_bias = a->s.InBias() + 2 * kE * a->s.BiasBytes();
        a->s.weights.in_proj_bias = nullptr;
      },
      EA_OK);
  add(
      "ArenaZeroCapacity", [](PlanInitArgs* a) { a->arena.capacity = 0; }, EA_ERR_ARENA_TOO_SMALL);
  add(
      "ArenaShortByOneByte", [](PlanInitArgs* a) { a->arena.capacity = a->Needed() - 1; },
      EA_ERR_ARENA_TOO_SMALL);
  add(
      "ArenaShortByOneGranule",
      [](PlanInitArgs* a) { a->arena.capacity = a->Needed() - EA_ARENA_ALIGNMENT; },
      EA_ERR_ARENA_TOO_SMALL);
  add(
      "ArenaPartlyUsed",
      [](PlanInitArgs* a) {
        a->arena.used = 1024;
        a->arena.capacity = 1024 + a->Needed() - 1;
      },
      EA_ERR_ARENA_TOO_SMALL);
  add(
      "ArenaUsedNotAligned", [](PlanInitArgs* a) { a->arena.used = 4; }, EA_ERR_ARENA_MISALIGNED);
  add(
      "ArenaBaseMisaligned",
      [](PlanInitArgs* a) {
        a->arena.base += 1;
        a->arena.capacity -= 1;
      },
      EA_ERR_ARENA_MISALIGNED);
  add(
      "ArenaUsedAboveCapacity",
      [](PlanInitArgs* a) {
        a->arena.capacity = 4096;
        a->arena.used = 4096 + 64;
      },
      EA_ERR_BAD_ARGUMENT);
  // What the plan references must lie outside what it carves.
  add(
      "InProjWeightInTheCarve",
      [](PlanInitArgs* a) {
        a->s.weights.in_proj_weight =
            reinterpret_cast<int8_t*>(a->InArena(64, a->s.InProj(), 3 * kE * kE));
      },
      EA_ERR_BAD_ARGUMENT);
  add(
      "OutProjWeightAtTheCarveEnd",
      [](PlanInitArgs* a) {
        a->s.weights.out_proj_weight = reinterpret_cast<int8_t*>(
            a->InArena(static_cast<int64_t>(a->Needed()) - 1, a->s.OutProj(), kE * kE));
      },
      EA_ERR_BAD_ARGUMENT);
  add(
      "InProjBiasInTheCarve",
      [](PlanInitArgs* a) {
        a->s.weights.in_proj_bias = a->InArena(128, a->s.InBias(), 3 * kE * a->s.BiasBytes());
      },
      EA_ERR_BAD_ARGUMENT);
  add(
      "OutProjBiasInTheCarve",
      [](PlanInitArgs* a) {
        a->s.weights.out_proj_bias = a->InArena(256, a->s.OutBias(), kE * a->s.BiasBytes());
      },
      EA_ERR_BAD_ARGUMENT);
  add(
      "LearnedTableInTheCarve",
      [](PlanInitArgs* a) {
        a->s.UseLearnedTable();
        a->s.config.quant_position_table =
            a->InArena(0, a->s.table_block.data(), a->s.TensorBytes(kTokens));
      },
      EA_ERR_BAD_ARGUMENT);
  // Biases and the table reach the plan as void*: a misaligned one is
  // refused before it is read (the fuzzer's finding on 0.19.0: an int64 bias
  // 4 bytes off its alignment was read by the range check).
  add(
      "InProjBiasHalfAnElementOff",
      [](PlanInitArgs* a) {
        a->s.weights.in_proj_bias =
            a->Skewed(a->s.BiasBytes() / 2, a->s.InBias(), 3 * kE * a->s.BiasBytes());
      },
      EA_ERR_BAD_ARGUMENT);
  add(
      "OutProjBiasOneByteOff",
      [](PlanInitArgs* a) {
        a->s.weights.out_proj_bias = a->Skewed(1, a->s.OutBias(), kE * a->s.BiasBytes());
      },
      EA_ERR_BAD_ARGUMENT);
  // One byte off suits an int8 table, not an int16 one.
  const auto table_one_byte_off = [](PlanInitArgs* a) {
    a->s.UseLearnedTable();
    a->s.config.quant_position_table =
        a->Skewed(1, a->s.table_block.data(), a->s.TensorBytes(kTokens));
  };
  cases.push_back({"S8_LearnedTableOneByteOffAccepted", EA_DTYPE_INT8, table_one_byte_off, EA_OK});
  cases.push_back(
      {"S16_LearnedTableOneByteOff", EA_DTYPE_INT16, table_one_byte_off, EA_ERR_BAD_ARGUMENT});
  // The int16 softmax's tables are read in place, so not from the carve; just
  // past it is fine.
  const auto exp_lut_at = [](bool in_carve) {
    return [in_carve](PlanInitArgs* a) {
      a->s.UseSoftmaxTables();
      const int64_t offset = in_carve ? 64 : static_cast<int64_t>(a->Needed());
      a->s.params.softmax.exp_lut =
          reinterpret_cast<int16_t*>(a->InArena(offset, a->s.ExpLut(), 513 * sizeof(int16_t)));
    };
  };
  cases.push_back(
      {"S16_SoftmaxExpLutInTheCarve", EA_DTYPE_INT16, exp_lut_at(true), EA_ERR_BAD_ARGUMENT});
  cases.push_back(
      {"S16_SoftmaxExpLutAfterTheCarveAccepted", EA_DTYPE_INT16, exp_lut_at(false), EA_OK});
  // A table the position mode never reads (NONE) holds nothing the plan
  // keeps: its bytes may be the carve's (the fuzzer's finding on 0.10.0).
  add(
      "UnreadTableInTheCarveAccepted",
      [](PlanInitArgs* a) {
        a->s.config.position = EA_POSITION_NONE;
        a->s.config.quant_position_table =
            a->InArena(0, a->s.table_block.data(), a->s.TensorBytes(kTokens));
      },
      EA_OK);
  // Outside the carve: before it (an earlier plan's bytes) or after it.
  add(
      "WeightsBeforeTheCarveAccepted",
      [](PlanInitArgs* a) {
        a->arena.used = 4 * kE * kE + 64 * 4;
        a->s.weights.in_proj_weight = reinterpret_cast<int8_t*>(
            a->InArena(-static_cast<int64_t>(4 * kE * kE), a->s.InProj(), 3 * kE * kE));
      },
      EA_OK);
  add(
      "TableAfterTheCarveAccepted",
      [](PlanInitArgs* a) {
        a->s.UseLearnedTable();
        a->s.config.quant_position_table = a->InArena(
            static_cast<int64_t>(a->Needed()), a->s.table_block.data(), a->s.TensorBytes(kTokens));
      },
      EA_OK);
  return cases;
}

class QuantMhaBadPlanInit : public testing::TestWithParam<PlanInitCase> {};

TEST_P(QuantMhaBadPlanInit, StatusAndNothingWrittenOnRefusal) {
  const PlanInitCase& c = GetParam();
  PlanInitArgs a(c.dtype);
  c.arrange(&a);
  const size_t used_before = a.arena.used;
  UntouchedBytes watched;
  watched.FillWithCanary("plan", &a.plan, sizeof(a.plan));
  watched.Remember("arena struct", &a.arena, sizeof(a.arena));
  watched.Remember("arena buffer", a.storage.data(), a.storage.size());
  WatchPlanInputs(&a.s, &watched);
  const ea_status status = ea_mha_quant_init(a.plan_arg, a.config_arg, a.weights_arg, a.arena_arg);
  EXPECT_STATUS(status, c.expected);
  if (status == EA_OK) {
    EXPECT_EQ(a.arena.used - used_before, a.Needed());
    ExpectPlanRuns(&a.s, &a.plan);
    return;
  }
  EXPECT_EQ(a.plan.ready, 0u) << "a refused init must leave the plan not ready";
  memset(&a.plan.ready, kCanaryByte, sizeof(a.plan.ready));
  EXPECT_EQ(a.arena.used, used_before);
  watched.ExpectUntouched();
}
INSTANTIATE_TEST_SUITE_P(QuantMha, QuantMhaBadPlanInit, testing::ValuesIn(PlanInitCases()),
                         CaseName());

TEST(QuantMhaPlanInit, NullPlan) {
  QuantSetup s(EA_DTYPE_INT8);
  AlignedBytes storage(kArenaBytes);
  ea_arena arena{};
  ASSERT_STATUS(ea_arena_init(&arena, storage.data(), storage.size()), EA_OK);
  EXPECT_STATUS(ea_mha_quant_init(nullptr, &s.config, &s.weights, &arena), EA_ERR_NULL_POINTER);
  EXPECT_EQ(arena.used, 0u);
}

// A failed re-plan of a ready plan leaves it refused by run.
TEST(QuantMhaPlanInit, FailedReplanOfAReadyPlanIsNotRunnable) {
  for (const ea_dtype dtype : kBoth) {
    PlanInitArgs a(dtype);
    ASSERT_STATUS(ea_mha_quant_init(&a.plan, &a.s.config, &a.s.weights, &a.arena), EA_OK);
    const size_t used = a.arena.used;
    ea_mha_config bad = a.s.config;
    bad.n_heads = 5;
    EXPECT_STATUS(ea_mha_quant_init(&a.plan, &bad, &a.s.weights, &a.arena), EA_ERR_HEADS_MISMATCH);
    EXPECT_EQ(a.arena.used, used);
    std::vector<uint8_t> y(a.s.TensorBytes(kTokens), kCanaryByte);
    const std::vector<uint8_t> canary = y;
    EXPECT_STATUS(RunTyped(dtype, &a.plan, a.s.x.data(), kTokens, kTokens, y.data(), nullptr),
                  EA_ERR_BAD_ARGUMENT);
    EXPECT_EQ(y, canary);
  }
}

// The plan-time sinusoid's quantization in the integers: given integers
// without quant_scales give the bits of the plan that derives everything from
// the scales; the integers' position wins over the scales', and an all-zero
// one falls back to the scales' (each read: changing it changes y).
TEST(QuantMhaPositionQuantization, GivenIntegersQuantizeThePlanTimeTable) {
  for (const ea_dtype dtype : kBoth) {
    SCOPED_TRACE(DtypeName(dtype));
    QuantSetup derived(dtype);
    const Outputs want = PlanAndRun(&derived);
    ASSERT_STATUS(want.status, EA_OK);

    QuantSetup alone(dtype);
    alone.UseGivenParams(true);
    alone.config.quant_scales = nullptr;
    const Outputs without_scales = PlanAndRun(&alone);
    ASSERT_STATUS(without_scales.status, EA_OK);
    EXPECT_EQ(without_scales.y, want.y);
    EXPECT_EQ(without_scales.attn_weights, want.attn_weights);

    QuantSetup both(dtype);
    both.UseGivenParams(true);
    both.scales.position.scale *= 2.0f;  // not read: the integers carry the table's
    const Outputs integers_win = PlanAndRun(&both);
    ASSERT_STATUS(integers_win.status, EA_OK);
    EXPECT_EQ(integers_win.y, want.y);

    both.params.position = ea_quant{};  // not given: the (changed) scales' is read
    const Outputs from_scales = PlanAndRun(&both);
    ASSERT_STATUS(from_scales.status, EA_OK);
    EXPECT_NE(from_scales.y, want.y);

    alone.params.position.scale *= 2.0f;  // the integers' is read
    const Outputs changed = PlanAndRun(&alone);
    ASSERT_STATUS(changed.status, EA_OK);
    EXPECT_EQ(changed.y, from_scales.y);
  }
}

// ------------------------------------------------------------------- runs

enum class Buffer { kX, kY, kAttn };

struct RunArgs {
  RunArgs(ea_dtype dtype, bool learned) : s(dtype) {
    if (learned) s.UseLearnedTable();
    ea_arena_init(&arena, storage.data(), storage.size());
    plan_status = ea_mha_quant_init(&plan, &s.config, &s.weights, &arena);
    y.assign(s.TensorBytes(kTokens) + kBlockSlack, kCanaryByte);
    attn.assign(s.WeightsBytes(kTokens) + kBlockSlack, kCanaryByte);
    x_arg = s.x.data();
    y_arg = y.data();
    attn_arg = attn.data();
    run_dtype = dtype;
  }
  QuantSetup s;
  AlignedBytes storage{kArenaBytes, kCanaryByte};
  ea_arena arena{};
  ea_mha_quant_plan plan{};
  ea_mha_quant_plan never_planned{};
  ea_status plan_status = EA_ERR_BAD_ARGUMENT;
  std::vector<uint8_t> y, attn;
  std::vector<uint8_t> shared = std::vector<uint8_t>(4096, kCanaryByte);
  const ea_mha_quant_plan* plan_arg = &plan;
  ea_dtype run_dtype;
  const void* x_arg;
  int32_t n_tokens = kTokens;
  bool padded = false;  // n_valid_keys as set; else n_tokens (no padding)
  int32_t n_valid_keys = 0;
  void* y_arg;
  void* attn_arg;

  void Pad(int32_t valid) {
    padded = true;
    n_valid_keys = valid;
  }
  // The plan's arena regions: the arena's first CarveBytes() bytes.
  uint8_t* Carve(size_t offset) { return storage.data() + offset; }
  size_t CarveBytes() const { return arena.used; }
};

struct RunCase {
  std::string name;
  ea_dtype dtype;
  bool learned;
  std::function<void(RunArgs*)> arrange;
  ea_status expected;
};
void PrintTo(const RunCase& c, std::ostream* os) { *os << c.name; }

std::vector<RunCase> RunCases() {
  std::vector<RunCase> cases;
  const auto add = [&](const std::string& name, std::function<void(RunArgs*)> arrange,
                       ea_status expected, bool learned = false) {
    for (const ea_dtype dtype : kBoth) {
      cases.push_back(
          {std::string(DtypeName(dtype)) + "_" + name, dtype, learned, arrange, expected});
    }
  };
  add(
      "NullPlan", [](RunArgs* a) { a->plan_arg = nullptr; }, EA_ERR_NULL_POINTER);
  add(
      "NullX", [](RunArgs* a) { a->x_arg = nullptr; }, EA_ERR_NULL_POINTER);
  add(
      "NullY", [](RunArgs* a) { a->y_arg = nullptr; }, EA_ERR_NULL_POINTER);
  add(
      "NeverPlanned", [](RunArgs* a) { a->plan_arg = &a->never_planned; }, EA_ERR_BAD_ARGUMENT);
  add(
      "PlanWhoseInitFailed",
      [](RunArgs* a) {
        ea_mha_config bad = a->s.config;
        bad.n_heads = 5;
        ea_mha_quant_init(&a->never_planned, &bad, &a->s.weights, &a->arena);
        a->plan_arg = &a->never_planned;
      },
      EA_ERR_BAD_ARGUMENT);
  // ea_mha_quant_run_s8 on an INT16 plan and ea_mha_quant_run_s16 on an INT8 one.
  add(
      "OtherDtypesRunFunction",
      [](RunArgs* a) {
        a->run_dtype = a->s.dtype == EA_DTYPE_INT8 ? EA_DTYPE_INT16 : EA_DTYPE_INT8;
      },
      EA_ERR_BAD_ARGUMENT);
  add(
      "NTokensZero", [](RunArgs* a) { a->n_tokens = 0; }, EA_ERR_BAD_DIMENSION);
  add(
      "NTokensNegative", [](RunArgs* a) { a->n_tokens = -1; }, EA_ERR_BAD_DIMENSION);
  add(
      "NTokensInt32Min", [](RunArgs* a) { a->n_tokens = kInt32Min; }, EA_ERR_BAD_DIMENSION);
  add(
      "NTokensAboveMaxTokens", [](RunArgs* a) { a->n_tokens = kTokens + 1; }, EA_ERR_BAD_DIMENSION);
  add(
      "NTokensInt32Max", [](RunArgs* a) { a->n_tokens = kInt32Max; }, EA_ERR_BAD_DIMENSION);
  add(
      "ValidKeysNegative", [](RunArgs* a) { a->Pad(-1); }, EA_ERR_BAD_ARGUMENT);
  add(
      "ValidKeysInt32Min", [](RunArgs* a) { a->Pad(kInt32Min); }, EA_ERR_BAD_ARGUMENT);
  add(
      "ValidKeysAboveNTokens",
      [](RunArgs* a) {
        a->n_tokens = kTokens - 1;
        a->Pad(kTokens);
      },
      EA_ERR_BAD_ARGUMENT);
  add(
      "ValidKeysInt32Max", [](RunArgs* a) { a->Pad(kInt32Max); }, EA_ERR_BAD_ARGUMENT);
  // Outputs over each other.
  add(
      "YOverAttnWeights",
      [](RunArgs* a) {
        a->y_arg = a->shared.data();
        a->attn_arg = a->shared.data() + a->s.TensorBytes(kTokens) - 2;
      },
      EA_ERR_BAD_ARGUMENT);
  add(
      "AttnWeightsOverYsLastByte",
      [](RunArgs* a) {
        a->attn_arg = a->shared.data();
        a->y_arg = a->shared.data() + a->s.WeightsBytes(kTokens) - 2;
      },
      EA_ERR_BAD_ARGUMENT);
  add(
      "YIsAttnWeights", [](RunArgs* a) { a->attn_arg = a->y_arg; }, EA_ERR_BAD_ARGUMENT);
  // Outputs over what the plan reads: weights, biases, the table.
  add(
      "YOverInProjWeight", [](RunArgs* a) { a->y_arg = a->s.InProj() + 2 * kE * kE; },
      EA_ERR_BAD_ARGUMENT);
  add(
      "YOverOutProjWeight", [](RunArgs* a) { a->y_arg = a->s.OutProj() + kE * kE - 2; },
      EA_ERR_BAD_ARGUMENT);
  add(
      "AttnWeightsOverOutProjWeight", [](RunArgs* a) { a->attn_arg = a->s.OutProj(); },
      EA_ERR_BAD_ARGUMENT);
  add(
      "YOverInProjBias", [](RunArgs* a) { a->y_arg = a->s.InBias() + 16; }, EA_ERR_BAD_ARGUMENT);
  add(
      "AttnWeightsOverOutProjBias", [](RunArgs* a) { a->attn_arg = a->s.OutBias(); },
      EA_ERR_BAD_ARGUMENT);
  add(
      "YOverLearnedTable", [](RunArgs* a) { a->y_arg = a->s.table_block.data(); },
      EA_ERR_BAD_ARGUMENT, true);
  // The int16 softmax's tables, in a plan that reads them.
  const auto over_softmax_table = [](bool y, int16_t* (QuantSetup::*table)()) {
    return [y, table](RunArgs* a) {
      a->s.UseSoftmaxTables();
      ea_arena_init(&a->arena, a->storage.data(), a->storage.size());
      a->plan_status = ea_mha_quant_init(&a->plan, &a->s.config, &a->s.weights, &a->arena);
      void* over = (a->s.*table)() + 500;
      (y ? a->y_arg : a->attn_arg) = over;
    };
  };
  for (const bool y : {true, false}) {
    const std::string output = y ? "Y" : "AttnWeights";
    cases.push_back({"S16_" + output + "OverSoftmaxExpLut", EA_DTYPE_INT16, false,
                     over_softmax_table(y, &QuantSetup::ExpLut), EA_ERR_BAD_ARGUMENT});
    cases.push_back({"S16_" + output + "OverSoftmaxReciprocalLut", EA_DTYPE_INT16, false,
                     over_softmax_table(y, &QuantSetup::ReciprocalLut), EA_ERR_BAD_ARGUMENT});
  }
  add(
      "AttnWeightsOverLearnedTableEnd",
      [](RunArgs* a) { a->attn_arg = a->s.table_block.data() + a->s.TensorBytes(kTokens) - 2; },
      EA_ERR_BAD_ARGUMENT, true);
  // The plan's arena regions: neither output, nor x.
  add(
      "YInTheCarve", [](RunArgs* a) { a->y_arg = a->Carve(0); }, EA_ERR_BAD_ARGUMENT);
  add(
      "YOverTheCarvesLastByte", [](RunArgs* a) { a->y_arg = a->Carve(a->CarveBytes() - 2); },
      EA_ERR_BAD_ARGUMENT);
  add(
      "AttnWeightsInTheCarve", [](RunArgs* a) { a->attn_arg = a->Carve(512); },
      EA_ERR_BAD_ARGUMENT);
  add(
      "XInTheCarve",
      [](RunArgs* a) {
        memcpy(a->Carve(64), a->s.x.data(), a->s.x.size());
        a->x_arg = a->Carve(64);
      },
      EA_ERR_BAD_ARGUMENT);
  add(
      "XOverTheCarvesLastByte",
      [](RunArgs* a) {
        uint8_t* at = a->Carve(a->CarveBytes() - 2);
        memcpy(at, a->s.x.data(), a->s.x.size());
        a->x_arg = at;
      },
      EA_ERR_BAD_ARGUMENT);
  // Accepted: in place, no weights, one token, outputs in the arena's free
  // bytes after the plan.
  add(
      "InPlace", [](RunArgs* a) { a->y_arg = const_cast<uint8_t*>(a->s.x.data()); }, EA_OK);
  add(
      "NoAttnWeights", [](RunArgs* a) { a->attn_arg = nullptr; }, EA_OK);
  add(
      "OneToken", [](RunArgs* a) { a->n_tokens = 1; }, EA_OK);
  add(
      "NoValidKey", [](RunArgs* a) { a->Pad(0); }, EA_OK);
  add(
      "OutputsAfterTheCarve",
      [](RunArgs* a) {
        a->y_arg = a->Carve(a->CarveBytes());
        a->attn_arg = a->Carve(a->CarveBytes() + 1024);
      },
      EA_OK);
  add(
      "LearnedTableNextToOutputs",
      [](RunArgs* a) { a->y_arg = a->s.table_block.data() + a->s.TensorBytes(kTokens); }, EA_OK,
      true);
  return cases;
}

class QuantMhaBadRun : public testing::TestWithParam<RunCase> {};

TEST_P(QuantMhaBadRun, StatusAndNoOutputWrittenOnRefusal) {
  const RunCase& c = GetParam();
  RunArgs a(c.dtype, c.learned);
  ASSERT_STATUS(a.plan_status, EA_OK);
  c.arrange(&a);
  UntouchedBytes watched;
  watched.Remember("y", a.y.data(), a.y.size());
  watched.Remember("attn_weights", a.attn.data(), a.attn.size());
  watched.Remember("shared", a.shared.data(), a.shared.size());
  watched.Remember("x", a.s.x.data(), a.s.x.size());
  watched.Remember("plan", &a.plan, sizeof(a.plan));
  watched.Remember("arena buffer", a.storage.data(), a.storage.size());
  watched.Remember("weights", a.s.weight_block.data(), a.s.weight_block.size());
  watched.Remember("biases", a.s.bias_block.data(), a.s.bias_block.size());
  watched.Remember("table", a.s.table_block.data(), a.s.table_block.size());
  watched.Remember("softmax tables", a.s.lut_block.data(), a.s.lut_block.size() * 2);
  ASSERT_STATUS(a.plan_status, EA_OK);  // the arrange may plan again
  const int32_t valid = a.padded ? a.n_valid_keys : a.n_tokens;
  const ea_status status =
      RunTyped(a.run_dtype, a.plan_arg, a.x_arg, a.n_tokens, valid, a.y_arg, a.attn_arg);
  EXPECT_STATUS(status, c.expected);
  if (status != EA_OK) watched.ExpectUntouched();
  // The trace takes the run's rules: attn_weights as its probs tap.
  ea_mha_quant_taps taps{};
  taps.probs = a.attn_arg;
  EXPECT_STATUS(TraceTyped(a.run_dtype, a.plan_arg, a.x_arg, a.n_tokens, valid, a.y_arg, &taps),
                c.expected);
  if (status != EA_OK) watched.ExpectUntouched();
}

// Every tap of ea_mha_quant_trace: over x, y, another tap, a weight or the
// plan's arena, EA_ERR_BAD_ARGUMENT with nothing written (y and the other
// taps untouched); apart from all, the run.
TEST(QuantMhaTrace, EveryTapKeepsApartFromWhatTheRunReadsAndWrites) {
  constexpr int kTaps = 7;
  for (const ea_dtype dtype : kBoth) {
    SCOPED_TRACE(DtypeName(dtype));
    RunArgs a(dtype, false);
    ASSERT_STATUS(a.plan_status, EA_OK);
    const size_t activation = a.s.TensorBytes(kTokens), per_head = a.s.WeightsBytes(kTokens);
    const size_t sizes[kTaps] = {activation, activation, activation, activation,
                                 per_head,   per_head,   activation};
    std::vector<std::vector<uint8_t>> buffers;
    for (size_t bytes : sizes) buffers.emplace_back(bytes + kBlockSlack, kCanaryByte);
    const auto taps_with = [&](int which, void* at) {
      void* p[kTaps];
      for (int t = 0; t < kTaps; ++t) p[t] = t == which ? at : buffers[t].data();
      return QuantTaps(p);
    };
    for (int which = 0; which < kTaps; ++which) {
      SCOPED_TRACE(testing::Message() << "tap " << which);
      void* const places[] = {a.s.x.data() + 8, a.y.data() + 8, buffers[(which + 1) % kTaps].data(),
                              a.s.InProj(), a.Carve(a.CarveBytes() - 1)};
      for (void* place : places) {
        UntouchedBytes watched;
        watched.Remember("y", a.y.data(), a.y.size());
        for (int t = 0; t < kTaps; ++t) {
          watched.Remember("tap", buffers[t].data(), buffers[t].size());
        }
        const ea_mha_quant_taps taps = taps_with(which, place);
        EXPECT_STATUS(TraceTyped(dtype, &a.plan, a.s.x.data(), kTokens, kTokens, a.y.data(), &taps),
                      EA_ERR_BAD_ARGUMENT);
        watched.ExpectUntouched();
      }
    }
    const ea_mha_quant_taps apart = taps_with(-1, nullptr);
    EXPECT_STATUS(TraceTyped(dtype, &a.plan, a.s.x.data(), kTokens, kTokens, a.y.data(), &apart),
                  EA_OK);
    EXPECT_STATUS(TraceTyped(dtype, &a.plan, a.s.x.data(), kTokens, kTokens, a.y.data(), nullptr),
                  EA_OK);
  }
}
INSTANTIATE_TEST_SUITE_P(QuantMha, QuantMhaBadRun, testing::ValuesIn(RunCases()), CaseName());

// Overlaps the header forbids ("y may be x; nothing else may overlap") that
// cannot change the result (x is consumed before y and attn_weights are
// written): refused (EA_ERR_BAD_ARGUMENT, nothing written) or computed as
// from separate buffers. The header forbids them, the code accepts them;
// either passes here (tests/fuzz/README.md, note 18).
TEST(QuantMhaRun, PartialOverlapsOfXAreRefusedOrHarmless) {
  for (const ea_dtype dtype : kBoth) {
    SCOPED_TRACE(DtypeName(dtype));
    RunArgs a(dtype, false);
    ASSERT_STATUS(a.plan_status, EA_OK);
    const size_t x_bytes = a.s.TensorBytes(kTokens);
    const size_t attn_bytes = a.s.WeightsBytes(kTokens);
    std::vector<uint8_t> y0(x_bytes), attn0(attn_bytes);
    ASSERT_STATUS(RunTyped(dtype, &a.plan, a.s.x.data(), kTokens, kTokens, y0.data(), attn0.data()),
                  EA_OK);
    const struct {
      const char* what;
      size_t x_at, y_at, attn_at;  // offsets in `shared`; attn SIZE_MAX: none
    } layouts[] = {{"y starts inside x", 0, 4 * a.s.ElementBytes(), 2048},
                   {"x starts inside y", 4 * a.s.ElementBytes(), 0, 2048},
                   {"attn_weights over x", 1024, 0, 1024 + 2 * a.s.ElementBytes()}};
    for (const auto& layout : layouts) {
      SCOPED_TRACE(layout.what);
      std::vector<uint8_t> shared(4096, kCanaryByte);
      memcpy(shared.data() + layout.x_at, a.s.x.data(), x_bytes);
      const std::vector<uint8_t> before = shared;
      const ea_status status =
          RunTyped(dtype, &a.plan, shared.data() + layout.x_at, kTokens, kTokens,
                   shared.data() + layout.y_at, shared.data() + layout.attn_at);
      if (status != EA_OK) {
        EXPECT_STATUS(status, EA_ERR_BAD_ARGUMENT);
        EXPECT_EQ(shared, before);
        continue;
      }
      EXPECT_EQ(memcmp(shared.data() + layout.y_at, y0.data(), x_bytes), 0) << "y";
      if (layout.attn_at + attn_bytes <= layout.y_at || layout.attn_at >= layout.y_at + x_bytes) {
        EXPECT_EQ(memcmp(shared.data() + layout.attn_at, attn0.data(), attn_bytes), 0) << "attn";
      }
    }
  }
}

TEST(QuantMhaRun, InPlaceEqualsSeparateBuffers) {
  for (const ea_dtype dtype : kBoth) {
    SCOPED_TRACE(DtypeName(dtype));
    RunArgs a(dtype, false);
    ASSERT_STATUS(a.plan_status, EA_OK);
    std::vector<uint8_t> y0(a.s.TensorBytes(kTokens)), attn0(a.s.WeightsBytes(kTokens));
    ASSERT_STATUS(RunTyped(dtype, &a.plan, a.s.x.data(), kTokens, kTokens, y0.data(), attn0.data()),
                  EA_OK);
    std::vector<uint8_t> xy = a.s.x;
    std::vector<uint8_t> attn1(attn0.size());
    ASSERT_STATUS(RunTyped(dtype, &a.plan, xy.data(), kTokens, kTokens, xy.data(), attn1.data()),
                  EA_OK);
    EXPECT_EQ(xy, y0);
    EXPECT_EQ(attn1, attn0);
  }
}

// heads * n^2 = 8 * 2^26 = 2^29 probabilities, one head's 2^26 within the
// limit: the run must count the heads (EA_ERR_DIMENSION_OVERFLOW, "a tensor
// (attn_weights included) would exceed EA_MAX_ELEMENTS", as ea_mha_run does)
// before writing any. The 4096-byte buffer is followed by an inaccessible
// page, so a library that writes instead crashes the child process, not the
// suite.
TEST(QuantMhaRunDeathTest, RefusesWeightsAboveMaxElementsCountingHeads) {
#if GTEST_HAS_DEATH_TEST && defined(__linux__)
  // "fast" forks without exec: the threadsafe style re-executes the binary,
  // which qemu-user runs of foreign-CPU suites cannot.
  GTEST_FLAG_SET(death_test_style, "fast");
  constexpr int32_t kN = 1 << 13;
  constexpr int32_t kD = 8;
  for (const ea_dtype dtype : kBoth) {
    SCOPED_TRACE(DtypeName(dtype));
    const auto child = [dtype] {
      const size_t element = dtype == EA_DTYPE_INT16 ? 2 : 1;
      ea_mha_config c{};
      c.dtype = dtype;
      c.max_tokens = kN;
      c.d_model = kD;
      c.n_heads = kD;
      c.mask = EA_MASK_NONE;
      c.position = EA_POSITION_NONE;
      std::vector<float> in_scales(3 * kD, 1.0f / 127), out_scales(kD, 1.0f / 127);
      ea_mha_quant_scales scales{};
      for (ea_quant* q : {&scales.input, &scales.position, &scales.positioned, &scales.q, &scales.k,
                          &scales.v, &scales.scores, &scales.context, &scales.output}) {
        *q = ea_quant{1.0f / 64, 0};
      }
      scales.in_proj_weight_scales = in_scales.data();
      scales.out_proj_weight_scales = out_scales.data();
      c.quant_scales = &scales;
      const std::vector<int8_t> in_w(3 * kD * kD, 1), out_w(kD * kD, 1);
      const ea_mha_quant_weights w =
          edgeattn_test::InProjQuantWeights(in_w.data(), nullptr, out_w.data(), nullptr);
      size_t bytes = 0;
      if (ea_mha_quant_arena_size(&c, &bytes) != EA_OK) exit(90);
      AlignedBytes storage(bytes);
      ea_arena arena{};
      ea_arena_init(&arena, storage.data(), bytes);
      ea_mha_quant_plan plan{};
      if (ea_mha_quant_init(&plan, &c, &w, &arena) != EA_OK) exit(91);
      std::vector<uint8_t> x(static_cast<size_t>(kN) * kD * element, 1);
      std::vector<uint8_t> y(x.size(), kCanaryByte);
      const long page = sysconf(_SC_PAGESIZE);
      uint8_t* region = static_cast<uint8_t*>(
          mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
      if (region == MAP_FAILED || mprotect(region + page, page, PROT_NONE) != 0) exit(92);
      uint8_t* attn = region + page - 4096;  // never legitimately written: too small
      memset(attn, kCanaryByte, 4096);
      const ea_status status = RunTyped(dtype, &plan, x.data(), kN, kN, y.data(), attn);
      ea_mha_quant_taps taps{};  // the trace's scores tap counts its heads too
      taps.scores = attn;
      const ea_status traced = TraceTyped(dtype, &plan, x.data(), kN, kN, y.data(), &taps);
      bool untouched = true;
      for (size_t i = 0; i < y.size(); ++i) untouched = untouched && y[i] == kCanaryByte;
      for (size_t i = 0; i < 4096; ++i) untouched = untouched && attn[i] == kCanaryByte;
      if (traced != EA_ERR_DIMENSION_OVERFLOW) exit(80 + traced);
      exit(status == EA_ERR_DIMENSION_OVERFLOW && untouched ? 0 : 100 + status);
    };
    EXPECT_EXIT(child(), testing::ExitedWithCode(0), "");
  }
#else
  GTEST_SKIP() << "needs death tests and mmap";
#endif
}

// ------------------------------------------------------------ equivalences

// The integers ea_mha_quant_derive gives, passed as quant_params, plan to the
// same outputs as the scales, for every position kind.
TEST(QuantMhaGivenParams, EqualToDerivedGiveTheSameOutputsAsScales) {
  for (const ea_dtype dtype : kBoth) {
    for (const ea_position position :
         {EA_POSITION_NONE, EA_POSITION_SINUSOIDAL, EA_POSITION_LEARNED}) {
      SCOPED_TRACE(std::string(DtypeName(dtype)) + " position " + std::to_string(position));
      QuantSetup from_scales(dtype);
      QuantSetup from_params(dtype);
      for (QuantSetup* s : {&from_scales, &from_params}) {
        s->config.position = position;
        if (position == EA_POSITION_LEARNED) s->UseLearnedTable();
      }
      // The sinusoidal table's quantization comes with the integers: no scales.
      from_params.UseGivenParams(false);
      from_params.config.position = position;
      const Outputs a = PlanAndRun(&from_scales);
      const Outputs b = PlanAndRun(&from_params);
      ASSERT_STATUS(a.status, EA_OK);
      ASSERT_STATUS(b.status, EA_OK);
      EXPECT_EQ(a.y, b.y);
      EXPECT_EQ(a.attn_weights, b.attn_weights);
      // Both are the integer reference's (the fixture's sinusoidal case).
      if (position == EA_POSITION_SINUSOIDAL) {
        const QuantMhaCase::Expected want = from_scales.base.Reference();
        std::vector<int32_t> y(want.y.size());
        for (size_t i = 0; i < y.size(); ++i) {
          if (dtype == EA_DTYPE_INT8) {
            y[i] = static_cast<int8_t>(a.y[i]);
          } else {
            int16_t v;
            memcpy(&v, a.y.data() + 2 * i, 2);
            y[i] = v;
          }
        }
        EXPECT_EQ(y, want.y);
      }
    }
  }
}

// The plan copies the given integers: the caller's arrays may change (or go
// out of scope) after init.
TEST(QuantMhaGivenParams, PlanKeepsItsOwnCopy) {
  for (const ea_dtype dtype : kBoth) {
    SCOPED_TRACE(DtypeName(dtype));
    QuantSetup s(dtype);
    s.UseGivenParams(true);
    const Outputs want = PlanAndRun(&s);
    ASSERT_STATUS(want.status, EA_OK);
    AlignedBytes storage(kArenaBytes);
    ea_arena arena{};
    ea_arena_init(&arena, storage.data(), storage.size());
    ea_mha_quant_plan plan{};
    ASSERT_STATUS(ea_mha_quant_init(&plan, &s.config, &s.weights, &arena), EA_OK);
    for (int l = 0; l < 4; ++l) {
      std::fill(s.mult[l].begin(), s.mult[l].end(), -1);
      std::fill(s.shift[l].begin(), s.shift[l].end(), 99);
    }
    s.params = ea_mha_quant_params{};
    std::vector<uint8_t> y(s.TensorBytes(kTokens)), attn(s.WeightsBytes(kTokens));
    ASSERT_STATUS(RunTyped(dtype, &plan, s.x.data(), kTokens, kTokens, y.data(), attn.data()),
                  EA_OK);
    EXPECT_EQ(y, want.y);
    EXPECT_EQ(attn, want.attn_weights);
  }
}

// ea_mha_quant_arena_size's largest max_tokens: the int16 softmax sums 32767 per
// key in int32 (ops/mha/mha_quant_api.cc: 65535 tokens). No plan tensor
// is larger than [max_tokens, d_model] or one row; the probabilities
// [heads, n, n] are only a run's output (checked at run time, as ea_mha_run
// does), so a config of 65535 tokens is valid.
TEST(QuantMhaArenaSize, MaxTokensLimit) {
  for (const ea_dtype dtype : kBoth) {
    SCOPED_TRACE(DtypeName(dtype));
    QuantSetup s(dtype);
    s.config.d_model = 1;
    s.config.n_heads = 1;
    s.config.position = EA_POSITION_NONE;
    size_t bytes = 0;
    s.config.max_tokens = 1 << 14;
    EXPECT_STATUS(ea_mha_quant_arena_size(&s.config, &bytes), EA_OK);
    s.config.max_tokens = (1 << 14) + 1;
    EXPECT_STATUS(ea_mha_quant_arena_size(&s.config, &bytes), EA_OK);
    s.config.max_tokens = 65535;
    EXPECT_STATUS(ea_mha_quant_arena_size(&s.config, &bytes), EA_OK);
    s.config.max_tokens = 65536;
    EXPECT_STATUS(ea_mha_quant_arena_size(&s.config, &bytes), EA_ERR_DIMENSION_OVERFLOW);
  }
}

}  // namespace
}  // namespace edgeattn_test
