/* See pthread_pool.h. A batch, from the caller's side: publish the task and
 * the batch number, wake the threads that sleep, take tasks until none is
 * left, then wait until the tasks other threads took have finished. From a
 * pool thread's side: wait for a batch number it has not seen, take tasks
 * until none is left, wait again. Nobody waits for a thread to arrive. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, sched_yield under -std=c11 */

#include "pthread_pool.h"

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <time.h>

static uint32_t BatchOf(uint64_t claim) { return (uint32_t)(claim >> 32); }

static int64_t NowNs(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static void SemWait(sem_t* sem) {
  while (sem_wait(sem) != 0 && errno == EINTR) {
  }
}

/* Thread `who` sleeps until someone clears its flag, unless `still_waiting`
 * turned false after the flag was set (the sequentially consistent flag
 * store and condition load pair with Wake's condition store and flag
 * exchange: one of the two sees the other). May return early: callers
 * check their condition again. */
static void SleepUntilWoken(ea_pthread_pool* pool, int32_t who,
                            int (*still_waiting)(ea_pthread_pool*, uint32_t), uint32_t arg) {
  __atomic_store_n(&pool->sleeping[who], 1, __ATOMIC_SEQ_CST);
  if (still_waiting(pool, arg) || !__atomic_exchange_n(&pool->sleeping[who], 0, __ATOMIC_SEQ_CST)) {
    SemWait(&pool->wake[who]); /* a post has come or is on its way */
  }
}

static void Wake(ea_pthread_pool* pool, int32_t who) {
  if (__atomic_exchange_n(&pool->sleeping[who], 0, __ATOMIC_SEQ_CST)) sem_post(&pool->wake[who]);
}

/* Polls still_waiting for up to EA_PTHREAD_POOL_SPIN_NS, yielding the core
 * between polls, then sleeps, until it turns false. */
static void WaitWhile(ea_pthread_pool* pool, int32_t who,
                      int (*still_waiting)(ea_pthread_pool*, uint32_t), uint32_t arg) {
  const int64_t deadline = NowNs() + EA_PTHREAD_POOL_SPIN_NS;
  while (still_waiting(pool, arg)) {
    if (NowNs() < deadline) {
      sched_yield();
    } else {
      SleepUntilWoken(pool, who, still_waiting, arg);
    }
  }
}

static int NoNewBatch(ea_pthread_pool* pool, uint32_t seen) {
  return BatchOf(__atomic_load_n(&pool->claim, __ATOMIC_SEQ_CST)) == seen &&
         !__atomic_load_n(&pool->stop, __ATOMIC_SEQ_CST);
}

static int TasksUnfinished(ea_pthread_pool* pool, uint32_t unused) {
  (void)unused;
  return __atomic_load_n(&pool->unfinished, __ATOMIC_SEQ_CST) != 0;
}

/* Takes and runs tasks of batch `batch` until none is left. The batch's
 * fields are read after a successful claim: the batch cannot end, and the
 * caller cannot replace them, before that task has finished. */
static void RunTasks(ea_pthread_pool* pool, uint32_t batch, int32_t worker) {
  uint64_t claim = __atomic_load_n(&pool->claim, __ATOMIC_ACQUIRE);
  for (;;) {
    if (BatchOf(claim) != batch || (uint32_t)claim == 0) return;
    if (!__atomic_compare_exchange_n(&pool->claim, &claim, claim - 1, 1, __ATOMIC_ACQUIRE,
                                     __ATOMIC_ACQUIRE)) {
      continue; /* claim now holds the current value */
    }
    pool->task(pool->task_context, pool->n_tasks - (int32_t)(uint32_t)claim, worker);
    if (__atomic_sub_fetch(&pool->unfinished, 1, __ATOMIC_SEQ_CST) == 0) Wake(pool, 0);
    claim = __atomic_load_n(&pool->claim, __ATOMIC_ACQUIRE);
  }
}

static void* WorkerMain(void* opaque) {
  const ea_pthread_thread_start* arg = (const ea_pthread_thread_start*)opaque;
  ea_pthread_pool* pool = arg->pool;
  uint32_t seen = 0;
  for (;;) {
    WaitWhile(pool, arg->worker, NoNewBatch, seen);
    if (__atomic_load_n(&pool->stop, __ATOMIC_ACQUIRE)) return NULL;
    seen = BatchOf(__atomic_load_n(&pool->claim, __ATOMIC_ACQUIRE));
    RunTasks(pool, seen, arg->worker);
  }
}

int ea_pthread_pool_start(ea_pthread_pool* pool, int32_t workers) {
  if (pool == NULL || workers < 1 || workers > EA_PTHREAD_POOL_MAX_WORKERS) return -1;
  pool->workers = 1;
  pool->claim = 0;
  pool->n_tasks = 0;
  pool->unfinished = 0;
  pool->stop = 0;
  for (int32_t w = 0; w < workers; ++w) {
    pool->sleeping[w] = 0;
    if (sem_init(&pool->wake[w], 0, 0) != 0) {
      while (w-- > 0) sem_destroy(&pool->wake[w]);
      return -1;
    }
  }
  for (int32_t w = 1; w < workers; ++w) {
    pool->starts[w].pool = pool;
    pool->starts[w].worker = w;
    if (pthread_create(&pool->threads[w], NULL, WorkerMain, &pool->starts[w]) != 0) {
      for (int32_t s = w; s < workers; ++s) sem_destroy(&pool->wake[s]);
      ea_pthread_pool_stop(pool); /* the threads started so far, semaphores [0, w) */
      return -1;
    }
    pool->workers = w + 1;
  }
  return 0;
}

/* Once per successful start. */
void ea_pthread_pool_stop(ea_pthread_pool* pool) {
  __atomic_store_n(&pool->stop, 1, __ATOMIC_SEQ_CST);
  for (int32_t w = 1; w < pool->workers; ++w) Wake(pool, w);
  for (int32_t w = 1; w < pool->workers; ++w) pthread_join(pool->threads[w], NULL);
  for (int32_t w = 0; w < pool->workers; ++w) sem_destroy(&pool->wake[w]);
  pool->workers = 1;
}

void ea_pthread_pool_run(void* context, int32_t n_tasks, ea_task_fn task, void* task_context) {
  ea_pthread_pool* pool = (ea_pthread_pool*)context;
  if (n_tasks <= 0) return;
  /* Only the caller changes the batch number. */
  const uint32_t batch = BatchOf(__atomic_load_n(&pool->claim, __ATOMIC_RELAXED)) + 1;
  pool->task = task;
  pool->task_context = task_context;
  pool->n_tasks = n_tasks;
  __atomic_store_n(&pool->unfinished, n_tasks, __ATOMIC_RELAXED);
  __atomic_store_n(&pool->claim, ((uint64_t)batch << 32) | (uint32_t)n_tasks, __ATOMIC_SEQ_CST);
  for (int32_t w = 1; w < pool->workers; ++w) Wake(pool, w);
  RunTasks(pool, batch, 0); /* the caller is worker 0 */
  WaitWhile(pool, 0, TasksUnfinished, 0);
}

ea_parallel_for ea_pthread_pool_hook(ea_pthread_pool* pool) {
  ea_parallel_for hook;
  hook.run = ea_pthread_pool_run;
  hook.context = pool;
  hook.max_workers = pool->workers;
  return hook;
}
