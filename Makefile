# edgeattn build. `make help` lists the targets.
#
# TARGET picks a fragment in toolchains/ (compiler, flags, dispatch mode, the
# command that runs test binaries); everything below is target independent.
# SANITIZE=1 builds with AddressSanitizer + UBSan into build/<target>-asan.

TARGET ?= host
SANITIZE ?= 0
include toolchains/$(TARGET).mk

BUILD_ROOT ?= build
BUILD := $(BUILD_ROOT)/$(TARGET)$(if $(filter 1,$(SANITIZE)),-asan,)
LIB := $(BUILD)/libedgeattn.a

WARNINGS := -Wall -Wextra -Werror
OPT := -O2
ifeq ($(SANITIZE),1)
  OPT := -O1 -g -fno-omit-frame-pointer
  SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all
endif

# The library: no exceptions, no RTTI, no thread-safe statics (no hidden
# guard calls), NDEBUG so Highway's asserts reference no libhwy symbol.
LIB_CXXFLAGS := -std=c++17 $(OPT) -DNDEBUG $(WARNINGS) -fno-exceptions -fno-rtti \
  -fno-threadsafe-statics -Iinclude -Isrc $(TARGET_CXXFLAGS) $(SAN_FLAGS) -MMD -MP
TEST_CXXFLAGS := -std=c++17 $(OPT) $(WARNINGS) -Iinclude -Isrc -Itests $(TARGET_CXXFLAGS) \
  $(SAN_FLAGS) -MMD -MP
TEST_CFLAGS := -std=c11 $(OPT) $(WARNINGS) -pedantic -Iinclude $(TARGET_CFLAGS) $(SAN_FLAGS) -MMD -MP

LIB_SRCS := $(wildcard src/*.cc)
LIB_OBJS := $(LIB_SRCS:%.cc=$(BUILD)/%.o)

# Every tests/*_test.cc goes into one GoogleTest binary; the no-heap proof
# interposes malloc and so is a binary of its own.
SUITE_SRCS := $(filter-out tests/no_heap_test.cc,$(wildcard tests/*_test.cc)) \
  $(wildcard tests/reference/*.cc)
SUITE_OBJS := $(SUITE_SRCS:%.cc=$(BUILD)/%.o) $(BUILD)/examples/c_usage.o
SUITE := $(BUILD)/tests/edgeattn_tests
NO_HEAP := $(BUILD)/tests/no_heap_test
DEMO := $(BUILD)/examples/demo

.PHONY: all lib deps demo test asan test-run bench lint format format-check clean help

all: lib

help:
	@echo "make            build $(LIB)"
	@echo "make demo       install dependencies, build and run the demo"
	@echo "make test       install dependencies, build and run every test suite"
	@echo "make asan       the test suites under AddressSanitizer + UBSan"
	@echo "make bench      benchmarks vs the machine's FMA peak and an Eigen baseline"
	@echo "make lint       cppcheck over src/ and include/"
	@echo "make format     clang-format every source in place"
	@echo "TARGET=<name>   a toolchains/<name>.mk fragment (default: host)"

lib: $(LIB)

deps:
	@sh tools/install_deps.sh $(DEBIAN_PACKAGES)

$(LIB): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/src/%.o: src/%.cc
	@mkdir -p $(dir $@)
	$(CXX) $(LIB_CXXFLAGS) -c $< -o $@

$(BUILD)/tests/%.o: tests/%.cc
	@mkdir -p $(dir $@)
	$(CXX) $(TEST_CXXFLAGS) -c $< -o $@

$(BUILD)/examples/%.o: examples/%.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -c $< -o $@

$(BUILD)/examples/%.o: examples/%.cc
	@mkdir -p $(dir $@)
	$(CXX) $(TEST_CXXFLAGS) -c $< -o $@

$(SUITE): $(SUITE_OBJS) $(LIB)
	$(CXX) $(SAN_FLAGS) -o $@ $(SUITE_OBJS) $(LIB) -lgtest_main $(TEST_LDLIBS)

$(NO_HEAP): $(BUILD)/tests/no_heap_test.o $(BUILD)/tests/reference/random_tensor.o $(LIB)
	$(CXX) -o $@ $^ -lgtest_main $(TEST_LDLIBS)

$(DEMO): $(BUILD)/examples/demo.o $(LIB)
	$(CXX) $(SAN_FLAGS) -o $@ $^ $(LIB_DEPS_LDLIBS)

demo: deps
	@$(MAKE) --no-print-directory $(DEMO)
	$(RUN) ./$(DEMO)

# The malloc interposer cannot sit beside ASan's own, so sanitizer runs skip it.
TEST_BINARIES := $(SUITE) $(if $(filter 1,$(SANITIZE)),,$(NO_HEAP))

test: deps
	@$(MAKE) --no-print-directory test-run

test-run: $(TEST_BINARIES)
	@sh tests/run_suites.sh "$(RUN)" "$(NM)" "$(LIB)" $(TEST_BINARIES)

asan: deps
	@$(MAKE) --no-print-directory SANITIZE=1 test-run

# Benchmarks (host only): Google Benchmark, Eigen as the peer a user would
# write instead, both built for this exact CPU.
BENCH := $(BUILD)/bench/attention_bench
BENCH_SRCS := $(wildcard bench/*.cc)
BENCH_OBJS := $(BENCH_SRCS:%.cc=$(BUILD)/%.o)
BENCH_CXXFLAGS := -std=c++17 -O3 -march=native -DNDEBUG $(WARNINGS) -Iinclude \
  -isystem /usr/include/eigen3 $(TARGET_CXXFLAGS) -MMD -MP

$(BUILD)/bench/%.o: bench/%.cc
	@mkdir -p $(dir $@)
	$(CXX) $(BENCH_CXXFLAGS) -c $< -o $@

$(BENCH): $(BENCH_OBJS) $(LIB)
	$(CXX) -o $@ $^ -lbenchmark $(LIB_DEPS_LDLIBS) -pthread

bench: deps
	@sh tools/install_deps.sh libbenchmark-dev libeigen3-dev
	@$(MAKE) --no-print-directory $(BENCH)
	@mkdir -p bench/results
	$(RUN) ./$(BENCH) --benchmark_out=bench/results/$(TARGET).json --benchmark_out_format=json

lint:
	@sh tools/install_deps.sh cppcheck
	cppcheck --quiet --error-exitcode=1 --std=c++17 --language=c++ \
	  --enable=warning,performance,portability --inline-suppr \
	  --suppress=missingIncludeSystem -Iinclude -Isrc \
	  -DHWY_ONCE=1 -DHWY_NAMESPACE=N_LINT src include

FORMAT_SRCS := $(wildcard include/edgeattn/*.h include/edgeattn/*.hpp src/*.h src/*.cc \
  tests/*.h tests/*.cc tests/reference/*.h tests/reference/*.cc examples/*.c examples/*.cc \
  bench/*.cc)

format:
	clang-format -i $(FORMAT_SRCS)

format-check:
	clang-format --dry-run --Werror $(FORMAT_SRCS)

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
