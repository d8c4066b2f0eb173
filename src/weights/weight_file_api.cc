// C entry points of edgeattn/weight_file.h: open (the format by its magic,
// validated whole), find (a zero-copy view), and the nn.MultiheadAttention
// weights of a plan checked against its shape.
#include <stdint.h>
#include <string.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/weight_file.h"
#include "weights/weight_formats.h"

namespace edgeattn {

size_t TensorElementBytes(uint32_t dtype) {
  switch (dtype) {
    case EA_TENSOR_F64:
    case EA_TENSOR_I64:
      return 8;
    case EA_TENSOR_F32:
    case EA_TENSOR_I32:
      return 4;
    case EA_TENSOR_F16:
    case EA_TENSOR_BF16:
    case EA_TENSOR_I16:
      return 2;
    case EA_TENSOR_I8:
    case EA_TENSOR_U8:
    case EA_TENSOR_BOOL:
      return 1;
    default:
      return 0;
  }
}

bool TensorBytes(const int64_t* dims, int32_t rank, size_t element_bytes, uint64_t limit,
                 uint64_t* bytes) {
  if (element_bytes == 0) return false;
  uint64_t total = element_bytes;
  for (int32_t i = 0; i < rank; ++i) {
    const uint64_t d = static_cast<uint64_t>(dims[i]);
    if (d == 0) {
      total = 0;
      continue;
    }
    if (total > limit / d) return false;
    total *= d;
  }
  *bytes = total;
  return total <= limit;
}

namespace {

constexpr uint32_t kFileReady = 0x45415746u;  // "EAWF"
constexpr size_t kMaxPrefix = 256;

bool ShapeIs(const ea_tensor_view& v, int32_t rank, int64_t d0, int64_t d1) {
  return v.dtype == EA_TENSOR_F32 && v.rank == rank && v.dims[0] == d0 &&
         (rank < 2 || v.dims[1] == d1);
}

// file's tensor prefix + suffix; EA_ERR_NOT_FOUND when absent.
ea_status FindWithPrefix(const ea_weight_file& file, const char* prefix, size_t prefix_length,
                         const char* suffix, ea_tensor_view* view) {
  char name[kMaxPrefix + 32];
  const size_t suffix_length = strlen(suffix);
  memcpy(name, prefix, prefix_length);
  memcpy(name + prefix_length, suffix, suffix_length + 1);
  return ea_weight_file_find(&file, name, view);
}

}  // namespace
}  // namespace edgeattn

extern "C" {

ea_status ea_weight_file_open(ea_weight_file* file, const void* bytes, size_t size) {
  if (file == nullptr || bytes == nullptr) return EA_ERR_NULL_POINTER;
  if (reinterpret_cast<uintptr_t>(bytes) % 8 != 0) return EA_ERR_BAD_ARGUMENT;
  const uint8_t* data = static_cast<const uint8_t*>(bytes);
  uint32_t count = 0;
  size_t header_bytes = 0;
  uint32_t format = 0;
  ea_status status = EA_OK;
  if (edgeattn::IsBlob(data, size)) {
    format = edgeattn::kBlobFormat;
    status = edgeattn::ValidateBlob(data, size, &count);
  } else {
    format = edgeattn::kSafetensorsFormat;
    status = edgeattn::ValidateSafetensors(data, size, &count, &header_bytes);
  }
  if (status != EA_OK) return status;
  file->bytes = data;
  file->size = size;
  file->format = format;
  file->tensor_count = count;
  file->header_bytes = header_bytes;
  file->ready = edgeattn::kFileReady;
  return EA_OK;
}

ea_status ea_weight_file_find(const ea_weight_file* file, const char* name, ea_tensor_view* view) {
  if (file == nullptr || name == nullptr || view == nullptr) return EA_ERR_NULL_POINTER;
  if (file->ready != edgeattn::kFileReady) return EA_ERR_BAD_ARGUMENT;
  ea_tensor_view found{};
  const bool present = file->format == edgeattn::kBlobFormat
                           ? edgeattn::FindBlobTensor(*file, name, &found)
                           : edgeattn::FindSafetensor(*file, name, &found);
  if (!present) return EA_ERR_NOT_FOUND;
  if (reinterpret_cast<uintptr_t>(found.data) % edgeattn::TensorElementBytes(found.dtype) != 0) {
    return EA_ERR_UNSUPPORTED;
  }
  *view = found;
  return EA_OK;
}

ea_status ea_weight_file_mha(const ea_weight_file* file, const char* prefix, int32_t d_model,
                             int32_t n_heads, int32_t n_kv_heads, ea_mha_weights* weights,
                             ea_weights_layout* layout) {
  if (file == nullptr || prefix == nullptr || weights == nullptr || layout == nullptr) {
    return EA_ERR_NULL_POINTER;
  }
  if (file->ready != edgeattn::kFileReady) return EA_ERR_BAD_ARGUMENT;
  if (d_model <= 0 || n_heads <= 0 || n_kv_heads <= 0) return EA_ERR_BAD_DIMENSION;
  if (d_model % n_heads != 0 || n_heads % n_kv_heads != 0) return EA_ERR_HEADS_MISMATCH;
  size_t prefix_length = 0;
  while (prefix_length <= edgeattn::kMaxPrefix && prefix[prefix_length] != '\0') ++prefix_length;
  if (prefix_length > edgeattn::kMaxPrefix) return EA_ERR_BAD_ARGUMENT;
  const int64_t qkv_rows = int64_t{d_model} + 2 * int64_t{n_kv_heads} * (d_model / n_heads);

  ea_tensor_view in_w{}, in_b{}, out_w{}, out_b{};
  ea_status status =
      edgeattn::FindWithPrefix(*file, prefix, prefix_length, "in_proj_weight", &in_w);
  if (status == EA_OK) {
    status = edgeattn::FindWithPrefix(*file, prefix, prefix_length, "out_proj.weight", &out_w);
  }
  if (status != EA_OK) return status;
  const ea_status in_bias =
      edgeattn::FindWithPrefix(*file, prefix, prefix_length, "in_proj_bias", &in_b);
  const ea_status out_bias =
      edgeattn::FindWithPrefix(*file, prefix, prefix_length, "out_proj.bias", &out_b);
  if ((in_bias != EA_OK && in_bias != EA_ERR_NOT_FOUND) ||
      (out_bias != EA_OK && out_bias != EA_ERR_NOT_FOUND)) {
    return in_bias != EA_OK && in_bias != EA_ERR_NOT_FOUND ? in_bias : out_bias;
  }
  if (in_w.layout != out_w.layout) return EA_ERR_BAD_FILE;
  if (!edgeattn::ShapeIs(in_w, 2, qkv_rows, d_model) ||
      !edgeattn::ShapeIs(out_w, 2, d_model, d_model) ||
      (in_bias == EA_OK && !edgeattn::ShapeIs(in_b, 1, qkv_rows, 0)) ||
      (out_bias == EA_OK && !edgeattn::ShapeIs(out_b, 1, d_model, 0))) {
    return EA_ERR_BAD_DIMENSION;
  }
  weights->in_proj_weight = static_cast<const float*>(in_w.data);
  weights->in_proj_bias = in_bias == EA_OK ? static_cast<const float*>(in_b.data) : nullptr;
  weights->out_proj_weight = static_cast<const float*>(out_w.data);
  weights->out_proj_bias = out_bias == EA_OK ? static_cast<const float*>(out_b.data) : nullptr;
  *layout = in_w.layout == EA_TENSOR_PACKED_LINEAR ? EA_WEIGHTS_PACKED : EA_WEIGHTS_ROW_MAJOR;
  return EA_OK;
}

}  // extern "C"
