// Output buffers that share memory with inputs or with each other. The
// attention output rows are the kernel's running accumulator, so overlaps
// would silently give wrong numbers: they are refused with
// EA_ERR_BAD_ARGUMENT and nothing is written. Self-attention and MHA consume
// x before writing y, so y may be x (in place), and that is checked to give
// the same result as separate buffers.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "edgeattn/arena_sizes.hpp"
#include "model_fixture.h"
#include "reference/random_tensor.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

constexpr int kN = 12, kD = 8;

class PlannedAttention {
 public:
  PlannedAttention() : storage_(edgeattn::AttentionArenaBytes(kN, kD)) {
    const ea_attention_config config{
        EA_DTYPE_F32, kN, kN, kD, kD, EA_MASK_CAUSAL, 0.0f, ea_parallel_for{}, nullptr, nullptr};
    ea_arena arena;
    EXPECT_EQ(ea_arena_init(&arena, storage_.data(), storage_.size()), EA_OK);
    EXPECT_EQ(ea_attention_init(&plan_, &config, &arena), EA_OK);
  }
  const ea_attention_plan* plan() const { return &plan_; }

 private:
  AlignedBytes storage_;
  ea_attention_plan plan_;
};

TEST(Overlap, AttentionRefusesOutputsSharingMemoryWithInputsOrEachOther) {
  PlannedAttention attention;
  // One buffer holding q, k, v, out and weights back to back.
  const size_t block = kN * kD;
  std::vector<float> memory = RandomTensor(4 * block + kN * kN, 7);
  float* q = memory.data();
  float* k = q + block;
  float* v = k + block;
  float* out = v + block;
  float* weights = out + block;
  ASSERT_EQ(ea_attention_run(attention.plan(), q, k, v, kN, out, weights), EA_OK);

  struct Case {
    const char* name;
    float* out;
    float* weights;
  } cases[] = {
      {"out is q", q, nullptr},
      {"out is v", v, nullptr},
      {"out starts inside k", k + block - 1, nullptr},
      {"weights start inside v", out, v + 3},
      {"weights overlap out", out, out + block - 1},
      {"out inside weights", weights + 5, weights},
  };
  for (const Case& c : cases) {
    const std::vector<float> before = memory;
    EXPECT_EQ(ea_attention_run(attention.plan(), q, k, v, kN, c.out, c.weights),
              EA_ERR_BAD_ARGUMENT)
        << c.name;
    EXPECT_EQ(0, memcmp(before.data(), memory.data(), memory.size() * sizeof(float))) << c.name;
  }
}

TEST(Overlap, MhaRunsInPlaceAndRefusesOutputOverWeights) {
  const int n = 10, e = 16, h = 2;
  const MhaModel model(e, h, true, 70);
  const ea_mha_config config{EA_DTYPE_F32,
                             n,
                             e,
                             h,
                             EA_MASK_CAUSAL,
                             EA_POSITION_SINUSOIDAL,
                             nullptr,
                             EA_WEIGHTS_ROW_MAJOR,
                             ea_parallel_for{},
                             nullptr,
                             nullptr,
                             nullptr};
  size_t bytes = 0;
  ASSERT_EQ(ea_mha_arena_size(&config, &bytes), EA_OK);
  AlignedBytes storage(bytes);
  ea_arena arena;
  ea_mha_plan plan;
  const ea_mha_weights weights = model.Weights();
  ASSERT_EQ(ea_arena_init(&arena, storage.data(), bytes), EA_OK);
  ASSERT_EQ(ea_mha_init(&plan, &config, &weights, &arena), EA_OK);

  const std::vector<float> x = RandomTensor(n * e, 71);
  std::vector<float> y(n * e);
  ASSERT_EQ(ea_mha_run(&plan, x.data(), n, n, y.data(), nullptr), EA_OK);
  std::vector<float> in_place = x;
  ASSERT_EQ(ea_mha_run(&plan, in_place.data(), n, n, in_place.data(), nullptr), EA_OK);
  EXPECT_EQ(in_place, y);

  std::vector<float> shared(h * n * n + n * e, 1.0f);
  const std::vector<float> before = shared;
  EXPECT_EQ(ea_mha_run(&plan, x.data(), n, n, shared.data() + 3, shared.data()),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(shared, before);
}

TEST(Overlap, SelfAttentionRunsInPlaceAndRefusesOutputOverWeights) {
  const int n = 9, e = 8;
  const SelfAttentionModel model(e, 6, e, true, 80);
  const ea_self_attention_config config{EA_DTYPE_F32,
                                        n,
                                        e,
                                        6,
                                        e,
                                        EA_MASK_NONE,
                                        EA_POSITION_NONE,
                                        nullptr,
                                        EA_WEIGHTS_ROW_MAJOR,
                                        ea_parallel_for{},
                                        nullptr,
                                        nullptr,
                                        nullptr};
  size_t bytes = 0;
  ASSERT_EQ(ea_self_attention_arena_size(&config, &bytes), EA_OK);
  AlignedBytes storage(bytes);
  ea_arena arena;
  ea_self_attention_plan plan;
  const ea_self_attention_weights weights = model.Weights();
  ASSERT_EQ(ea_arena_init(&arena, storage.data(), bytes), EA_OK);
  ASSERT_EQ(ea_self_attention_init(&plan, &config, &weights, &arena), EA_OK);

  const std::vector<float> x = RandomTensor(n * e, 81);
  std::vector<float> y(n * e);
  ASSERT_EQ(ea_self_attention_run(&plan, x.data(), n, n, y.data(), nullptr), EA_OK);
  std::vector<float> in_place = x;
  ASSERT_EQ(ea_self_attention_run(&plan, in_place.data(), n, n, in_place.data(), nullptr), EA_OK);
  EXPECT_EQ(in_place, y);

  std::vector<float> shared(n * n + n * e, 1.0f);
  const std::vector<float> before = shared;
  EXPECT_EQ(ea_self_attention_run(&plan, x.data(), n, n, shared.data(), shared.data() + 1),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(shared, before);
}

}  // namespace
}  // namespace edgeattn_test
