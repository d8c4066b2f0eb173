// What one ea_kv_cache_attend must give (tests/fuzz/README.md, KV cache):
// ReferenceDecode (tests/reference/reference_decode.h) over the StoredValues
// of every token appended since init or reset, each (query, head) row
// classified first:
//   - clean (finite query, finite stored keys and values it sees, no float
//     overflow possible in its scores): inside the float bound
//     FloatErrorBound(largest |scaled score| of the clean rows, d_head)
//     (LongRowErrorBound past 32768 visible positions), norm-scaled over the
//     clean rows, unless float's rounding modelled as in reference_bound.h
//     moves them by more than a quarter of it (ill-conditioned: only counted);
//   - NaN-scored (a visible scaled score NaN or +-inf in double, or past
//     4 FLT_MAX: every float evaluation overflows): the whole head row NaN;
//   - otherwise (finite scores, a non-finite stored value; or scores, keys
//     or values near or past float's overflow, as int8's dequantised
//     127 * fl(FLT_MAX / 127) is): the channels where a visible stored value
//     is NaN or inf non-finite, nothing else checked.
// Compiled without coverage (FUZZ_CHECK_SRCS).
#ifndef EDGEATTN_TESTS_FUZZ_KV_CACHE_CHECK_H_
#define EDGEATTN_TESTS_FUZZ_KV_CACHE_CHECK_H_

#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "reference/reference_decode.h"

namespace edgeattn_fuzz {

// The keys and values of the tokens appended since init or reset, as the
// cache stores them (StoredValues, row by row), in double.
struct KvHistory {
  int row = 0;  // n_kv_heads * d_head
  std::vector<double> k, v;
  void Clear() {
    k.clear();
    v.clear();
  }
  int64_t Tokens() const { return row > 0 ? static_cast<int64_t>(k.size()) / row : 0; }
  void Append(const float* k_rows, const float* v_rows, int n, int d_head,
              edgeattn_test::StoredAs storage);
};

// FNV-1a over `bytes` (stored records, appended inputs), outside the
// coverage-instrumented driver.
inline constexpr uint64_t kHashSeed = 0xcbf29ce484222325ull;
uint64_t HashBytes(uint64_t hash, const void* data, size_t bytes);

class KvDecodeCheck {
 public:
  // The queries q [n, n_heads * d_head] of positions first .. first + n - 1
  // (ea_kv_cache_attend), or all of position `first` (all_at_first:
  // ea_kv_cache_attend_all).
  KvDecodeCheck(const edgeattn_test::DecodeProblem& problem, edgeattn_test::StoredAs storage,
                const KvHistory& history, const std::vector<float>& q, int first, int n,
                bool all_at_first = false);
  // Fails (failure.h) when `out` breaks one of the rules above.
  void Check(const float* out) const;

  size_t clean_rows() const { return clean_rows_; }

 private:
  enum class Row : uint8_t { kClean, kNaN, kPartial };
  edgeattn_test::DecodeProblem problem_;
  int n_ = 0;
  std::vector<double> ref_;
  std::vector<double> weight_rounding_;  // int8: ReferenceDecodeInt8's; otherwise 0
  std::vector<double> rounded_[2];
  std::vector<double> out_magnitude_;
  std::vector<Row> rows_;                   // [n, n_heads]
  std::vector<uint8_t> must_be_nonfinite_;  // [n, n_heads * d] (kPartial rows)
  double max_score_ = 0.0;                  // over the clean rows
  int max_visible_ = 0;
  size_t clean_rows_ = 0;
};

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_KV_CACHE_CHECK_H_
