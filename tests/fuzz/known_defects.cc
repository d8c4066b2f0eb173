#include "known_defects.h"

#include <stdlib.h>

namespace edgeattn_fuzz {

// EDGEATTN_FUZZ_SKIP_KNOWN: unset or 0 skips nothing, 1 skips all, any other
// number is a mask of KnownDefect bits.
bool SkipKnown(KnownDefect defect) {
  static const int mask = [] {
    const char* value = getenv("EDGEATTN_FUZZ_SKIP_KNOWN");
    if (value == nullptr) return 0;
    const int parsed = atoi(value);
    return parsed == 1 ? ~0 : parsed;
  }();
  return (mask & defect) != 0;
}

}  // namespace edgeattn_fuzz
