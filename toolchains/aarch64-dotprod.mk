# 64-bit Arm, ARMv8.2-A with the dot-product extension (Cortex-A55/A76 class).
# Highway's target is still NEON; the int8 kernels use SDOT here.
CROSS := aarch64-linux-gnu-
CROSS_ARCH_FLAGS := -march=armv8.2-a+dotprod
include toolchains/shared/linux-cross.mk
RUN := qemu-aarch64 -cpu max,sve=off
DEBIAN_PACKAGES := make libhwy-dev libgtest-dev g++-aarch64-linux-gnu qemu-user
