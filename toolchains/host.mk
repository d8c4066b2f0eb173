# Host build (x86-64 Linux): Highway dynamic dispatch over every x86 target
# Highway 1.0.3 compiles, AVX3_DL (AVX-512 VNNI/VBMI2...) included.
CXX := g++
CC := gcc
AR := ar
NM := nm
TARGET_CXXFLAGS := -DHWY_WANT_AVX3_DL
TARGET_CFLAGS :=
# Dynamic dispatch needs hwy::GetChosenTarget and hwy::SupportedTargets from libhwy.
LIB_DEPS_LDLIBS := -lhwy
TEST_LDLIBS := -lgtest -lhwy -pthread
# Test binaries run directly on this CPU.
RUN :=
DEBIAN_PACKAGES := g++ make libhwy-dev libgtest-dev
