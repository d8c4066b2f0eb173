// The busy core of the `_busy` rows (f32_busy/..., f32_busy_2workers/...): another process
// that keeps one core busy while edgeattn runs, as other applications do on a phone or a board.
// It is a child process spinning on integer arithmetic (no memory traffic), at the bench's
// own priority (nice value inherited), not pinned to a core, in the bench's session (so it
// shares the bench's autogroup, and the scheduler weighs it as one more thread beside the
// bench's: the case without autogroup, as on Android, and the harder one). The scheduler then
// has three runnable threads for two cores in a 2-worker row, and two in a 1-worker row.
// Started before a row's untimed warm-up call, killed (SIGKILL) when the row's function
// returns; the child also dies with the bench (PR_SET_PDEATHSIG), so no spinner outlives it.
#ifndef EDGEATTN_BENCH_BUSY_PROCESS_H_
#define EDGEATTN_BENCH_BUSY_PROCESS_H_

#include <sys/types.h>

namespace edgeattn_bench {

class BusyProcess {
 public:
  // Forks the spinner and returns once it has run (it writes a byte to a pipe first).
  BusyProcess();
  ~BusyProcess();
  BusyProcess(const BusyProcess&) = delete;
  BusyProcess& operator=(const BusyProcess&) = delete;

  bool started() const { return pid_ > 0; }

 private:
  pid_t pid_ = -1;
};

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_BUSY_PROCESS_H_
