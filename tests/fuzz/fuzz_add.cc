// Driver for fixed-point ADD (ea_add_quant_derive, ea_add_quant_run_s8 / _s16), the
// one fixed-point entry point a caller runs without a plan. The model
// drivers reach its kernel only as the position ADD of a plan, on integers
// the plan derived or validated and on buffers the plan lays out; here the
// caller picks everything: any three tensors' quantization, integers edited
// to the edges of their documented ranges, the other dtype's run function,
// any count (0, EA_MAX_ELEMENTS + 1, past 2^32 as a size_t), out equal to
// an input or partly over one. Checked, on one decoded AddCase: derive's
// status against the header's rules (the derived integers' ranges on TFLite's
// Prepare as tests/reference computes it), its integers equal to that Prepare
// field by field, *params untouched on a refusal; the run's status against
// the header's rules, nothing written on a refusal (inputs, params, out),
// only out written on success, out equal to the reference's ADD bit for bit
// on every selected SIMD target, in place equal to out of place, and a rerun
// over a refilled out giving the same bits.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "driver_support.h"
#include "edgeattn/edgeattn.h"
#include "expected_status.h"
#include "failure.h"
#include "fuzz_case.h"
#include "fuzz_drivers.h"
#include "memory_pool.h"
#include "quant_case_support.h"
#include "reference/tflite_chain_reference.h"
#include "simd_targets.h"

namespace edgeattn_fuzz {
namespace {

// Counts larger than this (valid or not) are not materialised: such a call
// runs only when another rule refuses it first, on 16-element buffers.
constexpr size_t kMaxAddElements = size_t{1} << 16;
constexpr size_t kStandInElements = 16;

// Bits of AddCase::null_bits.
enum AddNullBit : uint8_t {
  kAddNullDerived = 1,
  kAddNullA = 2,
  kAddNullB = 4,
  kAddNullParams = 8,
  kAddNullOut = 16
};

struct AddStats {
  size_t cases = 0, derived = 0, derive_refused = 0, runs = 0, run_refused = 0, compared = 0,
         in_place = 0;
};

void PrintAddStats();

AddStats& Stats() {
  static AddStats stats;
  static const bool registered = atexit(PrintAddStats) == 0;
  (void)registered;
  return stats;
}

void PrintAddStats() {
  const AddStats& s = Stats();
  fprintf(stderr,
          "edgeattn fuzz: fixed-point ADD: %zu cases, %zu derived, %zu derives refused, %zu "
          "runs, %zu runs refused, %zu compared with the reference (%zu in place)\n",
          s.cases, s.derived, s.derive_refused, s.runs, s.run_refused, s.compared, s.in_place);
}

// Nominal scales: int8 inputs spanning +-2, int16 ones +-8; the output
// twice the inputs' (a sum).
float NominalScale(bool int8, bool output) {
  return (int8 ? 1.0f / 64.0f : 1.0f / 4096.0f) * (output ? 2.0f : 1.0f);
}

bool ValidQuant(ea_dtype dtype, ea_quant q) {
  return ValidQuantScale(q.scale) && ValidZeroPoint(dtype, q.zero_point);
}

// ea_add_quant_derive: its status, *params untouched on a refusal (it lives
// in a canary-filled pool), TFLite's integers on EA_OK. *tflite holds
// TFLite's Prepare wherever the scales allow computing it (*known).
ea_status CheckDerive(const AddCase& c, ea_dtype dtype, const ea_quant q[3],
                      ea_add_quant_params* derived, ea_add_quant_params* tflite, bool* known) {
  const char* call = "ea_add_quant_derive";
  SetContext(call, "-");
  StatusSet rules;
  const bool null_params = (c.Nulls() & kAddNullDerived) != 0;
  if (null_params) rules.Add(EA_ERR_NULL_POINTER);
  *known = false;
  if (!IsFixed(dtype)) {
    rules.Add(EA_ERR_BAD_ARGUMENT);  // F32 and values outside the enum alike
  } else if (!ValidQuant(dtype, q[0]) || !ValidQuant(dtype, q[1]) || !ValidQuant(dtype, q[2])) {
    rules.Add(EA_ERR_BAD_ARGUMENT);
  } else {
    // The header gives the ranges, not the integers: the reference's
    // Prepare says whether they fall inside.
    *tflite = AddLikeTflite(dtype == EA_DTYPE_INT8, q[0], q[1], q[2]);
    *known = true;
    rules.Merge(AddParamsRules(dtype, *tflite));
  }
  MemoryPool pool;
  const int region = pool.AddSeparate("params", sizeof(ea_add_quant_params), 4);
  pool.Allocate();
  pool.Snapshot();
  ea_add_quant_params* out =
      null_params ? nullptr : reinterpret_cast<ea_add_quant_params*>(pool.Bytes(region));
  const ea_status status = ea_add_quant_derive(dtype, q[0], q[1], q[2], out);
  ExpectStatus(call, status, rules);
  if (status != EA_OK) {
    ExpectUntouched(call, pool, {}, "refused");
    ++Stats().derive_refused;
    return status;
  }
  ExpectUntouched(call, pool, {pool.Range(region)}, "succeeded");
  memcpy(derived, pool.Bytes(region), sizeof(*derived));
  ExpectSameAdd(*derived, *tflite);
  ++Stats().derived;
  return status;
}

// The integers the run gets: derive's, else TFLite's (refused ones
// included), else plausible defaults; then the case's edits.
ea_add_quant_params RunParams(const AddCase& c, bool int8, bool derived_ok,
                              const ea_add_quant_params& derived, bool known,
                              const ea_add_quant_params& tflite) {
  ea_add_quant_params p{};
  if (derived_ok) {
    p = derived;
  } else if (known) {
    p = tflite;
  } else {
    ea_matmul_quant_params scores, context;
    ea_softmax_quant_params softmax;
    DefaultScalars(int8, &p, &scores, &context, &softmax);
  }
  if (!c.ParamsGiven()) return p;
  ea_matmul_quant_params scores{}, context{};
  ea_softmax_quant_params softmax{};
  EditableFields fields;
  fields.scalars = ScalarFields(&p, &scores, &context, &softmax);
  fields.scalars.resize(10);  // ADD's fields come first
  for (uint8_t i = 0; i < c.EditCount(); ++i) ApplyEdit(c.edits[i], fields);
  return p;
}

// The count as a size_t: Dim's int32 (negative ones wrap past
// EA_MAX_ELEMENTS), or past 2^32 where a 32-bit count would look small.
size_t CountOf(const AddCase& c) {
  if (c.count_high >= 240) {
    return (static_cast<size_t>(c.count_high - 239) << 32) + static_cast<uint32_t>(c.count);
  }
  return static_cast<size_t>(static_cast<int64_t>(c.count));
}

// Element i of an input from the case's bytes (cyclic), as int32.
int32_t ValueOf(const std::vector<uint8_t>& bytes, uint8_t mode, size_t i, bool int8) {
  const size_t size = bytes.size();
  auto byte = [&](size_t k) { return size > 0 ? bytes[k % size] : uint8_t{0}; };
  switch (mode % 4) {
    case 1: {  // the dtype's extremes, one bit each
      const bool high = (byte(i / 8) >> (i % 8)) & 1;
      return int8 ? (high ? 127 : -128) : (high ? 32767 : -32768);
    }
    case 2:  // small: -4..3
      return static_cast<int8_t>(byte(i)) >> 5;
    case 3:  // a constant
      i = 0;
      break;
    default:
      break;
  }
  if (int8) return static_cast<int8_t>(byte(i));
  return static_cast<int16_t>(byte(2 * i) | (byte(2 * i + 1) << 8));
}

void Store(uint8_t* at, int32_t value, bool int8) {
  if (int8) {
    const int8_t v = static_cast<int8_t>(value);
    memcpy(at, &v, 1);
  } else {
    const int16_t v = static_cast<int16_t>(value);
    memcpy(at, &v, 2);
  }
}

ea_status RunAdd(bool int8, const uint8_t* a, const uint8_t* b, size_t count,
                 const ea_add_quant_params* params, uint8_t* out) {
  if (int8) {
    return ea_add_quant_run_s8(reinterpret_cast<const int8_t*>(a),
                               reinterpret_cast<const int8_t*>(b), count, params,
                               reinterpret_cast<int8_t*>(out));
  }
  return ea_add_quant_run_s16(reinterpret_cast<const int16_t*>(a),
                              reinterpret_cast<const int16_t*>(b), count, params,
                              reinterpret_cast<int16_t*>(out));
}

// The reference's ADD of the inputs as they were before the run, as bytes.
std::vector<uint8_t> ReferenceAdd(bool int8, const ea_add_quant_params& params,
                                  const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                                  size_t count) {
  const ref::AddParams p = RefAdd(params);
  std::vector<uint8_t> bytes(count * (int8 ? 1 : 2));
  if (int8) {
    const std::vector<int8_t> out = ref::Add(p, Typed<int8_t>(a.data(), count).data(),
                                             Typed<int8_t>(b.data(), count).data(), count);
    memcpy(bytes.data(), out.data(), bytes.size());
  } else {
    const std::vector<int16_t> out = ref::Add(p, Typed<int16_t>(a.data(), count).data(),
                                              Typed<int16_t>(b.data(), count).data(), count);
    memcpy(bytes.data(), out.data(), bytes.size());
  }
  return bytes;
}

void ExpectSameAsReference(const char* call, bool int8, const uint8_t* got,
                           const std::vector<uint8_t>& want, const std::vector<uint8_t>& a,
                           const std::vector<uint8_t>& b, const ea_add_quant_params& p) {
  if (memcmp(got, want.data(), want.size()) == 0) return;
  const size_t eb = int8 ? 1 : 2;
  size_t i = 0;
  while (memcmp(got + i * eb, want.data() + i * eb, eb) == 0) ++i;
  auto value = [&](const uint8_t* bytes) {
    return int8 ? int32_t{static_cast<int8_t>(bytes[i])}
                : int32_t{static_cast<int16_t>(bytes[2 * i] | (bytes[2 * i + 1] << 8))};
  };
  Fail(
      "%s: out[%zu] = %d, the reference ADD gives %d (a %d, b %d; left_shift %d, offsets "
      "%d/%d/%d, multipliers %d/%d/%d, shifts %d/%d/%d)",
      call, i, value(got), value(want.data()), value(a.data()), value(b.data()), p.left_shift,
      p.input1_offset, p.input2_offset, p.output_offset, p.input1_multiplier, p.input2_multiplier,
      p.output_multiplier, p.input1_shift, p.input2_shift, p.output_shift);
}

// [x, x + bytes) and [y, y + bytes) share a byte but do not start together.
bool PartlyOverlap(const uint8_t* x, const uint8_t* y, size_t bytes) {
  const uintptr_t u = reinterpret_cast<uintptr_t>(x), v = reinterpret_cast<uintptr_t>(y);
  return u != v && u < v + bytes && v < u + bytes;
}

void CheckRun(const AddCase& c, bool int8, const ea_add_quant_params& params) {
  const char* call = int8 ? "ea_add_quant_run_s8" : "ea_add_quant_run_s16";
  SetContext(call, "-");
  const size_t count = CountOf(c);
  const size_t eb = int8 ? 1 : 2;
  const uint16_t nulls = c.Nulls();
  const bool null_a = nulls & kAddNullA, null_b = nulls & kAddNullB,
             null_params = nulls & kAddNullParams, null_out = nulls & kAddNullOut;
  StatusSet rules;
  if (null_a || null_b || null_params || null_out) rules.Add(EA_ERR_NULL_POINTER);
  const bool count_ok = count >= 1 && count <= static_cast<size_t>(EA_MAX_ELEMENTS);
  if (count == 0) rules.Add(EA_ERR_BAD_DIMENSION);
  if (count > static_cast<size_t>(EA_MAX_ELEMENTS)) rules.Add(EA_ERR_DIMENSION_OVERFLOW);
  rules.Merge(AddParamsRules(int8 ? EA_DTYPE_INT8 : EA_DTYPE_INT16, params));

  // Buffers: the count when it is valid and small, else stand-ins.
  const bool materialised = count_ok && count <= kMaxAddElements;
  const size_t n = materialised ? count : kStandInElements;
  const uint8_t layout = c.Layout();
  const bool over_a = layout == kAddOutOverA, over_b = layout == kAddOutOverB;
  const bool same_inputs = layout == kAddSameInputs || layout == kAddAllSame;
  MemoryPool pool;
  const size_t pad_a = over_a ? n : 0, pad_b = over_b ? n : 0;
  const int a_region = pool.AddSeparate("a", (n + 2 * pad_a) * eb, 64, (c.misalign & 7) * eb);
  const int b_region =
      same_inputs ? a_region
                  : pool.AddSeparate("b", (n + 2 * pad_b) * eb, 64, ((c.misalign >> 3) & 7) * eb);
  const bool own_out = layout == kAddApart || layout == kAddSameInputs;
  const int out_region = own_out ? pool.AddSeparate("out", n * eb, 64, (c.misalign >> 6) * eb) : -1;
  const int params_region = pool.AddSeparate("params", sizeof(ea_add_quant_params), 4);
  pool.Allocate();
  uint8_t* a = pool.Bytes(a_region) + pad_a * eb;
  uint8_t* b = pool.Bytes(b_region) + pad_b * eb;
  // out over a or b: `shift` elements from it, -n..n (0: equal, +-n: adjacent).
  const int64_t shift =
      static_cast<int64_t>(static_cast<uint16_t>(c.shift) % (2 * n + 1)) - static_cast<int64_t>(n);
  uint8_t* out = own_out                                         ? pool.Bytes(out_region)
                 : layout == kAddOutIsA || layout == kAddAllSame ? a
                 : layout == kAddOutIsB                          ? b
                 : over_a ? a + shift * static_cast<int64_t>(eb)
                          : b + shift * static_cast<int64_t>(eb);
  for (size_t i = 0; i < n; ++i)
    Store(a + i * eb, ValueOf(c.a_values, c.value_mode, i, int8), int8);
  if (!same_inputs) {
    for (size_t i = 0; i < n; ++i) {
      Store(b + i * eb, ValueOf(c.b_values, c.value_mode, i, int8), int8);
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
    Debug(
        "ADD run: %s count %zu (%s), layout %d shift %lld, nulls %#x, params %d/%d/%d/%d/%d/%d/"
        "%d/%d/%d/%d, want %s\n",
        call, count, materialised ? "materialised" : "stand-ins", layout,
        static_cast<long long>(shift), static_cast<unsigned>(nulls), params.left_shift,
        params.input1_offset, params.input1_multiplier, params.input1_shift, params.input2_offset,
        params.input2_multiplier, params.input2_shift, params.output_offset,
        params.output_multiplier, params.output_shift, rules.Describe().c_str());
    pool.Dump();
  }
  pool.Snapshot();

  std::vector<uint8_t> want;
  if (!rules.MustFail()) want = ReferenceAdd(int8, params, a_before, b_before, count);
  const ByteRange out_range = pool.RangeOf(out, n * eb);
  const ea_add_quant_params* run_params =
      null_params ? nullptr
                  : reinterpret_cast<const ea_add_quant_params*>(pool.Bytes(params_region));
  for (int64_t target : SelectTargets(c.targets)) {
    ForceTarget(target);
    SetContext(call, TargetName(target));
    pool.Restore();
    const ea_status status = RunAdd(int8, null_a ? nullptr : a, null_b ? nullptr : b, count,
                                    run_params, null_out ? nullptr : out);
    ExpectStatus(call, status, rules);
    if (status != EA_OK) {
      ExpectUntouched(call, pool, {}, "refused");
      ++Stats().run_refused;
      continue;
    }
    ++Stats().runs;
    ExpectUntouched(call, pool, {out_range}, "succeeded");
    ExpectSameAsReference(call, int8, out, want, a_before, b_before, params);
    ++Stats().compared;
    const std::vector<uint8_t> first = CopyBytes(out, n * eb);
    if (in_place) {
      // The same inputs out of place (in vectors of their own).
      std::vector<uint8_t> a_copy = a_before, b_copy = b_before, apart(n * eb, kRerunCanary);
      if (RunAdd(int8, a_copy.data(), same_inputs ? a_copy.data() : b_copy.data(), count, &params,
                 apart.data()) != EA_OK) {
        Fail("%s refused out of place what it accepted in place (layout %d)", call, layout);
      }
      ExpectSameBits("in-place out against out of place", apart, first.data());
      ++Stats().in_place;
    } else {
      // A rerun over a refilled out writes every element again.
      memset(out, kRerunCanary, n * eb);
      if (RunAdd(int8, a, b, count, run_params, out) != EA_OK) Fail("%s: the rerun failed", call);
      ExpectSameBits("rerun over a refilled out", first, out);
    }
  }
  ForceTarget(0);
}

}  // namespace

void FuzzAdd(ByteReader& input) {
  AddCase c;
  Visit(input, c);
  ++Stats().cases;
  const ea_dtype dtype = QuantDtype(c.dtype_kind, c.dtype_raw);
  const bool int8 = dtype != EA_DTYPE_INT16;
  const ea_quant q[3] = {QuantOf(c.a_quant, NominalScale(int8, false), int8),
                         QuantOf(c.b_quant, NominalScale(int8, false), int8),
                         QuantOf(c.out_quant, NominalScale(int8, true), int8)};
  Debug("ADD case: dtype %d, a %g/%d, b %g/%d, out %g/%d, params %s, %d edits, wrong run %d\n",
        static_cast<int>(dtype), q[0].scale, q[0].zero_point, q[1].scale, q[1].zero_point,
        q[2].scale, q[2].zero_point, c.ParamsGiven() ? "given" : "derived", c.EditCount(),
        c.wrong_run >= 240);
  ea_add_quant_params derived{}, tflite{};
  bool known = false;
  const bool derived_ok = CheckDerive(c, dtype, q, &derived, &tflite, &known) == EA_OK;
  // The dtype's run function (INT8's for a dtype that is not fixed point),
  // or the other one on the same integers.
  const bool run_int8 = (dtype != EA_DTYPE_INT16) != (c.wrong_run >= 240);
  CheckRun(c, run_int8, RunParams(c, int8, derived_ok, derived, known, tflite));
}

}  // namespace edgeattn_fuzz
