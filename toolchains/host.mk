# Host build (x86-64 Linux), the default: Highway dynamic dispatch over every
# x86 target Highway 1.0.3 compiles, AVX3_DL (AVX-512 VNNI/VBMI2...) included.
# The tests force each target in turn.
CXX := g++
CC := gcc
AR := ar
NM := nm
SIZE := size
TARGET_CXXFLAGS := -DHWY_WANT_AVX3_DL
TARGET_CFLAGS :=
TARGET_LDFLAGS :=
# Dynamic dispatch needs hwy::GetChosenTarget and hwy::SupportedTargets from libhwy.
LIB_DEPS_LDLIBS := -lhwy
GTEST_FROM_SOURCE := 0
NO_HEAP_TEST := 1
RUN :=
DEBIAN_PACKAGES := g++ make libhwy-dev libgtest-dev python3-numpy
# Host-only checks that are scripts, not test binaries (numpy only): the
# weight converter's round trip, and the reversal model's weights remade
# from its float state_dict.
SCRIPT_CHECKS := /usr/bin/python3 tools/run_script_checks.py tools/test_convert_weights.py \
  tools/test_reversal_weights.py
