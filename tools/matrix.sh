#!/bin/bash
# make matrix: builds and runs the test suite of every target (SVE and SVE2 at
# every vector length), prints one table, and fails on any test failure or on
# any difference in the cross-target digest (tests/contract/digest_test.cc).
# Usage: tools/matrix.sh [spec ...]   (default: all of them), a spec being
#   target                  the whole suite
#   target:bits             the whole suite at an SVE vector length
#   target:bits:index/count gtest shard `index` of `count` at that length, then
#                           the digest test (which every spec prints)
#   target=filter           the tests a gtest filter names, then the digest test
#
# What runs where (CI has 2 cores and an hour; building a suite costs more
# than running it, so a spec is worth its build): the dynamic host build
# (every x86 Highway target forced in turn), the static AVX-512 build,
# NEON, armv7 and Cortex-M run the whole suite. The static AVX2 build
# (host-avx2) is left out (named, it runs): the dynamic host runs AVX2's
# kernels and the AVX-512 build static dispatch on x86; it cost CI 5.5
# minutes of build. host-scalar is not
# run: the dynamic host runs SCALAR and the Cortex-M builds are static SCALAR.
# SVE runs the suite whole at its narrowest and widest vectors (128 and 2048
# bits), and the three lengths between split it into thirds (gtest shards).
# SVE2 differs from SVE in a few integer ops, not in how code meets the
# vector length: it runs one half of the suite at 128 bits and the other at
# 2048. So every test meets every ISA and SVE's extreme widths, each middle
# width a third of the tests, and every spec prints the digest.
# aarch64-dotprod differs from aarch64-neon only in the int8 dot product
# (SDOT), so it runs the fixed-point and int8 KV-cache suites and the digest.
set -u
cd "$(dirname "$0")/.."
# shellcheck source=tools/host_cpu.sh
. tools/host_cpu.sh

# The suites whose results depend on the integer dot-product instructions
# (the int8 KV cache's among them).
FIXED_POINT_TESTS='*Quant*:*FixedPoint*:*Tflite*:*VnniS16*:*ReversalModelTest.TheInt8*:*KvCache*:*Decode*:*AttendRows*'
if [ $# -gt 0 ]; then
  specs=("$@")
else
  specs=(host host-avx512 aarch64-neon "aarch64-dotprod=$FIXED_POINT_TESTS")
  specs+=(aarch64-sve:128 aarch64-sve:2048 aarch64-sve:256:0/3 aarch64-sve:512:1/3
    aarch64-sve:1024:2/3)
  specs+=(aarch64-sve2:128:0/2 aarch64-sve2:2048:1/2)
  specs+=(armhf-neon cortex-m4 cortex-m7 cortex-m55)
fi

mkdir -p build/matrix
rm -f build/matrix/*.result

# A spec's toolchain fragment, and its name in the table and log files.
spec_target() {
  local target=${1%%=*}
  echo "${target%%:*}"
}
spec_name() {
  case "$1" in
    *=*) echo "${1%%=*}-fixed-point" ;;
    *) echo "$1" | sed 's/:/-/; s/:\([0-9]*\)\/\([0-9]*\)$/-shard\1of\2/' ;;
  esac
}

# One spec: its log, and a result file of five fields separated by '|':
# kind (ran, skipped, failed_build), passed, failed, digest, table row.
run_spec() {
  local spec=$1 start=$SECONDS target bits="" shard="" filter=""
  target=$(spec_target "$spec")
  case "$spec" in
    *=*) filter=${spec#*=} ;;
    *:*:*) bits=${spec#*:}; shard=${bits#*:}; bits=${bits%%:*} ;;
    *:*) bits=${spec#*:} ;;
  esac
  local name
  name=$(spec_name "$spec")
  local log="build/matrix/$name.log" result="build/matrix/$name.result"
  local skip_reason status
  # A target this CPU cannot run is still built, to prove that it compiles.
  if ! skip_reason=$(host_cpu_runs_target "$target"); then
    make --no-print-directory -j2 TARGET="$target" lib >"$log" 2>&1
    status=$?
    local built kind
    built=$([ "$status" -eq 0 ] && echo "library built" || echo "library build FAILED")
    kind=$([ "$status" -eq 0 ] && echo skipped || echo failed_build)
    printf '%s|0|0|none|%s\n' "$kind" "$(printf '%-28s skipped: %s (%s)  %4ss' "$name" \
      "$skip_reason" "$built" "$((SECONDS - start))")" >"$result"
    echo "matrix: $spec: skipped, $skip_reason; $built ($log)"
    return
  fi
  # gtest reads its shard and filter from the environment (qemu-user passes it on).
  if [ -n "$shard" ]; then
    GTEST_SHARD_INDEX=${shard%/*} GTEST_TOTAL_SHARDS=${shard#*/} \
      make --no-print-directory -j2 TARGET="$target" ${bits:+SVE_BITS=$bits} TEST_SHARDS=1 \
      test-run >"$log" 2>&1
  elif [ -n "$filter" ]; then
    GTEST_FILTER=$filter make --no-print-directory -j2 TARGET="$target" TEST_SHARDS=1 test-run \
      >"$log" 2>&1
  else
    make --no-print-directory -j2 TARGET="$target" ${bits:+SVE_BITS=$bits} TEST_SHARDS=1 test-run \
      >"$log" 2>&1
  fi
  status=$?
  # A part of the suite may not hold the digest test: it runs alone after it.
  if [ -n "$shard$filter" ]; then
    make --no-print-directory TARGET="$target" ${bits:+SVE_BITS=$bits} digest-run >>"$log" 2>&1 ||
      status=1
  fi
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
    "$(printf '%-28s %-36s %6s %7s %7s  %-16s %4ss' "$name" "${simd:-?}" "${vbits:-?}" \
      "$passed" "$failed" "${digest:-none}" "$((SECONDS - start))")" >"$result"
  echo "matrix: $spec: $passed passed, $failed failed, digest ${digest:-none} ($log)"
}

# Packages first, one target at a time (apt-get takes a lock).
declare -A seen_target
for spec in "${specs[@]}"; do
  target=$(spec_target "$spec")
  [ -n "${seen_target[$target]:-}" ] && continue
  seen_target[$target]=1
  make --no-print-directory TARGET="$target" deps >"build/matrix/deps-$target.log" 2>&1 ||
    echo "matrix: $target: installing its packages failed (build/matrix/deps-$target.log)"
done

# Two lanes, one per core: the suites run single-threaded under qemu, so a
# lane's run leaves the other core to the other lane (a CI machine has 2
# cores and an hour). Specs that share a build folder (the SVE lengths of one
# target) stay in one lane, built once. Targets go, heaviest first, to the
# lane with less work so far, weighed by spec_seconds: each spec's build and
# run seconds in the CI run of 0.30.1 on Zen 5 (2 cores, 9b51280); only
# their ratios matter. A target's first spec carries its build. Under qemu,
# SVE's run time hardly depends on the vector length (2048 bits: 189 s, 128
# bits: 195 s of tests); Cortex-M4 has no double-precision FPU, so the
# references' doubles run in software (446 s of tests, M7 76 s).
spec_seconds() {
  case "$1" in
    host) echo 36 ;;
    host-*) echo 259 ;;
    aarch64-dotprod=*) echo 318 ;;
    aarch64-sve2:128:*) echo 292 ;;
    aarch64-sve2:2048:*) echo 53 ;;
    aarch64-sve:128) echo 478 ;;
    *:2048) echo 192 ;;
    *:*:*) echo 45 ;;
    aarch64-*) echo 357 ;;
    cortex-m4) echo 620 ;;
    cortex-m55) echo 209 ;;
    cortex-m*) echo 236 ;;
    *) echo 340 ;;
  esac
}
declare -A target_seconds target_lane
targets_in_order=()
for spec in "${specs[@]}"; do
  target=$(spec_target "$spec")
  [ -z "${target_seconds[$target]:-}" ] && targets_in_order+=("$target")
  target_seconds[$target]=$((${target_seconds[$target]:-0} + $(spec_seconds "$spec")))
done
lane_seconds=(0 0)
while read -r seconds target; do
  lane=$([ "${lane_seconds[0]}" -le "${lane_seconds[1]}" ] && echo 0 || echo 1)
  target_lane[$target]=$lane
  lane_seconds[lane]=$((lane_seconds[lane] + seconds))
done < <(for target in "${targets_in_order[@]}"; do echo "${target_seconds[$target]} $target"; done |
  sort -rn -k1,1)
lanes=("" "")
for spec in "${specs[@]}"; do
  lane=${target_lane[$(spec_target "$spec")]}
  lanes[lane]+="$spec "
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
  result="build/matrix/$(spec_name "$spec").result"
  if [ ! -f "$result" ]; then
    rows+=("$(printf '%-28s no result' "$spec")")
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
printf '%-28s %-36s %6s %7s %7s  %-16s %5s\n' target "Highway target(s)" bits passed failed \
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
