/* See pthread_pool.h. Tasks are claimed under the pool's mutex: a task is a
 * 60-row block of attention or of a projection (tens of microseconds at
 * least), so one lock per task costs nothing measurable. Waking a sleeping
 * thread costs tens of microseconds, and an MHA run is six batches (in_proj,
 * each head, out_proj), so threads and the caller spin briefly on the batch
 * counter before they sleep, as OpenMP runtimes do. The spinning reads use
 * GCC's __atomic builtins on plain fields, so that C++ can include the header. */
#include "pthread_pool.h"

#include <stddef.h>

/* About 50 microseconds of polling before sleeping. */
#define EA_PTHREAD_POOL_SPINS 20000

static void CpuRelax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Claims and runs tasks of the current batch until none is left. Called with
 * the mutex held; returns with it held. */
static void RunClaimedTasks(ea_pthread_pool* pool, int32_t worker) {
  while (pool->next_task < pool->n_tasks) {
    const int32_t task = pool->next_task++;
    pthread_mutex_unlock(&pool->mutex);
    pool->task(pool->task_context, task, worker);
    pthread_mutex_lock(&pool->mutex);
  }
}

static void* WorkerMain(void* opaque) {
  const ea_pthread_thread_start* arg = (const ea_pthread_thread_start*)opaque;
  ea_pthread_pool* pool = arg->pool;
  const int32_t worker = arg->worker;
  uint64_t seen = 0;
  for (;;) {
    for (int spin = 0; spin < EA_PTHREAD_POOL_SPINS; ++spin) {
      if (__atomic_load_n(&pool->batch, __ATOMIC_ACQUIRE) != seen ||
          __atomic_load_n(&pool->stop, __ATOMIC_ACQUIRE)) {
        break;
      }
      CpuRelax();
    }
    pthread_mutex_lock(&pool->mutex);
    while (!pool->stop && pool->batch == seen) pthread_cond_wait(&pool->wake, &pool->mutex);
    if (pool->stop) break;
    seen = pool->batch;
    RunClaimedTasks(pool, worker);
    if (__atomic_sub_fetch(&pool->running, 1, __ATOMIC_ACQ_REL) == 0) {
      pthread_cond_signal(&pool->finished);
    }
    pthread_mutex_unlock(&pool->mutex);
  }
  pthread_mutex_unlock(&pool->mutex);
  return NULL;
}

int ea_pthread_pool_start(ea_pthread_pool* pool, int32_t workers) {
  if (pool == NULL || workers < 1 || workers > EA_PTHREAD_POOL_MAX_WORKERS) return -1;
  pool->workers = 1;
  pool->batch = 0;
  pool->running = 0;
  pool->stop = 0;
  pool->n_tasks = 0;
  pool->next_task = 0;
  pthread_mutex_init(&pool->mutex, NULL);
  pthread_cond_init(&pool->wake, NULL);
  pthread_cond_init(&pool->finished, NULL);
  for (int32_t w = 1; w < workers; ++w) {
    pool->starts[w].pool = pool;
    pool->starts[w].worker = w;
    if (pthread_create(&pool->threads[w], NULL, WorkerMain, &pool->starts[w]) != 0) {
      ea_pthread_pool_stop(pool);
      return -1;
    }
    pool->workers = w + 1;
  }
  return 0;
}

void ea_pthread_pool_stop(ea_pthread_pool* pool) {
  pthread_mutex_lock(&pool->mutex);
  __atomic_store_n(&pool->stop, 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mutex);
  for (int32_t w = 1; w < pool->workers; ++w) pthread_join(pool->threads[w], NULL);
  pthread_cond_destroy(&pool->finished);
  pthread_cond_destroy(&pool->wake);
  pthread_mutex_destroy(&pool->mutex);
  pool->workers = 1;
}

void ea_pthread_pool_run(void* context, int32_t n_tasks, ea_task_fn task, void* task_context) {
  ea_pthread_pool* pool = (ea_pthread_pool*)context;
  pthread_mutex_lock(&pool->mutex);
  pool->task = task;
  pool->task_context = task_context;
  pool->n_tasks = n_tasks;
  pool->next_task = 0;
  __atomic_store_n(&pool->running, pool->workers - 1, __ATOMIC_RELEASE);
  __atomic_add_fetch(&pool->batch, 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&pool->wake);
  RunClaimedTasks(pool, 0); /* the caller is worker 0 */
  pthread_mutex_unlock(&pool->mutex);
  for (int spin = 0; spin < EA_PTHREAD_POOL_SPINS; ++spin) {
    if (__atomic_load_n(&pool->running, __ATOMIC_ACQUIRE) == 0) break;
    CpuRelax();
  }
  pthread_mutex_lock(&pool->mutex);
  while (pool->running > 0) pthread_cond_wait(&pool->finished, &pool->mutex);
  pthread_mutex_unlock(&pool->mutex);
}

ea_parallel_for ea_pthread_pool_hook(ea_pthread_pool* pool) {
  ea_parallel_for hook;
  hook.run = ea_pthread_pool_run;
  hook.context = pool;
  hook.max_workers = pool->workers;
  return hook;
}
