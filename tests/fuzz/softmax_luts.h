// TFLite Micro's two int16 softmax lookup tables (softmax_luts.cc).
#ifndef EDGEATTN_TESTS_FUZZ_SOFTMAX_LUTS_H_
#define EDGEATTN_TESTS_FUZZ_SOFTMAX_LUTS_H_

#include <stdint.h>

extern "C" {
extern const int16_t edgeattn_fuzz_softmax_exp_lut[513];
extern const int16_t edgeattn_fuzz_softmax_one_over_one_plus_x_lut[513];
}

#endif  // EDGEATTN_TESTS_FUZZ_SOFTMAX_LUTS_H_
