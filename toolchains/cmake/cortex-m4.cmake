# CMake toolchain file: Cortex-M4F bare metal (single-precision FPU) with
# Debian's gcc-arm-none-eabi and newlib; the CPU flags of toolchains/cortex-m4.mk
# (CM_CPU_FLAGS of platform/cortex-m/board.mk, BOARD=an386: keep them equal).
#   cmake -DCMAKE_TOOLCHAIN_FILE=<edgeattn>/toolchains/cmake/cortex-m4.cmake ...
# edgeattn then builds with static dispatch (Highway's SCALAR target, headers
# only, from a private folder linking /usr/include/hwy). Images need start-up
# code, a linker script and specs: the project's own, or platform/cortex-m/
# (tests/consumers/cmake-subdirectory shows how).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(_edgeattn_cpu_flags "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_C_FLAGS_INIT "${_edgeattn_cpu_flags}")
set(CMAKE_CXX_FLAGS_INIT "${_edgeattn_cpu_flags}")
# CMake's compiler checks cannot link a program without a board: archive them.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
# For ctest / add_test: the board model of toolchains/cortex-m4.mk, semihosting
# (main's return value is the exit status), for images linked with mps2-an386.ld.
set(CMAKE_CROSSCOMPILING_EMULATOR timeout --foreground 120 qemu-system-arm -M mps2-an386
    -nographic -semihosting -kernel)

set(CMAKE_FIND_ROOT_PATH /usr/lib/arm-none-eabi)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
