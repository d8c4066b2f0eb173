#!/bin/bash
# Sourced by matrix.sh and footprint.sh: whether this CPU can run a static
# host target's binaries. host-avx512 is built with -march=skylake-avx512,
# and CI machines of this kind may have AVX2 only (AMD Zen 3): there its
# binaries die of SIGILL, which says nothing about the library.
# Prints nothing and succeeds when it can; prints the reason and fails when not.
host_cpu_runs_target() {
  case "$1" in
    host-avx512)
      if ! grep -qw avx512bw /proc/cpuinfo 2>/dev/null; then
        echo "no AVX-512 on this CPU"
        return 1
      fi
      ;;
  esac
  return 0
}
