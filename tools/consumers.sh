#!/bin/sh
# make consumers: builds and runs the projects in tests/consumers/ the way
# users consume edgeattn, so that a broken install, package file or CMake
# export fails CI instead of a newcomer's first build:
#   host:      CMake top-level build + ctest + install, find_package against
#              that prefix, add_subdirectory, pkg-config after `make install`,
#              and the archive of `make` linked by its path;
#   aarch64:   add_subdirectory with toolchains/cmake/aarch64-neon.cmake, and the
#              archive of `make TARGET=aarch64-neon`, -static under qemu-aarch64;
#   Cortex-M4: the same with toolchains/cmake/cortex-m4.cmake and
#              `make TARGET=cortex-m4`, with platform/cortex-m/'s start-up code and
#              linker script, under qemu-system-arm (mps2-an386).
# Each build + run is one test; ends with "N passed, N failed".
#   consumers.sh [build_root]     (default build; outputs in <build_root>/consumers)
#   consumers.sh --one <name> <build_root>   one test (the loop runs each so)
set -eu
cd "$(dirname "$0")/.."
repo=$(pwd)
JOBS=$(nproc 2>/dev/null || echo 2)
# Each make below gets its own arguments, not those of a calling make.
unset MAKEFLAGS MFLAGS MAKELEVEL

TESTS="host-cmake-install host-cmake-find-package host-cmake-subdirectory host-pkg-config
host-archive aarch64-cmake-subdirectory aarch64-archive cortex-m4-cmake-subdirectory
cortex-m4-archive"
A64_RUN="qemu-aarch64 -cpu cortex-a72"
M4_RUN="timeout --foreground 120 qemu-system-arm -M mps2-an386 -nographic -semihosting -kernel"

# run_program <command...>: runs a consumer's program (or its `make run`); it
# passes when the command exits 0 and the program printed its PASS line.
run_program() {
  status=0
  "$@" >"$log" 2>&1 || status=$?
  cat "$log"
  [ "$status" -eq 0 ] && grep -q '^PASS' "$log"
}

# cmake_subdirectory <out> [cmake arguments...]: consumer (a), configured afresh.
cmake_subdirectory() {
  out=$1
  shift
  rm -rf "$out"
  cmake -S tests/consumers/cmake-subdirectory -B "$out" -DCMAKE_BUILD_TYPE=Release "$@"
  cmake --build "$out" -j "$JOBS"
}

one() {
  name=$1
  root=$2
  out="$root/consumers/$name"
  log="$out.output"
  case $name in
    host-cmake-install)
      # The top-level build as a newcomer runs it: the test suite is on by default.
      rm -rf "$out" "$root/consumers/host-cmake-prefix"
      cmake -S . -B "$out" -DCMAKE_BUILD_TYPE=Release
      cmake --build "$out" -j "$JOBS"
      (cd "$out" && ctest --output-on-failure)
      # ctest passes a suite of no tests too (a glob that matched nothing did,
      # until 0.26.0): the CMake-built suite must hold the Makefile's cases.
      listed=$("$out/edgeattn_tests" --gtest_list_tests | grep -c '^  ')
      echo "CMake-built suite: $listed tests"
      [ "$listed" -ge 2000 ]
      cmake --install "$out" --prefix "$root/consumers/host-cmake-prefix"
      for file in include/edgeattn/edgeattn.h lib/libedgeattn.a \
        lib/cmake/edgeattn/edgeattnConfig.cmake lib/cmake/edgeattn/edgeattnConfigVersion.cmake; do
        test -f "$root/consumers/host-cmake-prefix/$file"
      done
      ;;
    host-cmake-find-package)
      # The release this tree is (the header's MAJOR.MINOR) must be found...
      header=include/edgeattn/common.h
      major=$(sed -n 's/^#define EDGEATTN_VERSION_MAJOR \([0-9][0-9]*\).*$/\1/p' "$header")
      minor=$(sed -n 's/^#define EDGEATTN_VERSION_MINOR \([0-9][0-9]*\).*$/\1/p' "$header")
      # ...and, 0.x being SameMinorVersion, a request for the previous minor
      # refused (a newer package would accept it under AnyNewerVersion).
      if [ "$minor" -gt 0 ]; then
        rm -rf "$out"
        if cmake -S tests/consumers/cmake-find-package -B "$out" -DCMAKE_BUILD_TYPE=Release \
          -DCMAKE_PREFIX_PATH="$root/consumers/host-cmake-prefix" \
          -DEDGEATTN_REQUIRED_VERSION="$major.$((minor - 1))"; then
          echo "find_package accepted $major.$((minor - 1)) for release $major.$minor" >&2
          exit 1
        fi
      fi
      rm -rf "$out"
      cmake -S tests/consumers/cmake-find-package -B "$out" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$root/consumers/host-cmake-prefix" \
        -DEDGEATTN_REQUIRED_VERSION="$major.$minor"
      cmake --build "$out" -j "$JOBS"
      run_program "$out/attention_check"
      ;;
    host-cmake-subdirectory)
      cmake_subdirectory "$out"
      run_program "$out/attention_check"
      ;;
    host-pkg-config)
      prefix="$root/consumers/host-prefix"
      rm -rf "$out" "$prefix"
      make --no-print-directory -j "$JOBS" BUILD_ROOT="$root" PREFIX="$prefix" install
      PKG_CONFIG_PATH="$prefix/lib/pkgconfig" run_program make --no-print-directory \
        -C tests/consumers/pkg-config OUT="$out" run
      ;;
    host-archive)
      rm -rf "$out"
      make --no-print-directory -j "$JOBS" BUILD_ROOT="$root" lib
      run_program make --no-print-directory -C tests/consumers/archive EDGEATTN="$repo" \
        ARCHIVE="$root/host/libedgeattn.a" OUT="$out" LDLIBS="-lhwy -lm" run
      ;;
    aarch64-cmake-subdirectory)
      cmake_subdirectory "$out" -DCMAKE_TOOLCHAIN_FILE="$repo/toolchains/cmake/aarch64-neon.cmake" \
        -DCMAKE_EXE_LINKER_FLAGS=-static
      # shellcheck disable=SC2086  # $A64_RUN is a command with arguments
      run_program $A64_RUN "$out/attention_check"
      ;;
    aarch64-archive)
      rm -rf "$out"
      make --no-print-directory -j "$JOBS" BUILD_ROOT="$root" TARGET=aarch64-neon lib
      run_program make --no-print-directory -C tests/consumers/archive EDGEATTN="$repo" \
        ARCHIVE="$root/aarch64-neon/libedgeattn.a" OUT="$out" CC=aarch64-linux-gnu-gcc \
        CPU_FLAGS=-march=armv8-a LDFLAGS=-static RUN="$A64_RUN" run
      ;;
    cortex-m4-cmake-subdirectory)
      cmake_subdirectory "$out" -DCMAKE_TOOLCHAIN_FILE="$repo/toolchains/cmake/cortex-m4.cmake"
      # shellcheck disable=SC2086  # $M4_RUN is a command with arguments
      run_program $M4_RUN "$out/attention_check"
      ;;
    cortex-m4-archive)
      rm -rf "$out"
      make --no-print-directory -j "$JOBS" BUILD_ROOT="$root" TARGET=cortex-m4 lib
      run_program make --no-print-directory -C tests/consumers/archive EDGEATTN="$repo" \
        ARCHIVE="$root/cortex-m4/libedgeattn.a" OUT="$out" BOARD=an386 run
      ;;
    *)
      echo "consumers.sh: unknown test $name" >&2
      exit 2
      ;;
  esac
}

if [ "${1:-}" = "--one" ]; then
  one "$2" "$3"
  exit
fi

mkdir -p "${1:-build}/consumers"
root=$(cd "${1:-build}" && pwd)
sh tools/install_deps.sh make cmake pkg-config g++ libhwy-dev libgtest-dev \
  g++-aarch64-linux-gnu qemu-user gcc-arm-none-eabi libnewlib-arm-none-eabi \
  libstdc++-arm-none-eabi-newlib qemu-system-arm

passed=0
failed=0
for name in $TESTS; do
  start=$(date +%s)
  if sh "$0" --one "$name" "$root" >"$root/consumers/$name.log" 2>&1; then
    passed=$((passed + 1))
    result="[       OK ]"
  else
    failed=$((failed + 1))
    result="[  FAILED  ]"
    tail -n 30 "$root/consumers/$name.log"
  fi
  echo "$result consumers: $name ($(($(date +%s) - start)) s, log $root/consumers/$name.log)"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
