// Bad input for every public entry point. The C API promises an exact status
// for each kind of bad input and "on any error no output byte is written"; a
// firmware caller relies on both (it may keep using its buffers, its plan and
// its arena after a refused call). Each table row breaks exactly one thing in
// an otherwise valid call, fills every output (and the plan) with a canary
// beforehand, and checks the status and that every watched byte is unchanged.
// A row that fails here is a library bug: fix the library, not the row.
#include <gtest/gtest.h>
#include <stdint.h>
#include <string.h>

#include <cmath>
#include <limits>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "edgeattn/edgeattn.h"
#include "reference/random_tensor.h"
#include "test_support.h"
#include "untouched_bytes.h"

namespace {

using edgeattn_test::kCanaryByte;
using edgeattn_test::StatusName;
using edgeattn_test::StoreRawEnum;
using edgeattn_test::UntouchedBytes;

// Plenty for every valid configuration below, so that only the broken field
// can be the reason for a refusal.
constexpr size_t kGenerousArenaBytes = 1 << 16;
constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();
// One past the side of the largest square tensor: (2^14 + 1) * 2^14 > EA_MAX_ELEMENTS.
constexpr int32_t kSquareSide = 1 << 14;

using AlignedBuffer = edgeattn_test::AlignedBytes;

// One row of a bad-input table: `arrange` breaks one thing in valid `Args`.
template <typename Args>
struct BadCase {
  const char* name;
  void (*arrange)(Args*);
  ea_status expected;
};

template <typename Args>
void PrintTo(const BadCase<Args>& bad_case, std::ostream* os) {
  *os << bad_case.name;
}

struct CaseName {
  template <typename Param>
  std::string operator()(const testing::TestParamInfo<Param>& info) const {
    return info.param.name;
  }
};

// ------------------------------------------------------------------ status

TEST(BadInputStatus, EveryStatusHasADistinctNonEmptyString) {
  std::set<std::string> seen;
  for (int value = EA_OK; value <= EA_ERR_NOT_FOUND; ++value) {
    const ea_status status = static_cast<ea_status>(value);
    const char* text = ea_status_str(status);
    ASSERT_NE(text, nullptr) << StatusName(status);
    EXPECT_GT(strlen(text), 0u) << StatusName(status);
    EXPECT_TRUE(seen.insert(text).second) << StatusName(status) << " repeats \"" << text << "\"";
  }
  EXPECT_EQ(seen.size(), 12u);
}

// ------------------------------------------------------------------- arena

struct ArenaInitArgs {
  AlignedBuffer storage{256};
  ea_arena arena{};
  ea_arena* arena_arg = &arena;
  void* buffer_arg = storage.data();
  size_t capacity = 256;
};

using ArenaInitCase = BadCase<ArenaInitArgs>;

class BadInputArenaInit : public testing::TestWithParam<ArenaInitCase> {};

TEST_P(BadInputArenaInit, RefusedWithStatusAndArenaUntouched) {
  ArenaInitArgs args;
  GetParam().arrange(&args);
  UntouchedBytes watched;
  watched.FillWithCanary("arena struct", &args.arena, sizeof(args.arena));
  watched.Remember("arena buffer", args.storage.data(), args.storage.size());
  EXPECT_STATUS(ea_arena_init(args.arena_arg, args.buffer_arg, args.capacity), GetParam().expected);
  watched.ExpectUntouched();
}

const ArenaInitCase kArenaInitCases[] = {
    {"NullArena", [](ArenaInitArgs* a) { a->arena_arg = nullptr; }, EA_ERR_NULL_POINTER},
    {"NullBuffer", [](ArenaInitArgs* a) { a->buffer_arg = nullptr; }, EA_ERR_NULL_POINTER},
    {"NullBufferZeroCapacity",
     [](ArenaInitArgs* a) {
       a->buffer_arg = nullptr;
       a->capacity = 0;
     },
     EA_ERR_NULL_POINTER},
    {"BufferPlusOne",
     [](ArenaInitArgs* a) {
       a->buffer_arg = a->storage.data() + 1;
       a->capacity -= 1;
     },
     EA_ERR_ARENA_MISALIGNED},
    {"BufferPlus4",
     [](ArenaInitArgs* a) {
       a->buffer_arg = a->storage.data() + 4;
       a->capacity -= 4;
     },
     EA_ERR_ARENA_MISALIGNED},
    {"BufferPlus32",
     [](ArenaInitArgs* a) {
       a->buffer_arg = a->storage.data() + 32;
       a->capacity -= 32;
     },
     EA_ERR_ARENA_MISALIGNED},
    {"BufferPlus63",
     [](ArenaInitArgs* a) {
       a->buffer_arg = a->storage.data() + 63;
       a->capacity -= 63;
     },
     EA_ERR_ARENA_MISALIGNED},
};
INSTANTIATE_TEST_SUITE_P(BadInput, BadInputArenaInit, testing::ValuesIn(kArenaInitCases),
                         CaseName());

TEST(BadInputArena, ResetNullArena) { EXPECT_STATUS(ea_arena_reset(nullptr), EA_ERR_NULL_POINTER); }

TEST(BadInputArena, RemainingOfNullOrCorruptArenaIsZero) {
  EXPECT_EQ(ea_arena_remaining(nullptr), 0u);
  AlignedBuffer storage(128);
  ea_arena arena{storage.data(), 64, 128};  // used > capacity
  EXPECT_EQ(ea_arena_remaining(&arena), 0u);
}

TEST(BadInputArena, ZeroCapacityIsAValidEmptyArena) {
  AlignedBuffer storage(64);
  ea_arena arena{};
  ASSERT_STATUS(ea_arena_init(&arena, storage.data(), 0), EA_OK);
  EXPECT_EQ(ea_arena_remaining(&arena), 0u);
}

// Shared by every init table: the ways an arena can be unfit for a plan
// that needs `needed` bytes. `earlier_plan` is for the partly-used case.
enum class ArenaFault {
  kNone,
  kZeroCapacity,
  kShortByOneByte,
  kShortByOneAlignmentGranule,
  kShortByScoreTileRegion,
  kPartlyUsedByAnEarlierPlan,
  kMisalignedBase,
  kMisalignedUsedOffset,
};

// The last region every plan carves: the attention core's [6, 256] score tile.
constexpr size_t kScoreTileRegionBytes = 6 * 256 * sizeof(float);

// Initialises `arena` over `storage`, then applies `fault` for a plan that
// needs `needed` bytes.
void ShapeArena(ArenaFault fault, size_t needed, AlignedBuffer* storage, ea_arena* arena) {
  ASSERT_LE(2 * needed, storage->size());
  ASSERT_STATUS(ea_arena_init(arena, storage->data(), storage->size()), EA_OK);
  switch (fault) {
    case ArenaFault::kNone:
      return;
    case ArenaFault::kZeroCapacity:
      arena->capacity = 0;
      return;
    case ArenaFault::kShortByOneByte:
      arena->capacity = needed - 1;
      return;
    case ArenaFault::kShortByOneAlignmentGranule:
      arena->capacity = needed - EA_ARENA_ALIGNMENT;
      return;
    case ArenaFault::kShortByScoreTileRegion:
      arena->capacity = needed - kScoreTileRegionBytes;
      return;
    case ArenaFault::kPartlyUsedByAnEarlierPlan:
      // As an earlier plan of the same shape leaves it: `needed` bytes used,
      // one alignment granule less than `needed` still free.
      arena->capacity = 2 * needed - EA_ARENA_ALIGNMENT;
      arena->used = needed;
      return;
    case ArenaFault::kMisalignedBase:
      // ea_arena_init refuses this buffer, so build the struct by hand as a
      // caller that skipped the init would.
      arena->base = storage->data() + 1;
      arena->capacity = storage->size() - 1;
      return;
    case ArenaFault::kMisalignedUsedOffset:
      arena->used = 4;
      return;
  }
}

// --------------------------------------------------------------- attention

constexpr ea_attention_config kValidAttention = {
    EA_DTYPE_F32, 5, 7, 3, 4, EA_MASK_NONE, 0.0f, ea_parallel_for{}, nullptr, nullptr};

using AttentionConfigCase = BadCase<ea_attention_config>;

const AttentionConfigCase kAttentionConfigCases[] = {
    {"DtypeUnknown3", [](ea_attention_config* c) { StoreRawEnum(&c->dtype, 3); },
     EA_ERR_BAD_ARGUMENT},
    {"DtypeUnknownMinus1", [](ea_attention_config* c) { StoreRawEnum(&c->dtype, -1); },
     EA_ERR_BAD_ARGUMENT},
    {"NqZero", [](ea_attention_config* c) { c->n_q = 0; }, EA_ERR_BAD_DIMENSION},
    {"NqNegative", [](ea_attention_config* c) { c->n_q = -1; }, EA_ERR_BAD_DIMENSION},
    {"NqInt32Min", [](ea_attention_config* c) { c->n_q = kInt32Min; }, EA_ERR_BAD_DIMENSION},
    {"NkvZero", [](ea_attention_config* c) { c->n_kv = 0; }, EA_ERR_BAD_DIMENSION},
    {"NkvNegative", [](ea_attention_config* c) { c->n_kv = -1; }, EA_ERR_BAD_DIMENSION},
    {"DkZero", [](ea_attention_config* c) { c->d_k = 0; }, EA_ERR_BAD_DIMENSION},
    {"DkNegative", [](ea_attention_config* c) { c->d_k = -7; }, EA_ERR_BAD_DIMENSION},
    {"DvZero", [](ea_attention_config* c) { c->d_v = 0; }, EA_ERR_BAD_DIMENSION},
    {"DvNegative", [](ea_attention_config* c) { c->d_v = -1; }, EA_ERR_BAD_DIMENSION},
    {"NqInt32Max", [](ea_attention_config* c) { c->n_q = kInt32Max; }, EA_ERR_DIMENSION_OVERFLOW},
    {"NkvInt32Max", [](ea_attention_config* c) { c->n_kv = kInt32Max; }, EA_ERR_DIMENSION_OVERFLOW},
    {"DkInt32Max", [](ea_attention_config* c) { c->d_k = kInt32Max; }, EA_ERR_DIMENSION_OVERFLOW},
    {"DvInt32Max", [](ea_attention_config* c) { c->d_v = kInt32Max; }, EA_ERR_DIMENSION_OVERFLOW},
    {"QueriesAboveMaxElements",
     [](ea_attention_config* c) {
       c->n_q = kSquareSide;
       c->d_k = kSquareSide + 1;
     },
     EA_ERR_DIMENSION_OVERFLOW},
    {"ValuesAboveMaxElements",
     [](ea_attention_config* c) {
       c->n_kv = kSquareSide;
       c->d_v = kSquareSide + 1;
     },
     EA_ERR_DIMENSION_OVERFLOW},
    {"OutputAboveMaxElements",
     [](ea_attention_config* c) {
       c->n_q = kSquareSide;
       c->d_v = kSquareSide + 1;
     },
     EA_ERR_DIMENSION_OVERFLOW},
    // n_kv = 1 pads to one 64-key panel: 64 * (2^22 + 1) > EA_MAX_ELEMENTS.
    {"PackedKeyPanelAboveMaxElements",
     [](ea_attention_config* c) {
       c->n_q = 1;
       c->n_kv = 1;
       c->d_k = (1 << 22) + 1;
     },
     EA_ERR_DIMENSION_OVERFLOW},
    {"MaskUnknown2", [](ea_attention_config* c) { StoreRawEnum(&c->mask, 2); },
     EA_ERR_BAD_ARGUMENT},
    {"MaskUnknownMinus1", [](ea_attention_config* c) { StoreRawEnum(&c->mask, -1); },
     EA_ERR_BAD_ARGUMENT},
    {"ScaleNegative", [](ea_attention_config* c) { c->scale = -0.5f; }, EA_ERR_BAD_ARGUMENT},
    {"ScaleNegativeTiny",
     [](ea_attention_config* c) { c->scale = -std::numeric_limits<float>::denorm_min(); },
     EA_ERR_BAD_ARGUMENT},
    {"ScaleNaN", [](ea_attention_config* c) { c->scale = std::nanf(""); }, EA_ERR_BAD_ARGUMENT},
    {"ScalePlusInfinity",
     [](ea_attention_config* c) { c->scale = std::numeric_limits<float>::infinity(); },
     EA_ERR_BAD_ARGUMENT},
    {"ScaleMinusInfinity",
     [](ea_attention_config* c) { c->scale = -std::numeric_limits<float>::infinity(); },
     EA_ERR_BAD_ARGUMENT},
};

class BadInputAttentionArenaSize : public testing::TestWithParam<AttentionConfigCase> {};

TEST_P(BadInputAttentionArenaSize, RefusedWithStatusAndSizeUntouched) {
  ea_attention_config config = kValidAttention;
  GetParam().arrange(&config);
  size_t bytes = 0;
  UntouchedBytes watched;
  watched.FillWithCanary("bytes", &bytes, sizeof(bytes));
  EXPECT_STATUS(ea_attention_arena_size(&config, &bytes), GetParam().expected);
  watched.ExpectUntouched();
}
INSTANTIATE_TEST_SUITE_P(BadInput, BadInputAttentionArenaSize,
                         testing::ValuesIn(kAttentionConfigCases), CaseName());

TEST(BadInputAttention, ArenaSizeNullPointers) {
  size_t bytes = 0;
  EXPECT_STATUS(ea_attention_arena_size(nullptr, &bytes), EA_ERR_NULL_POINTER);
  EXPECT_EQ(bytes, 0u);
  EXPECT_STATUS(ea_attention_arena_size(&kValidAttention, nullptr), EA_ERR_NULL_POINTER);
}

TEST(BadInputAttention, ValidBaselineAndExactLimitAreAccepted) {
  size_t bytes = 0;
  EXPECT_STATUS(ea_attention_arena_size(&kValidAttention, &bytes), EA_OK);
  // 64 keys x d_k = 2^22 is exactly EA_MAX_ELEMENTS floats of packed keys.
  ea_attention_config at_limit = {
      EA_DTYPE_F32, 1, 64, 1 << 22, 1, EA_MASK_NONE, 0.0f, ea_parallel_for{}, nullptr, nullptr};
  EXPECT_STATUS(ea_attention_arena_size(&at_limit, &bytes), EA_OK);
  EXPECT_EQ(bytes, (size_t{1} << 30) + kScoreTileRegionBytes);
  ea_attention_config positive_scale = kValidAttention;
  positive_scale.scale = std::numeric_limits<float>::denorm_min();
  EXPECT_STATUS(ea_attention_arena_size(&positive_scale, &bytes), EA_OK);
}

struct AttentionPlanInitArgs {
  ea_attention_config config = kValidAttention;
  ArenaFault arena_fault = ArenaFault::kNone;
  AlignedBuffer arena_storage{kGenerousArenaBytes};
  ea_arena arena{};
  ea_attention_plan plan{};
  ea_attention_plan* plan_arg = &plan;
  const ea_attention_config* config_arg = &config;
  ea_arena* arena_arg = &arena;
};

// Every config row must also be refused by init, with nothing carved.
class BadInputAttentionPlanInitConfig : public testing::TestWithParam<AttentionConfigCase> {};

// Pointer and arena rows of init.
using AttentionPlanInitCase = BadCase<AttentionPlanInitArgs>;
class BadInputAttentionPlanInit : public testing::TestWithParam<AttentionPlanInitCase> {};

// A refused init clears the plan's ready word (a failed re-plan must not
// leave the old plan runnable) and writes nothing else: check the word, then
// put the canary back so that ExpectUntouched covers the rest of the struct.
void ExpectPlanInvalidated(const void* plan_arg, uint32_t* ready) {
  if (plan_arg == nullptr) return;
  EXPECT_EQ(*ready, 0u) << "a refused init must leave the plan not ready";
  memset(ready, kCanaryByte, sizeof(*ready));
}

void ExpectAttentionPlanInitRefused(AttentionPlanInitArgs* args, ea_status expected) {
  size_t needed = 0;
  ASSERT_STATUS(ea_attention_arena_size(&kValidAttention, &needed), EA_OK);
  ASSERT_NO_FATAL_FAILURE(
      ShapeArena(args->arena_fault, needed, &args->arena_storage, &args->arena));
  const size_t used_before = args->arena.used;
  UntouchedBytes watched;
  watched.FillWithCanary("plan", &args->plan, sizeof(args->plan));
  watched.Remember("arena struct", &args->arena, sizeof(args->arena));
  watched.Remember("arena buffer", args->arena_storage.data(), args->arena_storage.size());
  EXPECT_STATUS(ea_attention_init(args->plan_arg, args->config_arg, args->arena_arg), expected);
  ExpectPlanInvalidated(args->plan_arg, &args->plan.ready);
  EXPECT_EQ(args->arena.used, used_before);
  watched.ExpectUntouched();
}

TEST_P(BadInputAttentionPlanInitConfig, RefusedWithStatusAndNothingWritten) {
  AttentionPlanInitArgs args;
  GetParam().arrange(&args.config);
  ExpectAttentionPlanInitRefused(&args, GetParam().expected);
}
INSTANTIATE_TEST_SUITE_P(BadInput, BadInputAttentionPlanInitConfig,
                         testing::ValuesIn(kAttentionConfigCases), CaseName());

TEST_P(BadInputAttentionPlanInit, RefusedWithStatusAndNothingWritten) {
  AttentionPlanInitArgs args;
  GetParam().arrange(&args);
  ExpectAttentionPlanInitRefused(&args, GetParam().expected);
}

const AttentionPlanInitCase kAttentionPlanInitCases[] = {
    {"NullPlan", [](AttentionPlanInitArgs* a) { a->plan_arg = nullptr; }, EA_ERR_NULL_POINTER},
    {"NullConfig", [](AttentionPlanInitArgs* a) { a->config_arg = nullptr; }, EA_ERR_NULL_POINTER},
    {"NullArena", [](AttentionPlanInitArgs* a) { a->arena_arg = nullptr; }, EA_ERR_NULL_POINTER},
    {"ArenaZeroCapacity",
     [](AttentionPlanInitArgs* a) { a->arena_fault = ArenaFault::kZeroCapacity; },
     EA_ERR_ARENA_TOO_SMALL},
    {"ArenaShortByOneByte",
     [](AttentionPlanInitArgs* a) { a->arena_fault = ArenaFault::kShortByOneByte; },
     EA_ERR_ARENA_TOO_SMALL},
    {"ArenaShortByOneGranule",
     [](AttentionPlanInitArgs* a) { a->arena_fault = ArenaFault::kShortByOneAlignmentGranule; },
     EA_ERR_ARENA_TOO_SMALL},
    {"ArenaShortByScoreTileRegion",
     [](AttentionPlanInitArgs* a) { a->arena_fault = ArenaFault::kShortByScoreTileRegion; },
     EA_ERR_ARENA_TOO_SMALL},
    {"ArenaPartlyUsed",
     [](AttentionPlanInitArgs* a) { a->arena_fault = ArenaFault::kPartlyUsedByAnEarlierPlan; },
     EA_ERR_ARENA_TOO_SMALL},
    {"ArenaBasePlusOne",
     [](AttentionPlanInitArgs* a) { a->arena_fault = ArenaFault::kMisalignedBase; },
     EA_ERR_ARENA_MISALIGNED},
    {"ArenaUsedNotAligned",
     [](AttentionPlanInitArgs* a) { a->arena_fault = ArenaFault::kMisalignedUsedOffset; },
     EA_ERR_ARENA_MISALIGNED},
};
INSTANTIATE_TEST_SUITE_P(BadInput, BadInputAttentionPlanInit,
                         testing::ValuesIn(kAttentionPlanInitCases), CaseName());

TEST(BadInputAttention, ValidPlanInitSucceedsOnTheSameArguments) {
  AttentionPlanInitArgs args;
  ShapeArena(ArenaFault::kNone, 0, &args.arena_storage, &args.arena);
  EXPECT_STATUS(ea_attention_init(&args.plan, &args.config, &args.arena), EA_OK);
  EXPECT_GT(args.arena.used, 0u);
}

struct AttentionRunArgs {
  ea_attention_config config = kValidAttention;
  AlignedBuffer arena_storage{kGenerousArenaBytes};
  ea_arena arena{};
  ea_attention_plan plan{};
  ea_attention_plan never_planned{};
  ea_status plan_status = EA_ERR_BAD_ARGUMENT;
  std::vector<float> q = edgeattn_test::RandomTensor(5 * 3, 11);
  std::vector<float> k = edgeattn_test::RandomTensor(7 * 3, 12);
  std::vector<float> v = edgeattn_test::RandomTensor(7 * 4, 13);
  std::vector<float> out = std::vector<float>(5 * 4);
  std::vector<float> attn_weights = std::vector<float>(5 * 7);
  const ea_attention_plan* plan_arg = &plan;
  const float* q_arg = q.data();
  const float* k_arg = k.data();
  const float* v_arg = v.data();
  int32_t n_valid_keys = 7;
  float* out_arg = out.data();
  float* attn_weights_arg = attn_weights.data();

  AttentionRunArgs() {
    ea_arena_init(&arena, arena_storage.data(), arena_storage.size());
    plan_status = ea_attention_init(&plan, &config, &arena);
  }
};

using AttentionRunCase = BadCase<AttentionRunArgs>;
class BadInputAttentionRun : public testing::TestWithParam<AttentionRunCase> {};

TEST_P(BadInputAttentionRun, RefusedWithStatusAndNoOutputWritten) {
  AttentionRunArgs args;
  ASSERT_STATUS(args.plan_status, EA_OK);
  GetParam().arrange(&args);
  UntouchedBytes watched;
  watched.FillWithCanary("out", args.out.data(), args.out.size() * sizeof(float));
  watched.FillWithCanary("attn_weights", args.attn_weights.data(),
                         args.attn_weights.size() * sizeof(float));
  watched.Remember("plan", &args.plan, sizeof(args.plan));
  watched.Remember("arena buffer", args.arena_storage.data(), args.arena_storage.size());
  EXPECT_STATUS(ea_attention_run(args.plan_arg, args.q_arg, args.k_arg, args.v_arg,
                                 args.n_valid_keys, args.out_arg, args.attn_weights_arg),
                GetParam().expected);
  watched.ExpectUntouched();
}

const AttentionRunCase kAttentionRunCases[] = {
    {"NullPlan", [](AttentionRunArgs* a) { a->plan_arg = nullptr; }, EA_ERR_NULL_POINTER},
    {"NullQ", [](AttentionRunArgs* a) { a->q_arg = nullptr; }, EA_ERR_NULL_POINTER},
    {"NullK", [](AttentionRunArgs* a) { a->k_arg = nullptr; }, EA_ERR_NULL_POINTER},
    {"NullV", [](AttentionRunArgs* a) { a->v_arg = nullptr; }, EA_ERR_NULL_POINTER},
    {"NullOut", [](AttentionRunArgs* a) { a->out_arg = nullptr; }, EA_ERR_NULL_POINTER},
    {"NeverPlanned", [](AttentionRunArgs* a) { a->plan_arg = &a->never_planned; },
     EA_ERR_BAD_ARGUMENT},
    {"PlanWhoseInitFailed",
     [](AttentionRunArgs* a) {
       ea_attention_config bad = a->config;
       bad.n_q = 0;
       ea_attention_init(&a->never_planned, &bad, &a->arena);
       a->plan_arg = &a->never_planned;
     },
     EA_ERR_BAD_ARGUMENT},
    {"NValidKeysNegative", [](AttentionRunArgs* a) { a->n_valid_keys = -1; }, EA_ERR_BAD_ARGUMENT},
    {"NValidKeysInt32Min", [](AttentionRunArgs* a) { a->n_valid_keys = kInt32Min; },
     EA_ERR_BAD_ARGUMENT},
    {"NValidKeysAboveNkv", [](AttentionRunArgs* a) { a->n_valid_keys = 8; }, EA_ERR_BAD_ARGUMENT},
    {"NValidKeysInt32Max", [](AttentionRunArgs* a) { a->n_valid_keys = kInt32Max; },
     EA_ERR_BAD_ARGUMENT},
};
INSTANTIATE_TEST_SUITE_P(BadInput, BadInputAttentionRun, testing::ValuesIn(kAttentionRunCases),
                         CaseName());

TEST(BadInputAttention, ValidRunSucceedsOnTheSameArguments) {
  AttentionRunArgs args;
  ASSERT_STATUS(args.plan_status, EA_OK);
  EXPECT_STATUS(ea_attention_run(&args.plan, args.q.data(), args.k.data(), args.v.data(), 7,
                                 args.out.data(), args.attn_weights.data()),
                EA_OK);
}

// n_q * n_kv = 2^29 probabilities cannot be addressed as one tensor; the
// outputs are cheap ([n_q, 1]), so the only fault is asking for the weights.
TEST(BadInputAttention, RunRefusesWeightsAboveMaxElements) {
  const ea_attention_config config = {EA_DTYPE_F32, 1 << 15, 1 << 14,           1,       1,
                                      EA_MASK_NONE, 0.0f,    ea_parallel_for{}, nullptr, nullptr};
  size_t needed = 0;
  ASSERT_STATUS(ea_attention_arena_size(&config, &needed), EA_OK);
  AlignedBuffer storage(needed);
  ea_arena arena{};
  ASSERT_STATUS(ea_arena_init(&arena, storage.data(), storage.size()), EA_OK);
  ea_attention_plan plan{};
  ASSERT_STATUS(ea_attention_init(&plan, &config, &arena), EA_OK);
  const std::vector<float> q = edgeattn_test::RandomTensor(1 << 15, 21);
  const std::vector<float> kv = edgeattn_test::RandomTensor(1 << 14, 22);
  std::vector<float> out(1 << 15);
  std::vector<float> attn_weights(4096);  // never legitimately written: too small on purpose
  UntouchedBytes watched;
  watched.FillWithCanary("out", out.data(), out.size() * sizeof(float));
  watched.FillWithCanary("attn_weights", attn_weights.data(), attn_weights.size() * sizeof(float));
  EXPECT_STATUS(ea_attention_run(&plan, q.data(), kv.data(), kv.data(), 1 << 14, out.data(),
                                 attn_weights.data()),
                EA_ERR_DIMENSION_OVERFLOW);
  watched.ExpectUntouched();
}

// ---------------------------------------------------------- self-attention

// Sinusoidal positions filled into the arena: a library that started filling
// before it finished validating would show in the watched arena bytes.
constexpr int32_t kSelfTokens = 6;
constexpr int32_t kSelfDModel = 8;
constexpr int32_t kSelfDk = 4;
constexpr int32_t kSelfDv = 5;
constexpr ea_self_attention_config kValidSelfAttention = {EA_DTYPE_F32,
                                                          kSelfTokens,
                                                          kSelfDModel,
                                                          kSelfDk,
                                                          kSelfDv,
                                                          EA_MASK_CAUSAL,
                                                          EA_POSITION_SINUSOIDAL,
                                                          nullptr,
                                                          EA_WEIGHTS_ROW_MAJOR,
                                                          ea_parallel_for{},
                                                          nullptr,
                                                          nullptr,
                                                          nullptr};

using SelfAttentionConfigCase = BadCase<ea_self_attention_config>;

const SelfAttentionConfigCase kSelfAttentionConfigCases[] = {
    {"DtypeUnknown3", [](ea_self_attention_config* c) { StoreRawEnum(&c->dtype, 3); },
     EA_ERR_BAD_ARGUMENT},
    {"DtypeUnknownMinus1", [](ea_self_attention_config* c) { StoreRawEnum(&c->dtype, -1); },
     EA_ERR_BAD_ARGUMENT},
    {"MaxTokensZero", [](ea_self_attention_config* c) { c->max_tokens = 0; }, EA_ERR_BAD_DIMENSION},
    {"MaxTokensNegative", [](ea_self_attention_config* c) { c->max_tokens = -1; },
     EA_ERR_BAD_DIMENSION},
    {"MaxTokensInt32Min", [](ea_self_attention_config* c) { c->max_tokens = kInt32Min; },
     EA_ERR_BAD_DIMENSION},
    {"DModelZero", [](ea_self_attention_config* c) { c->d_model = 0; }, EA_ERR_BAD_DIMENSION},
    {"DModelNegative", [](ea_self_attention_config* c) { c->d_model = -8; }, EA_ERR_BAD_DIMENSION},
    {"DkZero", [](ea_self_attention_config* c) { c->d_k = 0; }, EA_ERR_BAD_DIMENSION},
    {"DkNegative", [](ea_self_attention_config* c) { c->d_k = -1; }, EA_ERR_BAD_DIMENSION},
    {"DvZero", [](ea_self_attention_config* c) { c->d_v = 0; }, EA_ERR_BAD_DIMENSION},
    {"DvNegative", [](ea_self_attention_config* c) { c->d_v = -1; }, EA_ERR_BAD_DIMENSION},
    {"MaxTokensInt32Max", [](ea_self_attention_config* c) { c->max_tokens = kInt32Max; },
     EA_ERR_DIMENSION_OVERFLOW},
    {"DModelInt32Max", [](ea_self_attention_config* c) { c->d_model = kInt32Max; },
     EA_ERR_DIMENSION_OVERFLOW},
    {"DkInt32Max", [](ea_self_attention_config* c) { c->d_k = kInt32Max; },
     EA_ERR_DIMENSION_OVERFLOW},
    {"DvInt32Max", [](ea_self_attention_config* c) { c->d_v = kInt32Max; },
     EA_ERR_DIMENSION_OVERFLOW},
    {"InputAboveMaxElements",
     [](ea_self_attention_config* c) {
       c->max_tokens = kSquareSide;
       c->d_model = kSquareSide + 1;
     },
     EA_ERR_DIMENSION_OVERFLOW},
    {"QueryWeightAboveMaxElements",
     [](ea_self_attention_config* c) {
       c->d_model = kSquareSide;
       c->d_k = kSquareSide + 1;
     },
     EA_ERR_DIMENSION_OVERFLOW},
    {"ValueWeightAboveMaxElements",
     [](ea_self_attention_config* c) {
       c->d_model = kSquareSide;
       c->d_v = kSquareSide + 1;
     },
     EA_ERR_DIMENSION_OVERFLOW},
    {"QueriesAboveMaxElements",
     [](ea_self_attention_config* c) {
       c->max_tokens = kSquareSide;
       c->d_model = 1;
       c->d_k = kSquareSide + 1;
     },
     EA_ERR_DIMENSION_OVERFLOW},
    {"ValuesAboveMaxElements",
     [](ea_self_attention_config* c) {
       c->max_tokens = kSquareSide;
       c->d_model = 1;
       c->d_v = kSquareSide + 1;
     },
     EA_ERR_DIMENSION_OVERFLOW},
    {"PackedKeyPanelAboveMaxElements",
     [](ea_self_attention_config* c) {
       c->max_tokens = 1;
       c->d_model = 1;
       c->d_k = (1 << 22) + 1;
     },
     EA_ERR_DIMENSION_OVERFLOW},
    {"MaskUnknown2", [](ea_self_attention_config* c) { StoreRawEnum(&c->mask, 2); },
     EA_ERR_BAD_ARGUMENT},
    {"MaskUnknownMinus1", [](ea_self_attention_config* c) { StoreRawEnum(&c->mask, -1); },
     EA_ERR_BAD_ARGUMENT},
    {"PositionUnknown3", [](ea_self_attention_config* c) { StoreRawEnum(&c->position, 3); },
     EA_ERR_BAD_ARGUMENT},
    {"PositionUnknownMinus1", [](ea_self_attention_config* c) { StoreRawEnum(&c->position, -1); },
     EA_ERR_BAD_ARGUMENT},
    {"LearnedWithoutTable",
     [](ea_self_attention_config* c) {
       c->position = EA_POSITION_LEARNED;
       c->position_table = nullptr;
     },
     EA_ERR_NULL_POINTER},
};

class BadInputSelfAttentionArenaSize : public testing::TestWithParam<SelfAttentionConfigCase> {};

TEST_P(BadInputSelfAttentionArenaSize, RefusedWithStatusAndSizeUntouched) {
  ea_self_attention_config config = kValidSelfAttention;
  GetParam().arrange(&config);
  size_t bytes = 0;
  UntouchedBytes watched;
  watched.FillWithCanary("bytes", &bytes, sizeof(bytes));
  EXPECT_STATUS(ea_self_attention_arena_size(&config, &bytes), GetParam().expected);
  watched.ExpectUntouched();
}
INSTANTIATE_TEST_SUITE_P(BadInput, BadInputSelfAttentionArenaSize,
                         testing::ValuesIn(kSelfAttentionConfigCases), CaseName());

TEST(BadInputSelfAttention, ArenaSizeNullPointers) {
  size_t bytes = 0;
  EXPECT_STATUS(ea_self_attention_arena_size(nullptr, &bytes), EA_ERR_NULL_POINTER);
  EXPECT_EQ(bytes, 0u);
  EXPECT_STATUS(ea_self_attention_arena_size(&kValidSelfAttention, nullptr), EA_ERR_NULL_POINTER);
}

// Valid weights of the baseline shape (values are irrelevant to refusals).
struct SelfAttentionWeightData {
  std::vector<float> w_q = edgeattn_test::RandomTensor(kSelfDk * kSelfDModel, 31, 0.3);
  std::vector<float> w_k = edgeattn_test::RandomTensor(kSelfDk * kSelfDModel, 32, 0.3);
  std::vector<float> w_v = edgeattn_test::RandomTensor(kSelfDv * kSelfDModel, 33, 0.3);
  std::vector<float> b_q = edgeattn_test::RandomTensor(kSelfDk, 34, 0.1);
  std::vector<float> b_k = edgeattn_test::RandomTensor(kSelfDk, 35, 0.1);
  std::vector<float> b_v = edgeattn_test::RandomTensor(kSelfDv, 36, 0.1);
  ea_self_attention_weights weights{w_q.data(), w_k.data(), w_v.data(),
                                    b_q.data(), b_k.data(), b_v.data()};
};

struct SelfAttentionPlanInitArgs {
  ea_self_attention_config config = kValidSelfAttention;
  SelfAttentionWeightData data;
  ea_self_attention_weights weights = data.weights;
  ArenaFault arena_fault = ArenaFault::kNone;
  AlignedBuffer arena_storage{kGenerousArenaBytes};
  ea_arena arena{};
  ea_self_attention_plan plan{};
  ea_self_attention_plan* plan_arg = &plan;
  const ea_self_attention_config* config_arg = &config;
  const ea_self_attention_weights* weights_arg = &weights;
  ea_arena* arena_arg = &arena;
};

void ExpectSelfAttentionPlanInitRefused(SelfAttentionPlanInitArgs* args, ea_status expected) {
  size_t needed = 0;
  ASSERT_STATUS(ea_self_attention_arena_size(&kValidSelfAttention, &needed), EA_OK);
  ASSERT_NO_FATAL_FAILURE(
      ShapeArena(args->arena_fault, needed, &args->arena_storage, &args->arena));
  const size_t used_before = args->arena.used;
  UntouchedBytes watched;
  watched.FillWithCanary("plan", &args->plan, sizeof(args->plan));
  watched.Remember("arena struct", &args->arena, sizeof(args->arena));
  watched.Remember("arena buffer", args->arena_storage.data(), args->arena_storage.size());
  EXPECT_STATUS(
      ea_self_attention_init(args->plan_arg, args->config_arg, args->weights_arg, args->arena_arg),
      expected);
  ExpectPlanInvalidated(args->plan_arg, &args->plan.ready);
  EXPECT_EQ(args->arena.used, used_before);
  watched.ExpectUntouched();
}

// Fixed point has its own plan (quant_self_attention_test.cc): the float
// init refuses the dtype; the arena size, which serves every dtype,
// wants the quantization the float config lacks.
TEST(BadInputSelfAttention, FixedPointDtypesOnTheFloatConfig) {
  for (ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    ea_self_attention_config config = kValidSelfAttention;
    config.dtype = dtype;
    size_t bytes = 0;
    UntouchedBytes watched;
    watched.FillWithCanary("bytes", &bytes, sizeof(bytes));
    EXPECT_STATUS(ea_self_attention_arena_size(&config, &bytes), EA_ERR_BAD_ARGUMENT);
    EXPECT_STATUS(ea_self_attention_quant_arena_size(&config, &bytes), EA_ERR_NULL_POINTER);
    watched.ExpectUntouched();
    SelfAttentionPlanInitArgs args;
    args.config = config;
    ExpectSelfAttentionPlanInitRefused(&args, EA_ERR_BAD_ARGUMENT);
  }
}

class BadInputSelfAttentionPlanInitConfig : public testing::TestWithParam<SelfAttentionConfigCase> {
};

TEST_P(BadInputSelfAttentionPlanInitConfig, RefusedWithStatusAndNothingWritten) {
  SelfAttentionPlanInitArgs args;
  GetParam().arrange(&args.config);
  ExpectSelfAttentionPlanInitRefused(&args, GetParam().expected);
}
INSTANTIATE_TEST_SUITE_P(BadInput, BadInputSelfAttentionPlanInitConfig,
                         testing::ValuesIn(kSelfAttentionConfigCases), CaseName());

using SelfAttentionPlanInitCase = BadCase<SelfAttentionPlanInitArgs>;
class BadInputSelfAttentionPlanInit : public testing::TestWithParam<SelfAttentionPlanInitCase> {};

TEST_P(BadInputSelfAttentionPlanInit, RefusedWithStatusAndNothingWritten) {
  SelfAttentionPlanInitArgs args;
  GetParam().arrange(&args);
  ExpectSelfAttentionPlanInitRefused(&args, GetParam().expected);
}

const SelfAttentionPlanInitCase kSelfAttentionPlanInitCases[] = {
    {"NullPlan", [](SelfAttentionPlanInitArgs* a) { a->plan_arg = nullptr; }, EA_ERR_NULL_POINTER},
    {"NullConfig", [](SelfAttentionPlanInitArgs* a) { a->config_arg = nullptr; },
     EA_ERR_NULL_POINTER},
    {"NullWeights", [](SelfAttentionPlanInitArgs* a) { a->weights_arg = nullptr; },
     EA_ERR_NULL_POINTER},
    {"NullArena", [](SelfAttentionPlanInitArgs* a) { a->arena_arg = nullptr; },
     EA_ERR_NULL_POINTER},
    {"NullWq", [](SelfAttentionPlanInitArgs* a) { a->weights.w_q = nullptr; }, EA_ERR_NULL_POINTER},
    {"NullWk", [](SelfAttentionPlanInitArgs* a) { a->weights.w_k = nullptr; }, EA_ERR_NULL_POINTER},
    {"NullWv", [](SelfAttentionPlanInitArgs* a) { a->weights.w_v = nullptr; }, EA_ERR_NULL_POINTER},
    {"NullWqWithLearnedTable",
     [](SelfAttentionPlanInitArgs* a) {
       static const std::vector<float> table(kSelfTokens * kSelfDModel, 0.25f);
       a->config.position = EA_POSITION_LEARNED;
       a->config.position_table = table.data();
       a->weights.w_q = nullptr;
     },
     EA_ERR_NULL_POINTER},
    {"ArenaZeroCapacity",
     [](SelfAttentionPlanInitArgs* a) { a->arena_fault = ArenaFault::kZeroCapacity; },
     EA_ERR_ARENA_TOO_SMALL},
    {"ArenaShortByOneByte",
     [](SelfAttentionPlanInitArgs* a) { a->arena_fault = ArenaFault::kShortByOneByte; },
     EA_ERR_ARENA_TOO_SMALL},
    {"ArenaShortByOneGranule",
     [](SelfAttentionPlanInitArgs* a) { a->arena_fault = ArenaFault::kShortByOneAlignmentGranule; },
     EA_ERR_ARENA_TOO_SMALL},
    {"ArenaShortByScoreTileRegion",
     [](SelfAttentionPlanInitArgs* a) { a->arena_fault = ArenaFault::kShortByScoreTileRegion; },
     EA_ERR_ARENA_TOO_SMALL},
    {"ArenaPartlyUsed",
     [](SelfAttentionPlanInitArgs* a) { a->arena_fault = ArenaFault::kPartlyUsedByAnEarlierPlan; },
     EA_ERR_ARENA_TOO_SMALL},
    {"ArenaBasePlusOne",
     [](SelfAttentionPlanInitArgs* a) { a->arena_fault = ArenaFault::kMisalignedBase; },
     EA_ERR_ARENA_MISALIGNED},
    {"ArenaUsedNotAligned",
     [](SelfAttentionPlanInitArgs* a) { a->arena_fault = ArenaFault::kMisalignedUsedOffset; },
     EA_ERR_ARENA_MISALIGNED},
};
INSTANTIATE_TEST_SUITE_P(BadInput, BadInputSelfAttentionPlanInit,
                         testing::ValuesIn(kSelfAttentionPlanInitCases), CaseName());

TEST(BadInputSelfAttention, ValidPlanInitSucceedsOnTheSameArguments) {
  SelfAttentionPlanInitArgs args;
  args.weights.b_q = args.weights.b_k = args.weights.b_v = nullptr;  // biases are optional
  ShapeArena(ArenaFault::kNone, 0, &args.arena_storage, &args.arena);
  EXPECT_STATUS(ea_self_attention_init(&args.plan, &args.config, &args.weights, &args.arena),
                EA_OK);
}

struct SelfAttentionRunArgs {
  ea_self_attention_config config = kValidSelfAttention;
  SelfAttentionWeightData data;
  AlignedBuffer arena_storage{kGenerousArenaBytes};
  ea_arena arena{};
  ea_self_attention_plan plan{};
  ea_self_attention_plan never_planned{};
  ea_status plan_status = EA_ERR_BAD_ARGUMENT;
  std::vector<float> x = edgeattn_test::RandomTensor(kSelfTokens * kSelfDModel, 37);
  std::vector<float> y = std::vector<float>(kSelfTokens * kSelfDv);
  std::vector<float> attn_weights = std::vector<float>(kSelfTokens * kSelfTokens);
  const ea_self_attention_plan* plan_arg = &plan;
  const float* x_arg = x.data();
  int32_t n_tokens = kSelfTokens;
  int32_t n_valid_keys = kSelfTokens;
  float* y_arg = y.data();
  float* attn_weights_arg = attn_weights.data();

  SelfAttentionRunArgs() {
    ea_arena_init(&arena, arena_storage.data(), arena_storage.size());
    plan_status = ea_self_attention_init(&plan, &config, &data.weights, &arena);
  }
};

using SelfAttentionRunCase = BadCase<SelfAttentionRunArgs>;
class BadInputSelfAttentionRun : public testing::TestWithParam<SelfAttentionRunCase> {};

TEST_P(BadInputSelfAttentionRun, RefusedWithStatusAndNoOutputWritten) {
  SelfAttentionRunArgs args;
  ASSERT_STATUS(args.plan_status, EA_OK);
  GetParam().arrange(&args);
  UntouchedBytes watched;
  watched.FillWithCanary("y", args.y.data(), args.y.size() * sizeof(float));
  watched.FillWithCanary("attn_weights", args.attn_weights.data(),
                         args.attn_weights.size() * sizeof(float));
  watched.Remember("x", args.x.data(), args.x.size() * sizeof(float));
  watched.Remember("plan", &args.plan, sizeof(args.plan));
  watched.Remember("arena buffer", args.arena_storage.data(), args.arena_storage.size());
  EXPECT_STATUS(ea_self_attention_run(args.plan_arg, args.x_arg, args.n_tokens, args.n_valid_keys,
                                      args.y_arg, args.attn_weights_arg),
                GetParam().expected);
  watched.ExpectUntouched();
}

// Run-time refusals shared by self-attention and MHA (the same run signature
// and argument fields); each operation adds its own plan-failure case.
template <typename Args, int32_t kTokens>
std::vector<BadCase<Args>> ModelRunCases(void (*fail_plan_init)(Args*)) {
  return {
      {"NullPlan", [](Args* a) { a->plan_arg = nullptr; }, EA_ERR_NULL_POINTER},
      {"NullX", [](Args* a) { a->x_arg = nullptr; }, EA_ERR_NULL_POINTER},
      {"NullY", [](Args* a) { a->y_arg = nullptr; }, EA_ERR_NULL_POINTER},
      {"NeverPlanned", [](Args* a) { a->plan_arg = &a->never_planned; }, EA_ERR_BAD_ARGUMENT},
      {"PlanWhoseInitFailed", fail_plan_init, EA_ERR_BAD_ARGUMENT},
      {"NTokensZero",
       [](Args* a) {
         a->n_tokens = 0;
         a->n_valid_keys = 0;
       },
       EA_ERR_BAD_DIMENSION},
      {"NTokensNegative",
       [](Args* a) {
         a->n_tokens = -1;
         a->n_valid_keys = 0;
       },
       EA_ERR_BAD_DIMENSION},
      {"NTokensAboveMaxTokens",
       [](Args* a) {
         a->n_tokens = kTokens + 1;
         a->n_valid_keys = kTokens;
       },
       EA_ERR_BAD_DIMENSION},
      {"NTokensInt32Max",
       [](Args* a) {
         a->n_tokens = kInt32Max;
         a->n_valid_keys = kTokens;
       },
       EA_ERR_BAD_DIMENSION},
      {"NValidKeysNegative", [](Args* a) { a->n_valid_keys = -1; }, EA_ERR_BAD_ARGUMENT},
      {"NValidKeysInt32Min", [](Args* a) { a->n_valid_keys = kInt32Min; }, EA_ERR_BAD_ARGUMENT},
      {"NValidKeysAboveNTokens",
       [](Args* a) {
         a->n_tokens = kTokens - 2;
         a->n_valid_keys = kTokens - 1;
       },
       EA_ERR_BAD_ARGUMENT},
      {"NValidKeysAboveMaxTokens", [](Args* a) { a->n_valid_keys = kTokens + 1; },
       EA_ERR_BAD_ARGUMENT},
  };
}

const std::vector<SelfAttentionRunCase> kSelfAttentionRunCases =
    ModelRunCases<SelfAttentionRunArgs, kSelfTokens>([](SelfAttentionRunArgs* a) {
      ea_self_attention_config bad = a->config;
      bad.d_k = 0;
      ea_self_attention_init(&a->never_planned, &bad, &a->data.weights, &a->arena);
      a->plan_arg = &a->never_planned;
    });
INSTANTIATE_TEST_SUITE_P(BadInput, BadInputSelfAttentionRun,
                         testing::ValuesIn(kSelfAttentionRunCases), CaseName());

TEST(BadInputSelfAttention, ValidRunSucceedsOnTheSameArguments) {
  SelfAttentionRunArgs args;
  ASSERT_STATUS(args.plan_status, EA_OK);
  EXPECT_STATUS(ea_self_attention_run(&args.plan, args.x.data(), kSelfTokens - 2, 0, args.y.data(),
                                      args.attn_weights.data()),
                EA_OK);
}

// n_tokens^2 = 2^30 probabilities: the plan is valid, asking for them is not.
TEST(BadInputSelfAttention, RunRefusesWeightsAboveMaxElements) {
  constexpr int32_t kTokens = 1 << 15;
  const ea_self_attention_config config = {EA_DTYPE_F32,
                                           kTokens,
                                           1,
                                           1,
                                           1,
                                           EA_MASK_NONE,
                                           EA_POSITION_NONE,
                                           nullptr,
                                           EA_WEIGHTS_ROW_MAJOR,
                                           ea_parallel_for{},
                                           nullptr,
                                           nullptr,
                                           nullptr};
  size_t needed = 0;
  ASSERT_STATUS(ea_self_attention_arena_size(&config, &needed), EA_OK);
  AlignedBuffer storage(needed);
  ea_arena arena{};
  ASSERT_STATUS(ea_arena_init(&arena, storage.data(), storage.size()), EA_OK);
  const float one = 1.0f;
  const ea_self_attention_weights weights{&one, &one, &one, nullptr, nullptr, nullptr};
  ea_self_attention_plan plan{};
  ASSERT_STATUS(ea_self_attention_init(&plan, &config, &weights, &arena), EA_OK);
  const std::vector<float> x = edgeattn_test::RandomTensor(kTokens, 38);
  std::vector<float> y(kTokens);
  std::vector<float> attn_weights(4096);  // never legitimately written: too small on purpose
  UntouchedBytes watched;
  watched.FillWithCanary("y", y.data(), y.size() * sizeof(float));
  watched.FillWithCanary("attn_weights", attn_weights.data(), attn_weights.size() * sizeof(float));
  watched.Remember("arena buffer", storage.data(), storage.size());
  EXPECT_STATUS(
      ea_self_attention_run(&plan, x.data(), kTokens, kTokens, y.data(), attn_weights.data()),
      EA_ERR_DIMENSION_OVERFLOW);
  watched.ExpectUntouched();
}

// --------------------------------------------------------------------- MHA

constexpr int32_t kMhaTokens = 6;
constexpr int32_t kMhaDModel = 12;
constexpr int32_t kMhaHeads = 3;
constexpr ea_mha_config kValidMha = {EA_DTYPE_F32,      kMhaTokens,
                                     kMhaDModel,        kMhaHeads,
                                     EA_MASK_CAUSAL,    EA_POSITION_SINUSOIDAL,
                                     nullptr,           EA_WEIGHTS_ROW_MAJOR,
                                     ea_parallel_for{}, nullptr,
                                     nullptr,           nullptr};

using MhaConfigCase = BadCase<ea_mha_config>;

const MhaConfigCase kMhaConfigCases[] = {
    {"DtypeUnknown3", [](ea_mha_config* c) { StoreRawEnum(&c->dtype, 3); }, EA_ERR_BAD_ARGUMENT},
    {"DtypeUnknownMinus1", [](ea_mha_config* c) { StoreRawEnum(&c->dtype, -1); },
     EA_ERR_BAD_ARGUMENT},
    {"MaxTokensZero", [](ea_mha_config* c) { c->max_tokens = 0; }, EA_ERR_BAD_DIMENSION},
    {"MaxTokensNegative", [](ea_mha_config* c) { c->max_tokens = -1; }, EA_ERR_BAD_DIMENSION},
    {"DModelZero", [](ea_mha_config* c) { c->d_model = 0; }, EA_ERR_BAD_DIMENSION},
    {"DModelNegative", [](ea_mha_config* c) { c->d_model = -12; }, EA_ERR_BAD_DIMENSION},
    {"HeadsZero", [](ea_mha_config* c) { c->n_heads = 0; }, EA_ERR_BAD_DIMENSION},
    {"HeadsNegative", [](ea_mha_config* c) { c->n_heads = -3; }, EA_ERR_BAD_DIMENSION},
    {"HeadsInt32Min", [](ea_mha_config* c) { c->n_heads = kInt32Min; }, EA_ERR_BAD_DIMENSION},
    {"HeadsDoNotDivideDModel", [](ea_mha_config* c) { c->n_heads = 5; }, EA_ERR_HEADS_MISMATCH},
    {"HeadsSeven", [](ea_mha_config* c) { c->n_heads = 7; }, EA_ERR_HEADS_MISMATCH},
    {"HeadsAboveDModel", [](ea_mha_config* c) { c->n_heads = 2 * kMhaDModel; },
     EA_ERR_HEADS_MISMATCH},
    {"HeadsInt32Max", [](ea_mha_config* c) { c->n_heads = kInt32Max; }, EA_ERR_HEADS_MISMATCH},
    {"MaxTokensInt32Max", [](ea_mha_config* c) { c->max_tokens = kInt32Max; },
     EA_ERR_DIMENSION_OVERFLOW},
    // INT32_MAX is prime: one head is the only divisor that isolates the overflow.
    {"DModelInt32Max",
     [](ea_mha_config* c) {
       c->d_model = kInt32Max;
       c->n_heads = 1;
     },
     EA_ERR_DIMENSION_OVERFLOW},
    {"InputAboveMaxElements",
     [](ea_mha_config* c) { c->max_tokens = static_cast<int32_t>(EA_MAX_ELEMENTS / 12 + 1); },
     EA_ERR_DIMENSION_OVERFLOW},
    // Packed in_proj: roundup(3 * 9453, 64) * 9453 = 268616448 > 2^28 while one
    // token of 9453 features is small.
    {"InProjWeightAboveMaxElements",
     [](ea_mha_config* c) {
       c->max_tokens = 1;
       c->d_model = 9453;
     },
     EA_ERR_DIMENSION_OVERFLOW},
    {"MaskUnknown2", [](ea_mha_config* c) { StoreRawEnum(&c->mask, 2); }, EA_ERR_BAD_ARGUMENT},
    {"MaskUnknownMinus1", [](ea_mha_config* c) { StoreRawEnum(&c->mask, -1); },
     EA_ERR_BAD_ARGUMENT},
    {"PositionUnknown3", [](ea_mha_config* c) { StoreRawEnum(&c->position, 3); },
     EA_ERR_BAD_ARGUMENT},
    {"PositionUnknownMinus1", [](ea_mha_config* c) { StoreRawEnum(&c->position, -1); },
     EA_ERR_BAD_ARGUMENT},
    {"LearnedWithoutTable",
     [](ea_mha_config* c) {
       c->position = EA_POSITION_LEARNED;
       c->position_table = nullptr;
     },
     EA_ERR_NULL_POINTER},
};

class BadInputMhaArenaSize : public testing::TestWithParam<MhaConfigCase> {};

TEST_P(BadInputMhaArenaSize, RefusedWithStatusAndSizeUntouched) {
  ea_mha_config config = kValidMha;
  GetParam().arrange(&config);
  size_t bytes = 0;
  UntouchedBytes watched;
  watched.FillWithCanary("bytes", &bytes, sizeof(bytes));
  EXPECT_STATUS(ea_mha_arena_size(&config, &bytes), GetParam().expected);
  watched.ExpectUntouched();
}
INSTANTIATE_TEST_SUITE_P(BadInput, BadInputMhaArenaSize, testing::ValuesIn(kMhaConfigCases),
                         CaseName());

// A fixed-point config needs its quantization, and its plans take int8
// weights (ea_mha_quant_init), not the float entry point.
TEST(BadInputMha, FixedPointDtypesWithoutQuantizationOrOnTheFloatEntryPoint) {
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    ea_mha_config config = kValidMha;
    config.dtype = dtype;
    size_t bytes = 0;
    // The float family refuses fixed point; the fixed-point one wants its quantization.
    EXPECT_STATUS(ea_mha_arena_size(&config, &bytes), EA_ERR_BAD_ARGUMENT);
    EXPECT_STATUS(ea_mha_quant_arena_size(&config, &bytes), EA_ERR_NULL_POINTER);
    EXPECT_EQ(bytes, 0u);
    std::vector<float> in_proj(3 * kMhaDModel * kMhaDModel), out_proj(kMhaDModel * kMhaDModel);
    const ea_mha_weights weights =
        edgeattn_test::InProjWeights(in_proj.data(), nullptr, out_proj.data(), nullptr);
    alignas(64) static uint8_t storage[1 << 16];
    ea_arena arena;
    ASSERT_EQ(ea_arena_init(&arena, storage, sizeof(storage)), EA_OK);
    ea_mha_plan plan{};
    EXPECT_STATUS(ea_mha_init(&plan, &config, &weights, &arena), EA_ERR_BAD_ARGUMENT);
    EXPECT_EQ(arena.used, 0u);
  }
}

// The fixed-point families' size functions refuse a float config, as their
// inits do.
TEST(BadInputFixedPointFamilies, ArenaSizeRefusesTheFloatDtype) {
  size_t bytes = 0;
  EXPECT_STATUS(ea_attention_quant_arena_size(&kValidAttention, &bytes), EA_ERR_BAD_ARGUMENT);
  EXPECT_STATUS(ea_self_attention_quant_arena_size(&kValidSelfAttention, &bytes),
                EA_ERR_BAD_ARGUMENT);
  EXPECT_STATUS(ea_mha_quant_arena_size(&kValidMha, &bytes), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(bytes, 0u);
}

TEST(BadInputMha, ArenaSizeNullPointers) {
  size_t bytes = 0;
  EXPECT_STATUS(ea_mha_arena_size(nullptr, &bytes), EA_ERR_NULL_POINTER);
  EXPECT_EQ(bytes, 0u);
  EXPECT_STATUS(ea_mha_arena_size(&kValidMha, nullptr), EA_ERR_NULL_POINTER);
}

TEST(BadInputMha, ExactInProjLimitIsAccepted) {
  // Packed in_proj: roundup(3 * 9450, 64) * 9450 = 267926400 <= 2^28, the
  // largest such d_model divisible by 3 (kValidMha's heads).
  ea_mha_config at_limit = kValidMha;
  at_limit.max_tokens = 1;
  at_limit.d_model = 9450;
  size_t bytes = 0;
  EXPECT_STATUS(ea_mha_arena_size(&at_limit, &bytes), EA_OK);
  at_limit.max_tokens = static_cast<int32_t>(EA_MAX_ELEMENTS / 9450);
  // Every tensor is within the limit, but the arena (about 5 GiB) only has a
  // size_t on 64-bit targets; 32-bit ones must say so instead of wrapping.
  const bool arena_fits_size_t = sizeof(size_t) >= 8;
  EXPECT_STATUS(ea_mha_arena_size(&at_limit, &bytes),
                arena_fits_size_t ? EA_OK : EA_ERR_DIMENSION_OVERFLOW);
}

struct MhaWeightData {
  std::vector<float> in_proj_weight =
      edgeattn_test::RandomTensor(3 * kMhaDModel * kMhaDModel, 41, 0.3);
  std::vector<float> in_proj_bias = edgeattn_test::RandomTensor(3 * kMhaDModel, 42, 0.1);
  std::vector<float> out_proj_weight =
      edgeattn_test::RandomTensor(kMhaDModel * kMhaDModel, 43, 0.3);
  std::vector<float> out_proj_bias = edgeattn_test::RandomTensor(kMhaDModel, 44, 0.1);
  ea_mha_weights weights = edgeattn_test::InProjWeights(
      in_proj_weight.data(), in_proj_bias.data(), out_proj_weight.data(), out_proj_bias.data());
};

struct MhaPlanInitArgs {
  ea_mha_config config = kValidMha;
  MhaWeightData data;
  ea_mha_weights weights = data.weights;
  ArenaFault arena_fault = ArenaFault::kNone;
  AlignedBuffer arena_storage{kGenerousArenaBytes};
  ea_arena arena{};
  ea_mha_plan plan{};
  ea_mha_plan* plan_arg = &plan;
  const ea_mha_config* config_arg = &config;
  const ea_mha_weights* weights_arg = &weights;
  ea_arena* arena_arg = &arena;
};

void ExpectMhaPlanInitRefused(MhaPlanInitArgs* args, ea_status expected) {
  size_t needed = 0;
  ASSERT_STATUS(ea_mha_arena_size(&kValidMha, &needed), EA_OK);
  ASSERT_NO_FATAL_FAILURE(
      ShapeArena(args->arena_fault, needed, &args->arena_storage, &args->arena));
  const size_t used_before = args->arena.used;
  UntouchedBytes watched;
  watched.FillWithCanary("plan", &args->plan, sizeof(args->plan));
  watched.Remember("arena struct", &args->arena, sizeof(args->arena));
  watched.Remember("arena buffer", args->arena_storage.data(), args->arena_storage.size());
  EXPECT_STATUS(ea_mha_init(args->plan_arg, args->config_arg, args->weights_arg, args->arena_arg),
                expected);
  ExpectPlanInvalidated(args->plan_arg, &args->plan.ready);
  EXPECT_EQ(args->arena.used, used_before);
  watched.ExpectUntouched();
}

class BadInputMhaPlanInitConfig : public testing::TestWithParam<MhaConfigCase> {};

TEST_P(BadInputMhaPlanInitConfig, RefusedWithStatusAndNothingWritten) {
  MhaPlanInitArgs args;
  GetParam().arrange(&args.config);
  ExpectMhaPlanInitRefused(&args, GetParam().expected);
}
INSTANTIATE_TEST_SUITE_P(BadInput, BadInputMhaPlanInitConfig, testing::ValuesIn(kMhaConfigCases),
                         CaseName());

// W_Q, W_K, W_V and their biases as three tensors: views of the in_proj
// matrix's rows (the form reads them in place, wherever they are).
void UseThreeProjectionTensors(MhaPlanInitArgs* a) {
  const size_t e = kMhaDModel;
  a->weights.in_proj_weight = nullptr;
  a->weights.in_proj_bias = nullptr;
  a->weights.q_proj_weight = a->data.in_proj_weight.data();
  a->weights.k_proj_weight = a->data.in_proj_weight.data() + e * e;
  a->weights.v_proj_weight = a->data.in_proj_weight.data() + 2 * e * e;
  a->weights.q_proj_bias = a->data.in_proj_bias.data();
  a->weights.k_proj_bias = a->data.in_proj_bias.data() + e;
  a->weights.v_proj_bias = a->data.in_proj_bias.data() + 2 * e;
}

using MhaPlanInitCase = BadCase<MhaPlanInitArgs>;
class BadInputMhaPlanInit : public testing::TestWithParam<MhaPlanInitCase> {};

TEST_P(BadInputMhaPlanInit, RefusedWithStatusAndNothingWritten) {
  MhaPlanInitArgs args;
  GetParam().arrange(&args);
  ExpectMhaPlanInitRefused(&args, GetParam().expected);
}

const MhaPlanInitCase kMhaPlanInitCases[] = {
    {"NullPlan", [](MhaPlanInitArgs* a) { a->plan_arg = nullptr; }, EA_ERR_NULL_POINTER},
    {"NullConfig", [](MhaPlanInitArgs* a) { a->config_arg = nullptr; }, EA_ERR_NULL_POINTER},
    {"NullWeights", [](MhaPlanInitArgs* a) { a->weights_arg = nullptr; }, EA_ERR_NULL_POINTER},
    {"NullArena", [](MhaPlanInitArgs* a) { a->arena_arg = nullptr; }, EA_ERR_NULL_POINTER},
    {"NullInProjWeight", [](MhaPlanInitArgs* a) { a->weights.in_proj_weight = nullptr; },
     EA_ERR_NULL_POINTER},
    {"NullOutProjWeight", [](MhaPlanInitArgs* a) { a->weights.out_proj_weight = nullptr; },
     EA_ERR_NULL_POINTER},
    // The three-tensor form (W_Q, W_K, W_V apart) and mixes of the two forms.
    {"InProjAndQProjWeight",
     [](MhaPlanInitArgs* a) { a->weights.q_proj_weight = a->data.in_proj_weight.data(); },
     EA_ERR_BAD_ARGUMENT},
    {"InProjBiasAndVProjBias",
     [](MhaPlanInitArgs* a) { a->weights.v_proj_bias = a->data.in_proj_bias.data(); },
     EA_ERR_BAD_ARGUMENT},
    {"ThreeBiasesAndInProjBias",
     [](MhaPlanInitArgs* a) {
       UseThreeProjectionTensors(a);
       a->weights.in_proj_bias = a->data.in_proj_bias.data();
     },
     EA_ERR_BAD_ARGUMENT},
    {"ThreeTensorsWithoutWk",
     [](MhaPlanInitArgs* a) {
       UseThreeProjectionTensors(a);
       a->weights.k_proj_weight = nullptr;
     },
     EA_ERR_NULL_POINTER},
    {"ThreeTensorsPacked",
     [](MhaPlanInitArgs* a) {
       UseThreeProjectionTensors(a);
       a->config.weights_layout = EA_WEIGHTS_PACKED;
     },
     EA_ERR_BAD_ARGUMENT},
    {"ThreeTensorsWvInTheArena",
     [](MhaPlanInitArgs* a) {
       UseThreeProjectionTensors(a);
       a->weights.v_proj_weight = reinterpret_cast<const float*>(a->arena_storage.data());
     },
     EA_ERR_BAD_ARGUMENT},
    {"ArenaZeroCapacity", [](MhaPlanInitArgs* a) { a->arena_fault = ArenaFault::kZeroCapacity; },
     EA_ERR_ARENA_TOO_SMALL},
    {"ArenaShortByOneByte",
     [](MhaPlanInitArgs* a) { a->arena_fault = ArenaFault::kShortByOneByte; },
     EA_ERR_ARENA_TOO_SMALL},
    {"ArenaShortByOneGranule",
     [](MhaPlanInitArgs* a) { a->arena_fault = ArenaFault::kShortByOneAlignmentGranule; },
     EA_ERR_ARENA_TOO_SMALL},
    {"ArenaShortByScoreTileRegion",
     [](MhaPlanInitArgs* a) { a->arena_fault = ArenaFault::kShortByScoreTileRegion; },
     EA_ERR_ARENA_TOO_SMALL},
    {"ArenaPartlyUsed",
     [](MhaPlanInitArgs* a) { a->arena_fault = ArenaFault::kPartlyUsedByAnEarlierPlan; },
     EA_ERR_ARENA_TOO_SMALL},
    {"ArenaBasePlusOne", [](MhaPlanInitArgs* a) { a->arena_fault = ArenaFault::kMisalignedBase; },
     EA_ERR_ARENA_MISALIGNED},
    {"ArenaUsedNotAligned",
     [](MhaPlanInitArgs* a) { a->arena_fault = ArenaFault::kMisalignedUsedOffset; },
     EA_ERR_ARENA_MISALIGNED},
};
INSTANTIATE_TEST_SUITE_P(BadInput, BadInputMhaPlanInit, testing::ValuesIn(kMhaPlanInitCases),
                         CaseName());

TEST(BadInputMha, ValidPlanInitSucceedsOnTheSameArguments) {
  MhaPlanInitArgs args;
  args.weights.in_proj_bias = args.weights.out_proj_bias = nullptr;  // biases are optional
  ShapeArena(ArenaFault::kNone, 0, &args.arena_storage, &args.arena);
  EXPECT_STATUS(ea_mha_init(&args.plan, &args.config, &args.weights, &args.arena), EA_OK);
  MhaPlanInitArgs three;
  UseThreeProjectionTensors(&three);
  three.weights.k_proj_bias = nullptr;  // each of the three biases is optional
  ShapeArena(ArenaFault::kNone, 0, &three.arena_storage, &three.arena);
  EXPECT_STATUS(ea_mha_init(&three.plan, &three.config, &three.weights, &three.arena), EA_OK);
  // PyTorch's kdim form: three weights, one in_proj_bias; and the reverse.
  MhaPlanInitArgs kdim;
  UseThreeProjectionTensors(&kdim);
  kdim.weights.q_proj_bias = kdim.weights.k_proj_bias = kdim.weights.v_proj_bias = nullptr;
  kdim.weights.in_proj_bias = kdim.data.in_proj_bias.data();
  ShapeArena(ArenaFault::kNone, 0, &kdim.arena_storage, &kdim.arena);
  EXPECT_STATUS(ea_mha_init(&kdim.plan, &kdim.config, &kdim.weights, &kdim.arena), EA_OK);
  MhaPlanInitArgs one_matrix_three_biases;
  MhaPlanInitArgs* m = &one_matrix_three_biases;
  m->weights.in_proj_bias = nullptr;
  m->weights.q_proj_bias = m->data.in_proj_bias.data();
  ShapeArena(ArenaFault::kNone, 0, &m->arena_storage, &m->arena);
  EXPECT_STATUS(ea_mha_init(&m->plan, &m->config, &m->weights, &m->arena), EA_OK);
}

struct MhaRunArgs {
  ea_mha_config config = kValidMha;
  MhaWeightData data;
  AlignedBuffer arena_storage{kGenerousArenaBytes};
  ea_arena arena{};
  ea_mha_plan plan{};
  ea_mha_plan never_planned{};
  ea_status plan_status = EA_ERR_BAD_ARGUMENT;
  std::vector<float> x = edgeattn_test::RandomTensor(kMhaTokens * kMhaDModel, 45);
  std::vector<float> y = std::vector<float>(kMhaTokens * kMhaDModel);
  std::vector<float> attn_weights = std::vector<float>(kMhaHeads * kMhaTokens * kMhaTokens);
  const ea_mha_plan* plan_arg = &plan;
  const float* x_arg = x.data();
  int32_t n_tokens = kMhaTokens;
  int32_t n_valid_keys = kMhaTokens;
  float* y_arg = y.data();
  float* attn_weights_arg = attn_weights.data();

  MhaRunArgs() {
    ea_arena_init(&arena, arena_storage.data(), arena_storage.size());
    plan_status = ea_mha_init(&plan, &config, &data.weights, &arena);
  }
};

using MhaRunCase = BadCase<MhaRunArgs>;
class BadInputMhaRun : public testing::TestWithParam<MhaRunCase> {};

TEST_P(BadInputMhaRun, RefusedWithStatusAndNoOutputWritten) {
  MhaRunArgs args;
  ASSERT_STATUS(args.plan_status, EA_OK);
  GetParam().arrange(&args);
  UntouchedBytes watched;
  watched.FillWithCanary("y", args.y.data(), args.y.size() * sizeof(float));
  watched.FillWithCanary("attn_weights", args.attn_weights.data(),
                         args.attn_weights.size() * sizeof(float));
  watched.Remember("x", args.x.data(), args.x.size() * sizeof(float));
  watched.Remember("plan", &args.plan, sizeof(args.plan));
  watched.Remember("arena buffer", args.arena_storage.data(), args.arena_storage.size());
  EXPECT_STATUS(ea_mha_run(args.plan_arg, args.x_arg, args.n_tokens, args.n_valid_keys, args.y_arg,
                           args.attn_weights_arg),
                GetParam().expected);
  watched.ExpectUntouched();
}

const std::vector<MhaRunCase> kMhaRunCases =
    ModelRunCases<MhaRunArgs, kMhaTokens>([](MhaRunArgs* a) {
      ea_mha_config bad = a->config;
      bad.n_heads = 5;
      ea_mha_init(&a->never_planned, &bad, &a->data.weights, &a->arena);
      a->plan_arg = &a->never_planned;
    });
INSTANTIATE_TEST_SUITE_P(BadInput, BadInputMhaRun, testing::ValuesIn(kMhaRunCases), CaseName());

TEST(BadInputMha, ValidRunSucceedsOnTheSameArguments) {
  MhaRunArgs args;
  ASSERT_STATUS(args.plan_status, EA_OK);
  EXPECT_STATUS(ea_mha_run(&args.plan, args.x.data(), kMhaTokens - 2, 0, args.y.data(),
                           args.attn_weights.data()),
                EA_OK);
}

// heads * n^2 = 8 * 2^26 = 2^29 probabilities, while one head's 2^26 would fit:
// the check must count the heads.
TEST(BadInputMha, RunRefusesWeightsAboveMaxElementsCountingHeads) {
  constexpr int32_t kTokens = 1 << 13;
  constexpr int32_t kDModel = 8;
  const ea_mha_config config = {EA_DTYPE_F32,      kTokens,          kDModel, 8,
                                EA_MASK_NONE,      EA_POSITION_NONE, nullptr, EA_WEIGHTS_ROW_MAJOR,
                                ea_parallel_for{}, nullptr,          nullptr, nullptr};
  size_t needed = 0;
  ASSERT_STATUS(ea_mha_arena_size(&config, &needed), EA_OK);
  AlignedBuffer storage(needed);
  ea_arena arena{};
  ASSERT_STATUS(ea_arena_init(&arena, storage.data(), storage.size()), EA_OK);
  const std::vector<float> in_proj = edgeattn_test::RandomTensor(3 * kDModel * kDModel, 46);
  const std::vector<float> out_proj = edgeattn_test::RandomTensor(kDModel * kDModel, 47);
  const ea_mha_weights weights =
      edgeattn_test::InProjWeights(in_proj.data(), nullptr, out_proj.data(), nullptr);
  ea_mha_plan plan{};
  ASSERT_STATUS(ea_mha_init(&plan, &config, &weights, &arena), EA_OK);
  const std::vector<float> x = edgeattn_test::RandomTensor(kTokens * kDModel, 48);
  std::vector<float> y(kTokens * kDModel);
  std::vector<float> attn_weights(4096);  // never legitimately written: too small on purpose
  UntouchedBytes watched;
  watched.FillWithCanary("y", y.data(), y.size() * sizeof(float));
  watched.FillWithCanary("attn_weights", attn_weights.data(), attn_weights.size() * sizeof(float));
  watched.Remember("arena buffer", storage.data(), storage.size());
  EXPECT_STATUS(ea_mha_run(&plan, x.data(), kTokens, kTokens, y.data(), attn_weights.data()),
                EA_ERR_DIMENSION_OVERFLOW);
  watched.ExpectUntouched();
}

// ------------------------------------------------------- sinusoidal table

struct SinusoidalArgs {
  std::vector<float> table = std::vector<float>(64);
  float* table_arg = table.data();
  int32_t n_positions = 8;
  int32_t d_model = 8;
};

using SinusoidalCase = BadCase<SinusoidalArgs>;
class BadInputSinusoidalTableFill : public testing::TestWithParam<SinusoidalCase> {};

TEST_P(BadInputSinusoidalTableFill, RefusedWithStatusAndTableUntouched) {
  SinusoidalArgs args;
  GetParam().arrange(&args);
  UntouchedBytes watched;
  watched.FillWithCanary("table", args.table.data(), args.table.size() * sizeof(float));
  EXPECT_STATUS(ea_sinusoidal_table_fill(args.table_arg, args.n_positions, args.d_model),
                GetParam().expected);
  watched.ExpectUntouched();
}

const SinusoidalCase kSinusoidalCases[] = {
    {"NullTable", [](SinusoidalArgs* a) { a->table_arg = nullptr; }, EA_ERR_NULL_POINTER},
    {"NPositionsZero", [](SinusoidalArgs* a) { a->n_positions = 0; }, EA_ERR_BAD_DIMENSION},
    {"NPositionsNegative", [](SinusoidalArgs* a) { a->n_positions = -1; }, EA_ERR_BAD_DIMENSION},
    {"NPositionsInt32Min", [](SinusoidalArgs* a) { a->n_positions = kInt32Min; },
     EA_ERR_BAD_DIMENSION},
    {"DModelZero", [](SinusoidalArgs* a) { a->d_model = 0; }, EA_ERR_BAD_DIMENSION},
    {"DModelNegative", [](SinusoidalArgs* a) { a->d_model = -1; }, EA_ERR_BAD_DIMENSION},
    {"NPositionsInt32Max", [](SinusoidalArgs* a) { a->n_positions = kInt32Max; },
     EA_ERR_DIMENSION_OVERFLOW},
    {"DModelInt32Max", [](SinusoidalArgs* a) { a->d_model = kInt32Max; },
     EA_ERR_DIMENSION_OVERFLOW},
    {"TableAboveMaxElements",
     [](SinusoidalArgs* a) {
       a->n_positions = kSquareSide;
       a->d_model = kSquareSide + 1;
     },
     EA_ERR_DIMENSION_OVERFLOW},
};
INSTANTIATE_TEST_SUITE_P(BadInput, BadInputSinusoidalTableFill, testing::ValuesIn(kSinusoidalCases),
                         CaseName());

TEST(BadInputSinusoidalTableFill, ValidFillSucceedsOnTheSameArguments) {
  SinusoidalArgs args;
  EXPECT_STATUS(ea_sinusoidal_table_fill(args.table.data(), args.n_positions, args.d_model), EA_OK);
}

}  // namespace
