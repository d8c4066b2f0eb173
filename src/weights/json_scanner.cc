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
    if (*at_ < 0x20) {  // control characters must be escaped
      Fail();
      return s;
    }
    if (*at_ == '\\') {
      if (end_ - at_ < 2) break;
      if (at_[1] == 'u') {
        if (end_ - at_ < 6) break;
        for (int i = 2; i < 6; ++i) {
          if (HexDigit(at_[i]) < 0) {
            Fail();
            return s;
          }
        }
        at_ += 6;
        continue;
      }
      if (SimpleEscape(at_[1]) == 0) {
        Fail();
        return s;
      }
      at_ += 2;
      continue;
    }
    ++at_;
  }
  if (at_ == end_) {
    Fail();
    return s;
  }
  s.length = static_cast<size_t>(at_ - s.raw);
  ++at_;  // the closing quote
  return s;
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

bool JsonStringEquals(JsonString s, const char* text, size_t length) {
  size_t matched = 0;
  for (size_t i = 0; i < s.length; ++i) {
    uint8_t c = s.raw[i];
    if (c == '\\') {
      // The scanner validated the escape: i + 1 (and for \u, i + 5) exist.
      const uint8_t kind = s.raw[i + 1];
      if (kind == 'u') {
        const int value = (HexDigit(s.raw[i + 2]) << 12) | (HexDigit(s.raw[i + 3]) << 8) |
                          (HexDigit(s.raw[i + 4]) << 4) | HexDigit(s.raw[i + 5]);
        if (value >= 0x80) return false;
        c = static_cast<uint8_t>(value);
        i += 5;
      } else {
        c = SimpleEscape(kind);
        i += 1;
      }
    }
    if (matched == length || static_cast<uint8_t>(text[matched]) != c) return false;
    ++matched;
  }
  return matched == length;
}

}  // namespace edgeattn
