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
  // A zero anywhere makes an empty tensor, however large the other dims.
  for (int32_t i = 0; i < rank; ++i) {
    if (dims[i] == 0) {
      *bytes = 0;
      return true;
    }
  }
  uint64_t total = element_bytes;
  for (int32_t i = 0; i < rank; ++i) {
    const uint64_t d = static_cast<uint64_t>(dims[i]);
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

// One attention module's tensors as a file names them: nn.MultiheadAttention's
// in_proj_weight (and in_proj_bias); its kdim form q_proj_weight, k_proj_weight,
// v_proj_weight with in_proj_bias; or a Hugging Face module's q_proj.weight ...
// with q_proj.bias .... Views of absent tensors keep data NULL.
struct MhaTensors {
  ea_tensor_view in_w{}, in_b{}, out_w{}, out_b{};
  ea_tensor_view w[3]{}, b[3]{};  // Q, K, V
  // W_Q, W_K, W_V as three tensors (no in_proj_weight).
  bool Three() const { return in_w.data == nullptr; }
};

// The tensors under prefix in the first naming the file uses (in_proj, then
// PyTorch's kdim names, then Hugging Face's): EA_ERR_NOT_FOUND when out_proj's
// weight or any of the naming's weights is absent.
ea_status FindMhaTensors(const ea_weight_file& file, const char* prefix, size_t prefix_length,
                         MhaTensors* t) {
  const auto has = [&](const char* suffix, ea_tensor_view* view) {
    return FindWithPrefix(file, prefix, prefix_length, suffix, view) == EA_OK;
  };
  static const char* const kKdimWeights[3] = {"q_proj_weight", "k_proj_weight", "v_proj_weight"};
  static const char* const kHfWeights[3] = {"q_proj.weight", "k_proj.weight", "v_proj.weight"};
  static const char* const kHfBiases[3] = {"q_proj.bias", "k_proj.bias", "v_proj.bias"};
  const char* const* weights = nullptr;
  if (!has("in_proj_weight", &t->in_w)) {
    // The naming is the one whose W_Q is present; its W_K and W_V must be too.
    if (has(kKdimWeights[0], &t->w[0])) {
      weights = kKdimWeights;
    } else if (has(kHfWeights[0], &t->w[0])) {
      weights = kHfWeights;
    } else {
      return EA_ERR_NOT_FOUND;
    }
    for (int i = 1; i < 3; ++i) {
      if (!has(weights[i], &t->w[i])) return EA_ERR_NOT_FOUND;
    }
  }
  if (!has("out_proj.weight", &t->out_w)) return EA_ERR_NOT_FOUND;
  has("out_proj.bias", &t->out_b);
  if (weights == kHfWeights) {
    for (int i = 0; i < 3; ++i) has(kHfBiases[i], &t->b[i]);
  } else {
    has("in_proj_bias", &t->in_b);
  }
  return EA_OK;
}

// Absent (data NULL), or F32 of this shape.
bool AbsentOrShape(const ea_tensor_view& v, int32_t rank, int64_t d0, int64_t d1) {
  return v.data == nullptr || ShapeIs(v, rank, d0, d1);
}

ea_status FirstPass(const uint8_t* bytes, size_t size, FileCheck* check) {
  return IsBlob(bytes, size) ? CheckBlob(bytes, size, check) : CheckSafetensors(bytes, size, check);
}

bool Overlaps(const void* a, size_t a_bytes, const void* b, size_t b_bytes) {
  const uintptr_t a0 = reinterpret_cast<uintptr_t>(a), b0 = reinterpret_cast<uintptr_t>(b);
  if (a_bytes == 0 || b_bytes == 0) return false;
  return a0 >= b0 ? a0 - b0 < b_bytes : b0 - a0 < a_bytes;  // no wrap past the top
}

// weight_file.h's checks in its order: the first pass, the scratch's room,
// the index pass, alignment; *file is written only on EA_OK.
ea_status OpenWithIndex(ea_weight_file* file, const uint8_t* bytes, size_t size, IndexRecord* index,
                        size_t capacity) {
  FileCheck check;
  const bool blob = IsBlob(bytes, size);
  ea_status status = FirstPass(bytes, size, &check);
  if (status != EA_OK) return status;
  if (check.count > capacity) return EA_ERR_ARENA_TOO_SMALL;
  status =
      blob ? CheckBlobIndex(bytes, check, index) : CheckSafetensorsIndex(bytes, size, check, index);
  if (status != EA_OK) return status;
  if (check.misaligned) return EA_ERR_UNSUPPORTED;
  file->bytes = bytes;
  file->size = size;
  file->format = blob ? kBlobFormat : kSafetensorsFormat;
  file->tensor_count = check.count;
  file->header_bytes = check.header_bytes;
  file->ready = kFileReady;
  return EA_OK;
}

}  // namespace
}  // namespace edgeattn

extern "C" {

ea_status ea_weight_file_open(ea_weight_file* file, const void* bytes, size_t size) {
  if (file == nullptr || bytes == nullptr) return EA_ERR_NULL_POINTER;
  if (reinterpret_cast<uintptr_t>(bytes) % 8 != 0) return EA_ERR_BAD_ARGUMENT;
  edgeattn::IndexRecord index[EA_WEIGHT_FILE_OPEN_MAX_TENSORS];
  return edgeattn::OpenWithIndex(file, static_cast<const uint8_t*>(bytes), size, index,
                                 EA_WEIGHT_FILE_OPEN_MAX_TENSORS);
}

ea_status ea_weight_file_open_scratch(ea_weight_file* file, const void* bytes, size_t size,
                                      void* scratch, size_t scratch_bytes) {
  if (file == nullptr || bytes == nullptr || (scratch == nullptr && scratch_bytes > 0)) {
    return EA_ERR_NULL_POINTER;
  }
  if (reinterpret_cast<uintptr_t>(bytes) % 8 != 0 ||
      reinterpret_cast<uintptr_t>(scratch) % 8 != 0) {
    return EA_ERR_BAD_ARGUMENT;
  }
  if (scratch_bytes > 0 && (edgeattn::Overlaps(scratch, scratch_bytes, bytes, size) ||
                            edgeattn::Overlaps(scratch, scratch_bytes, file, sizeof(*file)))) {
    return EA_ERR_BAD_ARGUMENT;
  }
  return edgeattn::OpenWithIndex(file, static_cast<const uint8_t*>(bytes), size,
                                 static_cast<edgeattn::IndexRecord*>(scratch),
                                 scratch_bytes / sizeof(edgeattn::IndexRecord));
}

ea_status ea_weight_file_scratch_size(const void* bytes, size_t size, size_t* scratch_bytes) {
  if (bytes == nullptr || scratch_bytes == nullptr) return EA_ERR_NULL_POINTER;
  if (reinterpret_cast<uintptr_t>(bytes) % 8 != 0) return EA_ERR_BAD_ARGUMENT;
  edgeattn::FileCheck check;
  const ea_status status = edgeattn::FirstPass(static_cast<const uint8_t*>(bytes), size, &check);
  if (status != EA_OK) return status;
  *scratch_bytes = EA_WEIGHT_FILE_SCRATCH_BYTES(check.count);
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
  *view = found;  // aligned: open refused a file with a tensor that is not
  return EA_OK;
}

ea_status ea_weight_file_find_mha(const ea_weight_file* file, const char* prefix, int32_t d_model,
                                  int32_t n_heads, int32_t n_kv_heads, ea_mha_weights* weights,
                                  ea_weights_layout* layout) {
  if (file == nullptr || prefix == nullptr || weights == nullptr || layout == nullptr) {
    return EA_ERR_NULL_POINTER;
  }
  if (file->ready != edgeattn::kFileReady) return EA_ERR_BAD_ARGUMENT;
  if (d_model <= 0 || n_heads <= 0 || n_kv_heads < 0) return EA_ERR_BAD_DIMENSION;
  const int32_t kv_heads = edgeattn::KvHeads(n_heads, n_kv_heads);
  if (d_model % n_heads != 0 || n_heads % kv_heads != 0) return EA_ERR_HEADS_MISMATCH;
  size_t prefix_length = 0;
  while (prefix_length <= edgeattn::kMaxPrefix && prefix[prefix_length] != '\0') ++prefix_length;
  if (prefix_length > edgeattn::kMaxPrefix) return EA_ERR_BAD_ARGUMENT;
  const int64_t kv_rows = int64_t{kv_heads} * (d_model / n_heads);
  const int64_t qkv_rows = int64_t{d_model} + 2 * kv_rows;

  // find gives EA_OK or EA_ERR_NOT_FOUND here (the arguments are good).
  edgeattn::MhaTensors t;
  const ea_status status = edgeattn::FindMhaTensors(*file, prefix, prefix_length, &t);
  if (status != EA_OK) return status;
  // One layout for the plan: both matrices packed or both row-major; three
  // tensors are row-major only (ea_mha_weights).
  const bool mixed =
      t.Three() ? t.out_w.layout != EA_TENSOR_ROW_MAJOR || t.w[0].layout != EA_TENSOR_ROW_MAJOR ||
                      t.w[1].layout != EA_TENSOR_ROW_MAJOR || t.w[2].layout != EA_TENSOR_ROW_MAJOR
                : t.in_w.layout != t.out_w.layout;
  if (mixed) return EA_ERR_BAD_FILE;
  using edgeattn::AbsentOrShape;
  const bool shapes =
      (t.Three() ? edgeattn::ShapeIs(t.w[0], 2, d_model, d_model) &&
                       edgeattn::ShapeIs(t.w[1], 2, kv_rows, d_model) &&
                       edgeattn::ShapeIs(t.w[2], 2, kv_rows, d_model)
                 : edgeattn::ShapeIs(t.in_w, 2, qkv_rows, d_model)) &&
      edgeattn::ShapeIs(t.out_w, 2, d_model, d_model) && AbsentOrShape(t.in_b, 1, qkv_rows, 0) &&
      AbsentOrShape(t.b[0], 1, d_model, 0) && AbsentOrShape(t.b[1], 1, kv_rows, 0) &&
      AbsentOrShape(t.b[2], 1, kv_rows, 0) && AbsentOrShape(t.out_b, 1, d_model, 0);
  if (!shapes) return EA_ERR_BAD_DIMENSION;
  // The whole struct, whatever the caller's struct held (init refuses a mix
  // of the forms).
  const auto floats = [](const ea_tensor_view& v) { return static_cast<const float*>(v.data); };
  ea_mha_weights found{};
  found.in_proj_weight = floats(t.in_w);
  found.in_proj_bias = floats(t.in_b);
  found.out_proj_weight = floats(t.out_w);
  found.out_proj_bias = floats(t.out_b);
  found.q_proj_weight = floats(t.w[0]);
  found.k_proj_weight = floats(t.w[1]);
  found.v_proj_weight = floats(t.w[2]);
  found.q_proj_bias = floats(t.b[0]);
  found.k_proj_bias = floats(t.b[1]);
  found.v_proj_bias = floats(t.b[2]);
  *weights = found;
  *layout = t.out_w.layout == EA_TENSOR_PACKED_LINEAR ? EA_WEIGHTS_PACKED : EA_WEIGHTS_ROW_MAJOR;
  return EA_OK;
}

}  // extern "C"
