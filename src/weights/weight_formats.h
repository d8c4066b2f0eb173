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

bool IsBlob(const uint8_t* bytes, size_t size);
// EA_OK with *count tensors, or EA_ERR_BAD_FILE.
ea_status ValidateBlob(const uint8_t* bytes, size_t size, uint32_t* count);
bool FindBlobTensor(const ea_weight_file& file, const char* name, ea_tensor_view* view);

// EA_OK with *count tensors and the JSON header's length, or EA_ERR_BAD_FILE.
ea_status ValidateSafetensors(const uint8_t* bytes, size_t size, uint32_t* count,
                              size_t* header_bytes);
bool FindSafetensor(const ea_weight_file& file, const char* name, ea_tensor_view* view);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_WEIGHTS_WEIGHT_FORMATS_H_
