// A device's int16 softmax tables that are not the built-in ones: TFLite
// Micro fills exp_lut and one_over_one_plus_x_lut at Prepare with the
// device's expf, and another libm can round an entry differently. Tests hand
// these to the library (ea_softmax_quant_params) and to the integer
// reference alike, and check that the integers follow the tables.
#ifndef EDGEATTN_TESTS_REFERENCE_DEVICE_SOFTMAX_LUTS_H_
#define EDGEATTN_TESTS_REFERENCE_DEVICE_SOFTMAX_LUTS_H_

#include <stdint.h>

namespace edgeattn_test {

// TFLite's tables (tests/data/tflite) with every entry but the last moved by
// a fixed pattern of -3 .. +3 and kept in [0, 32767]: far more than a libm's
// rounding, so that many integers change, yet a valid pair of tables.
const int16_t* DeviceExpLut();
const int16_t* DeviceReciprocalLut();

// TFLite's own tables, as the golden data holds them.
const int16_t* TfliteExpLut();
const int16_t* TfliteReciprocalLut();

}  // namespace edgeattn_test

#endif  // EDGEATTN_TESTS_REFERENCE_DEVICE_SOFTMAX_LUTS_H_
