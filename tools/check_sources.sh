#!/bin/sh
# make lint: src/sources.txt is the one source list the Makefile and CMake
# both build from, so a new src/**/*.cc left out of it (or a line naming a file
# that is gone) would build in neither, or differently. Fails on either, and on
# duplicates and on lines that are not a plain path.
#   check_sources.sh [list]   (default src/sources.txt, run from anywhere)
set -eu
cd "$(dirname "$0")/.."
list=${1:-src/sources.txt}
listed=$(mktemp)
present=$(mktemp)
trap 'rm -f "$listed" "$present"' EXIT

# Comment lines start with '#'; blank lines are allowed.
sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$list" >"$listed"
status=0
if grep -n '[[:space:]]' "$listed" >/dev/null; then
  echo "$list: a path contains white space (one path per line, nothing else):" >&2
  grep '[[:space:]]' "$listed" | sed 's/^/  /' >&2
  status=1
fi
duplicates=$(LC_ALL=C sort "$listed" | uniq -d)
if [ -n "$duplicates" ]; then
  echo "$list: listed twice:" >&2
  echo "$duplicates" | sed 's/^/  /' >&2
  status=1
fi
while IFS= read -r path; do
  if [ ! -f "$path" ]; then
    echo "$list: names a missing file: $path" >&2
    status=1
  fi
done <"$listed"
find src -name '*.cc' | LC_ALL=C sort >"$present"
missing=$(LC_ALL=C sort -u "$listed" | LC_ALL=C comm -13 - "$present")
if [ -n "$missing" ]; then
  echo "$list: these sources are not listed (add them, one per line):" >&2
  echo "$missing" | sed 's/^/  /' >&2
  status=1
fi
[ "$status" -eq 0 ] && echo "sources: $list lists every src/**/*.cc ($(wc -l <"$listed") files)"
exit "$status"
