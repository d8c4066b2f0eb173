// The multi-worker rows' pthread pool (see worker_pool.h).
#include "worker_pool.h"

namespace edgeattn_bench {

WorkerPool::WorkerPool(int32_t workers) { started_ = ea_pthread_pool_start(&pool_, workers) == 0; }

void WorkerPool::Stop() {
  if (!started_) return;
  ea_pthread_pool_stop(&pool_);
  started_ = false;
}

ea_parallel_for WorkerPool::HookFor(int32_t workers) {
  ea_parallel_for hook = {};
  if (workers <= 1) return hook;
  if (started_ && workers == pool_.workers) return ea_pthread_pool_hook(&pool_);
  hook.max_workers = workers;  // run stays NULL: init refuses it
  return hook;
}

}  // namespace edgeattn_bench
