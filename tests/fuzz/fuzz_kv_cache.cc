// Driver for the KV cache (edgeattn/kv_cache.h): ea_kv_cache_arena_size and
// ea_kv_cache_init on a decoded config and arena, then up to kMaxKvOps calls
// (append, attend, reset, a re-init with a broken config or no arena left),
// replayed from the same start on every selected SIMD target. Checked: each
// status against the header's rules (a model of the cache's readiness and
// length, written from the header, gives them); a refusal writes no pool
// byte and leaves the cache struct as it was; a failed init clears `ready`
// and leaves arena.used; arena_size is KvCacheArenaBytes and init carves
// exactly that; an append writes only the carve, an attend only its output
// and the carve's scratch (never the stored records); attend outputs against
// ReferenceDecode over the stored values (kv_cache_check.h); a rerun gives
// the same bits; the same appends store the same bytes on every target.
#include <math.h>
#include <string.h>

#include <optional>
#include <vector>

#include "driver_support.h"
#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "edgeattn/kv_cache.h"
#include "expected_status.h"
#include "failure.h"
#include "fuzz_case.h"
#include "fuzz_drivers.h"
#include "kv_cache_check.h"
#include "memory_pool.h"
#include "simd_targets.h"
#include "tensor_fill.h"

namespace edgeattn_fuzz {
namespace {

using edgeattn_test::StoredAs;

// Op tensors materialised per case, all ops together: the pool, its
// snapshots and the reference history stay a few MiB at most.
constexpr int64_t kMaxKvCaseFloats = 2 * kMaxTensorFloats;
// A buffer for a call the rules refuse before reading it.
constexpr size_t kStandInFloats = 16;

const char* const kRegionNames[kMaxKvOps][2][2] = {
    {{"op0 k", "op0 v"}, {"op0 q", "op0 out"}}, {{"op1 k", "op1 v"}, {"op1 q", "op1 out"}},
    {{"op2 k", "op2 v"}, {"op2 q", "op2 out"}}, {{"op3 k", "op3 v"}, {"op3 q", "op3 out"}},
    {{"op4 k", "op4 v"}, {"op4 q", "op4 out"}}, {{"op5 k", "op5 v"}, {"op5 q", "op5 out"}},
    {{"op6 k", "op6 v"}, {"op6 q", "op6 out"}}, {{"op7 k", "op7 v"}, {"op7 q", "op7 out"}}};
const char* const kKindNames[4] = {"append", "attend", "reset", "re-init"};

ea_kv_cache_config MakeConfig(const KvCacheCase& c) {
  ea_kv_cache_config config;
  memset(&config, 0, sizeof(config));
  config.capacity = c.Capacity();
  config.n_heads = c.n_heads;
  config.n_kv_heads = c.NKvHeads();
  config.d_head = c.d_head;
  config.max_queries = c.MaxQueries();
  config.window = c.Window();
  config.storage = static_cast<ea_kv_storage>(c.storage);
  config.scale = ScaleValue(c.scale_kind, c.scale_bits);
  return config;
}

// A config that breaks at least one rule, for re-initialising a cache.
ea_kv_cache_config BrokenConfig(const ea_kv_cache_config& good, uint8_t field, int32_t value) {
  ea_kv_cache_config bad = good;
  switch (field % 8) {
    case 0:
      bad.capacity = value;
      break;
    case 1:
      bad.n_heads = value;
      break;
    case 2:
      bad.n_kv_heads = value;
      break;
    case 3:
      bad.d_head = value;
      break;
    case 4:
      bad.max_queries = value;
      break;
    case 5:
      bad.window = value;
      break;
    case 6:
      bad.storage = static_cast<ea_kv_storage>(value);
      break;
    default:
      memcpy(&bad.scale, &value, sizeof(bad.scale));
      break;
  }
  if (!KvCacheConfigRules(bad).MustFail()) bad.capacity = 0;
  return bad;
}

// The cache as the header's rules leave it.
struct Model {
  bool ready = false;
  int64_t length = 0;
  int32_t last_append = 0;
};

int64_t Clamp(int64_t value, int64_t lo, int64_t hi) {
  return value < lo ? lo : value > hi ? hi : value;
}

// An op's count: chunk / any valid / one past / zero / anything (KvOp).
int32_t KvCount(const KvOp& op, const Model& m, const ea_kv_cache_config& config) {
  const int64_t capacity = m.ready ? config.capacity : Clamp(config.capacity, 1, 64);
  const int64_t max_queries = m.ready ? config.max_queries : Clamp(config.max_queries, 1, 64);
  int64_t largest, chunk;
  if (op.Kind() == kKvAppend) {
    largest = config.window > 0 || !m.ready ? capacity : capacity - m.length;
    chunk = largest < max_queries ? largest : max_queries;
  } else if (op.All()) {  // any number of queries once a token is held
    largest = m.length >= 1 ? max_queries : 0;
    chunk = largest;
  } else {
    largest = m.length < max_queries ? m.length : max_queries;
    chunk = m.last_append >= 1 && m.last_append <= largest ? m.last_append : largest;
  }
  const uint32_t raw = static_cast<uint32_t>(op.length_value);
  int64_t n;
  if (op.length_kind < 96) {
    n = op.Kind() == kKvAppend ? (chunk >= 1 ? 1 + raw % chunk : 1) : (chunk >= 1 ? chunk : 1);
  } else if (op.length_kind < 160) {
    n = largest >= 1 ? 1 + raw % largest : 1;
  } else if (op.length_kind < 192) {
    n = largest + 1;
  } else if (op.length_kind < 208) {
    n = 0;
  } else {
    return op.length_value;
  }
  return static_cast<int32_t>(Clamp(n, INT32_MIN, INT32_MAX));
}

// One op as laid out in the pool.
struct PlannedOp {
  uint8_t kind = kKvReset;
  int32_t n = 0;
  int first = -1, second = -1;  // regions: k, v (append) or q, out (attend)
  size_t first_floats = 0, second_floats = 0;
  bool stand_in = false;  // buffers too small for a call that reads them
  bool all = false;       // attend as ea_kv_cache_attend_all
};

// Bytes of n rows of `row` floats, saturated (config fields may be anything).
int64_t RowBytes(int32_t n, int64_t row) {
  if (n < 1 || row < 1) return 0;
  return row > INT64_MAX / 4 / n ? INT64_MAX : int64_t{n} * row * 4;
}

// A pool range of `bytes` from `pointer` as the library sees it (clamped to
// the pool: only overlaps matter).
ByteRange Extent(const MemoryPool& pool, const void* pointer, int64_t bytes) {
  if (pointer == nullptr || bytes <= 0) return ByteRange{};
  return pool.RangeOf(pointer, static_cast<size_t>(bytes));
}

using CacheBytes = std::vector<uint8_t>;
CacheBytes BytesOf(const ea_kv_cache& cache) { return CopyBytes(&cache, sizeof(cache)); }

void ExpectCacheUnchanged(const char* call, const CacheBytes& before, const ea_kv_cache& cache) {
  if (memcmp(before.data(), &cache, sizeof(cache)) != 0) {
    ea_kv_cache old;
    memcpy(&old, before.data(), sizeof(old));
    Fail("%s changed the cache struct (length %lld -> %lld, ready %#x -> %#x)", call,
         static_cast<long long>(old.length), static_cast<long long>(cache.length), old.ready,
         cache.ready);
  }
}

// After each successful append: the chain of what was stored so far and a
// hash of the stored records.
struct StoredRecord {
  int op = -1;
  uint64_t inputs = 0, records = 0;
};

}  // namespace

void FuzzKvCache(ByteReader& input) {
  KvCacheCase c;
  Visit(input, c);
  const uint16_t nulls = c.common.Nulls();
  const ea_kv_cache_config config = MakeConfig(c);
  const StatusSet config_rules = KvCacheConfigRules(config);
  const bool config_valid = !config_rules.MustFail();
  const uint64_t need = config_valid ? edgeattn::KvCacheArenaBytes(config) : 0;

  // --- ea_kv_cache_arena_size
  SetContext("ea_kv_cache_arena_size", "-");
  {
    size_t bytes = 0x5A5A;
    StatusSet rules = config_rules;
    if (nulls & (kNullSizeConfig | kNullSizeBytes)) rules.Add(EA_ERR_NULL_POINTER);
    const ea_status status = ea_kv_cache_arena_size(nulls & kNullSizeConfig ? nullptr : &config,
                                                    nulls & kNullSizeBytes ? nullptr : &bytes);
    ExpectStatus("ea_kv_cache_arena_size", status, rules);
    if (status != EA_OK && bytes != 0x5A5A) Fail("ea_kv_cache_arena_size wrote *bytes on error");
    if (status == EA_OK && bytes != need) {
      Fail("ea_kv_cache_arena_size = %zu, KvCacheArenaBytes = %llu", bytes,
           static_cast<unsigned long long>(need));
    }
  }

  // --- plan the pool: the arena, then each op's buffers, sized by the
  // counts the model of the cache resolves
  const ArenaLayout layout = LayOutArena(c.arena, need);
  const bool init_predicted =
      config_valid && !(nulls & (kNullPlan | kNullPlanConfig | kNullArena | kNullArenaBase)) &&
      !c.arena.Overfull() && (layout.misalign + layout.pre_used) % EA_ARENA_ALIGNMENT == 0 &&
      layout.pre_used <= layout.capacity && need <= layout.capacity - layout.pre_used;
  const int64_t kv_row = int64_t{config.n_kv_heads} * config.d_head;
  const int64_t q_row = int64_t{config.n_heads} * config.d_head;
  MemoryPool pool;
  const int arena_region = pool.AddSeparate("arena", layout.capacity, 64, layout.misalign);
  std::vector<int> regions = {arena_region};
  std::vector<PlannedOp> planned(static_cast<size_t>(c.OpCount()));
  {
    Model m;
    m.ready = init_predicted;
    int64_t budget = kMaxKvCaseFloats;
    // Floats for `n` rows of `row`, or a stand-in when that does not fit.
    auto floats_for = [&](int32_t n, int64_t row, int buffers, bool* stand_in) -> size_t {
      if (n >= 1 && row >= 1 && row <= kMaxTensorFloats && n <= kMaxTensorFloats / row &&
          n * row * buffers <= budget) {
        budget -= n * row * buffers;
        return static_cast<size_t>(n * row);
      }
      *stand_in = true;
      return kStandInFloats;
    };
    for (int i = 0; i < c.OpCount(); ++i) {
      const KvOp& op = c.ops[i];
      PlannedOp& p = planned[static_cast<size_t>(i)];
      p.kind = op.Kind();
      p.all = p.kind == kKvAttend && op.All();
      if (p.kind == kKvAppend || p.kind == kKvAttend) {
        p.n = KvCount(op, m, config);
        const bool append = p.kind == kKvAppend;
        const int64_t row = append ? kv_row : q_row;
        const size_t floats = floats_for(p.n, row, 2, &p.stand_in);
        p.first_floats = p.second_floats = floats;
        p.first =
            PlaceRegion(&pool, kRegionNames[i][append ? 0 : 1][0], floats * 4, op.first, regions);
        regions.push_back(p.first);
        p.second =
            PlaceRegion(&pool, kRegionNames[i][append ? 0 : 1][1], floats * 4, op.second, regions);
        regions.push_back(p.second);
        if (m.ready && append && p.n >= 1 && p.n <= config.capacity &&
            (config.window > 0 || m.length + p.n <= config.capacity) && !p.stand_in) {
          m.length += p.n;
          m.last_append = p.n;
        }
      } else if (p.kind == kKvReset) {
        if (m.ready && !(op.Nulls() & kKvNullCache)) m.length = 0;
      } else if (!(op.Nulls() & kKvNullCache)) {
        m.ready = false;  // a re-init with a broken config fails
      }
    }
  }
  pool.Allocate();
  // The pool as every replay starts: canary, then the op tensors in order.
  auto prepare = [&] {
    for (int region : regions) memset(pool.Bytes(region), MemoryPool::kCanary, pool.Size(region));
    for (int i = 0; i < c.OpCount(); ++i) {
      const PlannedOp& p = planned[static_cast<size_t>(i)];
      if (p.kind == kKvAppend) {
        FillTensor(c.ops[i].first_values, pool.Floats(p.first), p.first_floats);
        FillTensor(c.ops[i].second_values, pool.Floats(p.second), p.second_floats);
      } else if (p.kind == kKvAttend) {
        FillTensor(c.ops[i].first_values, pool.Floats(p.first), p.first_floats);
      }
    }
  };
  prepare();
  // Attend outputs that land on an op's input make later inputs depend on
  // the target's rounding: references are then recomputed per target.
  bool inputs_stable = true;
  for (const PlannedOp& p : planned) {
    if (p.kind != kKvAttend) continue;
    for (const PlannedOp& other : planned) {
      if (&other == &p) continue;  // out over its own q is refused
      for (int input : {other.first, other.kind == kKvAppend ? other.second : -1}) {
        if (input >= 0 && (other.kind == kKvAppend || other.kind == kKvAttend) &&
            pool.Range(p.second).Overlaps(pool.Range(input))) {
          inputs_stable = false;
        }
      }
    }
  }
  if (Debugging()) {
    Debug(
        "ea_kv_cache case: capacity %d n_heads %d n_kv_heads %d d_head %d max_queries %d window "
        "%d storage %d scale %g need %llu capacity %llu pre-used %llu misalign %u nulls %#x, "
        "%d ops:",
        config.capacity, config.n_heads, config.n_kv_heads, config.d_head, config.max_queries,
        config.window, static_cast<int>(config.storage), config.scale,
        static_cast<unsigned long long>(need), static_cast<unsigned long long>(layout.capacity),
        static_cast<unsigned long long>(layout.pre_used), layout.misalign, nulls, c.OpCount());
    for (int i = 0; i < c.OpCount(); ++i) {
      const PlannedOp& p = planned[static_cast<size_t>(i)];
      Debug(" %s", kKindNames[p.kind]);
      if (p.kind <= kKvAttend) Debug(" %d%s", p.n, p.stand_in ? " (stand-in buffers)" : "");
      if (c.ops[i].Nulls()) Debug(" nulls %#x", c.ops[i].Nulls());
      if (p.kind == kKvReinit)
        Debug(" field %d value %d", c.ops[i].reinit_field % 9, c.ops[i].reinit_value);
      Debug(";");
    }
    Debug("\n");
    pool.Dump();
    for (int i = 0; i < c.OpCount(); ++i) {
      const PlannedOp& p = planned[static_cast<size_t>(i)];
      if (p.kind > kKvAttend) continue;
      for (int region : {p.first, p.kind == kKvAppend ? p.second : -1}) {
        if (region < 0) continue;
        const size_t count = p.first_floats;
        Debug("  %s:", pool.Name(region));
        for (size_t j = 0; j < count && j < 64; ++j) Debug(" %.9g", pool.Floats(region)[j]);
        Debug("%s\n", count > 64 ? " ..." : "");
      }
    }
  }

  const StoredAs storage = edgeattn_test::StoredAsOf(config.storage);
  std::vector<std::optional<KvDecodeCheck>> checks(planned.size());
  std::vector<StoredRecord> first_records;
  bool first_target = true;
  for (int64_t target : SelectTargets(c.common.targets)) {
    ForceTarget(target);
    const char* target_name = TargetName(target);
    prepare();
    ea_arena arena;
    InitArena(c.arena, layout, pool.Bytes(arena_region), nulls & kNullArenaBase, &arena);
    ea_kv_cache cache;
    memset(&cache, 0, sizeof(cache));
    cache.ready = EA_PLAN_READY;  // stale: a failed init must clear it

    // --- ea_kv_cache_init
    StatusSet init_rules = config_rules;
    if (nulls & (kNullPlan | kNullPlanConfig | kNullArena)) init_rules.Add(EA_ERR_NULL_POINTER);
    if (!(nulls & kNullArena)) init_rules.Merge(ArenaRules(arena, need, config_valid));
    pool.Snapshot();
    const size_t used_before = arena.used;
    SetContext("ea_kv_cache_init", target_name);
    const ea_status init_status = ea_kv_cache_init(nulls & kNullPlan ? nullptr : &cache,
                                                   nulls & kNullPlanConfig ? nullptr : &config,
                                                   nulls & kNullArena ? nullptr : &arena);
    ExpectStatus("ea_kv_cache_init", init_status, init_rules);
    Debug("  %s init: status %d\n", target_name, static_cast<int>(init_status));
    Model m;
    ByteRange carve, records, scratch[2];
    if (init_status != EA_OK) {
      if (arena.used != used_before) Fail("failed ea_kv_cache_init moved arena.used");
      ExpectUntouched("ea_kv_cache_init", pool, {}, "failed");
      if (nulls & kNullPlan) {
        cache.ready = 0;  // never initialised: a caller's zeroed struct
      } else if (cache.ready == EA_PLAN_READY) {
        Fail("failed ea_kv_cache_init left cache.ready = EA_PLAN_READY");
      }
    } else {
      carve = CarveRange(pool, arena, used_before);
      if (arena.used - used_before != need) {
        Fail("ea_kv_cache_init carved %zu bytes, KvCacheArenaBytes = %llu",
             arena.used - used_before, static_cast<unsigned long long>(need));
      }
      ExpectUntouched("ea_kv_cache_init", pool, {carve}, "succeeded");
      if (cache.ready != EA_PLAN_READY || cache.length != 0) {
        Fail("ea_kv_cache_init succeeded with ready %#x, length %lld", cache.ready,
             static_cast<long long>(cache.length));
      }
      // The stored records (arena_sizes.hpp's first region) lie in the carve.
      const uint64_t record_bytes = edgeattn::KvBlocks(config.capacity) *
                                    static_cast<uint64_t>(config.n_kv_heads) *
                                    edgeattn::KvRecordBytes(config.d_head, config.storage);
      records = pool.RangeOf(cache.records, static_cast<size_t>(record_bytes));
      if (records.begin < carve.begin || records.end > carve.end ||
          records.end - records.begin != record_bytes) {
        Fail("cache.records [%zu, %zu) is not inside the carve [%zu, %zu)", records.begin,
             records.end, carve.begin, carve.end);
      }
      scratch[0] = ByteRange{carve.begin, records.begin};
      scratch[1] = ByteRange{records.end, carve.end};
      m.ready = true;
    }

    KvHistory history;
    history.row = static_cast<int>(config_valid ? kv_row : 0);
    uint64_t chain = kHashSeed;
    std::vector<StoredRecord> stored;
    for (int i = 0; i < c.OpCount(); ++i) {
      const KvOp& op = c.ops[i];
      const PlannedOp& p = planned[static_cast<size_t>(i)];
      const uint8_t op_nulls = op.Nulls();
      ea_kv_cache* cache_arg = op_nulls & kKvNullCache ? nullptr : &cache;
      const CacheBytes before = BytesOf(cache);
      StatusSet rules;
      if (op_nulls & kKvNullCache) rules.Add(EA_ERR_NULL_POINTER);

      if (p.kind == kKvAppend) {
        const float* k = op_nulls & kKvNullFirst ? nullptr : pool.Floats(p.first);
        const float* v = op_nulls & kKvNullSecond ? nullptr : pool.Floats(p.second);
        if (!k || !v) rules.Add(EA_ERR_NULL_POINTER);
        if (!m.ready) {
          rules.Add(EA_ERR_BAD_ARGUMENT);
          if (p.n <= 0) rules.Add(EA_ERR_BAD_DIMENSION);
        } else {
          if (p.n < 1 || p.n > config.capacity) rules.Add(EA_ERR_BAD_DIMENSION);
          if (config.window == 0 && m.length + p.n > config.capacity) rules.Add(EA_ERR_CACHE_FULL);
          const int64_t bytes = RowBytes(p.n, kv_row);
          if (Extent(pool, k, bytes).Overlaps(carve) || Extent(pool, v, bytes).Overlaps(carve)) {
            rules.Add(EA_ERR_BAD_ARGUMENT);
          }
        }
        if (!rules.MustFail() && p.stand_in) continue;  // too large to materialise
        pool.Snapshot();
        SetContext("ea_kv_cache_append", target_name);
        const ea_status status = ea_kv_cache_append(cache_arg, k, v, p.n);
        ExpectStatus("ea_kv_cache_append", status, rules);
        Debug("  %s op %d %s %d: status %d, length %lld\n", target_name, i, kKindNames[p.kind], p.n,
              static_cast<int>(status), static_cast<long long>(cache.length));
        if (status != EA_OK) {
          ExpectUntouched("ea_kv_cache_append", pool, {}, "failed");
          ExpectCacheUnchanged("a refused ea_kv_cache_append", before, cache);
          continue;
        }
        ExpectUntouched("ea_kv_cache_append", pool, {carve}, "succeeded");
        if (cache.length != m.length + p.n) {
          Fail("ea_kv_cache_append of %d: length %lld, want %lld", p.n,
               static_cast<long long>(cache.length), static_cast<long long>(m.length + p.n));
        }
        history.Append(k, v, p.n, config.d_head, storage);
        m.length += p.n;
        m.last_append = p.n;
        const size_t bytes = static_cast<size_t>(p.n) * static_cast<size_t>(kv_row) * 4;
        chain = HashBytes(HashBytes(HashBytes(chain, &p.n, sizeof(p.n)), k, bytes), v, bytes);
        if (records.end - records.begin <= (1u << 20)) {
          stored.push_back(StoredRecord{
              i, chain, HashBytes(kHashSeed, cache.records, records.end - records.begin)});
        }
      } else if (p.kind == kKvAttend) {
        const float* q = op_nulls & kKvNullFirst ? nullptr : pool.Floats(p.first);
        float* out = op_nulls & kKvNullSecond ? nullptr : pool.Floats(p.second);
        if (!q || !out) rules.Add(EA_ERR_NULL_POINTER);
        const int64_t bytes = RowBytes(p.n, q_row);
        const ByteRange out_range = Extent(pool, out, bytes), q_range = Extent(pool, q, bytes);
        int64_t visible = 0;
        if (!m.ready) {
          rules.Add(EA_ERR_BAD_ARGUMENT);
          if (p.n <= 0) rules.Add(EA_ERR_BAD_DIMENSION);
        } else {
          // attend: the queries of the last n tokens; attend_all: any n, all
          // at the newest position, once the cache holds a token.
          if (p.n < 1 || p.n > config.max_queries || (p.all ? m.length < 1 : p.n > m.length)) {
            rules.Add(EA_ERR_BAD_DIMENSION);
          }
          if (out_range.Overlaps(q_range) || out_range.Overlaps(carve) || q_range.Overlaps(carve)) {
            rules.Add(EA_ERR_BAD_ARGUMENT);
          }
          visible = config.window > 0 && config.window < m.length ? config.window : m.length;
        }
        const bool runs = !rules.MustFail();
        if (runs && (p.stand_in || static_cast<double>(p.n) * q_row * visible * 2.0 >
                                       static_cast<double>(kMaxRunWork))) {
          continue;  // past the harness's caps
        }
        if (runs && (!checks[static_cast<size_t>(i)].has_value() || !inputs_stable)) {
          const edgeattn_test::DecodeProblem problem{config.n_heads, config.n_kv_heads,
                                                     config.d_head, config.window,
                                                     static_cast<double>(config.scale)};
          const std::vector<float> q_values(q, q + static_cast<size_t>(p.n) * q_row);
          checks[static_cast<size_t>(i)].emplace(
              problem, storage, history, q_values,
              static_cast<int>(p.all ? m.length - 1 : m.length - p.n), p.n, p.all);
        }
        pool.Snapshot();
        const char* call = p.all ? "ea_kv_cache_attend_all" : "ea_kv_cache_attend";
        auto attend = p.all ? ea_kv_cache_attend_all : ea_kv_cache_attend;
        SetContext(call, target_name);
        const ea_status status = attend(cache_arg, q, p.n, out);
        ExpectStatus(call, status, rules);
        Debug("  %s op %d %s %d: status %d, length %lld\n", target_name, i, kKindNames[p.kind], p.n,
              static_cast<int>(status), static_cast<long long>(cache.length));
        ExpectCacheUnchanged(call, before, cache);
        if (status != EA_OK) {
          ExpectUntouched(call, pool, {}, "failed");
          continue;
        }
        ExpectUntouched(call, pool, {out_range, scratch[0], scratch[1]}, "succeeded");
        checks[static_cast<size_t>(i)]->Check(out);
        const std::vector<uint8_t> first_out = CopyBytes(out, static_cast<size_t>(bytes));
        memset(out, kRerunCanary, static_cast<size_t>(bytes));
        SetContext(call, "rerun");
        if (attend(cache_arg, q, p.n, out) != EA_OK) {
          Fail("a rerun of %s refused what the first run accepted", call);
        }
        ExpectSameBits("attend rerun", first_out, out);
        SetContext(call, target_name);
      } else if (p.kind == kKvReset) {
        if (cache_arg != nullptr && !m.ready) rules.Add(EA_ERR_BAD_ARGUMENT);
        pool.Snapshot();
        SetContext("ea_kv_cache_reset", target_name);
        const ea_status status = ea_kv_cache_reset(cache_arg);
        ExpectStatus("ea_kv_cache_reset", status, rules);
        Debug("  %s op %d %s %d: status %d, length %lld\n", target_name, i, kKindNames[p.kind], p.n,
              static_cast<int>(status), static_cast<long long>(cache.length));
        ExpectUntouched("ea_kv_cache_reset", pool, {}, status == EA_OK ? "succeeded" : "failed");
        if (status != EA_OK) {
          ExpectCacheUnchanged("a refused ea_kv_cache_reset", before, cache);
          continue;
        }
        if (cache.length != 0) {
          Fail("ea_kv_cache_reset left length %lld", static_cast<long long>(cache.length));
        }
        m.length = 0;
        m.last_append = 0;
        history.Clear();
        chain = HashBytes(chain, "reset", 5);
      } else {
        // --- a re-init: a broken config, or a valid one with no arena left
        ea_kv_cache_config bad = config;
        ea_arena reinit_arena = arena;
        if (op.reinit_field % 9 == 8) {
          reinit_arena.used = reinit_arena.capacity;
          rules.Merge(config_rules);
          rules.Merge(ArenaRules(reinit_arena, need, config_valid));
        } else {
          bad = BrokenConfig(config, op.reinit_field, op.reinit_value);
          rules.Merge(KvCacheConfigRules(bad));
          rules.Merge(ArenaRules(reinit_arena, 0, false));
        }
        if (op_nulls & (kKvNullFirst | kKvNullSecond)) rules.Add(EA_ERR_NULL_POINTER);
        if (!rules.MustFail()) Fail("harness: a re-init that breaks no rule");
        pool.Snapshot();
        const size_t used = reinit_arena.used;
        SetContext("ea_kv_cache_init", "re-init");
        const ea_status status =
            ea_kv_cache_init(cache_arg, op_nulls & kKvNullFirst ? nullptr : &bad,
                             op_nulls & kKvNullSecond ? nullptr : &reinit_arena);
        ExpectStatus("re-init of a cache", status, rules);
        Debug("  %s op %d %s %d: status %d, length %lld\n", target_name, i, kKindNames[p.kind], p.n,
              static_cast<int>(status), static_cast<long long>(cache.length));
        if (reinit_arena.used != used) Fail("failed re-init moved arena.used");
        ExpectUntouched("re-init", pool, {}, "failed");
        if (cache_arg != nullptr) {
          if (cache.ready == EA_PLAN_READY) Fail("failed re-init left cache.ready = EA_PLAN_READY");
          m.ready = false;
        }
      }
    }
    if (first_target) {
      first_records = stored;
    } else {
      // The same appends store the same bytes on every target (kv_cache.h).
      for (size_t s = 0; s < stored.size() && s < first_records.size(); ++s) {
        if (stored[s].op != first_records[s].op || stored[s].inputs != first_records[s].inputs) {
          break;
        }
        if (stored[s].records != first_records[s].records) {
          Fail("op %d: the same appends stored different bytes on %s than on %s", stored[s].op,
               target_name, TargetName(SelectTargets(c.common.targets)[0]));
        }
      }
    }
    first_target = false;
  }
  ForceTarget(0);
}

}  // namespace edgeattn_fuzz
