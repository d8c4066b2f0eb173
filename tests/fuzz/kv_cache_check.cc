#include "kv_cache_check.h"

#include <float.h>
#include <math.h>

#include <algorithm>

#include "failure.h"
#include "reference/random_tensor.h"
#include "reference_bound.h"
#include "test_support.h"

namespace edgeattn_fuzz {
namespace {

using edgeattn_test::StoredAs;

constexpr double kRoundingStep = 0x1p-23;  // two float ulps, as reference_bound.cc
constexpr uint64_t kRoundingSeeds[2] = {0x5eed, 0xbeef};
constexpr double kTinyOutputs = 1e-30;
// Scores whose magnitudes (or their parts') stay below this cannot overflow
// in any float evaluation order; exact scores above 4 FLT_MAX always do.
constexpr double kNoOverflow = FLT_MAX / 4.0;
constexpr double kSureOverflow = 4.0 * static_cast<double>(FLT_MAX);

class Rounding {
 public:
  explicit Rounding(uint64_t seed) : stream_(seed) {}
  double operator()(double value, double magnitude) {
    return value + ((stream_.NextBits() & 1) ? kRoundingStep : -kRoundingStep) * magnitude;
  }

 private:
  edgeattn_test::RandomStream stream_;
};

}  // namespace

uint64_t HashBytes(uint64_t hash, const void* data, size_t bytes) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < bytes; ++i) hash = (hash ^ p[i]) * 0x100000001b3ull;
  return hash;
}

void KvHistory::Append(const float* k_rows, const float* v_rows, int n, int d_head,
                       StoredAs storage) {
  const size_t count = static_cast<size_t>(n) * static_cast<size_t>(row);
  const std::vector<double> k_stored =
      edgeattn_test::StoredValues(std::vector<float>(k_rows, k_rows + count), d_head, storage);
  const std::vector<double> v_stored =
      edgeattn_test::StoredValues(std::vector<float>(v_rows, v_rows + count), d_head, storage);
  k.insert(k.end(), k_stored.begin(), k_stored.end());
  v.insert(v.end(), v_stored.begin(), v_stored.end());
}

KvDecodeCheck::KvDecodeCheck(const edgeattn_test::DecodeProblem& p, StoredAs storage,
                             const KvHistory& history, const std::vector<float>& q, int first,
                             int n, bool all_at_first)
    : problem_(p), n_(n) {
  const int d = p.d, group = p.n_heads / p.n_kv_heads;
  const double scale = p.scale > 0.0 ? p.scale : 1.0 / sqrt(static_cast<double>(d));
  const size_t ld_q = static_cast<size_t>(p.n_heads) * d;
  // An int8 or int4 cache rounds the queries to int8 as int8 rounds keys,
  // and its weights per block (kv_cache.h): the reference takes the rounded
  // queries, and each output element may move by the weights' rounding bound
  // too.
  const bool quantized = storage == StoredAs::kInt8 || storage == StoredAs::kInt4;
  const double key_limit = storage == StoredAs::kInt4 ? 7.0 : 127.0;
  std::vector<float> q_used = q;
  if (quantized) {
    const std::vector<double> rounded = edgeattn_test::RoundedQueries(q, d, storage);
    q_used.assign(rounded.begin(), rounded.end());
  }
  auto reference = [&](const std::vector<float>& rows, int position, int count) {
    if (!quantized)
      return edgeattn_test::ReferenceDecode(p, rows, position, count, history.k, history.v);
    edgeattn_test::Int8Decode result =
        edgeattn_test::ReferenceDecodeInt8(p, rows, position, count, history.k, history.v, storage);
    weight_rounding_.insert(weight_rounding_.end(), result.weight_rounding.begin(),
                            result.weight_rounding.end());
    return result.out;
  };
  if (all_at_first) {
    for (int i = 0; i < n; ++i) {
      const std::vector<float> row(q.begin() + static_cast<ptrdiff_t>(i * ld_q),
                                   q.begin() + static_cast<ptrdiff_t>((i + 1) * ld_q));
      const std::vector<double> one = reference(row, first, 1);
      ref_.insert(ref_.end(), one.begin(), one.end());
    }
  } else {
    ref_ = reference(q, first, n);
  }
  if (!quantized) weight_rounding_.assign(ref_.size(), 0.0);
  const size_t ld_kv = static_cast<size_t>(p.n_kv_heads) * d;
  rows_.assign(static_cast<size_t>(n) * p.n_heads, Row::kClean);
  must_be_nonfinite_.assign(static_cast<size_t>(n) * ld_q, 0);
  out_magnitude_.assign(ref_.size(), 0.0);
  for (std::vector<double>& r : rounded_) r.assign(ref_.size(), 0.0);
  Rounding rounding[2] = {Rounding(kRoundingSeeds[0]), Rounding(kRoundingSeeds[1])};
  std::vector<double> e;
  for (int i = 0; i < n; ++i) {
    const int position = all_at_first ? first : first + i;
    const int lo = p.window > 0 ? std::max(0, position - p.window + 1) : 0;
    max_visible_ = std::max(max_visible_, position - lo + 1);
    for (int h = 0; h < p.n_heads; ++h) {
      const float* q_row =
          q_used.data() + static_cast<size_t>(i) * ld_q + static_cast<size_t>(h) * d;
      const size_t kv_column = static_cast<size_t>(h / group) * d;
      const size_t out_base = static_cast<size_t>(i) * ld_q + static_cast<size_t>(h) * d;
      // int8: a finite query whose rounded value passes FLT_MAX (127 *
      // fl(FLT_MAX / 127) does) is inf in the float reference, while the
      // cache keeps it as a level and a scale: not checked.
      if (quantized) {
        const float* q_given =
            q.data() + static_cast<size_t>(i) * ld_q + static_cast<size_t>(h) * d;
        bool rounding_overflows = false;
        for (int c = 0; c < d; ++c) {
          rounding_overflows |= isfinite(q_given[c]) && !isfinite(q_row[c]);
        }
        if (rounding_overflows) {
          rows_[static_cast<size_t>(i) * p.n_heads + h] = Row::kPartial;
          continue;
        }
      }
      bool nan_scored = false, overflow_possible = false, nonfinite_value = false;
      double q_abs_sum = 0.0, q_abs_max = 0.0, row_max_score = 0.0;
      for (int c = 0; c < d; ++c) {
        q_abs_sum += fabs(static_cast<double>(q_row[c]));
        q_abs_max = std::max(q_abs_max, fabs(static_cast<double>(q_row[c])));
      }
      if (scale * q_abs_max > kNoOverflow || q_abs_max > kNoOverflow) overflow_possible = true;
      if (quantized && 127.0 * q_abs_sum > kNoOverflow) overflow_possible = true;
      for (int j = lo; j <= position; ++j) {
        const double* k_row = history.k.data() + static_cast<size_t>(j) * ld_kv + kv_column;
        const double* v_row = history.v.data() + static_cast<size_t>(j) * ld_kv + kv_column;
        double dot = 0.0, magnitude = 0.0, k_abs_max = 0.0;
        for (int c = 0; c < d; ++c) {
          dot += q_row[c] * k_row[c];
          magnitude += fabs(q_row[c] * k_row[c]);
          k_abs_max = std::max(k_abs_max, fabs(k_row[c]));
        }
        // int8 multiplies the two scales and `scale` before the integer sum:
        // past FLT_MAX, a sum of 0 gives NaN (kv_cache.h). int4's query
        // scale is that of H_b q / 64 times 64, at most sum |q| / 127.
        const double q_scale_bound = (storage == StoredAs::kInt4 ? q_abs_sum : q_abs_max) / 127.0;
        if (quantized && scale * q_scale_bound * (k_abs_max / key_limit) > kNoOverflow) {
          overflow_possible = true;
        }
        const double s = scale * dot;
        if (!isfinite(s) || fabs(s) > kSureOverflow) nan_scored = true;
        if (std::max(1.0, scale) * magnitude > kNoOverflow) overflow_possible = true;
        if (isfinite(s)) row_max_score = std::max(row_max_score, fabs(s));
        for (int c = 0; c < d; ++c) {
          // int8's dequantised values can pass FLT_MAX (127 * fl(FLT_MAX / 127)
          // does): float keeps them as +-inf or not, depending on whether
          // the kernel dequantises first. Values near the range may overflow
          // a weighted sum.
          if (fabs(k_row[c]) > FLT_MAX && isfinite(k_row[c])) overflow_possible = true;
          if (fabs(v_row[c]) > kNoOverflow && isfinite(v_row[c])) overflow_possible = true;
          if (!isfinite(v_row[c])) {
            nonfinite_value = true;
            must_be_nonfinite_[out_base + c] = 1;
          }
        }
      }
      Row& kind = rows_[static_cast<size_t>(i) * p.n_heads + h];
      if (nan_scored) {
        kind = Row::kNaN;
        continue;
      }
      if (overflow_possible || nonfinite_value) {
        kind = Row::kPartial;
        continue;
      }
      ++clean_rows_;
      max_score_ = std::max(max_score_, row_max_score);
      // Float's rounding modelled: scores, exponentials, their sum and the
      // outputs each moved by two ulps of their magnitude (int8's
      // dequantised keys and values too), two random-sign realisations.
      for (int r = 0; r < 2; ++r) {
        Rounding& round = rounding[r];
        e.assign(static_cast<size_t>(position - lo + 1), 0.0);
        double largest = -INFINITY;
        for (int j = lo; j <= position; ++j) {
          const double* k_row = history.k.data() + static_cast<size_t>(j) * ld_kv + kv_column;
          double dot = 0.0, magnitude = 0.0;
          for (int c = 0; c < d; ++c) {
            const double k_value = quantized ? round(k_row[c], fabs(k_row[c])) : k_row[c];
            dot += q_row[c] * k_value;
            magnitude += fabs(q_row[c] * k_value);
          }
          double& score = e[static_cast<size_t>(j - lo)];
          score = round(scale * dot, scale * magnitude);
          largest = std::max(largest, score);
        }
        double sum = 0.0;
        for (double& x : e) {
          x = exp(x - largest);
          x = round(x, x);
          sum += x;
        }
        sum = round(sum, sum);
        for (int c = 0; c < d; ++c) {
          double acc = 0.0, magnitude = 0.0;
          for (int j = lo; j <= position; ++j) {
            const double v_stored =
                history.v[static_cast<size_t>(j) * ld_kv + kv_column + static_cast<size_t>(c)];
            const double v_value = quantized ? round(v_stored, fabs(v_stored)) : v_stored;
            const double w = e[static_cast<size_t>(j - lo)] / sum;
            acc += w * v_value;
            magnitude += w * fabs(v_value);
          }
          rounded_[r][out_base + c] = round(acc, magnitude);
          out_magnitude_[out_base + c] = magnitude;
        }
      }
    }
  }
}

void KvDecodeCheck::Check(const float* out) const {
  const int d = problem_.d;
  const size_t ld_q = static_cast<size_t>(problem_.n_heads) * d;
  double max_error = 0.0, max_ref = 0.0, max_magnitude = 0.0, condition = 0.0;
  double rounded_error[2] = {0.0, 0.0};
  for (int i = 0; i < n_; ++i) {
    for (int h = 0; h < problem_.n_heads; ++h) {
      const Row kind = rows_[static_cast<size_t>(i) * problem_.n_heads + h];
      const size_t base = static_cast<size_t>(i) * ld_q + static_cast<size_t>(h) * d;
      for (int c = 0; c < d; ++c) {
        const size_t at = base + static_cast<size_t>(c);
        const double y = out[at];
        if (kind == Row::kNaN && !isnan(y)) {
          Fail(
              "ea_kv_cache_attend: query %d head %d sees a NaN or infinite scaled score, "
              "out[%d] = %.9g, want NaN",
              i, h, c, y);
        }
        if (kind == Row::kPartial && must_be_nonfinite_[at] && isfinite(y)) {
          Fail(
              "ea_kv_cache_attend: query %d head %d sees a non-finite stored value in channel "
              "%d, out = %.9g, want NaN or inf",
              i, h, c, y);
        }
        if (kind != Row::kClean) continue;
        if (!isfinite(y)) {
          Fail("ea_kv_cache_attend: query %d head %d (finite scores and values) out[%d] = %.9g", i,
               h, c, y);
        }
        max_error = std::max(max_error, fabs(y - ref_[at]) - weight_rounding_[at]);
        max_ref = std::max(max_ref, fabs(ref_[at]));
        max_magnitude = std::max(max_magnitude, out_magnitude_[at]);
        for (int r = 0; r < 2; ++r) {
          rounded_error[r] = std::max(rounded_error[r], fabs(rounded_[r][at] - ref_[at]));
        }
      }
    }
  }
  if (clean_rows_ == 0 || d > kBoundMaxFeatures) {
    Debug("    attend: %zu clean rows of %zu, no bound check\n", clean_rows_, rows_.size());
    return;
  }
  double bound = edgeattn_test::FloatErrorBound(max_score_, d);
  if (max_visible_ > 32768) {
    bound += edgeattn_test::LongRowErrorBound(max_visible_) - edgeattn_test::kFloatErrorBound;
  }
  if (max_ref > 0.0) {
    condition = std::max({rounded_error[0] / max_ref, rounded_error[1] / max_ref,
                          kRoundingStep * max_magnitude / max_ref});
  } else {
    condition = std::max({rounded_error[0], rounded_error[1], kRoundingStep * max_magnitude});
  }
  if (condition > bound / 4 || (max_ref > 0.0 && max_ref < kTinyOutputs) || max_ref >= 1e37) {
    Debug("    attend: ill-conditioned (rounding model %.2g, bound %.3g, max |y_ref| %.3g)\n",
          condition, bound, max_ref);
    ++Stats().ill_conditioned;
    return;
  }
  ++Stats().checked;
  const double error = max_ref > 0.0 ? max_error / max_ref : max_error;
  Debug("    attend: %zu clean rows, error %.3g, bound %.3g, rounding model %.2g\n", clean_rows_,
        error, bound, condition);
  if (!(error <= bound)) {
    if (Debugging()) {
      for (size_t at = 0; at < ref_.size(); ++at) {
        Debug("  out[%zu] = %.9g, reference %.9g, rounding models %.9g %.9g\n", at, out[at],
              ref_[at], rounded_[0][at], rounded_[1][at]);
      }
    }
    Fail(
        "ea_kv_cache_attend: output error %.3g > bound %.3g against ReferenceDecode (largest "
        "|scaled score| %.3g, rounding model moves it %.2g, max |y_ref| %.3g)",
        error, bound, max_score_, condition, max_ref);
  }
}

}  // namespace edgeattn_fuzz
