// The edgeattn weight blob (docs/WEIGHT_FILES.md): a 64-byte header, a table
// of 192-byte entries, then the tensors at 64-byte aligned offsets in table
// order. Every field is read with bounds known, and checked before use.
#include <string.h>

#include "edgeattn/arena_sizes.hpp"
#include "weights/heap_sort.h"
#include "weights/weight_formats.h"

namespace edgeattn {
namespace {

constexpr char kBlobMagic[8] = {'E', 'A', 'W', 'E', 'I', 'G', 'H', 'T'};

uint32_t ReadU32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

uint64_t ReadU64(const uint8_t* p) {
  return static_cast<uint64_t>(ReadU32(p)) | static_cast<uint64_t>(ReadU32(p + 4)) << 32;
}

// One table entry, decoded.
struct BlobEntry {
  const char* name;  // NUL-terminated within the entry once validated
  uint32_t dtype;
  uint32_t layout;
  uint32_t rank;
  uint64_t offset;
  uint64_t bytes;
  int64_t dims[EA_TENSOR_MAX_RANK];
};

const uint8_t* EntryBytes(const uint8_t* blob, size_t index) {
  return blob + kBlobHeaderBytes + index * kBlobEntryBytes;
}

BlobEntry ReadEntry(const uint8_t* blob, uint32_t index) {
  const uint8_t* e = EntryBytes(blob, index);
  BlobEntry entry{};
  entry.name = reinterpret_cast<const char*>(e);
  entry.dtype = ReadU32(e + 96);
  entry.layout = ReadU32(e + 100);
  entry.rank = ReadU32(e + 104);
  entry.offset = ReadU64(e + 112);
  entry.bytes = ReadU64(e + 120);
  for (int i = 0; i < EA_TENSOR_MAX_RANK; ++i) {
    entry.dims[i] = static_cast<int64_t>(ReadU64(e + 128 + 8 * i));
  }
  return entry;
}

bool NameIsTerminated(const BlobEntry& entry) {
  return entry.name[0] != '\0' && memchr(entry.name, '\0', kBlobNameBytes) != nullptr;
}

// The bytes an entry's shape and layout call for, or false past `limit`.
bool ExpectedBytes(const BlobEntry& entry, uint64_t limit, uint64_t* bytes) {
  const size_t element = TensorElementBytes(entry.dtype);
  if (element == 0 || entry.rank > EA_TENSOR_MAX_RANK) return false;
  const int32_t rank = static_cast<int32_t>(entry.rank);
  for (int32_t i = 0; i < rank; ++i) {
    if (entry.dims[i] < 0) return false;
  }
  if (entry.layout == EA_TENSOR_ROW_MAJOR) {
    return TensorBytes(entry.dims, rank, element, limit, bytes);
  }
  if (entry.layout != EA_TENSOR_PACKED_LINEAR || entry.dtype != EA_TENSOR_F32 || rank != 2) {
    return false;
  }
  // W [n_out, n_in] in panels of kKeyBlock output rows: n_in * roundup(n_out);
  // empty when either is 0, however large the other.
  if (entry.dims[0] == 0 || entry.dims[1] == 0) {
    *bytes = 0;
    return true;
  }
  if (entry.dims[0] > INT64_MAX - kKeyBlock) return false;
  const int64_t padded[2] = {
      static_cast<int64_t>(RoundUp(static_cast<uint64_t>(entry.dims[0]), kKeyBlock)),
      entry.dims[1]};
  return TensorBytes(padded, 2, element, limit, bytes);
}

}  // namespace

bool IsBlob(const uint8_t* bytes, size_t size) {
  return size >= sizeof(kBlobMagic) && memcmp(bytes, kBlobMagic, sizeof(kBlobMagic)) == 0;
}

ea_status CheckBlob(const uint8_t* bytes, size_t size, FileCheck* check) {
  if (size < kBlobHeaderBytes || !IsBlob(bytes, size)) return EA_ERR_BAD_FILE;
  if (ReadU32(bytes + 8) != kBlobVersion) return EA_ERR_BAD_FILE;
  const uint32_t tensors = ReadU32(bytes + 12);
  const uint64_t file_bytes = ReadU64(bytes + 16);
  const uint64_t data_offset = ReadU64(bytes + 24);
  if (file_bytes > size || file_bytes < kBlobHeaderBytes) return EA_ERR_BAD_FILE;
  if (tensors > (file_bytes - kBlobHeaderBytes) / kBlobEntryBytes) return EA_ERR_BAD_FILE;
  if (data_offset != kBlobHeaderBytes + static_cast<uint64_t>(tensors) * kBlobEntryBytes) {
    return EA_ERR_BAD_FILE;
  }
  uint64_t next_free = data_offset;
  for (uint32_t i = 0; i < tensors; ++i) {
    const BlobEntry entry = ReadEntry(bytes, i);
    uint64_t expected = 0;
    if (!NameIsTerminated(entry) || !ExpectedBytes(entry, file_bytes, &expected) ||
        expected != entry.bytes) {
      return EA_ERR_BAD_FILE;
    }
    if (entry.offset % kBlobTensorAlignment != 0 || entry.offset < next_free ||
        entry.offset > file_bytes || entry.bytes > file_bytes - entry.offset) {
      return EA_ERR_BAD_FILE;
    }
    next_free = entry.offset + entry.bytes;
  }
  check->count = tensors;
  return EA_OK;
}

// The table's names sorted (entry numbers in the scratch): one given twice
// lands beside its twin. O(N log N) name compares of at most 96 bytes.
ea_status CheckBlobIndex(const uint8_t* bytes, const FileCheck& check, IndexRecord* index) {
  auto name = [bytes](const IndexRecord& r) {
    return reinterpret_cast<const char*>(EntryBytes(bytes, r.a));
  };
  for (uint32_t i = 0; i < check.count; ++i) index[i] = IndexRecord{i, 0};
  HeapSort(index, check.count, [&name](const IndexRecord& x, const IndexRecord& y) {
    return strcmp(name(x), name(y)) < 0;
  });
  for (uint32_t i = 1; i < check.count; ++i) {
    if (strcmp(name(index[i - 1]), name(index[i])) == 0) return EA_ERR_BAD_FILE;
  }
  return EA_OK;
}

bool FindBlobTensor(const ea_weight_file& file, const char* name, ea_tensor_view* view) {
  for (uint32_t i = 0; i < file.tensor_count; ++i) {
    const BlobEntry entry = ReadEntry(file.bytes, i);
    if (strcmp(entry.name, name) != 0) continue;
    view->data = file.bytes + entry.offset;
    view->bytes = static_cast<size_t>(entry.bytes);
    view->dtype = static_cast<ea_tensor_dtype>(entry.dtype);
    view->layout = static_cast<ea_tensor_layout>(entry.layout);
    view->rank = static_cast<int32_t>(entry.rank);
    for (int r = 0; r < EA_TENSOR_MAX_RANK; ++r) {
      view->dims[r] = r < view->rank ? entry.dims[r] : 0;
    }
    return true;
  }
  return false;
}

}  // namespace edgeattn
