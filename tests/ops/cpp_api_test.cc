// The C++ layer (edgeattn.hpp): compile-time shapes planned into a StaticArena
// of their own or into one shared arena, and refusals the compiler cannot
// see (a caller table that was not passed).
#include <gtest/gtest.h>

#include <vector>

#include "edgeattn/edgeattn.hpp"
#include "model_fixture.h"
#include "reference/random_tensor.h"

namespace edgeattn_test {
namespace {

constexpr int kTokens = 20, kDModel = 16, kHeads = 2;
using Positioned = edgeattn::Mha<kTokens, kDModel, kHeads, EA_POSITION_SINUSOIDAL>;
using Plain = edgeattn::Mha<kTokens, kDModel, kHeads>;
using FlashTable = edgeattn::Mha<kTokens, kDModel, kHeads, EA_POSITION_SINUSOIDAL, false>;

static_assert(alignof(edgeattn::StaticArena<100>) == EA_ARENA_ALIGNMENT, "arena alignment");
static_assert(Positioned::kArenaBytes > Plain::kArenaBytes, "the filled table lives in the arena");

std::vector<float> RunPlan(const ea_mha_plan& plan, const std::vector<float>& x) {
  std::vector<float> y(x.size());
  EXPECT_EQ(ea_mha_run(&plan, x.data(), kTokens, kTokens, y.data(), nullptr), EA_OK);
  return y;
}

TEST(CppApi, TwoPlansShareOneArenaWithoutOverlapping) {
  const MhaModel model(kDModel, kHeads, true, 90);
  const std::vector<float> x = RandomTensor(kTokens * kDModel, 91);

  // Reference results: each plan in a StaticArena of its own.
  static edgeattn::StaticArena<Positioned::kArenaBytes> own_positioned;
  static edgeattn::StaticArena<Plain::kArenaBytes> own_plain;
  ea_mha_plan alone_positioned, alone_plain;
  ASSERT_EQ(Positioned::Plan(&alone_positioned, model.Weights(), own_positioned), EA_OK);
  ASSERT_EQ(Plain::Plan(&alone_plain, model.Weights(), own_plain), EA_OK);

  // Both in one arena exactly as large as the two together.
  static edgeattn::StaticArena<Positioned::kArenaBytes + Plain::kArenaBytes> shared;
  ea_arena arena;
  ASSERT_EQ(ea_arena_init(&arena, shared.bytes, sizeof shared.bytes), EA_OK);
  ea_mha_plan positioned, plain;
  ASSERT_EQ(Positioned::Plan(&positioned, model.Weights(), &arena), EA_OK);
  ASSERT_EQ(Plain::Plan(&plain, model.Weights(), &arena), EA_OK);
  EXPECT_EQ(ea_arena_remaining(&arena), 0u);

  const std::vector<float> first = RunPlan(positioned, x);
  EXPECT_EQ(RunPlan(plain, x), RunPlan(alone_plain, x));
  EXPECT_EQ(RunPlan(positioned, x), first);  // unchanged by the other plan's run
  EXPECT_EQ(first, RunPlan(alone_positioned, x));
}

TEST(CppApi, ShapeWithCallerTableRefusesAMissingTable) {
  static constexpr auto kTable = edgeattn::MakeSinusoidalTable<kTokens, kDModel>();
  const MhaModel model(kDModel, kHeads, false, 92);
  static edgeattn::StaticArena<FlashTable::kArenaBytes> storage;
  ea_mha_plan plan{};
  EXPECT_EQ(FlashTable::Plan(&plan, model.Weights(), storage), EA_ERR_NULL_POINTER);
  ASSERT_EQ(FlashTable::Plan(&plan, model.Weights(), storage, EA_MASK_NONE, kTable.values), EA_OK);
  // The constant table gives what the table filled at plan time gives.
  static edgeattn::StaticArena<Positioned::kArenaBytes> filled_storage;
  ea_mha_plan filled;
  ASSERT_EQ(Positioned::Plan(&filled, model.Weights(), filled_storage), EA_OK);
  const std::vector<float> x = RandomTensor(kTokens * kDModel, 93);
  const std::vector<float> from_constant = RunPlan(plan, x);
  const std::vector<float> from_filled = RunPlan(filled, x);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(from_constant[i], from_filled[i], 1e-5);
}

}  // namespace
}  // namespace edgeattn_test
