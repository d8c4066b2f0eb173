// safetensors (Hugging Face): u64 little-endian header length N, N bytes of
// JSON {"<name>": {"dtype": "F32", "shape": [..], "data_offsets": [begin,
// end]}, ..., "__metadata__": {...}}, then the data; offsets are relative to
// the first byte after the header. Opening scans the whole header three
// times (checks, names into the scratch index, data ranges into it); a
// lookup scans it again (no index is kept: no heap).
#include <string.h>

#include "weights/heap_sort.h"
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
  bool metadata = false;
  json.Expect('{');
  if (!json.Take('}')) {
    do {
      const JsonString key = json.String();
      json.Expect(':');
      if (!json.ok()) return false;
      if (JsonStringEquals(key, kMetadataKey, sizeof(kMetadataKey) - 1)) {
        if (metadata) return false;  // given twice
        metadata = true;
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

ea_status CheckSafetensors(const uint8_t* bytes, size_t size, FileCheck* check) {
  if (size < 8) return EA_ERR_BAD_FILE;
  const uint64_t n = ReadU64(bytes);
  if (n < 2 || n > size - 8) return EA_ERR_BAD_FILE;
  const size_t data_start = 8 + static_cast<size_t>(n);
  uint32_t tensors = 0;
  bool misaligned = false;
  const bool ok = WalkHeader(
      bytes, static_cast<size_t>(n), size - data_start,
      [&](JsonString name, const TensorInfo& info) {
        bool has_nul = false;
        if (JsonStringDecodedLength(name, EA_TENSOR_MAX_NAME, &has_nul) > EA_TENSOR_MAX_NAME ||
            has_nul) {
          return false;
        }
        // bytes is 8-aligned: the view's alignment is its offset's.
        const uint64_t offset = data_start + info.begin;
        misaligned = misaligned || offset % TensorElementBytes(info.dtype) != 0;
        ++tensors;
        return tensors != UINT32_MAX;
      });
  if (!ok) return EA_ERR_BAD_FILE;
  check->count = tensors;
  check->header_bytes = static_cast<size_t>(n);
  check->misaligned = misaligned;
  return EA_OK;
}

// Names sorted by their decoded bytes (a name given twice lands beside its
// twin, however it is escaped), then data ranges sorted by (begin, end), the
// reference reader's order: each must begin where the one before ended, the
// first at 0, and the last end at the end of the file. O(N log N) compares.
ea_status CheckSafetensorsIndex(const uint8_t* bytes, size_t size, const FileCheck& check,
                                IndexRecord* index) {
  const uint8_t* header = bytes + 8;
  const size_t data_bytes = size - 8 - check.header_bytes;
  uint32_t filled = 0;
  bool ok =
      WalkHeader(bytes, check.header_bytes, data_bytes, [&](JsonString name, const TensorInfo&) {
        if (filled == check.count) return false;
        index[filled++] = IndexRecord{static_cast<size_t>(name.raw - header), name.length};
        return true;
      });
  if (!ok || filled != check.count) return EA_ERR_BAD_FILE;
  auto name = [header](const IndexRecord& r) { return JsonString{header + r.a, r.b}; };
  HeapSort(index, filled, [&name](const IndexRecord& x, const IndexRecord& y) {
    return JsonStringCompare(name(x), name(y)) < 0;
  });
  for (uint32_t i = 1; i < filled; ++i) {
    if (JsonStringCompare(name(index[i - 1]), name(index[i])) == 0) return EA_ERR_BAD_FILE;
  }

  filled = 0;
  ok = WalkHeader(bytes, check.header_bytes, data_bytes, [&](JsonString, const TensorInfo& info) {
    if (filled == check.count) return false;
    // Validated: begin <= end <= data_bytes, which is a size_t.
    index[filled++] = IndexRecord{static_cast<size_t>(info.begin), static_cast<size_t>(info.end)};
    return true;
  });
  if (!ok || filled != check.count) return EA_ERR_BAD_FILE;
  HeapSort(index, filled, [](const IndexRecord& x, const IndexRecord& y) {
    return x.a < y.a || (x.a == y.a && x.b < y.b);
  });
  size_t covered = 0;
  for (uint32_t i = 0; i < filled; ++i) {
    if (index[i].a != covered) return EA_ERR_BAD_FILE;  // a hole or an overlap
    covered = index[i].b;
  }
  return covered == data_bytes ? EA_OK : EA_ERR_BAD_FILE;
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
