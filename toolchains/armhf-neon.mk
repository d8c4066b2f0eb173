# 32-bit Arm, ARMv7-A NEON with hard float (Cortex-A7/A9 class boards).
# Highway's base.h needs -mfp16-format=ieee on 32-bit Arm.
CROSS := arm-linux-gnueabihf-
CROSS_ARCH_FLAGS := -mfpu=neon-vfpv4 -mfp16-format=ieee
include toolchains/shared/linux-cross.mk
RUN := qemu-arm -cpu cortex-a7
DEBIAN_PACKAGES := make libhwy-dev libgtest-dev g++-arm-linux-gnueabihf qemu-user
