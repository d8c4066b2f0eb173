// The pthread pool of examples/thread_pool/ behind edgeattn's parallel-for
// hook: real threads give the single-threaded result bit for bit, run after
// run on the same pool, also while a pool thread is stalled (as a thread
// descheduled by a busy core is): the caller then runs every task itself.
// Built where the target has pthreads (not Cortex-M).
#include <gtest/gtest.h>
#include <stdint.h>

#include <atomic>
#include <cstring>
#include <vector>

#include "edgeattn/edgeattn.h"
#include "model_fixture.h"
#include "planned_operation.h"
#include "reference/random_tensor.h"

#if EDGEATTN_TEST_PTHREAD_POOL
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "../examples/thread_pool/pthread_pool.h"
#endif

namespace edgeattn_test {
namespace {

#if EDGEATTN_TEST_PTHREAD_POOL
std::vector<float> RunMha(const MhaModel& model, const std::vector<float>& x, int n,
                          const ea_parallel_for& parallel) {
  const ea_mha_config config{EA_DTYPE_F32,   n,
                             model.d_model,  model.heads,
                             EA_MASK_CAUSAL, EA_POSITION_SINUSOIDAL,
                             nullptr,        EA_WEIGHTS_ROW_MAJOR,
                             parallel,       nullptr,
                             nullptr,        nullptr};
  PlannedMha planned = PlanMha(config, model.Weights());
  EXPECT_EQ(planned.status, EA_OK);
  std::vector<float> y(x.size());
  EXPECT_EQ(ea_mha_run(&planned.plan, x.data(), n, n, y.data(), nullptr), EA_OK);
  return y;
}

TEST(PthreadPool, MhaOnThreadsIsBitIdenticalToOneThread) {
  const int n = 300, d_model = 64, heads = 4;
  const MhaModel model(d_model, heads, true, 51);
  const std::vector<float> x = RandomTensor(static_cast<size_t>(n) * d_model, 52);
  const std::vector<float> one = RunMha(model, x, n, ea_parallel_for{});
  for (int32_t workers : {2, 3}) {
    static ea_pthread_pool pool;  // static storage, as firmware-style code keeps it
    ASSERT_EQ(ea_pthread_pool_start(&pool, workers), 0);
    for (int repeat = 0; repeat < 3; ++repeat) {
      const std::vector<float> many = RunMha(model, x, n, ea_pthread_pool_hook(&pool));
      EXPECT_EQ(0, memcmp(one.data(), many.data(), one.size() * sizeof(float)))
          << workers << " workers, run " << repeat;
    }
    ea_pthread_pool_stop(&pool);
  }
}

// More threads than this machine has cores: nothing waits for a thread to
// be scheduled, so the runs end and give the same bits.
TEST(PthreadPool, MoreWorkersThanCoresGiveTheSameBits) {
  const int n = 130, d_model = 64, heads = 2;
  const MhaModel model(d_model, heads, true, 53);
  const std::vector<float> x = RandomTensor(static_cast<size_t>(n) * d_model, 54);
  const std::vector<float> one = RunMha(model, x, n, ea_parallel_for{});
  static ea_pthread_pool pool;
  ASSERT_EQ(ea_pthread_pool_start(&pool, 8), 0);
  for (int repeat = 0; repeat < 5; ++repeat) {
    const std::vector<float> many = RunMha(model, x, n, ea_pthread_pool_hook(&pool));
    EXPECT_EQ(0, memcmp(one.data(), many.data(), one.size() * sizeof(float))) << "run " << repeat;
  }
  ea_pthread_pool_stop(&pool);
}

// Which worker ran each task of a batch, and how often each task ran.
struct TaskLog {
  static constexpr int32_t kMaxTasks = 1000;
  std::atomic<int32_t> runs[kMaxTasks];
  std::atomic<int32_t> worker[kMaxTasks];

  void Clear() {
    for (int32_t i = 0; i < kMaxTasks; ++i) {
      runs[i].store(0);
      worker[i].store(-1);
    }
  }
  static void Task(void* context, int32_t task, int32_t worker) {
    TaskLog* log = static_cast<TaskLog*>(context);
    log->runs[task].fetch_add(1);
    log->worker[task].store(worker);
  }
};

// Batch after batch of every size, with 1 to 8 workers: every task runs
// exactly once, on a worker index of the pool.
TEST(PthreadPool, RunsEveryTaskOfEveryBatchOnce) {
  static TaskLog log;
  for (int32_t workers : {1, 2, 3, 8}) {
    static ea_pthread_pool pool;
    ASSERT_EQ(ea_pthread_pool_start(&pool, workers), 0);
    for (int32_t n_tasks : {1, 2, 3, 7, 64, TaskLog::kMaxTasks}) {
      for (int repeat = 0; repeat < 3; ++repeat) {
        log.Clear();
        ea_pthread_pool_run(&pool, n_tasks, &TaskLog::Task, &log);
        for (int32_t i = 0; i < n_tasks; ++i) {
          ASSERT_EQ(log.runs[i].load(), 1)
              << workers << " workers, task " << i << " of " << n_tasks;
          ASSERT_GE(log.worker[i].load(), 0);
          ASSERT_LT(log.worker[i].load(), workers);
        }
      }
    }
    ea_pthread_pool_stop(&pool);
  }
}

// A stalled thread: SIGUSR1 holds the pool thread that receives it in this
// handler until the test writes to the release pipe. Only async-signal-safe
// calls (read, write) in the handler.
int g_stalled_pipe[2];
int g_release_pipe[2];
void HoldThread(int /* signal */) {
  const int saved = errno;
  char byte = 1;
  while (write(g_stalled_pipe[1], &byte, 1) < 0 && errno == EINTR) {
  }
  while (read(g_release_pipe[0], &byte, 1) < 0 && errno == EINTR) {
  }
  errno = saved;
}

// The pool's thread is stalled between runs, wherever it was (polling or
// asleep), the way a busy core deschedules it: the caller runs every task of
// every batch itself and waits for nobody (the old pool waited here for
// every thread to pass through each batch, and this test hung), with the
// one-worker bits. Released, the thread takes tasks again.
TEST(PthreadPool, CallerRunsTheBatchesAloneWhileAThreadIsStalled) {
  const int n = 300, d_model = 64, heads = 4;
  const MhaModel model(d_model, heads, true, 55);
  const std::vector<float> x = RandomTensor(static_cast<size_t>(n) * d_model, 56);
  const std::vector<float> one = RunMha(model, x, n, ea_parallel_for{});
  ASSERT_EQ(pipe(g_stalled_pipe), 0);
  ASSERT_EQ(pipe(g_release_pipe), 0);
  struct sigaction hold = {}, previous = {};
  hold.sa_handler = HoldThread;
  sigemptyset(&hold.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR1, &hold, &previous), 0);

  static ea_pthread_pool pool;
  ASSERT_EQ(ea_pthread_pool_start(&pool, 2), 0);
  std::vector<float> many = RunMha(model, x, n, ea_pthread_pool_hook(&pool));
  EXPECT_EQ(0, memcmp(one.data(), many.data(), one.size() * sizeof(float))) << "before the stall";

  ASSERT_EQ(pthread_kill(pool.threads[1], SIGUSR1), 0);
  char byte = 0;
  ASSERT_EQ(read(g_stalled_pipe[0], &byte, 1), 1);  // the thread is in the handler
  static TaskLog log;
  for (int repeat = 0; repeat < 3; ++repeat) {
    log.Clear();
    ea_pthread_pool_run(&pool, 100, &TaskLog::Task, &log);
    for (int32_t i = 0; i < 100; ++i) {
      ASSERT_EQ(log.runs[i].load(), 1) << "task " << i;
      ASSERT_EQ(log.worker[i].load(), 0) << "task " << i << " ran on the stalled thread";
    }
    many = RunMha(model, x, n, ea_pthread_pool_hook(&pool));
    EXPECT_EQ(0, memcmp(one.data(), many.data(), one.size() * sizeof(float)))
        << "stalled, run " << repeat;
  }

  ASSERT_EQ(write(g_release_pipe[1], &byte, 1), 1);
  for (int repeat = 0; repeat < 3; ++repeat) {
    many = RunMha(model, x, n, ea_pthread_pool_hook(&pool));
    EXPECT_EQ(0, memcmp(one.data(), many.data(), one.size() * sizeof(float)))
        << "released, run " << repeat;
  }
  ea_pthread_pool_stop(&pool);
  EXPECT_EQ(sigaction(SIGUSR1, &previous, nullptr), 0);
  for (int fd : {g_stalled_pipe[0], g_stalled_pipe[1], g_release_pipe[0], g_release_pipe[1]}) {
    close(fd);
  }
}

TEST(PthreadPool, RefusesWorkerCountsItCannotServe) {
  ea_pthread_pool pool;
  EXPECT_EQ(ea_pthread_pool_start(&pool, 0), -1);
  EXPECT_EQ(ea_pthread_pool_start(&pool, EA_PTHREAD_POOL_MAX_WORKERS + 1), -1);
}
#else
TEST(PthreadPool, MhaOnThreadsIsBitIdenticalToOneThread) {
  GTEST_SKIP() << "this target has no pthreads (bare metal): the pool example is not built; "
                  "tests/runtime/parallel_for_test.cc still checks schedules on one thread";
}
#endif

}  // namespace
}  // namespace edgeattn_test
