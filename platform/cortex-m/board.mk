# Cortex-M boards under qemu-system-arm: flags, linker script and run command.
#
# Include after setting BOARD (an386 | an500 | an547). Defines:
#   CM_CPU            the core, for messages (cortex-m4 | cortex-m7 | cortex-m55)
#   CM_CPU_FLAGS      -mcpu/-mthumb/-mfloat-abi/-mfpu...: compile AND link with them
#   CM_STARTUP_SRC    platform/cortex-m/startup.c: the caller compiles it (with
#                     CM_STARTUP_CFLAGS) and links the object into every program
#   CM_STARTUP_CFLAGS flags for that one C file
#   CM_LINKER_SCRIPT  the board's memory map
#   CM_LDFLAGS        link flags (script, newlib + semihosting specs, --gc-sections)
#   CM_RUN            command prefix that runs an ELF: $(CM_RUN) prog.elf; the exit
#                     status is main's return value (124: timed out, 134: fault)
#   CM_RUN_COUNTED    the same with -icount shift=0: every instruction is one
#                     nanosecond of virtual time (bench/mcu counts them with SysTick)
# Optional inputs: CM_TIMEOUT (seconds, default 400), CM_NANO=1 for newlib-nano
# (about 18 KB smaller, but its printf cannot print long long: see README.md).
#
# Example (from the repository root):
#   BOARD := an386
#   include platform/cortex-m/board.mk
#   $(CC) $(CM_STARTUP_CFLAGS) -c $(CM_STARTUP_SRC) -o startup.o
#   $(CXX) $(CM_CPU_FLAGS) ... test.cc startup.o libedgeattn.a $(CM_LDFLAGS) -o test.elf
#   $(CM_RUN) test.elf

CM_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))

ifeq ($(BOARD),an386)
  CM_CPU := cortex-m4
  CM_CPU_FLAGS := -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16
  CM_QEMU_MACHINE := mps2-an386
else ifeq ($(BOARD),an500)
  CM_CPU := cortex-m7
  # Highway's base.h needs __fp16 in IEEE format on this FPU.
  CM_CPU_FLAGS := -mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16 -mfp16-format=ieee
  CM_QEMU_MACHINE := mps2-an500
else ifeq ($(BOARD),an547)
  CM_CPU := cortex-m55
  # -mfpu=auto: the FPU (double precision, fp16) and MVE come from -mcpu;
  # GCC 12 predefines the same macros with fpv5-d16 or fp-armv8 here.
  CM_CPU_FLAGS := -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -mfpu=auto
  CM_QEMU_MACHINE := mps3-an547
else
  $(error BOARD must be an386 (Cortex-M4), an500 (Cortex-M7) or an547 (Cortex-M55), not '$(BOARD)')
endif

CM_STARTUP_SRC := $(CM_DIR)/startup.c
CM_STARTUP_CFLAGS := -std=c11 -O2 -Wall -Wextra -Werror -ffunction-sections -fdata-sections \
  $(CM_CPU_FLAGS)
CM_LINKER_SCRIPT := $(CM_DIR)/$(CM_QEMU_MACHINE).ld

CM_NANO ?= 0
ifeq ($(CM_NANO),1)
  # newlib-nano leaves float formatting out unless _printf_float is pulled in.
  CM_SPECS := --specs=nano.specs --specs=rdimon.specs -u _printf_float
else
  CM_SPECS := --specs=rdimon.specs
endif
CM_LDFLAGS := $(CM_CPU_FLAGS) -T $(CM_LINKER_SCRIPT) $(CM_SPECS) -Wl,--gc-sections

# Generous: the limit is there to catch a hang, not to time the suite. The M4
# model (mps2-an386) is the slowest board (no double-precision FPU: the
# references' doubles run in software): its suite passed 120 s once the
# machine was busy with other jobs beside the matrix, and it ran past 400 s
# on a busy machine once 0.17.0 added int4 to every KV-cache suite (the
# KV-cache suites alone took 222 s there).
CM_TIMEOUT ?= 700
# --foreground: qemu -nographic may use the terminal; without it, timeout
# runs qemu outside the terminal's foreground process group.
CM_RUN := timeout --foreground $(CM_TIMEOUT) qemu-system-arm -M $(CM_QEMU_MACHINE) -nographic \
  -semihosting -kernel
CM_RUN_COUNTED := timeout --foreground $(CM_TIMEOUT) qemu-system-arm -M $(CM_QEMU_MACHINE) \
  -nographic -semihosting -icount shift=0 -kernel
