#include "failure.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

namespace edgeattn_fuzz {
namespace {

const char* g_entry_point = "";
const char* g_target = "";

}  // namespace

void SetContext(const char* entry_point, const char* target) {
  g_entry_point = entry_point;
  g_target = target;
}

bool Debugging() {
  static const bool debugging = getenv("EDGEATTN_FUZZ_DEBUG") != nullptr;
  return debugging;
}

void Debug(const char* format, ...) {
  if (!Debugging()) return;
  va_list args;
  va_start(args, format);
  vfprintf(stderr, format, args);
  va_end(args);
}

void Fail(const char* format, ...) {
  fprintf(stderr, "\n==edgeattn-fuzz== INVARIANT BROKEN in %s on %s: ", g_entry_point, g_target);
  va_list args;
  va_start(args, format);
  vfprintf(stderr, format, args);
  va_end(args);
  fprintf(stderr, "\n");
  fflush(stderr);
  abort();
}

}  // namespace edgeattn_fuzz
