// What the float contract says about each output row, decided in double.
//
// The library computes in float; the harness recomputes every stage in
// double (X + P exactly as float does, projections, scaled scores) and
// tracks, per element, whether float could disagree about finiteness:
// a sum whose finite terms reach kFloatSafe in magnitude might overflow in
// float (or not, with FMA) and is marked unsure. Rows are then:
//   kZero      no visible key: output 0, weights all 0;
//   kNaN       a visible scaled score is NaN or +-inf: output and weights
//              rows all NaN;
//   kFinite    every visible score finite: weights a distribution, output
//              finite and inside the values' hull when the values are
//              finite and bounded (values_bounded);
//   kUnchecked some visible score is unsure: only "no sanitizer report".
#ifndef EDGEATTN_TESTS_FUZZ_ATTENTION_FACTS_H_
#define EDGEATTN_TESTS_FUZZ_ATTENTION_FACTS_H_

#include <stddef.h>
#include <stdint.h>

#include <vector>

namespace edgeattn_fuzz {

// Float sums below this cannot overflow, whatever the order or FMA use.
inline constexpr double kFloatSafe = 1e37;

// A [rows, cols] matrix in double with a per-element "float may disagree" flag.
struct Operand {
  int rows = 0;
  int cols = 0;
  std::vector<double> value;
  std::vector<uint8_t> unsure;
  // A bound on how far float's value of the element may be from `value`
  // (0 for inputs; for a projection, rounding of its n_in-term sum).
  std::vector<double> error;

  double at(int r, int c) const { return value[static_cast<size_t>(r) * cols + c]; }
  bool unsure_at(int r, int c) const { return unsure[static_cast<size_t>(r) * cols + c] != 0; }
  double error_at(int r, int c) const { return error[static_cast<size_t>(r) * cols + c]; }
};

// Exact copy of float data with leading dimension ld.
Operand FromFloats(const float* data, int rows, int cols, size_t ld);
// Columns [first, first + count) of m.
Operand Columns(const Operand& m, int first, int count);
// x W^T + b, W [n_out, x.cols] row-major, b may be NULL.
Operand Project(const Operand& x, const float* w, const float* b, int n_out);

enum class RowKind { kZero, kNaN, kFinite, kUnchecked };

struct RowFacts {
  RowKind kind = RowKind::kUnchecked;
  int visible = 0;
  bool values_bounded = false;  // visible value rows finite, sure, and accumulable
  double max_abs_score = 0.0;   // kFinite rows: largest |scaled score|
};

struct AttentionShape {
  int n_q;
  int n_kv;
  bool causal;
  int n_valid_keys;
  double scale;  // the scale the plan uses (already resolved from 0)
};

// Keys row i sees: min(n_valid, i + n_kv - n_q + 1) when causal, >= 0.
int VisibleKeys(const AttentionShape& shape, int row);

std::vector<RowFacts> ClassifyRows(const AttentionShape& shape, const Operand& q, const Operand& k,
                                   const Operand& v);

// True when every element is finite and sure.
bool AllFinite(const Operand& m);
bool AllFinite(const float* data, size_t count);
double MaxAbs(const Operand& m);

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_ATTENTION_FACTS_H_
