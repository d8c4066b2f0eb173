// The sample state_dict of tools/test_convert_weights.py as files, compiled
// in (sample_files.cc, generated): so every target, Cortex-M included, reads
// the same bytes without a file system.
#ifndef EDGEATTN_TESTS_DATA_WEIGHTS_SAMPLE_FILES_H_
#define EDGEATTN_TESTS_DATA_WEIGHTS_SAMPLE_FILES_H_

#include <stddef.h>

// As safetensors (tensors by element size then name, as the safetensors
// library writes them) and as tools/convert_weights.py's blob with every
// 2-D "...weight" matrix packed. Both start 64-byte aligned.
extern const unsigned char kSampleSafetensors[];
extern const size_t kSampleSafetensors_size;
extern const unsigned char kSampleBlob[];
extern const size_t kSampleBlob_size;

#endif  // EDGEATTN_TESTS_DATA_WEIGHTS_SAMPLE_FILES_H_
