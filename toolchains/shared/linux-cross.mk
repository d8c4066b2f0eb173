# Shared by the Arm Linux fragments: a cross g++ (prefix CROSS), static
# dispatch for the -march in CROSS_ARCH_FLAGS, GoogleTest built from source by
# the cross compiler, programs linked -static and run under qemu user mode.
CXX := $(CROSS)g++
CC := $(CROSS)gcc
AR := $(CROSS)ar
NM := $(CROSS)nm
SIZE := $(CROSS)size
TARGET_CXXFLAGS := -DEDGEATTN_STATIC_DISPATCH -DHWY_COMPILE_ONLY_STATIC $(CROSS_ARCH_FLAGS)
TARGET_CFLAGS := $(CROSS_ARCH_FLAGS)
# glibc's static getaddrinfo warning comes from GoogleTest and is harmless.
TARGET_LDFLAGS := -static -Wl,--no-warn-mismatch
LIB_DEPS_LDLIBS :=
GTEST_FROM_SOURCE := 1
GTEST_CXXFLAGS :=
# A static glibc cannot be interposed; `nm` proves the archive heap-free instead.
NO_HEAP_TEST := 0
