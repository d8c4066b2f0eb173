// The two weight-file formats of edgeattn/weight_file.h: validation of a
// whole file, and the lookup of one tensor in a file already validated.
// weight_blob.cc holds the edgeattn blob, safetensors.cc the safetensors
// reader; the entry points (weight_file_api.cc) pick one by magic.
#ifndef EDGEATTN_SRC_WEIGHTS_WEIGHT_FORMATS_H_
#define EDGEATTN_SRC_WEIGHTS_WEIGHT_FORMATS_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/weight_file.h"

namespace edgeattn {

inline constexpr uint32_t kBlobFormat = 1;
inline constexpr uint32_t kSafetensorsFormat = 2;

// The blob's fixed sizes (docs/WEIGHT_FILES.md).
inline constexpr size_t kBlobHeaderBytes = 64;
inline constexpr size_t kBlobEntryBytes = 192;
inline constexpr size_t kBlobNameBytes = 96;
inline constexpr uint32_t kBlobVersion = 1;
inline constexpr uint64_t kBlobTensorAlignment = 64;
static_assert(kBlobNameBytes == EA_TENSOR_MAX_NAME + 1, "a blob name and its NUL");

// Bytes per element of a known dtype; 0 for an unknown one.
size_t TensorElementBytes(uint32_t dtype);

// product(dims) * element bytes, or false when it exceeds `limit`.
bool TensorBytes(const int64_t* dims, int32_t rank, size_t element_bytes, uint64_t limit,
                 uint64_t* bytes);

// One scratch record per tensor (EA_WEIGHT_FILE_SCRATCH_BYTES): a name's
// place in the file while names are sorted, a data range while offsets are.
struct IndexRecord {
  size_t a;
  size_t b;
};
static_assert(sizeof(IndexRecord) == 2 * sizeof(size_t), "EA_WEIGHT_FILE_SCRATCH_BYTES");

// What the first pass over a file found.
struct FileCheck {
  uint32_t count = 0;       // tensors
  size_t header_bytes = 0;  // safetensors: the JSON header's length
  bool misaligned = false;  // a tensor not aligned to its element size
};

// The first pass: every check weight_file.h lists that needs no scratch.
// EA_OK (with *check) or EA_ERR_BAD_FILE.
bool IsBlob(const uint8_t* bytes, size_t size);
ea_status CheckBlob(const uint8_t* bytes, size_t size, FileCheck* check);
ea_status CheckSafetensors(const uint8_t* bytes, size_t size, FileCheck* check);

// The second pass, on a file the first accepted, with check.count records
// of scratch: a name given twice (both formats), tensors that overlap or
// leave bytes of the data uncovered (safetensors; the blob's order rule was
// the first pass's). EA_OK or EA_ERR_BAD_FILE.
ea_status CheckBlobIndex(const uint8_t* bytes, const FileCheck& check, IndexRecord* index);
ea_status CheckSafetensorsIndex(const uint8_t* bytes, size_t size, const FileCheck& check,
                                IndexRecord* index);

bool FindBlobTensor(const ea_weight_file& file, const char* name, ea_tensor_view* view);
bool FindSafetensor(const ea_weight_file& file, const char* name, ea_tensor_view* view);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_WEIGHTS_WEIGHT_FORMATS_H_
