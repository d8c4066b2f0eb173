// The AVX512-VNNI int8 requantisation of a tile row
// (src/kernels/int/x86/avx512_requantize-inl.h, vnni::StoreRequantizedRow: rows
// of more than 48 lanes narrowed four blocks at once, shorter ones block by
// block), whose single-shift form folds TFLite's two roundings
// into one 64-bit shift for shifts in [-22, -1]: against the reference's
// MultiplyByQuantizedMultiplier plus zero point, saturated to int8, at every
// shift TFLite allows, at multipliers that make both roundings meet exact
// ties (powers of two), at the int32 extremes and around -2^30, where the
// first rounding's sign changes. Compiled here in Highway's AVX3_DL pass, as
// int_kernels.cc compiles it; other targets have no such function (the test
// says so and skips).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/vnni_requantize_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#if HWY_TARGET == HWY_AVX3_DL
#include "kernels/int/x86/avx512_requantize-inl.h"
#endif

HWY_BEFORE_NAMESPACE();
namespace edgeattn_test {
namespace HWY_NAMESPACE {

// out[j] = requantised x[j] for j < count, count in [1, 64]; false where the
// target has no such function.
#if HWY_TARGET == HWY_AVX3_DL
EA_VNNI_TARGET bool RequantizeS8OnTarget(const int32_t* x, int32_t count, int32_t multiplier,
                                         int32_t shift, int32_t zero_point, int8_t* out) {
  const edgeattn::vnni::S8Requantizer q =
      edgeattn::vnni::MakeS8Requantizer(multiplier, shift, zero_point);
  edgeattn::vnni::StoreRequantizedRow(x, count, &q, 0, out);
  return true;
}
// The same with a multiplier and shift per lane (four S8LaneRequantizers).
EA_VNNI_TARGET bool RequantizeS8PerLaneOnTarget(const int32_t* x, int32_t count,
                                                const int32_t* multiplier, const int32_t* shift,
                                                int32_t zero_point, int8_t* out) {
  edgeattn::vnni::S8LaneRequantizer q[4];
  for (int b = 0; b < 4; ++b) {
    q[b] =
        edgeattn::vnni::MakeS8LaneRequantizer(multiplier + 16 * b, shift + 16 * b, 16, zero_point);
  }
  edgeattn::vnni::StoreRequantizedRow(x, count, q, 1, out);
  return true;
}
#else
bool RequantizeS8OnTarget(const int32_t*, int32_t, int32_t, int32_t, int32_t, int8_t*) {
  return false;
}
bool RequantizeS8PerLaneOnTarget(const int32_t*, int32_t, const int32_t*, const int32_t*, int32_t,
                                 int8_t*) {
  return false;
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn_test
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <gtest/gtest.h>
#include <stdint.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/int/int_kernels.h"
#include "reference/random_tensor.h"
#include "reference/tflite_chain_reference.h"
#include "runtime/dispatch.h"

namespace edgeattn_test {

EA_EXPORT(RequantizeS8OnTarget);
EA_EXPORT(RequantizeS8PerLaneOnTarget);

namespace {

constexpr int32_t kRowLanes = 64;  // one tile row

int32_t Saturated(double x) {
  return x >= 2147483647.0 ? INT32_MAX : x <= -2147483648.0 ? INT32_MIN : static_cast<int32_t>(x);
}

// Accumulators for one multiplier and shift: the int32 extremes, small values,
// the neighbourhood of x m = -2^30, and values whose result lands in and just
// past the int8 range (with their neighbours, where the ties are).
std::vector<int32_t> Accumulators(int32_t multiplier, int32_t shift, RandomStream* random) {
  std::vector<int32_t> x = {INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1, 0, 1, -1, 2, -2};
  if (multiplier > 0) {
    const double unit = std::ldexp(1.0, 31 - shift) / multiplier;  // x giving result 1
    const int32_t at_sign_change = Saturated(-std::ldexp(1.0, 30) / multiplier);
    for (int32_t d = -2; d <= 2; ++d)
      x.push_back(Saturated(at_sign_change + static_cast<double>(d)));
    for (int i = 0; i < 200; ++i) {
      const double target = std::floor(random->Uniform() * 600.0) / 2.0 - 150.0;  // halves too
      const int32_t center = Saturated(std::round(target * unit));
      for (int32_t d = -1; d <= 1; ++d) x.push_back(Saturated(static_cast<double>(center) + d));
    }
  }
  for (int i = 0; i < 64; ++i) {
    x.push_back(Saturated((random->Uniform() * 2.0 - 1.0) * 2147483648.0));
  }
  while (x.size() % kRowLanes != 0) x.push_back(0);
  return x;
}

// Each row of 64 accumulators goes through whole (64 lanes: the four-block
// narrowing) and as a prefix of a drawn length (either path); the bytes past
// the prefix must stay as they were.
std::vector<int32_t> CountsToTry(RandomStream* random) {
  return {kRowLanes, 1 + static_cast<int32_t>(random->Uniform() * (kRowLanes - 1))};
}
constexpr int8_t kUntouched = 0x5A;

TEST(VnniRequantize, MatchesTfliteAtEveryShift) {
  if (!edgeattn::UsesS8Panels()) GTEST_SKIP() << "this CPU has no AVX512-VNNI";
  RandomStream random(2023);
  const int32_t multipliers[] = {0, 1, 1 << 29, 1 << 30, 1518500250, 1200000000, INT32_MAX};
  for (int32_t shift = -31; shift <= 7; ++shift) {
    for (const int32_t multiplier : multipliers) {
      const std::vector<int32_t> x = Accumulators(multiplier, shift, &random);
      for (const int32_t zero_point : {-128, -1, 0, 5, 127}) {
        for (size_t i = 0; i < x.size(); i += kRowLanes) {
          for (const int32_t count : CountsToTry(&random)) {
            int8_t got[kRowLanes];
            std::fill(got, got + kRowLanes, kUntouched);
            ASSERT_TRUE(EA_DISPATCH(RequantizeS8OnTarget)(x.data() + i, count, multiplier, shift,
                                                          zero_point, got));
            for (int32_t lane = 0; lane < kRowLanes; ++lane) {
              const int64_t want = static_cast<int64_t>(tflite_ref::MultiplyByQuantizedMultiplier(
                                       x[i + lane], multiplier, shift)) +
                                   zero_point;
              const int64_t clamped = want < -128 ? -128 : want > 127 ? 127 : want;
              ASSERT_EQ(got[lane], lane < count ? clamped : kUntouched)
                  << "x " << x[i + lane] << " multiplier " << multiplier << " shift " << shift
                  << " zero point " << zero_point << " lane " << lane << " of " << count;
            }
          }
        }
      }
    }
  }
}

// Per-lane multipliers and shifts: even lanes carry the accumulators' own
// (multiplier, shift), odd lanes another multiplier and a shift drawn from
// the whole range, so that blocks whose shifts all lie in [-22, -1] take the
// single rounding and the others the fallback, lane by lane as the reference.
TEST(VnniRequantize, PerLaneMatchesTfliteAtEveryShift) {
  if (!edgeattn::UsesS8Panels()) GTEST_SKIP() << "this CPU has no AVX512-VNNI";
  RandomStream random(2024);
  const int32_t multipliers[] = {0, 1, 1 << 29, 1 << 30, 1518500250, 1200000000, INT32_MAX};
  const int kMultipliers = static_cast<int>(sizeof multipliers / sizeof multipliers[0]);
  for (int32_t shift = -31; shift <= 7; ++shift) {
    for (int m = 0; m < kMultipliers; ++m) {
      const std::vector<int32_t> x = Accumulators(multipliers[m], shift, &random);
      int32_t lane_multiplier[kRowLanes], lane_shift[kRowLanes];
      for (int lane = 0; lane < kRowLanes; ++lane) {
        const bool own = lane % 2 == 0;
        lane_multiplier[lane] = own ? multipliers[m] : multipliers[(m + lane) % kMultipliers];
        const int32_t drawn = -22 + static_cast<int32_t>(random.Uniform() * 22.0);  // [-22, -1]
        lane_shift[lane] = own ? shift : (shift >= -22 && shift <= -1 ? drawn : shift + 1);
      }
      for (const int32_t zero_point : {-128, 0, 127}) {
        for (size_t i = 0; i < x.size(); i += kRowLanes) {
          for (const int32_t count : CountsToTry(&random)) {
            int8_t got[kRowLanes];
            std::fill(got, got + kRowLanes, kUntouched);
            ASSERT_TRUE(EA_DISPATCH(RequantizeS8PerLaneOnTarget)(
                x.data() + i, count, lane_multiplier, lane_shift, zero_point, got));
            for (int32_t lane = 0; lane < kRowLanes; ++lane) {
              const int64_t want = static_cast<int64_t>(tflite_ref::MultiplyByQuantizedMultiplier(
                                       x[i + lane], lane_multiplier[lane], lane_shift[lane])) +
                                   zero_point;
              const int64_t clamped = want < -128 ? -128 : want > 127 ? 127 : want;
              ASSERT_EQ(got[lane], lane < count ? clamped : kUntouched)
                  << "x " << x[i + lane] << " multiplier " << lane_multiplier[lane] << " shift "
                  << lane_shift[lane] << " zero point " << zero_point << " lane " << lane << " of "
                  << count;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace edgeattn_test
#endif  // HWY_ONCE
