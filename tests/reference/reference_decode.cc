#include "reference/reference_decode.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace edgeattn_test {
namespace {

double RoundToHalf(double x) {
  if (std::isnan(x)) return x;
  const double magnitude = std::fabs(x);
  if (magnitude >= 65520.0) return std::copysign(std::numeric_limits<double>::infinity(), x);
  // Spacing of binary16 numbers around x: 2^-24 below 2^-14, else 2^(e - 10).
  double spacing = std::ldexp(1.0, -24);
  if (magnitude >= std::ldexp(1.0, -14)) {
    int exponent = 0;
    std::frexp(magnitude, &exponent);  // magnitude in [2^(exponent-1), 2^exponent)
    spacing = std::ldexp(1.0, exponent - 1 - 10);
  }
  return std::nearbyint(x / spacing) * spacing;  // default rounding: ties to even
}

}  // namespace

Int8Head QuantizeInt8Head(const float* x, int d) { return QuantizeLevels(x, d, 127); }

Int8Head QuantizeLevels(const float* x, int d, int limit) {
  const float top = static_cast<float>(limit);
  Int8Head q{true, 0.0f, std::vector<int>(static_cast<size_t>(d), 0)};
  float largest = 0.0f;
  for (int c = 0; c < d; ++c) {
    q.finite = q.finite && std::isfinite(x[c]);
    largest = std::fmax(largest, std::fabs(x[c]));
  }
  q.scale = largest / top;
  if (!q.finite || !(q.scale > 0.0f)) return q;
  for (int c = 0; c < d; ++c) {
    q.levels[c] = static_cast<int>(std::fmin(top, std::fmax(-top, std::nearbyint(x[c] / q.scale))));
  }
  return q;
}

namespace {

// x <- H_b x for b values, by Sylvester's construction,
// H_2m = [[H_m, H_m], [H_m, -H_m]]: both halves transformed, then added and
// subtracted (in float: the library's order of operations, written from
// the definition).
template <typename T>
void Sylvester(T* x, size_t b) {
  if (b == 1) return;
  const size_t half = b / 2;
  Sylvester(x, half);
  Sylvester(x + half, half);
  for (size_t i = 0; i < half; ++i) {
    const T top = x[i], bottom = x[half + i];
    x[i] = top + bottom;
    x[half + i] = top - bottom;
  }
}

// f(begin, b) for each block of a group of `width`, at its first channel.
template <typename F>
void ForEachBlock(int width, F f) {
  int begin = 0;
  for (const int b : Int4BlockWidths(width)) {
    f(begin, b);
    begin += b;
  }
}

// The rounded values of a rotated group, level * scale (NaN where the
// rounding saw a non-finite value), rotated back: H_b y per block for keys
// and values, H_b y * EA_KV_Q4_GROUP / b for queries.
void RotateBack(const Int8Head& q, int c0, int width, bool query, double* out) {
  ForEachBlock(width, [&](int begin, int b) {
    std::vector<double> y(static_cast<size_t>(b));
    for (int c = 0; c < b; ++c) {
      y[static_cast<size_t>(c)] = q.finite ? static_cast<double>(q.levels[c0 + begin + c]) * q.scale
                                           : std::numeric_limits<double>::quiet_NaN();
    }
    const double gain = query ? static_cast<double>(kInt4Group) / b : 1.0;
    Sylvester(y.data(), y.size());
    for (int c = 0; c < b; ++c) out[begin + c] = y[static_cast<size_t>(c)] * gain;
  });
}

}  // namespace

std::vector<int> Int4BlockWidths(int width) {
  std::vector<int> blocks;
  for (int b = 1 << 30; b > 0; b >>= 1) {
    if (width & b) blocks.push_back(b);
  }
  return blocks;
}

void Hadamard(double* x, int b) { Sylvester(x, static_cast<size_t>(b)); }

std::vector<float> RotatedInt4Group(const float* x, int width, bool query) {
  std::vector<float> out;
  ForEachBlock(width, [&](int begin, int b) {
    // A block holding 2^120 or more is scaled by 2^-7 first, and back after.
    bool large = false;
    for (int c = 0; c < b; ++c) large = large || std::fabs(x[begin + c]) >= std::ldexp(1.0f, 120);
    std::vector<float> scaled(x + begin, x + begin + b);
    if (large) {
      for (float& value : scaled) value *= std::ldexp(1.0f, -7);
    }
    const float divisor = query ? static_cast<float>(kInt4Group) : static_cast<float>(b);
    const float factor = (large ? std::ldexp(1.0f, 7) : 1.0f) / divisor;
    Sylvester(scaled.data(), scaled.size());
    for (const float sum : scaled) out.push_back(sum * factor);
  });
  return out;
}

std::vector<double> StoredValues(const std::vector<float>& rows, int d, StoredAs storage) {
  std::vector<double> stored(rows.size());
  const size_t n_heads_total = rows.size() / static_cast<size_t>(d);
  for (size_t h = 0; h < n_heads_total; ++h) {
    const float* x = rows.data() + h * static_cast<size_t>(d);
    double* out = stored.data() + h * static_cast<size_t>(d);
    if (storage == StoredAs::kF32) {
      for (int c = 0; c < d; ++c) out[c] = x[c];
    } else if (storage == StoredAs::kF16) {
      for (int c = 0; c < d; ++c) out[c] = RoundToHalf(x[c]);
    } else if (storage == StoredAs::kInt8) {
      const Int8Head q = QuantizeLevels(x, d, 127);
      for (int c = 0; c < d; ++c) {
        out[c] = q.finite ? static_cast<double>(q.levels[c]) * q.scale
                          : std::numeric_limits<double>::quiet_NaN();
      }
    } else {
      for (int c0 = 0; c0 < d; c0 += kInt4Group) {
        const int width = std::min(kInt4Group, d - c0);
        const std::vector<float> rotated = RotatedInt4Group(x + c0, width, false);
        RotateBack(QuantizeLevels(rotated.data(), width, 7), 0, width, false, out + c0);
      }
    }
  }
  return stored;
}

std::vector<double> RoundedQueries(const std::vector<float>& rows, int d, StoredAs storage) {
  if (storage != StoredAs::kInt4) return StoredValues(rows, d, StoredAs::kInt8);
  std::vector<double> rounded(rows.size());
  for (size_t h = 0; h < rows.size() / static_cast<size_t>(d); ++h) {
    const float* x = rows.data() + h * static_cast<size_t>(d);
    std::vector<float> rotated;
    for (int c0 = 0; c0 < d; c0 += kInt4Group) {
      const std::vector<float> group = RotatedInt4Group(x + c0, std::min(kInt4Group, d - c0), true);
      rotated.insert(rotated.end(), group.begin(), group.end());
    }
    const Int8Head q = QuantizeLevels(rotated.data(), d, 127);  // one scale per row and head
    for (int c0 = 0; c0 < d; c0 += kInt4Group) {
      RotateBack(q, c0, std::min(kInt4Group, d - c0), true,
                 rounded.data() + h * static_cast<size_t>(d) + c0);
    }
  }
  return rounded;
}

namespace {

// Query head h of position `position`: its softmax weights over the visible
// positions [*first, position].
std::vector<double> VisibleWeights(const DecodeProblem& p, const float* q_row, int position, int h,
                                   const std::vector<double>& k, int* first) {
  const int group = p.n_heads / p.n_kv_heads;
  const double scale = p.scale > 0.0 ? p.scale : 1.0 / std::sqrt(static_cast<double>(p.d));
  const size_t ld_kv = static_cast<size_t>(p.n_kv_heads) * p.d;
  const int kv_head = h / group;
  *first = p.window > 0 ? std::max(0, position - p.window + 1) : 0;
  const std::vector<double> q_double(q_row, q_row + p.d);
  std::vector<double> scores;
  scores.reserve(static_cast<size_t>(position - *first + 1));
  for (int j = *first; j <= position; ++j) {
    const double* k_row =
        k.data() + static_cast<size_t>(j) * ld_kv + static_cast<size_t>(kv_head) * p.d;
    double s = 0.0;
    for (int c = 0; c < p.d; ++c) s += q_double[static_cast<size_t>(c)] * k_row[c];
    const double bias = p.alibi_slopes != nullptr ? p.alibi_slopes[h] * double(j - position) : 0.0;
    scores.push_back(scale * s + bias);
  }
  double largest = -std::numeric_limits<double>::infinity();
  for (double s : scores) largest = std::fmax(largest, s);
  double sum = 0.0;
  for (double& s : scores) {
    s = std::exp(s - largest);
    sum += s;
  }
  for (double& s : scores) s /= sum;
  return scores;
}

}  // namespace

std::vector<double> ReferenceDecode(const DecodeProblem& p, const std::vector<float>& q,
                                    int first_position, int n_queries, const std::vector<double>& k,
                                    const std::vector<double>& v) {
  const int group = p.n_heads / p.n_kv_heads;
  const size_t ld_q = static_cast<size_t>(p.n_heads) * p.d;
  const size_t ld_kv = static_cast<size_t>(p.n_kv_heads) * p.d;
  std::vector<double> out(static_cast<size_t>(n_queries) * ld_q, 0.0);
  for (int i = 0; i < n_queries; ++i) {
    const int position = first_position + i;
    for (int h = 0; h < p.n_heads; ++h) {
      const float* q_row = q.data() + static_cast<size_t>(i) * ld_q + static_cast<size_t>(h) * p.d;
      int first = 0;
      const std::vector<double> weights = VisibleWeights(p, q_row, position, h, k, &first);
      double* o = out.data() + static_cast<size_t>(i) * ld_q + static_cast<size_t>(h) * p.d;
      for (int j = first; j <= position; ++j) {
        const double* v_row =
            v.data() + static_cast<size_t>(j) * ld_kv + static_cast<size_t>(h / group) * p.d;
        for (int c = 0; c < p.d; ++c) o[c] += weights[static_cast<size_t>(j - first)] * v_row[c];
      }
    }
  }
  return out;
}

Int8ValueLevels ValueLevelsInt8(const std::vector<double>& v, int d, StoredAs storage) {
  // v_scale of each stored channel's scale group: max |v_j[c]| / limit over
  // the group (its largest level is the limit), and the levels' magnitudes
  // |v_j[c]| / v_scale.
  const bool int4 = storage == StoredAs::kInt4;
  const int scale_group = int4 ? kInt4Group : d;
  const double limit = int4 ? 7.0 : 127.0;
  const size_t heads = v.size() / static_cast<size_t>(d);
  // int4 rounds the rotated values (H_b v / b per block): its levels, and the
  // weights' rounding, are the rotated domain's.
  Int8ValueLevels result{v, std::vector<double>(v.size(), 0.0)};
  std::vector<double>& level = result.level;
  for (size_t head = 0; int4 && head < heads; ++head) {
    for (int c0 = 0; c0 < d; c0 += kInt4Group) {
      ForEachBlock(std::min(kInt4Group, d - c0), [&](int begin, int b) {
        double* x = level.data() + head * static_cast<size_t>(d) + c0 + begin;
        Sylvester(x, static_cast<size_t>(b));
        for (int c = 0; c < b; ++c) x[c] /= b;
      });
    }
  }
  for (size_t head = 0; head < heads; ++head) {
    double* row = level.data() + head * static_cast<size_t>(d);
    for (int c0 = 0; c0 < d; c0 += scale_group) {
      const int end = std::min(d, c0 + scale_group);
      double largest = 0.0;
      for (int c = c0; c < end; ++c) largest = std::fmax(largest, std::fabs(row[c]) / limit);
      for (int c = c0; c < end; ++c) {
        result.v_scale[head * static_cast<size_t>(d) + static_cast<size_t>(c)] = largest;
        row[c] = largest == 0.0 ? 0.0 : std::fabs(row[c]) / largest;
      }
    }
  }
  return result;
}

Int8Decode ReferenceDecodeInt8(const DecodeProblem& p, const std::vector<float>& q,
                               int first_position, int n_queries, const std::vector<double>& k,
                               const std::vector<double>& v, StoredAs storage) {
  return ReferenceDecodeInt8(p, q, first_position, n_queries, k, v,
                             ValueLevelsInt8(v, p.d, storage), storage);
}

Int8Decode ReferenceDecodeInt8(const DecodeProblem& p, const std::vector<float>& q,
                               int first_position, int n_queries, const std::vector<double>& k,
                               const std::vector<double>& v, const Int8ValueLevels& levels,
                               StoredAs storage) {
  const std::vector<double> q_levels = RoundedQueries(q, p.d, storage);
  const std::vector<float> q_stored(q_levels.begin(), q_levels.end());
  const int group = p.n_heads / p.n_kv_heads;
  const size_t ld_q = static_cast<size_t>(p.n_heads) * p.d;
  const size_t ld_kv = static_cast<size_t>(p.n_kv_heads) * p.d;
  const bool int4 = storage == StoredAs::kInt4;
  const int scale_group = int4 ? kInt4Group : p.d;
  const std::vector<double>& level = levels.level;
  const std::vector<double>& v_scale = levels.v_scale;
  Int8Decode result;
  result.out.assign(static_cast<size_t>(n_queries) * ld_q, 0.0);
  result.weight_rounding.assign(result.out.size(), 0.0);
  for (int i = 0; i < n_queries; ++i) {
    const int position = first_position + i;
    for (int h = 0; h < p.n_heads; ++h) {
      const float* q_row =
          q_stored.data() + static_cast<size_t>(i) * ld_q + static_cast<size_t>(h) * p.d;
      int first = 0;
      const std::vector<double> weights = VisibleWeights(p, q_row, position, h, k, &first);
      const size_t at = static_cast<size_t>(i) * ld_q + static_cast<size_t>(h) * p.d;
      double* o = result.out.data() + at;
      double* bound = result.weight_rounding.data() + at;
      // Per 64-position block and scale group: weights w_j = p_j * v_scale_j
      // are rounded to within largest / 510 each; each moves out[c] by at
      // most that times the level |v_j[c]| / v_scale_j.
      for (int block_start = first - first % 64; block_start <= position; block_start += 64) {
        const int begin = std::max(block_start, first);
        const int end = std::min(block_start + 64, position + 1);
        for (int c0 = 0; c0 < p.d; c0 += scale_group) {
          const int c_end = std::min(p.d, c0 + scale_group);
          double largest = 0.0;
          for (int j = begin; j < end; ++j) {
            const size_t at = static_cast<size_t>(j) * ld_kv +
                              static_cast<size_t>(h / group) * p.d + static_cast<size_t>(c0);
            largest = std::fmax(largest, weights[static_cast<size_t>(j - first)] * v_scale[at]);
          }
          for (int j = begin; j < end; ++j) {
            const size_t row =
                static_cast<size_t>(j) * ld_kv + static_cast<size_t>(h / group) * p.d;
            const double weight = weights[static_cast<size_t>(j - first)];
            for (int c = c0; c < c_end; ++c) {
              o[c] += weight * v[row + static_cast<size_t>(c)];
              bound[c] += largest / 510.0 * level[row + static_cast<size_t>(c)];
            }
          }
        }
      }
      // Rotated back, an output element is a +-sum of its block's rotated
      // ones: their bounds add.
      for (int c0 = 0; int4 && c0 < p.d; c0 += kInt4Group) {
        ForEachBlock(std::min(kInt4Group, p.d - c0), [&](int begin, int b) {
          double sum = 0.0;
          for (int c = 0; c < b; ++c) sum += bound[c0 + begin + c];
          for (int c = 0; c < b; ++c) bound[c0 + begin + c] = sum;
        });
      }
    }
  }
  return result;
}

double Int8DecodeError(const float* got, const Int8Decode& want) {
  double largest = 0.0, worst = 0.0;
  for (size_t i = 0; i < want.out.size(); ++i) {
    largest = std::fmax(largest, std::fabs(want.out[i]));
    const double excess =
        std::fabs(static_cast<double>(got[i]) - want.out[i]) - want.weight_rounding[i];
    // NaN in got must fail: fmax would drop it.
    worst = std::isnan(excess) ? excess : std::fmax(worst, excess);
    if (std::isnan(worst)) return worst;
  }
  return largest > 0.0 ? worst / largest : worst;
}

std::vector<double> ReferenceRope(const std::vector<double>& x, int n, int heads, int d, int first,
                                  double base, bool interleaved) {
  std::vector<double> out = x;
  for (int t = 0; t < n; ++t) {
    for (int h = 0; h < heads; ++h) {
      double* head = out.data() + (static_cast<size_t>(t) * heads + h) * d;
      for (int i = 0; i < d / 2; ++i) {
        const double angle = (first + t) * std::pow(base, -2.0 * i / d);
        const int a = interleaved ? 2 * i : i;
        const int b = interleaved ? 2 * i + 1 : i + d / 2;
        const double a0 = head[a], b0 = head[b];
        head[a] = a0 * std::cos(angle) - b0 * std::sin(angle);
        head[b] = a0 * std::sin(angle) + b0 * std::cos(angle);
      }
    }
  }
  return out;
}

}  // namespace edgeattn_test
