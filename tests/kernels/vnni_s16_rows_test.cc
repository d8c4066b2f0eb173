// The AVX512-VNNI int16 rows (src/kernels/int/x86/vnni_s16-inl.h) at their edges,
// each against the reference's TFLite ops:
// - the softmax row (its table lookup without a gather, its shortcut for the
//   saturating left shift) at every shift, against SOFTMAX;
// - P V's split path, taken by rows whose probabilities sum to 2^16 or more
//   (a real softmax's sum to about 2^15, so only a direct call reaches it),
//   with probabilities over [20000, 32767] and V over the whole int16 range,
//   against BATCH_MATMUL;
// - the packed attention rows (groups of four query rows, the one-row
//   kernels for the rest and for d_k over 128) from a scratch full of
//   garbage, against BATCH_MATMUL, SOFTMAX and BATCH_MATMUL.
// The row functions are compiled here in Highway's AVX3_DL pass, as
// int_kernels.cc compiles them; CPUs without AVX512-VNNI have no such rows
// (the tests say so and skip).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/vnni_s16_rows_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "kernels/int/softmax_s16.h"

#if HWY_TARGET == HWY_AVX3_DL
#include "kernels/int/x86/vnni_s16-inl.h"
#endif

HWY_BEFORE_NAMESPACE();
namespace edgeattn_test {
namespace HWY_NAMESPACE {

// SoftmaxRowS16 in place on row[0, count); false where the target has none.
bool SoftmaxRowS16OnTarget(const edgeattn::SoftmaxS16Tables& tables, int32_t multiplier,
                           int32_t left_shift, int16_t* row, int32_t count, int16_t* exp_scratch,
                           int32_t* prob_sum) {
#if HWY_TARGET == HWY_AVX3_DL
  *prob_sum =
      edgeattn::vnni::SoftmaxRowS16(tables, multiplier, left_shift, row, count, exp_scratch);
  return true;
#else
  (void)tables, (void)multiplier, (void)left_shift, (void)row, (void)count, (void)exp_scratch,
      (void)prob_sum;
  return false;
#endif
}

// out[t] = requantised sum_j probs[j] v[j][t] through ContextRowS16; false
// where the target has no such row.
bool ContextRowS16OnTarget(const int16_t* probs, int32_t n_keys, int32_t prob_sum,
                           const int16_t* v_pairs, int32_t d_v, int32_t multiplier, int32_t shift,
                           int16_t* out) {
#if HWY_TARGET == HWY_AVX3_DL
  edgeattn::vnni::ContextRowS16(probs, n_keys, prob_sum, v_pairs,
                                static_cast<size_t>((n_keys + 1) / 2) * 32, d_v,
                                edgeattn::vnni::MakeRequantize64(multiplier, shift), out);
  return true;
#else
  (void)probs, (void)n_keys, (void)prob_sum, (void)v_pairs, (void)d_v, (void)multiplier,
      (void)shift, (void)out;
  return false;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn_test
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "data/tflite/golden_cases.h"
#include "edgeattn/arena_sizes.hpp"
#include "kernels/int/int_kernels.h"
#include "kernels/int/s16_panels.h"
#include "kernels/int/s8_panels.h"
#include "reference/device_softmax_luts.h"
#include "reference/quant_head_args.h"
#include "reference/random_tensor.h"
#include "reference/tflite_chain_reference.h"
#include "runtime/dispatch.h"

namespace edgeattn_test {

EA_EXPORT(SoftmaxRowS16OnTarget);
EA_EXPORT(ContextRowS16OnTarget);

namespace {

// Every shift TFLite's multiplier can carry, rows of a whole vector and with
// tails, scores spread over 0, 300 and the whole 65535 below their max (the
// left shift saturates for the widest at shifts of 16 and more); with the
// built-in tables and a device's (the byte planes are built from either).
TEST(VnniS16Rows, SoftmaxRowAtEveryShift) {
  if (!edgeattn::UsesS8Panels()) GTEST_SKIP() << "this CPU has no AVX512-VNNI";
  RandomStream random(6161);
  const int32_t multipliers[] = {0, 1, 1 << 30, 1518500250, INT32_MAX};
  for (int shift = -31; shift <= 30; ++shift) {
    const bool device = shift % 2 != 0;  // each table pair at every other shift
    const int16_t* exp_lut = device ? DeviceExpLut() : TfliteExpLut();
    const int16_t* reciprocal_lut = device ? DeviceReciprocalLut() : TfliteReciprocalLut();
    edgeattn::SoftmaxS16Tables tables;
    edgeattn::BuildSoftmaxS16Tables(device ? exp_lut : nullptr, device ? reciprocal_lut : nullptr,
                                    &tables);
    for (const int32_t multiplier : multipliers) {
      for (const int span : {0, 300, 65535}) {
        for (const int len : {1, 4, 5, 32, 37, 64, 65, 100, 200, 1000}) {
          std::vector<int16_t> scores(len);
          for (int16_t& x : scores) x = static_cast<int16_t>(Draw(&random, -32768, -32768 + span));
          scores[len / 2] = static_cast<int16_t>(-32768 + span);
          const tflite_ref::SoftmaxInt16Params params{multiplier, shift, exp_lut, reciprocal_lut};
          std::vector<int16_t> want(len), exp_scratch(len);
          tflite_ref::SoftmaxInt16Row(params, scores.data(), len, want.data());
          int32_t want_sum = 0;
          for (const int16_t p : want) want_sum += p;
          int32_t sum = -1;
          ASSERT_TRUE(EA_DISPATCH(SoftmaxRowS16OnTarget)(tables, multiplier, shift, scores.data(),
                                                         len, exp_scratch.data(), &sum));
          ASSERT_EQ(scores, want) << "shift " << shift << " multiplier " << multiplier << " span "
                                  << span << " len " << len;
          ASSERT_EQ(sum, want_sum);
        }
      }
    }
  }
}

TEST(VnniS16Rows, ContextSplitPathForLargeProbabilitySums) {
  if (!edgeattn::UsesS8Panels()) GTEST_SKIP() << "this CPU has no AVX512-VNNI";
  RandomStream random(5151);
  for (const int n_keys : {1, 2, 131, 300}) {
    const int d_v = 83;  // a pass of 64 columns, one of 16, a tail of 3
    std::vector<int16_t> probs(n_keys), v(static_cast<size_t>(n_keys) * d_v);
    int32_t sum = 0;
    for (int16_t& p : probs) {
      p = static_cast<int16_t>(Draw(&random, 20000, 32767));
      sum += p;
    }
    for (int16_t& x : v) x = static_cast<int16_t>(Draw(&random, -32768, 32767));
    std::vector<int16_t> pairs(edgeattn::S16PanelValues(d_v, n_keys));
    edgeattn::PackS16PanelsTransposed(v.data(), static_cast<size_t>(d_v), d_v, n_keys,
                                      pairs.data());
    std::vector<int16_t> v_t(static_cast<size_t>(d_v) * n_keys);
    for (int j = 0; j < n_keys; ++j) {
      for (int t = 0; t < d_v; ++t) {
        v_t[static_cast<size_t>(t) * n_keys + j] = v[static_cast<size_t>(j) * d_v + t];
      }
    }
    for (const int32_t shift : {-31, -20, -9, 0, 7}) {
      const tflite_ref::BatchMatMulParams ref{0, 0, 0, 1 << 30, shift};
      const std::vector<int16_t> want =
          tflite_ref::BatchMatMul(ref, probs.data(), 1, n_keys, v_t.data(), d_v);
      std::vector<int16_t> out(d_v, 0x5555);
      ASSERT_TRUE(EA_DISPATCH(ContextRowS16OnTarget)(probs.data(), n_keys, sum, pairs.data(), d_v,
                                                     1 << 30, shift, out.data()));
      ASSERT_EQ(out, want) << n_keys << " keys, probabilities summing to " << sum << ", shift "
                           << shift;
    }
  }
}

// One head through AttendRowsS16 on K and V packed in pairs (the path plans
// take on this CPU): n_q = 47 is eleven groups of four and three single
// rows; odd key counts leave the last pair half empty; d_k = 22 and 127
// leave K's last 4-value group part empty (127 also its last pair); d_k =
// 130 takes the one-row score kernel. The scratch starts as garbage, as a
// reused arena's would.
TEST(VnniS16Rows, PackedRowsMatchTheReferenceOps) {
  if (!edgeattn::UsesS8Panels()) GTEST_SKIP() << "this CPU has no AVX512-VNNI";
  RandomStream random(6262);
  const int n_q = 47;
  // Values whose products push q . k to the estimate's bound (d_k = 128, all
  // 32767 or all -32513: |q . k - 2^16 sum (q >> 8)(k >> 8)| is 99.2 % of
  // 2^31, the most any input reaches) or far past int32 (all -32768: 2^37),
  // or whose high byte is -1 or 0.
  const int16_t extremes[] = {32767, -32768, -32513, 255, -1, 0x7F00};
  for (const int n_kv : {47, 64, 3}) {
    for (const int d_k : {20, 22, 64, 127, 128, 130}) {
      for (const bool causal : {false, true}) {
        for (const bool extreme : {false, true}) {
          const int d_v = d_k == 130 ? 83 : d_k;
          std::vector<int16_t> q(static_cast<size_t>(n_q) * d_k),
              k(static_cast<size_t>(n_kv) * d_k), v(static_cast<size_t>(n_kv) * d_v), v_t(v.size());
          for (int16_t& x : q) x = static_cast<int16_t>(Draw(&random, -32768, 32767));
          for (int16_t& x : k) x = static_cast<int16_t>(Draw(&random, -32768, 32767));
          if (extreme) {
            // Whole rows of one extreme value for some rows, mixed for others.
            for (int i = 0; i < n_q; ++i) {
              for (int t = 0; t < d_k; ++t) {
                q[static_cast<size_t>(i) * d_k + t] =
                    extremes[i % 3 == 0 ? (i / 3) % 6 : Draw(&random, 0, 5)];
              }
            }
            for (int j = 0; j < n_kv; ++j) {
              for (int t = 0; t < d_k; ++t) {
                k[static_cast<size_t>(j) * d_k + t] =
                    extremes[j % 2 == 0 ? (j / 2) % 6 : Draw(&random, 0, 5)];
              }
            }
          }
          for (int16_t& x : v) x = static_cast<int16_t>(Draw(&random, -32768, 32767));
          for (int j = 0; j < n_kv; ++j) {
            for (int t = 0; t < d_v; ++t) {
              v_t[static_cast<size_t>(t) * n_kv + j] = v[static_cast<size_t>(j) * d_v + t];
            }
          }
          // Extreme sums reach 2^37: a shift that keeps them below saturation,
          // where an error of 2^32 shows.
          const tflite_ref::BatchMatMulParams scores_params{0, 0, 0, 1518500250,
                                                            extreme ? -28 : -21};
          const std::vector<int16_t> scores =
              tflite_ref::BatchMatMul(scores_params, q.data(), n_q, d_k, k.data(), n_kv);
          const tflite_ref::SoftmaxInt16Params softmax =
              tflite_ref::PrepareSoftmaxInt16(0.25f, 0.01f, TfliteExpLut(), TfliteReciprocalLut());
          std::vector<int16_t> probs(static_cast<size_t>(n_q) * n_kv, 0);
          for (int i = 0; i < n_q; ++i) {
            const int visible = causal ? (i + 1 + n_kv - n_q < 0 ? 0 : i + 1 + n_kv - n_q) : n_kv;
            const int row_keys = visible > n_kv ? n_kv : visible;
            if (row_keys == 0) continue;
            tflite_ref::SoftmaxInt16Row(softmax, scores.data() + static_cast<size_t>(i) * n_kv,
                                        row_keys, probs.data() + static_cast<size_t>(i) * n_kv);
          }
          const tflite_ref::BatchMatMulParams context_params{0, 0, 0, 1200000000, -14};
          const std::vector<int16_t> want =
              tflite_ref::BatchMatMul(context_params, probs.data(), n_q, n_kv, v_t.data(), d_v);

          std::vector<int16_t> k_pairs(edgeattn::S16PanelValues(n_kv, d_k));
          std::vector<int16_t> v_pairs(edgeattn::S16PanelValues(d_v, n_kv));
          edgeattn::PackS16Panels(k.data(), static_cast<size_t>(d_k), n_kv, d_k, k_pairs.data());
          std::vector<uint8_t> k_high_bytes(edgeattn::S8PanelBytes(n_kv, d_k));  // its layout
          edgeattn::PackS16HighBytesPlus128(k.data(), static_cast<size_t>(d_k), n_kv, d_k,
                                            k_high_bytes.data());
          edgeattn::PackS16PanelsTransposed(v.data(), static_cast<size_t>(d_v), d_v, n_kv,
                                            v_pairs.data());
          std::vector<int16_t> out(static_cast<size_t>(n_q) * d_v, 0x5555), got_probs(probs.size());
          edgeattn::SoftmaxS16Tables tables;
          edgeattn::AttentionQArgs<int16_t> a = S16HeadArgs(scores_params, softmax, context_params,
                                                            n_q, n_kv, d_k, d_v, causal, &tables);
          a.q = q.data();
          a.ld_q = d_k;
          a.k_pairs = k_pairs.data();
          // As PackKeysAndValues: the row groups where d_k allows.
          a.k_high_bytes = d_k <= edgeattn::kS16HighByteMaxDepth ? k_high_bytes.data() : nullptr;
          a.v_pairs = v_pairs.data();
          a.v_panel_stride = edgeattn::S16PanelValues(16, n_kv);
          a.out = out.data();
          a.ld_out = d_v;
          a.probs = got_probs.data();
          a.ld_probs = n_kv;
          std::vector<uint8_t> scratch(edgeattn::QuantScratch(n_kv, EA_DTYPE_INT16).bytes, 0xA5);
          edgeattn::AttendRowsS16(a, 0, n_q, scratch.data());
          const std::string where = "n_kv " + std::to_string(n_kv) + " d_k " + std::to_string(d_k) +
                                    " causal " + std::to_string(causal) + " extreme " +
                                    std::to_string(extreme);
          ASSERT_EQ(got_probs, probs) << where;
          ASSERT_EQ(out, want) << where;
        }
      }
    }
  }
}

}  // namespace
}  // namespace edgeattn_test
#endif  // HWY_ONCE
