// See position_checks.h. The formulas are the headers' (rope.h: angle
// position * base^(-2i / d_head), pairs (i, i + d/2) or (2i, 2i + 1);
// kv_cache.h: the ALiBi paper's slopes), computed in double.
#include "position_checks.h"

#include <math.h>
#include <stdint.h>

#include <vector>

#include "driver_support.h"
#include "edgeattn/kv_cache.h"
#include "edgeattn/rope.h"
#include "expected_status.h"
#include "failure.h"
#include "memory_pool.h"

namespace edgeattn_fuzz {
namespace {

// Bases: the usual ones, edges around the rule base > 1 and finite, or any
// float's bits.
float BaseOf(const ApiCase& c) {
  static const float kBases[] = {10000.0f, 500000.0f, 2.0f,      1.0f, 1.0000001f, 0.5f,  0.0f,
                                 -3.0f,    INFINITY,  -INFINITY, NAN,  3.4e38f,    1e-40f};
  const uint8_t k = c.rope_base_kind;
  if (k < 160) return kBases[0];
  if (k < 224) return kBases[k % (sizeof kBases / sizeof kBases[0])];
  return c.rope_base_bits;
}

bool BaseIsValid(float base) { return base > 1.0f && base <= 3.40282347e38f; }

StatusSet RopeShapeRules(int64_t positions, int64_t d_head) {
  StatusSet rules;
  if (positions <= 0 || d_head <= 0 || d_head % 2 != 0) {
    rules.Add(EA_ERR_BAD_DIMENSION);
  } else if (TooManyElements(positions, d_head)) {
    rules.Add(EA_ERR_DIMENSION_OVERFLOW);
  }
  return rules;
}

// sin or cos of position * base^(-i / d_head) (i even), as the header says.
double Angle(double base, int64_t position, int64_t i, int64_t d_head) {
  return static_cast<double>(position) *
         pow(base, -static_cast<double>(i) / static_cast<double>(d_head));
}

// The paper's slopes (Press et al., reference code get_slopes): n a power of
// two: 2^(-8 (h + 1) / n); otherwise the slopes of the largest power of two
// p < n, then every other slope of 2p for the remaining n - p heads.
std::vector<double> PaperSlopes(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  std::vector<double> slopes;
  for (int64_t h = 0; h < p; ++h) slopes.push_back(exp2(-8.0 * (h + 1) / p));
  for (int64_t j = 0; static_cast<int64_t>(slopes.size()) < n; j += 2) {
    slopes.push_back(exp2(-8.0 * (j + 1) / (2.0 * p)));
  }
  return slopes;
}

}  // namespace

void CheckRopeTableFill(const ApiCase& c) {
  SetContext("ea_rope_table_fill", "-");
  const float base = BaseOf(c);
  const bool null_table = c.rope_flags & 1;
  StatusSet rules = RopeShapeRules(c.rope_positions, c.rope_d_head);
  if (null_table) rules.Add(EA_ERR_NULL_POINTER);
  if (!BaseIsValid(base)) rules.Add(EA_ERR_BAD_ARGUMENT);
  const size_t count = BoundedCount(c.rope_positions, c.rope_d_head);
  if (!rules.MustFail() && count == 0) return;  // valid, too large to allocate here
  MemoryPool pool;
  const int region = pool.AddSeparate("table", (rules.MustFail() ? 16 : count) * 4, 4, 0);
  pool.Allocate();
  pool.Snapshot();
  const ea_status status = ea_rope_table_fill(null_table ? nullptr : pool.Floats(region),
                                              c.rope_positions, c.rope_d_head, base);
  ExpectStatus("ea_rope_table_fill", status, rules);
  if (status != EA_OK) {
    ExpectUntouched("ea_rope_table_fill", pool, {}, "refused");
    return;
  }
  ExpectUntouched("ea_rope_table_fill", pool, {pool.Range(region)}, "succeeded");
  const float* table = pool.Floats(region);
  for (int64_t pos = 0; pos < c.rope_positions; ++pos) {
    for (int64_t i = 0; i < c.rope_d_head; i += 2) {
      const double angle = Angle(base, pos, i, c.rope_d_head);
      const float* entry = table + pos * c.rope_d_head + i;
      // Rounded once from double: within half a float ulp of a value at most
      // 1 (plus the double angle's own error, far below that).
      if (!(fabs(entry[0] - sin(angle)) <= 1e-7) || !(fabs(entry[1] - cos(angle)) <= 1e-7)) {
        Fail("rope table (pos %lld, pair %lld) = (%.9g, %.9g), want (%.9g, %.9g), base %g",
             static_cast<long long>(pos), static_cast<long long>(i / 2), entry[0], entry[1],
             sin(angle), cos(angle), base);
      }
    }
  }
}

// x [tokens, heads * d_head] rotated from first_position with a table of
// rope_positions rows of base 10000 (valid tables: the fill is checked above).
// rope_flags bits 1..3: NULL x, NULL table, x placed inside the table.
void CheckRopeApply(const ApiCase& c) {
  SetContext("ea_rope_apply", "-");
  const int32_t tokens = c.rope_tokens, heads = c.rope_heads, d_head = c.rope_d_head;
  const int32_t table_positions = c.rope_positions;
  const bool null_x = c.rope_flags & 2, null_table = c.rope_flags & 4;
  const bool x_over_table = c.rope_flags & 8;
  int64_t first = c.rope_first;
  switch (c.rope_first_kind % 4) {
    case 0:  // the last rows of the table, or from 0
      first = c.rope_first_kind < 128 ? 0 : int64_t{table_positions} - tokens;
      break;
    case 1:
      first = int64_t{table_positions} - tokens + 1;  // one row past the table
      break;
    case 2:
      first = int64_t{c.rope_first} * (int64_t{1} << 31);  // far beyond int32
      break;
    default:
      break;
  }
  StatusSet rules;
  if (null_x || null_table) rules.Add(EA_ERR_NULL_POINTER);
  if (tokens <= 0 || heads <= 0 || d_head <= 0 || d_head % 2 != 0 || table_positions <= 0) {
    rules.Add(EA_ERR_BAD_DIMENSION);
  } else {
    if (first < 0 || first + tokens > table_positions) rules.Add(EA_ERR_BAD_DIMENSION);
    if (TooManyElements(tokens, int64_t{heads} * d_head) ||
        TooManyElements(table_positions, d_head)) {
      rules.Add(EA_ERR_DIMENSION_OVERFLOW);
    }
  }
  if (c.rope_layout != EA_ROPE_HALF && c.rope_layout != EA_ROPE_INTERLEAVED) {
    rules.Add(EA_ERR_BAD_ARGUMENT);
  }
  const size_t x_count = BoundedCount(tokens, int64_t{heads} * d_head);
  const size_t table_count = BoundedCount(table_positions, d_head);
  const bool shape_ok = !rules.MustFail();
  if (shape_ok && (x_count == 0 || table_count == 0)) return;  // too large to allocate here
  // x over the table: x starts inside the table (always a real overlap).
  if (x_over_table && !null_x && !null_table) rules.Add(EA_ERR_BAD_ARGUMENT);

  const size_t x_floats = x_count != 0 ? x_count : 16;
  const size_t table_floats = table_count != 0 ? table_count : 16;
  MemoryPool pool;
  const int table_region =
      pool.AddSeparate("table", (table_floats + (x_over_table ? x_floats : 0)) * 4, 64);
  const int x_region = x_over_table ? pool.AddOver("x", x_floats * 4, table_region,
                                                   static_cast<int64_t>(table_floats / 2) * 4)
                                    : pool.AddSeparate("x", x_floats * 4, 4);
  pool.Allocate();
  float* table = pool.Floats(table_region);
  const bool valid_table = table_count != 0 && d_head > 0 && d_head % 2 == 0;
  if (valid_table && ea_rope_table_fill(table, table_positions, d_head, 10000.0f) != EA_OK) {
    Fail("ea_rope_table_fill refused a valid table");
  }
  float* x = pool.Floats(x_region);
  for (size_t i = 0; i < x_floats; ++i) {
    const uint8_t b = c.rope_values.empty() ? 0 : c.rope_values[i % c.rope_values.size()];
    x[i] = static_cast<float>(static_cast<int>(b) - 128) / 16.0f + static_cast<float>(i % 7);
  }
  const std::vector<float> x_before(x, x + x_floats);
  pool.Snapshot();
  const ea_status status = ea_rope_apply(null_x ? nullptr : x, tokens, heads, d_head, first,
                                         null_table ? nullptr : table, table_positions,
                                         static_cast<ea_rope_layout>(c.rope_layout));
  ExpectStatus("ea_rope_apply", status, rules);
  if (status != EA_OK) {
    ExpectUntouched("ea_rope_apply", pool, {}, "refused");
    return;
  }
  ExpectUntouched("ea_rope_apply", pool, {pool.Range(x_region)}, "succeeded");
  const bool interleaved = c.rope_layout == EA_ROPE_INTERLEAVED;
  const int64_t half = d_head / 2;
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t h = 0; h < heads; ++h) {
      const size_t head = static_cast<size_t>((t * heads + h) * d_head);
      for (int64_t i = 0; i < half; ++i) {
        const size_t a = head + static_cast<size_t>(interleaved ? 2 * i : i);
        const size_t b = head + static_cast<size_t>(interleaved ? 2 * i + 1 : i + half);
        const double angle = Angle(10000.0, first + t, 2 * i, d_head);
        const double a0 = x_before[a], b0 = x_before[b];
        const double want_a = a0 * cos(angle) - b0 * sin(angle);
        const double want_b = a0 * sin(angle) + b0 * cos(angle);
        // The table's sin and cos are within 2^-24 (rounded once); two float
        // products and a sum add a few ulps of |a0| + |b0|.
        const double bound = 4e-7 * (fabs(a0) + fabs(b0)) + 1e-30;
        if (!(fabs(x[a] - want_a) <= bound) || !(fabs(x[b] - want_b) <= bound)) {
          Fail("rope_apply token %lld head %lld pair %lld: (%.9g, %.9g), want (%.9g, %.9g)",
               static_cast<long long>(t), static_cast<long long>(h), static_cast<long long>(i),
               x[a], x[b], want_a, want_b);
        }
      }
    }
  }
}

// alibi_flags bit 0: NULL slopes.
void CheckAlibiSlopesFill(const ApiCase& c) {
  SetContext("ea_alibi_slopes_fill", "-");
  const bool null_slopes = c.alibi_flags & 1;
  StatusSet rules;
  if (null_slopes) rules.Add(EA_ERR_NULL_POINTER);
  if (c.alibi_heads <= 0) rules.Add(EA_ERR_BAD_DIMENSION);
  const size_t count = BoundedCount(c.alibi_heads, 1);
  if (!rules.MustFail() && count == 0) return;  // valid, too large to allocate here
  MemoryPool pool;
  const int region = pool.AddSeparate("slopes", (count != 0 ? count : 16) * 4, 4);
  pool.Allocate();
  pool.Snapshot();
  const ea_status status =
      ea_alibi_slopes_fill(null_slopes ? nullptr : pool.Floats(region), c.alibi_heads);
  ExpectStatus("ea_alibi_slopes_fill", status, rules);
  if (status != EA_OK) {
    ExpectUntouched("ea_alibi_slopes_fill", pool, {}, "refused");
    return;
  }
  ExpectUntouched("ea_alibi_slopes_fill", pool, {pool.Range(region)}, "succeeded");
  const std::vector<double> want = PaperSlopes(c.alibi_heads);
  const float* got = pool.Floats(region);
  for (size_t h = 0; h < count; ++h) {
    if (!(fabs(got[h] - want[h]) <= 6e-8 * want[h])) {
      Fail("slope %zu of %d = %.9g, want %.9g", h, c.alibi_heads, got[h], want[h]);
    }
  }
}

}  // namespace edgeattn_fuzz
