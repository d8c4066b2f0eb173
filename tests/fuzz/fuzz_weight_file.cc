// Driver for weight files (edgeattn/weight_file.h). The input is either a
// file as it is (raw mode, `shape` < 128) or a WeightFileCase
// (weight_file_case.h) from which a safetensors file or a blob is built,
// valid by construction, then edited as a hostile file would be: names
// given twice (plain or escaped), escapes of every kind, long names, moved,
// swapped or overlapping data ranges, holes, truncation, flipped bytes, JSON
// fragments spliced in (bad escapes, surrogates, \u0000, signs, fractions,
// 2^63, deep nesting), huge dims, unknown dtypes, header fields at edges,
// unaligned headers, files past the plain open's 128 tensors.
//
// Checked, on every input: open, open_scratch (scratch exact, short,
// generous, NULL, misaligned or over the file) and scratch_size return the
// statuses of an independent reader (weight_file_model.h); on a case built
// without edits, also the status and tensors the builder put there; a
// refusal writes neither *file nor any scratch byte before the index step
// (nor anything past the scratch ever); the file's bytes are never written
// and never read outside (the file ends its heap block: ASan); every tensor
// the model finds is found with the model's pointer, bytes, dtype, layout
// and shape (its bytes read whole), names it does not hold are not found
// and leave the view untouched; ea_weight_file_find_mha returns the model's
// status with the model's tensors' pointers, or writes nothing.
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "byte_reader.h"
#include "edgeattn/weight_file.h"
#include "failure.h"
#include "fuzz_drivers.h"
#include "weight_file_case.h"
#include "weight_file_model.h"

namespace edgeattn_fuzz {
namespace {

// A file the builder made, and what it meant to put there.
struct Built {
  std::vector<uint8_t> bytes;
  // Without edits: the status open must return (plain open) and the
  // tensors (offsets from the file's start). known = false when the
  // builder's own choices leave the verdict to the model alone.
  bool known = true;
  ea_status status = EA_OK;
  std::vector<ModelTensor> tensors;
};

const char* const kDtypeNames[] = {"",   "F32", "F16", "BF16", "F64", "I8",
                                   "U8", "I16", "I32", "I64",  "BOOL"};
const int kElementBytes[] = {0, 4, 2, 2, 8, 1, 1, 2, 4, 8, 1};

// Dims a validator must handle: zero, one, past 32 bits, past the products
// that fit, 2^63 - 1 and (as safetensors text) 2^63 and 2^64.
const uint64_t kEdgeDims[] = {0,
                              1,
                              uint64_t{1} << 31,
                              uint64_t{1} << 32,
                              uint64_t{1} << 40,
                              uint64_t{1} << 62,
                              (uint64_t{1} << 63) - 1,
                              uint64_t{1} << 63,
                              ~uint64_t{0}};

// JSON fragments spliced into a header (kEditInsertText).
const char* const kFragments[] = {"\\ud800",
                                  "\\udc00",
                                  "\\u0000",
                                  "\\ud83d\\ude00",
                                  "\\x",
                                  "\\u12",
                                  "\xc0\xaf",
                                  "\xed\xa0\x80",
                                  "\xf4\x90\x80\x80",
                                  "\xff",
                                  "\x01",
                                  "-1",
                                  "-0",
                                  "1.0",
                                  "1e3",
                                  "9223372036854775807",
                                  "9223372036854775808",
                                  "18446744073709551616",
                                  "01",
                                  ",",
                                  ":",
                                  "}",
                                  "]",
                                  "{",
                                  "[",
                                  "\"",
                                  " ",
                                  "null",
                                  "[[[[[[[[",
                                  "\"__metadata__\":{},",
                                  "\"x\":{},",
                                  "\"dtype\":\"F32\",",
                                  "\t\n\r"};

// The name a tensor spec picks, decoded (before the file's escaping).
// The part (Q, K or V) an MHA name of the three-tensor namings is for.
int MhaPart(const WeightTensor& t) { return t.escape / 16 % 3; }

std::string SpecName(const WeightTensor& t, int index, const std::string& prefix) {
  static const char* const kKdim[3] = {"q_proj_weight", "k_proj_weight", "v_proj_weight"};
  static const char* const kHfWeights[3] = {"q_proj.weight", "k_proj.weight", "v_proj.weight"};
  static const char* const kHfBiases[3] = {"q_proj.bias", "k_proj.bias", "v_proj.bias"};
  const uint8_t naming = MhaNaming(t);
  switch (t.name % kWeightNameCount) {
    case kNameInProjWeight:
      return prefix + (naming == kNamingKdim          ? kKdim[MhaPart(t)]
                       : naming == kNamingHuggingFace ? kHfWeights[MhaPart(t)]
                                                      : "in_proj_weight");
    case kNameInProjBias:
      return prefix + (naming == kNamingHuggingFace ? kHfBiases[MhaPart(t)] : "in_proj_bias");
    case kNameOutProjWeight:
      return prefix + "out_proj.weight";
    case kNameOutProjBias:
      return prefix + "out_proj.bias";
    case kNameUnicode: {
      static const char* const chars[] = {"\xc3\xa9",
                                          "\xe2\x82\xac",
                                          "\xf0\x9f\x98\x80",
                                          "\xef\xbf\xbf",
                                          "\xf4\x8f\xbf\xbf",
                                          "/",
                                          "\"",
                                          "\\"};
      return "t" + std::to_string(index) + chars[t.escape / 4 % 8];
    }
    case kNameEmpty:
      return "";
    case kNameLong:
      return std::string(EA_TENSOR_MAX_NAME - 1 + t.escape / 4 % 4, 'n');
    case kNameMetadata:
      return "__metadata__";
    default:
      return "t" + std::to_string(index);
  }
}

// `name` as the raw text of a JSON string, escaped in `style`.
std::string Escape(const std::string& name, uint8_t style) {
  std::string out;
  const uint8_t mode = style % kWeightEscapeCount;
  const char* hex = mode == 3 ? "0123456789ABCDEF" : "0123456789abcdef";
  auto unit = [&](uint32_t u) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += hex[(u >> shift) & 15];
  };
  size_t count = 0;
  for (size_t i = 0; i < name.size(); ++count) {
    const auto c = static_cast<uint8_t>(name[i]);
    const size_t length = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    uint32_t code = length == 1 ? c : c & (0x7F >> length);
    for (size_t k = 1; k < length && i + k < name.size(); ++k) {
      code = code * 64 + (static_cast<uint8_t>(name[i + k]) & 63);
    }
    const bool escape = mode == 1 || mode == 3 || (mode == 2 && count % 2 == 0) || c < 0x20 ||
                        c == '"' || c == '\\';
    if (!escape) {
      out.append(name, i, length);
    } else if (code >= 0x10000) {
      unit(0xD800 + ((code - 0x10000) >> 10));
      unit(0xDC00 + ((code - 0x10000) & 0x3FF));
    } else if (mode == 2 && c == '/') {
      out += "\\/";
    } else {
      unit(code);
    }
    i += length;
  }
  return out;
}

struct Spec {
  std::string name;
  uint8_t escape = 0;
  std::string dtype_text;
  int dtype = 0;  // 0: unknown
  std::vector<uint64_t> dims;
  bool packed = false;
  uint64_t bytes = 0;  // as declared
  uint64_t begin = 0, end = 0;
};

uint64_t SaturatedBytes(const Spec& s) {
  if (s.dtype == 0) return 0;
  unsigned __int128 total = static_cast<unsigned __int128>(kElementBytes[s.dtype]);
  for (uint64_t d : s.dims) {
    if (d == 0) return 0;
  }
  for (size_t i = 0; i < s.dims.size(); ++i) {
    const uint64_t d = s.packed && i == 0 ? (s.dims[i] + 63) / 64 * 64 : s.dims[i];
    total *= d;
    if (total >> 64) return ~uint64_t{0};
  }
  return static_cast<uint64_t>(total);
}

constexpr uint64_t kMaxTensorBytes = 1 << 16;

// The tensors a case lists (and its bulk), before edits.
std::vector<Spec> Specs(const WeightFileCase& c, const std::string& prefix, Built* built) {
  std::vector<Spec> specs;
  const int64_t d = c.d_model >= 1 && c.d_model <= 64 ? c.d_model : 8;
  const int64_t heads = c.heads >= 1 && c.heads <= d && d % c.heads == 0 ? c.heads : 1;
  const int64_t kv = c.kv_heads >= 1 && heads % c.kv_heads == 0 ? c.kv_heads : heads;
  const int64_t rows = d / heads * (heads + 2 * kv);
  for (int i = 0; i < c.TensorCount(); ++i) {
    const WeightTensor& t = c.tensors[i];
    Spec s;
    s.name = SpecName(t, i, prefix);
    s.escape = t.escape;
    const uint8_t kind = t.name % kWeightNameCount;
    const bool mha = kind <= kNameOutProjBias;
    s.dtype = t.dtype >= 240 ? 0 : mha && t.dtype < 160 ? EA_TENSOR_F32 : 1 + t.dtype % 10;
    s.dtype_text = s.dtype != 0 ? kDtypeNames[s.dtype] : t.dtype % 2 ? "f32" : "F8_E4M3";
    if (mha && t.rank < 200) {
      // W_Q (or its bias) d rows, W_K and W_V kv d_head, in the three-tensor namings.
      const bool three = kind <= kNameInProjBias && MhaNaming(t) != kNamingInProj &&
                         !(kind == kNameInProjBias && MhaNaming(t) == kNamingKdim);
      const int64_t part_rows = MhaPart(t) == 0 ? d : kv * (d / heads);
      const int64_t shapes[4][2] = {
          {three ? part_rows : rows, d}, {three ? part_rows : rows, 0}, {d, d}, {d, 0}};
      s.dims.push_back(static_cast<uint64_t>(shapes[kind][0]));
      if (kind % 2 == 0) s.dims.push_back(static_cast<uint64_t>(shapes[kind][1]));
    } else {
      const int rank = t.rank < 224 ? t.rank % 9 : 9 + t.rank % 4;
      for (int r = 0; r < rank; ++r) {
        const uint8_t b = t.dims[r % 8];
        s.dims.push_back(b < 200 ? b % 6 : kEdgeDims[b % 9]);
        if (b >= 200) built->known = false;
      }
      if (rank > EA_TENSOR_MAX_RANK) built->known = false;
    }
    s.packed = c.Blob() && t.layout >= 224;
    if (s.packed && (s.dtype != EA_TENSOR_F32 || s.dims.size() != 2)) built->known = false;
    if (s.dtype == 0) built->known = false;
    if (kind == kNameLong && s.name.size() > EA_TENSOR_MAX_NAME) built->known = false;
    if (kind == kNameEmpty && c.Blob()) built->known = false;
    if (kind == kNameMetadata && !c.Blob()) built->known = false;
    s.bytes = SaturatedBytes(s);
    if (s.bytes > kMaxTensorBytes) built->known = false;
    specs.push_back(s);
  }
  const int bulk = c.bulk >= 240 ? (c.bulk - 239) * 53 : 0;
  for (int i = 0; i < bulk; ++i) {
    Spec s;
    s.name = "b" + std::to_string(i);
    s.dtype = EA_TENSOR_I8;
    s.dtype_text = "I8";
    s.dims = {1};
    s.bytes = 1;
    specs.push_back(s);
  }
  return specs;
}

// Data ranges: as listed, or largest element first (as the safetensors
// library orders them, which keeps every tensor aligned); blob tensors at
// 64-byte aligned offsets after the table.
void PlaceData(std::vector<Spec>* specs, bool listed_order, uint64_t start, uint64_t align) {
  std::vector<size_t> order(specs->size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (!listed_order) {
    std::stable_sort(order.begin(), order.end(), [specs](size_t a, size_t b) {
      return kElementBytes[(*specs)[a].dtype] > kElementBytes[(*specs)[b].dtype];
    });
  }
  uint64_t cursor = start;
  for (size_t i : order) {
    Spec& s = (*specs)[i];
    cursor = (cursor + align - 1) / align * align;
    s.begin = cursor;
    s.end = cursor + s.bytes;
    if (s.bytes <= kMaxTensorBytes) cursor = s.end;  // larger ones are declared, not stored
  }
}

uint64_t DataEnd(const std::vector<Spec>& specs, uint64_t start) {
  uint64_t end = start;
  for (const Spec& s : specs) {
    if (s.bytes <= kMaxTensorBytes) end = std::max(end, s.end);
  }
  return end;
}

void Fill(std::vector<uint8_t>* bytes, size_t from) {
  for (size_t i = from; i < bytes->size(); ++i) bytes->at(i) = static_cast<uint8_t>(i * 7 + 1);
}

// Spec edits, shared by both formats (kinds that change the tensors).
void EditSpecs(const WeightFileCase& c, std::vector<Spec>* specs) {
  const size_t n = specs->size();
  if (n == 0) return;
  for (int e = 0; e < c.EditCount(); ++e) {
    const WeightEdit& edit = c.edits[e];
    Spec& s = (*specs)[edit.at % n];
    switch (edit.kind % kWeightEditCount) {
      case kEditDuplicateName:
        s.name = (*specs)[edit.value % n].name;
        s.escape = static_cast<uint8_t>(edit.value >> 8);
        break;
      case kEditShiftRange:
        s.begin += static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(edit.value)));
        s.end += static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(edit.value >> 8)));
        break;
      case kEditLongName:
        s.name = std::string(EA_TENSOR_MAX_NAME - 1 + edit.value % 4, 'n') +
                 (edit.value & 4 ? "\xc3\xa9" : "");
        s.escape = static_cast<uint8_t>(edit.value >> 8);
        break;
      case kEditHugeDims:
        s.dims = {kEdgeDims[edit.value % 9], kEdgeDims[(edit.value >> 4) % 9]};
        if (edit.value & 0x100) s.dims.push_back(0);
        break;
      case kEditBadDtype:
        s.dtype = 0;
        s.dtype_text = edit.value % 2 ? "F32 " : "";
        break;
      case kEditSwapRanges:
        std::swap(s.begin, (*specs)[edit.value % n].begin);
        std::swap(s.end, (*specs)[edit.value % n].end);
        break;
      default:
        break;
    }
  }
}

// The edits' effect on the builder's verdict: one edit of a kind whose
// effect on a valid file is certain keeps it known; anything else leaves
// the verdict to the model.
void KnownAfterEdits(const WeightFileCase& c, const std::vector<Spec>& before, Built* built) {
  if (c.EditCount() == 0) return;
  const bool was_valid = built->known && built->status == EA_OK;
  built->known = false;
  if (c.EditCount() != 1 || !was_valid || before.empty()) return;
  const WeightEdit& edit = c.edits[0];
  const size_t a = edit.at % before.size(), b = edit.value % before.size();
  const int8_t shift_begin = static_cast<int8_t>(edit.value);
  const int8_t shift_end = static_cast<int8_t>(edit.value >> 8);
  bool bad = false;
  switch (edit.kind % kWeightEditCount) {
    case kEditDuplicateName:
      bad = a != b && before[a].name != before[b].name;  // step 3
      built->known = bad;
      break;
    case kEditShiftRange:
      // bytes no longer the shape's, or a range moved: a hole and an
      // overlap, or past the data (the blob's 64-byte rule may still hold)
      bad = !c.Blob() && (shift_begin != shift_end || (shift_begin != 0 && before[a].bytes > 0));
      built->known = bad;
      break;
    case kEditTrailingBytes:
      bad = !c.Blob();  // a hole after the last tensor; a blob ignores them
      built->known = true;
      break;
    case kEditTruncate:
      bad = true;  // a proper prefix of a valid file never is one
      built->known = true;
      break;
    default:
      break;
  }
  if (bad) {
    built->status = EA_ERR_BAD_FILE;
    built->tensors.clear();
  }
}

// The byte-level edits, on the assembled file.
void EditBytes(const WeightFileCase& c, size_t header_end, std::vector<uint8_t>* bytes) {
  for (int e = 0; e < c.EditCount(); ++e) {
    const WeightEdit& edit = c.edits[e];
    switch (edit.kind % kWeightEditCount) {
      case kEditTrailingBytes:
        bytes->resize(bytes->size() + 1 + edit.value % 16, 0x5A);
        break;
      case kEditTruncate:
        if (!bytes->empty()) {
          const size_t cut = (size_t{edit.at} * 256 + edit.value % 256) % bytes->size();
          bytes->resize(cut);
        }
        break;
      case kEditFlipByte:
        if (!bytes->empty()) {
          const size_t span = std::min(bytes->size(), std::max<size_t>(header_end, 8));
          const size_t at = (size_t{edit.at} * 65536 + (edit.value & 0xFFFF)) % span;
          (*bytes)[at] ^= static_cast<uint8_t>(edit.value >> 16 | 1);
        }
        break;
      case kEditHeaderField:
        if (bytes->size() >= 32) {
          const uint64_t edges[] = {0,
                                    1,
                                    2,
                                    7,
                                    64,
                                    ~uint64_t{0},
                                    uint64_t{1} << 63,
                                    bytes->size(),
                                    bytes->size() - 7,
                                    bytes->size() + 1};
          const uint64_t value = edges[edit.value % 10];
          // safetensors: the header length; blob: version, count, file bytes or data offset.
          const size_t fields[] = {0, 8, 12, 16, 24};
          const size_t field = c.Blob() ? fields[1 + edit.at % 4] : 0;
          const int width = field == 8 || field == 12 ? 4 : 8;
          for (int k = 0; k < width; ++k) {
            (*bytes)[field + k] = static_cast<uint8_t>(value >> (8 * k));
          }
        }
        break;
      default:
        break;
    }
  }
}

Built BuildSafetensors(const WeightFileCase& c, const std::string& prefix) {
  Built built;
  std::vector<Spec> specs = Specs(c, prefix, &built);
  PlaceData(&specs, c.order >= 128, 0, 1);
  const std::vector<Spec> before = specs;
  EditSpecs(c, &specs);
  const uint64_t data_bytes = DataEnd(before, 0);
  // The header: keys rotated by `order`, __metadata__ where the case says.
  std::string json = "{";
  auto member = [&json](const std::string& text) {
    if (json.size() > 1) json += ",";
    json += text;
  };
  const uint8_t metadata = c.metadata % 5;
  int deep = 0;
  for (int e = 0; e < c.EditCount(); ++e) {
    if (c.edits[e].kind % kWeightEditCount == kEditDeepMetadata) deep = 60 + c.edits[e].value % 8;
  }
  if (metadata == 1 || metadata == 4) member("\"__metadata__\":{\"format\":\"pt\"}");
  if (deep > 0) member("\"__metadata__\":" + std::string(deep, '[') + std::string(deep, ']'));
  const size_t n = specs.size();
  for (size_t k = 0; k < n; ++k) {
    const Spec& s = specs[(k + c.order % 13) % n];
    std::string shape;
    for (uint64_t dim : s.dims) shape += (shape.empty() ? "" : ",") + std::to_string(dim);
    member("\"" + Escape(s.name, s.escape) + "\":{\"dtype\":\"" + s.dtype_text + "\",\"shape\":[" +
           shape + "],\"data_offsets\":[" + std::to_string(s.begin) + "," + std::to_string(s.end) +
           "]}");
  }
  if (metadata >= 2) member(metadata == 3 ? "\"__metadata__\":\"text\"" : "\"__metadata__\":{}");
  json += "}";
  for (int e = 0; e < c.EditCount(); ++e) {
    const WeightEdit& edit = c.edits[e];
    if (edit.kind % kWeightEditCount != kEditInsertText) continue;
    const size_t fragments = sizeof(kFragments) / sizeof(kFragments[0]);
    json.insert(edit.at * 257u % (json.size() + 1), kFragments[edit.value % fragments]);
  }
  if (c.padding < 200) {
    json.append((8 - json.size() % 8) % 8, ' ');
  } else {
    json.append(c.padding % 8, ' ');
  }
  built.bytes.assign(8 + json.size() + data_bytes, 0);
  for (int k = 0; k < 8; ++k)
    built.bytes[k] = static_cast<uint8_t>(uint64_t{json.size()} >> (8 * k));
  memcpy(built.bytes.data() + 8, json.data(), json.size());
  Fill(&built.bytes, 8 + json.size());
  const uint64_t data_start = 8 + json.size();

  // The builder's verdict for an unedited file.
  if (metadata == 4 && deep == 0) built.status = EA_ERR_BAD_FILE;  // __metadata__ twice
  if (deep > 0) {
    built.known = false;  // a second __metadata__, and maybe too deep
  }
  std::vector<std::string> names;
  bool misaligned = false;
  for (const Spec& s : before) {
    ModelTensor t;
    t.name = s.name;
    t.dtype = s.dtype;
    t.rank = static_cast<int>(s.dims.size());
    for (int r = 0; r < t.rank && r < EA_TENSOR_MAX_RANK; ++r)
      t.dims[r] = static_cast<int64_t>(s.dims[r]);
    t.offset = data_start + s.begin;
    t.bytes = s.bytes;
    if (s.dtype != 0 && t.offset % static_cast<uint64_t>(kElementBytes[s.dtype]) != 0) {
      misaligned = true;
    }
    names.push_back(s.name);
    built.tensors.push_back(t);
  }
  std::sort(names.begin(), names.end());
  const bool twice = std::adjacent_find(names.begin(), names.end()) != names.end();
  if (built.status == EA_OK) {
    built.status = n > EA_WEIGHT_FILE_OPEN_MAX_TENSORS ? EA_ERR_ARENA_TOO_SMALL
                   : twice                             ? EA_ERR_BAD_FILE
                   : misaligned                        ? EA_ERR_UNSUPPORTED
                                                       : EA_OK;
  }
  if (built.status != EA_OK) built.tensors.clear();
  KnownAfterEdits(c, before, &built);
  EditBytes(c, data_start, &built.bytes);
  return built;
}

void Put(std::vector<uint8_t>* bytes, size_t at, uint64_t value, int width) {
  for (int k = 0; k < width; ++k) (*bytes)[at + k] = static_cast<uint8_t>(value >> (8 * k));
}

Built BuildBlob(const WeightFileCase& c, const std::string& prefix) {
  Built built;
  std::vector<Spec> specs = Specs(c, prefix, &built);
  const size_t n = specs.size();
  if (n > 1) std::rotate(specs.begin(), specs.begin() + c.order % n, specs.end());
  const uint64_t table = 64 + 192 * uint64_t{n};
  PlaceData(&specs, true, table, 64);  // the table's order is the data's
  const std::vector<Spec> before = specs;
  EditSpecs(c, &specs);
  const uint64_t end = DataEnd(before, table);
  built.bytes.assign(end, 0);
  memcpy(built.bytes.data(), "EAWEIGHT", 8);
  Put(&built.bytes, 8, 1, 4);
  Put(&built.bytes, 12, n, 4);
  Put(&built.bytes, 16, end, 8);
  Put(&built.bytes, 24, table, 8);
  std::vector<std::string> names;
  for (size_t i = 0; i < n; ++i) {
    const Spec& s = specs[i];
    const size_t e = 64 + 192 * i;
    memcpy(built.bytes.data() + e, s.name.data(), std::min<size_t>(s.name.size(), 96));
    Put(&built.bytes, e + 96, s.dtype != 0 ? s.dtype : 11 + c.edits[0].value % 100, 4);
    Put(&built.bytes, e + 100, s.packed ? EA_TENSOR_PACKED_LINEAR : EA_TENSOR_ROW_MAJOR, 4);
    Put(&built.bytes, e + 104, s.dims.size(), 4);
    Put(&built.bytes, e + 112, s.begin, 8);
    Put(&built.bytes, e + 120, s.end - s.begin, 8);
    for (size_t r = 0; r < s.dims.size() && r < EA_TENSOR_MAX_RANK; ++r) {
      Put(&built.bytes, e + 128 + 8 * r, s.dims[r], 8);
    }
    const Spec& b = before[i];
    ModelTensor t;
    t.name = b.name;
    t.dtype = b.dtype;
    t.layout = b.packed ? EA_TENSOR_PACKED_LINEAR : EA_TENSOR_ROW_MAJOR;
    t.rank = static_cast<int>(b.dims.size());
    for (int r = 0; r < t.rank && r < EA_TENSOR_MAX_RANK; ++r)
      t.dims[r] = static_cast<int64_t>(b.dims[r]);
    t.offset = b.begin;
    t.bytes = b.bytes;
    for (uint64_t dim : b.dims) {
      if (dim >> 63) built.known = false;  // negative as an int64
    }
    names.push_back(b.name);
    built.tensors.push_back(t);
  }
  Fill(&built.bytes, table);
  std::sort(names.begin(), names.end());
  const bool twice = std::adjacent_find(names.begin(), names.end()) != names.end();
  built.status = n > EA_WEIGHT_FILE_OPEN_MAX_TENSORS ? EA_ERR_ARENA_TOO_SMALL
                 : twice                             ? EA_ERR_BAD_FILE
                                                     : EA_OK;
  if (built.status != EA_OK) built.tensors.clear();
  KnownAfterEdits(c, before, &built);
  EditBytes(c, table, &built.bytes);
  return built;
}

// The bytes of a view, read whole (ASan sees any byte outside the file).
void ReadAll(const ea_tensor_view& v) {
  const uint8_t* data = static_cast<const uint8_t*>(v.data);
  volatile uint8_t sum = 0;
  for (size_t i = 0; i < v.bytes; ++i) sum = static_cast<uint8_t>(sum + data[i]);
}

void ExpectView(const ea_tensor_view& v, const ModelTensor& t, const uint8_t* file) {
  bool same = v.data == file + t.offset && v.bytes == t.bytes && v.dtype == t.dtype &&
              v.layout == t.layout && v.rank == t.rank;
  for (int r = 0; r < EA_TENSOR_MAX_RANK; ++r) {
    same = same && v.dims[r] == (r < t.rank ? t.dims[r] : 0);
  }
  if (!same) {
    Fail("find(%s): data +%td bytes %zu dtype %d layout %d rank %d; the model: +%llu %llu %d %d %d",
         t.name.c_str(), static_cast<const uint8_t*>(v.data) - file, v.bytes, v.dtype, v.layout,
         v.rank, static_cast<unsigned long long>(t.offset),
         static_cast<unsigned long long>(t.bytes), t.dtype, t.layout, t.rank);
  }
  ReadAll(v);
}

// Lookups on an opened file: every tensor the model holds, names it does
// not hold (one byte changed, a prefix), the view untouched by a miss.
void CheckFind(const ea_weight_file& file, const ModelFile& model, const uint8_t* bytes) {
  SetContext("ea_weight_file_find", "-");
  std::vector<std::string> misses = {"", "a", "in_proj_weight", "attn.in_proj_weight"};
  for (const ModelTensor& t : model.tensors) {
    ea_tensor_view view{};
    const ea_status status = ea_weight_file_find(&file, t.name.c_str(), &view);
    if (status != EA_OK) Fail("find(%s) returned %d, the model has it", t.name.c_str(), status);
    ExpectView(view, t, bytes);
    if (!t.name.empty()) {
      misses.push_back(t.name.substr(0, t.name.size() - 1));
      std::string changed = t.name;
      changed.back() = static_cast<char>(changed.back() == 'x' ? 'y' : 'x');
      misses.push_back(changed);
    }
  }
  for (const std::string& name : misses) {
    if (model.Find(name) != nullptr) continue;
    ea_tensor_view view;
    memset(&view, 0x6B, sizeof(view));
    const ea_status status = ea_weight_file_find(&file, name.c_str(), &view);
    const uint8_t* raw = reinterpret_cast<const uint8_t*>(&view);
    if (status != EA_ERR_NOT_FOUND)
      Fail("find(%s) returned %d, want NOT_FOUND", name.c_str(), status);
    for (size_t i = 0; i < sizeof(view); ++i) {
      if (raw[i] != 0x6B) Fail("find(%s) wrote the view on NOT_FOUND", name.c_str());
    }
  }
}

void CheckMha(const ea_weight_file& file, const ModelFile& model, const std::string& prefix,
              int32_t d_model, int32_t heads, int32_t kv_heads) {
  SetContext("ea_weight_file_find_mha", "-");
  ea_mha_weights weights;
  memset(&weights, 0x4D, sizeof(weights));
  const ea_mha_weights untouched = weights;
  ea_weights_layout layout = static_cast<ea_weights_layout>(77);
  const ea_status status =
      ea_weight_file_find_mha(&file, prefix.c_str(), d_model, heads, kv_heads, &weights, &layout);
  ModelMhaNames names;
  const ea_status want = ModelMha(model, prefix, d_model, heads, kv_heads, &names);
  Debug("find_mha(\"%s\", %d, %d, %d): %d, the model %d (%s)\n", prefix.c_str(), d_model, heads,
        kv_heads, status, want, names.w[0].empty() ? "in_proj" : names.w[0].c_str());
  if (status != want) {
    Fail("mha(%zu-byte prefix, %d, %d, %d) returned %d, the model %d", prefix.size(), d_model,
         heads, kv_heads, status, want);
  }
  if (status != EA_OK) {
    if (memcmp(&weights, &untouched, sizeof(weights)) != 0 || layout != 77) {
      Fail("mha wrote its outputs on status %d", status);
    }
    return;
  }
  auto at = [&](const std::string& name) {
    const ModelTensor* t = name.empty() ? nullptr : model.Find(name);
    return t == nullptr ? nullptr : reinterpret_cast<const float*>(file.bytes + t->offset);
  };
  const ModelTensor* out_w = model.Find(names.out_w);
  if (weights.in_proj_weight != at(names.in_w) || weights.in_proj_bias != at(names.in_b) ||
      weights.out_proj_weight != at(names.out_w) || weights.out_proj_bias != at(names.out_b) ||
      weights.q_proj_weight != at(names.w[0]) || weights.k_proj_weight != at(names.w[1]) ||
      weights.v_proj_weight != at(names.w[2]) || weights.q_proj_bias != at(names.b[0]) ||
      weights.k_proj_bias != at(names.b[1]) || weights.v_proj_bias != at(names.b[2]) ||
      layout !=
          (out_w->layout == EA_TENSOR_PACKED_LINEAR ? EA_WEIGHTS_PACKED : EA_WEIGHTS_ROW_MAJOR)) {
    Fail("mha's weights are not the file's tensors");
  }
}

// open_scratch with the case's scratch, in a canary block: statuses as the
// model's (argument errors first), nothing past the given scratch ever
// written, the scratch itself untouched unless the index step ran.
void CheckOpenScratch(const uint8_t* bytes, size_t size, const ModelFile& model, uint8_t kind) {
  SetContext("ea_weight_file_open_scratch", "-");
  const size_t need = EA_WEIGHT_FILE_SCRATCH_BYTES(model.format == EA_OK ? model.count : 0);
  const uint8_t mode = kind % kWeightScratchCount;
  size_t given = need;
  if (mode == kScratchShort) given = need >= 8 ? need - 8 : 0;
  if (mode == kScratchGenerous) given = need + 4096;
  if (mode == kScratchNull) given = 0;
  constexpr size_t kGuard = 64;
  std::vector<uint64_t> block((given + 2 * kGuard) / 8 + 2);
  uint8_t* base = reinterpret_cast<uint8_t*>(block.data());
  memset(base, 0xC3, block.size() * 8);
  void* scratch = base + kGuard;
  ea_status want = model.Status(given / EA_WEIGHT_FILE_SCRATCH_BYTES(1));
  if (mode == kScratchNull) scratch = nullptr;
  if (mode == kScratchMisaligned) {
    scratch = base + kGuard + 4;
    want = EA_ERR_BAD_ARGUMENT;  // whatever its size
  }
  if (mode == kScratchOverFile && given > 0 && size >= 8) {
    scratch = const_cast<uint8_t*>(bytes) + (size - 8) / 8 * 8;  // the file's last bytes
    want = EA_ERR_BAD_ARGUMENT;
  }
  ea_weight_file file;
  memset(&file, 0xE7, sizeof(file));
  const ea_weight_file before = file;
  const ea_status status = ea_weight_file_open_scratch(&file, bytes, size, scratch, given);
  if (status != want) {
    Fail("open_scratch (scratch mode %d, %zu of %zu bytes) returned %d, the model %d", mode, given,
         need, status, want);
  }
  if (status != EA_OK && memcmp(&file, &before, sizeof(file)) != 0) {
    Fail("open_scratch wrote *file on status %d", status);
  }
  const bool index_ran = status == EA_OK || (status == EA_ERR_BAD_FILE && model.format == EA_OK) ||
                         status == EA_ERR_UNSUPPORTED;
  for (size_t i = 0; i < block.size() * 8; ++i) {
    const uint8_t* p = base + i;
    const bool inside = scratch != nullptr && p >= static_cast<uint8_t*>(scratch) &&
                        p < static_cast<uint8_t*>(scratch) + given;
    if (base[i] != 0xC3 && (!inside || !index_ran)) {
      Fail("open_scratch wrote scratch byte %zu (status %d)", i, status);
    }
  }
  if (status == EA_OK && (file.tensor_count != model.count || file.bytes != bytes)) {
    Fail("open_scratch: %u tensors, the model %zu", file.tensor_count, model.count);
  }
}

void CheckFile(const uint8_t* payload, size_t size, const Built* built, uint8_t scratch_kind,
               uint8_t calls, const std::string& prefix, int32_t d_model, int32_t heads,
               int32_t kv_heads) {
  // The file at the end of a block of its own size (ASan's redzone after
  // it); new[] aligns to 16, enough for the 8-byte rule.
  std::unique_ptr<uint8_t[]> owned(new uint8_t[size > 0 ? size : 1]);
  uint8_t* bytes = owned.get();
  if (size > 0) memcpy(bytes, payload, size);
  const ModelFile model = ModelOpen(bytes, size);
  const ea_status want = model.Status(EA_WEIGHT_FILE_OPEN_MAX_TENSORS);
  Debug("weight file: %zu bytes, model: format %d, %zu tensors, status %d\n", size, model.format,
        model.count, want);

  if (built != nullptr && built->known) {
    if (want != built->status) {
      Fail("the model says %d, the builder %d (a harness disagreement)", want, built->status);
    }
    if (want == EA_OK) {
      if (built->tensors.size() != model.tensors.size()) Fail("builder and model: tensor counts");
      for (const ModelTensor& t : built->tensors) {
        const ModelTensor* m = model.Find(t.name);
        if (m == nullptr || m->offset != t.offset || m->bytes != t.bytes || m->dtype != t.dtype ||
            m->layout != t.layout || m->rank != t.rank ||
            memcmp(m->dims, t.dims, sizeof(t.dims)) != 0) {
          Fail("builder and model disagree on %s", t.name.c_str());
        }
      }
    }
  }

  SetContext("ea_weight_file_scratch_size", "-");
  size_t scratch_bytes = 31337;
  const ea_status sized = ea_weight_file_scratch_size(bytes, size, &scratch_bytes);
  if (sized != model.format) Fail("scratch_size returned %d, the model %d", sized, model.format);
  if (sized == EA_OK ? scratch_bytes != EA_WEIGHT_FILE_SCRATCH_BYTES(model.count)
                     : scratch_bytes != 31337) {
    Fail("scratch_size gave %zu bytes for %zu tensors", scratch_bytes, model.count);
  }

  SetContext("ea_weight_file_open", "-");
  ea_weight_file file;
  memset(&file, 0xE7, sizeof(file));
  const ea_weight_file before = file;
  const ea_status opened = ea_weight_file_open(&file, bytes, size);
  if (opened != want) Fail("open returned %d, the model %d", opened, want);
  if (size > 0 && memcmp(bytes, payload, size) != 0) Fail("open wrote the file");
  if (opened != EA_OK && memcmp(&file, &before, sizeof(file)) != 0) {
    Fail("open wrote *file on status %d", opened);
  }
  if (opened == EA_OK && (file.tensor_count != model.count || file.bytes != bytes)) {
    Fail("open: %u tensors, the model %zu", file.tensor_count, model.count);
  }
  CheckOpenScratch(bytes, size, model, scratch_kind);
  if (size > 0 && memcmp(bytes, payload, size) != 0) Fail("open_scratch wrote the file");

  if (calls & 1) {  // the same bytes 4 past an 8-byte boundary
    std::vector<uint64_t> shifted(size / 8 + 2);
    uint8_t* odd = reinterpret_cast<uint8_t*>(shifted.data()) + 4;
    if (size > 0) memcpy(odd, bytes, size);
    if (ea_weight_file_open(&file, odd, size) != EA_ERR_BAD_ARGUMENT ||
        ea_weight_file_scratch_size(odd, size, &scratch_bytes) != EA_ERR_BAD_ARGUMENT) {
      Fail("misaligned bytes not refused");
    }
  }
  if (calls & 2) {
    ea_tensor_view view{};
    if (ea_weight_file_open(nullptr, bytes, size) != EA_ERR_NULL_POINTER ||
        ea_weight_file_open(&file, nullptr, size) != EA_ERR_NULL_POINTER ||
        ea_weight_file_find(&file, nullptr, &view) != EA_ERR_NULL_POINTER ||
        ea_weight_file_find(&file, "a", nullptr) != EA_ERR_NULL_POINTER ||
        ea_weight_file_scratch_size(bytes, size, nullptr) != EA_ERR_NULL_POINTER) {
      Fail("a NULL argument not refused with EA_ERR_NULL_POINTER");
    }
  }
  if (calls & 4) {  // a struct never opened
    ea_tensor_view view{};
    ea_mha_weights weights{};
    ea_weights_layout layout = EA_WEIGHTS_ROW_MAJOR;
    if (ea_weight_file_find(&before, "a", &view) != EA_ERR_BAD_ARGUMENT ||
        ea_weight_file_find_mha(&before, "", 8, 2, 2, &weights, &layout) != EA_ERR_BAD_ARGUMENT) {
      Fail("a struct never opened not refused");
    }
  }
  if (opened != EA_OK) return;
  CheckFind(file, model, bytes);
  if (built != nullptr && built->known) {
    for (const ModelTensor& t : built->tensors) {
      ea_tensor_view view{};
      if (ea_weight_file_find(&file, t.name.c_str(), &view) != EA_OK) {
        Fail("find(%s): the builder put it there", t.name.c_str());
      }
      ExpectView(view, t, bytes);
    }
  }
  CheckMha(file, model, prefix, d_model, heads, kv_heads);
  if (prefix != "attn.") CheckMha(file, model, "attn.", d_model, heads, kv_heads);
}

}  // namespace

void FuzzWeightFile(ByteReader& input) {
  uint8_t shape = 0;
  input.U8(shape);
  if (shape < kWeightStructured) {
    const uint8_t* payload = nullptr;
    size_t size = 0;
    input.Rest(&payload, &size);
    const int32_t n_heads = 1 + shape % 4, d_model = n_heads * (1 + (shape >> 2) % 16);
    CheckFile(payload, size, nullptr, shape, shape >> 5, "", d_model, n_heads, n_heads);
    return;
  }
  WeightFileCase c;
  Visit(input, c);
  const char* const prefixes[] = {"", "attn."};
  std::string prefix =
      c.prefix % 4 < 2 ? prefixes[c.prefix % 4] : std::string(254 + c.prefix % 4, 'p');
  const Built built = c.Blob() ? BuildBlob(c, prefix.size() > 8 ? "" : prefix)
                               : BuildSafetensors(c, prefix.size() > 8 ? "" : prefix);
  Debug("weight file case: %s, %d tensors + bulk %d, %d edits, %zu bytes, builder %s %d\n",
        c.Blob() ? "blob" : "safetensors", c.TensorCount(), c.bulk, c.EditCount(),
        built.bytes.size(), built.known ? "knows" : "leaves", built.status);
  CheckFile(built.bytes.data(), built.bytes.size(), &built, c.scratch, c.calls, prefix, c.d_model,
            c.heads, c.kv_heads);
}

}  // namespace edgeattn_fuzz
