// The threads of the multi-worker rows (f32_2workers/...): examples/thread_pool's pthread pool,
// started once in main before the cross-check and stopped after the benchmarks, so no row pays
// for thread creation. The main thread is worker 0 and the pool adds workers - 1 threads; they
// sleep on a condition variable except while a multi-worker edgeattn row runs, and they run
// only edgeattn's tasks. oneDNN's primitives still run on the main thread alone, whose OpenMP
// limit (single_thread.h) the pool does not touch: a pthread that never enters an OpenMP region
// starts no OpenMP team.
#ifndef EDGEATTN_BENCH_WORKER_POOL_H_
#define EDGEATTN_BENCH_WORKER_POOL_H_

#include <stdint.h>

#include "../examples/thread_pool/pthread_pool.h"
#include "edgeattn/edgeattn.h"

namespace edgeattn_bench {

class WorkerPool {
 public:
  // Starts `workers` - 1 threads; started() says whether that worked.
  explicit WorkerPool(int32_t workers);
  ~WorkerPool() { Stop(); }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  bool started() const { return started_; }
  // The threads the pool added to the process (0 once stopped).
  int32_t threads() const { return started_ ? pool_.workers - 1 : 0; }
  // Joins the threads; idempotent.
  void Stop();

  // The parallel-for hook of a row on `workers` workers: zero (single-threaded, no hook) for
  // one, the pool's hook for the pool's own count. Any other count gets a hook without a run
  // function, which init refuses (EA_ERR_NULL_POINTER): the row fails instead of running
  // on fewer workers than its name says.
  ea_parallel_for HookFor(int32_t workers);

 private:
  ea_pthread_pool pool_ = {};
  bool started_ = false;
};

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_WORKER_POOL_H_
