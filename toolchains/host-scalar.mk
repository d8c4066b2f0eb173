# Host, static dispatch, Highway's portable SCALAR target (1 lane): the code
# path of every CPU without a SIMD unit Highway knows.
HOST_STATIC_FLAGS := -DHWY_COMPILE_ONLY_SCALAR
# SCALAR only: the decode pass does not prefetch (tests/run_suites.sh).
DECODE_PREFETCHES := no
include toolchains/shared/host-static.mk
