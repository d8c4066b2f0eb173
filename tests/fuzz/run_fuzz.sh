#!/bin/sh
# Runs the fuzzer for a fixed time on a scratch copy of the committed seeds
# and ends with the suite summary line CI sums ("1 passed, 0 failed" when it
# found nothing). The committed corpus is never written: new inputs stay in
# WORK/corpus, findings in WORK/artifacts.
#   run_fuzz.sh BINARY SECONDS SEED_DIR WORK_DIR [libFuzzer options...]
set -u
binary=$1
seconds=$2
seeds=$3
work=$4
shift 4
corpus=$work/corpus
artifacts=$work/artifacts
log=$work/fuzz.log
rm -rf "$corpus"
mkdir -p "$corpus" "$artifacts"
cp "$seeds"/* "$corpus"/
echo "fuzz: $binary for ${seconds} s on $(ls "$corpus" | wc -l) seeds (log: $log)"
"$binary" -max_total_time="$seconds" -print_final_stats=1 -timeout=30 -rss_limit_mb=4096 \
  -max_len=4096 -artifact_prefix="$artifacts/" "$@" "$corpus" >"$log" 2>&1
status=$?

grep -E '^edgeattn fuzz:' "$log"
executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
per_second=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
features=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
echo "fuzz: ${executions:-?} executions, ${per_second:-?} exec/s, cov: ${coverage:-?}," \
  "ft: ${features:-?}, corpus: $(ls "$corpus" | wc -l) inputs"
if [ "$status" -eq 0 ]; then
  echo "1 passed, 0 failed"
  exit 0
fi
echo "fuzz: FINDING (libFuzzer exit status $status); the report:"
grep -E -A3 '==edgeattn-fuzz==|ERROR: (AddressSanitizer|libFuzzer)|runtime error:' "$log" | head -40
ls -l "$artifacts"
echo "reproduce: $binary <artifact>; minimise: $binary -minimize_crash=1 -runs=10000 <artifact>"
echo "0 passed, 1 failed"
exit 1
