#include "attention_facts.h"

#include <math.h>

#include <algorithm>

namespace edgeattn_fuzz {

Operand FromFloats(const float* data, int rows, int cols, size_t ld) {
  Operand m;
  m.rows = rows;
  m.cols = cols;
  m.value.resize(static_cast<size_t>(rows) * cols);
  m.unsure.assign(m.value.size(), 0);
  m.error.assign(m.value.size(), 0.0);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) m.value[static_cast<size_t>(r) * cols + c] = data[r * ld + c];
  }
  return m;
}

Operand Columns(const Operand& m, int first, int count) {
  Operand s;
  s.rows = m.rows;
  s.cols = count;
  s.value.resize(static_cast<size_t>(m.rows) * count);
  s.unsure.resize(s.value.size());
  s.error.resize(s.value.size());
  for (int r = 0; r < m.rows; ++r) {
    for (int c = 0; c < count; ++c) {
      s.value[static_cast<size_t>(r) * count + c] = m.at(r, first + c);
      s.unsure[static_cast<size_t>(r) * count + c] = m.unsure_at(r, first + c);
      s.error[static_cast<size_t>(r) * count + c] = m.error_at(r, first + c);
    }
  }
  return s;
}

Operand Project(const Operand& x, const float* w, const float* b, int n_out) {
  Operand y;
  y.rows = x.rows;
  y.cols = n_out;
  y.value.resize(static_cast<size_t>(x.rows) * n_out);
  y.unsure.assign(y.value.size(), 0);
  y.error.assign(y.value.size(), 0.0);
  // Worst-case rounding of a float sum of n_in products plus the bias.
  const double relative = (x.cols + 2) * 0x1p-24;
  for (int r = 0; r < x.rows; ++r) {
    for (int o = 0; o < n_out; ++o) {
      const double bias = b != nullptr ? b[o] : 0.0;
      double sum = bias;
      double finite_magnitude = isfinite(bias) ? fabs(bias) : 0.0;
      bool unsure = false;
      for (int i = 0; i < x.cols; ++i) {
        const double term =
            x.at(r, i) * static_cast<double>(w[static_cast<size_t>(o) * x.cols + i]);
        unsure = unsure || x.unsure_at(r, i);
        if (isfinite(term)) finite_magnitude += fabs(term);
        sum += term;
      }
      y.value[static_cast<size_t>(r) * n_out + o] = sum;
      y.unsure[static_cast<size_t>(r) * n_out + o] = unsure || finite_magnitude > kFloatSafe;
      y.error[static_cast<size_t>(r) * n_out + o] = relative * finite_magnitude + 1e-44;
    }
  }
  return y;
}

int VisibleKeys(const AttentionShape& s, int row) {
  int limit = s.n_valid_keys;
  if (s.causal) limit = std::min(limit, std::max(0, row + s.n_kv - s.n_q + 1));
  return limit;
}

std::vector<RowFacts> ClassifyRows(const AttentionShape& s, const Operand& q, const Operand& k,
                                   const Operand& v) {
  std::vector<RowFacts> facts(s.n_q);
  const double boost = std::max(1.0, s.scale);
  for (int i = 0; i < s.n_q; ++i) {
    RowFacts& f = facts[i];
    f.visible = VisibleKeys(s, i);
    if (f.visible == 0) {
      f.kind = RowKind::kZero;
      continue;
    }
    bool unsure = false;
    bool non_finite = false;
    double max_abs = 0.0;
    for (int j = 0; j < f.visible; ++j) {
      double dot = 0.0;
      double finite_magnitude = 0.0;
      double largest_operand = 0.0;
      for (int t = 0; t < q.cols; ++t) {
        unsure = unsure || q.unsure_at(i, t) || k.unsure_at(j, t);
        const double term = q.at(i, t) * k.at(j, t);
        // Float's q and k may be off by their projections' rounding bounds:
        // a double sum that cancels to 0 can be 1e22 in float (FMA keeps the
        // exact product), and its square overflow.
        const double q_bound = fabs(q.at(i, t)) + q.error_at(i, t);
        const double k_bound = fabs(k.at(j, t)) + k.error_at(j, t);
        const double term_bound = q_bound * k_bound;
        if (isfinite(term)) finite_magnitude += isfinite(term_bound) ? term_bound : HUGE_VAL;
        if (isfinite(q.at(i, t))) largest_operand = std::max(largest_operand, q_bound);
        if (isfinite(k.at(j, t))) largest_operand = std::max(largest_operand, k_bound);
        dot += term;
      }
      // The library may scale q, k or the dot product: any of them may overflow.
      if (boost * finite_magnitude > kFloatSafe || boost * largest_operand > kFloatSafe) {
        unsure = true;
      }
      const double score = s.scale * dot;
      if (!isfinite(score)) {
        non_finite = true;
      } else {
        max_abs = std::max(max_abs, fabs(score));
      }
    }
    if (unsure) {
      f.kind = RowKind::kUnchecked;
      continue;
    }
    if (non_finite) {
      f.kind = RowKind::kNaN;
      continue;
    }
    f.kind = RowKind::kFinite;
    f.max_abs_score = max_abs;
    double largest_value = 0.0;
    bool values_finite = true;
    for (int j = 0; j < f.visible; ++j) {
      for (int c = 0; c < v.cols; ++c) {
        if (!isfinite(v.at(j, c)) || v.unsure_at(j, c)) values_finite = false;
        largest_value = std::max(largest_value, fabs(v.at(j, c)));
      }
    }
    f.values_bounded = values_finite && largest_value * f.visible < kFloatSafe;
  }
  return facts;
}

bool AllFinite(const Operand& m) {
  for (size_t i = 0; i < m.value.size(); ++i) {
    if (!isfinite(m.value[i]) || m.unsure[i]) return false;
  }
  return true;
}

bool AllFinite(const float* data, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (!isfinite(data[i])) return false;
  }
  return true;
}

double MaxAbs(const Operand& m) {
  double largest = 0.0;
  for (double x : m.value) largest = std::max(largest, fabs(x));
  return largest;
}

}  // namespace edgeattn_fuzz
