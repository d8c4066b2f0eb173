# The counted Cortex-M bench (bench/mcu/, `make bench-mcu`): tools/bench_mcu.py
# builds and runs these per board with TARGET=cortex-m4, cortex-m7 and
# cortex-m55. Compiled as firmware compiles its own code (EXAMPLE_CXXFLAGS).
MCU_BENCH := $(BUILD)/bench/mcu/mcu_bench
MCU_BENCH_OBJS := $(addprefix $(BUILD)/bench/mcu/,mcu_bench.o instruction_counter.o \
  stack_watermark.o)

$(BUILD)/bench/mcu/%.o: bench/mcu/%.cc $(CONFIG_FILES) | $(SYSINCLUDE)
	@mkdir -p $(dir $@)
	$(CXX) $(EXAMPLE_CXXFLAGS) -DMCU_BENCH_BOARD_$(BOARD) -c $< -o $@

$(MCU_BENCH): $(MCU_BENCH_OBJS) $(TARGET_OBJS) $(LIB) $(TARGET_LINK_DEPS)
	$(CXX) -o $@ $(MCU_BENCH_OBJS) $(TARGET_OBJS) $(LIB) $(LIB_DEPS_LDLIBS) $(TARGET_LDFLAGS)

.PHONY: bench-mcu mcu-bench-images mcu-bench-run
bench-mcu:
	@$(BENCH_PYTHON) tools/bench_mcu.py

# The int8 firmware example (Makefile's INT8_FIRMWARE) links only what an int8
# MHA with a precomputed table and given integers needs: the bench reports the
# library text it links and any libm function it pulls in.
mcu-bench-images: $(MCU_BENCH) $(INT8_FIRMWARE)

mcu-bench-run: $(MCU_BENCH)
	$(CM_RUN_COUNTED) $(MCU_BENCH)
