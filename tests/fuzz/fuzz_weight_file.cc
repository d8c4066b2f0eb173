// Driver for weight files (edgeattn/weight_file.h): the rest of the input is
// a file, in a buffer of exactly its size (ASan sees any read past it). Open
// returns OK or BAD_FILE and never writes the bytes; on a file it accepts,
// every name the file holds (and a few it does not) is looked up, and each
// view must lie inside the file, be aligned, and have the bytes its shape
// and layout call for (read whole, so ASan checks them); ea_weight_file_mha
// returns only its documented statuses, with weights inside the file.
#include <stdint.h>
#include <string.h>

#include <memory>
#include <string>
#include <vector>

#include "byte_reader.h"
#include "edgeattn/weight_file.h"
#include "failure.h"
#include "fuzz_drivers.h"

namespace edgeattn_fuzz {
namespace {

// The header's element sizes, written here again: the oracle does not
// share the library's table.
size_t ElementBytes(ea_tensor_dtype dtype) {
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

// Names to look up: the blob's table entries or the quoted strings of a
// safetensors header (escapes left out: they only make a miss), and a few
// that a file may or may not hold.
std::vector<std::string> CandidateNames(const uint8_t* bytes, size_t size) {
  std::vector<std::string> names = {"in_proj_weight", "attn.in_proj_weight", "", "a"};
  if (size >= 64 && memcmp(bytes, "EAWEIGHT", 8) == 0) {
    uint32_t count = 0;
    memcpy(&count, bytes + 12, 4);
    for (uint64_t i = 0; i < count && 64 + (i + 1) * 192 <= size && i < 64; ++i) {
      const char* name = reinterpret_cast<const char*>(bytes + 64 + i * 192);
      names.emplace_back(name, strnlen(name, 96));
    }
    return names;
  }
  uint64_t header = 0;
  if (size >= 8) memcpy(&header, bytes, 8);
  const size_t end = header < size - 8 ? static_cast<size_t>(8 + header) : size;
  for (size_t i = 8; i < end && names.size() < 64; ++i) {
    if (bytes[i] != '"') continue;
    size_t j = i + 1;
    while (j < end && bytes[j] != '"' && bytes[j] != '\\') ++j;
    if (j < end && bytes[j] == '"')
      names.emplace_back(reinterpret_cast<const char*>(bytes + i + 1), j - i - 1);
    i = j;
  }
  return names;
}

void CheckView(const ea_tensor_view& v, const uint8_t* file, size_t size, const std::string& name) {
  const uint8_t* data = static_cast<const uint8_t*>(v.data);
  const size_t element = ElementBytes(v.dtype);
  if (element == 0) Fail("%s: dtype %d unknown", name.c_str(), v.dtype);
  if (data < file || v.bytes > size || data > file + size - v.bytes) {
    Fail("%s: view outside the file", name.c_str());
  }
  if (reinterpret_cast<uintptr_t>(data) % element != 0) Fail("%s: misaligned view", name.c_str());
  if (v.rank < 0 || v.rank > EA_TENSOR_MAX_RANK) Fail("%s: rank %d", name.c_str(), v.rank);
  // The bytes the shape calls for, in 128-bit arithmetic (no wrap).
  unsigned __int128 want = element;
  for (int32_t r = 0; r < v.rank; ++r) {
    if (v.dims[r] < 0) Fail("%s: dimension %d negative", name.c_str(), r);
    int64_t d = v.dims[r];
    if (v.layout == EA_TENSOR_PACKED_LINEAR && r == 0) d = (d + 63) / 64 * 64;
    want *= static_cast<uint64_t>(d);
  }
  if (v.layout == EA_TENSOR_PACKED_LINEAR && (v.rank != 2 || v.dtype != EA_TENSOR_F32)) {
    Fail("%s: packed view is not an F32 matrix", name.c_str());
  }
  if (want != v.bytes) Fail("%s: %zu bytes for its shape", name.c_str(), v.bytes);
  volatile uint8_t sum = 0;
  for (size_t i = 0; i < v.bytes; ++i) sum = static_cast<uint8_t>(sum + data[i]);
}

}  // namespace

void FuzzWeightFile(ByteReader& input) {
  uint8_t heads = 0;
  input.U8(heads);
  const uint8_t* payload = nullptr;
  size_t size = 0;
  input.Rest(&payload, &size);
  // operator new[] aligns to 16, enough for the 8-byte rule.
  std::unique_ptr<uint8_t[]> bytes(new uint8_t[size > 0 ? size : 1]);
  if (size > 0) memcpy(bytes.get(), payload, size);
  SetContext("ea_weight_file_open", "-");
  ea_weight_file file{};
  const ea_status opened = ea_weight_file_open(&file, bytes.get(), size);
  if (opened != EA_OK && opened != EA_ERR_BAD_FILE) Fail("open returned %d", opened);
  if (size > 0 && memcmp(bytes.get(), payload, size) != 0) Fail("open wrote the file");
  if (opened != EA_OK) return;

  SetContext("ea_weight_file_find", "-");
  for (const std::string& name : CandidateNames(bytes.get(), size)) {
    ea_tensor_view view{};
    const ea_status found = ea_weight_file_find(&file, name.c_str(), &view);
    if (found == EA_OK) {
      CheckView(view, bytes.get(), size, name);
    } else if (found != EA_ERR_NOT_FOUND && found != EA_ERR_UNSUPPORTED) {
      Fail("find(%s) returned %d", name.c_str(), found);
    }
  }

  SetContext("ea_weight_file_mha", "-");
  const int32_t n_heads = 1 + heads % 4, d_model = n_heads * (1 + (heads >> 2) % 16);
  for (const char* prefix : {"", "attn.", "a"}) {
    ea_mha_weights weights{};
    ea_weights_layout layout = EA_WEIGHTS_ROW_MAJOR;
    const ea_status status =
        ea_weight_file_mha(&file, prefix, d_model, n_heads, n_heads, &weights, &layout);
    if (status == EA_OK) {
      const uint8_t* w = reinterpret_cast<const uint8_t*>(weights.in_proj_weight);
      if (w < bytes.get() || w >= bytes.get() + size) Fail("in_proj_weight outside the file");
    } else if (status != EA_ERR_NOT_FOUND && status != EA_ERR_BAD_DIMENSION &&
               status != EA_ERR_BAD_FILE && status != EA_ERR_UNSUPPORTED) {
      Fail("mha(%s) returned %d", prefix, status);
    }
  }
}

}  // namespace edgeattn_fuzz
