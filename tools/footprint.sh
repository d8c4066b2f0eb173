#!/bin/bash
# make footprint: for every static (firmware-style) target, the size of
# libedgeattn.a and of the smallest program that runs one float attention
# (examples/minimal_attention.cc), the deepest stack of any public entry point
# (tools/stack_report.py over GCC's -fcallgraph-info), and the link checks:
# no heap, exception/RTTI, libstdc++ runtime or libhwy reference in the archive,
# and no libm function in the int8 MHA image (examples/firmware/
# int8_mha_firmware.cc: precomputed table, given integers).
#   footprint.sh                 the whole table
#   footprint.sh --row ...       one row (called by `make footprint-row`)
set -u
cd "$(dirname "$0")/.."
# shellcheck source=tools/host_cpu.sh
. tools/host_cpu.sh

# C library maths functions (and newlib's and glibc's internals behind them).
LIBM_NAMES='^(sin|cos|tan|pow|exp|exp2|log|log2|sqrt|ldexp|frexp|scalbn|floor|ceil|round|lround|fmod)f?$|ieee754|^__kernel_'

TARGETS="host-scalar host-avx2 host-avx512 aarch64-neon aarch64-sve armhf-neon cortex-m4 cortex-m7 cortex-m55"

if [ "${1:-}" = "--row" ]; then
  target=$2 size_tool=$3 nm_tool=$4 lib=$5 image=$6 build=$7 run=$8 int8_image=$9
  read -r lib_text lib_data lib_bss _ < <($size_tool -t "$lib" | tail -1)
  read -r img_text img_data img_bss _ < <($size_tool "$image" | tail -1)
  deepest=$(python3 tools/stack_report.py "$build" | head -1)
  status=0
  if ! ran=$(host_cpu_runs_target "$target"); then
    ran="skipped: $ran"
  else
    # shellcheck disable=SC2086  # $run may be empty or a command with arguments
    $run "$image" >/dev/null 2>&1
    status=$?
    ran=$([ "$status" -eq 0 ] && echo ok || echo "exit $status")
  fi
  undefined=$($nm_tool -u "$lib" | awk '{print $NF}' | sort -u)
  bad=$(echo "$undefined" | grep -E '^(malloc|calloc|realloc|free|_Zn[wa].*|_Zd[la].*|__cxa_.*|__gxx_personality.*|_ZTI.*|_ZSt.*|_ZN3hwy.*)$' | tr '\n' ' ')
  # Every name the int8 image defines or imports, versions (sin@GLIBC_2.2.5) cut.
  libm=$($nm_tool "$int8_image" | awk '{print $NF}' | sed 's/@.*//' | grep -E "$LIBM_NAMES" |
    sort -u | tr '\n' ' ')
  printf '| %-12s | %7s | %5s | %9s | %6s | %7s | %-32s | %-5s | %s | %s |\n' "$target" "$lib_text" \
    "$((lib_data + lib_bss))" "$img_text" "$img_data" "$img_bss" "$deepest" "$ran" "${bad:-none}" \
    "${libm:-none}"
  # README: "The library holds no data and no bss".
  [ "$status" -eq 0 ] && [ -z "$bad" ] && [ -z "$libm" ] && [ $((lib_data + lib_bss)) -eq 0 ]
  exit
fi

sh tools/install_deps.sh python3
echo "| target       | lib text | lib data+bss | image text | image data | image bss | deepest entry point (stack bytes) | image runs | heap/exception/RTTI/libstdc++/libhwy refs | libm in the int8 MHA image |"
echo "|---|---:|---:|---:|---:|---:|---|---|---|---|"
failed=0
for target in $TARGETS; do
  make -s --no-print-directory TARGET="$target" deps >/dev/null &&
    make -s --no-print-directory -j2 TARGET="$target" footprint-row 2>/dev/null | grep '^|' ||
    { failed=1; echo "| $target | build or check failed |"; }
done
exit $failed
