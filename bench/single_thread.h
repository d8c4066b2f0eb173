// Every library in the benchmark runs on one thread. Eigen is built without OpenMP, and edgeattn
// never starts threads, but Debian's libdnnl (2.6) runs its primitives on OpenMP (libgomp,
// DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP) and would use every core. libgomp reads OMP_NUM_THREADS
// when it loads, before main, so the limit is set through the OpenMP API instead, before
// oneDNN's first primitive; the thread count of the process then proves it held.
#ifndef EDGEATTN_BENCH_SINGLE_THREAD_H_
#define EDGEATTN_BENCH_SINGLE_THREAD_H_

namespace edgeattn_bench {

// omp_set_num_threads(1) for the calling (main) thread, from which every primitive runs.
// Returns omp_get_max_threads() afterwards: 1.
int LimitOpenMpToOneThread();

// omp_get_max_threads() of the calling thread, without changing it: still 1 on the main thread
// after the pool's threads started and every library ran.
int OpenMpMaxThreads();

// The process's thread count (Threads: in /proc/self/status), or -1 where that is unknown.
// libgomp keeps the workers of its first parallel region alive, so 1 after oneDNN has run
// every shape means oneDNN never ran on a second thread.
int ProcessThreadCount();

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_SINGLE_THREAD_H_
