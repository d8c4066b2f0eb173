#include "decoder_check.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>

#include "failure.h"
#include "reference/random_tensor.h"
#include "reference/reference_mha_decode.h"
#include "reference_bound.h"
#include "test_support.h"

namespace edgeattn_fuzz {
namespace {

using edgeattn_test::ForEachInt4Block;
using edgeattn_test::Hadamard;
using edgeattn_test::StoredAs;

constexpr double kUnit = 0x1p-24;            // float's unit roundoff
constexpr double kRoundingStep = 0x1p-23;    // two float ulps, as reference_bound.cc
constexpr double kUnderflowStep = 0x1p-136;  // float's absolute floor, as reference_bound.cc
constexpr double kNoOverflow = FLT_MAX / 4.0;
constexpr double kSureOverflow = 4.0 * static_cast<double>(FLT_MAX);
constexpr double kTinyOutputs = 1e-30;
constexpr double kMaxScoreStep = 0.5;  // a storage step moving a score further: not bounded
constexpr uint64_t kRoundingSeeds[2] = {0x5eed, 0xbeef};

// Relative bound past the storage slack. f16 as tests/ops/mha_decode_test.cc's
// BoundFor; int8's and int4's rounding of queries and weights is in the
// slack instead.
double StorageBound(StoredAs storage) {
  return storage == StoredAs::kF16 ? 2e-4 : edgeattn_test::kFloatErrorBound;
}

// binary16 rounding, as StoredValues (reference_decode.cc) does it.
double HalfRound(double x) {
  if (isnan(x)) return x;
  const double magnitude = fabs(x);
  if (magnitude >= 65520.0) return copysign(INFINITY, x);
  double spacing = ldexp(1.0, -24);
  if (magnitude >= ldexp(1.0, -14)) {
    int exponent = 0;
    frexp(magnitude, &exponent);
    spacing = ldexp(1.0, exponent - 1 - 10);
  }
  return nearbyint(x / spacing) * spacing;
}

// One realisation of float's rounding (reference_bound.cc's).
class Rounding {
 public:
  explicit Rounding(uint64_t seed) : stream_(seed) {}
  double operator()(double value, double magnitude) {
    const double step = kRoundingStep * magnitude + kUnderflowStep;
    return value + ((stream_.NextBits() & 1) ? step : -step);
  }

 private:
  edgeattn_test::RandomStream stream_;
};

// Values of a projection in double, each with the magnitude float rounds it
// relative to and a bound on the library's float error.
struct Values {
  int rows = 0, cols = 0;
  std::vector<double> val, mag, err;
  size_t at(int r, int c) const { return static_cast<size_t>(r) * cols + c; }
};

// Rows of x [rows, e] (plus table rows) through rows [first, first + cols)
// of w [*, e] and the bias.
Values Project(const std::vector<double>& x, const std::vector<double>& x_mag, int rows, int e,
               const float* w, const float* b, int first, int cols) {
  Values v;
  v.rows = rows;
  v.cols = cols;
  v.val.resize(static_cast<size_t>(rows) * cols);
  v.mag.resize(v.val.size());
  v.err.resize(v.val.size());
  for (int r = 0; r < rows; ++r) {
    for (int o = 0; o < cols; ++o) {
      const float* wr = w + static_cast<size_t>(first + o) * e;
      double sum = b != nullptr ? b[first + o] : 0.0;
      double magnitude = b != nullptr ? fabs(static_cast<double>(b[first + o])) : 0.0;
      for (int i = 0; i < e; ++i) {
        sum += x[static_cast<size_t>(r) * e + i] * wr[i];
        magnitude += x_mag[static_cast<size_t>(r) * e + i] * fabs(static_cast<double>(wr[i]));
      }
      v.val[v.at(r, o)] = sum;
      v.mag[v.at(r, o)] = magnitude;
      // Any summation order of e + 1 terms, and x + P rounded to float first.
      v.err[v.at(r, o)] = 2.0 * (e + 2) * kUnit * magnitude;
    }
  }
  return v;
}

// RoPE at positions 0.. (ReferenceRope's angles), with magnitudes and error
// bounds (the table's sin and cos are rounded to float).
void Rope(Values* v, int heads, int d, double base, bool interleaved) {
  for (int t = 0; t < v->rows; ++t) {
    for (int h = 0; h < heads; ++h) {
      for (int i = 0; i < d / 2; ++i) {
        const double angle = t * pow(base, -2.0 * i / d);
        const double c = cos(angle), s = sin(angle);
        const size_t a = v->at(t, h * d + (interleaved ? 2 * i : i));
        const size_t b = v->at(t, h * d + (interleaved ? 2 * i + 1 : i + d / 2));
        const double a0 = v->val[a], b0 = v->val[b];
        const double ma = v->mag[a], mb = v->mag[b];
        const double ea = v->err[a], eb = v->err[b];
        v->val[a] = a0 * c - b0 * s;
        v->val[b] = a0 * s + b0 * c;
        v->mag[a] = fabs(c) * ma + fabs(s) * mb;
        v->mag[b] = fabs(s) * ma + fabs(c) * mb;
        v->err[a] = fabs(c) * ea + fabs(s) * eb + 4.0 * kUnit * v->mag[a];
        v->err[b] = fabs(s) * ea + fabs(c) * eb + 4.0 * kUnit * v->mag[b];
      }
    }
  }
}

// The same RoPE on values alone (the rounding realisations).
void RopeValues(std::vector<double>* val, const std::vector<double>& mag, int rows, int cols,
                int heads, int d, double base, bool interleaved, Rounding& round) {
  for (int t = 0; t < rows; ++t) {
    for (int h = 0; h < heads; ++h) {
      for (int i = 0; i < d / 2; ++i) {
        const double angle = t * pow(base, -2.0 * i / d);
        const double c = cos(angle), s = sin(angle);
        const size_t a = static_cast<size_t>(t) * cols + h * d + (interleaved ? 2 * i : i);
        const size_t b =
            static_cast<size_t>(t) * cols + h * d + (interleaved ? 2 * i + 1 : i + d / 2);
        const double a0 = (*val)[a], b0 = (*val)[b];
        (*val)[a] = round(a0 * c - b0 * s, fabs(c) * mag[a] + fabs(s) * mag[b]);
        (*val)[b] = round(a0 * s + b0 * c, fabs(s) * mag[a] + fabs(c) * mag[b]);
      }
    }
  }
}

enum class State : uint8_t { kFinite, kNonFinite, kUncertain };

// A double as float, infinite past float's range (no out-of-range conversion).
float ToFloat(double x) {
  if (isnan(x)) return NAN;
  if (fabs(x) >= FLT_MAX) return x > 0 ? INFINITY : -INFINITY;
  return static_cast<float>(x);
}

// What the cache holds for one projected K or V tensor [tokens, kv heads * d]:
// the reference's stored values, how far the library's may lie from them
// (a storage step away where the float error reaches a rounding boundary),
// and whether each is surely finite, surely not, or either.
struct Stored {
  std::vector<double> value, slack;
  std::vector<State> state;
  // The reference's values (StoredValues): `value` itself except for int4,
  // whose `value` and `slack` are the rotated domain's. Scores and outputs
  // take these, in the reference's order of operations, so that the
  // pipeline equals the reference where scores cancel.
  std::vector<double> given;
};

bool IsQuantized(StoredAs storage) {
  return storage == StoredAs::kInt8 || storage == StoredAs::kInt4;
}
// Channels per scale group, and the largest level.
int GroupWidth(StoredAs storage, int d) {
  return storage == StoredAs::kInt4 ? edgeattn_test::kInt4Group : d;
}
double LevelLimit(StoredAs storage) { return storage == StoredAs::kInt4 ? 7.0 : 127.0; }

// int4 rotates keys, values and queries per scale group and block
// (kv_cache.h, "INT4"): x <- H_b x per block of each head of d in rows
// (unnormalised, in double).
void HadamardHeads(std::vector<double>* rows, int d) {
  for (size_t base = 0; base < rows->size(); base += static_cast<size_t>(d)) {
    ForEachInt4Block(d, [&](int c0, int b) { Hadamard(rows->data() + base + c0, b); });
  }
}

// Projected keys or values as int4 rounds them: H_b x / b per block, each
// with the float error of the library's own rotation (log2(b) stages of
// adds, each within a unit of the block's sum of magnitudes) added to the
// inputs' errors, which add up.
Values RotatedForInt4(const Values& v, int d) {
  Values r = v;
  for (size_t base = 0; base < v.val.size(); base += static_cast<size_t>(d)) {
    ForEachInt4Block(d, [&](int c0, int b) {
      const size_t at = base + static_cast<size_t>(c0);
      Hadamard(r.val.data() + at, b);
      double err = 0.0, mag = 0.0, sum_abs = 0.0;
      int stages = 0;
      for (int w = b; w > 1; w /= 2) ++stages;
      for (int c = 0; c < b; ++c) {
        err += v.err[at + c];
        mag += v.mag[at + c];
        sum_abs += fabs(v.val[at + c]) + v.err[at + c];
      }
      for (int c = 0; c < b; ++c) {
        r.val[at + c] /= b;
        r.mag[at + c] = mag / b;
        r.err[at + c] = (err + 2.0 * stages * kUnit * sum_abs) / b;
      }
    });
  }
  return r;
}

// int4: the values, slack and state are those of the rotated values, which
// int4 rounds (RotatedForInt4); a group's state is still decided by the
// given values (a value past float's range is inf in the library's float).
Stored Store(const Values& given, int d, StoredAs storage) {
  const bool int4 = storage == StoredAs::kInt4;
  const Values v = int4 ? RotatedForInt4(given, d) : given;
  Stored s;
  const size_t count = v.val.size();
  s.value.assign(count, 0.0);
  s.slack.assign(count, 0.0);
  s.state.assign(count, State::kFinite);
  std::vector<float> head(static_cast<size_t>(d));
  for (size_t base = 0; base < count; base += static_cast<size_t>(d)) {
    for (int c = 0; c < d; ++c) head[static_cast<size_t>(c)] = ToFloat(given.val[base + c]);
    std::vector<double> stored = edgeattn_test::StoredValues(head, d, storage);
    s.given.insert(s.given.end(), stored.begin(), stored.end());
    if (int4) {  // back to the rotated levels times their scale
      ForEachInt4Block(d, [&](int c0, int b) {
        Hadamard(stored.data() + c0, b);
        for (int c = 0; c < b; ++c) stored[static_cast<size_t>(c0 + c)] /= b;
      });
    }
    for (int c = 0; c < d; ++c) s.value[base + c] = stored[static_cast<size_t>(c)];
    if (IsQuantized(storage)) {
      const int width = GroupWidth(storage, d);
      const double limit = LevelLimit(storage);
      for (int c0 = 0; c0 < d; c0 += width) {
        const int c_end = std::min(d, c0 + width);
        // A non-finite value makes the whole group's scale NaN.
        bool group_nonfinite = false, group_uncertain = false;
        for (int c = c0; c < c_end; ++c) {
          group_nonfinite |= !isfinite(given.val[base + c]);
          group_uncertain |= !(given.mag[base + c] < kNoOverflow);
        }
        const State group_state = group_nonfinite   ? State::kNonFinite
                                  : group_uncertain ? State::kUncertain
                                                    : State::kFinite;
        for (int c = c0; c < c_end; ++c) s.state[base + c] = group_state;
        if (group_state != State::kFinite) continue;
        double largest_lo = 0.0, largest_hi = 0.0;
        for (int c = c0; c < c_end; ++c) {
          largest_lo = std::max(largest_lo, fabs(v.val[base + c]) - v.err[base + c]);
          largest_hi = std::max(largest_hi, fabs(v.val[base + c]) + v.err[base + c]);
        }
        if (largest_hi >= kNoOverflow) {
          for (int c = c0; c < c_end; ++c) s.state[base + c] = State::kUncertain;
          continue;
        }
        const double scale_lo = largest_lo / limit * (1.0 - 4.0 * kUnit);
        const double scale_hi = largest_hi / limit * (1.0 + 4.0 * kUnit);
        for (int c = c0; c < c_end; ++c) {
          const double x_lo = v.val[base + c] - v.err[base + c];
          const double x_hi = v.val[base + c] + v.err[base + c];
          // The levels x / scale can round to over both intervals (the
          // float quotient's own rounding widened in), times either scale.
          double level_lo = -limit, level_hi = limit;
          if (scale_lo > 0.0) {
            const double q_lo = x_lo / (x_lo >= 0.0 ? scale_hi : scale_lo);
            const double q_hi = x_hi / (x_hi >= 0.0 ? scale_lo : scale_hi);
            level_lo = std::max(-limit, nearbyint(q_lo - 4.0 * kUnit * fabs(q_lo)));
            level_hi = std::min(limit, nearbyint(q_hi + 4.0 * kUnit * fabs(q_hi)));
          }
          double slack = 0.0;
          for (double level : {level_lo, level_hi}) {
            for (double scale : {scale_lo, scale_hi}) {
              slack = std::max(slack, fabs(level * scale - s.value[base + c]));
            }
          }
          if (scale_lo <= 0.0) slack = std::max(slack, fabs(s.value[base + c]));
          s.slack[base + c] = slack;
        }
      }
      continue;
    }
    for (int c = 0; c < d; ++c) {
      const size_t at = base + c;
      const double x = v.val[at];
      if (!isfinite(x)) {
        s.state[at] = State::kNonFinite;
      } else if (!(v.mag[at] < kNoOverflow)) {
        s.state[at] = State::kUncertain;
      } else if (storage == StoredAs::kF16) {
        const double lo = HalfRound(x - v.err[at]), hi = HalfRound(x + v.err[at]);
        if (isinf(lo) && isinf(hi) && (lo > 0) == (hi > 0)) {
          s.state[at] = State::kNonFinite;
        } else if (isinf(lo) || isinf(hi)) {
          s.state[at] = State::kUncertain;
        } else {
          s.slack[at] = std::max(fabs(hi - s.value[at]), fabs(lo - s.value[at]));
        }
      }
    }
  }
  return s;
}

// The int8 and int4 caches round each 64-position block's weights
// p_j * v_scale_j to 8 bits against the block's largest, per scale group
// (kv_cache.h): out[c] of one head moves by at most largest / 510 times each
// level |v_j[c]| / v_scale_j. Weights p over keys lo..position (normalised),
// at most `grow` times the library's.
std::vector<double> WeightRounding(const Stored& vs, StoredAs storage, const std::vector<double>& p,
                                   double grow, int lo, int position, int g, int d, int kv) {
  std::vector<double> out(static_cast<size_t>(d), 0.0);
  auto at = [&](int j, int c) { return static_cast<size_t>(j) * kv + g * d + c; };
  const int width = GroupWidth(storage, d);
  const double limit = LevelLimit(storage);
  for (int c0 = 0; c0 < d; c0 += width) {
    const int c_end = std::min(d, c0 + width);
    // v_scale_j's range: the group's largest |v_j[c]| / limit, within the
    // slack.
    auto scale_of = [&](int j, double sign) {
      double largest = 0.0;
      for (int c = c0; c < c_end; ++c) {
        largest = std::max(largest, fabs(vs.value[at(j, c)]) + sign * vs.slack[at(j, c)]);
      }
      return largest / limit;
    };
    for (int block_start = lo - lo % 64; block_start <= position; block_start += 64) {
      const int begin = std::max(block_start, lo), end = std::min(block_start + 64, position + 1);
      double largest = 0.0;
      for (int j = begin; j < end; ++j) {
        largest = std::max(largest, grow * p[static_cast<size_t>(j - lo)] * scale_of(j, 1.0));
      }
      for (int j = begin; j < end; ++j) {
        const double scale_lo = scale_of(j, -1.0);
        for (int c = c0; c < c_end; ++c) {
          const double level =
              scale_lo > 0.0
                  ? std::min(limit, (fabs(vs.value[at(j, c)]) + vs.slack[at(j, c)]) / scale_lo)
                  : limit;
          out[static_cast<size_t>(c)] += largest / 510.0 * level;
        }
      }
    }
  }
  return out;
}

}  // namespace

LayerCheckStats& DecoderStats() {
  static LayerCheckStats stats;
  return stats;
}
LayerCheckStats& CrossStats() {
  static LayerCheckStats stats;
  return stats;
}

namespace {

void PrintStats(const char* family, const char* calls, const LayerCheckStats& s) {
  if (s.steps_checked + s.ill_conditioned + s.rows_nan + s.rows_nonfinite + s.rows_unchecked == 0) {
    return;
  }
  fprintf(stderr,
          "edgeattn fuzz: %s: %zu %s checked against the reference (%zu with storage slack, %zu "
          "compared across targets), %zu ill-conditioned; rows NaN %zu, non-finite %zu, "
          "unchecked %zu\n",
          family, s.steps_checked, calls, s.slack_used, s.compared, s.ill_conditioned, s.rows_nan,
          s.rows_nonfinite, s.rows_unchecked);
}

void PrintBoth() {
  PrintStats("MHA decoder", "steps", DecoderStats());
  PrintStats("MHA cross", "runs", CrossStats());
}

}  // namespace

void PrintLayerStatsAtExit() {
  static const bool registered = atexit(PrintBoth) == 0;
  (void)registered;
}

LayerCheck LayerCheck::Decoder(const LayerSpec& layer, const std::vector<float>& x, int tokens) {
  LayerCheck check;
  check.stats_ = &DecoderStats();
  check.Build(layer, x, tokens, x, tokens, true);
  return check;
}

LayerCheck LayerCheck::Cross(const LayerSpec& layer, const std::vector<float>& x, int n_queries,
                             const std::vector<float>& memory, int n_memory) {
  LayerCheck check;
  check.stats_ = &CrossStats();
  check.Build(layer, x, n_queries, memory, n_memory, false);
  return check;
}

void LayerCheck::Build(const LayerSpec& layer, const std::vector<float>& xq, int n_q,
                       const std::vector<float>& xk, int n_k, bool decoder) {
  const int e = layer.d_model, heads = layer.n_heads, kv_heads = layer.n_kv_heads;
  const int d = e / heads, kv = kv_heads * d, group = heads / kv_heads;
  e_ = e;
  d_ = d;
  bound_ = StorageBound(layer.storage);
  const double scale = 1.0 / sqrt(static_cast<double>(d));
  const size_t ee = static_cast<size_t>(e);

  // x + P in double with magnitudes (the library adds them in float).
  auto input = [&](const std::vector<float>& x, int rows, const float* table,
                   std::vector<double>* val, std::vector<double>* mag) {
    val->resize(static_cast<size_t>(rows) * ee);
    mag->resize(val->size());
    for (size_t i = 0; i < val->size(); ++i) {
      const double p = table != nullptr ? table[i] : 0.0;
      (*val)[i] = static_cast<double>(x[i]) + p;
      (*mag)[i] = fabs(static_cast<double>(x[i])) + fabs(p);
    }
  };
  std::vector<double> q_in, q_in_mag, k_in, k_in_mag;
  input(xq, n_q, decoder ? layer.position_table : nullptr, &q_in, &q_in_mag);
  if (decoder) {
    k_in = q_in;
    k_in_mag = q_in_mag;
  } else {
    input(xk, n_k, nullptr, &k_in, &k_in_mag);
  }
  Values q = Project(q_in, q_in_mag, n_q, e, layer.in_proj_weight, layer.in_proj_bias, 0, e);
  Values k = Project(k_in, k_in_mag, n_k, e, layer.in_proj_weight, layer.in_proj_bias, e, kv);
  Values v = Project(k_in, k_in_mag, n_k, e, layer.in_proj_weight, layer.in_proj_bias, e + kv, kv);
  const Values q_plain = q, k_plain = k;  // the rounding realisations rotate them again
  if (layer.rope_base != 0.0) {
    Rope(&q, heads, d, layer.rope_base, layer.rope_interleaved);
    Rope(&k, kv_heads, d, layer.rope_base, layer.rope_interleaved);
  }
  // The reference converts projections to float: only where they fit.
  bool in_range = true;
  for (const Values* values : {&q, &k, &v}) {
    for (double x : values->val) {
      if (isfinite(x) && fabs(x) >= FLT_MAX) in_range = false;
    }
  }
  const Stored ks = Store(k, d, layer.storage), vs = Store(v, d, layer.storage);
  std::vector<float> qf(q.val.size());
  for (size_t i = 0; i < qf.size(); ++i) qf[i] = in_range ? static_cast<float>(q.val[i]) : 0.0f;
  // The queries in the keys' rounding domain: int4 rounds rotated keys
  // (H_b k / b per block), against which H_b q gives the same dots; the
  // score steps of the keys' and queries' rounding are taken there.
  const bool int4 = layer.storage == StoredAs::kInt4;
  std::vector<double> q_dot(qf.begin(), qf.end());
  if (int4) HadamardHeads(&q_dot, d);

  bool out_finite = true;
  for (size_t i = 0; i < ee * ee; ++i)
    out_finite = out_finite && isfinite(layer.out_proj_weight[i]);
  for (int i = 0; layer.out_proj_bias != nullptr && i < e; ++i) {
    out_finite = out_finite && isfinite(layer.out_proj_bias[i]);
  }

  const size_t y_count = static_cast<size_t>(n_q) * ee;
  rows_.assign(static_cast<size_t>(n_q), kClean);
  stable_.assign(static_cast<size_t>(n_q), 1);
  row_max_score_.assign(static_cast<size_t>(n_q), 0.0);
  slack_.assign(y_count, 0.0);
  out_magnitude_.assign(y_count, 0.0);
  std::vector<double> mine(y_count, 0.0);
  std::vector<double> heads_out(ee), out_slack(ee);
  std::vector<double> p;
  for (int t = 0; t < n_q; ++t) {
    const int position = decoder ? t : n_k - 1;
    const int lo = decoder && layer.window > 0 ? std::max(0, position - layer.window + 1) : 0;
    bool nan_row = false, uncertain = false, nonfinite_value = false;
    for (int h = 0; h < heads; ++h) {
      const int g = h / group;
      const size_t q_base = q.at(t, h * d);
      State q_state = State::kFinite;
      for (int c = 0; c < d; ++c) {
        if (!isfinite(q.val[q_base + c])) {
          q_state = State::kNonFinite;
          break;
        }
        if (!(q.mag[q_base + c] < kNoOverflow)) q_state = State::kUncertain;
      }
      // int8 keys may meet the query as levels (up to 127) before their
      // scale (kv_cache_check.cc): q times 127 must stay inside float too.
      if (q_state == State::kFinite && IsQuantized(layer.storage)) {
        double q_abs_sum = 0.0;
        for (int c = 0; c < d; ++c) q_abs_sum += fabs(q.val[q_base + c]);
        if (!(127.0 * q_abs_sum < kNoOverflow)) q_state = State::kUncertain;
      }
      State k_state = State::kFinite, v_state = State::kFinite;
      for (int j = lo; j <= position; ++j) {
        for (int c = 0; c < d; ++c) {
          const size_t at = k.at(j, g * d + c);
          if (ks.state[at] == State::kNonFinite) k_state = State::kNonFinite;
          if (ks.state[at] == State::kUncertain && k_state != State::kNonFinite) {
            k_state = State::kUncertain;
          }
          if (vs.state[at] == State::kNonFinite) v_state = State::kNonFinite;
          if (vs.state[at] == State::kUncertain && v_state != State::kNonFinite) {
            v_state = State::kUncertain;
          }
          if (vs.state[at] == State::kFinite && !(fabs(vs.value[at]) < kNoOverflow)) {
            v_state = v_state == State::kNonFinite ? v_state : State::kUncertain;
          }
        }
      }
      if (q_state == State::kNonFinite || k_state == State::kNonFinite) {
        nan_row = true;
        continue;
      }
      if (q_state == State::kUncertain || k_state == State::kUncertain) {
        uncertain = true;
        continue;
      }
      // An int8 or int4 cache rounds each query head to int8 as int8 rounds keys
      // (kv_cache.h): each element moves by up to half its step, plus the
      // float error of the projection it rounds.
      std::vector<double> q_moved(static_cast<size_t>(d), 0.0);
      double q_code_step = 0.0;  // int8 / int4 caches: the step of the query's int8 codes
      if (IsQuantized(layer.storage) && !int4) {
        double q_largest = 0.0;
        for (int c = 0; c < d; ++c) {
          q_largest = std::max(q_largest, fabs(q.val[q_base + c]) + q.err[q_base + c]);
        }
        const double q_step = q_largest / 127.0 * (1.0 + 4.0 * kUnit);
        q_code_step = q_step;
        for (int c = 0; c < d; ++c) {
          q_moved[static_cast<size_t>(c)] = q_step * (0.5 + 1e-4) + q.err[q_base + c];
        }
      } else if (int4) {
        // In q_dot's units (H_b q): the library rounds H_b q / 64 of its own
        // float query with one step per row; H_b q moves by each block's sum
        // of the query's errors (and float's conversion), plus the rotation's
        // rounding.
        std::vector<double> err(static_cast<size_t>(d), 0.0);
        double q_largest = 0.0;
        ForEachInt4Block(d, [&](int c0, int b) {
          double sum_err = 0.0, sum_abs = 0.0;
          int stages = 0;
          for (int w = b; w > 1; w /= 2) ++stages;
          for (int c = c0; c < c0 + b; ++c) {
            sum_err += q.err[q_base + c] + kUnit * fabs(q.val[q_base + c]);
            sum_abs += fabs(q.val[q_base + c]) + q.err[q_base + c];
          }
          for (int c = c0; c < c0 + b; ++c) {
            err[static_cast<size_t>(c)] = sum_err + 2.0 * stages * kUnit * sum_abs;
            q_largest = std::max(q_largest, fabs(q_dot[q_base + c]) + err[static_cast<size_t>(c)]);
          }
        });
        const double q_step = q_largest / 127.0 * (1.0 + 4.0 * kUnit);
        q_code_step = q_step;
        for (int c = 0; c < d; ++c) {
          q_moved[static_cast<size_t>(c)] = q_step * (0.5 + 1e-4) + err[static_cast<size_t>(c)];
        }
      }
      // Scores of finite queries and keys.
      const double slope = layer.alibi_slopes != nullptr ? layer.alibi_slopes[h] : 0.0;
      p.assign(static_cast<size_t>(position - lo + 1), 0.0);
      double largest = -INFINITY, step = 0.0, row_score = 0.0;
      bool sure_overflow = false, overflow_possible = false;
      for (int j = lo; j <= position; ++j) {
        double dot = 0.0, magnitude = 0.0, moved = 0.0;
        for (int c = 0; c < d; ++c) {
          const size_t at = k.at(j, g * d + c);
          const double qc = qf[q_base + c];
          dot += qc * ks.given[at];
          magnitude += fabs(qc * ks.given[at]);
          // The rounding steps in `value`'s domain (int4: rotated, H_b q).
          const double dq = q_moved[static_cast<size_t>(c)];
          moved += (fabs(q_dot[q_base + c]) + dq) * ks.slack[at] + dq * fabs(ks.value[at]);
        }
        const double s = scale * dot + slope * (j - position);
        if (fabs(scale * dot) > kSureOverflow) sure_overflow = true;
        if (!(magnitude < kNoOverflow)) overflow_possible = true;
        // int8 / int4 caches multiply the scales before the integer sum
        // (kv_cache.h): k_scale * q_scale * scale (int4: per group, with the
        // rotation's factor) may overflow where the float dot product does
        // not, when q's and k's largest entries sit in different channels.
        if (IsQuantized(layer.storage)) {
          double k_largest = 0.0;
          for (int c = 0; c < d; ++c) {
            k_largest = std::max(k_largest, fabs(ks.value[k.at(j, g * d + c)]));
          }
          const double factor = k_largest / LevelLimit(layer.storage) * q_code_step *
                                fabs(static_cast<double>(scale)) * edgeattn_test::kInt4Group;
          if (!(factor < kNoOverflow)) overflow_possible = true;
        }
        p[static_cast<size_t>(j - lo)] = s;
        largest = std::max(largest, s);
        step = std::max(step, scale * moved);
        row_score = std::max(row_score, fabs(s));
      }
      if (sure_overflow) {
        nan_row = true;
        continue;
      }
      if (overflow_possible || v_state == State::kUncertain) {
        uncertain = true;
        continue;
      }
      if (v_state == State::kNonFinite) {
        nonfinite_value = true;
        continue;
      }
      double sum = 0.0;
      for (double& x : p) {
        x = exp(x - largest);
        sum += x;
      }
      for (double& x : p) x /= sum;
      const double grow = exp(2.0 * step);
      if (step > kMaxScoreStep) stable_[static_cast<size_t>(t)] = 0;
      row_max_score_[static_cast<size_t>(t)] =
          std::max(row_max_score_[static_cast<size_t>(t)], row_score);
      const std::vector<double> weight_rounding =
          IsQuantized(layer.storage)
              ? WeightRounding(vs, layer.storage, p, grow, lo, position, g, d, kv)
              : std::vector<double>(static_cast<size_t>(d), 0.0);
      for (int c = 0; c < d; ++c) {
        double out = 0.0, out_given = 0.0;
        for (int j = lo; j <= position; ++j) {
          out += p[static_cast<size_t>(j - lo)] * vs.value[v.at(j, g * d + c)];
          out_given += p[static_cast<size_t>(j - lo)] * vs.given[v.at(j, g * d + c)];
        }
        double spread = 0.0, value_slack = 0.0;
        for (int j = lo; j <= position; ++j) {
          const size_t at = v.at(j, g * d + c);
          spread += p[static_cast<size_t>(j - lo)] * fabs(vs.value[at] - out);
          value_slack += p[static_cast<size_t>(j - lo)] * vs.slack[at];
        }
        heads_out[static_cast<size_t>(h * d + c)] = out_given;
        out_slack[static_cast<size_t>(h * d + c)] =
            (grow - 1.0) * spread + grow * value_slack + weight_rounding[static_cast<size_t>(c)];
      }
      // int4's values were rotated: an output is H_b of its block's rotated
      // ones (a +-sum), whose slacks add.
      if (int4) {
        ForEachInt4Block(d, [&](int c0, int b) {
          const size_t at = static_cast<size_t>(h * d + c0);
          double slack = 0.0;
          for (int c = 0; c < b; ++c) slack += out_slack[at + c];
          for (int c = 0; c < b; ++c) out_slack[at + c] = slack;
        });
      }
    }
    Row& kind = rows_[static_cast<size_t>(t)];
    if (nan_row) {
      kind = kNaN;
    } else if (uncertain) {
      kind = kUnchecked;
    } else if (nonfinite_value) {
      kind = kNonFinite;
    } else if (!out_finite || !in_range) {
      kind = kUnchecked;
    }
    if (kind != kClean) continue;
    for (int o = 0; o < e; ++o) {
      const float* w = layer.out_proj_weight + static_cast<size_t>(o) * ee;
      double y = layer.out_proj_bias != nullptr ? layer.out_proj_bias[o] : 0.0;
      double magnitude = layer.out_proj_bias != nullptr ? fabs(layer.out_proj_bias[o]) : 0.0;
      double slack = 0.0;
      for (int c = 0; c < e; ++c) {
        y += heads_out[static_cast<size_t>(c)] * w[c];
        magnitude += fabs(heads_out[static_cast<size_t>(c)] * w[c]);
        slack += fabs(static_cast<double>(w[c])) * out_slack[static_cast<size_t>(c)];
      }
      const size_t at = static_cast<size_t>(t) * ee + o;
      mine[at] = y;
      out_magnitude_[at] = magnitude;
      slack_[at] = 2.0 * slack;
      if (!(magnitude < kNoOverflow)) kind = kUnchecked;
    }
  }

  bool any_clean = false;
  for (Row r : rows_) any_clean = any_clean || r == kClean;
  if (!any_clean) return;

  // The reference (tests/reference/reference_mha_decode.h).
  const edgeattn_test::DecoderLayer reference_layer{e,
                                                    heads,
                                                    kv_heads,
                                                    decoder ? layer.window : 0,
                                                    layer.storage,
                                                    layer.in_proj_weight,
                                                    layer.in_proj_bias,
                                                    layer.out_proj_weight,
                                                    layer.out_proj_bias,
                                                    decoder ? layer.position_table : nullptr,
                                                    decoder ? layer.rope_base : 0.0,
                                                    layer.rope_interleaved,
                                                    decoder ? layer.alibi_slopes : nullptr};
  ref_ = decoder ? edgeattn_test::ReferenceDecoderStream(reference_layer, xq, n_q)
                 : edgeattn_test::ReferenceCross(reference_layer, xq, n_q, xk, n_k);
  // The harness's own pipeline (classes, slack, rounding) must be the
  // reference's where it checks.
  for (int t = 0; t < n_q; ++t) {
    if (rows_[static_cast<size_t>(t)] != kClean) continue;
    for (int o = 0; o < e; ++o) {
      const size_t at = static_cast<size_t>(t) * ee + o;
      if (!(fabs(mine[at] - ref_[at]) <= 1e-9 * out_magnitude_[at] + 1e-300)) {
        Fail("harness: the decoder check's pipeline gives y[%d][%d] = %.17g, the reference %.17g",
             t, o, mine[at], ref_[at]);
      }
    }
  }

  // Float's rounding modelled, twice.
  for (int r = 0; r < 2; ++r) {
    Rounding round(kRoundingSeeds[r]);
    auto perturbed = [&](const Values& values) {
      std::vector<double> out(values.val.size());
      for (size_t i = 0; i < out.size(); ++i) out[i] = round(values.val[i], values.mag[i]);
      return out;
    };
    std::vector<double> qr = perturbed(q_plain), kr = perturbed(k_plain), vr = perturbed(v);
    if (layer.rope_base != 0.0) {
      RopeValues(&qr, q_plain.mag, n_q, e, heads, d, layer.rope_base, layer.rope_interleaved,
                 round);
      RopeValues(&kr, k_plain.mag, n_k, kv, kv_heads, d, layer.rope_base, layer.rope_interleaved,
                 round);
    }
    if (int4) HadamardHeads(&qr, d);  // as q_dot
    // Stored: f32 holds the float values; f16 the reference's values (a
    // boundary crossed is the slack's); int8 and int4 their levels times a
    // scale of their own.
    for (size_t i = 0; i < kr.size(); ++i) {
      if (layer.storage == StoredAs::kF16) {
        kr[i] = ks.value[i];
        vr[i] = vs.value[i];
      } else if (IsQuantized(layer.storage)) {
        kr[i] = round(ks.value[i], fabs(ks.value[i]));
        vr[i] = round(vs.value[i], fabs(vs.value[i]));
      }
    }
    std::vector<double>& rounded = rounded_[r];
    rounded = ref_;
    for (int t = 0; t < n_q; ++t) {
      if (rows_[static_cast<size_t>(t)] != kClean) continue;
      const int position = decoder ? t : n_k - 1;
      const int lo = decoder && layer.window > 0 ? std::max(0, position - layer.window + 1) : 0;
      for (int h = 0; h < heads; ++h) {
        const int g = h / group;
        const double slope = layer.alibi_slopes != nullptr ? layer.alibi_slopes[h] : 0.0;
        p.assign(static_cast<size_t>(position - lo + 1), 0.0);
        double largest = -INFINITY;
        for (int j = lo; j <= position; ++j) {
          double dot = 0.0, magnitude = 0.0;
          for (int c = 0; c < d; ++c) {
            const double qc = qr[static_cast<size_t>(t) * ee + h * d + c];
            const double kc = kr[static_cast<size_t>(j) * kv + g * d + c];
            dot += qc * kc;
            magnitude += fabs(qc * kc);
          }
          const double bias = slope * (j - position);
          const double s = round(scale * dot + bias, scale * magnitude + fabs(bias));
          p[static_cast<size_t>(j - lo)] = s;
          largest = std::max(largest, s);
        }
        double sum = 0.0;
        for (double& x : p) {
          x = exp(x - largest);
          x = round(x, x);
          sum += x;
        }
        sum = round(sum, sum);
        for (int c = 0; c < d; ++c) {
          double out = 0.0, magnitude = 0.0;
          for (int j = lo; j <= position; ++j) {
            const double w = p[static_cast<size_t>(j - lo)] / sum;
            const double vc = vr[static_cast<size_t>(j) * kv + g * d + c];
            out += w * vc;
            magnitude += w * fabs(vc);
          }
          heads_out[static_cast<size_t>(h * d + c)] = round(out, magnitude);
        }
        if (int4) {  // rotated back, rounded as float sums
          ForEachInt4Block(d, [&](int c0, int b) {
            double* x = heads_out.data() + static_cast<size_t>(h * d + c0);
            double magnitude = 0.0;
            for (int c = 0; c < b; ++c) magnitude += fabs(x[c]);
            Hadamard(x, b);
            for (int c = 0; c < b; ++c) x[c] = round(x[c], magnitude);
          });
        }
      }
      for (int o = 0; o < e; ++o) {
        const float* w = layer.out_proj_weight + static_cast<size_t>(o) * ee;
        double y = layer.out_proj_bias != nullptr ? layer.out_proj_bias[o] : 0.0;
        double magnitude = layer.out_proj_bias != nullptr ? fabs(layer.out_proj_bias[o]) : 0.0;
        for (int c = 0; c < e; ++c) {
          y += heads_out[static_cast<size_t>(c)] * w[c];
          magnitude += fabs(heads_out[static_cast<size_t>(c)] * w[c]);
        }
        rounded[static_cast<size_t>(t) * ee + o] = round(y, magnitude);
      }
    }
  }
}

void LayerCheck::Check(const char* what, const float* y, int first, int n,
                       const float* other) const {
  const size_t ee = static_cast<size_t>(e_);
  double scale = 0.0, max_score = 0.0, magnitude = 0.0, condition = 0.0;
  bool any = false;
  for (int i = 0; i < n; ++i) {
    const size_t row = static_cast<size_t>(first + i);
    const float* yr = y + static_cast<size_t>(i) * ee;
    switch (rows_[row]) {
      case kNaN:
        ++stats_->rows_nan;
        for (int o = 0; o < e_; ++o) {
          if (!isnan(yr[o])) {
            Fail("%s: token %d sees a NaN or infinite score in some head, y[%d] = %.9g, want NaN",
                 what, first + i, o, yr[o]);
          }
        }
        break;
      case kNonFinite:
        ++stats_->rows_nonfinite;
        for (int o = 0; o < e_; ++o) {
          if (isfinite(yr[o])) {
            Fail("%s: token %d sees a non-finite stored value, y[%d] = %.9g, want NaN or inf", what,
                 first + i, o, yr[o]);
          }
        }
        break;
      case kUnchecked:
        ++stats_->rows_unchecked;
        break;
      default:
        for (int o = 0; o < e_; ++o) {
          if (!isfinite(yr[o])) {
            Fail("%s: token %d (finite, well inside float's range) y[%d] = %.9g", what, first + i,
                 o, yr[o]);
          }
        }
        if (!stable_[row]) break;
        any = true;
        max_score = std::max(max_score, row_max_score_[row]);
        for (int o = 0; o < e_; ++o) {
          const size_t at = row * ee + o;
          scale = std::max(scale, fabs(ref_[at]));
          magnitude = std::max(magnitude, out_magnitude_[at]);
          for (const std::vector<double>& rounded : rounded_) {
            condition = std::max(condition, fabs(rounded[at] - ref_[at]));
          }
        }
        break;
    }
  }
  if (!any) return;
  const double bound =
      bound_ + edgeattn_test::FloatErrorBound(max_score, d_) - edgeattn_test::kFloatErrorBound;
  const double norm = scale > 0.0 ? scale : 1.0;
  condition = std::max(condition, kRoundingStep * magnitude) / norm;
  if (condition > bound / 4 || (scale > 0.0 && scale < kTinyOutputs) || scale >= 1e37) {
    Debug(
        "    %s rows %d..%d: ill-conditioned (rounding model %.2g, bound %.3g, max |y_ref| %.3g)\n",
        what, first, first + n - 1, condition, bound, scale);
    ++stats_->ill_conditioned;
    ++Stats().ill_conditioned;
    return;
  }
  ++stats_->steps_checked;
  ++Stats().checked;
  double worst = 0.0;
  bool slack_used = false;
  for (int i = 0; i < n; ++i) {
    const size_t row = static_cast<size_t>(first + i);
    if (rows_[row] != kClean || !stable_[row]) continue;
    for (int o = 0; o < e_; ++o) {
      const size_t at = row * ee + o;
      const double got = y[static_cast<size_t>(i) * ee + o];
      const double allowed = bound * norm + slack_[at];
      const double error = fabs(got - ref_[at]);
      if (error > bound * norm) slack_used = true;
      worst = std::max(worst, (error - slack_[at]) / norm);
      if (!(error <= allowed)) {
        if (Debugging()) {
          for (int k = 0; k < n; ++k) {
            for (int c = 0; c < e_; ++c) {
              const size_t a = (static_cast<size_t>(first + k)) * ee + c;
              Debug("  y[%d][%d] = %.9g, reference %.9g, slack %.3g, rounding models %.9g %.9g\n",
                    first + k, c, y[static_cast<size_t>(k) * ee + c], ref_[a], slack_[a],
                    rounded_[0][a], rounded_[1][a]);
            }
          }
        }
        Fail(
            "%s: token %d y[%d] = %.9g, reference %.9g: error %.3g > bound %.3g of max |y_ref| "
            "%.3g plus storage slack %.3g (rounding model moves it %.2g)",
            what, first + i, o, got, ref_[at], error, bound, scale, slack_[at], condition);
      }
      if (other != nullptr) {
        const double apart = fabs(got - other[static_cast<size_t>(i) * ee + o]);
        if (!(apart <= 2.0 * allowed)) {
          Fail("%s: token %d y[%d] = %.9g here, %.9g on the first target: %.3g apart > %.3g", what,
               first + i, o, got, other[static_cast<size_t>(i) * ee + o], apart, 2.0 * allowed);
        }
      }
    }
  }
  if (other != nullptr) ++stats_->compared;
  if (slack_used) ++stats_->slack_used;
  Debug("    %s rows %d..%d: error %.3g, bound %.3g, rounding model %.2g\n", what, first,
        first + n - 1, worst, bound, condition);
}

}  // namespace edgeattn_fuzz
