# CMake toolchain file: 64-bit Arm Linux, ARMv8-A NEON (Cortex-A53/A72 class),
# Debian's g++-aarch64-linux-gnu; the flags of toolchains/aarch64-neon.mk.
#   cmake -DCMAKE_TOOLCHAIN_FILE=<edgeattn>/toolchains/cmake/aarch64-neon.cmake ...
# edgeattn then builds with static dispatch (Highway as headers only, from a
# private folder linking /usr/include/hwy, never the host's /usr/include).
# Programs run under qemu-aarch64: link them -static, or let ctest use the
# emulator below (it finds the target's shared libraries under -L).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_C_FLAGS_INIT "-march=armv8-a")
set(CMAKE_CXX_FLAGS_INIT "-march=armv8-a")
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -cpu cortex-a72 -L /usr/aarch64-linux-gnu)

# Libraries, headers and packages of the target only; programs of the host.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
