// Memory a run must keep apart, beyond the operands themselves: the plan's
// own arena carve (packed keys, projections, the X + P buffer), the weights
// and biases the plan references, and the position table. An output written
// over any of them used to return EA_OK with wrong numbers (or corrupt the
// next run); now each is EA_ERR_BAD_ARGUMENT with nothing written. Also: a
// init that fails on a plan which was ready leaves it not ready.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "edgeattn/arena_sizes.hpp"
#include "model_fixture.h"
#include "planned_operation.h"
#include "reference/random_tensor.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

// Byte snapshot of everything a refused call must leave as it was.
class Snapshot {
 public:
  void Watch(const void* data, size_t bytes) {
    const uint8_t* p = static_cast<const uint8_t*>(data);
    regions_.push_back({p, std::vector<uint8_t>(p, p + bytes)});
  }
  bool Unchanged() const {
    for (const Region& r : regions_) {
      if (memcmp(r.data, r.copy.data(), r.copy.size()) != 0) return false;
    }
    return true;
  }

 private:
  struct Region {
    const uint8_t* data;
    std::vector<uint8_t> copy;
  };
  std::vector<Region> regions_;
};

TEST(PlanMemory, AttentionRefusesOutputsAndInputsInsideItsArenaCarve) {
  const int n = 70, d = 8;  // two key panels
  const ea_attention_config config{EA_DTYPE_F32,      n,       n,      d, d, EA_MASK_NONE, 0.0f,
                                   ea_parallel_for{}, nullptr, nullptr};
  PlannedAttention planned = PlanAttention(config);
  ASSERT_EQ(planned.status, EA_OK);
  ea_attention_plan& plan = planned.plan;
  AlignedBytes& storage = planned.storage;
  const size_t bytes = planned.bytes;
  const std::vector<float> q = RandomTensor(n * d, 1), k = RandomTensor(n * d, 2),
                           v = RandomTensor(n * d, 3);
  std::vector<float> out(n * d), weights(n * n);
  ASSERT_EQ(ea_attention_run(&plan, q.data(), k.data(), v.data(), n, out.data(), weights.data()),
            EA_OK);

  // Every float of the carve, as the start of an output or an input.
  float* carve = reinterpret_cast<float*>(storage.data());
  const size_t carve_floats = bytes / sizeof(float);
  for (size_t offset : {size_t{0}, size_t{17}, carve_floats / 2, carve_floats - 1}) {
    SCOPED_TRACE(testing::Message() << "float " << offset << " of the carve");
    Snapshot snapshot;
    snapshot.Watch(storage.data(), bytes);
    snapshot.Watch(out.data(), out.size() * sizeof(float));
    snapshot.Watch(weights.data(), weights.size() * sizeof(float));
    float* inside = carve + offset;
    EXPECT_EQ(ea_attention_run(&plan, q.data(), k.data(), v.data(), n, inside, nullptr),
              EA_ERR_BAD_ARGUMENT);
    EXPECT_EQ(ea_attention_run(&plan, q.data(), k.data(), v.data(), n, out.data(), inside),
              EA_ERR_BAD_ARGUMENT);
    EXPECT_EQ(ea_attention_run(&plan, inside, k.data(), v.data(), n, out.data(), nullptr),
              EA_ERR_BAD_ARGUMENT);
    EXPECT_EQ(ea_attention_run(&plan, q.data(), inside, v.data(), n, out.data(), nullptr),
              EA_ERR_BAD_ARGUMENT);
    EXPECT_EQ(ea_attention_run(&plan, q.data(), k.data(), inside, n, out.data(), nullptr),
              EA_ERR_BAD_ARGUMENT);
    EXPECT_TRUE(snapshot.Unchanged());
  }
  // Right after the carve is fine: the arena may hold other plans there.
  AlignedBytes larger(bytes + 4096);
  ea_arena arena2;
  ASSERT_EQ(ea_arena_init(&arena2, larger.data(), larger.size()), EA_OK);
  ASSERT_EQ(ea_attention_init(&plan, &config, &arena2), EA_OK);
  float* after = reinterpret_cast<float*>(larger.data() + bytes);
  EXPECT_EQ(ea_attention_run(&plan, q.data(), k.data(), v.data(), n, after, nullptr), EA_OK);
  EXPECT_EQ(std::vector<float>(after, after + n * d), out);
}

// An MHA plan whose weights, table and arena live in one caller buffer, as
// firmware often lays them out.
class MhaInOneBuffer : public testing::Test {
 protected:
  static constexpr int kN = 10, kE = 16, kHeads = 2;

  void SetUp() override {
    const MhaModel model(kE, kHeads, true, 90);
    const size_t e = kE;
    weights_floats_ = 3 * e * e + 3 * e + e * e + e;
    table_floats_ = kN * e;
    // Weights, biases, table, then room for one output right behind the table.
    memory_.assign(weights_floats_ + table_floats_ + kN * e, 0.0f);
    float* p = memory_.data();
    std::copy(model.in_proj_weight.begin(), model.in_proj_weight.end(), p);
    weights_.in_proj_weight = p;
    p += 3 * e * e;
    std::copy(model.in_proj_bias.begin(), model.in_proj_bias.end(), p);
    weights_.in_proj_bias = p;
    p += 3 * e;
    std::copy(model.out_proj_weight.begin(), model.out_proj_weight.end(), p);
    weights_.out_proj_weight = p;
    p += e * e;
    std::copy(model.out_proj_bias.begin(), model.out_proj_bias.end(), p);
    weights_.out_proj_bias = p;
    p += e;
    table_ = p;
    ASSERT_EQ(ea_sinusoidal_table_fill(table_, kN, kE), EA_OK);

    config_ = ea_mha_config{};
    config_.dtype = EA_DTYPE_F32;
    config_.max_tokens = kN;
    config_.d_model = kE;
    config_.n_heads = kHeads;
    config_.mask = EA_MASK_CAUSAL;
    config_.position = EA_POSITION_LEARNED;
    config_.position_table = table_;
    size_t bytes = 0;
    ASSERT_EQ(ea_mha_arena_size(&config_, &bytes), EA_OK);
    storage_ = AlignedBytes(bytes);
    ea_arena arena;
    ASSERT_EQ(ea_arena_init(&arena, storage_.data(), bytes), EA_OK);
    ASSERT_EQ(ea_mha_init(&plan_, &config_, &weights_, &arena), EA_OK);
    x_ = RandomTensor(kN * e, 91);
    y_.assign(kN * e, 0.0f);
    attn_.assign(kHeads * kN * kN, 0.0f);
    ASSERT_EQ(ea_mha_run(&plan_, x_.data(), kN, kN, y_.data(), attn_.data()), EA_OK);
  }

  // A refused run: status and every watched byte unchanged.
  void ExpectRefused(const float* x, float* y, float* attn, const char* what) {
    Snapshot snapshot;
    snapshot.Watch(memory_.data(), memory_.size() * sizeof(float));
    snapshot.Watch(storage_.data(), storage_.size());
    snapshot.Watch(y_.data(), y_.size() * sizeof(float));
    snapshot.Watch(attn_.data(), attn_.size() * sizeof(float));
    EXPECT_EQ(ea_mha_run(&plan_, x, kN, kN, y, attn), EA_ERR_BAD_ARGUMENT) << what;
    EXPECT_TRUE(snapshot.Unchanged()) << what;
  }

  std::vector<float> memory_;
  size_t weights_floats_ = 0, table_floats_ = 0;
  ea_mha_weights weights_{};
  float* table_ = nullptr;
  ea_mha_config config_{};
  AlignedBytes storage_{0};
  ea_mha_plan plan_{};
  std::vector<float> x_, y_, attn_;
};

TEST_F(MhaInOneBuffer, RefusesOutputsOverWeightsBiasesAndTable) {
  float* in_w = const_cast<float*>(weights_.in_proj_weight);
  float* in_b = const_cast<float*>(weights_.in_proj_bias);
  float* out_w = const_cast<float*>(weights_.out_proj_weight);
  float* out_b = const_cast<float*>(weights_.out_proj_bias);
  ExpectRefused(x_.data(), out_w, nullptr, "y over out_proj_weight");
  ExpectRefused(x_.data(), y_.data(), out_w, "attn_weights over out_proj_weight");
  ExpectRefused(x_.data(), in_w + 5, nullptr, "y over in_proj_weight");
  ExpectRefused(x_.data(), y_.data(), in_b, "attn_weights over in_proj_bias");
  ExpectRefused(x_.data(), out_b - 3, nullptr, "y reaching into out_proj_bias");
  ExpectRefused(x_.data(), table_ + 7, nullptr, "y over the position table");
  ExpectRefused(x_.data(), y_.data(), table_, "attn_weights over the position table");
}

TEST_F(MhaInOneBuffer, RefusesOutputsAndInputInsideTheArenaCarve) {
  float* carve = reinterpret_cast<float*>(storage_.data());
  const size_t floats = storage_.size() / sizeof(float);
  for (size_t offset : {size_t{0}, floats / 3, floats - 1}) {
    SCOPED_TRACE(testing::Message() << "float " << offset << " of the carve");
    ExpectRefused(x_.data(), carve + offset, nullptr, "y inside the carve");
    ExpectRefused(x_.data(), y_.data(), carve + offset, "attn_weights inside the carve");
    ExpectRefused(carve + offset, y_.data(), nullptr, "x inside the carve");
  }
}

TEST_F(MhaInOneBuffer, PlanInitRefusesAnArenaOverItsOwnWeightsOrTable) {
  // One sizing mistake in a shared buffer: the arena starts inside a weight
  // tensor or the table, so planning and every run would overwrite it.
  float* starts[] = {const_cast<float*>(weights_.in_proj_weight),
                     const_cast<float*>(weights_.out_proj_weight) + 16, table_};
  for (float* start : starts) {
    uint8_t* base = reinterpret_cast<uint8_t*>(start);
    base += (EA_ARENA_ALIGNMENT - reinterpret_cast<uintptr_t>(base) % EA_ARENA_ALIGNMENT) %
            EA_ARENA_ALIGNMENT;
    const std::vector<float> before = memory_;
    ea_arena arena;
    ASSERT_EQ(ea_arena_init(&arena, base, storage_.size()), EA_OK);
    ea_mha_plan plan;
    EXPECT_EQ(ea_mha_init(&plan, &config_, &weights_, &arena), EA_ERR_BAD_ARGUMENT);
    EXPECT_EQ(arena.used, 0u);
    EXPECT_EQ(memory_, before);
    EXPECT_EQ(ea_mha_run(&plan, x_.data(), kN, kN, y_.data(), nullptr), EA_ERR_BAD_ARGUMENT);
  }
}

TEST_F(MhaInOneBuffer, StillRunsInPlaceAndNextToItsWeights) {
  // y right behind the table: adjacent to what the plan reads, not over it.
  float* behind_table = table_ + table_floats_;
  ASSERT_EQ(ea_mha_run(&plan_, x_.data(), kN, kN, behind_table, nullptr), EA_OK);
  EXPECT_EQ(std::vector<float>(behind_table, behind_table + kN * kE), y_);
  std::vector<float> in_place = x_;
  ASSERT_EQ(ea_mha_run(&plan_, in_place.data(), kN, kN, in_place.data(), nullptr), EA_OK);
  EXPECT_EQ(in_place, y_);
}

TEST(PlanMemory, SelfAttentionRefusesOutputsOverWeightsAndTable) {
  const int n = 9, e = 8, d_k = 6;
  const SelfAttentionModel model(e, d_k, e, true, 95);
  std::vector<float> table(n * e);
  ASSERT_EQ(ea_sinusoidal_table_fill(table.data(), n, e), EA_OK);
  ea_self_attention_config config{};
  config.dtype = EA_DTYPE_F32;
  config.max_tokens = n;
  config.d_model = e;
  config.d_k = d_k;
  config.d_v = e;
  config.mask = EA_MASK_NONE;
  config.position = EA_POSITION_SINUSOIDAL;
  config.position_table = table.data();
  const ea_self_attention_weights weights = model.Weights();
  PlannedSelfAttention planned = PlanSelfAttention(config, weights);
  ASSERT_EQ(planned.status, EA_OK);
  const ea_self_attention_plan& plan = planned.plan;
  const std::vector<float> x = RandomTensor(n * e, 96);
  std::vector<float> y(n * e);
  ASSERT_EQ(ea_self_attention_run(&plan, x.data(), n, n, y.data(), nullptr), EA_OK);

  const float* targets[] = {weights.w_q, weights.w_k, weights.w_v + 3,
                            weights.b_q, weights.b_v, table.data() + 1};
  for (const float* target : targets) {
    float* writable = const_cast<float*>(target);
    const std::vector<float> table_before = table;
    const std::vector<float> wv_before = model.w_v;
    EXPECT_EQ(ea_self_attention_run(&plan, x.data(), n, n, writable, nullptr), EA_ERR_BAD_ARGUMENT);
    EXPECT_EQ(ea_self_attention_run(&plan, x.data(), n, n, y.data(), writable),
              EA_ERR_BAD_ARGUMENT);
    EXPECT_EQ(table, table_before);
    EXPECT_EQ(model.w_v, wv_before);
  }
  float* carve = reinterpret_cast<float*>(planned.storage.data());
  EXPECT_EQ(ea_self_attention_run(&plan, x.data(), n, n, carve + 40, nullptr), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_self_attention_run(&plan, carve, n, n, y.data(), nullptr), EA_ERR_BAD_ARGUMENT);

  // A caller's table inside the arena the plan is about to carve is refused.
  AlignedBytes shared(planned.bytes);
  float* table_in_arena = reinterpret_cast<float*>(shared.data()) + 16;
  ASSERT_EQ(ea_sinusoidal_table_fill(table_in_arena, n, e), EA_OK);
  ea_self_attention_config over = config;
  over.position_table = table_in_arena;
  ea_arena arena;
  ea_self_attention_plan refused;
  ASSERT_EQ(ea_arena_init(&arena, shared.data(), shared.size()), EA_OK);
  EXPECT_EQ(ea_self_attention_init(&refused, &over, &weights, &arena), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(arena.used, 0u);
}

TEST(PlanMemory, FailedReplanLeavesThePlanNotReady) {
  // A plan for 8 tokens, then a re-plan for a bad shape in the same struct.
  const ea_attention_config good{EA_DTYPE_F32,      8,       8,      4, 4, EA_MASK_NONE, 0.0f,
                                 ea_parallel_for{}, nullptr, nullptr};
  size_t bytes = 0;
  ASSERT_EQ(ea_attention_arena_size(&good, &bytes), EA_OK);
  AlignedBytes storage(bytes);
  ea_arena arena;
  ea_attention_plan plan;
  ASSERT_EQ(ea_arena_init(&arena, storage.data(), bytes), EA_OK);
  ASSERT_EQ(ea_attention_init(&plan, &good, &arena), EA_OK);
  ea_attention_config bad = good;
  bad.n_kv = 0;
  EXPECT_EQ(ea_attention_init(&plan, &bad, &arena), EA_ERR_BAD_DIMENSION);
  std::vector<float> q(8 * 4, 1.0f), out(8 * 4, 5.0f);
  EXPECT_EQ(ea_attention_run(&plan, q.data(), q.data(), q.data(), 8, out.data(), nullptr),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(out, std::vector<float>(8 * 4, 5.0f));

  // A re-plan whose arena is too small (a later shape) fails the same way.
  ea_attention_config larger = good;
  larger.n_kv = 4000;
  ea_arena small;
  ASSERT_EQ(ea_arena_init(&small, storage.data(), bytes), EA_OK);
  ASSERT_EQ(ea_attention_init(&plan, &good, &small), EA_OK);
  EXPECT_EQ(ea_attention_init(&plan, &larger, &small), EA_ERR_ARENA_TOO_SMALL);
  EXPECT_EQ(ea_attention_run(&plan, q.data(), q.data(), q.data(), 8, out.data(), nullptr),
            EA_ERR_BAD_ARGUMENT);
}

TEST(PlanMemory, FailedReplanOfModelsLeavesThemNotReady) {
  const MhaModel mha_model(16, 2, false, 97);
  const ea_mha_weights mha_weights = mha_model.Weights();
  ea_mha_config mha{EA_DTYPE_F32,
                    6,
                    16,
                    2,
                    EA_MASK_NONE,
                    EA_POSITION_NONE,
                    nullptr,
                    EA_WEIGHTS_ROW_MAJOR,
                    ea_parallel_for{},
                    nullptr,
                    nullptr,
                    nullptr};
  size_t bytes = 0;
  ASSERT_EQ(ea_mha_arena_size(&mha, &bytes), EA_OK);
  AlignedBytes storage(bytes);
  ea_arena arena;
  ea_mha_plan plan;
  ASSERT_EQ(ea_arena_init(&arena, storage.data(), bytes), EA_OK);
  ASSERT_EQ(ea_mha_init(&plan, &mha, &mha_weights, &arena), EA_OK);
  mha.n_heads = 3;  // 16 is not divisible by 3
  EXPECT_EQ(ea_mha_init(&plan, &mha, &mha_weights, &arena), EA_ERR_HEADS_MISMATCH);
  std::vector<float> x(6 * 16, 1.0f), y(6 * 16, 5.0f);
  EXPECT_EQ(ea_mha_run(&plan, x.data(), 6, 6, y.data(), nullptr), EA_ERR_BAD_ARGUMENT);

  const SelfAttentionModel sa_model(8, 4, 4, false, 98);
  const ea_self_attention_weights sa_weights = sa_model.Weights();
  ea_self_attention_config sa{EA_DTYPE_F32,
                              6,
                              8,
                              4,
                              4,
                              EA_MASK_NONE,
                              EA_POSITION_NONE,
                              nullptr,
                              EA_WEIGHTS_ROW_MAJOR,
                              ea_parallel_for{},
                              nullptr,
                              nullptr,
                              nullptr};
  ASSERT_EQ(ea_self_attention_arena_size(&sa, &bytes), EA_OK);
  AlignedBytes sa_storage(bytes);
  ea_self_attention_plan sa_plan;
  ASSERT_EQ(ea_arena_init(&arena, sa_storage.data(), bytes), EA_OK);
  ASSERT_EQ(ea_self_attention_init(&sa_plan, &sa, &sa_weights, &arena), EA_OK);
  sa.position = EA_POSITION_LEARNED;  // without a table
  EXPECT_EQ(ea_self_attention_init(&sa_plan, &sa, &sa_weights, &arena), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_self_attention_run(&sa_plan, x.data(), 6, 6, y.data(), nullptr),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(y, std::vector<float>(6 * 16, 5.0f));
}

}  // namespace
}  // namespace edgeattn_test
