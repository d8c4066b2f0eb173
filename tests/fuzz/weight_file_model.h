// An independent reader of edgeattn's two weight-file formats, written from
// edgeattn/weight_file.h and docs/WEIGHT_FILES.md for the fuzz harness: a
// recursive JSON parser into a tree (heap, std::string), code points decoded
// and re-encoded, sets and sorts from the standard library. It shares no
// code with src/weights and gives the status open must return and the
// tensors find must then give.
#ifndef EDGEATTN_TESTS_FUZZ_WEIGHT_FILE_MODEL_H_
#define EDGEATTN_TESTS_FUZZ_WEIGHT_FILE_MODEL_H_

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

#include "edgeattn/weight_file.h"

namespace edgeattn_fuzz {

struct ModelTensor {
  std::string name;  // decoded
  int dtype = 0;
  int layout = EA_TENSOR_ROW_MAJOR;
  int rank = 0;
  int64_t dims[EA_TENSOR_MAX_RANK] = {};
  uint64_t offset = 0;  // from the file's first byte
  uint64_t bytes = 0;
};

struct ModelFile {
  // weight_file.h's step 1 (the format): EA_OK or EA_ERR_BAD_FILE, and
  // the tensor count when EA_OK.
  ea_status format = EA_ERR_BAD_FILE;
  size_t count = 0;
  // Step 3 (a name twice, data not covered exactly once) and step 4 (a
  // tensor not aligned to its element size), meaningful after step 1.
  bool index_fault = false;
  bool misaligned = false;
  std::vector<ModelTensor> tensors;

  // open's status with index room for `capacity` tensors.
  ea_status Status(size_t capacity) const {
    if (format != EA_OK) return format;
    if (count > capacity) return EA_ERR_ARENA_TOO_SMALL;
    if (index_fault) return EA_ERR_BAD_FILE;
    return misaligned ? EA_ERR_UNSUPPORTED : EA_OK;
  }
  const ModelTensor* Find(const std::string& name) const;
};

ModelFile ModelOpen(const uint8_t* bytes, size_t size);

// The tensors ea_weight_file_find_mha reads under a prefix (names with the
// prefix; empty: the field stays NULL), per the header's three namings.
struct ModelMhaNames {
  std::string in_w, in_b, out_w, out_b;
  std::string w[3], b[3];  // W_Q, W_K, W_V as three tensors, their biases
};

// ea_weight_file_find_mha's status on an opened file, in the header's order;
// on EA_OK *names (when given) holds what it reads.
ea_status ModelMha(const ModelFile& file, const std::string& prefix, int32_t d_model,
                   int32_t n_heads, int32_t n_kv_heads, ModelMhaNames* names = nullptr);

// A JSON string's decoded bytes, or false when the reader must refuse it
// (text is the raw string between the quotes).
bool ModelDecodeString(const std::string& text, std::string* decoded);

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_WEIGHT_FILE_MODEL_H_
