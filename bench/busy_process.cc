// The spinning child process of the busy rows (see busy_process.h).
#include "busy_process.h"

#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace edgeattn_bench {
namespace {

// The child: only async-signal-safe calls after fork (the bench has other threads).
[[noreturn]] void Spin(pid_t parent, int ready_fd) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(0);  // the bench died before the line above
  const char byte = 1;
  if (write(ready_fd, &byte, 1) != 1) _exit(1);
  close(ready_fd);
  uint64_t x = 1;
  for (;;) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    __asm__ volatile("" : "+r"(x));
  }
}

}  // namespace

BusyProcess::BusyProcess() {
  int ready[2];
  if (pipe(ready) != 0) return;
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    close(ready[0]);
    Spin(parent, ready[1]);
  }
  close(ready[1]);
  char byte = 0;
  if (pid > 0 && read(ready[0], &byte, 1) == 1) {
    pid_ = pid;
  } else if (pid > 0) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  close(ready[0]);
}

BusyProcess::~BusyProcess() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
}

}  // namespace edgeattn_bench
