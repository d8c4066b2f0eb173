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
 * threads. One run at a time per pool. */
#ifndef EDGEATTN_EXAMPLES_THREAD_POOL_PTHREAD_POOL_H_
#define EDGEATTN_EXAMPLES_THREAD_POOL_PTHREAD_POOL_H_

#include <pthread.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"

#ifdef __cplusplus
extern "C" {
#endif

#define EA_PTHREAD_POOL_MAX_WORKERS 64

struct ea_pthread_pool;
typedef struct ea_pthread_thread_start {
  struct ea_pthread_pool* pool;
  int32_t worker;
} ea_pthread_thread_start;

typedef struct ea_pthread_pool {
  int32_t workers; /* the caller plus workers - 1 threads */
  pthread_t threads[EA_PTHREAD_POOL_MAX_WORKERS];
  ea_pthread_thread_start starts[EA_PTHREAD_POOL_MAX_WORKERS];
  pthread_mutex_t mutex;
  pthread_cond_t wake;     /* a batch is posted, or stop */
  pthread_cond_t finished; /* the last thread left the batch */
  uint64_t batch;          /* batch number: threads run each one once */
  int32_t running;         /* threads still in the current batch */
  int32_t stop;
  /* The current batch; tasks are claimed one at a time under the mutex. */
  ea_task_fn task;
  void* task_context;
  int32_t n_tasks;
  int32_t next_task;
} ea_pthread_pool;

/* 0 on success; -1 for workers outside [1, EA_PTHREAD_POOL_MAX_WORKERS] or
 * when a thread cannot be created (the pool is then stopped). */
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
