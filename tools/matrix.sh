#!/bin/bash
# make matrix: builds and runs the test suite of every target (SVE at every
# vector length), prints one table, and fails on any test failure or on any
# difference in the cross-target digest (tests/digest_test.cc).
# Usage: tools/matrix.sh [target[:sve_bits] ...]   (default: all of them)
set -u
cd "$(dirname "$0")/.."
# shellcheck source=tools/host_cpu.sh
. tools/host_cpu.sh

SVE_LENGTHS="128 256 512 1024 2048"
if [ $# -gt 0 ]; then
  specs=("$@")
else
  specs=(host host-scalar host-avx2 host-avx512 aarch64-neon aarch64-dotprod)
  for bits in $SVE_LENGTHS; do specs+=("aarch64-sve:$bits"); done
  for bits in $SVE_LENGTHS; do specs+=("aarch64-sve2:$bits"); done
  specs+=(armhf-neon cortex-m4 cortex-m7 cortex-m55)
fi

mkdir -p build/matrix
rows=()
digests=()
total_passed=0
total_failed=0
total_skipped=0
for spec in "${specs[@]}"; do
  target=${spec%%:*}
  bits=""
  [ "$spec" != "$target" ] && bits=${spec#*:}
  log="build/matrix/${target}${bits:+-$bits}.log"
  start=$SECONDS
  # A target this CPU cannot run is still built, to prove that it compiles.
  if ! skip_reason=$(host_cpu_runs_target "$target"); then
    make --no-print-directory TARGET="$target" deps >"$log" 2>&1 &&
      make --no-print-directory -j2 TARGET="$target" lib >>"$log" 2>&1
    status=$?
    built=$([ "$status" -eq 0 ] && echo "library built" || echo "library build FAILED")
    rows+=("$(printf '%-20s skipped: %s (%s)  %4ss' "$spec" "$skip_reason" "$built" \
      "$((SECONDS - start))")")
    if [ "$status" -ne 0 ]; then
      total_failed=$((total_failed + 1))
    else
      total_skipped=$((total_skipped + 1))
    fi
    echo "matrix: $spec: skipped, $skip_reason; $built ($log)"
    continue
  fi
  make --no-print-directory TARGET="$target" deps >"$log" 2>&1 &&
    make --no-print-directory -j2 TARGET="$target" ${bits:+SVE_BITS=$bits} test-run >>"$log" 2>&1
  status=$?
  summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  passed=$(echo "${summary:-0 passed, 1 failed}" | awk '{print $1}')
  failed=$(echo "${summary:-0 passed, 1 failed}" | awk '{print $3}')
  [ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
  digest_line=$(grep -m1 '^\[  DIGEST  \]' "$log")
  simd=$(echo "$digest_line" | sed -n 's/.*target=\([^ ]*\).*/\1/p')
  vbits=$(echo "$digest_line" | sed -n 's/.*vector_bits=\([0-9]*\).*/\1/p')
  digest=$(echo "$digest_line" | sed -n 's/.*digest=\([0-9a-f]*\).*/\1/p')
  # The dynamic host build forces every target: list them all.
  forced=$(grep -oE '^\[       OK \] Targets/[^ ]*/[A-Z0-9_]+ ' "$log" | sed 's/.*\///; s/ $//' |
    sort -u | paste -sd, -)
  [ -n "$forced" ] && [ "$forced" != "$simd" ] && simd="$forced"
  rows+=("$(printf '%-20s %-36s %6s %7s %7s  %-16s %4ss' "$spec" "${simd:-?}" "${vbits:-?}" \
    "$passed" "$failed" "${digest:-none}" "$((SECONDS - start))")")
  digests+=("${digest:-none}")
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  echo "matrix: $spec: $passed passed, $failed failed, digest ${digest:-none} ($log)"
done

echo
printf '%-20s %-36s %6s %7s %7s  %-16s %5s\n' target "Highway target(s)" bits passed failed \
  digest time
for row in "${rows[@]}"; do echo "$row"; done

reference=${digests[0]:-none}
mismatch=0
for d in "${digests[@]}"; do [ "$d" != "$reference" ] && mismatch=1; done
if [ "${#digests[@]}" -eq 0 ]; then
  echo "[  SKIPPED ] matrix: no target ran, no digest to compare"
elif [ "$mismatch" -ne 0 ]; then
  echo "[  FAILED  ] matrix: digests differ between targets"
  total_failed=$((total_failed + 1))
else
  echo "[       OK ] matrix: every target printed digest $reference"
  total_passed=$((total_passed + 1))
fi
skipped_note=""
[ "$total_skipped" -gt 0 ] && skipped_note=", $total_skipped skipped"
echo "$total_passed passed, $total_failed failed$skipped_note"
[ "$total_failed" -eq 0 ]
