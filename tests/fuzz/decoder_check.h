// What the outputs of an MHA decoder stream or a cross-attention run must be
// (tests/fuzz/README.md, MHA decoder and cross-attention): y against the
// double reference (ReferenceDecoderStream over the tokens since the last
// reset, ReferenceCross over the memory set), row by row:
//   - clean (every input the row reads finite and far from float's
//     overflow, f16's 65504 and int8's dequantised FLT_MAX): y finite, and
//     within 1e-5 (f32, int8, int4) or 2e-4 (f16), plus FloatErrorBound's
//     score term, of max |y_ref| over the step's clean rows, plus a slack for
//     the storage's rounding: int8 and int4 round the queries and each
//     block's weights (per scale group), and the library projects K and V in
//     float, so a value within the float error of the projection from an
//     f16, int8 or int4 rounding
//     boundary may be stored one step away from the reference's (its effect
//     on y is bounded through the softmax and out_proj, element by element).
//     Where float's rounding modelled as in reference_bound.h moves y by more
//     than a quarter of the bound, or a storage step could move a score by
//     more than 0.5, only finiteness is checked (counted as ill-conditioned);
//   - a head row that sees a NaN or infinite score (a non-finite query or
//     stored key, or a score past 4 FLT_MAX): the whole y row NaN;
//   - a head row with finite scores that sees a non-finite stored value:
//     the whole y row non-finite;
//   - otherwise (overflow possible somewhere): nothing checked.
// Compiled without coverage (FUZZ_CHECK_SRCS).
#ifndef EDGEATTN_TESTS_FUZZ_DECODER_CHECK_H_
#define EDGEATTN_TESTS_FUZZ_DECODER_CHECK_H_

#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "edgeattn/kv_cache.h"
#include "reference/reference_decode.h"

namespace edgeattn_fuzz {

using edgeattn_test::StoredAsOf;

// The layer as the reference reads it: row-major weights (PACKED layers
// give their row-major source), tables, slopes.
struct LayerSpec {
  int d_model = 0, n_heads = 0, n_kv_heads = 0, window = 0;
  edgeattn_test::StoredAs storage = edgeattn_test::StoredAs::kF32;
  const float* in_proj_weight = nullptr;  // [d_model + 2 n_kv_heads d_head, d_model]
  const float* in_proj_bias = nullptr;
  const float* out_proj_weight = nullptr;
  const float* out_proj_bias = nullptr;
  const float* position_table = nullptr;  // rows added to x (decoder), or NULL
  double rope_base = 0.0;                 // 0: no RoPE
  bool rope_interleaved = false;
  const float* alibi_slopes = nullptr;
};

// Counts for the stats line.
struct LayerCheckStats {
  size_t steps_checked = 0, ill_conditioned = 0, rows_nan = 0, rows_nonfinite = 0,
         rows_unchecked = 0, slack_used = 0, compared = 0;
};
LayerCheckStats& DecoderStats();
LayerCheckStats& CrossStats();
// Prints both families' counts at exit (once; families that ran).
void PrintLayerStatsAtExit();

class LayerCheck {
 public:
  // The decoder: x [tokens, d_model], every token since init or reset.
  static LayerCheck Decoder(const LayerSpec& layer, const std::vector<float>& x, int tokens);
  // Cross-attention: queries x [n_queries, d_model] over memory [n_memory, d_model].
  static LayerCheck Cross(const LayerSpec& layer, const std::vector<float>& x, int n_queries,
                          const std::vector<float>& memory, int n_memory);

  // Fails (failure.h) when rows [first, first + n) of the output, y [n,
  // d_model], break the rules above. With `other` (the same rows on another
  // target), also |y - other| within twice the allowance on checked rows.
  void Check(const char* what, const float* y, int first, int n,
             const float* other = nullptr) const;

 private:
  enum Row : uint8_t { kClean, kNaN, kNonFinite, kUnchecked };
  void Build(const LayerSpec& layer, const std::vector<float>& xq, int n_q,
             const std::vector<float>& xk, int n_k, bool decoder);

  LayerCheckStats* stats_ = nullptr;
  int e_ = 0, d_ = 0;
  double bound_ = 0.0;
  std::vector<double> ref_;            // [rows, e]: the reference's y
  std::vector<double> rounded_[2];     // float's rounding modelled
  std::vector<double> out_magnitude_;  // what each y's last rounding scales with
  std::vector<double> slack_;          // storage rounding boundaries
  std::vector<Row> rows_;              // [rows]
  std::vector<uint8_t> stable_;        // a storage step moves no score past 0.5
  std::vector<double> row_max_score_;  // largest |scaled score| of a clean row
};

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_DECODER_CHECK_H_
