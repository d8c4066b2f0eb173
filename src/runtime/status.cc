// Status strings. Firmware that cannot spare the bytes builds with
// -DEDGEATTN_NO_ERROR_STRINGS and gets "" for every code.
#include "edgeattn/edgeattn.h"

extern "C" const char* ea_status_str(ea_status status) {
#if defined(EDGEATTN_NO_ERROR_STRINGS)
  (void)status;
  return "";
#else
  switch (status) {
    case EA_OK:
      return "ok";
    case EA_ERR_NULL_POINTER:
      return "a required pointer is NULL";
    case EA_ERR_BAD_DIMENSION:
      return "a dimension is zero, negative or out of the planned range";
    case EA_ERR_DIMENSION_OVERFLOW:
      return "a tensor or the arena would be too large to address";
    case EA_ERR_HEADS_MISMATCH:
      return "d_model is not divisible by the number of heads";
    case EA_ERR_ARENA_TOO_SMALL:
      return "the arena has fewer free bytes than the plan needs";
    case EA_ERR_ARENA_MISALIGNED:
      return "the arena is not aligned to EA_ARENA_ALIGNMENT bytes";
    case EA_ERR_BAD_ARGUMENT:
      return "an argument is out of range, buffers break a run's memory rules, or the plan is "
             "not ready";
    case EA_ERR_UNSUPPORTED:
      return "not supported by this build";
    case EA_ERR_CACHE_FULL:
      return "the KV cache (or a decoder's stream) is full";
    case EA_ERR_BAD_FILE:
      return "the weight file breaks its format";
    case EA_ERR_NOT_FOUND:
      return "the weight file has no tensor of that name";
    default:
      return "unknown status";
  }
#endif
}
