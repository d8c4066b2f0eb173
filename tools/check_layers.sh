#!/bin/sh
# make lint: src/ is cut by layer (docs/ARCHITECTURE.md, "The house"), and a
# folder of src/ includes only its own folder and the layers below it:
#   ops > kv_cache, positions > kernels > tflite > runtime;  weights on itself.
# Fails on every #include "<folder>/..." that reaches up or sideways, and on a
# src/ folder this script does not rank.
set -eu
cd "$(dirname "$0")/.."
rank() {
  case "$1" in
    ops) echo 5 ;;
    kv_cache | positions) echo 4 ;;
    kernels) echo 3 ;;
    tflite) echo 2 ;;
    runtime) echo 1 ;;
    weights) echo 0 ;;
    *) echo "" ;;
  esac
}
status=0
files=0
for file in $(find src -name '*.h' -o -name '*.cc' | LC_ALL=C sort); do
  files=$((files + 1))
  folder=$(echo "$file" | cut -d/ -f2)
  own=$(rank "$folder")
  if [ -z "$own" ]; then
    echo "check_layers: $file is in src/$folder/, which has no layer (rank it here and in docs/ARCHITECTURE.md)" >&2
    status=1
    continue
  fi
  for included in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file"); do
    target=${included%%/*}
    [ "$target" = "$included" ] && continue  # no folder: a system or public-style name
    [ "$target" = edgeattn ] && continue     # the public headers
    [ "$target" = "$folder" ] && continue
    theirs=$(rank "$target")
    [ -z "$theirs" ] && continue  # not a src/ folder (hwy/, ...)
    if [ "$own" -eq 0 ] || [ "$theirs" -ge "$own" ]; then
      echo "check_layers: $file (src/$folder/) includes $included, a layer not below it" >&2
      status=1
    fi
  done
done
[ "$status" -eq 0 ] && echo "layers: $files files of src/ include only their own layer and those below it"
exit "$status"
