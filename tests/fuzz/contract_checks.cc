#include "contract_checks.h"

#include <math.h>

#include <algorithm>

#include "failure.h"

namespace edgeattn_fuzz {
namespace {

const char* KindName(RowKind kind) {
  switch (kind) {
    case RowKind::kZero:
      return "no visible key";
    case RowKind::kNaN:
      return "non-finite visible score";
    case RowKind::kFinite:
      return "finite scores";
    default:
      return "unchecked";
  }
}

void CheckWeightsRow(const char* what, int row, const RowFacts& f, const float* w, int n_kv) {
  double sum = 0.0;
  for (int j = 0; j < n_kv; ++j) {
    const float p = w[j];
    switch (f.kind) {
      case RowKind::kNaN:
        if (!isnan(p)) {
          Fail("%s: weights[%d][%d] = %g, want NaN (row has a %s)", what, row, j, p,
               KindName(f.kind));
        }
        break;
      case RowKind::kZero:
        if (p != 0.0f)
          Fail("%s: weights[%d][%d] = %g, want 0 (%s)", what, row, j, p, KindName(f.kind));
        break;
      case RowKind::kFinite:
        if (j >= f.visible) {
          if (p != 0.0f) Fail("%s: masked weights[%d][%d] = %g, want 0", what, row, j, p);
        } else if (!(p >= 0.0f && p <= 1.0f)) {
          Fail("%s: weights[%d][%d] = %g outside [0, 1] (finite scores, max |score| %g)", what, row,
               j, p, f.max_abs_score);
        }
        sum += p;
        break;
      default:
        break;
    }
  }
  const double tolerance = 1e-5 + 1.2e-7 * f.visible;
  if (f.kind == RowKind::kFinite && fabs(sum - 1.0) > tolerance) {
    Fail("%s: weights row %d sums to %.9g (max |score| %g, %d visible keys)", what, row, sum,
         f.max_abs_score, f.visible);
  }
}

void CheckOutRow(const char* what, int row, const RowFacts& f, const Operand& v, const float* out) {
  for (int c = 0; c < v.cols; ++c) {
    const float y = out[c];
    switch (f.kind) {
      case RowKind::kNaN:
        if (!isnan(y)) {
          Fail("%s: out[%d][%d] = %g, want NaN (row has a %s)", what, row, c, y, KindName(f.kind));
        }
        break;
      case RowKind::kZero:
        if (y != 0.0f) Fail("%s: out[%d][%d] = %g, want 0 (%s)", what, row, c, y, KindName(f.kind));
        break;
      case RowKind::kFinite: {
        if (!f.values_bounded) break;
        // The hull of the values as float may hold them (projections round).
        double lo = INFINITY, hi = -INFINITY, value_error = 0.0;
        for (int j = 0; j < f.visible; ++j) {
          lo = std::min(lo, v.at(j, c));
          hi = std::max(hi, v.at(j, c));
          value_error = std::max(value_error, v.error_at(j, c));
        }
        const double slack = 2e-5 * std::max(fabs(lo), fabs(hi)) + value_error + 1e-40;
        if (!isfinite(y) || y < lo - slack || y > hi + slack) {
          Fail(
              "%s: out[%d][%d] = %g outside the values' hull [%g, %g] (finite scores, max |score| "
              "%g)",
              what, row, c, y, lo, hi, f.max_abs_score);
        }
        break;
      }
      default:
        break;
    }
  }
}

}  // namespace

void CheckAttentionContract(const char* what, const std::vector<RowFacts>& facts, const Operand& v,
                            const float* out, size_t ld_out, bool check_out, const float* weights,
                            int n_kv) {
  for (size_t i = 0; i < facts.size(); ++i) {
    const int row = static_cast<int>(i);
    if (check_out) CheckOutRow(what, row, facts[i], v, out + i * ld_out);
    if (weights != nullptr) {
      CheckWeightsRow(what, row, facts[i], weights + i * static_cast<size_t>(n_kv), n_kv);
    }
  }
}

void CheckOutputRows(const char* what, const std::vector<OutputRow>& rows, const float* y,
                     int cols) {
  for (size_t i = 0; i < rows.size(); ++i) {
    for (int c = 0; c < cols; ++c) {
      const float value = y[i * static_cast<size_t>(cols) + c];
      if (rows[i] == OutputRow::kAllNaN && !isnan(value)) {
        Fail("%s: y[%zu][%d] = %g, want NaN (a head's row has a non-finite visible score)", what, i,
             c, value);
      }
      if (rows[i] == OutputRow::kAllFinite && !isfinite(value)) {
        Fail("%s: y[%zu][%d] = %g, want finite (finite inputs and scores)", what, i, c, value);
      }
    }
  }
}

}  // namespace edgeattn_fuzz
