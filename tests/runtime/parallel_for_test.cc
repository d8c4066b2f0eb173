// The parallel-for hook (ea_parallel_for): any worker count and any schedule
// (a stalled worker's included) give the single-threaded result bit for bit,
// on every target; the arena grows by one score tile per extra worker (and an
// MHA plan by the packed keys of its other heads); bad
// hooks are refused.
#include <gtest/gtest.h>
#include <stdint.h>

#include <atomic>
#include <cstring>
#include <vector>

// Bare-metal newlib (Cortex-M) has no threads: there the threaded pool runs
// its workers one after another, and the scrambled schedule still varies
// order and worker.
#if defined(_GLIBCXX_HAS_GTHREADS)
#include <thread>
#define EDGEATTN_TEST_HAS_THREADS 1
#else
#define EDGEATTN_TEST_HAS_THREADS 0
#endif

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "model_fixture.h"
#include "planned_operation.h"
#include "reference/random_tensor.h"
#include "simd_targets.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

// Real threads: `workers` std::threads take tasks from a shared counter, each
// under its own worker index.
struct ThreadedPool {
  int32_t workers;
  static void Run(void* context, int32_t n_tasks, ea_task_fn task, void* task_context) {
    const ThreadedPool* pool = static_cast<const ThreadedPool*>(context);
    std::atomic<int32_t> next{0};
    const auto work = [&](int32_t worker) {
      for (int32_t i = next.fetch_add(1); i < n_tasks; i = next.fetch_add(1)) {
        task(task_context, i, worker);
      }
    };
#if EDGEATTN_TEST_HAS_THREADS
    std::vector<std::thread> threads;
    for (int32_t w = 0; w < pool->workers; ++w) threads.emplace_back(work, w);
    for (std::thread& t : threads) t.join();
#else
    for (int32_t w = 0; w < pool->workers; ++w) work(w);
#endif
  }
};

// One thread, tasks in reverse order, worker indices rotating: a schedule no
// real pool would pick, to show that order and worker do not matter.
struct ScrambledPool {
  int32_t workers;
  int32_t worker_offset = 0;  // workers + k makes the pool break its contract
  static void Run(void* context, int32_t n_tasks, ea_task_fn task, void* task_context) {
    const ScrambledPool* pool = static_cast<const ScrambledPool*>(context);
    for (int32_t i = n_tasks - 1; i >= 0; --i) {
      task(task_context, i, (i * 7 + 3) % pool->workers + pool->worker_offset);
    }
  }
};

// Two workers, one of them descheduled: worker 1 claims task `held` (the
// middle one) and stalls before running it until worker 0, the caller, has
// run every other task, as a pool whose caller takes the tasks of a thread
// that a busy core keeps waiting does. `absent`: worker 1 takes no task at
// all, and the caller runs the whole batch.
struct StalledWorkerPool {
  int32_t workers = 2;
  bool absent = false;
  static void Run(void* context, int32_t n_tasks, ea_task_fn task, void* task_context) {
    const StalledWorkerPool* pool = static_cast<const StalledWorkerPool*>(context);
    const int32_t held = pool->absent ? -1 : n_tasks / 2;
    std::atomic<bool> others_done{false};
#if EDGEATTN_TEST_HAS_THREADS
    std::thread stalled([&] {
      while (!others_done.load()) std::this_thread::yield();
      if (held >= 0) task(task_context, held, 1);
    });
#endif
    for (int32_t i = 0; i < n_tasks; ++i) {
      if (i != held) task(task_context, i, 0);
    }
    others_done.store(true);
#if EDGEATTN_TEST_HAS_THREADS
    stalled.join();
#else
    if (held >= 0) task(task_context, held, 1);
#endif
  }
};

template <class Pool>
ea_parallel_for HookOf(Pool* pool) {
  return ea_parallel_for{&Pool::Run, pool, pool->workers};
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

class ParallelFor : public PerTargetTest {};

// n_q = 250 is five 60-row tasks, the last one partial; causal with n_kv > n_q
// and padding; the weights output too.
TEST_P(ParallelFor, AttentionIsBitIdenticalForAnyWorkersAndSchedule) {
  const int n_q = 250, n_kv = 300, d = 40;
  const std::vector<float> q = RandomTensor(static_cast<size_t>(n_q) * d, 1);
  const std::vector<float> k = RandomTensor(static_cast<size_t>(n_kv) * d, 2);
  const std::vector<float> v = RandomTensor(static_cast<size_t>(n_kv) * d, 3);
  const auto run = [&](const ea_parallel_for& parallel, std::vector<float>* weights) {
    const ea_attention_config config{EA_DTYPE_F32,   n_q,  n_kv,     d,       d,
                                     EA_MASK_CAUSAL, 0.0f, parallel, nullptr, nullptr};
    PlannedAttention planned = PlanAttention(config);
    EXPECT_EQ(planned.status, EA_OK);
    std::vector<float> out(static_cast<size_t>(n_q) * d);
    weights->assign(static_cast<size_t>(n_q) * n_kv, -1.0f);
    EXPECT_EQ(ea_attention_run(&planned.plan, q.data(), k.data(), v.data(), n_kv - 7, out.data(),
                               weights->data()),
              EA_OK);
    return out;
  };
  std::vector<float> weights_one, weights_many;
  const std::vector<float> one = run(ea_parallel_for{}, &weights_one);
  for (int32_t workers : {1, 2, 3, 7}) {
    ThreadedPool threaded{workers};
    EXPECT_TRUE(SameBits(one, run(HookOf(&threaded), &weights_many))) << workers << " threads";
    EXPECT_TRUE(SameBits(weights_one, weights_many)) << workers << " threads";
    ScrambledPool scrambled{workers};
    EXPECT_TRUE(SameBits(one, run(HookOf(&scrambled), &weights_many))) << workers << " scrambled";
  }
  for (const bool absent : {false, true}) {
    StalledWorkerPool stalled{2, absent};
    EXPECT_TRUE(SameBits(one, run(HookOf(&stalled), &weights_many))) << "absent " << absent;
    EXPECT_TRUE(SameBits(weights_one, weights_many)) << "absent " << absent;
  }
}

TEST_P(ParallelFor, MhaAndSelfAttentionAreBitIdenticalForAnyWorkers) {
  const int n = 190, d_model = 48, heads = 4;
  const MhaModel mha(d_model, heads, true, 5);
  const SelfAttentionModel self(d_model, 24, 40, true, 6);
  const std::vector<float> x = RandomTensor(static_cast<size_t>(n) * d_model, 7);
  // Several workers run the query blocks of all four heads as one batch
  // (MhaPackedHeads): the weights output of every head must match as well.
  std::vector<float> mha_weights;
  const auto run_mha = [&](const ea_parallel_for& parallel) {
    const ea_mha_config config{EA_DTYPE_F32,   n,
                               d_model,        heads,
                               EA_MASK_CAUSAL, EA_POSITION_SINUSOIDAL,
                               nullptr,        EA_WEIGHTS_ROW_MAJOR,
                               parallel,       nullptr,
                               nullptr,        nullptr};
    PlannedMha planned = PlanMha(config, mha.Weights());
    EXPECT_EQ(planned.status, EA_OK);
    std::vector<float> y(x.size());
    mha_weights.assign(static_cast<size_t>(heads) * n * n, -1.0f);
    EXPECT_EQ(ea_mha_run(&planned.plan, x.data(), n, n - 3, y.data(), mha_weights.data()), EA_OK);
    return y;
  };
  const auto run_self = [&](const ea_parallel_for& parallel) {
    const ea_self_attention_config config{EA_DTYPE_F32,
                                          n,
                                          d_model,
                                          24,
                                          40,
                                          EA_MASK_NONE,
                                          EA_POSITION_NONE,
                                          nullptr,
                                          EA_WEIGHTS_ROW_MAJOR,
                                          parallel,
                                          nullptr,
                                          nullptr,
                                          nullptr};
    PlannedSelfAttention planned = PlanSelfAttention(config, self.Weights());
    EXPECT_EQ(planned.status, EA_OK);
    std::vector<float> y(static_cast<size_t>(n) * 40);
    EXPECT_EQ(ea_self_attention_run(&planned.plan, x.data(), n, n, y.data(), nullptr), EA_OK);
    return y;
  };
  const std::vector<float> mha_one = run_mha(ea_parallel_for{});
  const std::vector<float> mha_weights_one = mha_weights;
  const std::vector<float> self_one = run_self(ea_parallel_for{});
  for (int32_t workers : {2, 3}) {
    ThreadedPool pool{workers};
    EXPECT_TRUE(SameBits(mha_one, run_mha(HookOf(&pool)))) << workers << " workers";
    EXPECT_TRUE(SameBits(mha_weights_one, mha_weights)) << workers << " workers";
    EXPECT_TRUE(SameBits(self_one, run_self(HookOf(&pool)))) << workers << " workers";
    ScrambledPool scrambled{workers};
    EXPECT_TRUE(SameBits(mha_one, run_mha(HookOf(&scrambled)))) << workers << " scrambled";
    EXPECT_TRUE(SameBits(mha_weights_one, mha_weights)) << workers << " scrambled";
  }
  for (const bool absent : {false, true}) {
    StalledWorkerPool stalled{2, absent};
    EXPECT_TRUE(SameBits(mha_one, run_mha(HookOf(&stalled)))) << "absent " << absent;
    EXPECT_TRUE(SameBits(self_one, run_self(HookOf(&stalled)))) << "absent " << absent;
  }
}

// A hook that hands out a worker index past max_workers gets a status, and
// no write lands outside the plan's tiles (ASan would see one).
TEST_P(ParallelFor, WorkerOutOfRangeIsReportedNotFollowed) {
  const int n = 130, d = 16;
  ScrambledPool broken{2, 2};  // workers 2 and 3 of 2
  const ea_attention_config config{EA_DTYPE_F32,    n,       n,      d, d, EA_MASK_NONE, 0.0f,
                                   HookOf(&broken), nullptr, nullptr};
  PlannedAttention planned = PlanAttention(config);
  ASSERT_EQ(planned.status, EA_OK);
  const std::vector<float> x = RandomTensor(static_cast<size_t>(n) * d, 9);
  std::vector<float> out(x.size());
  EXPECT_EQ(ea_attention_run(&planned.plan, x.data(), x.data(), x.data(), n, out.data(), nullptr),
            EA_ERR_BAD_ARGUMENT);
}

EA_INSTANTIATE_PER_TARGET(ParallelFor);

TEST(ParallelForArena, EachExtraWorkerAddsOneScoreTile) {
  const uint64_t tile =
      static_cast<uint64_t>(edgeattn::kScoreTileRows) * edgeattn::kScoreTileKeys * sizeof(float);
  for (int32_t workers : {0, 1, 2, 5}) {
    ScrambledPool pool{workers > 0 ? workers : 1};
    ea_attention_config config{EA_DTYPE_F32,
                               100,
                               100,
                               8,
                               8,
                               EA_MASK_NONE,
                               0.0f,
                               ea_parallel_for{&ScrambledPool::Run, &pool, workers},
                               nullptr,
                               nullptr};
    size_t bytes = 0;
    ASSERT_EQ(ea_attention_arena_size(&config, &bytes), EA_OK);
    const uint64_t extra = workers > 1 ? static_cast<uint64_t>(workers - 1) * tile : 0;
    EXPECT_EQ(bytes, edgeattn::AttentionArenaBytes(100, 8) + extra);
    EXPECT_EQ(bytes, edgeattn::AttentionArenaBytes(100, 8, workers));
    // The plan fits exactly, and one byte less is refused.
    AlignedBytes storage(bytes);
    ea_arena arena;
    ea_attention_plan plan{};
    ASSERT_EQ(ea_arena_init(&arena, storage.data(), bytes - 1), EA_OK);
    EXPECT_EQ(ea_attention_init(&plan, &config, &arena), EA_ERR_ARENA_TOO_SMALL);
    ASSERT_EQ(ea_arena_init(&arena, storage.data(), bytes), EA_OK);
    EXPECT_EQ(ea_attention_init(&plan, &config, &arena), EA_OK);
    EXPECT_EQ(ea_arena_remaining(&arena), 0u);
  }
  size_t self = 0, mha = 0;
  ScrambledPool pool{4};
  const ea_self_attention_config self_config{EA_DTYPE_F32,
                                             40,
                                             16,
                                             8,
                                             8,
                                             EA_MASK_NONE,
                                             EA_POSITION_NONE,
                                             nullptr,
                                             EA_WEIGHTS_PACKED,
                                             HookOf(&pool),
                                             nullptr,
                                             nullptr,
                                             nullptr};
  const ea_mha_config mha_config{EA_DTYPE_F32,
                                 40,
                                 16,
                                 2,
                                 EA_MASK_NONE,
                                 EA_POSITION_NONE,
                                 nullptr,
                                 EA_WEIGHTS_PACKED,
                                 HookOf(&pool),
                                 nullptr,
                                 nullptr,
                                 nullptr};
  ASSERT_EQ(ea_self_attention_arena_size(&self_config, &self), EA_OK);
  ASSERT_EQ(ea_mha_arena_size(&mha_config, &mha), EA_OK);
  EXPECT_EQ(self, edgeattn::SelfAttentionArenaBytes(40, 16, 8, 8, edgeattn::PositionStorage::kNone,
                                                    EA_WEIGHTS_PACKED, 4));
  EXPECT_EQ(mha, edgeattn::MhaArenaBytes(40, 16, 2, edgeattn::PositionStorage::kNone,
                                         EA_WEIGHTS_PACKED, 4));
  // An MHA plan for several workers also packs the keys of every head at once:
  // 3 more score tiles, and the second head's panels (8 features x 64 keys).
  const uint64_t head_panels = 8 * 64 * sizeof(float);
  EXPECT_EQ(mha, edgeattn::MhaArenaBytes(40, 16, 2, edgeattn::PositionStorage::kNone,
                                         EA_WEIGHTS_PACKED, 1) +
                     3 * tile + head_panels);
}

TEST(ParallelForArena, BadHooksAreRefused) {
  ScrambledPool pool{2};
  ea_attention_config config{EA_DTYPE_F32,  10,      10,     4, 4, EA_MASK_NONE, 0.0f,
                             HookOf(&pool), nullptr, nullptr};
  size_t bytes = 0;
  config.parallel.max_workers = -1;
  EXPECT_EQ(ea_attention_arena_size(&config, &bytes), EA_ERR_BAD_ARGUMENT);
  config.parallel.max_workers = EA_MAX_WORKERS + 1;
  EXPECT_EQ(ea_attention_arena_size(&config, &bytes), EA_ERR_BAD_ARGUMENT);
  config.parallel.max_workers = EA_MAX_WORKERS;
  EXPECT_EQ(ea_attention_arena_size(&config, &bytes), EA_OK);
  config.parallel.max_workers = 2;
  config.parallel.run = nullptr;
  EXPECT_EQ(ea_attention_arena_size(&config, &bytes), EA_ERR_NULL_POINTER);
  config.parallel.max_workers = 1;
  EXPECT_EQ(ea_attention_arena_size(&config, &bytes), EA_OK) << "one worker needs no hook";
}

}  // namespace
}  // namespace edgeattn_test
