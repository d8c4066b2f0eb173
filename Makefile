# edgeattn build. `make help` lists the targets.
#
# TARGET picks a fragment in toolchains/ (compiler, flags, dispatch mode, the
# command that runs test binaries); everything below is target independent.
# SANITIZE=1 builds with AddressSanitizer + UBSan into build/<target>-asan.
#
# A fragment sets:
#   CXX CC AR NM SIZE        the toolchain
#   TARGET_CXXFLAGS          CPU and dispatch flags, for the library and the tests
#   TARGET_CFLAGS            the same for C sources
#   TARGET_LDFLAGS           link flags of test and example programs
#   TARGET_OBJS_SRC          extra sources linked into programs (bare-metal start-up)
#   TARGET_LINK_DEPS         files programs must be relinked after (linker script)
#   LIB_DEPS_LDLIBS          what a program linking libedgeattn.a also needs
#   GTEST_FROM_SOURCE        1: build GoogleTest from /usr/src/googletest with CXX
#   GTEST_CXXFLAGS           extra flags for that build
#   SYSTEM_GTEST_LDLIBS      0-fragment default: Debian's prebuilt libgtest
#   NO_HEAP_TEST             1 where the malloc interposer can run (hosted, dynamic libc)
#   TEST_STD                 language mode of test code (default c++17)
#   TARGET_STARTUP_CFLAGS    flags for TARGET_OBJS_SRC
#   RUN                      the command prefix that runs a test binary (emulator)
#   DEBIAN_PACKAGES          what `make deps` installs

TARGET ?= host
SANITIZE ?= 0
include toolchains/$(TARGET).mk

# Objects are rebuilt when the Makefile or the fragment changes (flags).
CONFIG_FILES := $(MAKEFILE_LIST)

BUILD_ROOT ?= build
BUILD := $(BUILD_ROOT)/$(TARGET)$(if $(filter 1,$(SANITIZE)),-asan,)
LIB := $(BUILD)/libedgeattn.a

WARNINGS := -Wall -Wextra -Werror
OPT := -O2
ifeq ($(SANITIZE),1)
  # -g1: line tables, all a sanitizer report's stack needs; full -g doubles
  # the compile time of the Highway kernels under the sanitizers.
  OPT := -O1 -g1 -fno-omit-frame-pointer
  # GCC leaves float-cast-overflow out of "undefined": a NaN or huge float
  # converted to int is undefined behaviour all the same.
  SAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
endif

# Cross compilers must not see the host's /usr/include: they get a private
# folder with links to the (architecture-independent) Highway and GoogleTest
# headers only.
ifeq ($(GTEST_FROM_SOURCE),1)
  SYSINCLUDE := $(BUILD)/sysinclude
  SYSINCLUDE_FLAGS := -isystem $(SYSINCLUDE)
  GTEST_SRC := /usr/src/googletest/googletest
  GTEST_LIBS := $(BUILD)/gtest/libgtest_main.a $(BUILD)/gtest/libgtest.a
  GTEST_LDLIBS := $(GTEST_LIBS)
else
  GTEST_LIBS :=
  GTEST_LDLIBS := -lgtest_main -lgtest -pthread
endif

# The library: no exceptions, no RTTI, no thread-safe statics (no hidden
# guard calls), NDEBUG so Highway's asserts reference no libhwy symbol.
LIB_CXXFLAGS := -std=c++17 $(OPT) -DNDEBUG $(WARNINGS) -fno-exceptions -fno-rtti \
  -fno-threadsafe-statics -ffunction-sections -fdata-sections -fcallgraph-info=su \
  -Iinclude -Isrc $(SYSINCLUDE_FLAGS) $(TARGET_CXXFLAGS) $(SAN_FLAGS) -MD -MP
TEST_STD ?= c++17
TEST_CXXFLAGS := -std=$(TEST_STD) $(OPT) $(WARNINGS) -Iinclude -Isrc -Itests $(SYSINCLUDE_FLAGS) \
  $(TARGET_CXXFLAGS) $(GTEST_CXXFLAGS) $(SAN_FLAGS) -MD -MP
# Example programs are built the way firmware builds its own code.
EXAMPLE_CXXFLAGS := -std=c++17 $(OPT) $(WARNINGS) -fno-exceptions -fno-rtti -Iinclude \
  $(SYSINCLUDE_FLAGS) $(TARGET_CXXFLAGS) $(SAN_FLAGS) -MD -MP
TEST_CFLAGS := -std=c11 $(OPT) $(WARNINGS) -pedantic -Iinclude $(TARGET_CFLAGS) $(SAN_FLAGS) \
  -MD -MP

# One source list for the Makefile and CMakeLists.txt (make lint checks it).
# A built program's path as a command: ./ before a relative one (BUILD_ROOT may be
# absolute, and ./ before an absolute path would not name it).
Runnable = $(if $(filter /%,$(1)),$(1),./$(1))

LIB_SRCS := $(shell sed -e '/^\#/d' -e '/^[[:space:]]*$$/d' src/sources.txt)
LIB_OBJS := $(LIB_SRCS:%.cc=$(BUILD)/%.o)
TARGET_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(TARGET_OBJS_SRC))

# Every tests/<layer>/*_test.cc goes into one GoogleTest binary; the no-heap
# proof interposes malloc and so is a binary of its own.
SUITE_SRCS := $(filter-out tests/contract/no_heap_test.cc,$(wildcard tests/*/*_test.cc)) \
  $(wildcard tests/reference/*.cc) $(wildcard tests/data/tflite/*.cc) \
  $(wildcard tests/data/weights/*.cc)
SUITE_OBJS := $(SUITE_SRCS:%.cc=$(BUILD)/%.o) $(BUILD)/examples/c_usage.o \
  $(BUILD)/examples/reversal/reversal_model.o $(BUILD)/examples/reversal/reversal_quant_model.o
# The pthread pool example joins the suite where the target has pthreads.
HAS_PTHREADS ?= 1
ifneq ($(HAS_PTHREADS),0)
  SUITE_OBJS += $(BUILD)/examples/thread_pool/pthread_pool.o
  TEST_CXXFLAGS += -DEDGEATTN_TEST_PTHREAD_POOL=1
endif
SUITE := $(BUILD)/tests/edgeattn_tests
NO_HEAP := $(BUILD)/tests/no_heap_test
DEMO := $(BUILD)/examples/demo
MINIMAL := $(BUILD)/examples/minimal_attention
FIRMWARE := $(BUILD)/examples/firmware/self_attention_firmware
INT8_FIRMWARE := $(BUILD)/examples/firmware/int8_mha_firmware
# make firmware: both examples on each board; the int8 digests must agree.
FIRMWARE_TARGETS ?= cortex-m4 cortex-m55

.PHONY: all lib deps docs demo reversal-demo test asan test-run digest-run matrix footprint footprint-row firmware firmware-run \
  install install-files consumers bench bench-quick bench-report lint format format-check clean \
  help fuzz

all: lib

help:
	@echo "make            build $(LIB)"
	@echo "make demo       install dependencies, build and run the demo"
	@echo "make test       install dependencies, build and run every test suite"
	@echo "make asan       the test suites under AddressSanitizer + UBSan"
	@echo "make matrix     every target's suite (Arm under qemu), one table, one digest"
	@echo "make bench      benchmarks vs the FMA peak, Eigen and oneDNN (bench/results/latest.json)"
	@echo "make bench-quick  the headline benchmark shapes in under a minute (quick.json)"
	@echo "make bench-report plot and README tables from BENCH_RESULTS (default latest.json)"
	@echo "make fuzz       libFuzzer harness (clang, ASan/UBSan) for FUZZ_SECONDS (default 60)"
	@echo "make install    headers, archive and edgeattn.pc under PREFIX (default /usr/local)"
	@echo "make consumers  build and run tests/consumers/ (CMake, pkg-config, archive users)"
	@echo "make lint       cppcheck over src/ and include/, and the format check"
	@echo "make docs       the API reference (HTML) from the headers; fails on an undocumented symbol"
	@echo "make format     clang-format every source in place"
	@echo "TARGET=<name>   a toolchains/<name>.mk fragment (default: host)"

# Every documented target installs its own Debian packages first (cheap when
# they are there: one dpkg-query each), then builds in a second make.
lib: deps
	@$(MAKE) --no-print-directory $(LIB)

deps:
	@sh tools/install_deps.sh $(DEBIAN_PACKAGES)

$(LIB): $(LIB_OBJS) src/sources.txt
	@rm -f $@
	$(AR) rcs $@ $(LIB_OBJS)

$(SYSINCLUDE):
	@mkdir -p $@
	ln -sfn /usr/include/hwy $@/hwy
	ln -sfn $(GTEST_SRC)/include/gtest $@/gtest

$(BUILD)/src/%.o: src/%.cc $(CONFIG_FILES) | $(SYSINCLUDE)
	@mkdir -p $(dir $@)
	$(CXX) $(LIB_CXXFLAGS) -c $< -o $@

# Test bodies (GoogleTest's assertion macros, little arithmetic of their own)
# take three quarters of a target's compile time at -O2 and 40 % less at -O1;
# the references and data they call (tests/reference, tests/data) keep $(OPT).
TEST_BODY_OPT := $(if $(filter 1,$(SANITIZE)),,-O1)
$(BUILD)/tests/%_test.o: tests/%_test.cc $(CONFIG_FILES) | $(SYSINCLUDE)
	@mkdir -p $(dir $@)
	$(CXX) $(TEST_CXXFLAGS) $(TEST_BODY_OPT) -c $< -o $@

$(BUILD)/tests/%.o: tests/%.cc $(CONFIG_FILES) | $(SYSINCLUDE)
	@mkdir -p $(dir $@)
	$(CXX) $(TEST_CXXFLAGS) -c $< -o $@

$(BUILD)/examples/%.o: examples/%.c $(CONFIG_FILES)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -c $< -o $@

$(BUILD)/examples/%.o: examples/%.cc $(CONFIG_FILES) | $(SYSINCLUDE)
	@mkdir -p $(dir $@)
	$(CXX) $(EXAMPLE_CXXFLAGS) -c $< -o $@

$(BUILD)/platform/%.o: platform/%.c $(CONFIG_FILES)
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_STARTUP_CFLAGS) -c $< -o $@

# GoogleTest built by the target's own compiler (never the host's libgtest.a).
$(BUILD)/gtest/%.o: $(GTEST_SRC)/src/%.cc | $(SYSINCLUDE)
	@mkdir -p $(dir $@)
	$(CXX) -std=gnu++17 -O2 $(TARGET_CXXFLAGS) $(GTEST_CXXFLAGS) -I$(GTEST_SRC) \
	  -isystem $(GTEST_SRC)/include -c $< -o $@

$(BUILD)/gtest/lib%.a: $(BUILD)/gtest/%-all.o
	$(AR) rcs $@ $^

.SECONDARY: $(BUILD)/gtest/gtest-all.o $(BUILD)/gtest/gtest_main.o

$(BUILD)/gtest/libgtest_main.a: $(BUILD)/gtest/gtest_main.o
	$(AR) rcs $@ $^

$(SUITE): $(SUITE_OBJS) $(TARGET_OBJS) $(LIB) $(GTEST_LIBS) $(TARGET_LINK_DEPS)
	$(CXX) $(SAN_FLAGS) -o $@ $(SUITE_OBJS) $(TARGET_OBJS) $(LIB) $(GTEST_LDLIBS) \
	  $(LIB_DEPS_LDLIBS) $(TARGET_LDFLAGS)

$(NO_HEAP): $(BUILD)/tests/contract/no_heap_test.o $(BUILD)/tests/reference/random_tensor.o \
  $(BUILD)/tests/data/weights/sample_files.o $(LIB)
	$(CXX) -o $@ $^ $(GTEST_LDLIBS) $(LIB_DEPS_LDLIBS) $(TARGET_LDFLAGS)

# The demo (host only) times its large attention on 1 and 2 workers: the pthread pool example.
$(DEMO): $(BUILD)/examples/demo.o $(BUILD)/examples/fma_peak.o \
    $(BUILD)/examples/thread_pool/pthread_pool.o $(LIB)
	$(CXX) $(SAN_FLAGS) -o $@ $^ $(LIB_DEPS_LDLIBS) $(TARGET_LDFLAGS) -pthread

# The benchmarks' FMA probe, built with the library's flags: same Highway targets as the
# kernels, so its dynamic dispatch runs the target ea_simd_target() reports.
$(BUILD)/examples/fma_peak.o: bench/fma_peak.cc $(CONFIG_FILES) | $(SYSINCLUDE)
	@mkdir -p $(dir $@)
	$(CXX) $(EXAMPLE_CXXFLAGS) -c $< -o $@

# The trained reversal model decoding on the KV cache (examples/reversal).
REVERSAL_DEMO := $(BUILD)/examples/reversal/reversal_demo
$(REVERSAL_DEMO): $(BUILD)/examples/reversal/reversal_demo.o \
    $(BUILD)/examples/reversal/reversal_model.o $(BUILD)/examples/reversal/reversal_quant_model.o \
    $(LIB)
	$(CXX) $(SAN_FLAGS) -o $@ $^ $(LIB_DEPS_LDLIBS) $(TARGET_LDFLAGS)

demo: deps
	@$(MAKE) --no-print-directory $(DEMO) $(REVERSAL_DEMO)
	$(RUN) $(call Runnable,$(DEMO))
	$(RUN) $(call Runnable,$(REVERSAL_DEMO))

reversal-demo: deps
	@$(MAKE) --no-print-directory $(REVERSAL_DEMO)
	$(RUN) $(call Runnable,$(REVERSAL_DEMO))

# Programs that link only the library (and the board's start-up code).
$(MINIMAL) $(FIRMWARE) $(INT8_FIRMWARE): $(BUILD)/examples/%: $(BUILD)/examples/%.o $(TARGET_OBJS) $(LIB) \
    $(TARGET_LINK_DEPS)
	$(CXX) -o $@ $< $(TARGET_OBJS) $(LIB) $(LIB_DEPS_LDLIBS) $(TARGET_LDFLAGS)

# The firmware examples on Cortex-M boards under qemu, in one command: the
# float self-attention and the int8 MHA from flash on each of FIRMWARE_TARGETS,
# then the int8 output digests compared (the DSP and Helium kernels must give
# the same integers).
firmware:
	@mkdir -p $(BUILD_ROOT); rm -f $(BUILD_ROOT)/firmware-digests.new; \
	for target in $(FIRMWARE_TARGETS); do \
	  log=$(BUILD_ROOT)/firmware-$$target.log; \
	  $(MAKE) --no-print-directory TARGET=$$target deps || exit 1; \
	  $(MAKE) --no-print-directory TARGET=$$target firmware-run >$$log 2>&1; status=$$?; \
	  cat $$log; [ $$status -eq 0 ] || exit $$status; \
	  grep -h '^int8 output digest' $$log >>$(BUILD_ROOT)/firmware-digests.new || exit 1; \
	done; \
	mv $(BUILD_ROOT)/firmware-digests.new $(BUILD_ROOT)/firmware-digests; \
	if [ "$$(sort -u $(BUILD_ROOT)/firmware-digests | wc -l)" -ne 1 ]; then \
	  echo "int8 output digests differ between $(FIRMWARE_TARGETS)"; exit 1; fi; \
	echo "int8 output digest identical on $(FIRMWARE_TARGETS)"

firmware-run: $(FIRMWARE) $(INT8_FIRMWARE)
	$(RUN) $(FIRMWARE)
	$(RUN) $(INT8_FIRMWARE)

# Sizes, stack depth and link checks of every static target (README table).
footprint:
	@bash tools/footprint.sh

footprint-row: $(LIB) $(MINIMAL) $(INT8_FIRMWARE)
	@bash tools/footprint.sh --row "$(TARGET)" "$(SIZE)" "$(NM)" "$(LIB)" "$(MINIMAL)" \
	  "$(BUILD)" "$(RUN)" "$(INT8_FIRMWARE)"

# Headers, archive and a pkg-config file under PREFIX (cross archives too:
# make TARGET=aarch64-sve PREFIX=/opt/sysroot/usr install).
PREFIX ?= /usr/local
# The archive is static, so what it links against is every program's link
# dependency: dynamic dispatch's -lhwy becomes `Requires: libhwy` (plain
# `pkg-config --libs` must link); static builds require nothing.
PKGCONFIG_REQUIRES := $(if $(filter -lhwy,$(LIB_DEPS_LDLIBS)),libhwy)
PKGCONFIG_LIBS := $(strip -ledgeattn $(filter-out -lhwy,$(LIB_DEPS_LDLIBS)) -lm)
install:
	@sh tools/install_deps.sh $(DEBIAN_PACKAGES) pkg-config
	@$(MAKE) --no-print-directory install-files

install-files: $(LIB)
	install -d $(DESTDIR)$(PREFIX)/include/edgeattn $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 include/edgeattn/*.h include/edgeattn/*.hpp $(DESTDIR)$(PREFIX)/include/edgeattn
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libedgeattn.a
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(shell sed -n \
	  's/^#define EDGEATTN_VERSION_STRING "\(.*\)"/\1/p' include/edgeattn/common.h)|' \
	  -e 's|@REQUIRES@|$(PKGCONFIG_REQUIRES)|' -e '/^Requires: *$$/d' -e 's|@LIBS@|$(PKGCONFIG_LIBS)|' \
	  tools/edgeattn.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/edgeattn.pc

# The malloc interposer cannot sit beside ASan's own, nor in a static libc.
TEST_BINARIES := $(SUITE) $(if $(filter 1,$(SANITIZE)),,$(if $(filter 1,$(NO_HEAP_TEST)),$(NO_HEAP)))

test: deps
	@$(MAKE) --no-print-directory test-run

# Native runs split each suite into one gtest shard per core (TEST_SHARDS=1: one
# process); emulated runs are one process each (make matrix runs two targets at once).
TEST_SHARDS ?= $(if $(RUN),1,$(shell nproc 2>/dev/null || echo 1))
DECODE_PREFETCHES ?= yes
test-run: $(TEST_BINARIES)
	@TEST_SHARDS="$(TEST_SHARDS)" SCRIPT_CHECKS="$(SCRIPT_CHECKS)" \
	  DECODE_PREFETCHES="$(DECODE_PREFETCHES)" sh tests/run_suites.sh "$(RUN)" \
	  "$(NM)" "$(LIB)" $(TEST_BINARIES)

asan: deps
	@$(MAKE) --no-print-directory SANITIZE=1 test-run

# The cross-target digest test alone (make matrix runs it after a part of the suite).
digest-run: $(SUITE)
	$(RUN) $(call Runnable,$(SUITE)) --gtest_filter='CrossTargetDigest.*'

# Every toolchain fragment's suite, SVE at 128..2048 bits, digests compared.
matrix:
	@bash tools/matrix.sh

# The library as user projects consume it (tests/consumers/): CMake
# add_subdirectory and find_package, pkg-config, the archive by path; on the
# host, aarch64 and Cortex-M4 (both under qemu).
consumers:
	@sh tools/consumers.sh "$(BUILD_ROOT)"

# Benchmarks (host only): Google Benchmark; Eigen and oneDNN as the peers a user would
# reach for instead, both built for this exact CPU and run on one thread. The FMA probe is
# the demo's object (library flags, dynamic dispatch), so it can be capped at AVX2 as the
# kernels are. The integer dot-product probe (bench/int_dot_peak.cc) is bench code: each of
# its functions carries its own target attribute and is picked at run time. The 2-worker rows
# run on the pthread pool example (linked with -pthread). Everything goes under
# $(BUILD_ROOT)/<target>/ (make BUILD_ROOT=/tmp/b bench-quick); results to bench/results/.
# bench-quick: the headline shapes in under a minute; bench: the full suite, then
# bench-report (README tables and bench/results/latest.png from the JSON).
BENCH := $(BUILD)/bench/attention_bench
# The command that runs it: ./build/host/... for the default relative BUILD_ROOT, the path
# itself for an absolute one (./ + /tmp/b/... would be a path below the repository).
BENCH_COMMAND := $(call Runnable,$(BENCH))
BENCH_SRCS := $(filter-out bench/fma_peak.cc,$(wildcard bench/*.cc))
BENCH_OBJS := $(BENCH_SRCS:%.cc=$(BUILD)/%.o) $(BUILD)/examples/fma_peak.o \
  $(BUILD)/examples/thread_pool/pthread_pool.o
BENCH_CXXFLAGS := -std=c++17 -O3 -march=native -DNDEBUG $(WARNINGS) -Iinclude \
  -isystem /usr/include/eigen3 $(TARGET_CXXFLAGS) -MD -MP
# libdnnl runs on OpenMP (libgomp); the bench calls omp_set_num_threads itself.
BENCH_LDLIBS := -lbenchmark -ldnnl -lgomp $(LIB_DEPS_LDLIBS) -pthread
BENCH_PACKAGES := libbenchmark-dev libeigen3-dev libdnnl-dev python3-matplotlib
BENCH_RESULTS ?= bench/results/latest.json
# Debian's interpreter, the one python3-matplotlib installs into (not a pyenv or venv first
# on PATH).
BENCH_PYTHON ?= /usr/bin/python3

$(BUILD)/bench/%.o: bench/%.cc $(CONFIG_FILES)
	@mkdir -p $(dir $@)
	$(CXX) $(BENCH_CXXFLAGS) -c $< -o $@

$(BENCH): $(BENCH_OBJS) $(LIB)
	$(CXX) -o $@ $^ $(BENCH_LDLIBS)

bench: deps
	@sh tools/install_deps.sh $(BENCH_PACKAGES)
	@$(MAKE) --no-print-directory $(BENCH)
	@mkdir -p bench/results
	$(RUN) $(BENCH_COMMAND) --benchmark_out=bench/results/latest.json --benchmark_out_format=json
	@$(MAKE) --no-print-directory bench-report BENCH_RESULTS=bench/results/latest.json

bench-quick: deps
	@sh tools/install_deps.sh $(BENCH_PACKAGES)
	@$(MAKE) --no-print-directory $(BENCH)
	@mkdir -p bench/results
	$(RUN) $(BENCH_COMMAND) --suite=quick --benchmark_out=bench/results/quick.json \
	  --benchmark_out_format=json

# Plot and README tables from a results file (default: the last `make bench`).
bench-report:
	@sh tools/install_deps.sh python3-matplotlib
	$(BENCH_PYTHON) tools/bench_report.py $(BENCH_RESULTS)

# Static analysis of the library, and the sources' formatting.
lint: format-check
	@sh tools/check_readme_example.sh
	@sh tools/check_version_text.sh
	@sh tools/install_deps.sh cppcheck
	@sh tools/check_sources.sh
	@sh tools/check_layers.sh
	@sh tools/check_entry_point_tables.sh
	cppcheck --quiet --error-exitcode=1 --std=c++17 --language=c++ \
	  --enable=warning,performance,portability --inline-suppr \
	  --suppress=missingIncludeSystem -Iinclude -Isrc \
	  -DHWY_ONCE=1 -DHWY_NAMESPACE=N_LINT src include

# The API reference from the public headers (Doxygen), failing on any
# undocumented public symbol (tools/check_docs.sh).
docs:
	@sh tools/install_deps.sh doxygen
	@sh tools/check_docs.sh $(BUILD_ROOT)/docs

# Generated weight headers (tools/convert_weights.py) are not formatted.
FORMAT_SRCS := $(filter-out examples/reversal/reversal_weights.h examples/reversal/reversal_quant_weights.h,$(wildcard include/edgeattn/*.h \
  include/edgeattn/*.hpp src/*/*.h src/*/*.cc src/*/*/*.h src/*/*/*.cc src/*/*/*/*.h src/*/*/*/*.cc \
  tests/*.h tests/*/*_test.cc tests/reference/*.h tests/reference/*.cc examples/*.c examples/*.cc \
  examples/*.h examples/*/*.cc examples/*/*.c examples/*/*.h bench/*.h bench/*.cc platform/*/*.c platform/*/*.cc platform/*/*.h \
  tests/consumers/*.c tests/consumers/*.h tests/fuzz/*.h tests/fuzz/*.cc))

format:
	@sh tools/install_deps.sh clang-format
	clang-format -i $(FORMAT_SRCS)

format-check:
	@sh tools/install_deps.sh clang-format
	@clang-format --dry-run --Werror $(FORMAT_SRCS) && echo "clang-format: all sources formatted"


clean:
	rm -rf $(BUILD_ROOT)

include tests/fuzz/fuzz.mk
include bench/mcu/mcu.mk
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
