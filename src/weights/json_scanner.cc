#include "weights/json_scanner.h"

namespace edgeattn {
namespace {

int HexDigit(uint8_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsDigit(uint8_t c) { return c >= '0' && c <= '9'; }

// Four hex digits at p (the caller checked they are in bounds).
bool Hex4(const uint8_t* p, uint32_t* value) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    const int digit = HexDigit(p[i]);
    if (digit < 0) return false;
    v = v << 4 | static_cast<uint32_t>(digit);
  }
  *value = v;
  return true;
}

bool IsHighSurrogate(uint32_t unit) { return unit >= 0xD800 && unit <= 0xDBFF; }
bool IsLowSurrogate(uint32_t unit) { return unit >= 0xDC00 && unit <= 0xDFFF; }

// The UTF-8 bytes of a code point below 0x110000 (not a surrogate); their count.
int EncodeUtf8(uint32_t code, uint8_t* out) {
  if (code < 0x80) {
    out[0] = static_cast<uint8_t>(code);
    return 1;
  }
  if (code < 0x800) {
    out[0] = static_cast<uint8_t>(0xC0 | code >> 6);
    out[1] = static_cast<uint8_t>(0x80 | (code & 0x3F));
    return 2;
  }
  if (code < 0x10000) {
    out[0] = static_cast<uint8_t>(0xE0 | code >> 12);
    out[1] = static_cast<uint8_t>(0x80 | (code >> 6 & 0x3F));
    out[2] = static_cast<uint8_t>(0x80 | (code & 0x3F));
    return 3;
  }
  out[0] = static_cast<uint8_t>(0xF0 | code >> 18);
  out[1] = static_cast<uint8_t>(0x80 | (code >> 12 & 0x3F));
  out[2] = static_cast<uint8_t>(0x80 | (code >> 6 & 0x3F));
  out[3] = static_cast<uint8_t>(0x80 | (code & 0x3F));
  return 4;
}

// The byte a one-character escape stands for, or 0 for none.
uint8_t SimpleEscape(uint8_t c) {
  switch (c) {
    case '"':
      return '"';
    case '\\':
      return '\\';
    case '/':
      return '/';
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    default:
      return 0;
  }
}

}  // namespace

void JsonScanner::SkipWhitespace() {
  while (at_ < end_ && (*at_ == ' ' || *at_ == '\t' || *at_ == '\n' || *at_ == '\r')) ++at_;
}

bool JsonScanner::Take(uint8_t c) {
  if (!ok_) return false;
  SkipWhitespace();
  if (at_ < end_ && *at_ == c) {
    ++at_;
    return true;
  }
  return false;
}

void JsonScanner::Expect(uint8_t c) {
  if (!Take(c)) Fail();
}

bool JsonScanner::AtEnd() {
  SkipWhitespace();
  return at_ == end_;
}

JsonString JsonScanner::String() {
  JsonString s{nullptr, 0};
  if (!Take('"')) {
    Fail();
    return s;
  }
  s.raw = at_;
  while (at_ < end_ && *at_ != '"') {
    const uint8_t c = *at_;
    bool good = true;
    if (c < 0x20) {
      good = false;  // control characters must be escaped
    } else if (c == '\\') {
      good = SkipEscape();
    } else if (c >= 0x80) {
      good = SkipUtf8();
    } else {
      ++at_;
    }
    if (!good) {
      Fail();
      return s;
    }
  }
  if (at_ == end_) {
    Fail();
    return s;
  }
  s.length = static_cast<size_t>(at_ - s.raw);
  ++at_;  // the closing quote
  return s;
}

bool JsonScanner::SkipEscape() {
  if (end_ - at_ < 2) return false;
  if (at_[1] != 'u') {
    at_ += 2;
    return SimpleEscape(at_[-1]) != 0;
  }
  uint32_t unit = 0;
  if (end_ - at_ < 6 || !Hex4(at_ + 2, &unit)) return false;
  at_ += 6;
  if (IsLowSurrogate(unit)) return false;  // a low surrogate without its high one
  if (!IsHighSurrogate(unit)) return true;
  uint32_t low = 0;
  if (end_ - at_ < 6 || at_[0] != '\\' || at_[1] != 'u' || !Hex4(at_ + 2, &low) ||
      !IsLowSurrogate(low)) {
    return false;  // a high surrogate without its low one
  }
  at_ += 6;
  return true;
}

// Well-formed UTF-8 (Unicode table 3-7): the lead byte fixes the length and
// the range of the first continuation byte.
bool JsonScanner::SkipUtf8() {
  const uint8_t lead = *at_;
  int extra = 0;
  uint8_t low = 0x80, high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    extra = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    extra = 2;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    extra = 3;
    if (lead == 0xF0) low = 0x90;   // no overlong forms
    if (lead == 0xF4) high = 0x8F;  // nothing past U+10FFFF
  } else {
    return false;
  }
  if (end_ - at_ <= extra || at_[1] < low || at_[1] > high) return false;
  for (int i = 2; i <= extra; ++i) {
    if (at_[i] < 0x80 || at_[i] > 0xBF) return false;
  }
  at_ += extra + 1;
  return true;
}

uint64_t JsonScanner::Unsigned() {
  if (!ok_) return 0;
  SkipWhitespace();
  if (at_ == end_ || !IsDigit(*at_) || (*at_ == '0' && end_ - at_ > 1 && IsDigit(at_[1]))) {
    Fail();
    return 0;
  }
  uint64_t value = 0;
  while (at_ < end_ && IsDigit(*at_)) {
    const uint64_t digit = static_cast<uint64_t>(*at_ - '0');
    if (value > (INT64_MAX - digit) / 10) {
      Fail();
      return 0;
    }
    value = value * 10 + digit;
    ++at_;
  }
  if (at_ < end_ && (*at_ == '.' || *at_ == 'e' || *at_ == 'E')) Fail();
  return value;
}

void JsonScanner::SkipNumber() {
  if (at_ < end_ && *at_ == '-') ++at_;
  if (at_ == end_ || !IsDigit(*at_)) return Fail();
  if (*at_ == '0') {
    ++at_;
  } else {
    while (at_ < end_ && IsDigit(*at_)) ++at_;
  }
  if (at_ < end_ && *at_ == '.') {
    ++at_;
    if (at_ == end_ || !IsDigit(*at_)) return Fail();
    while (at_ < end_ && IsDigit(*at_)) ++at_;
  }
  if (at_ < end_ && (*at_ == 'e' || *at_ == 'E')) {
    ++at_;
    if (at_ < end_ && (*at_ == '+' || *at_ == '-')) ++at_;
    if (at_ == end_ || !IsDigit(*at_)) return Fail();
    while (at_ < end_ && IsDigit(*at_)) ++at_;
  }
}

void JsonScanner::SkipLiteral(const char* word) {
  for (; *word != '\0'; ++word, ++at_) {
    if (at_ == end_ || *at_ != static_cast<uint8_t>(*word)) return Fail();
  }
}

// Iterative: bit d of `is_object` says whether nesting level d is an object
// (whose members need a key) or an array; kMaxDepth levels fit the word.
void JsonScanner::SkipValue() {
  uint64_t is_object = 0;
  int depth = 0;
  bool need_value = true;
  while (ok_) {
    SkipWhitespace();
    if (at_ == end_) return Fail();
    if (need_value) {
      const uint8_t c = *at_;
      if (c == '{' || c == '[') {
        if (depth == kMaxDepth) return Fail();
        ++at_;
        const bool object = c == '{';
        is_object =
            object ? is_object | (uint64_t{1} << depth) : is_object & ~(uint64_t{1} << depth);
        ++depth;
        if (Take(object ? '}' : ']')) {
          --depth;
          need_value = false;
        } else if (object) {
          String();
          Expect(':');
        }
        continue;
      }
      if (c == '"') {
        String();
      } else if (c == 't') {
        SkipLiteral("true");
      } else if (c == 'f') {
        SkipLiteral("false");
      } else if (c == 'n') {
        SkipLiteral("null");
      } else {
        SkipNumber();
      }
      need_value = false;
    }
    if (!ok_ || depth == 0) return;
    const bool object = (is_object >> (depth - 1)) & 1u;
    if (Take(',')) {
      if (object) {
        String();
        Expect(':');
      }
      need_value = true;
    } else if (Take(object ? '}' : ']')) {
      --depth;
    } else {
      return Fail();
    }
  }
}

bool JsonStringBytes::Next(uint8_t* byte) {
  if (pending_next_ < pending_count_) {
    *byte = pending_[pending_next_++];
    return true;
  }
  if (at_ == end_) return false;
  // The scanner validated the string: an escape is whole, a \u high
  // surrogate is followed by its low one.
  if (*at_ != '\\') {
    *byte = *at_++;
    return true;
  }
  const uint8_t kind = at_[1];
  if (kind != 'u') {
    at_ += 2;
    *byte = SimpleEscape(kind);
    return true;
  }
  uint32_t code = 0, low = 0;
  Hex4(at_ + 2, &code);
  at_ += 6;
  if (IsHighSurrogate(code)) {
    Hex4(at_ + 2, &low);
    at_ += 6;
    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
  }
  pending_count_ = EncodeUtf8(code, pending_);
  pending_next_ = 1;
  *byte = pending_[0];
  return true;
}

bool JsonStringEquals(JsonString s, const char* text, size_t length) {
  JsonStringBytes bytes(s);
  uint8_t c = 0;
  size_t matched = 0;
  while (bytes.Next(&c)) {
    if (matched == length || static_cast<uint8_t>(text[matched]) != c) return false;
    ++matched;
  }
  return matched == length;
}

int JsonStringCompare(JsonString a, JsonString b) {
  JsonStringBytes a_bytes(a), b_bytes(b);
  for (;;) {
    uint8_t x = 0, y = 0;
    const bool more_a = a_bytes.Next(&x), more_b = b_bytes.Next(&y);
    if (!more_a || !more_b) return static_cast<int>(more_a) - static_cast<int>(more_b);
    if (x != y) return x < y ? -1 : 1;
  }
}

size_t JsonStringDecodedLength(JsonString s, size_t limit, bool* has_nul) {
  JsonStringBytes bytes(s);
  uint8_t c = 0;
  size_t length = 0;
  *has_nul = false;
  while (length <= limit && bytes.Next(&c)) {
    *has_nul = *has_nul || c == 0;
    ++length;
  }
  return length;
}

}  // namespace edgeattn
