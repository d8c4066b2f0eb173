// OpenMP thread limit and the process thread count (see single_thread.h).
#include "single_thread.h"

#include <omp.h>
#include <stdio.h>

namespace edgeattn_bench {

int LimitOpenMpToOneThread() {
  omp_set_num_threads(1);
  return omp_get_max_threads();
}

int OpenMpMaxThreads() { return omp_get_max_threads(); }

int ProcessThreadCount() {
  FILE* status = fopen("/proc/self/status", "r");
  if (status == nullptr) return -1;
  int threads = -1;
  char line[256];
  while (fgets(line, sizeof line, status) != nullptr) {
    if (sscanf(line, "Threads: %d", &threads) == 1) break;
  }
  fclose(status);
  return threads;
}

}  // namespace edgeattn_bench
