// Wall-clock timing for hosted (Linux) programs: the demo and benchmarks.
// Firmware supplies its own cycle counter; the library itself never times.
#ifndef EDGEATTN_PLATFORM_HOSTED_MONOTONIC_CLOCK_H_
#define EDGEATTN_PLATFORM_HOSTED_MONOTONIC_CLOCK_H_

#include <time.h>

// Seconds from an arbitrary fixed point, unaffected by clock adjustments.
static inline double MonotonicSeconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

#endif  // EDGEATTN_PLATFORM_HOSTED_MONOTONIC_CLOCK_H_
