# The libFuzzer harness (tests/fuzz/README.md), included by the Makefile.
#
#   make fuzz [FUZZ_SECONDS=60]   build into build/fuzz, fuzz the seed corpus
#   make fuzz-build               only the build (then make fuzz-run)
#   make fuzz-seeds               regenerate tests/fuzz/corpus (by hand only)
#
# Everything is clang-14: the library sources with the library's own flags
# (LIB_CXXFLAGS of the host build, less GCC-only -fcallgraph-info) plus
# -fsanitize=fuzzer-no-link,address,undefined,float-cast-overflow (edge
# coverage only: comparison tracing in the kernels' inner loops made one
# iteration ten times slower and the kernels compare only loop counters);
# the harness with -fsanitize=fuzzer,... too.
# HWY_BROKEN_EMU128=1 keeps SCALAR as Highway's fallback target, as in every
# GCC 12 build (clang would otherwise compile EMU128 instead), so the fuzzer
# covers the targets that ship.
# FUZZ_SRC_ROOT reads src/, include/ and tests/reference/ from another tree
# (a snapshot of a commit), for fuzzing a fixed version while src/ changes.

FUZZ_SECONDS ?= 60
FUZZ_ARGS ?=
# Appended to every compile and link (a source-coverage report, say:
# -fprofile-instr-generate -fcoverage-mapping with FUZZ_BUILD=build/fuzz/cov).
FUZZ_EXTRA_FLAGS ?=
# BUILD_ROOT (the Makefile's, default build) keeps concurrent builds apart.
FUZZ_BUILD ?= $(BUILD_ROOT)/fuzz
FUZZ_SRC_ROOT ?= .
FUZZ_CXX := clang++-14
FUZZ_BIN := $(FUZZ_BUILD)/edgeattn_fuzz
FUZZ_SEEDS_BIN := $(FUZZ_BUILD)/make_seeds
FUZZ_SANITIZERS := address,undefined,float-cast-overflow
FUZZ_HWY := -DHWY_BROKEN_EMU128=1

FUZZ_LIB_CXXFLAGS := $(filter-out -fcallgraph-info=% -I% -fsanitize=% -fno-sanitize-recover=% \
  -MD -MP,$(LIB_CXXFLAGS)) -I$(FUZZ_SRC_ROOT)/include -I$(FUZZ_SRC_ROOT)/src $(FUZZ_HWY) \
  -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,$(FUZZ_SANITIZERS) \
  -fno-sanitize-coverage=trace-cmp -fno-sanitize-recover=all -MD -MP $(FUZZ_EXTRA_FLAGS)
FUZZ_COMMON_CXXFLAGS := -std=c++17 -O1 -g -fno-omit-frame-pointer $(WARNINGS) \
  -I$(FUZZ_SRC_ROOT)/include -I$(FUZZ_SRC_ROOT)/tests -Itests/fuzz $(TARGET_CXXFLAGS) $(FUZZ_HWY) \
  -fno-sanitize-recover=all -Wa,-I$(FUZZ_SRC_ROOT) -MD -MP $(FUZZ_EXTRA_FLAGS)
FUZZ_CXXFLAGS := $(FUZZ_COMMON_CXXFLAGS) -fsanitize=fuzzer,$(FUZZ_SANITIZERS)
# The checking code (references, row classification, pool compares) loops
# over every element: coverage and comparison tracing there would cost most
# of each iteration and only feed the fuzzer features of the harness itself.
FUZZ_CHECK_CXXFLAGS := $(FUZZ_COMMON_CXXFLAGS) -fsanitize=$(FUZZ_SANITIZERS)
FUZZ_CHECK_SRCS := attention_facts contract_checks expected_status memory_pool reference_bound \
  tensor_fill softmax_luts quant_case_support kv_cache_check position_checks quant_mha_chain \
  weight_file_model decoder_check plan_ops_support

ifeq ($(FUZZ_SRC_ROOT),.)
FUZZ_LIB_SRCS ?= $(LIB_SRCS)
else
FUZZ_LIB_SRCS ?= $(patsubst $(FUZZ_SRC_ROOT)/%,%,$(wildcard $(FUZZ_SRC_ROOT)/src/*.cc $(FUZZ_SRC_ROOT)/src/*/*/*.cc $(FUZZ_SRC_ROOT)/src/*/*/*/*.cc \
  $(FUZZ_SRC_ROOT)/src/*/*.cc))
endif
FUZZ_LIB_OBJS := $(patsubst %.cc,$(FUZZ_BUILD)/lib/%.o,$(FUZZ_LIB_SRCS))
FUZZ_REF_OBJS := $(FUZZ_BUILD)/reference/reference_attention.o \
  $(FUZZ_BUILD)/reference/random_tensor.o $(FUZZ_BUILD)/reference/tflite_chain_reference.o \
  $(FUZZ_BUILD)/reference/reference_decode.o $(FUZZ_BUILD)/reference/reference_mha_decode.o \
  $(FUZZ_BUILD)/reference/tflite_rope_reference.o
FUZZ_HARNESS_OBJS := $(patsubst tests/fuzz/%.cc,$(FUZZ_BUILD)/harness/%.o, \
  $(filter-out tests/fuzz/make_seeds.cc,$(wildcard tests/fuzz/*.cc)))
FUZZ_CONFIG := Makefile tests/fuzz/fuzz.mk $(wildcard toolchains/host.mk)

.PHONY: fuzz fuzz-build fuzz-run fuzz-seeds

fuzz:
	@sh tools/install_deps.sh clang-14 libclang-rt-14-dev libhwy-dev
	@$(MAKE) --no-print-directory TARGET=host SANITIZE=0 fuzz-run

# The build alone (CI builds on both cores, then runs the fuzzer on one beside
# other steps: make fuzz-run after this rebuilds nothing).
fuzz-build:
	@sh tools/install_deps.sh clang-14 libclang-rt-14-dev libhwy-dev
	@$(MAKE) --no-print-directory TARGET=host SANITIZE=0 $(FUZZ_BIN)

fuzz-run: $(FUZZ_BIN)
	@sh tests/fuzz/run_fuzz.sh $(FUZZ_BIN) $(FUZZ_SECONDS) tests/fuzz/corpus $(FUZZ_BUILD) \
	  $(FUZZ_ARGS)

$(FUZZ_BUILD)/lib/%.o: $(FUZZ_SRC_ROOT)/%.cc $(FUZZ_CONFIG)
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_LIB_CXXFLAGS) -c $< -o $@

$(FUZZ_BUILD)/reference/%.o: $(FUZZ_SRC_ROOT)/tests/reference/%.cc $(FUZZ_CONFIG)
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_CHECK_CXXFLAGS) -c $< -o $@

$(FUZZ_BUILD)/harness/%.o: tests/fuzz/%.cc $(FUZZ_CONFIG)
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(if $(filter $*,$(FUZZ_CHECK_SRCS)),$(FUZZ_CHECK_CXXFLAGS),$(FUZZ_CXXFLAGS)) \
	  -c $< -o $@

$(FUZZ_BIN): $(FUZZ_HARNESS_OBJS) $(FUZZ_REF_OBJS) $(FUZZ_LIB_OBJS)
	$(FUZZ_CXX) -fsanitize=fuzzer,$(FUZZ_SANITIZERS) $(FUZZ_EXTRA_FLAGS) -o $@ $^ -lhwy

# The seed writer needs no sanitizer: it only encodes cases.
$(FUZZ_SEEDS_BIN): tests/fuzz/make_seeds.cc tests/fuzz/fuzz_case.h tests/fuzz/byte_reader.h \
  tests/fuzz/weight_file_case.h tests/data/weights/sample_files.cc
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) -std=c++17 -O1 $(WARNINGS) -Iinclude -Itests -Itests/fuzz -o $@ $< \
	  tests/data/weights/sample_files.cc

fuzz-seeds: $(FUZZ_SEEDS_BIN)
	rm -rf tests/fuzz/corpus
	mkdir -p tests/fuzz/corpus
	$(FUZZ_SEEDS_BIN) tests/fuzz/corpus

-include $(shell find $(FUZZ_BUILD) -name '*.d' 2>/dev/null)
