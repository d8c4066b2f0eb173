// The documented float32 error bound (tests/test_support.h, README
// "Numerics"): max |y - y_ref| <= 1e-5 * max |y_ref| against the
// double-precision reference in tests/reference, for outputs and weights.
//
// The bound is a claim about well-conditioned problems. A fuzzer also
// builds problems whose exact answer float32 cannot even represent to 1e-5:
// outputs that cancel (value rows summing to about zero under a flat
// softmax), keys that differ only far below the rounding of their common
// part (a large bias), scores so large that their own rounding moves the
// softmax. No float32 code meets the bound there, so each case is also
// computed in double with two realisations of float's rounding modelled
// (every projection, score, exponential, sum and output moved by two ulps
// of its magnitude, random signs); where either (or the last rounding of an
// output alone) moves outputs (or weights) by more than a quarter of the
// bound, only the contract
// (contract_checks.h) applies to them. The harness prints how many checks
// ran and how many were skipped.
// Callers apply the bound only where the README scopes it: finite inputs,
// every visible |scaled score| <= kBoundScoreLimit, up to kBoundMaxKeys keys
// and kBoundMaxFeatures features (the sizes the README's figures cover).
#ifndef EDGEATTN_TESTS_FUZZ_REFERENCE_BOUND_H_
#define EDGEATTN_TESTS_FUZZ_REFERENCE_BOUND_H_

#include <stddef.h>

#include <vector>

#include "edgeattn/edgeattn.h"
#include "reference/reference_attention.h"

namespace edgeattn_fuzz {

inline constexpr double kErrorBound = 1e-5;  // edgeattn_test::kFloatErrorBound
inline constexpr double kBoundScoreLimit = 100.0;
inline constexpr int kBoundMaxKeys = 1024;
inline constexpr int kBoundMaxFeatures = 256;

// Counts of bound checks done and skipped as ill-conditioned (for the log).
struct BoundStats {
  size_t checked = 0;
  size_t ill_conditioned = 0;
};
BoundStats& Stats();

// Self-attention inputs for n tokens. table may be NULL.
struct SelfAttentionInputs {
  int n, d_model, d_k, d_v;
  bool causal;
  int n_valid_keys;
  const float* x;
  const float* table;
  const float *w_q, *w_k, *w_v, *b_q, *b_k, *b_v;
};

// The reference (and its conditioning) of one case, computed once and
// applied to the results of every target.
class BoundCheck {
 public:
  static BoundCheck Attention(const edgeattn_test::AttentionProblem& problem, const float* q,
                              const float* k, const float* v);
  static BoundCheck SelfAttention(const SelfAttentionInputs& inputs);
  static BoundCheck Mha(const edgeattn_test::ReferenceMhaProblem& problem, const float* x);

  // Fails when a result misses the bound where the bound applies.
  void Check(const float* out, const float* weights) const;

 private:
  const char* what_ = "";
  edgeattn_test::ReferenceResult ref_;
  edgeattn_test::ReferenceResult rounded_[2];  // two realisations of float's rounding
  std::vector<double> out_magnitude_;          // what the last rounding of each output scales with
};

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_REFERENCE_BOUND_H_
