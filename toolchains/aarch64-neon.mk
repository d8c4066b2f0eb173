# 64-bit Arm, ARMv8-A NEON (Cortex-A53/A72 class), run on a Cortex-A72 model.
CROSS := aarch64-linux-gnu-
CROSS_ARCH_FLAGS := -march=armv8-a
include toolchains/shared/linux-cross.mk
RUN := qemu-aarch64 -cpu cortex-a72
DEBIAN_PACKAGES := make libhwy-dev libgtest-dev g++-aarch64-linux-gnu qemu-user
