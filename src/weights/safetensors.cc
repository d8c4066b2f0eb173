// safetensors (Hugging Face): u64 little-endian header length N, N bytes of
// JSON {"<name>": {"dtype": "F32", "shape": [..], "data_offsets": [begin,
// end]}, ..., "__metadata__": {...}}, then the data; offsets are relative to
// the first byte after the header. Validation scans the whole header once;
// a lookup scans it again (no index: no heap).
#include <string.h>

#include "weights/json_scanner.h"
#include "weights/weight_formats.h"

namespace edgeattn {
namespace {

constexpr const char kMetadataKey[] = "__metadata__";

// Names held in place, not as pointers: a table of pointers is relocated
// data (.data.rel.ro) in position-independent builds, and the library keeps
// no data of its own.
struct DtypeName {
  char name[5];
  ea_tensor_dtype dtype;
};
constexpr DtypeName kDtypes[] = {{"F32", EA_TENSOR_F32},   {"F16", EA_TENSOR_F16},
                                 {"BF16", EA_TENSOR_BF16}, {"F64", EA_TENSOR_F64},
                                 {"I8", EA_TENSOR_I8},     {"U8", EA_TENSOR_U8},
                                 {"I16", EA_TENSOR_I16},   {"I32", EA_TENSOR_I32},
                                 {"I64", EA_TENSOR_I64},   {"BOOL", EA_TENSOR_BOOL}};

struct TensorInfo {
  ea_tensor_dtype dtype;
  int32_t rank;
  int64_t dims[EA_TENSOR_MAX_RANK];
  uint64_t begin;
  uint64_t end;
};

bool ParseDtype(JsonString s, ea_tensor_dtype* dtype) {
  for (const DtypeName& d : kDtypes) {
    if (JsonStringEquals(s, d.name, strlen(d.name))) {
      *dtype = d.dtype;
      return true;
    }
  }
  return false;
}

// {"dtype": .., "shape": [..], "data_offsets": [b, e]} in any order, each
// once; other members are skipped. Checks the sizes against data_bytes.
bool ParseTensorInfo(JsonScanner* json, uint64_t data_bytes, TensorInfo* info) {
  bool has_dtype = false, has_shape = false, has_offsets = false;
  json->Expect('{');
  if (json->Take('}')) return false;
  do {
    const JsonString key = json->String();
    json->Expect(':');
    if (!json->ok()) return false;
    if (JsonStringEquals(key, "dtype", 5)) {
      if (has_dtype || !ParseDtype(json->String(), &info->dtype)) return false;
      has_dtype = true;
    } else if (JsonStringEquals(key, "shape", 5)) {
      if (has_shape) return false;
      has_shape = true;
      info->rank = 0;
      json->Expect('[');
      if (!json->Take(']')) {
        do {
          if (info->rank == EA_TENSOR_MAX_RANK) return false;
          info->dims[info->rank++] = static_cast<int64_t>(json->Unsigned());
        } while (json->Take(','));
        json->Expect(']');
      }
    } else if (JsonStringEquals(key, "data_offsets", 12)) {
      if (has_offsets) return false;
      has_offsets = true;
      json->Expect('[');
      info->begin = json->Unsigned();
      json->Expect(',');
      info->end = json->Unsigned();
      json->Expect(']');
    } else {
      json->SkipValue();
    }
    if (!json->ok()) return false;
  } while (json->Take(','));
  json->Expect('}');
  if (!json->ok() || !has_dtype || !has_shape || !has_offsets) return false;
  uint64_t bytes = 0;
  return info->begin <= info->end && info->end <= data_bytes &&
         TensorBytes(info->dims, info->rank, TensorElementBytes(info->dtype), data_bytes, &bytes) &&
         bytes == info->end - info->begin;
}

uint64_t ReadU64(const uint8_t* p) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = value << 8 | p[i];
  return value;
}

// Walks the header: calls visit(name, info) for every tensor; false when the
// header is malformed or visit returns false.
template <typename Visit>
bool WalkHeader(const uint8_t* bytes, size_t header_bytes, uint64_t data_bytes, Visit visit) {
  JsonScanner json(bytes + 8, header_bytes);
  json.Expect('{');
  if (!json.Take('}')) {
    do {
      const JsonString key = json.String();
      json.Expect(':');
      if (!json.ok()) return false;
      if (JsonStringEquals(key, kMetadataKey, sizeof(kMetadataKey) - 1)) {
        json.SkipValue();
        continue;
      }
      TensorInfo info{};
      if (!ParseTensorInfo(&json, data_bytes, &info) || !visit(key, info)) return false;
    } while (json.Take(','));
    json.Expect('}');
  }
  return json.ok() && json.AtEnd();
}

}  // namespace

ea_status ValidateSafetensors(const uint8_t* bytes, size_t size, uint32_t* count,
                              size_t* header_bytes) {
  if (size < 8) return EA_ERR_BAD_FILE;
  const uint64_t n = ReadU64(bytes);
  if (n < 2 || n > size - 8) return EA_ERR_BAD_FILE;
  uint32_t tensors = 0;
  const bool ok = WalkHeader(bytes, static_cast<size_t>(n), size - 8 - n,
                             [&tensors](JsonString, const TensorInfo&) {
                               ++tensors;
                               return tensors != UINT32_MAX;
                             });
  if (!ok) return EA_ERR_BAD_FILE;
  *count = tensors;
  *header_bytes = static_cast<size_t>(n);
  return EA_OK;
}

bool FindSafetensor(const ea_weight_file& file, const char* name, ea_tensor_view* view) {
  const size_t length = strlen(name);
  const uint8_t* data = file.bytes + 8 + file.header_bytes;
  bool found = false;
  WalkHeader(file.bytes, file.header_bytes, file.size - 8 - file.header_bytes,
             [&](JsonString key, const TensorInfo& info) {
               if (!JsonStringEquals(key, name, length)) return true;
               view->data = data + info.begin;
               view->bytes = static_cast<size_t>(info.end - info.begin);
               view->dtype = info.dtype;
               view->layout = EA_TENSOR_ROW_MAJOR;
               view->rank = info.rank;
               for (int r = 0; r < EA_TENSOR_MAX_RANK; ++r) {
                 view->dims[r] = r < info.rank ? info.dims[r] : 0;
               }
               found = true;
               return false;  // stop at the first match
             });
  return found;
}

}  // namespace edgeattn
