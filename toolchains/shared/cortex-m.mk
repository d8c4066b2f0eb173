# Shared by the Cortex-M fragments: arm-none-eabi with newlib, static
# dispatch (Highway's SCALAR target: no SIMD on these cores), the board's
# start-up code and memory map from platform/cortex-m/, programs run on
# qemu-system-arm with semihosting (main's return value is the exit status).
# The including fragment sets BOARD first.
include platform/cortex-m/board.mk
CXX := arm-none-eabi-g++
CC := arm-none-eabi-gcc
AR := arm-none-eabi-ar
NM := arm-none-eabi-nm
# SCALAR only: the decode pass does not prefetch (tests/run_suites.sh).
DECODE_PREFETCHES := no
SIZE := arm-none-eabi-size
# Small boards: the suites leave out shapes whose test data (not the library's
# arena) would not fit in the board's RAM, and say so.
TARGET_CXXFLAGS := -DEDGEATTN_STATIC_DISPATCH -DHWY_COMPILE_ONLY_STATIC \
  -DEDGEATTN_TEST_SMALL_MEMORY $(CM_CPU_FLAGS)
TARGET_CFLAGS := $(CM_CPU_FLAGS)
TARGET_LDFLAGS := $(CM_LDFLAGS)
TARGET_LINK_DEPS := $(CM_LINKER_SCRIPT)
TARGET_OBJS_SRC := $(CM_STARTUP_SRC) platform/cortex-m/posix_stubs.c
TARGET_STARTUP_CFLAGS := $(CM_STARTUP_CFLAGS)
LIB_DEPS_LDLIBS :=
# newlib hides POSIX names (fileno, strdup) from strict -std=c++17, which
# GoogleTest's headers use: test code is compiled as gnu++17.
TEST_STD := gnu++17
GTEST_FROM_SOURCE := 1
GTEST_CXXFLAGS := -DPATH_MAX=256 -DGTEST_HAS_PTHREAD=0 -DGTEST_HAS_POSIX_RE=0 \
  -DGTEST_HAS_STREAM_REDIRECTION=0 -DGTEST_HAS_DEATH_TEST=0 -DGTEST_HAS_EXCEPTIONS=0 \
  -fno-exceptions
NO_HEAP_TEST := 0
HAS_PTHREADS := 0
# gtest reads GTEST_FILTER from the environment, which a semihosted program
# does not have: a filter goes on qemu's -append line instead, which the
# start-up code makes argv (platform/cortex-m/startup.c).
CM_FILTER_ARGS := $(if $(GTEST_FILTER),-append --gtest_filter=$(GTEST_FILTER) )
RUN := $(patsubst -kernel,$(CM_FILTER_ARGS)-kernel,$(CM_RUN))
DEBIAN_PACKAGES := make libhwy-dev libgtest-dev gcc-arm-none-eabi libnewlib-arm-none-eabi \
  libstdc++-arm-none-eabi-newlib qemu-system-arm
