#!/bin/sh
# The README's C example must be examples/c_usage.c verbatim: the test suite compiles and
# checks that file, so a README copy that drifted from it would show untested code.
# Run by `make lint`. Extracts the ```c block of the "Firmware-style use (C)" section and
# diffs it against the file; on a difference it prints the diff and how to fix it.
set -eu
cd "$(dirname "$0")/.."
readme=README.md
example=examples/c_usage.c
section='## Firmware-style use (C)'

block=$(mktemp)
trap 'rm -f "$block"' EXIT

# Exit status 2: no ```c block in the section; 3: the block is not closed.
status=0
awk -v section="$section" '
  $0 == section { in_section = 1; next }
  in_section && !in_block && /^## / { exit }
  in_section && !in_block && $0 == "```c" { in_block = 1; found = 1; next }
  in_block && $0 == "```" { closed = 1; exit }
  in_block { print }
  END { if (!found) exit 2; if (!closed) exit 3 }
' "$readme" >"$block" || status=$?
if [ "$status" -ne 0 ]; then
  echo "check_readme_example: $readme has no complete \`\`\`c block under \"$section\"" >&2
  exit 1
fi

if ! diff -u --label "$example" --label "$readme (C block)" "$example" "$block" >&2; then
  echo "check_readme_example: the C block under \"$section\" in $readme differs from" \
    "$example (diff above: - file, + README). Copy the file into the block verbatim." >&2
  exit 1
fi
echo "check_readme_example: $readme shows $example verbatim"
