// The fixed-point row kernels (AttendRowsS8 / AttendRowsS16) with a causal
// sliding window, on every SIMD target, row-major and packed (AVX512-VNNI)
// alike: each query row's SOFTMAX runs over the keys
// [FirstVisibleKeyOf, VisibleKeysOf) of the reference, and BATCH_MATMUL(P, V)
// sees probability 0 elsewhere. Shapes: a step of 7 queries over 45 keys
// (the decoder's, bottom-right aligned) and 45 over 45; windows of one key,
// inside and across the kernels' 4-, 6- and 16-key blocks, and wider than the
// keys (no effect); with padding that ends some rows before their window
// starts (empty rows). And the keys in a ring (key_rotation, a decoder's
// window cache): stored rotated, they give the same rows.
#include <gtest/gtest.h>
#include <stdint.h>

#include <string>
#include <type_traits>
#include <vector>

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

struct WindowShape {
  int n_q, n_kv, d_k, window, valid;
  std::string Describe() const {
    return "n_q " + std::to_string(n_q) + " n_kv " + std::to_string(n_kv) + " d_k " +
           std::to_string(d_k) + " window " + std::to_string(window) + " valid " +
           std::to_string(valid);
  }
};

std::vector<WindowShape> WindowShapes(const std::vector<int>& depths) {
  std::vector<WindowShape> shapes;
  for (const int n_q : {7, 45})
    for (const int d_k : depths)
      for (const int window : {1, 4, 6, 16, 17, 44, 100})
        for (const int valid : {45, 29}) shapes.push_back({n_q, 45, d_k, window, valid});
  // Past the 64 keys of the AVX512-VNNI score tile: runs that start, end
  // and wrap in a later tile.
  for (const int window : {17, 70, 127}) shapes.push_back({7, 130, depths[0], window, 130});
  return shapes;
}

// The reference's probabilities of the causal chain with the shape's window:
// each row's softmax over its keys, the zero probability (`zero`) elsewhere.
template <typename T, typename SoftmaxParams>
std::vector<T> WindowedProbs(const SoftmaxParams& softmax, const std::vector<T>& scores,
                             const WindowShape& s, T zero) {
  std::vector<T> probs(static_cast<size_t>(s.n_q) * s.n_kv, zero);
  for (int i = 0; i < s.n_q; ++i) {
    const int visible = tflite_ref::VisibleKeysOf(true, s.n_q, s.n_kv, s.valid, i);
    const int first = tflite_ref::FirstVisibleKeyOf(true, s.window, s.n_q, s.n_kv, i);
    if (visible <= first) continue;
    const size_t at = static_cast<size_t>(i) * s.n_kv + static_cast<size_t>(first);
    if constexpr (std::is_same_v<T, int8_t>) {
      tflite_ref::SoftmaxInt8Row(softmax, scores.data() + at, visible - first, probs.data() + at);
    } else {
      tflite_ref::SoftmaxInt16Row(softmax, scores.data() + at, visible - first, probs.data() + at);
    }
  }
  return probs;
}

// The kept scores are those of each row's window, and nothing else is written.
template <typename T>
void ExpectScoresOfTheWindowOnly(const std::vector<T>& got, const std::vector<T>& scores,
                                 const WindowShape& s, T untouched) {
  for (int i = 0; i < s.n_q; ++i) {
    const int visible = tflite_ref::VisibleKeysOf(true, s.n_q, s.n_kv, s.valid, i);
    const int first = tflite_ref::FirstVisibleKeyOf(true, s.window, s.n_q, s.n_kv, i);
    for (int j = 0; j < s.n_kv; ++j) {
      const size_t at = static_cast<size_t>(i) * s.n_kv + static_cast<size_t>(j);
      ASSERT_EQ(got[at], j >= first && j < visible ? scores[at] : untouched)
          << s.Describe() << " row " << i << " key " << j;
    }
  }
}

template <typename T>
std::vector<T> Transpose(const std::vector<T>& rows, int n_rows, int n_cols) {
  std::vector<T> t(rows.size());
  for (int r = 0; r < n_rows; ++r)
    for (int c = 0; c < n_cols; ++c)
      t[static_cast<size_t>(c) * n_rows + r] = rows[static_cast<size_t>(r) * n_cols + c];
  return t;
}

// Logical key l of a [n_kv, width] matrix stored at row (l + rotation) % n_kv.
template <typename T>
std::vector<T> RingRows(const std::vector<T>& rows, int n_kv, int width, int rotation) {
  std::vector<T> stored(rows.size());
  for (int l = 0; l < n_kv; ++l) {
    const size_t to = static_cast<size_t>((l + rotation) % n_kv) * width;
    for (int t = 0; t < width; ++t) stored[to + t] = rows[static_cast<size_t>(l) * width + t];
  }
  return stored;
}

// Per-key values of [n_q, n_kv] rows back from where a ring stores their
// keys to the keys' order.
template <typename T>
std::vector<T> KeysInOrder(const std::vector<T>& stored, int n_q, int n_kv, int rotation) {
  std::vector<T> ordered(stored.size());
  for (int i = 0; i < n_q; ++i)
    for (int l = 0; l < n_kv; ++l) {
      ordered[static_cast<size_t>(i) * n_kv + l] =
          stored[static_cast<size_t>(i) * n_kv + (l + rotation) % n_kv];
    }
  return ordered;
}

// 0, and where there is no padding (a ring has none) rotations that wrap
// every window.
std::vector<int> Rotations(const WindowShape& s) {
  if (s.valid != s.n_kv) return {0};
  return {0, 1, 13, s.n_kv / 2 + 3, s.n_kv - 1};
}

template <typename T>
std::vector<T> RandomCodes(RandomStream* random, size_t count) {
  std::vector<T> codes(count);
  constexpr int kMin = std::is_same_v<T, int8_t> ? -128 : -32768;
  constexpr int kMax = std::is_same_v<T, int8_t> ? 127 : 32767;
  for (T& x : codes) x = static_cast<T>(Draw(random, kMin, kMax));
  return codes;
}

// What one kernel call gives back, keys in the order the ring stores them.
template <typename T>
struct RowsOut {
  RowsOut(const WindowShape& s, T untouched)
      : out(static_cast<size_t>(s.n_q) * s.d_k, static_cast<T>(0x55)),
        probs(static_cast<size_t>(s.n_q) * s.n_kv),
        scores(probs.size(), untouched) {}
  std::vector<T> out, probs, scores;
};

// The case's rows, window and ring, and where the kernel writes: the
// arguments both dtypes share beyond their head's (quant_head_args.h).
template <typename T>
void AttachRows(const WindowShape& s, int rotation, const std::vector<T>& q, RowsOut<T>* rows,
                edgeattn::AttentionQArgs<T>* a) {
  a->n_valid_keys = s.valid;
  a->window = s.window;
  a->key_rotation = rotation;
  a->q = q.data();
  a->ld_q = static_cast<size_t>(s.d_k);
  a->out = rows->out.data();
  a->ld_out = static_cast<size_t>(s.d_k);
  a->probs = rows->probs.data();
  a->ld_probs = static_cast<size_t>(s.n_kv);
  a->scores = rows->scores.data();
  a->ld_scores = static_cast<size_t>(s.n_kv);
}

// The kernel's rows against the reference's (keys back in their order).
template <typename T>
void ExpectRows(const RowsOut<T>& got, const std::vector<T>& want_out,
                const std::vector<T>& want_probs, const std::vector<T>& scores,
                const WindowShape& s, int rotation, T untouched, const std::string& where) {
  ASSERT_EQ(KeysInOrder(got.probs, s.n_q, s.n_kv, rotation), want_probs) << where;
  ASSERT_EQ(got.out, want_out) << where;
  ExpectScoresOfTheWindowOnly<T>(KeysInOrder(got.scores, s.n_q, s.n_kv, rotation), scores, s,
                                 untouched);
}

class AttendRowsWindow : public PerTargetTest {};

TEST_P(AttendRowsWindow, S8RowsSeeTheirWindowOnly) {
  RandomStream random(991);
  const int32_t zero_point = 5;
  const tflite_ref::SoftmaxInt8Params softmax = tflite_ref::PrepareSoftmaxInt8(0.2f, 0.05f);
  edgeattn::SoftmaxS8Table table;
  edgeattn::BuildSoftmaxS8Table(softmax.input_multiplier, softmax.input_left_shift,
                                softmax.diff_min, &table);
  const tflite_ref::BatchMatMulParams scores_params{-zero_point, zero_point, -zero_point,
                                                    1518500250, -6};
  const tflite_ref::BatchMatMulParams context_params{128, -zero_point, zero_point, 1200000000, -9};
  for (const WindowShape& s : WindowShapes({20, 7})) {
    const std::vector<int8_t> q = RandomCodes<int8_t>(&random, static_cast<size_t>(s.n_q) * s.d_k);
    const std::vector<int8_t> k = RandomCodes<int8_t>(&random, static_cast<size_t>(s.n_kv) * s.d_k);
    const std::vector<int8_t> v = RandomCodes<int8_t>(&random, static_cast<size_t>(s.n_kv) * s.d_k);
    const std::vector<int8_t> scores =
        tflite_ref::BatchMatMul(scores_params, q.data(), s.n_q, s.d_k, k.data(), s.n_kv);
    const std::vector<int8_t> probs = WindowedProbs<int8_t>(softmax, scores, s, -128);
    const std::vector<int8_t> want = tflite_ref::BatchMatMul(
        context_params, probs.data(), s.n_q, s.n_kv, Transpose(v, s.n_kv, s.d_k).data(), s.d_k);
    for (const int rotation : Rotations(s)) {
      const std::vector<int8_t> k_stored = RingRows(k, s.n_kv, s.d_k, rotation);
      const std::vector<int8_t> v_stored = RingRows(v, s.n_kv, s.d_k, rotation);
      const std::vector<int8_t> v_t_stored = Transpose(v_stored, s.n_kv, s.d_k);
      std::vector<uint8_t> k_panels(edgeattn::S8PanelBytes(s.n_kv, s.d_k) + 64);
      std::vector<int8_t> v_panels(edgeattn::S8PanelBytes(s.d_k, s.n_kv) + 64);
      std::vector<int32_t> k_terms((s.n_kv + 15) / 16 * 16);
      edgeattn::PackS8PanelsPlus128(k_stored.data(), s.d_k, s.n_kv, s.d_k, k_panels.data(),
                                    k_terms.data());
      for (int32_t& term : k_terms) {
        term =
            static_cast<int32_t>(static_cast<uint32_t>(-zero_point) * static_cast<uint32_t>(term));
      }
      edgeattn::PackS8PanelsTransposed(v_stored.data(), s.d_k, s.d_k, s.n_kv, v_panels.data());
      for (const bool packed : {false, true}) {
        if (packed && !edgeattn::UsesS8Panels()) continue;  // the target reads K and V row-major
        RowsOut<int8_t> got(s, 0x33);
        edgeattn::AttentionQArgs<int8_t> a =
            S8HeadArgs(scores_params, &table, context_params, s.n_q, s.n_kv, s.d_k, s.d_k, true);
        AttachRows(s, rotation, q, &got, &a);
        if (packed) {
          a.k_panels = k_panels.data();
          a.k_column_sums = k_terms.data();
          a.v_panels = v_panels.data();
          a.v_panel_stride = edgeattn::S8PanelBytes(16, s.n_kv);
        } else {
          a.k = k_stored.data();
          a.ld_k = static_cast<size_t>(s.d_k);
          a.v_transposed = v_t_stored.data();
          a.ld_vt = static_cast<size_t>(s.n_kv);
        }
        std::vector<uint8_t> scratch(edgeattn::QuantScratch(s.n_kv).bytes + 64);
        edgeattn::AttendRowsS8(a, 0, s.n_q, scratch.data());
        ExpectRows<int8_t>(got, want, probs, scores, s, rotation, 0x33,
                           s.Describe() + " rotation " + std::to_string(rotation) + " packed " +
                               std::to_string(packed));
      }
    }
  }
}

TEST_P(AttendRowsWindow, S16RowsSeeTheirWindowOnly) {
  RandomStream random(992);
  const tflite_ref::BatchMatMulParams scores_params{0, 0, 0, 1518500250, -20};
  const tflite_ref::SoftmaxInt16Params softmax =
      tflite_ref::PrepareSoftmaxInt16(0.25f, 0.01f, TfliteExpLut(), TfliteReciprocalLut());
  const tflite_ref::BatchMatMulParams context_params{0, 0, 0, 1200000000, -14};
  // 16: the packed path's row groups (K's high bytes); 33: its one-row kernels.
  for (const WindowShape& s : WindowShapes({16, 33})) {
    const std::vector<int16_t> q =
        RandomCodes<int16_t>(&random, static_cast<size_t>(s.n_q) * s.d_k);
    const std::vector<int16_t> k =
        RandomCodes<int16_t>(&random, static_cast<size_t>(s.n_kv) * s.d_k);
    const std::vector<int16_t> v =
        RandomCodes<int16_t>(&random, static_cast<size_t>(s.n_kv) * s.d_k);
    const std::vector<int16_t> scores =
        tflite_ref::BatchMatMul(scores_params, q.data(), s.n_q, s.d_k, k.data(), s.n_kv);
    const std::vector<int16_t> probs = WindowedProbs<int16_t>(softmax, scores, s, 0);
    const std::vector<int16_t> want = tflite_ref::BatchMatMul(
        context_params, probs.data(), s.n_q, s.n_kv, Transpose(v, s.n_kv, s.d_k).data(), s.d_k);
    for (const int rotation : Rotations(s)) {
      const std::vector<int16_t> k_stored = RingRows(k, s.n_kv, s.d_k, rotation);
      const std::vector<int16_t> v_stored = RingRows(v, s.n_kv, s.d_k, rotation);
      const std::vector<int16_t> v_t_stored = Transpose(v_stored, s.n_kv, s.d_k);
      std::vector<int16_t> k_pairs(edgeattn::S16PanelValues(s.n_kv, s.d_k));
      std::vector<int16_t> v_pairs(edgeattn::S16PanelValues(s.d_k, s.n_kv));
      std::vector<uint8_t> k_high_bytes(edgeattn::S8PanelBytes(s.n_kv, s.d_k));  // its layout
      edgeattn::PackS16Panels(k_stored.data(), static_cast<size_t>(s.d_k), s.n_kv, s.d_k,
                              k_pairs.data());
      edgeattn::PackS16HighBytesPlus128(k_stored.data(), static_cast<size_t>(s.d_k), s.n_kv, s.d_k,
                                        k_high_bytes.data());
      edgeattn::PackS16PanelsTransposed(v_stored.data(), static_cast<size_t>(s.d_k), s.d_k, s.n_kv,
                                        v_pairs.data());
      for (const bool packed : {false, true}) {
        if (packed && !edgeattn::UsesS8Panels()) continue;  // the target reads K and V row-major
        RowsOut<int16_t> got(s, 0x3333);
        edgeattn::SoftmaxS16Tables tables;
        edgeattn::AttentionQArgs<int16_t> a = S16HeadArgs(
            scores_params, softmax, context_params, s.n_q, s.n_kv, s.d_k, s.d_k, true, &tables);
        AttachRows(s, rotation, q, &got, &a);
        if (packed) {
          a.k_pairs = k_pairs.data();
          a.k_high_bytes = s.d_k <= edgeattn::kS16HighByteMaxDepth ? k_high_bytes.data() : nullptr;
          a.v_pairs = v_pairs.data();
          a.v_panel_stride = edgeattn::S16PanelValues(16, s.n_kv);
        } else {
          a.k = k_stored.data();
          a.ld_k = static_cast<size_t>(s.d_k);
          a.v_transposed = v_t_stored.data();
          a.ld_vt = static_cast<size_t>(s.n_kv);
        }
        std::vector<uint8_t> scratch(edgeattn::QuantScratch(s.n_kv, EA_DTYPE_INT16).bytes + 64);
        edgeattn::AttendRowsS16(a, 0, s.n_q, scratch.data());
        ExpectRows<int16_t>(got, want, probs, scores, s, rotation, 0x3333,
                            s.Describe() + " rotation " + std::to_string(rotation) + " packed " +
                                std::to_string(packed));
      }
    }
  }
}

EA_INSTANTIATE_PER_TARGET(AttendRowsWindow);

}  // namespace
}  // namespace edgeattn_test
