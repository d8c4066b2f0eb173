#!/bin/sh
# Runs every test binary, then the static archive's link checks, and ends with
# one line "N passed, N failed" summing them all (CI reads that line).
#   run_suites.sh "<emulator or empty>" <nm> <libedgeattn.a> <test binaries...>
run="$1"
nm_tool="$2"
archive="$3"
shift 3
passed=0
failed=0
skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# TEST_SHARDS > 1 (native runs only: Makefile sets it to the core count where
# no emulator runs the binaries) splits each binary's tests into that many
# gtest shards run side by side; every test still runs once.
shards=${TEST_SHARDS:-1}
[ -n "$run" ] && shards=1

for binary in "$@"; do
  echo "=== $binary"
  if [ "$shards" -gt 1 ]; then
    pids=""
    i=0
    while [ "$i" -lt "$shards" ]; do
      GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "$binary" >"$log.$i" 2>&1 &
      pids="$pids $!"
      i=$((i + 1))
    done
    status=0
    for pid in $pids; do
      wait "$pid" || status=$?
    done
    i=0
    : >"$log"
    while [ "$i" -lt "$shards" ]; do
      cat "$log.$i" >>"$log"
      rm -f "$log.$i"
      i=$((i + 1))
    done
  else
    # shellcheck disable=SC2086  # $run may be empty or a command with arguments
    $run "$binary" >"$log" 2>&1
    status=$?
  fi
  cat "$log"
  ok=$(grep -c '^\[       OK \]' "$log")
  bad=$(grep -cE '^\[  FAILED  \] .*\([0-9]+ ms\)$' "$log")
  skip=$(grep -cE '^\[  SKIPPED \] .*\([0-9]+ ms\)$' "$log")
  if [ "$status" -ne 0 ] && [ "$bad" -eq 0 ]; then
    echo "*** $binary exited with status $status without a failed test: counted as a failure"
    bad=1
  fi
  passed=$((passed + ok))
  failed=$((failed + bad))
  skipped=$((skipped + skip))
done

# Script checks (SCRIPT_CHECKS, one command; host only): their own summary
# line's counts, or one failure when they end without one.
if [ -n "${SCRIPT_CHECKS:-}" ]; then
  echo "=== $SCRIPT_CHECKS"
  # shellcheck disable=SC2086  # a command with arguments
  $SCRIPT_CHECKS >"$log" 2>&1
  status=$?
  cat "$log"
  summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  if [ -n "$summary" ]; then
    passed=$((passed + $(echo "$summary" | awk '{print $1}')))
    failed=$((failed + $(echo "$summary" | awk '{print $3}')))
  fi
  if [ "$status" -ne 0 ] && { [ -z "$summary" ] || [ "$(echo "$summary" | awk '{print $3}')" -eq 0 ]; }; then
    failed=$((failed + 1))
  fi
fi

# The archive must not pull in a heap, exceptions or RTTI (firmware links it).
check_absent() {
  name="$1"
  pattern="$2"
  found=$($nm_tool -u "$archive" 2>/dev/null | awk '{print $NF}' | grep -E "$pattern" | sort -u)
  if [ -z "$found" ]; then
    echo "[       OK ] archive: no $name references"
    passed=$((passed + 1))
  else
    echo "[  FAILED  ] archive: references $name:" $found
    failed=$((failed + 1))
  fi
}
echo "=== link checks on $archive"
check_absent "heap" '^(malloc|calloc|realloc|free|aligned_alloc|posix_memalign|memalign|_Zn[wa].*|_Zd[la].*)$'
check_absent "exception or RTTI" '^(__cxa_throw|__cxa_allocate_exception|__cxa_begin_catch|__gxx_personality_v0|_ZTI.*|__cxa_guard_acquire)$'

# The KV-cache decode kernels prefetch their records (PrefetchRecord in
# src/kv_cache/decode_attention-inl.h) on every target but SCALAR
# (DECODE_PREFETCHES=no): GCC once deleted the prefetches without a word,
# halving the quantized caches' speed at DRAM sizes, and no test of results
# can see that.
if [ "${DECODE_PREFETCHES:-yes}" = yes ]; then
  objdump_tool=$(echo "$nm_tool" | sed 's/nm$/objdump/')
  member=$(mktemp)
  for kernel in decode_attention_f32.o decode_attention_s8.o; do
    ar p "$archive" "$kernel" >"$member"
    if $objdump_tool -d "$member" | grep -qE '[[:space:]](prefetcht0|prfm|pld)[[:space:]]'; then
      echo "[       OK ] archive: $kernel prefetches"
      passed=$((passed + 1))
    else
      echo "[  FAILED  ] archive: $kernel has no prefetch instruction"
      failed=$((failed + 1))
    fi
  done
  rm -f "$member"
fi

if [ "$skipped" -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
