// Driver for the fixed-point element-wise ops, ADD (ea_add_quant_derive,
// ea_add_quant_run_s8 / _s16) and MUL (ea_mul_quant_*), the fixed-point
// entry points a caller runs without a plan. The model drivers reach ADD's
// kernel only as the position ADD of a plan, on integers the plan derived
// or validated and on buffers the plan lays out; here the caller picks
// everything: any three tensors' quantization, integers edited to the edges
// of their documented ranges, the other dtype's run function, any count (0,
// EA_MAX_ELEMENTS + 1, past 2^32 as a size_t), out equal to an input or
// partly over one. Checked, on one decoded ElementwiseCase: derive's status
// against the header's rules (the derived integers' ranges on TFLite's
// Prepare as tests/reference computes it), its integers equal to that
// Prepare field by field, *params untouched on a refusal; the run's status
// against the header's rules, nothing written on a refusal (inputs, params,
// out), only out written on success, out equal to the reference's op bit for
// bit on every selected SIMD target, in place equal to out of place, and a
// rerun over a refilled out giving the same bits. One template over the op
// (AddOp, MulOp) holds all of it.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include "driver_support.h"
#include "edgeattn/edgeattn.h"
#include "expected_status.h"
#include "failure.h"
#include "fuzz_case.h"
#include "fuzz_drivers.h"
#include "int_values.h"
#include "memory_pool.h"
#include "quant_case_support.h"
#include "reference/tflite_chain_reference.h"
#include "simd_targets.h"

namespace edgeattn_fuzz {
namespace {

// Counts larger than this (valid or not) are not materialised: such a call
// runs only when another rule refuses it first, on 16-element buffers.
constexpr size_t kMaxMaterialisedElements = size_t{1} << 16;
constexpr size_t kStandInElements = 16;

// Bits of ElementwiseCase::null_bits.
enum ElementwiseNullBit : uint8_t {
  kNullDerived = 1,
  kNullA = 2,
  kNullB = 4,
  kNullParams = 8,
  kNullOut = 16
};

struct OpStats {
  size_t cases = 0, derived = 0, derive_refused = 0, runs = 0, run_refused = 0, compared = 0,
         in_place = 0;
};

// What differs between ADD and MUL: the params struct and its fields (in the
// order ParamEdit::field counts them), the entry points, TFLite's Prepare
// and ranges, the reference op, and the output's nominal scale.
struct AddOp {
  using Params = ea_add_quant_params;
  static constexpr const char* kName = "ADD";
  static constexpr const char* kDerive = "ea_add_quant_derive";
  static constexpr const char* kRunS8 = "ea_add_quant_run_s8";
  static constexpr const char* kRunS16 = "ea_add_quant_run_s16";
  static constexpr float kOutputScaleFactor = 2.0f;  // a sum: twice the inputs' span

  static ea_status Derive(ea_dtype dtype, const ea_quant q[3], Params* params) {
    return ea_add_quant_derive(dtype, q[0], q[1], q[2], params);
  }
  static ea_status Run(const int8_t* a, const int8_t* b, size_t count, const Params* p,
                       int8_t* out) {
    return ea_add_quant_run_s8(a, b, count, p, out);
  }
  static ea_status Run(const int16_t* a, const int16_t* b, size_t count, const Params* p,
                       int16_t* out) {
    return ea_add_quant_run_s16(a, b, count, p, out);
  }
  static Params LikeTflite(bool int8, const ea_quant q[3]) {
    return AddLikeTflite(int8, q[0], q[1], q[2]);
  }
  static StatusSet Rules(ea_dtype dtype, const Params& p) { return AddParamsRules(dtype, p); }
  static void ExpectSame(const Params& got, const Params& want) { ExpectSameAdd(got, want); }
  static Params Defaults(bool int8) {
    Params p{};
    ea_matmul_quant_params scores, context;
    ea_softmax_quant_params softmax;
    DefaultScalars(int8, &p, &scores, &context, &softmax);
    return p;
  }
  static std::vector<int32_t*> Fields(Params* p) {
    return {&p->left_shift,        &p->input1_offset,     &p->input1_multiplier, &p->input1_shift,
            &p->input2_offset,     &p->input2_multiplier, &p->input2_shift,      &p->output_offset,
            &p->output_multiplier, &p->output_shift};
  }
  template <typename T>
  static std::vector<T> Reference(const Params& p, const T* a, const T* b, size_t count) {
    return ref::Add(RefAdd(p), a, b, count);
  }
};

struct MulOp {
  using Params = ea_mul_quant_params;
  static constexpr const char* kName = "MUL";
  static constexpr const char* kDerive = "ea_mul_quant_derive";
  static constexpr const char* kRunS8 = "ea_mul_quant_run_s8";
  static constexpr const char* kRunS16 = "ea_mul_quant_run_s16";
  // The inputs' scale: a product of an input and a factor below 1 (RoPE's
  // cos and sin) fits; larger products saturate.
  static constexpr float kOutputScaleFactor = 1.0f;

  static ea_status Derive(ea_dtype dtype, const ea_quant q[3], Params* params) {
    return ea_mul_quant_derive(dtype, q[0], q[1], q[2], params);
  }
  static ea_status Run(const int8_t* a, const int8_t* b, size_t count, const Params* p,
                       int8_t* out) {
    return ea_mul_quant_run_s8(a, b, count, p, out);
  }
  static ea_status Run(const int16_t* a, const int16_t* b, size_t count, const Params* p,
                       int16_t* out) {
    return ea_mul_quant_run_s16(a, b, count, p, out);
  }
  static Params LikeTflite(bool, const ea_quant q[3]) { return MulLikeTflite(q[0], q[1], q[2]); }
  static StatusSet Rules(ea_dtype dtype, const Params& p) { return MulParamsRules(dtype, p); }
  static void ExpectSame(const Params& got, const Params& want) { ExpectSameMul(got, want); }
  // The nominal scales' multiplier s * s / s = s: 2^-6 (int8), 2^-12 (int16).
  static Params Defaults(bool int8) {
    Params p{};
    p.output_multiplier = 1 << 30;
    p.output_shift = int8 ? -5 : -11;
    return p;
  }
  static std::vector<int32_t*> Fields(Params* p) {
    return {&p->input1_offset, &p->input2_offset, &p->output_offset, &p->output_multiplier,
            &p->output_shift};
  }
  template <typename T>
  static std::vector<T> Reference(const Params& p, const T* a, const T* b, size_t count) {
    return ref::Mul(RefMul(p), a, b, count);
  }
};

template <class Op>
void PrintStats();

template <class Op>
OpStats& Stats() {
  static OpStats stats;
  static const bool registered = atexit(PrintStats<Op>) == 0;
  (void)registered;
  return stats;
}

template <class Op>
void PrintStats() {
  const OpStats& s = Stats<Op>();
  fprintf(stderr,
          "edgeattn fuzz: fixed-point %s: %zu cases, %zu derived, %zu derives refused, %zu "
          "runs, %zu runs refused, %zu compared with the reference (%zu in place)\n",
          Op::kName, s.cases, s.derived, s.derive_refused, s.runs, s.run_refused, s.compared,
          s.in_place);
}

// Nominal scales: int8 inputs spanning +-2, int16 ones +-8; the output's
// the op's factor times the inputs'.
template <class Op>
float NominalScale(bool int8, bool output) {
  return (int8 ? 1.0f / 64.0f : 1.0f / 4096.0f) * (output ? Op::kOutputScaleFactor : 1.0f);
}

// The op's derive: its status, *params untouched on a refusal (it lives in a
// canary-filled pool), TFLite's integers on EA_OK. *tflite holds TFLite's
// Prepare wherever the scales allow computing it (*known).
template <class Op>
ea_status CheckDerive(const ElementwiseCase& c, ea_dtype dtype, const ea_quant q[3],
                      typename Op::Params* derived, typename Op::Params* tflite, bool* known) {
  using Params = typename Op::Params;
  const char* call = Op::kDerive;
  SetContext(call, "-");
  StatusSet rules;
  const bool null_params = (c.Nulls() & kNullDerived) != 0;
  if (null_params) rules.Add(EA_ERR_NULL_POINTER);
  *known = false;
  if (!IsFixed(dtype)) {
    rules.Add(EA_ERR_BAD_ARGUMENT);  // F32 and values outside the enum alike
  } else if (!ValidQuant(dtype, q[0]) || !ValidQuant(dtype, q[1]) || !ValidQuant(dtype, q[2])) {
    rules.Add(EA_ERR_BAD_ARGUMENT);
  } else {
    // The header gives the ranges, not the integers: the reference's
    // Prepare says whether they fall inside.
    *tflite = Op::LikeTflite(dtype == EA_DTYPE_INT8, q);
    *known = true;
    rules.Merge(Op::Rules(dtype, *tflite));
  }
  MemoryPool pool;
  const int region = pool.AddSeparate("params", sizeof(Params), 4);
  pool.Allocate();
  pool.Snapshot();
  Params* out = null_params ? nullptr : reinterpret_cast<Params*>(pool.Bytes(region));
  const ea_status status = Op::Derive(dtype, q, out);
  ExpectStatus(call, status, rules);
  if (status != EA_OK) {
    ExpectUntouched(call, pool, {}, "refused");
    ++Stats<Op>().derive_refused;
    return status;
  }
  ExpectUntouched(call, pool, {pool.Range(region)}, "succeeded");
  memcpy(derived, pool.Bytes(region), sizeof(*derived));
  Op::ExpectSame(*derived, *tflite);
  ++Stats<Op>().derived;
  return status;
}

// The integers the run gets: derive's, else TFLite's (refused ones
// included), else plausible defaults; then the case's edits.
template <class Op>
typename Op::Params RunParams(const ElementwiseCase& c, bool int8, bool derived_ok,
                              const typename Op::Params& derived, bool known,
                              const typename Op::Params& tflite) {
  typename Op::Params p = derived_ok ? derived : known ? tflite : Op::Defaults(int8);
  if (!c.ParamsGiven()) return p;
  EditableFields fields;
  fields.scalars = Op::Fields(&p);
  for (uint8_t i = 0; i < c.EditCount(); ++i) ApplyEdit(c.edits[i], fields);
  return p;
}

// The count as a size_t: Dim's int32 (negative ones wrap past
// EA_MAX_ELEMENTS), or past 2^32 where a 32-bit count would look small.
size_t CountOf(const ElementwiseCase& c) {
  if (c.count_high >= 240) {
    return (static_cast<size_t>(c.count_high - 239) << 32) + static_cast<uint32_t>(c.count);
  }
  return static_cast<size_t>(static_cast<int64_t>(c.count));
}

template <class Op>
ea_status RunOp(bool int8, const uint8_t* a, const uint8_t* b, size_t count,
                const typename Op::Params* params, uint8_t* out) {
  if (int8) {
    return Op::Run(reinterpret_cast<const int8_t*>(a), reinterpret_cast<const int8_t*>(b), count,
                   params, reinterpret_cast<int8_t*>(out));
  }
  return Op::Run(reinterpret_cast<const int16_t*>(a), reinterpret_cast<const int16_t*>(b), count,
                 params, reinterpret_cast<int16_t*>(out));
}

// The reference's op on the inputs as they were before the run, as bytes.
template <class Op>
std::vector<uint8_t> ReferenceOp(bool int8, const typename Op::Params& params,
                                 const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                                 size_t count) {
  std::vector<uint8_t> bytes(count * (int8 ? 1 : 2));
  if (int8) {
    const std::vector<int8_t> out = Op::Reference(params, Typed<int8_t>(a.data(), count).data(),
                                                  Typed<int8_t>(b.data(), count).data(), count);
    memcpy(bytes.data(), out.data(), bytes.size());
  } else {
    const std::vector<int16_t> out = Op::Reference(params, Typed<int16_t>(a.data(), count).data(),
                                                   Typed<int16_t>(b.data(), count).data(), count);
    memcpy(bytes.data(), out.data(), bytes.size());
  }
  return bytes;
}

// The params' fields in ParamEdit's order, for a failure message.
template <class Op>
std::string Describe(typename Op::Params params) {
  std::string text;
  for (const int32_t* field : Op::Fields(&params)) {
    text += (text.empty() ? "" : "/") + std::to_string(*field);
  }
  return text;
}

template <class Op>
void ExpectSameAsReference(const char* call, bool int8, const uint8_t* got,
                           const std::vector<uint8_t>& want, const std::vector<uint8_t>& a,
                           const std::vector<uint8_t>& b, const typename Op::Params& p) {
  if (memcmp(got, want.data(), want.size()) == 0) return;
  const size_t eb = int8 ? 1 : 2;
  size_t i = 0;
  while (memcmp(got + i * eb, want.data() + i * eb, eb) == 0) ++i;
  auto value = [&](const uint8_t* bytes) {
    return int8 ? int32_t{static_cast<int8_t>(bytes[i])}
                : int32_t{static_cast<int16_t>(bytes[2 * i] | (bytes[2 * i + 1] << 8))};
  };
  Fail("%s: out[%zu] = %d, the reference %s gives %d (a %d, b %d; params %s)", call, i, value(got),
       Op::kName, value(want.data()), value(a.data()), value(b.data()), Describe<Op>(p).c_str());
}

// [x, x + bytes) and [y, y + bytes) share a byte but do not start together.
bool PartlyOverlap(const uint8_t* x, const uint8_t* y, size_t bytes) {
  const uintptr_t u = reinterpret_cast<uintptr_t>(x), v = reinterpret_cast<uintptr_t>(y);
  return u != v && u < v + bytes && v < u + bytes;
}

template <class Op>
void CheckRun(const ElementwiseCase& c, bool int8, const typename Op::Params& params) {
  using Params = typename Op::Params;
  const char* call = int8 ? Op::kRunS8 : Op::kRunS16;
  SetContext(call, "-");
  const size_t count = CountOf(c);
  const size_t eb = int8 ? 1 : 2;
  const uint16_t nulls = c.Nulls();
  const bool null_a = nulls & kNullA, null_b = nulls & kNullB, null_params = nulls & kNullParams,
             null_out = nulls & kNullOut;
  StatusSet rules;
  if (null_a || null_b || null_params || null_out) rules.Add(EA_ERR_NULL_POINTER);
  const bool count_ok = count >= 1 && count <= static_cast<size_t>(EA_MAX_ELEMENTS);
  if (count == 0) rules.Add(EA_ERR_BAD_DIMENSION);
  if (count > static_cast<size_t>(EA_MAX_ELEMENTS)) rules.Add(EA_ERR_DIMENSION_OVERFLOW);
  rules.Merge(Op::Rules(int8 ? EA_DTYPE_INT8 : EA_DTYPE_INT16, params));

  // Buffers: the count when it is valid and small, else stand-ins.
  const bool materialised = count_ok && count <= kMaxMaterialisedElements;
  const size_t n = materialised ? count : kStandInElements;
  const uint8_t layout = c.Layout();
  const bool over_a = layout == kOutOverA, over_b = layout == kOutOverB;
  const bool same_inputs = layout == kSameInputs || layout == kAllSame;
  MemoryPool pool;
  const size_t pad_a = over_a ? n : 0, pad_b = over_b ? n : 0;
  const int a_region = pool.AddSeparate("a", (n + 2 * pad_a) * eb, 64, (c.misalign & 7) * eb);
  const int b_region =
      same_inputs ? a_region
                  : pool.AddSeparate("b", (n + 2 * pad_b) * eb, 64, ((c.misalign >> 3) & 7) * eb);
  const bool own_out = layout == kOutApart || layout == kSameInputs;
  const int out_region = own_out ? pool.AddSeparate("out", n * eb, 64, (c.misalign >> 6) * eb) : -1;
  const int params_region = pool.AddSeparate("params", sizeof(Params), 4);
  pool.Allocate();
  uint8_t* a = pool.Bytes(a_region) + pad_a * eb;
  uint8_t* b = pool.Bytes(b_region) + pad_b * eb;
  // out over a or b: `shift` elements from it, -n..n (0: equal, +-n: adjacent).
  const int64_t shift =
      static_cast<int64_t>(static_cast<uint16_t>(c.shift) % (2 * n + 1)) - static_cast<int64_t>(n);
  uint8_t* out = own_out                                   ? pool.Bytes(out_region)
                 : layout == kOutIsA || layout == kAllSame ? a
                 : layout == kOutIsB                       ? b
                 : over_a                                  ? a + shift * static_cast<int64_t>(eb)
                                                           : b + shift * static_cast<int64_t>(eb);
  for (size_t i = 0; i < n; ++i)
    StoreInt(a + i * eb, IntValueOf(c.a_values, c.value_mode, i, int8), int8);
  if (!same_inputs) {
    for (size_t i = 0; i < n; ++i) {
      StoreInt(b + i * eb, IntValueOf(c.b_values, c.value_mode, i, int8), int8);
    }
  }
  memcpy(pool.Bytes(params_region), &params, sizeof(params));
  const std::vector<uint8_t> a_before = CopyBytes(a, n * eb), b_before = CopyBytes(b, n * eb);

  // out may be a or b; any other overlap is refused (by address, for the
  // nominal count: stand-ins overlap where the count would).
  if (count_ok && !null_out) {
    const size_t bytes = count * eb;
    if ((!null_a && PartlyOverlap(out, a, bytes)) || (!null_b && PartlyOverlap(out, b, bytes))) {
      rules.Add(EA_ERR_BAD_ARGUMENT);
    }
  }
  // A valid count too large to allocate is called only when refused.
  if (count_ok && !materialised && !rules.MustFail()) return;
  const bool in_place = !rules.MustFail() && (out == a || out == b);

  if (Debugging()) {
    Debug("%s run: %s count %zu (%s), layout %d shift %lld, nulls %#x, params %s, want %s\n",
          Op::kName, call, count, materialised ? "materialised" : "stand-ins", layout,
          static_cast<long long>(shift), static_cast<unsigned>(nulls), Describe<Op>(params).c_str(),
          rules.Describe().c_str());
    pool.Dump();
  }
  pool.Snapshot();

  std::vector<uint8_t> want;
  if (!rules.MustFail()) want = ReferenceOp<Op>(int8, params, a_before, b_before, count);
  const ByteRange out_range = pool.RangeOf(out, n * eb);
  const Params* run_params =
      null_params ? nullptr : reinterpret_cast<const Params*>(pool.Bytes(params_region));
  for (int64_t target : SelectTargets(c.targets)) {
    ForceTarget(target);
    SetContext(call, TargetName(target));
    pool.Restore();
    const ea_status status = RunOp<Op>(int8, null_a ? nullptr : a, null_b ? nullptr : b, count,
                                       run_params, null_out ? nullptr : out);
    ExpectStatus(call, status, rules);
    if (status != EA_OK) {
      ExpectUntouched(call, pool, {}, "refused");
      ++Stats<Op>().run_refused;
      continue;
    }
    ++Stats<Op>().runs;
    ExpectUntouched(call, pool, {out_range}, "succeeded");
    ExpectSameAsReference<Op>(call, int8, out, want, a_before, b_before, params);
    ++Stats<Op>().compared;
    const std::vector<uint8_t> first = CopyBytes(out, n * eb);
    if (in_place) {
      // The same inputs out of place (in vectors of their own).
      std::vector<uint8_t> a_copy = a_before, b_copy = b_before, apart(n * eb, kRerunCanary);
      if (RunOp<Op>(int8, a_copy.data(), same_inputs ? a_copy.data() : b_copy.data(), count,
                    &params, apart.data()) != EA_OK) {
        Fail("%s refused out of place what it accepted in place (layout %d)", call, layout);
      }
      ExpectSameBits("in-place out against out of place", apart, first.data());
      ++Stats<Op>().in_place;
    } else {
      // A rerun over a refilled out writes every element again.
      memset(out, kRerunCanary, n * eb);
      if (RunOp<Op>(int8, a, b, count, run_params, out) != EA_OK) {
        Fail("%s: the rerun failed", call);
      }
      ExpectSameBits("rerun over a refilled out", first, out);
    }
  }
  ForceTarget(0);
}

template <class Op>
void FuzzOp(const ElementwiseCase& c) {
  using Params = typename Op::Params;
  ++Stats<Op>().cases;
  const ea_dtype dtype = QuantDtype(c.dtype_kind, c.dtype_raw);
  const bool int8 = dtype != EA_DTYPE_INT16;
  const ea_quant q[3] = {QuantOf(c.a_quant, NominalScale<Op>(int8, false), int8),
                         QuantOf(c.b_quant, NominalScale<Op>(int8, false), int8),
                         QuantOf(c.out_quant, NominalScale<Op>(int8, true), int8)};
  Debug("%s case: dtype %d, a %g/%d, b %g/%d, out %g/%d, params %s, %d edits, wrong run %d\n",
        Op::kName, static_cast<int>(dtype), q[0].scale, q[0].zero_point, q[1].scale,
        q[1].zero_point, q[2].scale, q[2].zero_point, c.ParamsGiven() ? "given" : "derived",
        c.EditCount(), c.wrong_run >= 240);
  Params derived{}, tflite{};
  bool known = false;
  const bool derived_ok = CheckDerive<Op>(c, dtype, q, &derived, &tflite, &known) == EA_OK;
  // The dtype's run function (INT8's for a dtype that is not fixed point),
  // or the other one on the same integers.
  const bool run_int8 = (dtype != EA_DTYPE_INT16) != (c.wrong_run >= 240);
  CheckRun<Op>(c, run_int8, RunParams<Op>(c, int8, derived_ok, derived, known, tflite));
}

}  // namespace

void FuzzElementwise(ByteReader& input) {
  ElementwiseCase c;
  Visit(input, c);
  if (c.Mul()) {
    FuzzOp<MulOp>(c);
  } else {
    FuzzOp<AddOp>(c);
  }
}

}  // namespace edgeattn_fuzz
