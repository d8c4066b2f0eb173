// TensorFlow Lite Micro's reference kernels as the outside oracle of the
// fixed-point chain. tests/reference/tflite_chain_reference is our own reading of
// TFLite's integer formulas; the golden tensors (tests/data/tflite/, compiled in)
// come from TFLM itself. Here the reading is proved: its Prepare reproduces every
// integer TFLM's Prepare derived, and its kernels every intermediate tensor, bit
// for bit, in int8 and int16x8. The library's fixed-point path is then held to
// the reference (and so to TFLite) on every target.
//
// Boards with little code memory (EDGEATTN_TEST_SMALL_MEMORY) embed a subset of
// the data; the cases left out are skipped, with the reason.
#include <gtest/gtest.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "data/tflite/golden_cases.h"
#include "reference/tflite_chain_reference.h"

namespace {

using tflite_golden::Blob;
using tflite_golden::GoldenCase;
using tflite_golden::kGoldenCaseCount;
using tflite_golden::kGoldenCases;

float FloatFromBits(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

uint32_t BitsOf(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

bool IsInt8(const GoldenCase& c) { return c.chain == tflite_golden::Chain::kInt8; }

bool Embedded(const Blob& blob) { return blob.data != nullptr; }

template <typename T>
const T* As(const Blob& blob) {
  return static_cast<const T*>(blob.data);
}

tflite_ref::TensorQuantization Quant(tflite_golden::Quantization q) {
  return {FloatFromBits(q.scale_bits), q.zero_point};
}

std::vector<float> Floats(const uint32_t* bits, int count) {
  std::vector<float> values(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) values[static_cast<size_t>(i)] = FloatFromBits(bits[i]);
  return values;
}

// Everything a full chain run needs besides the scores/probs: inputs, weights,
// biases and the per-channel parameters.
bool HasChainInputs(const GoldenCase& c) {
  const tflite_golden::Blobs& b = c.blobs;
  return Embedded(b.x_emb) && Embedded(b.pe) && Embedded(b.w_q) && Embedded(b.w_k) &&
         Embedded(b.w_v) && Embedded(b.w_o) && Embedded(b.b_q) && Embedded(b.b_k) &&
         Embedded(b.b_v) && Embedded(b.b_o) && c.ops.fc_q.multiplier != nullptr;
}

// Why a case is skipped where its tensors are not compiled in.
std::string NotEmbedded(const GoldenCase& c) {
  return std::string(c.name) +
         ": not embedded in this build (EDGEATTN_TEST_SMALL_MEMORY keeps the subset listed in "
         "tests/data/tflite/README.md)";
}

// --- the table as reference parameters --------------------------------------------

tflite_ref::AddParams ToReference(const tflite_golden::AddOp& op) {
  return {op.left_shift,        op.input1_offset,     op.input1_multiplier, op.input1_shift,
          op.input2_offset,     op.input2_multiplier, op.input2_shift,      op.output_offset,
          op.output_multiplier, op.output_shift};
}

tflite_ref::FullyConnectedParams ToReference(const tflite_golden::FullyConnectedOp& op,
                                             int channels) {
  tflite_ref::FullyConnectedParams p;
  p.input_offset = op.input_offset;
  p.output_offset = op.output_offset;
  p.multiplier.assign(op.multiplier, op.multiplier + channels);
  p.shift.assign(op.shift, op.shift + channels);
  return p;
}

tflite_ref::BatchMatMulParams ToReference(const tflite_golden::BatchMatMulOp& op) {
  return {op.input_offset, op.weights_offset, op.output_offset, op.output_multiplier,
          op.output_shift};
}

const int16_t* ExpLut() { return As<int16_t>(tflite_golden::kSoftmaxExpLut); }
const int16_t* OneOverOnePlusXLut() {
  return As<int16_t>(tflite_golden::kSoftmaxOneOverOnePlusXLut);
}

template <typename SoftmaxParamsT>
void FillLinearOps(const GoldenCase& c, tflite_ref::ChainParams<SoftmaxParamsT>* p) {
  p->add = ToReference(c.ops.add);
  p->fc_q = ToReference(c.ops.fc_q, c.d_model);
  p->fc_k = ToReference(c.ops.fc_k, c.d_model);
  p->fc_v = ToReference(c.ops.fc_v, c.d_model);
  p->bmm_scores = ToReference(c.ops.bmm_scores);
  p->bmm_context = ToReference(c.ops.bmm_context);
  p->fc_o = ToReference(c.ops.fc_o, c.d_model);
}

tflite_ref::ChainParamsInt8 ManifestParamsInt8(const GoldenCase& c) {
  tflite_ref::ChainParamsInt8 p;
  FillLinearOps(c, &p);
  p.softmax = {c.ops.softmax.input_multiplier, c.ops.softmax.input_left_shift,
               c.ops.softmax.diff_min};
  return p;
}

tflite_ref::ChainParamsInt16 ManifestParamsInt16(const GoldenCase& c) {
  tflite_ref::ChainParamsInt16 p;
  FillLinearOps(c, &p);
  p.softmax = {c.ops.softmax.input_multiplier, c.ops.softmax.input_left_shift, ExpLut(),
               OneOverOnePlusXLut()};
  return p;
}

template <typename Activation, typename Bias>
tflite_ref::ChainInputs<Activation, Bias> Inputs(const GoldenCase& c) {
  const tflite_golden::Blobs& b = c.blobs;
  return {As<Activation>(b.x_emb), As<Activation>(b.pe), As<int8_t>(b.w_q), As<int8_t>(b.w_k),
          As<int8_t>(b.w_v),       As<int8_t>(b.w_o),    As<Bias>(b.b_q),   As<Bias>(b.b_k),
          As<Bias>(b.b_v),         As<Bias>(b.b_o)};
}

tflite_ref::ChainShape Shape(const GoldenCase& c) {
  return {c.n, c.d_model, c.heads, c.causal, c.n, c.heads, 0};
}

// --- comparison --------------------------------------------------------------------

// Bit-exact equality with a golden blob; one failure per tensor, naming the first
// differing element. Returns false (and checks nothing) when the blob is absent.
template <typename T>
bool ExpectSameAsGolden(const std::string& what, const std::vector<T>& got, const Blob& want,
                        int cols) {
  if (!Embedded(want)) return false;
  EXPECT_EQ(got.size() * sizeof(T), want.bytes) << what;
  if (got.size() * sizeof(T) != want.bytes) return true;
  const T* expected = As<T>(want);
  size_t mismatches = 0;
  size_t first = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != expected[i] && mismatches++ == 0) first = i;
  }
  EXPECT_EQ(mismatches, 0u) << what << ": " << mismatches << " of " << got.size()
                            << " differ; first at [" << first / cols << ", " << first % cols
                            << "]: got " << int64_t{got[first]} << ", TFLite "
                            << int64_t{expected[first]};
  return true;
}

class TfliteGoldenCaseTest : public ::testing::TestWithParam<int> {
 protected:
  const GoldenCase& golden() const { return kGoldenCases[GetParam()]; }
};

// --- the embedded data itself ------------------------------------------------------

TEST_P(TfliteGoldenCaseTest, BlobsHaveTheirTensorSizes) {
  const GoldenCase& c = golden();
  const size_t act = IsInt8(c) ? 1 : 2;
  const size_t bias = IsInt8(c) ? 4 : 8;
  const size_t nd = static_cast<size_t>(c.n) * c.d_model;
  const size_t dd = static_cast<size_t>(c.d_model) * c.d_model;
  const size_t nn = static_cast<size_t>(c.n) * c.n;
  const tflite_golden::Blobs& b = c.blobs;
  struct Expected {
    const char* name;
    const Blob& blob;
    size_t bytes;
  };
  std::vector<Expected> expected = {{"x_emb", b.x_emb, nd * act},
                                    {"pe", b.pe, nd * act},
                                    {"W_Q", b.w_q, dd},
                                    {"W_K", b.w_k, dd},
                                    {"W_V", b.w_v, dd},
                                    {"W_O", b.w_o, dd},
                                    {"b_Q", b.b_q, c.d_model * bias},
                                    {"b_K", b.b_k, c.d_model * bias},
                                    {"b_V", b.b_v, c.d_model * bias},
                                    {"b_O", b.b_o, c.d_model * bias},
                                    {"x", b.x, nd * act},
                                    {"q", b.q, nd * act},
                                    {"k", b.k, nd * act},
                                    {"v", b.v, nd * act},
                                    {"o", b.o, nd * act},
                                    {"y", b.y, nd * act},
                                    {"y_ref_f32", b.y_ref_f32, nd * 4}};
  for (int h = 0; h < 4; ++h) {
    expected.push_back({"scores_h", b.scores[h], nn * act});
    expected.push_back({"probs_h", b.probs[h], nn * act});
  }
  int embedded = 0;
  for (const Expected& e : expected) {
    if (!Embedded(e.blob)) continue;
    ++embedded;
    const uintptr_t start = reinterpret_cast<uintptr_t>(e.blob.data);
    const uintptr_t end = reinterpret_cast<uintptr_t>(e.blob.end);
    EXPECT_EQ(e.blob.bytes, e.bytes) << e.name;
    EXPECT_EQ(end - start, e.blob.bytes) << e.name << ": the .incbin file and the table disagree";
    EXPECT_EQ(start % 16, 0u) << e.name;
  }
  for (int h = c.heads; h < 4; ++h) {
    EXPECT_FALSE(Embedded(b.scores[h]) || Embedded(b.probs[h])) << "head " << h;
  }
  if (embedded == 0) GTEST_SKIP() << NotEmbedded(c);
}

TEST(TfliteGoldenData, SoftmaxLutsAreEmbeddedWhole) {
  for (const Blob* lut :
       {&tflite_golden::kSoftmaxExpLut, &tflite_golden::kSoftmaxOneOverOnePlusXLut}) {
    ASSERT_TRUE(Embedded(*lut));
    EXPECT_EQ(lut->bytes, 513u * 2);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(lut->end) - reinterpret_cast<uintptr_t>(lut->data),
              lut->bytes);
  }
}

// --- Prepare -------------------------------------------------------------------------

TEST_P(TfliteGoldenCaseTest, PrepareReproducesEveryManifestInteger) {
  const GoldenCase& c = golden();
  if (c.channel_scales.w_q == nullptr) {
    GTEST_SKIP() << NotEmbedded(c);
  }
  const int d = c.d_model;
  EXPECT_EQ(c.beta_bits, BitsOf(1.0f / std::sqrt(static_cast<float>(c.d_k))));

  // Bias scales are the float32 products s_in * s_w[c].
  struct BiasCheck {
    const uint32_t* bias_bits;
    const uint32_t* weight_bits;
    tflite_golden::Quantization input;
  };
  for (const BiasCheck& b : {BiasCheck{c.channel_scales.b_q, c.channel_scales.w_q, c.quant.x},
                             BiasCheck{c.channel_scales.b_k, c.channel_scales.w_k, c.quant.x},
                             BiasCheck{c.channel_scales.b_v, c.channel_scales.w_v, c.quant.x},
                             BiasCheck{c.channel_scales.b_o, c.channel_scales.w_o, c.quant.o}}) {
    for (int ch = 0; ch < d; ++ch) {
      EXPECT_EQ(b.bias_bits[ch],
                BitsOf(FloatFromBits(b.input.scale_bits) * FloatFromBits(b.weight_bits[ch])));
    }
  }

  const std::vector<float> w_q = Floats(c.channel_scales.w_q, d);
  const std::vector<float> w_k = Floats(c.channel_scales.w_k, d);
  const std::vector<float> w_v = Floats(c.channel_scales.w_v, d);
  const std::vector<float> w_o = Floats(c.channel_scales.w_o, d);
  const tflite_golden::ActivationQuantization& q = c.quant;
  tflite_ref::ChainQuantization quantization{
      Quant(q.x_emb), Quant(q.pe),     Quant(q.x),     Quant(q.q), Quant(q.k),
      Quant(q.v),     Quant(q.scores), Quant(q.probs), Quant(q.o), Quant(q.y),
      w_q.data(),     w_k.data(),      w_v.data(),     w_o.data(), FloatFromBits(c.beta_bits)};

  const int32_t act_min = IsInt8(c) ? -128 : -32768;
  const int32_t act_max = IsInt8(c) ? 127 : 32767;
  // The fixed quantization of the probabilities.
  EXPECT_EQ(q.probs.scale_bits, BitsOf(IsInt8(c) ? 1.0f / 256 : 1.0f / 32768));
  EXPECT_EQ(q.probs.zero_point, IsInt8(c) ? -128 : 0);

  const tflite_golden::AddOp& add = c.ops.add;
  const tflite_ref::AddParams add_ref = tflite_ref::PrepareAdd(quantization.x_emb, quantization.pe,
                                                               quantization.x, IsInt8(c) ? 20 : 15);
  EXPECT_EQ(add_ref.left_shift, add.left_shift);
  EXPECT_EQ(add_ref.input1_offset, add.input1_offset);
  EXPECT_EQ(add_ref.input1_multiplier, add.input1_multiplier);
  EXPECT_EQ(add_ref.input1_shift, add.input1_shift);
  EXPECT_EQ(add_ref.input2_offset, add.input2_offset);
  EXPECT_EQ(add_ref.input2_multiplier, add.input2_multiplier);
  EXPECT_EQ(add_ref.input2_shift, add.input2_shift);
  EXPECT_EQ(add_ref.output_offset, add.output_offset);
  EXPECT_EQ(add_ref.output_multiplier, add.output_multiplier);
  EXPECT_EQ(add_ref.output_shift, add.output_shift);
  EXPECT_EQ(add.activation_min, act_min);
  EXPECT_EQ(add.activation_max, act_max);

  struct FcCheck {
    const char* name;
    const tflite_golden::FullyConnectedOp& golden;
    tflite_ref::FullyConnectedParams ref;
  };
  const FcCheck fcs[] = {
      {"fc_q", c.ops.fc_q,
       tflite_ref::PrepareFullyConnectedPerChannel(quantization.x, w_q.data(), d, quantization.q)},
      {"fc_k", c.ops.fc_k,
       tflite_ref::PrepareFullyConnectedPerChannel(quantization.x, w_k.data(), d, quantization.k)},
      {"fc_v", c.ops.fc_v,
       tflite_ref::PrepareFullyConnectedPerChannel(quantization.x, w_v.data(), d, quantization.v)},
      {"fc_o", c.ops.fc_o,
       tflite_ref::PrepareFullyConnectedPerChannel(quantization.o, w_o.data(), d, quantization.y)},
  };
  for (const FcCheck& fc : fcs) {
    SCOPED_TRACE(fc.name);
    EXPECT_EQ(fc.ref.input_offset, fc.golden.input_offset);
    EXPECT_EQ(fc.golden.weights_offset, 0);
    EXPECT_EQ(fc.ref.output_offset, fc.golden.output_offset);
    EXPECT_EQ(fc.golden.activation_min, act_min);
    EXPECT_EQ(fc.golden.activation_max, act_max);
    for (int ch = 0; ch < d; ++ch) {
      EXPECT_EQ(fc.ref.multiplier[ch], fc.golden.multiplier[ch]) << "channel " << ch;
      EXPECT_EQ(fc.ref.shift[ch], fc.golden.shift[ch]) << "channel " << ch;
    }
  }

  struct BmmCheck {
    const char* name;
    const tflite_golden::BatchMatMulOp& golden;
    tflite_ref::BatchMatMulParams ref;
  };
  const BmmCheck bmms[] = {
      {"bmm_scores", c.ops.bmm_scores,
       tflite_ref::PrepareBatchMatMul(quantization.q, quantization.k, quantization.scores)},
      {"bmm_context", c.ops.bmm_context,
       tflite_ref::PrepareBatchMatMul(quantization.probs, quantization.v, quantization.o)},
  };
  for (const BmmCheck& bmm : bmms) {
    SCOPED_TRACE(bmm.name);
    EXPECT_EQ(bmm.ref.lhs_offset, bmm.golden.input_offset);
    EXPECT_EQ(bmm.ref.rhs_offset, bmm.golden.weights_offset);
    EXPECT_EQ(bmm.ref.output_offset, bmm.golden.output_offset);
    EXPECT_EQ(bmm.ref.output_multiplier, bmm.golden.output_multiplier);
    EXPECT_EQ(bmm.ref.output_shift, bmm.golden.output_shift);
    EXPECT_EQ(bmm.golden.activation_min, act_min);
    EXPECT_EQ(bmm.golden.activation_max, act_max);
  }

  if (IsInt8(c)) {
    const tflite_ref::SoftmaxInt8Params s =
        tflite_ref::PrepareSoftmaxInt8(quantization.beta, quantization.scores.scale);
    EXPECT_EQ(s.input_multiplier, c.ops.softmax.input_multiplier);
    EXPECT_EQ(s.input_left_shift, c.ops.softmax.input_left_shift);
    EXPECT_EQ(s.diff_min, c.ops.softmax.diff_min);
  } else {
    const tflite_ref::SoftmaxInt16Params s = tflite_ref::PrepareSoftmaxInt16(
        quantization.beta, quantization.scores.scale, ExpLut(), OneOverOnePlusXLut());
    EXPECT_EQ(s.input_multiplier, c.ops.softmax.input_multiplier);
    EXPECT_EQ(s.input_left_shift, c.ops.softmax.input_left_shift);
    // int16: every zero point is 0 (BATCH_MATMUL requires it).
    for (tflite_golden::Quantization t : {q.x_emb, q.pe, q.x, q.q, q.k, q.v, q.scores, q.o, q.y}) {
      EXPECT_EQ(t.zero_point, 0);
    }
  }

  // The whole-chain Prepare gives the same as the per-op calls above.
  if (IsInt8(c)) {
    const tflite_ref::ChainParamsInt8 p = tflite_ref::PrepareChainInt8(quantization, d, d);
    EXPECT_EQ(p.fc_o.multiplier, fcs[3].ref.multiplier);
    EXPECT_EQ(p.softmax.diff_min, c.ops.softmax.diff_min);
  } else {
    const tflite_ref::ChainParamsInt16 p =
        tflite_ref::PrepareChainInt16(quantization, d, d, ExpLut(), OneOverOnePlusXLut());
    EXPECT_EQ(p.fc_o.multiplier, fcs[3].ref.multiplier);
    EXPECT_EQ(p.softmax.input_multiplier, c.ops.softmax.input_multiplier);
  }
}

// --- the chain, end to end -------------------------------------------------------

template <typename Activation>
void ExpectChainMatchesGolden(const GoldenCase& c, const tflite_ref::ChainTensors<Activation>& t,
                              int* compared) {
  const tflite_golden::Blobs& b = c.blobs;
  const int d = c.d_model;
  *compared += ExpectSameAsGolden("x", t.x, b.x, d);
  *compared += ExpectSameAsGolden("q", t.q, b.q, d);
  *compared += ExpectSameAsGolden("k", t.k, b.k, d);
  *compared += ExpectSameAsGolden("v", t.v, b.v, d);
  for (int h = 0; h < c.heads; ++h) {
    *compared += ExpectSameAsGolden("scores_h" + std::to_string(h), t.scores[h], b.scores[h], c.n);
    *compared += ExpectSameAsGolden("probs_h" + std::to_string(h), t.probs[h], b.probs[h], c.n);
  }
  *compared += ExpectSameAsGolden("o", t.o, b.o, d);
  *compared += ExpectSameAsGolden("y", t.y, b.y, d);
}

TEST_P(TfliteGoldenCaseTest, ChainReproducesEveryIntermediateBitForBit) {
  const GoldenCase& c = golden();
  if (!HasChainInputs(c)) GTEST_SKIP() << NotEmbedded(c);
  int compared = 0;
  const tflite_golden::SoftmaxDiagnostics& diag = c.softmax_diagnostics;
  if (IsInt8(c)) {
    const tflite_ref::ChainTensors<int8_t> t =
        tflite_ref::RunChainInt8(Shape(c), ManifestParamsInt8(c), Inputs<int8_t, int32_t>(c));
    ExpectChainMatchesGolden(c, t, &compared);
    // The manifest's softmax diagnostics, from the reference's own row records.
    int64_t max_sum = 0;
    int max_exponent = 0;
    int rows_at_31 = 0;
    int below_diff_min = 0;
    for (const tflite_ref::SoftmaxInt8RowInfo& row : t.softmax_int8_rows) {
      EXPECT_FALSE(row.beyond_tflite);
      max_sum = std::max(max_sum, row.sum_of_exps_q12_19);
      max_exponent = std::max(max_exponent, row.exponent);
      rows_at_31 += row.exponent == 31;
      below_diff_min += row.entries_below_diff_min;
    }
    EXPECT_EQ(std::ldexp(static_cast<double>(max_sum), -19), diag.max_sum_of_exps);
    EXPECT_EQ(max_exponent, diag.max_exponent);
    EXPECT_EQ(rows_at_31, diag.rows_at_exponent_31);
    EXPECT_EQ(below_diff_min, diag.entries_below_diff_min);
  } else {
    const tflite_ref::ChainTensors<int16_t> t =
        tflite_ref::RunChainInt16(Shape(c), ManifestParamsInt16(c), Inputs<int16_t, int64_t>(c));
    ExpectChainMatchesGolden(c, t, &compared);
    int32_t max_sum = 0;
    int at_minus_10 = 0;
    for (const tflite_ref::SoftmaxInt16RowInfo& row : t.softmax_int16_rows) {
      max_sum = std::max(max_sum, row.sum_of_exps_q15);
      at_minus_10 += row.entries_at_exp_minus_10;
    }
    EXPECT_EQ(max_sum, diag.max_sum_of_exps_q15);
    EXPECT_EQ(at_minus_10, diag.entries_at_exp_minus_10);
  }
  EXPECT_GE(compared, 6) << "x, q, k, v, o and y are embedded wherever the inputs are";
}

// --- each op on its own golden inputs ----------------------------------------------

template <typename Activation, typename Bias, typename SoftmaxParamsT>
void ExpectEachOpMatchesGolden(const GoldenCase& c,
                               const tflite_ref::ChainParams<SoftmaxParamsT>& p) {
  const tflite_golden::Blobs& b = c.blobs;
  const int n = c.n;
  const int d = c.d_model;
  const int d_k = c.d_k;
  const size_t nd = static_cast<size_t>(n) * d;
  ExpectSameAsGolden(
      "ADD", tflite_ref::Add(p.add, As<Activation>(b.x_emb), As<Activation>(b.pe), nd), b.x, d);
  const Activation* x = As<Activation>(b.x);
  ExpectSameAsGolden(
      "FC q",
      tflite_ref::FullyConnectedPerChannel(p.fc_q, x, n, d, As<int8_t>(b.w_q), As<Bias>(b.b_q), d),
      b.q, d);
  ExpectSameAsGolden(
      "FC k",
      tflite_ref::FullyConnectedPerChannel(p.fc_k, x, n, d, As<int8_t>(b.w_k), As<Bias>(b.b_k), d),
      b.k, d);
  ExpectSameAsGolden(
      "FC v",
      tflite_ref::FullyConnectedPerChannel(p.fc_v, x, n, d, As<int8_t>(b.w_v), As<Bias>(b.b_v), d),
      b.v, d);
  ExpectSameAsGolden("FC o",
                     tflite_ref::FullyConnectedPerChannel(p.fc_o, As<Activation>(b.o), n, d,
                                                          As<int8_t>(b.w_o), As<Bias>(b.b_o), d),
                     b.y, d);

  // Per head, from the golden q, k, v and scores/probs where embedded.
  for (int h = 0; h < c.heads; ++h) {
    std::vector<Activation> q_h, k_h, v_h_t(static_cast<size_t>(d_k) * n);
    for (int r = 0; r < n; ++r) {
      for (int t = 0; t < d_k; ++t) {
        const size_t at = static_cast<size_t>(r) * d + h * d_k + t;
        q_h.push_back(As<Activation>(b.q)[at]);
        k_h.push_back(As<Activation>(b.k)[at]);
        v_h_t[static_cast<size_t>(t) * n + r] = As<Activation>(b.v)[at];
      }
    }
    const std::string head = "_h" + std::to_string(h);
    ExpectSameAsGolden("BATCH_MATMUL scores" + head,
                       tflite_ref::BatchMatMul(p.bmm_scores, q_h.data(), n, d_k, k_h.data(), n),
                       b.scores[h], n);
    if (Embedded(b.scores[h])) {
      std::vector<Activation> probs(static_cast<size_t>(n) * n,
                                    std::numeric_limits<Activation>::min());
      if (!std::is_same<Activation, int8_t>::value) std::fill(probs.begin(), probs.end(), 0);
      for (int i = 0; i < n; ++i) {
        const size_t row = static_cast<size_t>(i) * n;
        const int visible = c.causal ? i + 1 : n;
        if constexpr (std::is_same<Activation, int8_t>::value) {
          tflite_ref::SoftmaxInt8Row(p.softmax, As<int8_t>(b.scores[h]) + row, visible,
                                     &probs[row]);
        } else {
          tflite_ref::SoftmaxInt16Row(p.softmax, As<int16_t>(b.scores[h]) + row, visible,
                                      &probs[row]);
        }
      }
      ExpectSameAsGolden("SOFTMAX" + head, probs, b.probs[h], n);
    }
    if (Embedded(b.probs[h])) {
      const std::vector<Activation> o_h = tflite_ref::BatchMatMul(
          p.bmm_context, As<Activation>(b.probs[h]), n, n, v_h_t.data(), d_k);
      std::vector<Activation> golden_o_h;
      for (int r = 0; r < n; ++r) {
        for (int t = 0; t < d_k; ++t) {
          golden_o_h.push_back(As<Activation>(b.o)[static_cast<size_t>(r) * d + h * d_k + t]);
        }
      }
      EXPECT_EQ(o_h, golden_o_h) << "BATCH_MATMUL context" << head;
    }
  }
}

TEST_P(TfliteGoldenCaseTest, EachOpReproducesItsOutputFromItsGoldenInputs) {
  const GoldenCase& c = golden();
  if (!HasChainInputs(c)) GTEST_SKIP() << NotEmbedded(c);
  if (IsInt8(c)) {
    ExpectEachOpMatchesGolden<int8_t, int32_t>(c, ManifestParamsInt8(c));
  } else {
    ExpectEachOpMatchesGolden<int16_t, int64_t>(c, ManifestParamsInt16(c));
  }
}

// --- accuracy against float (a report, not bit-exact) ------------------------------

TEST_P(TfliteGoldenCaseTest, OutputVersusFloatAttentionIsTheManifestsReport) {
  const GoldenCase& c = golden();
  if (!Embedded(c.blobs.y) || !Embedded(c.blobs.y_ref_f32)) {
    GTEST_SKIP() << NotEmbedded(c);
  }
  const double scale = FloatFromBits(c.quant.y.scale_bits);
  const float* y_ref = As<float>(c.blobs.y_ref_f32);
  const size_t count = static_cast<size_t>(c.n) * c.d_model;
  double max_lsb = 0;
  double sum_lsb = 0;
  for (size_t i = 0; i < count; ++i) {
    const int32_t y = IsInt8(c) ? As<int8_t>(c.blobs.y)[i] : As<int16_t>(c.blobs.y)[i];
    const double lsb = std::fabs(scale * (y - c.quant.y.zero_point) - y_ref[i]) / scale;
    max_lsb = std::max(max_lsb, lsb);
    sum_lsb += lsb;
  }
  printf("[ tflite   ] %-40s y vs float32 attention: max %.2f, mean %.2f LSB\n", c.name, max_lsb,
         sum_lsb / count);
  EXPECT_NEAR(max_lsb, c.y_vs_float_max_lsb, 1e-9 * std::max(1.0, c.y_vs_float_max_lsb));
  EXPECT_NEAR(sum_lsb / count, c.y_vs_float_mean_lsb, 1e-9 * std::max(1.0, c.y_vs_float_mean_lsb));
}

std::string CaseName(const ::testing::TestParamInfo<int>& info) {
  return kGoldenCases[info.param].name;
}

INSTANTIATE_TEST_SUITE_P(Tflite, TfliteGoldenCaseTest, ::testing::Range(0, kGoldenCaseCount),
                         CaseName);

// --- data checks independent of the chain ------------------------------------------

// TFLM's LUTPopulate<int16_t> (InitializeLutForInt16), in double instead of
// float32 with expf: the stored tables are data (another libm's expf may move an
// entry), so this only shows they are what they claim to be, within 1 LSB.
std::vector<int32_t> LutPopulateInDouble(double (*f)(double), double input_scale,
                                         int32_t input_zero_point, double output_scale) {
  const double input_min = input_scale * (-32768 - input_zero_point);
  const double input_max = input_scale * (32767 - input_zero_point);
  const double output_min = output_scale * -32768;
  const double output_max = output_scale * 32767;
  const double step = (input_max - input_min) / 512;
  const double to_q = 65536 / (output_max - output_min);
  auto clamp = [](double v) {
    return static_cast<int32_t>(std::min(std::max(v, -32768.0), 32767.0));
  };
  std::vector<int32_t> lut;
  for (int i = 0; i < 512; ++i) {
    const double value = f(input_min + i * step);
    const double midpoint = f(input_min + i * step + step / 2);
    const double next = f(input_min + (i + 1) * step);
    const double sample = std::round(value * to_q);
    const double midpoint_interpolated = std::round((next * to_q + std::round(value * to_q)) / 2);
    const double midpoint_error = midpoint_interpolated - std::round(midpoint * to_q);
    lut.push_back(clamp(sample - std::round(midpoint_error / 2)));
  }
  lut.push_back(clamp(std::round(f(input_max) * to_q)));
  return lut;
}

double Exp(double x) { return std::exp(x); }
double OneOverOnePlus(double x) { return 1.0 / (1.0 + x); }

TEST(TfliteGoldenData, SoftmaxLutsFollowLutPopulate) {
  const double range = 65535.0;
  const std::vector<int32_t> exp_lut = LutPopulateInDouble(Exp, 10.0 / range, 32767, 2.0 / range);
  const std::vector<int32_t> recip_lut =
      LutPopulateInDouble(OneOverOnePlus, 1.0 / range, -32768, 2.0 / range);
  int exp_off = 0;
  int recip_off = 0;
  for (int i = 0; i < 513; ++i) {
    EXPECT_LE(std::abs(ExpLut()[i] - exp_lut[i]), 1) << "exp_lut[" << i << "]";
    EXPECT_LE(std::abs(OneOverOnePlusXLut()[i] - recip_lut[i]), 1) << "1/(1+x) lut[" << i << "]";
    exp_off += ExpLut()[i] != exp_lut[i];
    recip_off += OneOverOnePlusXLut()[i] != recip_lut[i];
  }
  printf(
      "[ tflite   ] LUT entries 1 LSB off the double-precision LUTPopulate: exp %d, "
      "1/(1+x) %d of 513\n",
      exp_off, recip_off);
  EXPECT_EQ(ExpLut()[0], 2);  // exp(-10) in Q15: what far-below entries still add
  EXPECT_EQ(ExpLut()[512], 32767);
}

// pe is TFLite's AffineQuantize of the float sinusoid (computed in double,
// rounded to float): regenerating it here tests AffineQuantize on every case.
TEST(TfliteGoldenData, PositionTableIsTheAffineQuantizedSinusoid) {
  int checked = 0;
  for (const GoldenCase& c : kGoldenCases) {
    if (!Embedded(c.blobs.pe)) continue;
    SCOPED_TRACE(c.name);
    ++checked;
    const float scale = FloatFromBits(c.quant.pe.scale_bits);
    const int32_t q_min = IsInt8(c) ? -128 : -32768;
    const int32_t q_max = IsInt8(c) ? 127 : 32767;
    int mismatches = 0;
    for (int pos = 0; pos < c.n; ++pos) {
      for (int j = 0; j < c.d_model; ++j) {
        const double angle = pos / std::pow(10000.0, static_cast<double>(j / 2 * 2) / c.d_model);
        const float value = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
        const int32_t q =
            tflite_ref::AffineQuantize(value, scale, c.quant.pe.zero_point, q_min, q_max);
        const size_t at = static_cast<size_t>(pos) * c.d_model + j;
        const int32_t want = IsInt8(c) ? As<int8_t>(c.blobs.pe)[at] : As<int16_t>(c.blobs.pe)[at];
        mismatches += q != want;
      }
    }
    EXPECT_EQ(mismatches, 0);
  }
  EXPECT_GT(checked, 0);
}

// --- primitives ----------------------------------------------------------------------

TEST(TfliteReferencePrimitives, RoundingIsHalfAwayFromZero) {
  using tflite_ref::RoundingDivideByPOT;
  EXPECT_EQ(RoundingDivideByPOT(3, 1), 2);
  EXPECT_EQ(RoundingDivideByPOT(-3, 1), -2);
  EXPECT_EQ(RoundingDivideByPOT(5, 2), 1);
  EXPECT_EQ(RoundingDivideByPOT(-5, 2), -1);
  EXPECT_EQ(RoundingDivideByPOT(6, 2), 2);
  EXPECT_EQ(RoundingDivideByPOT(-6, 2), -2);
  EXPECT_EQ(RoundingDivideByPOT(std::numeric_limits<int32_t>::max(), 31), 1);
  using tflite_ref::SaturatingRoundingDoublingHighMul;
  const int32_t min = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(min, min), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(1 << 30, 1 << 30), 1 << 29);
  // Ties toward +infinity (unlike RoundingDivideByPOT): 0.5 -> 1, -0.5 -> 0, -1.5 -> -1.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(1, 1 << 30), 1);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-1, 1 << 30), 0);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-3, 1 << 30), -1);
  // The int64 overload keeps 16 bits of the multiplier.
  EXPECT_EQ(tflite_ref::MultiplyByQuantizedMultiplier(int64_t{1000000}, 1 << 30, -1), 250000);
  EXPECT_EQ(tflite_ref::MultiplyByQuantizedMultiplier(int64_t{3}, 0x7FFFFFFF, 0), 3);
  EXPECT_EQ(tflite_ref::CountLeadingZeros(0), 32);
  EXPECT_EQ(tflite_ref::CountLeadingZeros(1), 31);
  EXPECT_EQ(tflite_ref::CountLeadingZeros(0x80000000u), 0);
}

TEST(TfliteReferencePrimitives, QuantizeMultiplierRoundsTheMantissa) {
  const tflite_ref::QuantizedMultiplier half = tflite_ref::QuantizeMultiplier(0.5);
  EXPECT_EQ(half.multiplier, 1 << 30);
  EXPECT_EQ(half.shift, 0);
  // A mantissa within half an LSB of 1 rounds to 2^31: 2^30 with the next shift.
  const tflite_ref::QuantizedMultiplier almost_one =
      tflite_ref::QuantizeMultiplier(1.0 - std::ldexp(1.0, -33));
  EXPECT_EQ(almost_one.multiplier, 1 << 30);
  EXPECT_EQ(almost_one.shift, 1);
  EXPECT_EQ(tflite_ref::QuantizeMultiplier(0.0).multiplier, 0);
  EXPECT_EQ(tflite_ref::QuantizeMultiplier(std::ldexp(1.0, -40)).multiplier, 0);
  EXPECT_EQ(tflite_ref::CalculateInputRadius(5, 26), 31);
}

TEST(TfliteReferencePrimitives, FixedPointFunctionsFollowTheirRealFunctions) {
  for (double x = 0; x > -31.9; x -= 0.37) {
    const int32_t raw = static_cast<int32_t>(std::round(x * (1 << 26)));
    const double got = std::ldexp(tflite_ref::ExpOnNegativeValues(raw), -31);
    EXPECT_NEAR(got, std::exp(std::ldexp(raw, -26)), 3e-7) << x;  // 4-term series
  }
  EXPECT_EQ(tflite_ref::ExpOnNegativeValues(0), std::numeric_limits<int32_t>::max());
  for (double a = 0; a < 1; a += 0.0625) {
    const int32_t raw = static_cast<int32_t>(std::round(std::ldexp(a, 31)));
    EXPECT_NEAR(std::ldexp(tflite_ref::OneOverOnePlusXForXIn01(raw), -31), 1 / (1 + a), 1e-8) << a;
  }
  int num_bits_over_unit = 0;
  // 3.0 in Q12.19 is 1.5 * 2^1: 1/3 = (1/1.5) * 2^-1.
  const int32_t reciprocal = tflite_ref::GetReciprocal(3 << 19, 12, &num_bits_over_unit);
  EXPECT_EQ(num_bits_over_unit, 1);
  EXPECT_NEAR(std::ldexp(reciprocal, -31), 2.0 / 3.0, 1e-8);
  // Interpolation between entries, on a ramp of slope 64 per 128 inputs.
  std::vector<int16_t> ramp(513);
  for (int i = 0; i < 513; ++i) ramp[i] = static_cast<int16_t>(i * 64 - 16384);
  EXPECT_EQ(tflite_ref::LutLookup(-32768, ramp.data()), -16384);
  EXPECT_EQ(tflite_ref::LutLookup(64 - 32768, ramp.data()), -16384 + 32);
  EXPECT_EQ(tflite_ref::LutLookup(32767, ramp.data()), 16384);
}

// --- the int8 softmax where TFLite aborts (the project's extension) --------------

// Equal scores make every exp exactly 1 (2^19 in the Q12.19 sum), whatever the
// parameters: these are the long-row case's.
tflite_ref::SoftmaxInt8Params LongRowSoftmaxParams() {
  for (const GoldenCase& c : kGoldenCases) {
    if (std::string(c.kind) == "edge_long_row" && IsInt8(c)) {
      return {c.ops.softmax.input_multiplier, c.ops.softmax.input_left_shift,
              c.ops.softmax.diff_min};
    }
  }
  ADD_FAILURE() << "no int8 edge_long_row case";
  return {};
}

std::vector<int8_t> SoftmaxOfEqualScores(int len, tflite_ref::SoftmaxInt8RowInfo* info) {
  const std::vector<int8_t> scores(static_cast<size_t>(len), 17);
  std::vector<int8_t> probs(static_cast<size_t>(len), 99);
  *info = tflite_ref::SoftmaxInt8Row(LongRowSoftmaxParams(), scores.data(), len, probs.data());
  return probs;
}

TEST(TfliteSoftmaxInt8Saturation, EqualScoresMatchTfliteUpTo511) {
  // TFLite's values (golden README): 1 -> 127, 2 -> 0, 3 -> -43, 63 -> -124,
  // 255..511 -> -127 each; exponent 31 from 256 on.
  const struct {
    int len;
    int8_t each;
  } rows[] = {{1, 127}, {2, 0}, {3, -43}, {63, -124}, {255, -127}, {256, -127}, {511, -127}};
  for (const auto& row : rows) {
    tflite_ref::SoftmaxInt8RowInfo info{};
    const std::vector<int8_t> probs = SoftmaxOfEqualScores(row.len, &info);
    EXPECT_FALSE(info.beyond_tflite) << row.len;
    EXPECT_EQ(info.sum_of_exps_q12_19, int64_t{row.len} << 19);
    EXPECT_LE(info.exponent, 31);
    EXPECT_EQ(probs, std::vector<int8_t>(static_cast<size_t>(row.len), row.each)) << row.len;
  }
}

TEST(TfliteSoftmaxInt8Saturation, RowOf600EqualScoresIsProbabilityZeroEverywhere) {
  // TFLite's reference aborts here (sum of exps 600 >= 512, exponent 32). The
  // documented rule: every probability 1/600 is below half an LSB (1/512), so
  // each entry is -128, the nearest int8 value to the exact softmax.
  tflite_ref::SoftmaxInt8RowInfo info{};
  const std::vector<int8_t> probs = SoftmaxOfEqualScores(600, &info);
  EXPECT_TRUE(info.beyond_tflite);
  EXPECT_EQ(info.sum_of_exps_q12_19, int64_t{600} << 19);
  EXPECT_EQ(info.exponent, 32);
  EXPECT_EQ(probs, std::vector<int8_t>(600, -128));
  // The limit itself and rows whose int32 accumulator would wrap in TFLite.
  for (int len : {512, 513, 4096, 5000}) {
    const std::vector<int8_t> p = SoftmaxOfEqualScores(len, &info);
    EXPECT_TRUE(info.beyond_tflite) << len;
    EXPECT_EQ(p, std::vector<int8_t>(static_cast<size_t>(len), -128)) << len;
  }
  EXPECT_EQ(tflite_ref::kSoftmaxInt8AbortSumQ12_19, int64_t{512} << 19);
}

TEST(TfliteSoftmaxInt8Saturation, ProbabilitiesNeverIncreaseWithDistanceFromTheMax) {
  // Random rows of every length across the abort limit, on the golden cases'
  // parameters (mild and steep scales): sorted by score, the outputs must not
  // increase; and rows of k equal scores must not grow with k.
  std::vector<tflite_ref::SoftmaxInt8Params> params;
  for (const GoldenCase& c : kGoldenCases) {
    if (IsInt8(c)) {
      params.push_back(
          {c.ops.softmax.input_multiplier, c.ops.softmax.input_left_shift, c.ops.softmax.diff_min});
    }
  }
  uint32_t state = 12345;
  auto next = [&state]() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  int rows_beyond = 0;
  for (const tflite_ref::SoftmaxInt8Params& p : params) {
    for (int len : {1, 2, 7, 64, 300, 511, 512, 600, 1100}) {
      const int spread = 1 + static_cast<int>(next() % 8);  // flat rows reach the limit
      std::vector<int8_t> scores(static_cast<size_t>(len));
      for (int8_t& s : scores) s = static_cast<int8_t>(100 - static_cast<int>(next() % spread));
      std::sort(scores.begin(), scores.end(), [](int8_t a, int8_t b) { return a > b; });
      std::vector<int8_t> probs(scores.size());
      const tflite_ref::SoftmaxInt8RowInfo info =
          tflite_ref::SoftmaxInt8Row(p, scores.data(), len, probs.data());
      rows_beyond += info.beyond_tflite;
      for (int i = 1; i < len; ++i) {
        ASSERT_LE(probs[i], probs[i - 1]) << "len " << len << " at " << i;
      }
    }
  }
  EXPECT_GT(rows_beyond, 0);
  int8_t previous = 127;
  for (int len = 1; len <= 1100; ++len) {
    tflite_ref::SoftmaxInt8RowInfo info{};
    const int8_t each = SoftmaxOfEqualScores(len, &info)[0];
    ASSERT_LE(each, previous) << len;
    previous = each;
  }
}

}  // namespace
