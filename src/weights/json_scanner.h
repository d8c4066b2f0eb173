// A validating JSON scanner over bytes in memory, for the safetensors
// header: no heap, no recursion, every read bounds-checked. It reads what
// that header holds (objects, arrays, strings, non-negative integers) and
// skips any other well-formed value.
#ifndef EDGEATTN_SRC_WEIGHTS_JSON_SCANNER_H_
#define EDGEATTN_SRC_WEIGHTS_JSON_SCANNER_H_

#include <stddef.h>
#include <stdint.h>

namespace edgeattn {

// A string token: the raw bytes between the quotes, escapes not decoded.
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

  const uint8_t* at_;
  const uint8_t* end_;
  bool ok_ = true;
};

// True when the JSON string's decoded bytes equal text[0, length). Escapes
// \" \\ \/ \b \f \n \r \t and \u00XX (ASCII) are decoded; any other \u
// escape never matches (names here are ASCII).
bool JsonStringEquals(JsonString s, const char* text, size_t length);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_WEIGHTS_JSON_SCANNER_H_
