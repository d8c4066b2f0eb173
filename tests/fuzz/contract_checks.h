// The float contract on results, row by row (see attention_facts.h for how
// rows are classified): NaN rows for non-finite scores, zero rows for rows
// with no visible key, proper distributions and bounded outputs otherwise.
// These checks hold at any score magnitude; the 1e-5 error bound against the
// reference is reference_bound.h's, and only for well-conditioned cases.
#ifndef EDGEATTN_TESTS_FUZZ_CONTRACT_CHECKS_H_
#define EDGEATTN_TESTS_FUZZ_CONTRACT_CHECKS_H_

#include <stddef.h>

#include <vector>

#include "attention_facts.h"

namespace edgeattn_fuzz {

// One attention (or one head): out [n_q, d_v] with leading dimension ld_out,
// weights NULL or [n_q, n_kv]. `check_out` is false where the output goes on
// through another layer before the caller sees it (MHA heads).
void CheckAttentionContract(const char* what, const std::vector<RowFacts>& facts, const Operand& v,
                            const float* out, size_t ld_out, bool check_out, const float* weights,
                            int n_kv);

// What an MHA output row (after W_O) must be.
enum class OutputRow { kAllNaN, kAllFinite, kUnchecked };

void CheckOutputRows(const char* what, const std::vector<OutputRow>& rows, const float* y,
                     int cols);

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_CONTRACT_CHECKS_H_
