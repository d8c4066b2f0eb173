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
rm -f build/matrix/*.result

# One spec: its log, and a result file of five fields separated by '|':
# kind (ran, skipped, failed_build), passed, failed, digest, table row.
run_spec() {
  local spec=$1 target=${1%%:*} bits="" start=$SECONDS
  [ "$spec" != "$target" ] && bits=${spec#*:}
  local name="${target}${bits:+-$bits}"
  local log="build/matrix/$name.log" result="build/matrix/$name.result"
  local skip_reason status
  # A target this CPU cannot run is still built, to prove that it compiles.
  if ! skip_reason=$(host_cpu_runs_target "$target"); then
    make --no-print-directory -j2 TARGET="$target" lib >"$log" 2>&1
    status=$?
    local built kind
    built=$([ "$status" -eq 0 ] && echo "library built" || echo "library build FAILED")
    kind=$([ "$status" -eq 0 ] && echo skipped || echo failed_build)
    printf '%s|0|0|none|%s\n' "$kind" "$(printf '%-20s skipped: %s (%s)  %4ss' "$spec" \
      "$skip_reason" "$built" "$((SECONDS - start))")" >"$result"
    echo "matrix: $spec: skipped, $skip_reason; $built ($log)"
    return
  fi
  make --no-print-directory -j2 TARGET="$target" ${bits:+SVE_BITS=$bits} TEST_SHARDS=1 test-run \
    >"$log" 2>&1
  status=$?
  local summary passed failed digest_line simd vbits digest forced
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
  printf 'ran|%s|%s|%s|%s\n' "$passed" "$failed" "${digest:-none}" \
    "$(printf '%-20s %-36s %6s %7s %7s  %-16s %4ss' "$spec" "${simd:-?}" "${vbits:-?}" \
      "$passed" "$failed" "${digest:-none}" "$((SECONDS - start))")" >"$result"
  echo "matrix: $spec: $passed passed, $failed failed, digest ${digest:-none} ($log)"
}

# Packages first, one target at a time (apt-get takes a lock).
declare -A seen_target
for spec in "${specs[@]}"; do
  target=${spec%%:*}
  [ -n "${seen_target[$target]:-}" ] && continue
  seen_target[$target]=1
  make --no-print-directory TARGET="$target" deps >"build/matrix/deps-$target.log" 2>&1 ||
    echo "matrix: $target: installing its packages failed (build/matrix/deps-$target.log)"
done

# Two lanes, one per core: the suites run single-threaded under qemu, so a
# lane's run leaves the other core to the other lane (a CI machine has 2
# cores and 90 minutes; one lane took 57 of them on a Zen 3). Specs that
# share a build folder (the SVE lengths of one target) stay in one lane,
# built once; targets go to the lane with fewer specs so far.
lanes=("" "")
lane_size=(0 0)
declare -A target_lane
for spec in "${specs[@]}"; do
  target=${spec%%:*}
  if [ -z "${target_lane[$target]:-}" ]; then
    target_lane[$target]=$([ "${lane_size[0]}" -le "${lane_size[1]}" ] && echo 0 || echo 1)
  fi
  lane=${target_lane[$target]}
  lanes[lane]+="$spec "
  lane_size[lane]=$((lane_size[lane] + 1))
done
for lane in 0 1; do
  (for spec in ${lanes[lane]}; do run_spec "$spec"; done) &
done
wait

rows=()
digests=()
total_passed=0
total_failed=0
total_skipped=0
for spec in "${specs[@]}"; do
  target=${spec%%:*}
  bits=""
  [ "$spec" != "$target" ] && bits=${spec#*:}
  result="build/matrix/${target}${bits:+-$bits}.result"
  if [ ! -f "$result" ]; then
    rows+=("$(printf '%-20s no result' "$spec")")
    total_failed=$((total_failed + 1))
    continue
  fi
  IFS='|' read -r kind passed failed digest row <"$result"
  rows+=("$row")
  case "$kind" in
    skipped) total_skipped=$((total_skipped + 1)) ;;
    failed_build) total_failed=$((total_failed + 1)) ;;
    *)
      digests+=("$digest")
      total_passed=$((total_passed + passed))
      total_failed=$((total_failed + failed))
      ;;
  esac
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
