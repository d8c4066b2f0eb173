# 64-bit Arm with SVE, vector-length agnostic: one binary must pass at every
# vector length. SVE_BITS (128..2048) picks the length qemu emulates.
CROSS := aarch64-linux-gnu-
CROSS_ARCH_FLAGS := -march=armv8.2-a+sve
include toolchains/shared/linux-cross.mk
SVE_BITS ?= 512
RUN := qemu-aarch64 -cpu max,sve-default-vector-length=$(shell expr $(SVE_BITS) / 8)
DEBIAN_PACKAGES := make libhwy-dev libgtest-dev g++-aarch64-linux-gnu qemu-user
