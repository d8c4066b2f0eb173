# Cortex-M4F bare metal (single-precision FPU), Arm MPS2 AN386 board model.
BOARD := an386
include toolchains/shared/cortex-m.mk
