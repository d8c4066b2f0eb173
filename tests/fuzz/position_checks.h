// The position helpers of edgeattn/rope.h and edgeattn/kv_cache.h, driven by
// the API family (fuzz_api.cc): ea_rope_table_fill, ea_rope_apply and
// ea_alibi_slopes_fill on any shape, base, first position, layout, NULL and
// overlapping buffers. Statuses against the headers' rules, nothing written
// on refusal or outside the output, and values against double-precision
// formulas written here from the headers.
#ifndef EDGEATTN_TESTS_FUZZ_POSITION_CHECKS_H_
#define EDGEATTN_TESTS_FUZZ_POSITION_CHECKS_H_

#include "fuzz_case.h"

namespace edgeattn_fuzz {

void CheckRopeTableFill(const ApiCase& c);
void CheckRopeApply(const ApiCase& c);
void CheckAlibiSlopesFill(const ApiCase& c);

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_POSITION_CHECKS_H_
