# The GoogleTest suite against the CMake-built library (EDGEATTN_BUILD_TESTS,
# on by default only in a top-level hosted build): the same sources as the
# Makefile's SUITE, run by ctest. `make test` remains the full check (every
# forced target, the no-heap interposer, the archive's link checks).
enable_language(C)
find_package(GTest REQUIRED)
enable_testing()

file(GLOB _edgeattn_test_sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tests/*/*_test.cc"
     "${PROJECT_SOURCE_DIR}/tests/reference/*.cc" "${PROJECT_SOURCE_DIR}/tests/data/tflite/*.cc"
     "${PROJECT_SOURCE_DIR}/tests/data/weights/*.cc")
# The TFLite golden tensors are .incbin'ed by paths relative to the source root.
set_source_files_properties("${PROJECT_SOURCE_DIR}/tests/data/tflite/golden_blobs.cc" PROPERTIES
                            COMPILE_OPTIONS "-Wa,-I${PROJECT_SOURCE_DIR}")
list(REMOVE_ITEM _edgeattn_test_sources "${PROJECT_SOURCE_DIR}/tests/contract/no_heap_test.cc")
find_package(Threads REQUIRED)
add_executable(edgeattn_tests ${_edgeattn_test_sources} "${PROJECT_SOURCE_DIR}/examples/c_usage.c"
                              "${PROJECT_SOURCE_DIR}/examples/reversal/reversal_model.cc"
                              "${PROJECT_SOURCE_DIR}/examples/reversal/reversal_quant_model.cc"
                              "${PROJECT_SOURCE_DIR}/examples/thread_pool/pthread_pool.c")
set_target_properties(edgeattn_tests PROPERTIES CXX_STANDARD 17 CXX_EXTENSIONS OFF C_STANDARD 11
                                                C_EXTENSIONS OFF)
target_include_directories(edgeattn_tests PRIVATE "${PROJECT_SOURCE_DIR}/src"
                                                  "${PROJECT_SOURCE_DIR}/tests")
# TEST_CXXFLAGS / TEST_CFLAGS of the Makefile (the dispatch defines included).
get_target_property(_edgeattn_defines edgeattn COMPILE_DEFINITIONS)
list(REMOVE_ITEM _edgeattn_defines NDEBUG)
target_compile_definitions(edgeattn_tests PRIVATE ${_edgeattn_defines} EDGEATTN_TEST_PTHREAD_POOL=1)
target_compile_options(edgeattn_tests PRIVATE ${EDGEATTN_OPTIMIZE} -Wall -Wextra
                       $<$<BOOL:${EDGEATTN_WERROR}>:-Werror> $<$<COMPILE_LANGUAGE:C>:-pedantic>)
target_link_libraries(edgeattn_tests PRIVATE edgeattn GTest::gtest_main GTest::gtest
                                             Threads::Threads)
if(EDGEATTN_HWY_INCLUDE_DIR)
  target_include_directories(edgeattn_tests SYSTEM PRIVATE "${EDGEATTN_HWY_INCLUDE_DIR}")
endif()
add_test(NAME edgeattn_tests COMMAND edgeattn_tests)
