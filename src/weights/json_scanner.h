// A validating JSON scanner over bytes in memory, for the safetensors
// header: no heap, no recursion, every read bounds-checked. It reads what
// that header holds (objects, arrays, strings, non-negative integers) and
// skips any other well-formed value.
//
// Strings are checked whole (RFC 8259 with RFC 3629 UTF-8): raw bytes must
// be well-formed UTF-8 (no overlong forms, no encoded surrogates, nothing
// past U+10FFFF), control characters must be escaped, escapes are \" \\ \/
// \b \f \n \r \t and \uXXXX, where a surrogate must be a high one followed
// by a low one (the pair is one code point). A string the scanner accepts
// therefore decodes to exactly one sequence of UTF-8 bytes, which is what
// names are compared by (U+0000 included: a decoded byte 0).
#ifndef EDGEATTN_SRC_WEIGHTS_JSON_SCANNER_H_
#define EDGEATTN_SRC_WEIGHTS_JSON_SCANNER_H_

#include <stddef.h>
#include <stdint.h>

namespace edgeattn {

// A string token: the raw bytes between the quotes, escapes not decoded.
// Only the scanner makes them, from strings it validated.
struct JsonString {
  const uint8_t* raw;
  size_t length;
};

class JsonScanner {
 public:
  JsonScanner(const uint8_t* bytes, size_t size) : at_(bytes), end_(bytes + size) {}

  bool ok() const { return ok_; }
  // Skips whitespace; true when the next byte is `c` (then consumed).
  bool Take(uint8_t c);
  // Skips whitespace; fails the scan unless the next byte is `c`.
  void Expect(uint8_t c);
  bool AtEnd();
  JsonString String();
  // A non-negative integer below 2^63 (no sign, fraction or exponent).
  uint64_t Unsigned();
  // Any well-formed value (nesting up to kMaxDepth).
  void SkipValue();

  static constexpr int kMaxDepth = 64;

 private:
  void SkipWhitespace();
  void Fail() { ok_ = false; }
  void SkipNumber();
  void SkipLiteral(const char* word);
  // Past one escape (at_ on its backslash) or one UTF-8 character; false
  // when it is malformed.
  bool SkipEscape();
  bool SkipUtf8();

  const uint8_t* at_;
  const uint8_t* end_;
  bool ok_ = true;
};

// The decoded UTF-8 bytes of a validated string, one at a time.
class JsonStringBytes {
 public:
  explicit JsonStringBytes(JsonString s) : at_(s.raw), end_(s.raw + s.length) {}
  // The next byte into *byte; false at the end.
  bool Next(uint8_t* byte);

 private:
  const uint8_t* at_;
  const uint8_t* end_;
  uint8_t pending_[4] = {};  // the rest of an escape's UTF-8 sequence
  int pending_count_ = 0;
  int pending_next_ = 0;
};

// True when the string's decoded bytes equal text[0, length).
bool JsonStringEquals(JsonString s, const char* text, size_t length);
// <0, 0, >0 as a's decoded bytes sort before, equal or after b's (unsigned
// bytes, so UTF-8 sorts in code point order).
int JsonStringCompare(JsonString a, JsonString b);
// The decoded length in bytes, counting no further than limit + 1, and
// whether a decoded byte is 0 (U+0000 escaped).
size_t JsonStringDecodedLength(JsonString s, size_t limit, bool* has_nul);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_WEIGHTS_JSON_SCANNER_H_
