# Host, static dispatch, AVX2 fixed at compile time. Highway 1.0.3 wants AES
# and PCLMUL for its SSE4-and-above targets, hence -maes -mpclmul.
HOST_STATIC_FLAGS := -DHWY_COMPILE_ONLY_STATIC -march=haswell -maes -mpclmul
include toolchains/shared/host-static.mk
