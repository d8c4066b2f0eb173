/* A small persistent pthread pool that plugs into edgeattn's parallel-for
 * hook (ea_parallel_for). The library creates no thread: an application that
 * wants several cores brings a pool like this one (or its own: OpenMP, a
 * game engine's job system, an RTOS's tasks).
 *
 *   static ea_pthread_pool pool;                 // static storage, no heap
 *   ea_pthread_pool_start(&pool, 2);             // the caller + 1 thread
 *   config.parallel = ea_pthread_pool_hook(&pool);
 *   ... plan, run as usual ...
 *   ea_pthread_pool_stop(&pool);
 *
 * The calling thread works as worker 0, so a pool of n workers starts n - 1
 * threads. One run at a time per pool.
 *
 * Shared cores. On a phone or a board other processes use the cores too, so
 * a pool thread may not run for milliseconds. The pool does not wait for it:
 * every thread, the caller included, takes the batch's tasks one at a time
 * until none is left, and a batch ends when its last task has finished,
 * whichever threads ran them. A thread that is not scheduled takes no task,
 * and the caller runs the whole batch itself. The caller waits only for tasks
 * that another thread has already started. Waiting threads poll for at most
 * EA_PTHREAD_POOL_SPIN_NS with sched_yield() between polls (a thread that
 * shares the core, the caller or another process, keeps running) and then
 * sleep on a semaphore. There is no lock: a thread descheduled anywhere
 * outside a task holds nothing the others need. Which thread runs which task
 * does not change edgeattn's results (bit-identical for any schedule). */
#ifndef EDGEATTN_EXAMPLES_THREAD_POOL_PTHREAD_POOL_H_
#define EDGEATTN_EXAMPLES_THREAD_POOL_PTHREAD_POOL_H_

#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"

#ifdef __cplusplus
extern "C" {
#endif

#define EA_PTHREAD_POOL_MAX_WORKERS 64

/* How long a thread with nothing to do polls before it sleeps: about ten
 * times what waking a sleeping thread costs (tens of microseconds), so that
 * the threads stay awake across the batches of one run (an MHA run is six:
 * in_proj, each head, out_proj) and sleep between runs. */
#ifndef EA_PTHREAD_POOL_SPIN_NS
#define EA_PTHREAD_POOL_SPIN_NS 200000
#endif

struct ea_pthread_pool;
typedef struct ea_pthread_thread_start {
  struct ea_pthread_pool* pool;
  int32_t worker;
} ea_pthread_thread_start;

/* The fields the threads share are read and written with GCC's __atomic
 * builtins (C11 <stdatomic.h> types cannot be included from C++17). */
typedef struct ea_pthread_pool {
  int32_t workers; /* the caller plus workers - 1 threads */
  pthread_t threads[EA_PTHREAD_POOL_MAX_WORKERS];
  ea_pthread_thread_start starts[EA_PTHREAD_POOL_MAX_WORKERS];
  /* The current batch. `claim` packs the batch number (high 32 bits) with
   * the tasks nobody has taken yet (low 32 bits): a thread takes task
   * `n_tasks - remaining` with a compare-and-swap that keeps the batch
   * number, so each task goes out once, in order (edgeattn numbers its tasks
   * largest first), and a thread that wakes late cannot take a task of a
   * batch it has not seen. `unfinished` counts the tasks not done yet. */
  uint64_t claim;
  int32_t n_tasks;
  int32_t unfinished;
  ea_task_fn task;
  void* task_context;
  int32_t stop;
  /* Sleeping: a thread sets its flag, checks once more, then waits on its
   * semaphore; whoever clears a set flag posts that semaphore once. */
  int32_t sleeping[EA_PTHREAD_POOL_MAX_WORKERS]; /* [0]: the caller, waiting for the batch */
  sem_t wake[EA_PTHREAD_POOL_MAX_WORKERS];       /* [0]: the batch's last task finished */
} ea_pthread_pool;

/* 0 on success; -1 for workers outside [1, EA_PTHREAD_POOL_MAX_WORKERS] or
 * when a thread or a semaphore cannot be created (the pool is then stopped). */
int ea_pthread_pool_start(ea_pthread_pool* pool, int32_t workers);
void ea_pthread_pool_stop(ea_pthread_pool* pool);

/* An ea_parallel_run_fn: context is the pool. */
void ea_pthread_pool_run(void* context, int32_t n_tasks, ea_task_fn task, void* task_context);

/* The hook to put in a config's `parallel` field. */
ea_parallel_for ea_pthread_pool_hook(ea_pthread_pool* pool);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_EXAMPLES_THREAD_POOL_PTHREAD_POOL_H_ */
