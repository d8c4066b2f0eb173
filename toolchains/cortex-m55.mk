# Cortex-M55 bare metal (Armv8.1-M, Helium), Arm MPS3 AN547 board model.
BOARD := an547
include toolchains/shared/cortex-m.mk
