// The fixed-point kernels at the edges of their integer ranges, on every SIMD
// target: TFLite's FULLY_CONNECTED and BATCH_MATMUL (tests/reference) with
// accumulators that wrap modulo 2^32, every shift TFLite allows, multipliers
// 0 to 2^31 - 1 and zero points at both ends, against the library's internal
// kernels (src/kernels/int/int_kernels.h), packed (AVX512-VNNI) and
// row-major alike; TFLite's int16 SOFTMAX at every input shift.
#include <gtest/gtest.h>
#include <stdint.h>

#include <algorithm>
#include <vector>

#include "data/tflite/golden_cases.h"
#include "edgeattn/arena_sizes.hpp"
#include "kernels/int/int_kernels.h"
#include "kernels/int/s16_panels.h"
#include "kernels/int/s8_panels.h"
#include "kernels/int/softmax_s16.h"
#include "reference/device_softmax_luts.h"
#include "reference/quant_head_args.h"
#include "reference/random_tensor.h"
#include "reference/tflite_chain_reference.h"
#include "simd_targets.h"

namespace edgeattn_test {
namespace {

class FixedPointKernels : public PerTargetTest {};

// Per-channel projections with extreme parameters, packed where the target
// packs (the kernel picks the path from the arguments).
TEST_P(FixedPointKernels, LinearS8AtTheEdgesOfItsRanges) {
  RandomStream random(4242);
  // n_in 300: past the 256 the Cortex-M4/M7 kernels widen on the stack (their
  // fallback); rows and n_out odd for every blocking's remainders; n_out 300:
  // past the 128 columns the AVX-512 kernel prepares at a time.
  for (const int n_in : {1, 3, 4, 17, 64, 130, 300})
    for (const int n_out : {37, 300}) {
      if (n_out == 300 && n_in != 17 && n_in != 64) continue;
      const int rows = 7;
      std::vector<int8_t> x(static_cast<size_t>(rows) * n_in), w(static_cast<size_t>(n_out) * n_in);
      for (int8_t& v : x) v = static_cast<int8_t>(Draw(&random, -128, 127));
      for (int8_t& v : w) v = static_cast<int8_t>(Draw(&random, -127, 127));
      std::vector<int32_t> bias(n_out), multiplier(n_out), shift(n_out);
      const int32_t multipliers[] = {0, 1, 1 << 30, 1518500250, INT32_MAX};
      for (int c = 0; c < n_out; ++c) {
        // Biases near the int32 ends make the accumulator wrap, as TFLite's does.
        bias[c] =
            c % 5 == 0 ? INT32_MAX - Draw(&random, 0, 1000) : Draw(&random, -(1 << 20), 1 << 20);
        multiplier[c] = multipliers[c % 5];
        shift[c] = -31 + (c * 61) / (n_out - 1);  // -31 .. 30
      }
      for (const int32_t zero_point : {-128, 0, 127}) {
        const int32_t input_offset = -zero_point;
        tflite_ref::FullyConnectedParams ref{input_offset, zero_point, multiplier,
                                             std::vector<int>(shift.begin(), shift.end())};
        const std::vector<int8_t> want = tflite_ref::FullyConnectedPerChannel(
            ref, x.data(), rows, n_in, w.data(), bias.data(), n_out);
        std::vector<uint8_t> panels(edgeattn::S8PanelBytes(n_out, n_in) + 64);
        std::vector<int32_t> sums((n_out + 15) / 16 * 16);
        edgeattn::PackS8PanelsPlus128(w.data(), static_cast<size_t>(n_in), n_out, n_in,
                                      panels.data(), sums.data());
        for (const bool packed : {false, true}) {
          std::vector<int8_t> y(static_cast<size_t>(rows) * n_out, 0x55);
          edgeattn::LinearQArgs<int8_t> args{x.data(),
                                             static_cast<size_t>(n_in),
                                             rows,
                                             n_in,
                                             input_offset,
                                             w.data(),
                                             bias.data(),
                                             multiplier.data(),
                                             shift.data(),
                                             n_out,
                                             zero_point,
                                             y.data(),
                                             static_cast<size_t>(n_out),
                                             nullptr,
                                             nullptr};
          if (packed && edgeattn::UsesS8Panels()) {
            args.w_panels = panels.data();
            args.w_column_sums = sums.data();
          }
          edgeattn::LinearS8(args);
          ASSERT_EQ(y, want) << "n_in " << n_in << " n_out " << n_out << " zero point "
                             << zero_point << " packed " << packed;
        }
      }
    }
}

// int16 projections: int64 accumulators with biases up to TFLite's 2^47
// limit, shifts -31..7, the 16-bit multiplier cut at both ends; the row
// kernel, and W's int8 panels where the target has vpdpbusd, each x split in
// two unsigned bytes (vnni_linear_s16-inl.h): 93 channels (a tile of 64
// and a 29-channel tail), 5 rows (a tile of 3 and 2), x and W at their
// extremes in the first rows and channels, and (packed only) depths of one
// whole split of 2048, one value past it and three splits with a tail.
TEST_P(FixedPointKernels, LinearS16AtTheEdgesOfItsRanges) {
  RandomStream random(4343);
  for (const int n_in : {1, 5, 64, 300, 2048, 2049, 4101}) {
    if (n_in > 300 && !edgeattn::UsesS8Panels()) continue;  // only the split has these edges
    const int rows = 5, n_out = 93;
    std::vector<int16_t> x(static_cast<size_t>(rows) * n_in);
    std::vector<int8_t> w(static_cast<size_t>(n_out) * n_in);
    for (int16_t& v : x) v = static_cast<int16_t>(Draw(&random, -32768, 32767));
    for (int8_t& v : w) v = static_cast<int8_t>(Draw(&random, -127, 127));
    for (int t = 0; t < n_in; ++t) {
      x[t] = -32768;
      x[static_cast<size_t>(n_in) + t] = 32767;
      w[t] = 127;
      w[static_cast<size_t>(n_in) + t] = -127;
      w[2 * static_cast<size_t>(n_in) + t] = -128;
    }
    std::vector<int64_t> bias(n_out);
    std::vector<int32_t> multiplier(n_out), shift(n_out);
    const int32_t multipliers[] = {0, 1 << 30, 0x7FFEFFFF, 0x7FFF0000, INT32_MAX};
    for (int c = 0; c < n_out; ++c) {
      const int64_t limit = (int64_t{1} << 47) - 1;
      bias[c] = c % 4 == 0 ? limit : (c % 4 == 1 ? -limit : Draw(&random, -(1 << 30), 1 << 30));
      multiplier[c] = multipliers[c % 5];
      shift[c] = -31 + (c * 38) / (n_out - 1);  // -31 .. 7
    }
    // Channels 0 to 2 at a small multiplier, so that their extreme sums are
    // seen through the requantisation instead of saturating it.
    for (int c = 0; c < 3; ++c) {
      bias[c] = 0;
      multiplier[c] = 1 << 30;
      shift[c] = -31;
    }
    tflite_ref::FullyConnectedParams ref{0, 0, multiplier,
                                         std::vector<int>(shift.begin(), shift.end())};
    const std::vector<int16_t> want = tflite_ref::FullyConnectedPerChannel(
        ref, x.data(), rows, n_in, w.data(), bias.data(), n_out);
    std::vector<int8_t> panels(edgeattn::S8PanelBytes(n_out, n_in));
    std::vector<int32_t> sums((n_out + 15) / 16 * 16);
    edgeattn::PackS8Panels(w.data(), static_cast<size_t>(n_in), n_out, n_in, panels.data(),
                           sums.data());
    for (bool packed : {false, true}) {
      std::vector<int16_t> y(static_cast<size_t>(rows) * n_out, 0x5555);
      edgeattn::LinearQArgs<int16_t> args{x.data(),
                                          static_cast<size_t>(n_in),
                                          rows,
                                          n_in,
                                          0,
                                          w.data(),
                                          bias.data(),
                                          multiplier.data(),
                                          shift.data(),
                                          n_out,
                                          0,
                                          y.data(),
                                          static_cast<size_t>(n_out),
                                          nullptr,
                                          nullptr};
      if (packed && edgeattn::UsesS8Panels()) {
        args.w_panels = reinterpret_cast<const uint8_t*>(panels.data());
        args.w_column_sums = sums.data();
      }
      edgeattn::LinearS16(args);
      ASSERT_EQ(y, want) << "n_in " << n_in << " packed " << packed;
    }
  }
}

// One attention head through the kernel against BATCH_MATMUL, SOFTMAX and
// BATCH_MATMUL of the reference, with score and output shifts across their
// range and zero points at both ends; causal and not, all keys valid or the
// last 16 padding (n_valid_keys 29: inside a 16-key block, crossed by the
// causal diagonal). Head widths: 20, one that leaves a depth tail (7), and
// one past what the Cortex-M4/M7 kernels widen on the stack (261), the last
// two at two shifts.
TEST_P(FixedPointKernels, AttendRowsS8MatchesTheReferenceOps) {
  RandomStream random(777);
  const int n = 45;
  for (const int d_k : {20, 7, 261})
    for (const int32_t score_shift : {-31, -12, -6, 0, 3, 30}) {
      if (d_k != 20 && score_shift != -6 && score_shift != 3) continue;
      for (const bool causal : {false, true}) {
        const int valid = score_shift == 3 ? 29 : n;
        for (const int32_t zero_point : {-128, 5, 127}) {
          std::vector<int8_t> q(static_cast<size_t>(n) * d_k), k(q.size()), v(q.size());
          for (int8_t& x : q) x = static_cast<int8_t>(Draw(&random, -128, 127));
          for (int8_t& x : k) x = static_cast<int8_t>(Draw(&random, -128, 127));
          for (int8_t& x : v) x = static_cast<int8_t>(Draw(&random, -128, 127));
          const tflite_ref::BatchMatMulParams scores_params{-zero_point, zero_point, -zero_point,
                                                            1518500250, score_shift};
          const std::vector<int8_t> scores =
              tflite_ref::BatchMatMul(scores_params, q.data(), n, d_k, k.data(), n);
          const tflite_ref::SoftmaxInt8Params softmax = tflite_ref::PrepareSoftmaxInt8(0.2f, 0.05f);
          std::vector<int8_t> probs(static_cast<size_t>(n) * n, -128);
          for (int i = 0; i < n; ++i) {
            const int visible = tflite_ref::VisibleKeysOf(causal, n, n, valid, i);
            tflite_ref::SoftmaxInt8Row(softmax, scores.data() + static_cast<size_t>(i) * n, visible,
                                       probs.data() + static_cast<size_t>(i) * n);
          }
          std::vector<int8_t> v_t(static_cast<size_t>(d_k) * n);
          for (int j = 0; j < n; ++j) {
            for (int t = 0; t < d_k; ++t)
              v_t[static_cast<size_t>(t) * n + j] = v[static_cast<size_t>(j) * d_k + t];
          }
          const tflite_ref::BatchMatMulParams context_params{128, -zero_point, zero_point,
                                                             1200000000, -9};
          const std::vector<int8_t> want =
              tflite_ref::BatchMatMul(context_params, probs.data(), n, n, v_t.data(), d_k);

          edgeattn::SoftmaxS8Table table;
          edgeattn::BuildSoftmaxS8Table(softmax.input_multiplier, softmax.input_left_shift,
                                        softmax.diff_min, &table);
          std::vector<uint8_t> k_panels(edgeattn::S8PanelBytes(n, d_k) + 64);
          std::vector<int8_t> v_panels(edgeattn::S8PanelBytes(d_k, n) + 64);
          std::vector<int32_t> k_terms((n + 15) / 16 * 16);
          edgeattn::PackS8PanelsPlus128(k.data(), d_k, n, d_k, k_panels.data(), k_terms.data());
          for (int32_t& term : k_terms) {
            term = static_cast<int32_t>(static_cast<uint32_t>(-zero_point) *
                                        static_cast<uint32_t>(term));
          }
          edgeattn::PackS8PanelsTransposed(v.data(), d_k, d_k, n, v_panels.data());
          for (const bool packed : {false, true}) {
            std::vector<int8_t> out(static_cast<size_t>(n) * d_k, 0x55), got_probs(probs.size());
            edgeattn::AttentionQArgs<int8_t> a =
                S8HeadArgs(scores_params, &table, context_params, n, n, d_k, d_k, causal);
            a.q = q.data();
            a.ld_q = d_k;
            a.k = k.data();
            a.ld_k = d_k;
            a.v_transposed = v_t.data();
            a.ld_vt = n;
            a.out = out.data();
            a.ld_out = d_k;
            a.probs = got_probs.data();
            a.ld_probs = n;
            a.n_valid_keys = valid;
            if (packed && edgeattn::UsesS8Panels()) {
              a.k_panels = k_panels.data();
              a.k_column_sums = k_terms.data();
              a.v_panels = v_panels.data();
              a.v_panel_stride = edgeattn::S8PanelBytes(16, n);
            }
            std::vector<uint8_t> scratch(edgeattn::QuantScratch(n).bytes + 64);
            edgeattn::AttendRowsS8(a, 0, n, scratch.data());
            ASSERT_EQ(got_probs, probs)
                << "d_k " << d_k << " shift " << score_shift << " causal " << causal << " valid "
                << valid << " zero point " << zero_point << " packed " << packed;
            ASSERT_EQ(out, want) << "d_k " << d_k << " shift " << score_shift << " causal "
                                 << causal << " zero point " << zero_point << " packed " << packed;
          }
        }
      }
    }
}

// The int16 softmax row at every input shift TFLite allows, multipliers from
// 0 to INT32_MAX, rows spanning the whole int16 range (differences up to
// 65535, where a shift past 15 saturates) and rows of equal scores, of one,
// 37 and 1001 keys, also in place (probs = scores, as the attention rows call
// it); with the built-in tables (NULL, against TFLite's golden ones) and a
// device's.
TEST_P(FixedPointKernels, SoftmaxS16RowAtEveryShift) {
  RandomStream random(4545);
  const int32_t multipliers[] = {0, 1, 1 << 30, 1518500250, INT32_MAX};
  for (const bool device : {false, true}) {
    const int16_t* exp_lut = device ? DeviceExpLut() : TfliteExpLut();
    const int16_t* reciprocal_lut = device ? DeviceReciprocalLut() : TfliteReciprocalLut();
    edgeattn::SoftmaxS16Tables tables;
    edgeattn::BuildSoftmaxS16Tables(device ? exp_lut : nullptr, device ? reciprocal_lut : nullptr,
                                    &tables);
    for (int shift = -31; shift <= 30; ++shift) {
      for (const int32_t multiplier : multipliers) {
        for (const int span : {0, 300, 65535}) {
          const int len = span == 300 ? 1001 : shift % 7 == 0 ? 1 : 37;
          std::vector<int16_t> scores(len);
          for (int16_t& x : scores) x = static_cast<int16_t>(Draw(&random, -32768, -32768 + span));
          scores[len / 2] = static_cast<int16_t>(-32768 + span);
          const tflite_ref::SoftmaxInt16Params params{multiplier, shift, exp_lut, reciprocal_lut};
          std::vector<int16_t> want(len), got(len), exp_scratch(len);
          tflite_ref::SoftmaxInt16Row(params, scores.data(), len, want.data());
          edgeattn::SoftmaxS16Row(tables, multiplier, shift, scores.data(), len, exp_scratch.data(),
                                  got.data());
          ASSERT_EQ(got, want) << "shift " << shift << " multiplier " << multiplier << " span "
                               << span << " len " << len << (device ? " device tables" : "");
          edgeattn::SoftmaxS16Row(tables, multiplier, shift, scores.data(), len, exp_scratch.data(),
                                  scores.data());
          ASSERT_EQ(scores, want) << "in place, shift " << shift << " multiplier " << multiplier;
        }
      }
    }
  }
}

// One int16 head through the kernel against BATCH_MATMUL, SOFTMAX and
// BATCH_MATMUL of the reference, full-range q, k and v (products near 2^30),
// with rows stored word aligned and not (the Cortex-M4/M7 loop reads words
// in pairs and falls back otherwise) and depths with every remainder mod 8;
// the misaligned runs pad the last 16 keys (n_valid_keys 29).
TEST_P(FixedPointKernels, AttendRowsS16MatchesTheReferenceOps) {
  RandomStream random(778);
  const int n = 45;
  const int16_t* exp_lut = TfliteExpLut();
  const int16_t* reciprocal_lut = TfliteReciprocalLut();
  for (const int d_k : {16, 20, 7, 33}) {
    for (const bool causal : {false, true}) {
      for (const int misaligned : {0, 1}) {
        const int valid = misaligned == 1 ? 29 : n;  // padding: the last 16 keys
        const size_t size = static_cast<size_t>(n) * d_k;
        std::vector<int16_t> q_store(size + 1), k_store(size + 1), vt_store(size + 1);
        int16_t* q = q_store.data() + misaligned;
        int16_t* k = k_store.data() + misaligned;
        int16_t* v_t = vt_store.data() + misaligned;
        for (size_t i = 0; i < size; ++i) {
          q[i] = static_cast<int16_t>(Draw(&random, -32768, 32767));
          k[i] = static_cast<int16_t>(Draw(&random, -32768, 32767));
          v_t[i] = static_cast<int16_t>(Draw(&random, -32768, 32767));
        }
        const tflite_ref::BatchMatMulParams scores_params{0, 0, 0, 1518500250, -20};
        const std::vector<int16_t> scores = tflite_ref::BatchMatMul(scores_params, q, n, d_k, k, n);
        const tflite_ref::SoftmaxInt16Params softmax =
            tflite_ref::PrepareSoftmaxInt16(0.25f, 0.01f, exp_lut, reciprocal_lut);
        std::vector<int16_t> probs(static_cast<size_t>(n) * n, 0);
        for (int i = 0; i < n; ++i) {
          tflite_ref::SoftmaxInt16Row(softmax, scores.data() + static_cast<size_t>(i) * n,
                                      tflite_ref::VisibleKeysOf(causal, n, n, valid, i),
                                      probs.data() + static_cast<size_t>(i) * n);
        }
        const tflite_ref::BatchMatMulParams context_params{0, 0, 0, 1200000000, -14};
        const std::vector<int16_t> want =
            tflite_ref::BatchMatMul(context_params, probs.data(), n, n, v_t, d_k);

        std::vector<int16_t> out(size, 0x5555), got_probs(probs.size());
        edgeattn::SoftmaxS16Tables tables;
        edgeattn::AttentionQArgs<int16_t> a =
            S16HeadArgs(scores_params, softmax, context_params, n, n, d_k, d_k, causal, &tables);
        a.n_valid_keys = valid;
        a.q = q;
        a.ld_q = d_k;
        a.k = k;
        a.ld_k = d_k;
        a.v_transposed = v_t;
        a.ld_vt = n;
        a.out = out.data();
        a.ld_out = d_k;
        a.probs = got_probs.data();
        a.ld_probs = n;
        std::vector<uint8_t> scratch(edgeattn::QuantScratch(n, EA_DTYPE_INT16).bytes + 64);
        edgeattn::AttendRowsS16(a, 0, n, scratch.data());
        ASSERT_EQ(got_probs, probs) << "d_k " << d_k << " causal " << causal << " valid " << valid
                                    << " misaligned " << misaligned;
        ASSERT_EQ(out, want) << "d_k " << d_k << " causal " << causal << " misaligned "
                             << misaligned;
      }
    }
  }
}

EA_INSTANTIATE_PER_TARGET(FixedPointKernels);

}  // namespace
}  // namespace edgeattn_test
