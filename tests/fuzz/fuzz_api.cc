// Driver for the small entry points: ea_status_str over any int, the arena
// functions on odd buffers, ea_simd_target on every target (and its note
// for an unknown EDGEATTN_MAX_SIMD_TARGET), ea_sinusoidal_table_fill against
// the double reference, and the RoPE and ALiBi helpers (position_checks.h).
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <string>
#include <vector>

#include "driver_support.h"
#include "edgeattn/edgeattn.h"
#include "expected_status.h"
#include "failure.h"
#include "fuzz_case.h"
#include "fuzz_drivers.h"
#include "known_defects.h"
#include "memory_pool.h"
#include "position_checks.h"
#include "reference/reference_attention.h"
#include "simd_targets.h"

// Weak, so that the harness still links against trees from before the cap
// existed (FUZZ_SRC_ROOT snapshots); the check is skipped there.
extern "C" ea_status ea_set_max_simd_target(const char* name) __attribute__((weak));

namespace edgeattn_fuzz {
namespace {

void CheckStatusStrings(int32_t value) {
  SetContext("ea_status_str", "-");
  if (value < 0 && SkipKnown(kNegativeStatus)) value = -(value + 1);
  const char* text = ea_status_str(static_cast<ea_status>(value));
  if (text == nullptr || strnlen(text, 256) == 256)
    Fail("ea_status_str(%d) not a short string", value);
  // Every defined code has its own non-empty text.
  for (int a = EA_OK; a <= EA_ERR_UNSUPPORTED; ++a) {
    const char* ta = ea_status_str(static_cast<ea_status>(a));
    if (ta == nullptr || ta[0] == '\0') Fail("ea_status_str(%d) is empty", a);
    for (int b = a + 1; b <= EA_ERR_UNSUPPORTED; ++b) {
      if (strcmp(ta, ea_status_str(static_cast<ea_status>(b))) == 0) {
        Fail("ea_status_str(%d) == ea_status_str(%d)", a, b);
      }
    }
  }
}

void CheckArenaFunctions(const ApiCase& c) {
  SetContext("ea_arena_init", "-");
  MemoryPool pool;
  const uint32_t misalign = c.arena_misalign % 64;
  const size_t capacity = c.arena_capacity % 4096;
  const int region = pool.AddSeparate("buffer", capacity, 64, misalign);
  pool.Allocate();
  pool.Snapshot();
  ea_arena arena{nullptr, 7, 7};
  const bool null_arena = c.arena_flags & 1, null_buffer = c.arena_flags & 2;
  StatusSet rules;
  if (null_arena || null_buffer) rules.Add(EA_ERR_NULL_POINTER);
  if (!null_buffer && misalign != 0) rules.Add(EA_ERR_ARENA_MISALIGNED);
  const ea_status status = ea_arena_init(null_arena ? nullptr : &arena,
                                         null_buffer ? nullptr : pool.Bytes(region), capacity);
  ExpectStatus("ea_arena_init", status, rules);
  ExpectUntouched("ea_arena_init", pool, {}, "ran");
  if (status != EA_OK) {
    if (arena.base != nullptr || arena.capacity != 7 || arena.used != 7) {
      Fail("failed ea_arena_init changed the arena struct");
    }
  } else if (ea_arena_remaining(&arena) != capacity) {
    Fail("fresh arena: remaining %zu, want %zu", ea_arena_remaining(&arena), capacity);
  }
  SetContext("ea_arena_reset", "-");
  if (ea_arena_reset(nullptr) != EA_ERR_NULL_POINTER) Fail("ea_arena_reset(NULL) not refused");
  if (ea_arena_remaining(nullptr) != 0) Fail("ea_arena_remaining(NULL) != 0");
  ea_arena odd{pool.Bytes(region), capacity, capacity + 1 + (c.arena_flags >> 2)};
  if (ea_arena_remaining(&odd) != 0) Fail("ea_arena_remaining with used > capacity != 0");
  odd.used = capacity / 2;
  if (ea_arena_remaining(&odd) != capacity - capacity / 2) Fail("ea_arena_remaining wrong");
  if (ea_arena_reset(&odd) != EA_OK || odd.used != 0 || odd.capacity != capacity) {
    Fail("ea_arena_reset did not forget the carves");
  }
}

void CheckSinusoidalTable(const ApiCase& c) {
  SetContext("ea_sinusoidal_table_fill", "-");
  const bool null_table = c.table_flags & 1;
  StatusSet rules;
  if (null_table) rules.Add(EA_ERR_NULL_POINTER);
  if (c.n_positions <= 0 || c.d_model <= 0) {
    rules.Add(EA_ERR_BAD_DIMENSION);
  } else if (TooManyElements(c.n_positions, c.d_model)) {
    rules.Add(EA_ERR_DIMENSION_OVERFLOW);
  }
  const size_t count = BoundedCount(c.n_positions, c.d_model);
  // A valid shape too large to allocate here is not called: it would
  // legitimately write up to 1 GiB.
  if (!rules.MustFail() && count == 0) return;
  MemoryPool pool;
  const int region = pool.AddSeparate("table", (rules.MustFail() ? 16 : count) * 4, 4, 0);
  pool.Allocate();
  pool.Snapshot();
  const ea_status status = ea_sinusoidal_table_fill(null_table ? nullptr : pool.Floats(region),
                                                    c.n_positions, c.d_model);
  ExpectStatus("ea_sinusoidal_table_fill", status, rules);
  if (status != EA_OK) {
    ExpectUntouched("ea_sinusoidal_table_fill", pool, {}, "failed");
    return;
  }
  ExpectUntouched("ea_sinusoidal_table_fill", pool, {pool.Range(region)}, "succeeded");
  const std::vector<double> want = edgeattn_test::ReferenceSinusoidal(c.n_positions, c.d_model);
  const float* got = pool.Floats(region);
  for (size_t i = 0; i < count; ++i) {
    if (!(fabs(got[i] - want[i]) <= 1e-6)) {
      Fail("table[%zu] (pos %zu, col %zu) = %.9g, reference %.9g", i, i / c.d_model, i % c.d_model,
           got[i], want[i]);
    }
  }
}

// ea_linear_packed_size and ea_linear_pack_weights on the case's two
// dimensions (n_out = n_positions, n_in = d_model): documented statuses,
// nothing written on refusal, and the documented layout on success, checked
// element by element against the formula. table_flags bits 1-4: NULL w,
// NULL packed, a buffer one float short, packed starting inside w.
void CheckPackLinearWeights(const ApiCase& c) {
  SetContext("ea_linear_pack_weights", "-");
  const int32_t n_out = c.n_positions, n_in = c.d_model;
  const bool null_w = c.table_flags & 2, null_packed = c.table_flags & 4;
  const bool short_buffer = c.table_flags & 8, overlapping = c.table_flags & 16;
  StatusSet shape;
  if (n_out <= 0 || n_in <= 0) {
    shape.Add(EA_ERR_BAD_DIMENSION);
  } else if (TooManyElements((int64_t{n_out} + 63) / 64 * 64, n_in)) {
    shape.Add(EA_ERR_DIMENSION_OVERFLOW);
  }
  {
    size_t floats = 0x5A5A;
    const ea_status status = ea_linear_packed_size(n_out, n_in, &floats);
    ExpectStatus("ea_linear_packed_size", status, shape);
    if (status != EA_OK && floats != 0x5A5A) Fail("ea_linear_packed_size wrote on error");
    if (status == EA_OK && floats != static_cast<size_t>(n_in) * ((n_out + 63) / 64 * 64)) {
      Fail("ea_linear_packed_size = %zu", floats);
    }
  }
  const size_t w_count = BoundedCount(n_out, n_in);
  const size_t needed = BoundedCount((int64_t{n_out} + 63) / 64 * 64, n_in);
  // A valid shape too large to allocate here is not called.
  if (!shape.MustFail() && (w_count == 0 || needed == 0)) return;
  StatusSet rules = shape;
  if (null_w || null_packed) rules.Add(EA_ERR_NULL_POINTER);
  const size_t capacity = shape.MustFail() ? 16 : needed - (short_buffer ? 1 : 0);
  if (!shape.MustFail() && short_buffer) rules.Add(EA_ERR_ARENA_TOO_SMALL);
  if (!shape.MustFail() && overlapping && !short_buffer) rules.Add(EA_ERR_BAD_ARGUMENT);

  MemoryPool pool;
  const size_t w_floats = shape.MustFail() ? 16 : w_count;
  const int w_region = pool.AddSeparate("w", (w_floats + (overlapping ? capacity : 0)) * 4, 64);
  const int packed_region = overlapping ? pool.AddOver("packed", capacity * 4, w_region,
                                                       static_cast<int64_t>(w_floats / 2) * 4)
                                        : pool.AddSeparate("packed", capacity * 4, 64);
  pool.Allocate();
  float* w = pool.Floats(w_region);
  for (size_t i = 0; i < w_floats; ++i) w[i] = static_cast<float>(i % 1009) - 504.0f;
  pool.Snapshot();
  const ea_status status =
      ea_linear_pack_weights(null_w ? nullptr : w, n_out, n_in,
                             null_packed ? nullptr : pool.Floats(packed_region), capacity);
  ExpectStatus("ea_linear_pack_weights", status, rules);
  if (status != EA_OK) {
    ExpectUntouched("ea_linear_pack_weights", pool, {}, "refused");
    return;
  }
  ExpectUntouched("ea_linear_pack_weights", pool, {pool.Range(packed_region)}, "succeeded");
  const float* packed = pool.Floats(packed_region);
  for (int64_t o = 0; o < (int64_t{n_out} + 63) / 64 * 64; ++o) {
    for (int64_t i = 0; i < n_in; ++i) {
      const float want = o < n_out ? w[o * n_in + i] : 0.0f;
      const float got = packed[((o / 64) * n_in + i) * 64 + o % 64];
      if (got != want)
        Fail("packed W[%lld][%lld] = %g, want %g", static_cast<long long>(o),
             static_cast<long long>(i), got, want);
    }
  }
}

// ea_set_max_simd_target: a known name (any case) caps dispatch at that
// target, anything else is refused and changes nothing, NULL or "" lifts
// the cap. Runs without a forced target, and lifts the cap again.
void CheckSimdTargetCap(const ApiCase& c) {
  if (ea_set_max_simd_target == nullptr) return;
  SetContext("ea_set_max_simd_target", "-");
  ForceTarget(0);
  const char* best = ea_simd_target();
  std::string name;
  const char* argument = nullptr;
  bool known = true;
  int64_t cap = 0;
  switch (c.cap_kind % 4) {
    case 0:  // one of this CPU's targets, its case scrambled
    case 1: {
      cap = Targets()[c.cap_kind / 4 % Targets().size()];
      name = TargetName(cap);
      for (size_t i = 0; i < name.size() && i < c.cap_name.size(); ++i) {
        if (c.cap_name[i] & 1) name[i] = static_cast<char>(tolower(name[i]));
      }
      argument = name.c_str();
      break;
    }
    case 2:  // arbitrary bytes
      name.assign(c.cap_name.begin(), c.cap_name.end());
      name = name.c_str();  // up to the first NUL
      argument = name.c_str();
      known = name.empty();
      for (int64_t target : Targets()) {
        if (strcasecmp(name.c_str(), TargetName(target)) == 0) known = true, cap = target;
      }
      if (!known) {
        // Highway's other x86 names are known too, and not tested here.
        if (strcasecmp(name.c_str(), "EMU128") == 0 || strcasecmp(name.c_str(), "SSE2") == 0)
          return;
      }
      break;
    default:  // NULL lifts the cap
      break;
  }
  const ea_status status = ea_set_max_simd_target(argument);
  StatusSet rules;
  if (!known) rules.Add(EA_ERR_BAD_ARGUMENT);
  ExpectStatus("ea_set_max_simd_target", status, rules);
  const char* now = ea_simd_target();
  if (!known && strcmp(now, best) != 0) {
    Fail("refused ea_set_max_simd_target(\"%s\") changed the target from %s to %s", name.c_str(),
         best, now);
  }
  if (known && cap != 0 && strcmp(now, TargetName(cap)) != 0) {
    Fail("ea_set_max_simd_target(\"%s\"): the target is %s", name.c_str(), now);
  }
  if (ea_set_max_simd_target(nullptr) != EA_OK || strcmp(ea_simd_target(), best) != 0) {
    Fail("ea_set_max_simd_target(NULL) did not lift the cap: %s, was %s", ea_simd_target(), best);
  }
}

// EDGEATTN_MAX_SIMD_TARGET set to the case's bytes (environment_kind bit 0),
// with no explicit cap: a name of no target of this CPU family sets no cap,
// and ea_simd_target() reports the best target with the header's note; a
// known name caps as ea_set_max_simd_target would (checked there, skipped
// here). The variable is unset again.
void CheckSimdEnvironmentNote(const ApiCase& c) {
  if (!(c.environment_kind & 1)) return;
  SetContext("EDGEATTN_MAX_SIMD_TARGET", "-");
  ForceTarget(0);
  const std::string best = ea_simd_target();
  std::string name(c.cap_name.begin(), c.cap_name.end());
  name = name.c_str();  // up to the first NUL
  if (name.empty()) return;
  // Highway 1.0.3's names on x86 (the library knows every one of them).
  for (const char* known : {"SCALAR", "EMU128", "SSSE3", "SSE4", "AVX2", "AVX3", "AVX3_DL"}) {
    if (strcasecmp(name.c_str(), known) == 0) return;
  }
  setenv("EDGEATTN_MAX_SIMD_TARGET", name.c_str(), 1);
  const std::string reported = ea_simd_target();
  unsetenv("EDGEATTN_MAX_SIMD_TARGET");
  const std::string want = best + " (EDGEATTN_MAX_SIMD_TARGET unknown: ignored)";
  if (reported != want) {
    Fail("EDGEATTN_MAX_SIMD_TARGET=\"%s\": ea_simd_target() is \"%s\", want \"%s\"", name.c_str(),
         reported.c_str(), want.c_str());
  }
  if (ea_simd_target() != best) Fail("unsetting the variable left \"%s\"", ea_simd_target());
}

}  // namespace

void FuzzApi(ByteReader& input) {
  ApiCase c;
  Visit(input, c);
  CheckStatusStrings(c.status_value);
  CheckArenaFunctions(c);
  CheckSinusoidalTable(c);
  CheckPackLinearWeights(c);
  CheckSimdTargetCap(c);
  CheckSimdEnvironmentNote(c);
  CheckRopeTableFill(c);
  CheckRopeApply(c);
  CheckAlibiSlopesFill(c);
  for (int64_t target : Targets()) ForceTarget(target);  // checks ea_simd_target
  ForceTarget(0);
  SetContext("ea_simd_target", "default");
  if (ea_simd_target() == nullptr) Fail("ea_simd_target() is NULL");
}

}  // namespace edgeattn_fuzz
