// What the MHA decoder and cross-attention drivers share: the layer's
// weights in the pool (row-major or packed, read back row-major for the
// reference), op counts and buffers, the memory rules of a call that takes
// x and writes y, and the records a bit-for-bit replay compares.
#ifndef EDGEATTN_TESTS_FUZZ_PLAN_OPS_SUPPORT_H_
#define EDGEATTN_TESTS_FUZZ_PLAN_OPS_SUPPORT_H_

#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include <vector>

#include "decoder_case.h"
#include "decoder_check.h"
#include "driver_support.h"
#include "edgeattn/edgeattn.h"
#include "expected_status.h"
#include "failure.h"
#include "memory_pool.h"
#include "simd_targets.h"

namespace edgeattn_fuzz {

// Floats of a weight matrix [rows, cols] as the layout gives it, 0 when it
// is not materialised (past kMaxTensorFloats row-major).
size_t WeightFloats(int64_t rows, int64_t cols, int32_t layout);

// FillTensor with each spec's values made once per case (a case fills its
// buffers again for every target).
class FillCache {
 public:
  void Fill(const TensorSpec& spec, float* data, size_t count);

 private:
  struct Entry {
    const TensorSpec* spec;
    std::vector<float> values;
  };
  std::vector<Entry> entries_;
};

// in_proj [rows, e] and out_proj [e, e] with their biases, in the pool.
struct LayerWeights {
  int64_t rows = 0, e = 0;
  int32_t layout = EA_WEIGHTS_ROW_MAJOR;
  int in_proj = -1, in_bias = -1, out_proj = -1, out_bias = -1;
  bool materialised = false;
  // W_Q, W_K, W_V (and biases) given as three tensors: views of in_proj's
  // rows (`biases` bit 2; row-major, materialised weights only), so statuses
  // and outputs are the one matrix's.
  bool three_tensors = false;

  // Regions of their own (biases per `biases` bits 0 and 1).
  void Place(MemoryPool* pool, int64_t rows_, int64_t e_, int32_t layout_, uint8_t biases);
  // Values from the specs; packed ones through ea_linear_pack_weights.
  void Fill(const MemoryPool& pool, const TensorSpec* weights, const TensorSpec* biases,
            FillCache* cache) const;
  // The matrices row-major as they are in the pool now, for the reference.
  std::vector<float> InProj(const MemoryPool& pool) const;
  std::vector<float> OutProj(const MemoryPool& pool) const;
  std::vector<int> Regions() const;
  // The struct init takes, NULL matrices per the case's kNullInput1 (W_K in
  // the three-tensor form) / 2.
  ea_mha_weights Arguments(const MemoryPool& pool, uint16_t nulls) const;
};

// The layer's weights copied row-major for the reference, and a LayerSpec
// pointing at them (the caller sets the rest).
struct LayerCopy {
  std::vector<float> in_proj, out_proj, in_bias, out_bias;
  void Read(const MemoryPool& pool, const LayerWeights& weights, LayerSpec* spec);
};

// Whether init is bound to succeed: a valid config over materialised
// tensors, no NULL argument, an aligned arena with room.
bool InitPredicted(bool config_valid, bool materialised, uint16_t nulls, const ArenaSpec& spec,
                   const ArenaLayout& layout, uint64_t need);

// ea_*_arena_size against the rules and the arena_sizes.hpp formula.
template <class Config, class Size>
void CheckArenaSize(const char* name, Size size, const Config& config, uint16_t nulls,
                    const StatusSet& config_rules, uint64_t need) {
  SetContext(name, "-");
  size_t bytes = 0x5A5A;
  StatusSet rules = config_rules;
  if (nulls & (kNullSizeConfig | kNullSizeBytes)) rules.Add(EA_ERR_NULL_POINTER);
  const ea_status status =
      size(nulls & kNullSizeConfig ? nullptr : &config, nulls & kNullSizeBytes ? nullptr : &bytes);
  ExpectStatus(name, status, rules);
  if (status != EA_OK && bytes != 0x5A5A) Fail("%s wrote *bytes on error", name);
  if (status == EA_OK && bytes != need) {
    Fail("%s = %zu, the arena_sizes.hpp formula says %llu", name, bytes,
         static_cast<unsigned long long>(need));
  }
}

// ea_*_init of a plan struct whose ready flag is stale (a failed init must
// clear it), with the case's NULL arguments. Checks the status, arena.used,
// the untouched pool (outside the carve on success) and the exact carve.
// Returns the status; *carve is the carve (empty on failure).
template <class Plan, class Config, class Init>
ea_status CheckedInit(const char* name, const char* target, Init init, Plan* plan,
                      const Config& config, const ea_mha_weights& weights, ea_arena* arena,
                      uint16_t nulls, const StatusSet& config_rules, uint64_t need,
                      bool config_valid, MemoryPool& pool, ByteRange* carve) {
  memset(plan, 0, sizeof(*plan));
  plan->ready = EA_PLAN_READY;
  StatusSet rules = config_rules;
  if (nulls &
      (kNullPlan | kNullPlanConfig | kNullArena | kNullWeights | kNullInput1 | kNullInput2)) {
    rules.Add(EA_ERR_NULL_POINTER);
  }
  if (!(nulls & kNullArena)) rules.Merge(ArenaRules(*arena, need, config_valid));
  pool.Snapshot();
  const size_t used_before = arena->used;
  SetContext(name, target);
  const ea_status status =
      init(nulls & kNullPlan ? nullptr : plan, nulls & kNullPlanConfig ? nullptr : &config,
           nulls & kNullWeights ? nullptr : &weights, nulls & kNullArena ? nullptr : arena);
  ExpectStatus(name, status, rules);
  Debug("  %s init: status %d\n", target, static_cast<int>(status));
  *carve = CheckInitWrites(name, status, pool, *arena, used_before, need);
  if (status != EA_OK) {
    if (nulls & kNullPlan) {
      plan->ready = 0;  // never initialised: a caller's zeroed struct
    } else if (plan->ready == EA_PLAN_READY) {
      Fail("failed %s left ready = EA_PLAN_READY", name);
    }
    return status;
  }
  if (plan->ready != EA_PLAN_READY) Fail("%s succeeded without setting ready", name);
  return status;
}

// A re-init op (PlanOp reinit_field, reinit_value) of a plan: a broken
// config (`broken(field, value)`, whose rules are `rules_of`), or field
// `no_arena` modulo no_arena + 1: the valid config with no arena left; op
// NULL bits for the plan, config and arena. It must fail: nothing written,
// arena.used kept, ready cleared. *status: what init returned.
template <class Plan, class Config, class Init, class Broken, class RulesOf>
void CheckedReinit(const char* name, Init init, Plan* plan, const PlanOp& op, const Config& good,
                   const StatusSet& good_rules, uint64_t need, bool config_valid, uint8_t no_arena,
                   Broken broken, RulesOf rules_of, const ea_mha_weights& weights, uint16_t nulls,
                   const ea_arena& arena, MemoryPool& pool, ea_status* status) {
  const uint8_t op_nulls = op.Nulls();
  Config bad = good;
  ea_arena reinit_arena = arena;
  StatusSet rules;
  if (op.reinit_field % (no_arena + 1) == no_arena) {
    reinit_arena.used = reinit_arena.capacity;
    rules.Merge(good_rules);
    rules.Merge(ArenaRules(reinit_arena, need, config_valid));
  } else {
    bad = broken(good, op.reinit_field, op.reinit_value);
    rules.Merge(rules_of(bad));
    rules.Merge(ArenaRules(reinit_arena, 0, false));
  }
  if ((op_nulls & (kOpNullInput | kOpNullOutput | kOpNullPlan)) ||
      (nulls & (kNullInput1 | kNullInput2))) {
    rules.Add(EA_ERR_NULL_POINTER);  // the same weights as init: maybe NULL ones
  }
  if (!rules.MustFail()) Fail("harness: a re-init that breaks no rule");
  Plan* plan_arg = op_nulls & kOpNullPlan ? nullptr : plan;
  pool.Snapshot();
  const size_t used = reinit_arena.used;
  SetContext(name, "re-init");
  *status = init(plan_arg, op_nulls & kOpNullInput ? nullptr : &bad, &weights,
                 op_nulls & kOpNullOutput ? nullptr : &reinit_arena);
  ExpectStatus(name, *status, rules);
  if (reinit_arena.used != used) Fail("failed re-init moved arena.used");
  ExpectUntouched("re-init", pool, {}, "failed");
  if (plan_arg != nullptr && plan->ready == EA_PLAN_READY) Fail("failed re-init left ready set");
}

// An op's count (PlanOp::length_kind): room is what the plan can take now
// (positions left, or the maximum), maximum the config's.
int32_t ResolveOpCount(const PlanOp& op, int64_t room, int64_t maximum);

// An op's input and output in the pool: the input n rows of `cols` floats
// (a 16-float stand-in when too large for the budget), the output its own
// region, the input itself, or placed over an earlier region or the input.
struct OpBuffers {
  int x = -1, y = -1;
  size_t floats = 0;
  bool stand_in = false;
};
OpBuffers PlaceOpBuffers(MemoryPool* pool, const PlanOp& op, const char* x_name, const char* y_name,
                         int32_t n, int64_t cols, int64_t* budget, std::vector<int>* candidates);

// The ops of a case, one line (EDGEATTN_FUZZ_DEBUG): kind, count where the
// kind takes buffers, NULL bits.
void DebugOps(const char* const* kind_names, const std::vector<uint8_t>& kinds,
              const std::vector<bool>& with_buffers, const std::vector<int32_t>& counts,
              const std::vector<OpBuffers>& buffers, const PlanOp* ops);

// Bytes of n rows of `cols` floats, saturated.
int64_t RowBytes(int32_t n, int64_t cols);
ByteRange Extent(const MemoryPool& pool, const void* pointer, int64_t bytes);
// The first `bytes` from a region's start (past its end too: what a call
// given that many rows would read or write).
ByteRange Span(const MemoryPool& pool, int region, int64_t bytes);

// The memory rules of a call reading x and writing y (ea_decoder_step,
// ea_cross_run; set_memory with an empty y): neither overlaps the carve
// or `kept` (weights, biases, tables, slopes); y may be x or overlap it (x
// is read before y is written); an overlap with `unread` (a table the plan
// does not read) may be refused.
struct CallMemory {
  ByteRange carve;
  std::vector<ByteRange> kept, unread;
};
void CallMemoryRules(const CallMemory& memory, const ByteRange& x, const ByteRange& y,
                     StatusSet* rules);

// What one op returned, for the replay: status and the output's bytes.
struct OpRecord {
  ea_status status = EA_OK;
  std::vector<uint8_t> y;
};
void ExpectSameRecords(const char* family, const std::vector<OpRecord>& first,
                       const std::vector<OpRecord>& replay);

// Runs the ops on every selected target (run_ops(target name, replay,
// records, outputs)); the first target's outputs go to *first_outs; on the
// `rerun`-th target the ops run again over the stale carve and must give
// the same statuses and bits.
template <class Out, class RunOps>
void RunOnTargets(const char* family, uint8_t target_bits, uint8_t rerun,
                  std::vector<Out>* first_outs, RunOps run_ops) {
  const std::vector<int64_t> targets = SelectTargets(target_bits);
  for (size_t t = 0; t < targets.size(); ++t) {
    ForceTarget(targets[t]);
    const char* target_name = TargetName(targets[t]);
    std::vector<OpRecord> records;
    std::vector<Out> outs;
    run_ops(target_name, false, &records, t == 0 ? first_outs : &outs);
    if (t == rerun % targets.size()) {
      std::vector<OpRecord> replayed;
      std::vector<Out> unused;
      run_ops(target_name, true, &replayed, &unused);
      ExpectSameRecords(family, records, replayed);
    }
  }
  ForceTarget(0);
}

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_PLAN_OPS_SUPPORT_H_
