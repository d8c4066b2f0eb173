#!/bin/sh
# make lint: every public C function (include/edgeattn/*.h) has rows in one of
# the bad-input tables, which call it with bad arguments and check the status
# and that nothing was written: tests/contract/bad_input_test.cc,
# tests/contract/null_arguments_test.cc, tests/ops/quant_mha_bad_input_test.cc.
# Functions without a pointer or a value to refuse are listed below, each
# with the reason.
set -eu
cd "$(dirname "$0")/.."
tables="tests/contract/bad_input_test.cc tests/contract/null_arguments_test.cc \
tests/ops/quant_mha_bad_input_test.cc"
# ea_simd_target, ea_simd_vector_bytes: no argument. ea_set_max_simd_target:
# NULL is valid (it drops the cap), and its one bad value, an unknown name,
# must not cap the process under the other tests: status_codes_test.cc has it.
exempt="ea_simd_target ea_simd_vector_bytes ea_set_max_simd_target"
functions=$(sed -n 's/.*\b\(ea_[a-z0-9_]*\)(.*/\1/p' include/edgeattn/*.h | LC_ALL=C sort -u)
status=0
count=0
for function in $functions; do
  # A declaration names its return type before the name; struct and macro
  # names followed by "(" in comments are not functions.
  grep -Eq "^(EA_[A-Z_]+ )?(const )?[a-z_0-9]+\*? \*?$function\(" include/edgeattn/*.h || continue
  count=$((count + 1))
  case " $exempt " in *" $function "*) continue ;; esac
  # shellcheck disable=SC2086
  if ! grep -qw "$function" $tables; then
    echo "check_entry_point_tables: $function is in no bad-input table ($tables)" >&2
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "entry points: each of $count public functions has bad-input rows"
exit "$status"
