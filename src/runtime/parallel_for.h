// The caller's parallel-for hook (ea_parallel_for): validating it at plan
// time and handing a run's tasks to it. Without a hook, or with one worker,
// the tasks run in order on the calling thread. Either way the tasks are the
// same, so results do not depend on the worker count.
#ifndef EDGEATTN_SRC_RUNTIME_PARALLEL_FOR_H_
#define EDGEATTN_SRC_RUNTIME_PARALLEL_FOR_H_

#include <stdint.h>

#include <atomic>

#include "edgeattn/edgeattn.h"

namespace edgeattn {

// max_workers in [0, EA_MAX_WORKERS] (EA_ERR_BAD_ARGUMENT), and a `run` for
// more than one (EA_ERR_NULL_POINTER).
ea_status ValidateParallelFor(const ea_parallel_for& parallel);

// Workers a validated hook may use at once: at least 1.
int32_t WorkerCount(const ea_parallel_for& parallel);

// One batch of tasks. Body is called as body(task, worker) with a worker in
// [0, WorkerCount(parallel)); a worker the hook passes out of range sets
// `bad_worker` and its task is skipped. A relaxed store of a bool is a plain
// store on every target (no read-modify-write, so no libatomic on
// Cortex-M0).
template <class Body>
struct TaskBatch {
  const Body* body;
  int32_t workers;
  std::atomic<bool> bad_worker{false};

  static void Run(void* context, int32_t task, int32_t worker) {
    TaskBatch* batch = static_cast<TaskBatch*>(context);
    if (worker < 0 || worker >= batch->workers) {
      batch->bad_worker.store(true, std::memory_order_relaxed);
      return;
    }
    (*batch->body)(task, worker);
  }
};

// Runs body(task, worker) for every task in [0, n_tasks). Returns false when
// the hook broke its contract on the worker index.
template <class Body>
bool RunTasks(const ea_parallel_for& parallel, int32_t n_tasks, const Body& body) {
  TaskBatch<Body> batch;
  batch.body = &body;
  batch.workers = WorkerCount(parallel);
  if (parallel.run == nullptr || batch.workers == 1 || n_tasks == 1) {
    for (int32_t task = 0; task < n_tasks; ++task) body(task, 0);
    return true;
  }
  parallel.run(parallel.context, n_tasks, &TaskBatch<Body>::Run, &batch);
  return !batch.bad_worker.load(std::memory_order_relaxed);
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_RUNTIME_PARALLEL_FOR_H_
