#include "weight_file_model.h"

#include <string.h>

#include <algorithm>
#include <memory>
#include <set>
#include <utility>

namespace edgeattn_fuzz {
namespace {

// ---------------------------------------------------------------- JSON tree

struct Json {
  enum Kind { kObject, kArray, kString, kNumber, kLiteral } kind = kLiteral;
  std::vector<std::pair<std::string, Json>> members;  // decoded keys, in order
  std::vector<Json> items;
  std::string text;  // a string decoded, a number's token

  // Containers nested in this value, itself included.
  int Depth() const {
    int deepest = 0;
    for (const auto& m : members) deepest = std::max(deepest, m.second.Depth());
    for (const Json& item : items) deepest = std::max(deepest, item.Depth());
    return kind == kObject || kind == kArray ? deepest + 1 : 0;
  }
};

// Appends code point `c` as UTF-8.
void AppendUtf8(uint32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 + (c >> 6)));
    out->push_back(static_cast<char>(0x80 + (c & 63)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 + (c >> 12)));
    out->push_back(static_cast<char>(0x80 + ((c >> 6) & 63)));
    out->push_back(static_cast<char>(0x80 + (c & 63)));
  } else {
    out->push_back(static_cast<char>(0xF0 + (c >> 18)));
    out->push_back(static_cast<char>(0x80 + ((c >> 12) & 63)));
    out->push_back(static_cast<char>(0x80 + ((c >> 6) & 63)));
    out->push_back(static_cast<char>(0x80 + (c & 63)));
  }
}

class Parser {
 public:
  Parser(const uint8_t* p, size_t n) : p_(p), n_(n) {}

  // The whole text is one value with whitespace around it.
  bool Document(Json* out) {
    Space();
    if (!Value(out)) return false;
    Space();
    return i_ == n_;
  }

 private:
  void Space() {
    while (i_ < n_ && (p_[i_] == ' ' || p_[i_] == '\t' || p_[i_] == '\n' || p_[i_] == '\r')) ++i_;
  }
  bool Eat(char c) {
    Space();
    if (i_ < n_ && p_[i_] == static_cast<uint8_t>(c)) {
      ++i_;
      return true;
    }
    return false;
  }

  bool Value(Json* out) {
    Space();
    if (i_ >= n_) return false;
    const uint8_t c = p_[i_];
    if (c == '{') {
      ++i_;
      out->kind = Json::kObject;
      if (Eat('}')) return true;
      do {
        Space();
        std::string key;
        if (!String(&key) || !Eat(':')) return false;
        Json value;
        if (!Value(&value)) return false;
        out->members.emplace_back(std::move(key), std::move(value));
      } while (Eat(','));
      return Eat('}');
    }
    if (c == '[') {
      ++i_;
      out->kind = Json::kArray;
      if (Eat(']')) return true;
      do {
        Json value;
        if (!Value(&value)) return false;
        out->items.push_back(std::move(value));
      } while (Eat(','));
      return Eat(']');
    }
    if (c == '"') {
      out->kind = Json::kString;
      return String(&out->text);
    }
    for (const char* word : {"true", "false", "null"}) {
      const size_t length = strlen(word);
      if (n_ - i_ >= length && memcmp(p_ + i_, word, length) == 0) {
        i_ += length;
        out->kind = Json::kLiteral;
        return true;
      }
    }
    out->kind = Json::kNumber;
    return Number(&out->text);
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  bool Number(std::string* token) {
    const size_t start = i_;
    auto digits = [this]() {
      const size_t from = i_;
      while (i_ < n_ && p_[i_] >= '0' && p_[i_] <= '9') ++i_;
      return i_ > from;
    };
    if (i_ < n_ && p_[i_] == '-') ++i_;
    if (i_ < n_ && p_[i_] == '0') {
      ++i_;
    } else if (!digits()) {
      return false;
    }
    if (i_ < n_ && p_[i_] == '.') {
      ++i_;
      if (!digits()) return false;
    }
    if (i_ < n_ && (p_[i_] == 'e' || p_[i_] == 'E')) {
      ++i_;
      if (i_ < n_ && (p_[i_] == '+' || p_[i_] == '-')) ++i_;
      if (!digits()) return false;
    }
    token->assign(reinterpret_cast<const char*>(p_ + start), i_ - start);
    return true;
  }

  bool String(std::string* out) {
    if (i_ >= n_ || p_[i_] != '"') return false;
    const size_t start = ++i_;
    while (i_ < n_ && p_[i_] != '"') i_ += p_[i_] == '\\' && i_ + 1 < n_ ? 2 : 1;
    if (i_ >= n_) return false;
    const std::string raw(reinterpret_cast<const char*>(p_ + start), i_ - start);
    ++i_;
    return ModelDecodeString(raw, out);
  }

  const uint8_t* p_;
  size_t n_;
  size_t i_ = 0;
};

// -------------------------------------------------------------- the formats

uint64_t Le(const uint8_t* p, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = value * 256 + p[i];
  return value;
}

int ElementSize(int dtype) {
  static const int sizes[] = {0, 4, 2, 2, 8, 1, 1, 2, 4, 8, 1};  // weight_file.h's enum
  return dtype >= 1 && dtype <= 10 ? sizes[dtype] : 0;
}

// elements * element bytes, saturated at 2^64 (an empty shape is 0 bytes).
unsigned __int128 ShapeBytes(const int64_t* dims, int rank, uint64_t element, uint64_t first) {
  unsigned __int128 total = element;
  const unsigned __int128 cap = static_cast<unsigned __int128>(1) << 64;
  for (int i = 0; i < rank; ++i) {
    if (dims[i] == 0) return 0;
  }
  for (int i = 0; i < rank; ++i) {
    const uint64_t d = i == 0 ? first : static_cast<uint64_t>(dims[i]);
    total = total * d;
    if (total > cap) total = cap;
  }
  return total;
}

// A JSON integer the header allows for a dim or an offset: no sign,
// fraction or exponent, below 2^63.
bool HeaderInteger(const Json& v, uint64_t* value) {
  if (v.kind != Json::kNumber) return false;
  const std::string& t = v.text;
  if (t.empty() || t.size() > 19) return false;
  for (char c : t) {
    if (c < '0' || c > '9') return false;
  }
  uint64_t x = 0;
  for (char c : t) x = x * 10 + static_cast<uint64_t>(c - '0');
  if (x >= (uint64_t{1} << 63)) return false;
  *value = x;
  return true;
}

bool SafetensorsTensor(const Json& info, uint64_t data_bytes, ModelTensor* t) {
  static const char* names[] = {"",   "F32", "F16", "BF16", "F64", "I8",
                                "U8", "I16", "I32", "I64",  "BOOL"};
  if (info.kind != Json::kObject) return false;
  int seen[3] = {0, 0, 0};
  uint64_t begin = 0, end = 0;
  for (const auto& m : info.members) {
    const Json& v = m.second;
    if (m.first == "dtype") {
      if (seen[0]++ || v.kind != Json::kString) return false;
      for (int d = 1; d <= 10; ++d) {
        if (v.text == names[d]) t->dtype = d;
      }
      if (t->dtype == 0) return false;
    } else if (m.first == "shape") {
      if (seen[1]++ || v.kind != Json::kArray || v.items.size() > EA_TENSOR_MAX_RANK) return false;
      t->rank = static_cast<int>(v.items.size());
      for (int r = 0; r < t->rank; ++r) {
        uint64_t d = 0;
        if (!HeaderInteger(v.items[r], &d)) return false;
        t->dims[r] = static_cast<int64_t>(d);
      }
    } else if (m.first == "data_offsets") {
      if (seen[2]++ || v.kind != Json::kArray || v.items.size() != 2) return false;
      if (!HeaderInteger(v.items[0], &begin) || !HeaderInteger(v.items[1], &end)) return false;
    } else if (v.Depth() > 64) {
      return false;
    }
  }
  if (!seen[0] || !seen[1] || !seen[2] || begin > end || end > data_bytes) return false;
  const uint64_t element = static_cast<uint64_t>(ElementSize(t->dtype));
  const uint64_t first = t->rank > 0 ? static_cast<uint64_t>(t->dims[0]) : 1;
  if (ShapeBytes(t->dims, t->rank, element, first) != end - begin) return false;
  t->offset = begin;  // made absolute by the caller
  t->bytes = end - begin;
  return true;
}

void ModelSafetensors(const uint8_t* p, size_t size, ModelFile* m) {
  if (size < 8) return;
  const uint64_t n = Le(p, 8);
  if (n > size - 8) return;
  const size_t data_start = 8 + static_cast<size_t>(n);
  const uint64_t data_bytes = size - data_start;
  Json root;
  if (!Parser(p + 8, static_cast<size_t>(n)).Document(&root) || root.kind != Json::kObject) return;
  int metadata = 0;
  for (const auto& member : root.members) {
    if (member.first == "__metadata__") {
      if (metadata++ || member.second.Depth() > 64) return;
      continue;
    }
    ModelTensor t;
    t.name = member.first;
    if (t.name.size() > EA_TENSOR_MAX_NAME || t.name.find('\0') != std::string::npos) return;
    if (!SafetensorsTensor(member.second, data_bytes, &t)) return;
    t.offset += data_start;
    m->tensors.push_back(t);
  }
  m->format = EA_OK;
  m->count = m->tensors.size();
  std::set<std::string> names;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const ModelTensor& t : m->tensors) {
    if (!names.insert(t.name).second) m->index_fault = true;
    ranges.emplace_back(t.offset - data_start, t.offset - data_start + t.bytes);
    if (t.offset % static_cast<uint64_t>(ElementSize(t.dtype)) != 0) m->misaligned = true;
  }
  std::sort(ranges.begin(), ranges.end());
  uint64_t covered = 0;
  for (const auto& r : ranges) {
    if (r.first != covered) m->index_fault = true;
    covered = r.second;
  }
  if (covered != data_bytes) m->index_fault = true;
}

void ModelBlob(const uint8_t* p, size_t size, ModelFile* m) {
  if (size < 64 || Le(p + 8, 4) != 1) return;
  const uint64_t count = Le(p + 12, 4), file_bytes = Le(p + 16, 8), data = Le(p + 24, 8);
  if (file_bytes > size || file_bytes < 64 || count > (file_bytes - 64) / 192 ||
      data != 64 + 192 * count) {
    return;
  }
  uint64_t next = data;
  for (uint64_t i = 0; i < count; ++i) {
    const uint8_t* e = p + 64 + 192 * i;
    ModelTensor t;
    const void* nul = memchr(e, 0, 96);
    if (e[0] == 0 || nul == nullptr) return;
    t.name.assign(reinterpret_cast<const char*>(e), static_cast<const uint8_t*>(nul) - e);
    t.dtype = static_cast<int>(Le(e + 96, 4));
    const uint64_t layout = Le(e + 100, 4), rank = Le(e + 104, 4);
    t.offset = Le(e + 112, 8);
    t.bytes = Le(e + 120, 8);
    if (ElementSize(t.dtype) == 0 || rank > EA_TENSOR_MAX_RANK || layout > 1) return;
    t.layout = static_cast<int>(layout);
    t.rank = static_cast<int>(rank);
    for (int r = 0; r < t.rank; ++r) {
      t.dims[r] = static_cast<int64_t>(Le(e + 128 + 8 * r, 8));
      if (t.dims[r] < 0) return;
    }
    unsigned __int128 want = 0;
    const uint64_t element = static_cast<uint64_t>(ElementSize(t.dtype));
    if (layout == 0) {
      want = ShapeBytes(t.dims, t.rank, element, t.rank > 0 ? static_cast<uint64_t>(t.dims[0]) : 1);
    } else {
      if (t.dtype != EA_TENSOR_F32 || t.rank != 2) return;
      const uint64_t rows = static_cast<uint64_t>(t.dims[0]);
      // roundup(n_out, 64); a matrix with a 0 is empty whatever the other dim.
      const uint64_t padded = rows % 64 == 0 ? rows : rows + (64 - rows % 64);
      if (t.dims[0] != 0 && t.dims[1] != 0 && rows > static_cast<uint64_t>(INT64_MAX) - 64) return;
      want = ShapeBytes(t.dims, 2, element, padded);
    }
    if (want != t.bytes || t.offset % 64 != 0 || t.offset < next || t.offset > file_bytes ||
        t.bytes > file_bytes - t.offset) {
      return;
    }
    next = t.offset + t.bytes;
    m->tensors.push_back(t);
  }
  m->format = EA_OK;
  m->count = m->tensors.size();
  std::set<std::string> names;
  for (const ModelTensor& t : m->tensors) {
    if (!names.insert(t.name).second) m->index_fault = true;
  }
}

}  // namespace

bool ModelDecodeString(const std::string& text, std::string* decoded) {
  decoded->clear();
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  auto hex4 = [&](size_t at, uint32_t* unit) {
    if (at + 4 > n) return false;
    *unit = 0;
    for (size_t k = at; k < at + 4; ++k) {
      const char c = static_cast<char>(s[k]);
      const char* digits = "0123456789abcdef0123456789ABCDEF";
      const char* hit = strchr(digits, c);
      if (c == 0 || hit == nullptr) return false;
      *unit = *unit * 16 + static_cast<uint32_t>((hit - digits) % 16);
    }
    return true;
  };
  for (size_t i = 0; i < n;) {
    const uint8_t c = s[i];
    if (c < 0x20) return false;
    if (c == '\\') {
      if (i + 1 >= n) return false;
      const char* simple = "\"\"\\\\//b\bf\fn\nr\rt\t";
      const char kind = static_cast<char>(s[i + 1]);
      const char* hit = kind != 'u' && kind != 0 ? strchr(simple, kind) : nullptr;
      if (hit != nullptr && (hit - simple) % 2 == 0) {
        decoded->push_back(hit[1]);
        i += 2;
        continue;
      }
      uint32_t unit = 0, low = 0;
      if (kind != 'u' || !hex4(i + 2, &unit)) return false;
      i += 6;
      if (unit >= 0xDC00 && unit < 0xE000) return false;
      if (unit >= 0xD800 && unit < 0xDC00) {
        if (i + 1 >= n || s[i] != '\\' || s[i + 1] != 'u' || !hex4(i + 2, &low) || low < 0xDC00 ||
            low >= 0xE000) {
          return false;
        }
        i += 6;
        unit = 0x10000 + (unit - 0xD800) * 0x400 + (low - 0xDC00);
      }
      AppendUtf8(unit, decoded);
      continue;
    }
    // RFC 3629: the code point from its lead and continuation bytes, then
    // refuse overlong forms, surrogates and anything past U+10FFFF.
    int length = c < 0x80 ? 1 : c >= 0xF0 && c < 0xF8 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (length == 0 || c >= 0xF8 || i + static_cast<size_t>(length) > n) return false;
    uint32_t code = length == 1 ? c : c & (0x7F >> length);
    for (int k = 1; k < length; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      code = code * 64 + (s[i + k] & 0x3F);
    }
    const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < least[length] || code > 0x10FFFF || (code >= 0xD800 && code < 0xE000)) {
      return false;
    }
    decoded->append(text, i, static_cast<size_t>(length));
    i += static_cast<size_t>(length);
  }
  return true;
}

const ModelTensor* ModelFile::Find(const std::string& name) const {
  for (const ModelTensor& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

ModelFile ModelOpen(const uint8_t* bytes, size_t size) {
  ModelFile m;
  if (size >= 8 && memcmp(bytes, "EAWEIGHT", 8) == 0) {
    ModelBlob(bytes, size, &m);
  } else {
    ModelSafetensors(bytes, size, &m);
  }
  if (m.format != EA_OK) m.tensors.clear();
  return m;
}

ea_status ModelMha(const ModelFile& file, const std::string& prefix, int32_t d_model,
                   int32_t n_heads, int32_t n_kv_heads, ModelMhaNames* names) {
  if (d_model < 1 || n_heads < 1 || n_kv_heads < 0) return EA_ERR_BAD_DIMENSION;
  const int32_t kv_heads = n_kv_heads == 0 ? n_heads : n_kv_heads;  // 0 means n_heads
  if (d_model % n_heads != 0 || n_heads % kv_heads != 0) return EA_ERR_HEADS_MISMATCH;
  if (prefix.size() > 256) return EA_ERR_BAD_ARGUMENT;
  // The first naming whose W_Q (or in_proj) the file has.
  const auto present = [&](const std::string& name) { return file.Find(prefix + name) != nullptr; };
  ModelMhaNames n;
  const char* const kdim[3] = {"q_proj_weight", "k_proj_weight", "v_proj_weight"};
  const char* const hf[3] = {"q_proj.weight", "k_proj.weight", "v_proj.weight"};
  const char* const hf_bias[3] = {"q_proj.bias", "k_proj.bias", "v_proj.bias"};
  const char* const* three = present("in_proj_weight") ? nullptr
                             : present(kdim[0])        ? kdim
                             : present(hf[0])          ? hf
                                                       : nullptr;
  if (three == nullptr && !present("in_proj_weight")) return EA_ERR_NOT_FOUND;
  if (three == nullptr) n.in_w = prefix + "in_proj_weight";
  for (int i = 0; i < 3 && three != nullptr; ++i) {
    if (!present(three[i])) return EA_ERR_NOT_FOUND;
    n.w[i] = prefix + three[i];
  }
  if (!present("out_proj.weight")) return EA_ERR_NOT_FOUND;
  n.out_w = prefix + "out_proj.weight";
  if (present("out_proj.bias")) n.out_b = prefix + "out_proj.bias";
  for (int i = 0; i < 3 && three == hf; ++i) {
    if (present(hf_bias[i])) n.b[i] = prefix + hf_bias[i];
  }
  if (three != hf && present("in_proj_bias")) n.in_b = prefix + "in_proj_bias";
  const auto find = [&](const std::string& name) {
    return name.empty() ? nullptr : file.Find(name);
  };
  const ModelTensor* out_w = find(n.out_w);
  if (three == nullptr) {
    if (find(n.in_w)->layout != out_w->layout) return EA_ERR_BAD_FILE;
  } else {
    for (const std::string& name : {n.w[0], n.w[1], n.w[2], n.out_w}) {
      if (find(name)->layout != EA_TENSOR_ROW_MAJOR) return EA_ERR_BAD_FILE;
    }
  }
  const int64_t d_head = d_model / n_heads;
  const int64_t rows = d_head * (n_heads + 2 * int64_t{kv_heads}), kv_rows = d_head * kv_heads;
  auto is = [](const ModelTensor* t, int rank, int64_t d0, int64_t d1) {
    return t == nullptr || (t->dtype == EA_TENSOR_F32 && t->rank == rank && t->dims[0] == d0 &&
                            (rank == 1 || t->dims[1] == d1));
  };
  const bool weights_ok = three == nullptr ? is(find(n.in_w), 2, rows, d_model)
                                           : is(find(n.w[0]), 2, d_model, d_model) &&
                                                 is(find(n.w[1]), 2, kv_rows, d_model) &&
                                                 is(find(n.w[2]), 2, kv_rows, d_model);
  if (!weights_ok || !is(out_w, 2, d_model, d_model) || !is(find(n.in_b), 1, rows, 0) ||
      !is(find(n.b[0]), 1, d_model, 0) || !is(find(n.b[1]), 1, kv_rows, 0) ||
      !is(find(n.b[2]), 1, kv_rows, 0) || !is(find(n.out_b), 1, d_model, 0)) {
    return EA_ERR_BAD_DIMENSION;
  }
  if (names != nullptr) *names = n;
  return EA_OK;
}

}  // namespace edgeattn_fuzz
