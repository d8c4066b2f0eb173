// What the fixed-point model drivers (fuzz_quant_mha.cc,
// fuzz_quant_self_attention.cc) share, so that both decode, fill, derive and
// check a case the same way: their counters, the parallel-for, the scales a
// case field means, TFLite's Prepare through tests/reference, the edits of
// given integers, the tensors' contents, the int32-limits guard of the
// integer reference, the run's memory rules and the run on every target.
#ifndef EDGEATTN_TESTS_FUZZ_QUANT_CASE_SUPPORT_H_
#define EDGEATTN_TESTS_FUZZ_QUANT_CASE_SUPPORT_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <functional>
#include <vector>

#include "driver_support.h"
#include "edgeattn/edgeattn.h"
#include "expected_status.h"
#include "failure.h"
#include "fuzz_case.h"
#include "memory_pool.h"
#include "reference/tflite_chain_reference.h"

namespace edgeattn_fuzz {

// How far a driver's cases got, printed at exit as "edgeattn fuzz: LABEL: ...".
struct QuantStats {
  size_t cases = 0, derived = 0, planned = 0, runs = 0, reference_checks = 0, reference_skipped = 0;
  size_t streamed = 0;  // causal layers also run through ea_decoder_quant
  size_t traced = 0;    // runs repeated through ea_mha_quant_trace with every tap
};
// One per label, alive until exit.
QuantStats& StatsFor(const char* label);

// The plan's parallel-for: none, or BackwardsPool (tasks last to first,
// rotating worker indices) with workers % 4 workers when that is 2 or 3.
ea_parallel_for MainParallel(uint8_t workers);
// The second plan's: 3 workers where the first had none, else none.
ea_parallel_for SecondParallel(const ea_parallel_for& main);

bool IsFixed(ea_dtype dtype);
// A case's dtype_kind: < 112 INT8, < 224 INT16, < 240 F32, else raw.
ea_dtype QuantDtype(uint8_t kind, int32_t raw);
inline size_t ElementBytes(ea_dtype dtype) { return dtype == EA_DTYPE_INT16 ? 2 : 1; }
inline size_t BiasBytes(ea_dtype dtype) { return dtype == EA_DTYPE_INT16 ? 8 : 4; }

// index: a QuantTensor's kind - 224, or a weight scale's bad_value.
float QuantSpecialScale(uint8_t index);
// A tensor's quantization: nominal * 2^(jitter / 8) or a special scale; a
// zero point in the int8 range (int16: 0) or an edge one.
ea_quant QuantOf(const QuantTensor& t, float nominal, bool int8);

// The scales that make each tensor span its range
// (tests/reference/quant_mha_fixture.cc, RandomQuantMha, without its
// jitter), in ea_mha_quant_scales' order; self-attention's output is the
// context's. d_model e, d_k the scores' depth.
struct Nominal {
  float tensor[kQuantTensors];
  float weight;
};
Nominal NominalScales(ea_dtype dtype, int32_t e, int32_t d_k, bool positions);

// All per-channel weight scales of a model, its matrices one after
// another: base * 2^(jitter / 8) * 2^(+-1), one of them bad when the case
// says so (bad_channel modulo count).
std::vector<float> WeightScales(const QuantCommon& c, float base, size_t count);

// --- TFLite's Prepare, through the reference's formulas
namespace ref = tflite_ref;

// Shifts past 30 saturate only in single-rounding builds, as in TFLite
// (README.md note 17); otherwise the plan's range checks refuse them.
ref::QuantizedMultiplier Saturate(ref::QuantizedMultiplier m);
inline ref::TensorQuantization Ref(ea_quant q) { return {q.scale, q.zero_point}; }

ea_add_quant_params AddLikeTflite(bool int8, ea_quant input, ea_quant position,
                                  ea_quant positioned);
ea_mul_quant_params MulLikeTflite(ea_quant a, ea_quant b, ea_quant out);
// Offsets into *linear, one multiplier and shift per channel appended.
void LinearLikeTflite(ea_quant in, const float* weight_scales, int32_t channels, ea_quant out,
                      ea_linear_quant_params* linear, std::vector<int32_t>* multipliers,
                      std::vector<int32_t>* shifts);
// q.scale * k.scale overflowing float (*infinite) is defined here as the
// saturated multiplier (the library may refuse it instead).
ea_matmul_quant_params ScoresLikeTflite(ea_quant q, ea_quant k, ea_quant scores, bool* infinite);
// The probabilities (1/256, -128 or 1/32768, 0) times v.
ea_matmul_quant_params ContextLikeTflite(bool int8, ea_quant v, ea_quant out);
ea_softmax_quant_params SoftmaxLikeTflite(bool int8, float beta, float scores_scale);

// The library's integers as the reference's op parameters (the int16
// softmax with TFLite Micro's tables, softmax_luts.h).
ref::AddParams RefAdd(const ea_add_quant_params& a);
ref::MulParams RefMul(const ea_mul_quant_params& m);
ref::RopeParams RefRope(const ea_rope_quant_params& p);
ref::FullyConnectedParams RefLinear(const ea_linear_quant_params& l, int32_t channels);
ref::BatchMatMulParams RefMatmul(const ea_matmul_quant_params& m);
ref::SoftmaxInt8Params RefSoftmaxInt8(const ea_softmax_quant_params& s);
// The int16 softmax with the params' tables, or TFLite's (softmax_luts.h).
ref::SoftmaxInt16Params RefSoftmaxInt16(const ea_softmax_quant_params& s);

// A device's int16 softmax tables in given integers (QuantCommon's
// params_kind >= 224): TFLite's with every entry moved by -3 .. +3 (seeded),
// into *tables (both, 1026 entries) and softmax's pointers. params_kind % 8
// breaks them: 0 an exp entry -1, 1 a reciprocal entry INT16_MIN, 2 exp
// alone, 3 the reciprocal alone, 4 exp 16383 at 0; 5 exp exactly 16384 at 0
// (valid), 6 and 7 valid.
void GiveSoftmaxTables(uint8_t params_kind, uint32_t seed, std::vector<int16_t>* tables,
                       ea_softmax_quant_params* softmax);

// Plausible integers where none were derived (invalid scales): unit
// multipliers, zero offsets (the context's 128 for int8).
void DefaultScalars(bool int8, ea_add_quant_params* add, ea_matmul_quant_params* scores,
                    ea_matmul_quant_params* context, ea_softmax_quant_params* softmax);
inline constexpr int32_t kDefaultMultiplier = 1 << 30, kDefaultShift = -6;

// What a ParamEdit can change: scalar fields, then each projection's input
// offset, output offset, one multiplier, one shift, or its arrays set NULL.
struct EditableLinear {
  ea_linear_quant_params* params;
  std::vector<int32_t>* multipliers;
  std::vector<int32_t>* shifts;
};
struct EditableFields {
  std::vector<int32_t*> scalars;
  std::vector<EditableLinear> linears;
};
// ADD, scores, context and softmax's fields, in that order (23).
std::vector<int32_t*> ScalarFields(ea_add_quant_params* add, ea_matmul_quant_params* scores,
                                   ea_matmul_quant_params* context,
                                   ea_softmax_quant_params* softmax);
void ApplyEdit(const ParamEdit& edit, const EditableFields& fields);

// The given integers' edits (ApplyEdit on Integers::Fields, after Point).
template <class Integers>
void ApplyEdits(const QuantCommon& qc, Integers* given) {
  given->Point();
  const EditableFields fields = given->Fields();
  for (uint8_t i = 0; i < qc.edit_count % (kMaxParamEdits + 1); ++i) ApplyEdit(qc.edits[i], fields);
}

// A model config with one field broken, for re-planning a ready plan:
// replan_field picks dtype, max_tokens, d_model, one of the model's own
// `own_fields` dimensions (own(config, index, value)), mask, position, the
// quantization (NULL) or the parallel-for, set to replan_value.
template <class Config, class Own>
Config BreakOneField(const Config& good, const Common& common, int own_fields, Own own) {
  Config bad = good;
  const int32_t v = common.replan_value;
  const int field = common.replan_field % (7 + own_fields);
  if (field >= 3 && field < 3 + own_fields) {
    own(&bad, field - 3, v);
    return bad;
  }
  switch (field < 3 ? field : field - own_fields) {
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
      bad.mask = static_cast<ea_mask>(v);
      break;
    case 4:
      bad.position = static_cast<ea_position>(v);
      break;
    case 5:
      bad.quant_scales = nullptr;
      bad.quant_params = nullptr;
      break;
    default:
      bad.parallel = ea_parallel_for{nullptr, nullptr, v};
      break;
  }
  return bad;
}

// Derived integers against TFLite's (each failing the case).
void ExpectSameAdd(const ea_add_quant_params& got, const ea_add_quant_params& want);
void ExpectSameMul(const ea_mul_quant_params& got, const ea_mul_quant_params& want);
void ExpectSameQuant(const char* name, ea_quant got, ea_quant want);
void ExpectSameLinear(const char* name, const ea_linear_quant_params& got,
                      const ea_linear_quant_params& want, int32_t channels);
void ExpectSameMatmul(const char* name, const ea_matmul_quant_params& got,
                      const ea_matmul_quant_params& want);
void ExpectSameSoftmax(bool int8, const ea_softmax_quant_params& got,
                       const ea_softmax_quant_params& want);

// --- tensors

// A model's bias: its bytes in the pool (NULL: absent, values still drawn)
// and its element count.
struct BiasSlot {
  uint8_t* bytes;
  size_t count;
};
// int8 weights of the case's weight_mode, one stream over the matrices.
void FillQuantWeights(const QuantCommon& c, const std::vector<int8_t*>& matrices,
                      const std::vector<size_t>& counts);
// Biases of BiasBytes(dtype): int8 |b| < 2^10, 2^20, 2^30 or any int32
// (magnitude 0..3); else up to 2^20, 2^28, 2^36, 2^47; one of them at an
// edge (2^47, INT64_MAX...).
void FillQuantBiases(const QuantCommon& c, ea_dtype dtype, int magnitude,
                     const std::vector<BiasSlot>& slots);
// Activations: uniform over the range, a constant, the extremes, small
// (the int8 range for INT8, else int16's; ElementBytes(dtype) each).
void FillActivations(uint8_t* out, size_t count, ea_dtype dtype, uint8_t mode, uint32_t seed);
// The largest |int8 bias| (int32 values); an int16 bias outside [-2^47, 2^47).
int64_t MaxInt8Bias(const std::vector<BiasSlot>& slots);
bool Int16BiasOutOfRange(const std::vector<BiasSlot>& slots);

// TFLite's QUANTIZE of the sinusoids (float division, round half away,
// clamp): the table a plan fills for SINUSOIDAL without a caller's table.
std::vector<uint8_t> QuantizedSinusoid(bool int8, int64_t n, int32_t e, ea_quant position);

template <typename T>
std::vector<T> Typed(const uint8_t* bytes, size_t count) {
  std::vector<T> values(count);
  memcpy(values.data(), bytes, count * sizeof(T));
  return values;
}
std::vector<int32_t> Widen(ea_dtype dtype, const uint8_t* bytes, size_t count);

// The reference computes `requantised + output_offset` and int8
// accumulators in int32 (undefined past it, as TFLite): used only where no
// value can come near the int32 limits. Projections of `depth` inputs.
struct ProjectionBound {
  const ea_linear_quant_params* params;
  int32_t channels;
};
bool ReferenceSafe(bool int8, int64_t max_bias, int32_t depth,
                   const std::vector<ProjectionBound>& projections,
                   const ea_matmul_quant_params& scores, int32_t score_depth,
                   const ea_matmul_quant_params& context, int32_t keys);

// --- the arena size, the plan-time table, the run's shape and buffers

// A size call's outcome: a status of `rules`, *bytes untouched on error
// (it held 0x5A5A), else the formula's `need`.
template <class Config>
void CheckArenaSize(const char* call, ea_status (*size)(const Config*, size_t*),
                    const Config& config, uint16_t nulls, StatusSet rules, uint64_t need) {
  SetContext(call, "-");
  size_t bytes = 0x5A5A;
  if (nulls & (kNullSizeConfig | kNullSizeBytes)) rules.Add(EA_ERR_NULL_POINTER);
  const ea_status status =
      size(nulls & kNullSizeConfig ? nullptr : &config, nulls & kNullSizeBytes ? nullptr : &bytes);
  ExpectStatus(call, status, rules);
  if (status != EA_OK && bytes != 0x5A5A) Fail("%s wrote *bytes on error", call);
  if (status == EA_OK && bytes != need) {
    Fail("%s = %zu, the arena_sizes.hpp formula says %llu", call, bytes,
         static_cast<unsigned long long>(need));
  }
}

// The case's arena for a plan of `need` bytes; a shape too large to build
// gets one byte too few (the plan must stop at the arena check, before it
// reads weights the harness did not allocate).
ArenaLayout QuantArenaLayout(const QuantCommon& qc, uint64_t need, bool materialised);

// The quantization of the sinusoidal table a plan fills, as the headers
// state it: the given integers' `position` unless all its bytes are zero,
// else quant_scales->position (NULL: neither).
template <class Config>
const ea_quant* TableQuantization(const Config& c) {
  static const ea_quant kNotGiven{};
  if (c.quant_params != nullptr &&
      memcmp(&c.quant_params->position, &kNotGiven, sizeof(ea_quant)) != 0) {
    return &c.quant_params->position;
  }
  return c.quant_scales != nullptr ? &c.quant_scales->position : nullptr;
}
template <class Config>
ea_quant TableQuantizationValue(const Config& c) {
  const ea_quant* q = TableQuantization(c);
  return q != nullptr ? *q : ea_quant{};
}

// The given integers' `position`: all zero (not given) unless bit 3 of the
// case's params_kind is set, then the layer's position tensor quantization
// (valid or not, quant_scales given or not).
void GivePositionQuantization(const QuantCommon& qc, ea_quant layer_position, ea_quant* given);

// The sinusoidal table a plan fills (SINUSOIDAL, no caller's table) is
// quantized with TableQuantization: it needs one (no_scales:
// EA_ERR_NULL_POINTER), valid (bad: EA_ERR_BAD_ARGUMENT).
struct PlanTimeTable {
  bool no_scales = false, bad = false;
};
PlanTimeTable PlanTimeTableNeeds(ea_dtype dtype, ea_position position, const void* quant_table,
                                 const ea_quant* position_quant);

// n_tokens and what a run asks: the probabilities of `matrices` [n, n]
// (MHA's heads), perhaps through the other dtype's run function.
struct RunLengths {
  int32_t n_tokens;
  bool n_ok;
  int64_t n;  // n_tokens, or 1 where it is out of range
  int32_t n_valid_keys;
  bool n_valid_ok;  // in [0, n_tokens]
  bool want_weights, weights_overflow;
  ea_dtype run_dtype;
  bool refused_early;  // by an argument rule, before any work
};
RunLengths ResolveRun(const QuantCommon& qc, int32_t max_tokens, ea_dtype dtype, uint16_t nulls,
                      int64_t matrices);

// x, y and attn_weights (attn_bytes 0: none) in their own regions or over
// a candidate (the arena, weights, biases, table, then x and y).
struct RunRegions {
  int x = -1, y = -1, attn = -1;
};
RunRegions PlaceRunRegions(MemoryPool* pool, const QuantCommon& qc, std::vector<int> candidates,
                           size_t x_bytes, size_t y_bytes, size_t attn_bytes);
// The caller's table (table_region >= 0) and x (x_region >= 0), after
// pool.Allocate.
void FillTableAndInput(const MemoryPool& pool, const QuantCommon& qc, ea_dtype dtype,
                       int table_region, size_t table_count, int x_region, size_t x_count);

// The table a planned run adds: the caller's first n rows, or the sinusoids
// as the plan quantizes them.
std::vector<uint8_t> PlannedTable(const MemoryPool& pool, int table_region, ea_dtype dtype,
                                  int64_t n, int32_t e, ea_quant position);

// --- runs

// A run's arguments: pointers (NULL where the case says so) and ranges.
struct RunBuffers {
  uint8_t *x, *y, *attn;
  ByteRange x_range, y_range, attn_range;
};
RunBuffers RunBuffersOf(const MemoryPool& pool, const RunRegions& regions, uint16_t nulls);

// The memory rules of a model's run (ea_self_attention_run's): y and
// attn_weights overlap neither each other, the regions the plan keeps
// reading (weights, biases, a table it adds) nor its carve; x lies outside
// the carve. y may be x; other overlaps of x with an output (undocumented,
// harmless: x is consumed first) may be refused or must compute the result.
// With them the argument rules: NULL plan, x or y, the other dtype's run,
// n_tokens outside [1, max_tokens], n_valid_keys outside [0, n_tokens], more
// than EA_MAX_ELEMENTS probabilities.
struct RunMemory {
  StatusSet rules;
  bool refusable = false, in_place = false, x_in_scratch = false;
};
RunMemory ModelRunRules(const MemoryPool& pool, const RunBuffers& b, const std::vector<int>& kept,
                        const ByteRange& carve, bool null_plan, const RunLengths& lengths,
                        ea_dtype dtype);

// Back to the snapshot before a run: all of the pool when x lies in the
// carve (the run was refused), else all but the carve.
void ResetForRun(MemoryPool* pool, const ByteRange& carve, bool x_in_scratch);

// The same config planned at another address (after a filler the case
// sizes) on another worker count: init must accept it.
struct SecondArena {
  MemoryPool pool;
  ByteRange carve;
  void Plan(uint64_t need, uint8_t targets, const std::function<ea_status(ea_arena*)>& init);
};

// A run's outputs, and what the contract and the reference say of them.
struct QuantRunCheck {
  MemoryPool* pool;
  ByteRange carve;
  SecondArena* second;
  uint8_t targets;  // Common::targets
  const char* entry_point;
  RunMemory rules;
  ea_dtype dtype;
  RunBuffers buffers;
  size_t y_count;  // and heads * n * n probabilities, if asked
  int heads, n;
  bool causal;
  int n_valid_keys;
  const std::vector<int32_t>* want_y;  // NULL: no reference (int32 limits)
  const std::vector<int32_t>* want_probs;
  // Runs on the first plan (0) or the second (1).
  std::function<ea_status(int plan)> run;
};
// On every selected target: the status, nothing written but the outputs
// and the carve, the probabilities' contract, the reference, and
// bit-identical reruns on the same plan and on the second one.
void RunOnEveryTarget(const QuantRunCheck& check, QuantStats* stats);

// A failed init leaves the plan refused by run, which writes nothing.
void ExpectUnplannedRefused(MemoryPool* pool, const char* entry_point,
                            const std::function<ea_status()>& run);
// A ready plan re-planned with a broken config (whose shape rules are
// `rules`): refused, nothing written, arena.used kept, not runnable.
void ExpectReplanRefused(const char* plan_call, MemoryPool* pool, const ByteRange& carve,
                         bool x_in_scratch, const ea_arena& arena, StatusSet rules,
                         bool fixed_dtype, const std::function<ea_status()>& replan,
                         const std::function<ea_status()>& run);

// Masked probabilities (causal, padding) at the zero value; int8 rows
// summing to at most 1 plus half an LSB per key.
void CheckProbabilities(ea_dtype dtype, const std::vector<int32_t>& probs, int heads, int n,
                        bool causal, int n_valid_keys);
void ExpectSameValues(const char* what, const std::vector<int32_t>& got,
                      const std::vector<int32_t>& want);

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_QUANT_CASE_SUPPORT_H_
