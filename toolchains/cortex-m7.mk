# Cortex-M7 bare metal (double-precision FPU), Arm MPS2 AN500 board model.
BOARD := an500
include toolchains/shared/cortex-m.mk
