# Host, static dispatch, AVX-512 (Highway's AVX3) fixed at compile time.
HOST_STATIC_FLAGS := -DHWY_COMPILE_ONLY_STATIC -march=skylake-avx512
include toolchains/shared/host-static.mk
