// TFLite Micro's int16 softmax tables (InitializeLutForInt16: exp on [-10, 0]
// and 1 / (1 + x) on [0, 1], 513 entries each), as the golden data ship them
// (tests/data/tflite/*.bin), for the integer reference of the fixed-point
// driver. The .incbin paths are relative to the repository root (fuzz.mk
// passes -Wa,-I<source root>).
#include "softmax_luts.h"

// clang-format off
asm(".pushsection .rodata\n"
    "  .balign 16\n"
    "  .global edgeattn_fuzz_softmax_exp_lut\n"
    "edgeattn_fuzz_softmax_exp_lut:\n"
    "  .incbin \"tests/data/tflite/softmax_exp_lut.bin\"\n"
    "  .balign 16\n"
    "  .global edgeattn_fuzz_softmax_one_over_one_plus_x_lut\n"
    "edgeattn_fuzz_softmax_one_over_one_plus_x_lut:\n"
    "  .incbin \"tests/data/tflite/softmax_one_over_one_plus_x_lut.bin\"\n"
    ".popsection\n");
// clang-format on
