#include "runtime/parallel_for.h"

namespace edgeattn {

ea_status ValidateParallelFor(const ea_parallel_for& parallel) {
  if (parallel.max_workers < 0 || parallel.max_workers > EA_MAX_WORKERS) {
    return EA_ERR_BAD_ARGUMENT;
  }
  if (parallel.max_workers > 1 && parallel.run == nullptr) return EA_ERR_NULL_POINTER;
  return EA_OK;
}

int32_t WorkerCount(const ea_parallel_for& parallel) {
  return parallel.max_workers > 1 ? parallel.max_workers : 1;
}

}  // namespace edgeattn
