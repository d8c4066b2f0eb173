// Online (streaming) softmax for one query row, one block of keys at a time.
//
// The row keeps a running maximum m and sum l of exp(score - m); the output
// row itself is the accumulator O. A block with a larger maximum rescales l
// (here) and O (by the factor this step returns, in kernels/f32/weighted_values-inl.h)
// by exp(m_old - m_new) once; the scores become probabilities in place.
// Dividing by l happens once at the end. m starts at the lowest finite float,
// not -inf, and a row that never sees a key takes no step at all: it keeps
// l = 0 and O = 0 instead of producing NaN from (-inf) - (-inf).
//
// Scores arrive already scaled (kernels/f32/score_tile-inl.h), so the maximum and every
// exponent come from the same rounded values: exp(s - m) is exp(0) = 1 for
// the largest key at any magnitude. A NaN or +-inf score makes the row
// non-finite: it stops taking steps (no NaN ever reaches the exponential,
// kernels/f32/exp_f32-inl.h, whose float to int conversion would be undefined for NaN)
// and its output and weights become NaN (as a plain float loop's would for
// NaN and +inf; for -inf on purpose, see ea_attention_run).

#if defined(EDGEATTN_SRC_KERNELS_F32_ONLINE_SOFTMAX_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KERNELS_F32_ONLINE_SOFTMAX_INL_H_
#undef EDGEATTN_SRC_KERNELS_F32_ONLINE_SOFTMAX_INL_H_
#else
#define EDGEATTN_SRC_KERNELS_F32_ONLINE_SOFTMAX_INL_H_
#endif

#include <stddef.h>

#include <limits>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "kernels/f32/exp_f32-inl.h"
#include "kernels/f32/rescale_factor.h"
#include "kernels/vector_tail-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The lowest finite float: any real score raises it on the first visible key.
inline constexpr float kInitialRowMax = -3.40282347e38f;

struct RowState {
  float max;        // running maximum of scaled scores
  float sum;        // running sum of exp(scaled score - max)
  bool non_finite;  // a visible score was NaN or +-inf: the row's result is NaN
};

inline RowState InitialRowState() { return RowState{kInitialRowMax, 0.0f, false}; }

struct BlockMax {
  float max;
  bool finite;  // every score was finite (max is then meaningful)
};

// All-ones lanes where s is NaN or +-inf: its exponent bits are all set. An
// integer test, so that no float flag (-ffinite-math-only, -ffast-math in a
// parent project's build) can fold it away, and independent of Max, which
// may drop NaN operands.
template <class D>
HWY_INLINE hn::Vec<hn::RebindToSigned<D>> NonFiniteLanes(D /* d */, hn::Vec<D> s) {
  const hn::RebindToSigned<D> di;
  const auto exponent = hn::Set(di, 0x7F800000);
  return hn::VecFromMask(di, hn::Eq(hn::And(hn::BitCast(di, s), exponent), exponent));
}

// Largest of scores[0, count), count >= 1, and whether all of them are finite.
// Finiteness in two instructions per vector, not a compare into a mask: the
// largest |s| as an integer (sign bit cleared) is below the bits of +inf
// exactly when no score is NaN or +-inf. Four vectors per step into four
// pairs of accumulators: with one pair, each step waited for the previous
// step's max (4 cycles of latency for 2 instructions of work).
template <class D>
HWY_INLINE BlockMax MaxOfScores(D d, const float* HWY_RESTRICT scores, size_t count) {
  const hn::RebindToSigned<D> di;
  using VF = hn::Vec<D>;
  using VI = hn::Vec<decltype(di)>;
  const size_t lanes = hn::Lanes(d);
  const float lowest = -hwy::HighestValue<float>();
  const VI magnitude = hn::Set(di, 0x7FFFFFFF);
  VF best0 = hn::Set(d, lowest), best1 = best0, best2 = best0, best3 = best0;
  VI bits0 = hn::Zero(di), bits1 = bits0, bits2 = bits0, bits3 = bits0;
  const auto fold = [&](VF s, VF& best, VI& bits) {
    best = hn::Max(best, s);
    bits = hn::Max(bits, hn::And(hn::BitCast(di, s), magnitude));
  };
  size_t j = 0;
  for (; j + 4 * lanes <= count; j += 4 * lanes) {
    fold(hn::LoadU(d, scores + j), best0, bits0);
    fold(hn::LoadU(d, scores + j + lanes), best1, bits1);
    fold(hn::LoadU(d, scores + j + 2 * lanes), best2, bits2);
    fold(hn::LoadU(d, scores + j + 3 * lanes), best3, bits3);
  }
  for (; j + lanes <= count; j += lanes) fold(hn::LoadU(d, scores + j), best0, bits0);
  if (j < count) fold(LoadTail(d, scores + j, count - j, lowest), best1, bits1);
  const VF best = hn::Max(hn::Max(best0, best1), hn::Max(best2, best3));
  const VI bits = hn::Max(hn::Max(bits0, bits1), hn::Max(bits2, bits3));
  const bool finite = hn::GetLane(hn::MaxOfLanes(di, bits)) < 0x7F800000;
  return BlockMax{hn::GetLane(hn::MaxOfLanes(d, best)), finite};
}

// scores[j] = exp(scores[j] - row_max) for j < count; returns their sum.
// Every score is finite and row_max >= each of them, so the exponents lie in
// [-inf, 0]: never NaN.
template <class D>
HWY_INLINE float ExponentiateScores(D d, float* HWY_RESTRICT scores, size_t count, float row_max) {
  const size_t lanes = hn::Lanes(d);
  const auto vmax = hn::Set(d, row_max);
  auto total = hn::Zero(d);
  size_t j = 0;
  for (; j + lanes <= count; j += lanes) {
    const auto p = ExpNonPositive(d, hn::Sub(hn::LoadU(d, scores + j), vmax));
    hn::StoreU(p, d, scores + j);
    total = hn::Add(total, p);
  }
  if (j < count) {
    const size_t rest = count - j;
    const auto p = hn::IfThenElseZero(
        hn::FirstN(d, rest),
        ExpNonPositive(d, hn::Sub(LoadTail(d, scores + j, rest, row_max), vmax)));
    StoreTail(d, p, scores + j, rest);
    total = hn::Add(total, p);
  }
  return hn::GetLane(hn::SumOfLanes(d, total));
}

// Folds one block of scaled scores (only visible keys) into the states of
// `rows` query rows: row r's counts[r] scores start at tile + r * row_stride.
// Per row it raises the maximum, rescales the sum and overwrites the scores
// with their unnormalised probabilities; rescale[r] gets the factor
// exp(m_old - m_new) that the row's output accumulator must be rescaled by
// before this block's P V is added, and usable[r] is false when the row saw
// no key here or is (or just became) non-finite: its probabilities are then
// not written and must not be used. rows <= kMaxSoftmaxRows.
//
// Three passes over the rows, not one row after another: every row's maximum
// first, then every rescale, then every row's exponentials. A row's maximum
// ends in a horizontal reduction and its rescale in a scalar exponential,
// chains of dependent instructions that the next row's passes do not depend
// on; row after row, each chain stalled the exponential pass behind it, in
// the passes' order it overlaps with the next row's work. Each row gets the
// same operations as alone, so the results are the same bits.
inline constexpr size_t kMaxSoftmaxRows = 8;
static_assert(kScoreTileRows <= static_cast<int32_t>(kMaxSoftmaxRows), "a score tile's rows");

template <class D>
HWY_INLINE void OnlineSoftmaxRows(D d, float* HWY_RESTRICT tile, size_t row_stride, size_t rows,
                                  const size_t* counts, RowState* states, float* rescale,
                                  bool* usable) {
  float block_max[kMaxSoftmaxRows];
  for (size_t r = 0; r < rows; ++r) {
    usable[r] = false;
    if (counts[r] == 0 || states[r].non_finite) continue;
    const BlockMax block = MaxOfScores(d, tile + r * row_stride, counts[r]);
    if (!block.finite) {
      states[r].non_finite = true;
      continue;
    }
    usable[r] = true;
    block_max[r] = block.max;
  }
  for (size_t r = 0; r < rows; ++r) {
    rescale[r] = 1.0f;
    if (!usable[r] || !(block_max[r] > states[r].max)) continue;
    // Both finite: the difference is negative, or -inf, never NaN. A row
    // with a sum has an output to keep (rescale_factor.h).
    rescale[r] = hn::GetLane(ExpNonPositive(d, hn::Set(d, states[r].max - block_max[r])));
    if (states[r].sum > 0.0f) rescale[r] = LaterBlockFactor(rescale[r]);
    states[r].max = block_max[r];
    states[r].sum *= rescale[r];
  }
  for (size_t r = 0; r < rows; ++r) {
    if (!usable[r]) continue;
    states[r].sum += ExponentiateScores(d, tile + r * row_stride, counts[r], states[r].max);
  }
}

// The factor that turns the accumulated output row into the result: 1 / sum,
// 0 for a row that saw no key, NaN for a non-finite row.
inline float FinalRowFactor(const RowState& state) {
  if (state.non_finite) return std::numeric_limits<float>::quiet_NaN();
  return state.sum > 0.0f ? 1.0f / state.sum : 0.0f;
}

// out[j] = exp(scores[j] - max) / sum for j < visible, 0 for
// visible <= j < width: one row segment of the attention weights (scaled
// scores, recomputed exactly as the online pass saw them). A non-finite row
// gets NaN across the whole segment.
template <class D>
HWY_INLINE void WriteProbabilities(D d, const float* HWY_RESTRICT scores, size_t visible,
                                   size_t width, const RowState& state, float* HWY_RESTRICT out) {
  if (state.non_finite) {
    for (size_t j = 0; j < width; ++j) out[j] = std::numeric_limits<float>::quiet_NaN();
    return;
  }
  const float inverse_sum = state.sum > 0.0f ? 1.0f / state.sum : 0.0f;
  const size_t lanes = hn::Lanes(d);
  const auto vmax = hn::Set(d, state.max);
  const auto vinv = hn::Set(d, inverse_sum);
  size_t j = 0;
  for (; j + lanes <= visible; j += lanes) {
    const auto p = ExpNonPositive(d, hn::Sub(hn::LoadU(d, scores + j), vmax));
    hn::StoreU(hn::Mul(p, vinv), d, out + j);
  }
  if (j < visible) {
    const size_t rest = visible - j;
    const auto p = ExpNonPositive(d, hn::Sub(LoadTail(d, scores + j, rest, state.max), vmax));
    StoreTail(d, hn::Mul(p, vinv), out + j, rest);
    j = visible;
  }
  for (; j < width; ++j) out[j] = 0.0f;
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
