# Shared by the static host variants (host-scalar, host-avx2, host-avx512):
# one Highway target fixed at compile time, no libhwy, exactly what a
# firmware-style user links. The including fragment sets HOST_STATIC_FLAGS.
CXX := g++
CC := gcc
AR := ar
NM := nm
SIZE := size
TARGET_CXXFLAGS := -DEDGEATTN_STATIC_DISPATCH $(HOST_STATIC_FLAGS)
TARGET_CFLAGS :=
TARGET_LDFLAGS :=
LIB_DEPS_LDLIBS :=
GTEST_FROM_SOURCE := 0
# The interposer test forces targets through dynamic dispatch: host build only.
NO_HEAP_TEST := 0
RUN :=
DEBIAN_PACKAGES := g++ make libhwy-dev libgtest-dev
