// Driver for fixed-point RoPE (ea_rope_quant_derive, ea_rope_quant_apply_s8 /
// _s16): any six tensors' quantization, integers edited to the edges of
// MUL's and ADD's ranges, the other dtype's run, any shape, position and
// layout value, x apart, over either table or beside it, the two tables one
// buffer. Checked, on one decoded QuantRopeCase: derive's status against
// the header's rules (TFLite's Prepare of the three ops, as tests/reference
// computes it, inside quant.h's ranges), its integers equal to that Prepare,
// *params untouched on a refusal; the run's status against rope.h's rules,
// nothing written on a refusal, only x written on success, x equal to the
// reference's MUL, MUL, ADD graph (tests/reference/tflite_rope_reference.h)
// bit for bit on every selected SIMD target.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "driver_support.h"
#include "edgeattn/edgeattn.h"
#include "expected_status.h"
#include "failure.h"
#include "fuzz_drivers.h"
#include "int_values.h"
#include "memory_pool.h"
#include "quant_case_support.h"
#include "quant_rope_case.h"
#include "reference/tflite_rope_reference.h"
#include "simd_targets.h"

namespace edgeattn_fuzz {
namespace {

// Valid tensors larger than this are not materialised: such a call runs only
// when another rule refuses it first, on stand-ins.
constexpr int64_t kMaxRopeElements = int64_t{1} << 16;
constexpr size_t kStandInElements = 16;

struct RopeStats {
  size_t cases = 0, derived = 0, derive_refused = 0, runs = 0, run_refused = 0, compared = 0;
};

void PrintRopeStats();

RopeStats& Stats() {
  static RopeStats stats;
  static const bool registered = atexit(PrintRopeStats) == 0;
  (void)registered;
  return stats;
}

void PrintRopeStats() {
  const RopeStats& s = Stats();
  fprintf(stderr,
          "edgeattn fuzz: fixed-point RoPE: %zu cases, %zu derived, %zu derives refused, %zu "
          "runs, %zu runs refused, %zu compared with the reference\n",
          s.cases, s.derived, s.derive_refused, s.runs, s.run_refused, s.compared);
}

// Nominal scales of x, C, S, the products and the result.
float NominalScale(bool int8, int tensor) {
  const float x = int8 ? 1.0f / 64.0f : 1.0f / 4096.0f;
  if (tensor == 1 || tensor == 2) return int8 ? 1.0f / 127.0f : 1.0f / 32767.0f;
  return tensor == 0 ? x : 2.0f * x;
}

ea_rope_quant_scales ScalesOf(const QuantRopeCase& c, bool int8) {
  ea_quant q[6];
  for (int i = 0; i < 6; ++i) q[i] = QuantOf(c.quant[i], NominalScale(int8, i), int8);
  ea_rope_quant_scales s{};
  s.x = q[0];
  s.cos_table = q[1];
  s.sin_table = q[2];
  s.cos_product = q[3];
  s.sin_product = q[4];
  s.rotated = q[5];
  return s;
}

bool AllValid(ea_dtype dtype, const ea_rope_quant_scales& s) {
  for (ea_quant q : {s.x, s.cos_table, s.sin_table, s.cos_product, s.sin_product, s.rotated}) {
    if (!ValidQuantScale(q.scale) || !ValidZeroPoint(dtype, q.zero_point)) return false;
  }
  return true;
}

void ExpectSameRope(const ea_rope_quant_params& got, const ea_rope_quant_params& want) {
  ExpectSameMul(got.cos, want.cos);
  ExpectSameMul(got.sin, want.sin);
  ExpectSameAdd(got.add, want.add);
}

// ea_rope_quant_derive: status, TFLite's integers on EA_OK, *params
// untouched on a refusal. *tflite holds TFLite's Prepare where the scales
// allow computing it (*known).
ea_status CheckDerive(const QuantRopeCase& c, ea_dtype dtype, const ea_rope_quant_scales& scales,
                      ea_rope_quant_params* derived, ea_rope_quant_params* tflite, bool* known) {
  const char* call = "ea_rope_quant_derive";
  SetContext(call, "-");
  StatusSet rules;
  const bool null_scales = (c.Nulls() & kRopeNullScales) != 0;
  const bool null_params = (c.Nulls() & kRopeNullDerived) != 0;
  if (null_scales || null_params) rules.Add(EA_ERR_NULL_POINTER);
  *known = false;
  if (!IsFixed(dtype) || !AllValid(dtype, scales)) {
    rules.Add(EA_ERR_BAD_ARGUMENT);
  } else {
    tflite->cos = MulLikeTflite(scales.x, scales.cos_table, scales.cos_product);
    tflite->sin = MulLikeTflite(scales.x, scales.sin_table, scales.sin_product);
    tflite->add = AddLikeTflite(dtype == EA_DTYPE_INT8, scales.cos_product, scales.sin_product,
                                scales.rotated);
    *known = true;
    rules.Merge(RopeParamsRules(dtype, *tflite));
  }
  MemoryPool pool;
  const int scales_region = pool.AddSeparate("scales", sizeof(scales), 4);
  const int region = pool.AddSeparate("params", sizeof(ea_rope_quant_params), 4);
  pool.Allocate();
  memcpy(pool.Bytes(scales_region), &scales, sizeof(scales));
  pool.Snapshot();
  ea_rope_quant_params* out =
      null_params ? nullptr : reinterpret_cast<ea_rope_quant_params*>(pool.Bytes(region));
  const ea_rope_quant_scales* in =
      null_scales ? nullptr
                  : reinterpret_cast<const ea_rope_quant_scales*>(pool.Bytes(scales_region));
  const ea_status status = ea_rope_quant_derive(dtype, in, out);
  ExpectStatus(call, status, rules);
  if (status != EA_OK) {
    ExpectUntouched(call, pool, {}, "refused");
    ++Stats().derive_refused;
    return status;
  }
  ExpectUntouched(call, pool, {pool.Range(region)}, "succeeded");
  memcpy(derived, pool.Bytes(region), sizeof(*derived));
  ExpectSameRope(*derived, *tflite);
  ++Stats().derived;
  return status;
}

// The run's integers: derive's, else TFLite's, else defaults (the nominal
// scales' Prepare); then the case's edits of the 20 fields.
ea_rope_quant_params RunParams(const QuantRopeCase& c, bool int8, bool derived_ok,
                               const ea_rope_quant_params& derived, bool known,
                               const ea_rope_quant_params& tflite) {
  ea_rope_quant_params p{};
  if (derived_ok) {
    p = derived;
  } else if (known) {
    p = tflite;
  } else {
    const float x = NominalScale(int8, 0), table = NominalScale(int8, 1),
                product = NominalScale(int8, 3);
    p.cos = MulLikeTflite({x, 0}, {table, 0}, {product, 0});
    p.sin = p.cos;
    p.add = AddLikeTflite(int8, {product, 0}, {product, 0}, {product, 0});
  }
  if (!c.ParamsGiven()) return p;
  EditableFields fields;
  fields.scalars = {&p.cos.input1_offset,     &p.cos.input2_offset, &p.cos.output_offset,
                    &p.cos.output_multiplier, &p.cos.output_shift,  &p.sin.input1_offset,
                    &p.sin.input2_offset,     &p.sin.output_offset, &p.sin.output_multiplier,
                    &p.sin.output_shift,      &p.add.left_shift,    &p.add.input1_offset,
                    &p.add.input1_multiplier, &p.add.input1_shift,  &p.add.input2_offset,
                    &p.add.input2_multiplier, &p.add.input2_shift,  &p.add.output_offset,
                    &p.add.output_multiplier, &p.add.output_shift};
  for (uint8_t i = 0; i < c.EditCount(); ++i) ApplyEdit(c.edits[i], fields);
  return p;
}

// The first position: mostly inside the table's valid range, else raw (past
// int32 at kind >= 250).
int64_t FirstPosition(const QuantRopeCase& c) {
  const int64_t valid = int64_t{c.table_positions} - c.n_tokens + 1;
  if (c.position_kind < 200 && valid >= 1) {
    return static_cast<int64_t>(static_cast<uint32_t>(c.position_value) % valid);
  }
  if (c.position_kind >= 250) return int64_t{c.position_value} + (int64_t{1} << 32);
  return c.position_value;
}

ea_rope_layout LayoutOf(const QuantRopeCase& c) {
  if (c.layout_kind < 120) return EA_ROPE_HALF;
  if (c.layout_kind < 240) return EA_ROPE_INTERLEAVED;
  return static_cast<ea_rope_layout>(c.layout_raw);
}

// rope.h's rules of the shape, position and layout (ea_rope_apply's).
StatusSet ShapeRules(const QuantRopeCase& c, int64_t first, ea_rope_layout layout) {
  StatusSet rules;
  const bool dims =
      c.n_tokens > 0 && c.n_heads > 0 && c.d_head > 0 && c.d_head % 2 == 0 && c.table_positions > 0;
  if (!dims) rules.Add(EA_ERR_BAD_DIMENSION);
  if (first < 0 || first > int64_t{c.table_positions} - c.n_tokens) {
    rules.Add(EA_ERR_BAD_DIMENSION);
  }
  if (layout != EA_ROPE_HALF && layout != EA_ROPE_INTERLEAVED) rules.Add(EA_ERR_BAD_ARGUMENT);
  // In 128 bits: three int32 dimensions can pass int64.
  if (dims && (static_cast<__int128>(c.n_tokens) * c.n_heads * c.d_head > EA_MAX_ELEMENTS ||
               int64_t{c.table_positions} * c.d_head > EA_MAX_ELEMENTS)) {
    rules.Add(EA_ERR_DIMENSION_OVERFLOW);
  }
  return rules;
}

bool Overlap(const uint8_t* x, size_t x_bytes, const uint8_t* y, size_t y_bytes) {
  const uintptr_t u = reinterpret_cast<uintptr_t>(x), v = reinterpret_cast<uintptr_t>(y);
  return u < v + y_bytes && v < u + x_bytes;
}

ea_status RunRope(bool int8, uint8_t* x, const QuantRopeCase& c, int64_t first, const uint8_t* cos,
                  const uint8_t* sin, ea_rope_layout layout, const ea_rope_quant_params* params) {
  if (int8) {
    return ea_rope_quant_apply_s8(reinterpret_cast<int8_t*>(x), c.n_tokens, c.n_heads, c.d_head,
                                  first, reinterpret_cast<const int8_t*>(cos),
                                  reinterpret_cast<const int8_t*>(sin), c.table_positions, layout,
                                  params);
  }
  return ea_rope_quant_apply_s16(reinterpret_cast<int16_t*>(x), c.n_tokens, c.n_heads, c.d_head,
                                 first, reinterpret_cast<const int16_t*>(cos),
                                 reinterpret_cast<const int16_t*>(sin), c.table_positions, layout,
                                 params);
}

// The graph on x and the tables as they were before the run, as bytes.
std::vector<uint8_t> ReferenceRope(bool int8, const QuantRopeCase& c, int64_t first,
                                   ea_rope_layout layout, const ea_rope_quant_params& p,
                                   const std::vector<uint8_t>& x, const std::vector<uint8_t>& cos,
                                   const std::vector<uint8_t>& sin) {
  const size_t count = static_cast<size_t>(c.n_tokens) * c.n_heads * c.d_head;
  const size_t table = static_cast<size_t>(c.table_positions) * c.d_head;
  const bool interleaved = layout == EA_ROPE_INTERLEAVED;
  std::vector<uint8_t> bytes(count * (int8 ? 1 : 2));
  if (int8) {
    const std::vector<int8_t> y =
        ref::Rope(RefRope(p), Typed<int8_t>(x.data(), count).data(), c.n_tokens, c.n_heads,
                  c.d_head, static_cast<int>(first), Typed<int8_t>(cos.data(), table).data(),
                  Typed<int8_t>(sin.data(), table).data(), interleaved);
    memcpy(bytes.data(), y.data(), bytes.size());
  } else {
    const std::vector<int16_t> y =
        ref::Rope(RefRope(p), Typed<int16_t>(x.data(), count).data(), c.n_tokens, c.n_heads,
                  c.d_head, static_cast<int>(first), Typed<int16_t>(cos.data(), table).data(),
                  Typed<int16_t>(sin.data(), table).data(), interleaved);
    memcpy(bytes.data(), y.data(), bytes.size());
  }
  return bytes;
}

void CheckRun(const QuantRopeCase& c, bool int8, const ea_rope_quant_params& params) {
  const char* call = int8 ? "ea_rope_quant_apply_s8" : "ea_rope_quant_apply_s16";
  SetContext(call, "-");
  const size_t eb = int8 ? 1 : 2;
  const uint16_t nulls = c.Nulls();
  const bool null_x = nulls & kRopeNullX, null_cos = nulls & kRopeNullCos,
             null_sin = nulls & kRopeNullSin, null_params = nulls & kRopeNullParams;
  const int64_t first = FirstPosition(c);
  const ea_rope_layout layout = LayoutOf(c);
  StatusSet rules = ShapeRules(c, first, layout);
  if (null_x || null_cos || null_sin || null_params) rules.Add(EA_ERR_NULL_POINTER);
  rules.Merge(RopeParamsRules(int8 ? EA_DTYPE_INT8 : EA_DTYPE_INT16, params));
  const bool shape_ok = !ShapeRules(c, first, layout).MustFail();

  // Buffers: the shape's when it is valid and small, else stand-ins.
  const int64_t x_elements = shape_ok ? int64_t{c.n_tokens} * c.n_heads * c.d_head : 0;
  const int64_t table_elements = shape_ok ? int64_t{c.table_positions} * c.d_head : 0;
  const bool materialised =
      shape_ok && x_elements <= kMaxRopeElements && table_elements <= kMaxRopeElements;
  const size_t xn = materialised ? static_cast<size_t>(x_elements) : kStandInElements;
  const size_t tn = materialised ? static_cast<size_t>(table_elements) : kStandInElements;
  const uint8_t placement = c.Placement();
  const bool over_cos = placement == kRopeOverCos, over_sin = placement == kRopeOverSin;
  MemoryPool pool;
  const int cos_region = pool.AddSeparate("cos", (tn + (over_cos ? 2 * xn : 0)) * eb, 64);
  const int sin_region = placement == kRopeOneTable
                             ? cos_region
                             : pool.AddSeparate("sin", (tn + (over_sin ? 2 * xn : 0)) * eb, 64);
  const int x_region = over_cos || over_sin ? -1 : pool.AddSeparate("x", xn * eb, 64);
  const int params_region = pool.AddSeparate("params", sizeof(params), 4);
  pool.Allocate();
  uint8_t* cos = pool.Bytes(cos_region) + (over_cos ? xn * eb : 0);
  uint8_t* sin = pool.Bytes(sin_region) + (over_sin ? xn * eb : 0);
  // Over a table: x starts `shift` elements from it, -xn..tn.
  const int64_t shift = static_cast<int64_t>(static_cast<uint16_t>(c.shift) % (xn + tn + 1)) -
                        static_cast<int64_t>(xn);
  uint8_t* x = over_cos   ? cos + shift * static_cast<int64_t>(eb)
               : over_sin ? sin + shift * static_cast<int64_t>(eb)
                          : pool.Bytes(x_region);
  for (size_t i = 0; i < tn; ++i) {
    StoreInt(cos + i * eb, IntValueOf(c.cos_values, c.value_mode, i, int8), int8);
  }
  if (placement != kRopeOneTable) {
    for (size_t i = 0; i < tn; ++i) {
      StoreInt(sin + i * eb, IntValueOf(c.sin_values, c.value_mode, i, int8), int8);
    }
  }
  for (size_t i = 0; i < xn; ++i) {
    StoreInt(x + i * eb, IntValueOf(c.x_values, c.value_mode, i, int8), int8);
  }
  memcpy(pool.Bytes(params_region), &params, sizeof(params));
  const std::vector<uint8_t> x_before = CopyBytes(x, xn * eb);
  const std::vector<uint8_t> cos_before = CopyBytes(cos, tn * eb);
  const std::vector<uint8_t> sin_before = CopyBytes(sin, tn * eb);

  // x over a table is refused (by address, for the nominal sizes).
  if (shape_ok && !null_x) {
    const size_t x_bytes = static_cast<size_t>(x_elements) * eb;
    const size_t t_bytes = static_cast<size_t>(table_elements) * eb;
    if ((!null_cos && Overlap(x, x_bytes, cos, t_bytes)) ||
        (!null_sin && Overlap(x, x_bytes, sin, t_bytes))) {
      rules.Add(EA_ERR_BAD_ARGUMENT);
    }
  }
  // A valid shape too large to allocate is called only when refused.
  if (!materialised && !rules.MustFail()) return;

  if (Debugging()) {
    Debug(
        "RoPE run: %s tokens %d heads %d d_head %d table %d first %lld layout %d, placement %d "
        "shift %lld, nulls %#x, want %s\n",
        call, c.n_tokens, c.n_heads, c.d_head, c.table_positions, static_cast<long long>(first),
        static_cast<int>(layout), placement, static_cast<long long>(shift),
        static_cast<unsigned>(nulls), rules.Describe().c_str());
    pool.Dump();
  }
  pool.Snapshot();

  std::vector<uint8_t> want;
  if (!rules.MustFail()) {
    want = ReferenceRope(int8, c, first, layout, params, x_before, cos_before, sin_before);
  }
  const ByteRange x_range = pool.RangeOf(x, xn * eb);
  const ea_rope_quant_params* run_params =
      null_params ? nullptr
                  : reinterpret_cast<const ea_rope_quant_params*>(pool.Bytes(params_region));
  for (int64_t target : SelectTargets(c.targets)) {
    ForceTarget(target);
    SetContext(call, TargetName(target));
    pool.Restore();
    const ea_status status = RunRope(int8, null_x ? nullptr : x, c, first, null_cos ? nullptr : cos,
                                     null_sin ? nullptr : sin, layout, run_params);
    ExpectStatus(call, status, rules);
    if (status != EA_OK) {
      ExpectUntouched(call, pool, {}, "refused");
      ++Stats().run_refused;
      continue;
    }
    ++Stats().runs;
    ExpectUntouched(call, pool, {x_range}, "succeeded");
    if (memcmp(x, want.data(), want.size()) != 0) {
      size_t i = 0;
      while (memcmp(x + i * eb, want.data() + i * eb, eb) == 0) ++i;
      Fail("%s: element %zu of x differs from the reference's MUL, MUL, ADD graph", call, i);
    }
    ++Stats().compared;
  }
  ForceTarget(0);
}

}  // namespace

void FuzzQuantRope(ByteReader& input) {
  QuantRopeCase c;
  Visit(input, c);
  ++Stats().cases;
  const ea_dtype dtype = QuantDtype(c.dtype_kind, c.dtype_raw);
  const bool int8 = dtype != EA_DTYPE_INT16;
  const ea_rope_quant_scales scales = ScalesOf(c, int8);
  ea_rope_quant_params derived{}, tflite{};
  bool known = false;
  const bool derived_ok = CheckDerive(c, dtype, scales, &derived, &tflite, &known) == EA_OK;
  const bool run_int8 = (dtype != EA_DTYPE_INT16) != (c.wrong_run >= 240);
  CheckRun(c, run_int8, RunParams(c, int8, derived_ok, derived, known, tflite));
}

}  // namespace edgeattn_fuzz
