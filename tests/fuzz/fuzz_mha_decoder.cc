// Driver for the MHA decoder (edgeattn/decoder.h): ea_decoder_arena_size
// and ea_decoder_init on a decoded config (GQA / MQA heads, a window,
// every storage, positions NONE / SINUSOIDAL from the caller or the arena /
// LEARNED, a RoPE table, ALiBi slopes, row-major or packed weights), then up
// to kMaxDecoderOps steps of any size, resets and broken re-inits, replayed
// from the same start on every selected SIMD target. Checked: each status
// against the header's rules (a model of readiness and stream length
// written from the header); a refusal writes no pool byte and leaves the
// decoder struct as it was; a failed init clears `ready` and keeps
// arena.used; arena_size is DecoderArenaBytes and init carves exactly
// that; a step writes only y and the carve; y against ReferenceDecoderStream
// over the tokens since the last reset (decoder_check.h); the first
// target's y within twice that allowance; the ops replayed on one target
// over the stale carve give the same statuses and the same bits.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <map>
#include <memory>
#include <vector>

#include "decoder_case.h"
#include "decoder_check.h"
#include "driver_support.h"
#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/decoder.h"
#include "edgeattn/edgeattn.h"
#include "edgeattn/rope.h"
#include "expected_status.h"
#include "failure.h"
#include "fuzz_drivers.h"
#include "known_defects.h"
#include "kv_cache_check.h"
#include "memory_pool.h"
#include "plan_ops_support.h"
#include "simd_targets.h"
#include "tensor_fill.h"

namespace edgeattn_fuzz {
namespace {

const char* const kOpNames[kMaxDecoderOps][2] = {
    {"op0 x", "op0 y"}, {"op1 x", "op1 y"}, {"op2 x", "op2 y"}, {"op3 x", "op3 y"},
    {"op4 x", "op4 y"}, {"op5 x", "op5 y"}, {"op6 x", "op6 y"}, {"op7 x", "op7 y"},
    {"op8 x", "op8 y"}, {"op9 x", "op9 y"}};
const char* const kKindNames[3] = {"step", "reset", "re-init"};
constexpr float kMaxSlope = 16.0f;

ea_decoder_config MakeConfig(const DecoderCase& c, const float* table, const float* rope,
                             const float* slopes) {
  ea_decoder_config config;
  memset(&config, 0, sizeof(config));
  config.d_model = c.DModel();
  config.n_heads = c.n_heads;
  config.n_kv_heads = c.NKvHeads();
  config.max_positions = c.max_positions;
  config.max_step_tokens = c.MaxTokens();
  config.window = c.Window();
  config.storage = static_cast<ea_kv_storage>(c.storage);
  config.position = static_cast<ea_position>(c.position);
  config.position_table = table;
  config.rope_table = rope;
  config.rope_layout = static_cast<ea_rope_layout>(c.rope_layout);
  config.alibi_slopes = slopes;
  config.weights_layout = static_cast<ea_weights_layout>(c.weights_layout);
  return config;
}

// A config that breaks at least one rule, for re-initialising a decoder.
ea_decoder_config BrokenConfig(const ea_decoder_config& good, uint8_t field, int32_t value) {
  ea_decoder_config bad = good;
  switch (field % 9) {
    case 0:
      bad.d_model = value;
      break;
    case 1:
      bad.n_heads = value;
      break;
    case 2:
      bad.n_kv_heads = value;
      break;
    case 3:
      bad.max_positions = value;
      break;
    case 4:
      bad.max_step_tokens = value;
      break;
    case 5:
      bad.window = value;
      break;
    case 6:
      bad.storage = static_cast<ea_kv_storage>(value);
      break;
    case 7:
      bad.position = static_cast<ea_position>(value);
      bad.position_table = nullptr;
      break;
    default:
      bad.weights_layout = static_cast<ea_weights_layout>(value);
      break;
  }
  if (!MhaDecoderConfigRules(bad).MustFail()) bad.max_step_tokens = 0;
  return bad;
}

struct Model {
  bool ready = false;
  int64_t length = 0;
};

// The rules of a step with these buffers on a decoder the model describes.
StatusSet StepRules(const Model& m, const ea_decoder_config& config, uint8_t op_nulls, int32_t n,
                    const ByteRange& x, const ByteRange& y, const CallMemory& memory) {
  StatusSet rules;
  if (op_nulls & kOpNullPlan) {
    rules.Add(EA_ERR_NULL_POINTER);
    return rules;
  }
  if (op_nulls & (kOpNullInput | kOpNullOutput)) rules.Add(EA_ERR_NULL_POINTER);
  if (!m.ready) {
    rules.Add(EA_ERR_BAD_ARGUMENT);
    if (n <= 0) rules.Add(EA_ERR_BAD_DIMENSION);
    return rules;
  }
  if (n < 1 || n > config.max_step_tokens) rules.Add(EA_ERR_BAD_DIMENSION);
  if (m.length + n > config.max_positions) rules.Add(EA_ERR_CACHE_FULL);
  CallMemoryRules(memory, (op_nulls & kOpNullInput) ? ByteRange{} : x,
                  (op_nulls & kOpNullOutput) ? ByteRange{} : y, &rules);
  return rules;
}

// A successful step, kept until its stream's reference is checked.
struct StepOut {
  int op = -1, first = 0, n = 0;
  uint64_t chain = 0;  // the stream's inputs up to this step
  std::vector<float> y;
};

}  // namespace

void FuzzMhaDecoder(ByteReader& input) {
  PrintLayerStatsAtExit();
  DecoderCase c;
  Visit(input, c);
  const uint16_t nulls = c.common.Nulls();
  const int64_t e = c.DModel();
  const int32_t heads = c.n_heads, kv_heads = c.LayerKvHeads();
  const int64_t d_head = heads > 0 ? e / heads : 0;
  const int64_t qkv_rows =
      heads > 0 && kv_heads > 0 && e > 0 ? e + 2 * int64_t{kv_heads} * d_head : 0;
  // The library reads n_heads slopes from the size call on: slopes only
  // where the harness can give that many.
  const bool caller_table = c.CallerTable(), rope = c.Rope();
  const bool alibi = c.alibi_kind >= 160 && heads >= 1 && heads <= kMaxTensorFloats;
  // Stand-ins for the size call: the tables' addresses (NULL or not) matter.
  const std::vector<float> stand_in(alibi ? static_cast<size_t>(heads) : 16, 0.0f);
  ea_decoder_config config =
      MakeConfig(c, caller_table ? stand_in.data() : nullptr, rope ? stand_in.data() : nullptr,
                 alibi ? stand_in.data() : nullptr);
  const StatusSet config_rules = MhaDecoderConfigRules(config);
  const bool config_valid = !config_rules.MustFail();
  const uint64_t need = config_valid ? edgeattn::DecoderArenaBytes(config) : 0;

  Debug(
      "ea_decoder config: d_model %d heads %d/%d max_positions %d max_tokens %d window %d "
      "storage %d position %d rope layout %d weights %d, tables %d %d %d\n",
      config.d_model, config.n_heads, config.n_kv_heads, config.max_positions,
      config.max_step_tokens, config.window, static_cast<int>(config.storage),
      static_cast<int>(config.position), static_cast<int>(config.rope_layout),
      static_cast<int>(config.weights_layout), caller_table, rope, alibi);
  CheckArenaSize("ea_decoder_arena_size", ea_decoder_arena_size, config, nulls, config_rules, need);

  // --- the pool: the arena, the layer's tensors, then each op's buffers,
  // sized by the counts the model of the decoder resolves
  const size_t table_count = caller_table ? BoundedCount(c.max_positions, e) : 0;
  const size_t rope_count = rope ? BoundedCount(c.max_positions, d_head) : 0;
  const size_t slope_count = alibi ? BoundedCount(heads, 1) : 0;
  const bool materialised = WeightFloats(qkv_rows, e, c.weights_layout) > 0 &&
                            WeightFloats(e, e, c.weights_layout) > 0 &&
                            (!caller_table || table_count > 0) && (!rope || rope_count > 0) &&
                            (!alibi || slope_count > 0);
  ArenaLayout layout = LayOutArena(c.arena, need);
  if (!materialised && need > 0 && layout.capacity >= layout.pre_used + need) {
    layout.capacity = layout.pre_used + need - 1;  // no plan references stand-ins
  }
  MemoryPool pool;
  const int arena_region = pool.AddSeparate("arena", layout.capacity, 64, layout.misalign);
  LayerWeights weights;
  weights.Place(&pool, qkv_rows, e, c.weights_layout, c.biases);
  const int table_region =
      caller_table ? pool.AddSeparate("position table", std::max<size_t>(table_count, 1) * 4, 4)
                   : -1;
  const int rope_region =
      rope ? pool.AddSeparate("rope table", std::max<size_t>(rope_count, 1) * 4, 4) : -1;
  const int slope_region =
      alibi ? pool.AddSeparate("alibi slopes", std::max<size_t>(slope_count, 1) * 4, 4) : -1;
  const bool init_predicted =
      InitPredicted(config_valid, materialised, nulls, c.arena, layout, need);

  // What steps must not overlap (the library's extents are these regions').
  CallMemory memory;
  for (int region : weights.Regions()) memory.kept.push_back(pool.Range(region));
  const bool table_read =
      config.position == EA_POSITION_SINUSOIDAL || config.position == EA_POSITION_LEARNED;
  if (table_region >= 0) {
    (table_read ? memory.kept : memory.unread).push_back(pool.Range(table_region));
  }
  if (rope_region >= 0) memory.kept.push_back(pool.Range(rope_region));
  if (slope_region >= 0) memory.kept.push_back(pool.Range(slope_region));
  const size_t carve_begin = pool.Range(arena_region).begin + layout.pre_used;
  memory.carve = ByteRange{carve_begin, carve_begin + static_cast<size_t>(need)};

  std::vector<int> candidates = {arena_region};
  for (int region : weights.Regions()) candidates.push_back(region);
  for (int region : {table_region, rope_region, slope_region}) {
    if (region >= 0) candidates.push_back(region);
  }
  std::vector<int32_t> counts(static_cast<size_t>(c.OpCount()), 0);
  std::vector<OpBuffers> buffers(counts.size());
  int64_t planned_tokens = 0;
  {
    Model m;
    m.ready = init_predicted;
    int64_t budget = 2 * kMaxTensorFloats;
    for (int i = 0; i < c.OpCount(); ++i) {
      const PlanOp& op = c.ops[i];
      const uint8_t kind = c.OpKind(i);
      if (kind == kDecoderStep) {
        const int64_t max_positions = m.ready ? config.max_positions : 64;
        const int64_t max_tokens = m.ready
                                       ? config.max_step_tokens
                                       : std::min<int64_t>(std::max(config.max_step_tokens, 1), 64);
        const int32_t n = ResolveOpCount(op, max_positions - m.length, max_tokens);
        counts[static_cast<size_t>(i)] = n;
        const OpBuffers b = PlaceOpBuffers(&pool, op, kOpNames[i][0], kOpNames[i][1], n,
                                           e > 0 ? e : 1, &budget, &candidates);
        buffers[static_cast<size_t>(i)] = b;
        const int64_t bytes = RowBytes(n, e);
        StatusSet rules = StepRules(m, config, op.Nulls(), n, Span(pool, b.x, bytes),
                                    Span(pool, b.y, bytes), memory);
        if (!rules.MustFail() && !b.stand_in) {
          m.length += n;
          planned_tokens += n;
        }
      } else if (kind == kDecoderReset) {
        if (m.ready && !(op.Nulls() & kOpNullPlan)) m.length = 0;
      } else if (!(op.Nulls() & kOpNullPlan)) {
        m.ready = false;
      }
    }
  }
  pool.Allocate();

  // The layer's values, then the op inputs (over the layer's, where placed so).
  const float rope_base = kRopeBases[c.rope_kind % 8];
  FillCache fills;
  auto prepare = [&](bool keep_arena) {
    for (int region : candidates) {
      if (keep_arena && region == arena_region) continue;
      memset(pool.Bytes(region), MemoryPool::kCanary, pool.Size(region));
    }
    weights.Fill(pool, c.w_values, c.b_values, &fills);
    if (table_region >= 0) fills.Fill(c.table_values, pool.Floats(table_region), table_count);
    if (rope_region >= 0 && rope_count > 0 &&
        ea_rope_table_fill(pool.Floats(rope_region), c.max_positions, static_cast<int32_t>(d_head),
                           rope_base) != EA_OK) {
      memset(pool.Bytes(rope_region), 0, pool.Size(rope_region));  // odd d_head: refused anyway
    }
    if (slope_region >= 0 && slope_count > 0) {
      float* slopes = pool.Floats(slope_region);
      if (c.alibi_kind < 208) {
        if (ea_alibi_slopes_fill(slopes, heads) != EA_OK) Fail("ea_alibi_slopes_fill refused");
      } else {
        FillTensor(c.alibi_values, slopes, slope_count);
        for (size_t h = 0; h < slope_count; ++h) {
          // The header asks for finite slopes: a caller's, kept moderate.
          if (!isfinite(slopes[h])) slopes[h] = 0.0f;
          slopes[h] = fminf(kMaxSlope, fmaxf(-kMaxSlope, slopes[h]));
        }
      }
    }
    for (int i = 0; i < c.OpCount(); ++i) {
      if (c.OpKind(i) == kDecoderStep) {
        const OpBuffers& b = buffers[static_cast<size_t>(i)];
        fills.Fill(c.ops[i].x_values, pool.Floats(b.x), b.floats);
      }
    }
  };
  prepare(false);
  // kv_cache.h: n_heads finite slopes. An op's x placed over them may have
  // written others (EA_ERR_BAD_ARGUMENT: an argument out of range).
  StatusSet init_rules = config_rules;
  for (size_t h = 0; h < slope_count && slope_region >= 0; ++h) {
    if (!isfinite(pool.Floats(slope_region)[h])) init_rules.Add(EA_ERR_BAD_ARGUMENT);
  }

  // The layer as the reference reads it, and whether it is the one the
  // header describes (an op buffer over the RoPE table or the slopes, or
  // slopes clobbered into non-finite values, leave only the memory checks).
  bool numerics = config_valid && materialised && qkv_rows > 0;
  for (const OpBuffers& b : buffers) {
    for (int region : {b.x, b.y}) {
      if (region < 0) continue;
      for (int table : {rope_region, slope_region}) {
        if (table >= 0 && pool.Range(region).Overlaps(pool.Range(table))) numerics = false;
      }
    }
  }
  std::vector<float> table, slopes;
  LayerCopy layer_copy;
  LayerSpec spec;
  if (numerics) {
    layer_copy.Read(pool, weights, &spec);
    if (table_read && table_region >= 0) {
      table.assign(pool.Floats(table_region), pool.Floats(table_region) + table_count);
    } else if (config.position == EA_POSITION_SINUSOIDAL) {
      const int64_t rows =
          std::min<int64_t>(config.max_positions, std::max<int64_t>(planned_tokens, 1));
      table.resize(static_cast<size_t>(rows * e));
      if (ea_sinusoidal_table_fill(table.data(), static_cast<int32_t>(rows),
                                   static_cast<int32_t>(e)) != EA_OK) {
        numerics = false;
      }
    }
    if (slope_region >= 0) {
      slopes.assign(pool.Floats(slope_region), pool.Floats(slope_region) + slope_count);
    }
    spec.n_heads = heads;
    spec.n_kv_heads = kv_heads;
    spec.window = config.window;
    spec.storage = StoredAsOf(config.storage);
    spec.position_table = table.empty() ? nullptr : table.data();
    spec.rope_base = rope ? static_cast<double>(rope_base) : 0.0;
    spec.rope_interleaved = config.rope_layout == EA_ROPE_INTERLEAVED;
    spec.alibi_slopes = slopes.empty() ? nullptr : slopes.data();
  }
  // The real tables in the config.
  config = MakeConfig(c, table_region >= 0 ? pool.Floats(table_region) : nullptr,
                      rope_region >= 0 ? pool.Floats(rope_region) : nullptr,
                      slope_region >= 0 ? pool.Floats(slope_region) : nullptr);
  const ea_mha_weights layer_weights = weights.Arguments(pool, nulls);

  if (Debugging()) {
    Debug(
        "ea_decoder case: d_model %d heads %d/%d max_positions %d max_tokens %d window %d "
        "storage %d position %d caller table %d rope %d (base %g, layout %d) alibi %d weights "
        "%d need %llu capacity %llu pre-used %llu misalign %u nulls %#x, %d ops:",
        config.d_model, config.n_heads, config.n_kv_heads, config.max_positions,
        config.max_step_tokens, config.window, static_cast<int>(config.storage),
        static_cast<int>(config.position), caller_table, rope, rope_base,
        static_cast<int>(config.rope_layout), c.alibi_kind, static_cast<int>(config.weights_layout),
        static_cast<unsigned long long>(need), static_cast<unsigned long long>(layout.capacity),
        static_cast<unsigned long long>(layout.pre_used), layout.misalign, nulls, c.OpCount());
    std::vector<uint8_t> kinds;
    std::vector<bool> with_buffers;
    for (int i = 0; i < c.OpCount(); ++i) {
      kinds.push_back(c.OpKind(i));
      with_buffers.push_back(c.OpKind(i) == kDecoderStep);
    }
    DebugOps(kKindNames, kinds, with_buffers, counts, buffers, c.ops);
    pool.Dump();
  }

  std::map<uint64_t, std::unique_ptr<LayerCheck>> checks;
  std::vector<StepOut> first_outs;

  // One replay of the ops on the current target: statuses and outputs in
  // `records`; with `replay`, over the carve the last run left.
  auto run_ops = [&](const char* target_name, bool replay, std::vector<OpRecord>* records,
                     std::vector<StepOut>* outs) {
    prepare(replay);
    ea_arena arena;
    InitArena(c.arena, layout, pool.Bytes(arena_region), nulls & kNullArenaBase, &arena);
    ea_decoder decoder;
    CallMemory call_memory = memory;
    const ea_status init_status = CheckedInit(
        "ea_decoder_init", target_name, ea_decoder_init, &decoder, config, layer_weights, &arena,
        nulls, init_rules, need, config_valid, pool, &call_memory.carve);
    records->push_back(OpRecord{init_status, {}});
    Model m;
    m.ready = init_status == EA_OK;
    if (m.ready && decoder.cache.length != 0) {
      Fail("ea_decoder_init left length %lld", static_cast<long long>(decoder.cache.length));
    }

    // The stream since init or the last reset, checked when it ends.
    std::vector<float> stream;
    std::vector<StepOut> pending;
    uint64_t chain = kHashSeed;
    auto flush = [&] {
      if (!replay && numerics && !pending.empty()) {
        const int tokens = pending.back().first + pending.back().n;
        const uint64_t key = HashBytes(HashBytes(kHashSeed, &tokens, sizeof(tokens)), stream.data(),
                                       stream.size() * 4);
        std::unique_ptr<LayerCheck>& check = checks[key];
        if (!check) check.reset(new LayerCheck(LayerCheck::Decoder(spec, stream, tokens)));
        for (const StepOut& out : pending) {
          const float* other = nullptr;
          for (const StepOut& f : first_outs) {
            if (f.op == out.op && f.chain == out.chain && outs != &first_outs) other = f.y.data();
          }
          SetContext("ea_decoder_step", target_name);
          check->Check("ea_decoder_step", out.y.data(), out.first, out.n, other);
        }
      }
      for (StepOut& out : pending) outs->push_back(std::move(out));
      pending.clear();
      stream.clear();
      chain = kHashSeed;
    };

    for (int i = 0; i < c.OpCount(); ++i) {
      const PlanOp& op = c.ops[i];
      const uint8_t kind = c.OpKind(i);
      const uint8_t op_nulls = op.Nulls();
      ea_decoder* decoder_arg = op_nulls & kOpNullPlan ? nullptr : &decoder;
      const std::vector<uint8_t> before = CopyBytes(&decoder, sizeof(decoder));
      if (kind == kDecoderStep) {
        const int32_t n = counts[static_cast<size_t>(i)];
        const OpBuffers& b = buffers[static_cast<size_t>(i)];
        const int64_t bytes = RowBytes(n, e);
        const ByteRange x_range = Span(pool, b.x, bytes), y_range = Span(pool, b.y, bytes);
        StatusSet rules = StepRules(m, config, op_nulls, n, x_range, y_range, call_memory);
        if (!rules.MustFail() && b.stand_in) continue;  // too large to materialise
        const float* x = op_nulls & kOpNullInput ? nullptr : pool.Floats(b.x);
        float* y = op_nulls & kOpNullOutput ? nullptr : pool.Floats(b.y);
        std::vector<float> x_copy;
        if (x != nullptr && !b.stand_in && bytes / 4 == static_cast<int64_t>(b.floats)) {
          x_copy.assign(x, x + b.floats);
        }
        pool.Snapshot();
        SetContext("ea_decoder_step", target_name);
        const ea_status status = ea_decoder_step(decoder_arg, x, n, y);
        ExpectStatus("ea_decoder_step", status, rules);
        Debug("  %s op %d step %d: status %d, length %lld\n", target_name, i, n,
              static_cast<int>(status), static_cast<long long>(decoder.cache.length));
        OpRecord record{status, {}};
        if (status != EA_OK) {
          ExpectUntouched("ea_decoder_step", pool, {}, "failed");
          if (memcmp(before.data(), &decoder, sizeof(decoder)) != 0) {
            Fail("a refused ea_decoder_step changed the decoder struct (length %lld -> %lld)",
                 static_cast<long long>(
                     reinterpret_cast<const ea_decoder*>(before.data())->cache.length),
                 static_cast<long long>(decoder.cache.length));
          }
          records->push_back(std::move(record));
          continue;
        }
        ExpectUntouched("ea_decoder_step", pool, {call_memory.carve, y_range}, "succeeded");
        if (decoder.cache.length != m.length + n) {
          Fail("ea_decoder_step of %d: length %lld, want %lld", n,
               static_cast<long long>(decoder.cache.length), static_cast<long long>(m.length + n));
        }
        chain = HashBytes(HashBytes(chain, &n, sizeof(n)), x_copy.data(), x_copy.size() * 4);
        StepOut out;
        out.op = i;
        out.first = static_cast<int>(m.length);
        out.n = n;
        out.chain = chain;
        out.y.assign(y, y + static_cast<size_t>(n) * e);
        record.y = CopyBytes(y, static_cast<size_t>(bytes));
        records->push_back(std::move(record));
        stream.insert(stream.end(), x_copy.begin(), x_copy.end());
        pending.push_back(std::move(out));
        m.length += n;
      } else if (kind == kDecoderReset) {
        StatusSet rules;
        if (decoder_arg == nullptr) rules.Add(EA_ERR_NULL_POINTER);
        if (decoder_arg != nullptr && !m.ready) rules.Add(EA_ERR_BAD_ARGUMENT);
        pool.Snapshot();
        SetContext("ea_decoder_reset", target_name);
        const ea_status status = ea_decoder_reset(decoder_arg);
        ExpectStatus("ea_decoder_reset", status, rules);
        records->push_back(OpRecord{status, {}});
        ExpectUntouched("ea_decoder_reset", pool, {}, status == EA_OK ? "succeeded" : "failed");
        if (status != EA_OK) {
          if (memcmp(before.data(), &decoder, sizeof(decoder)) != 0) {
            Fail("a refused ea_decoder_reset changed the decoder struct");
          }
          continue;
        }
        if (decoder.cache.length != 0) {
          Fail("ea_decoder_reset left length %lld", static_cast<long long>(decoder.cache.length));
        }
        flush();
        m.length = 0;
      } else {
        // A re-init: a broken config, or a valid one with no arena left.
        ea_status status = EA_OK;
        CheckedReinit("ea_decoder_init", ea_decoder_init, &decoder, op, config, init_rules, need,
                      config_valid, 9, BrokenConfig, MhaDecoderConfigRules, layer_weights, nulls,
                      arena, pool, &status);
        records->push_back(OpRecord{status, {}});
        if (decoder_arg != nullptr) {
          flush();
          m.ready = false;
        }
      }
    }
    flush();
  };

  RunOnTargets("ea_decoder", c.common.targets, c.rerun, &first_outs, run_ops);
}

}  // namespace edgeattn_fuzz
