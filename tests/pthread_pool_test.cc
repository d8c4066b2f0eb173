// The pthread pool of examples/thread_pool/ behind edgeattn's parallel-for
// hook: real threads give the single-threaded result bit for bit, run after
// run on the same pool. Built where the target has pthreads (not Cortex-M).
#include <gtest/gtest.h>
#include <stdint.h>

#include <cstring>
#include <vector>

#include "edgeattn/edgeattn.h"
#include "model_fixture.h"
#include "planned_operation.h"
#include "reference/random_tensor.h"

#if EDGEATTN_TEST_PTHREAD_POOL
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

TEST(PthreadPool, RefusesWorkerCountsItCannotServe) {
  ea_pthread_pool pool;
  EXPECT_EQ(ea_pthread_pool_start(&pool, 0), -1);
  EXPECT_EQ(ea_pthread_pool_start(&pool, EA_PTHREAD_POOL_MAX_WORKERS + 1), -1);
}
#else
TEST(PthreadPool, MhaOnThreadsIsBitIdenticalToOneThread) {
  GTEST_SKIP() << "this target has no pthreads (bare metal): the pool example is not built; "
                  "tests/parallel_for_test.cc still checks schedules on one thread";
}
#endif

}  // namespace
}  // namespace edgeattn_test
