// The arena size formula is a contract: firmware sizes a static arena from
// arena_sizes.hpp (or a shape's kArenaBytes) at compile time and never asks
// again. So for every operation and position kind, at odd and round sizes:
// the C size function, the constexpr formula and the C++ shape constant agree;
// init fits exactly that many bytes and not one byte fewer; and a run
// writes nothing past it and computes the same as on a generous arena.
#include <gtest/gtest.h>
#include <stdint.h>
#include <string.h>

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "edgeattn/edgeattn.hpp"
#include "reference/random_tensor.h"
#include "test_support.h"

namespace {

using edgeattn::PositionStorage;

// 0xFF bytes are a NaN as float32: scratch read before it is written spreads
// into the output and shows as a difference from the zero-filled generous run.
constexpr uint8_t kPoisonByte = 0xFF;
constexpr size_t kGuardBytes = 4096;

// ------------------------------------------------------- compile-time checks

using CompileTimeAttention = edgeattn::Attention<17, 65, 3, 17>;
using CompileTimeSelfAttention = edgeattn::SelfAttention<17, 6, 3, 5, EA_POSITION_SINUSOIDAL>;
using CompileTimeMha = edgeattn::Mha<17, 12, 4, EA_POSITION_LEARNED>;

// kArenaBytes is a constant expression: it can size an array.
using AttentionArenaArray = uint8_t[CompileTimeAttention::kArenaBytes];
using SelfAttentionArenaArray = uint8_t[CompileTimeSelfAttention::kArenaBytes];
using MhaArenaArray = uint8_t[CompileTimeMha::kArenaBytes];
static_assert(sizeof(AttentionArenaArray) == CompileTimeAttention::kArenaBytes, "");
static_assert(sizeof(SelfAttentionArenaArray) == CompileTimeSelfAttention::kArenaBytes, "");
static_assert(sizeof(MhaArenaArray) == CompileTimeMha::kArenaBytes, "");

static_assert(alignof(edgeattn::StaticArena<1>) == EA_ARENA_ALIGNMENT, "");
static_assert(alignof(edgeattn::StaticArena<CompileTimeMha::kArenaBytes>) == 64, "");
static_assert(sizeof(edgeattn::StaticArena<CompileTimeMha::kArenaBytes>) >=
                  CompileTimeMha::kArenaBytes,
              "");
static_assert(edgeattn::StaticArena<100>::kSize == 100, "");

// Hand-computed sizes (64-byte regions; the [6, 256] score tile is 6144 bytes),
// so that the formula is checked against arithmetic, not only against itself.
// Attention, n_kv = 65, d_k = 3: keys pad to 128, 3 * 128 * 4 = 1536.
static_assert(edgeattn::AttentionArenaBytes(65, 3) == 1536 + 6144, "");
// One key, one feature: one 64-key panel of 256 bytes.
static_assert(edgeattn::AttentionArenaBytes(1, 1) == 256 + 6144, "");
// A packed weight matrix: n_in x outputs rounded up to 64.
static_assert(edgeattn::PackedLinearFloats(3, 6) == 6 * 64, "");
static_assert(edgeattn::PackedLinearFloats(65, 2) == 2 * 128, "");
// Self-attention n = 17, d_model = 6, d_k = 3, d_v = 5, table in the arena:
// table 408 -> 448, X + P 448, Q and K 204 -> 256 each, V 340 -> 384,
// packed keys 3 * 64 * 4 = 768; row-major weights add W_Q, W_K, W_V packed,
// 6 * 64 * 4 = 1536 bytes each.
static_assert(edgeattn::SelfAttentionArenaBytes(17, 6, 3, 5, PositionStorage::kArena,
                                                EA_WEIGHTS_PACKED) ==
                  448 + 448 + 2 * 256 + 384 + 768 + 6144,
              "");
static_assert(edgeattn::SelfAttentionArenaBytes(17, 6, 3, 5, PositionStorage::kNone,
                                                EA_WEIGHTS_PACKED) == 2 * 256 + 384 + 768 + 6144,
              "");
static_assert(edgeattn::SelfAttentionArenaBytes(17, 6, 3, 5, PositionStorage::kNone,
                                                EA_WEIGHTS_ROW_MAJOR) ==
                  3 * 1536 + 2 * 256 + 384 + 768 + 6144,
              "");
// MHA n = 17, d_model = 12, heads = 4 (d_k = 3), caller's table: X + P and
// the head concat 816 -> 832 bytes each, Q|K|V 2448 -> 2496, packed keys
// 768; row-major weights add in_proj (36 outputs) and out_proj (12) packed,
// 12 * 64 * 4 = 3072 bytes each.
static_assert(edgeattn::MhaArenaBytes(17, 12, 4, PositionStorage::kCaller, EA_WEIGHTS_PACKED) ==
                  2 * 832 + 2496 + 768 + 6144,
              "");
static_assert(edgeattn::MhaArenaBytes(17, 12, 4, PositionStorage::kCaller, EA_WEIGHTS_ROW_MAJOR) ==
                  2 * 3072 + 2 * 832 + 2496 + 768 + 6144,
              "");
static_assert(CompileTimeMha::kArenaBytes == 2 * 3072 + 2 * 832 + 2496 + 768 + 6144, "");
static_assert(CompileTimeMha::kPackedInProjFloats == 12 * 64, "");
static_assert(CompileTimeMha::kPackedOutProjFloats == 12 * 64, "");

// -------------------------------------------------------------- test helpers

// Owns bytes whose data() is EA_ARENA_ALIGNMENT-aligned, filled with `fill`.
class AlignedBuffer {
 public:
  AlignedBuffer(size_t bytes, uint8_t fill) : storage_(bytes + EA_ARENA_ALIGNMENT, fill) {
    const uintptr_t address = reinterpret_cast<uintptr_t>(storage_.data());
    offset_ = (EA_ARENA_ALIGNMENT - address % EA_ARENA_ALIGNMENT) % EA_ARENA_ALIGNMENT;
  }
  uint8_t* data() { return storage_.data() + offset_; }

 private:
  std::vector<uint8_t> storage_;
  size_t offset_ = 0;
};

// What one run produces.
struct RunOutputs {
  std::vector<float> y;
  std::vector<float> attn_weights;
};

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

bool AllFinite(const std::vector<float>& values) {
  for (float value : values) {
    if (!std::isfinite(value)) return false;
  }
  return true;
}

std::string StorageName(PositionStorage storage) {
  switch (storage) {
    case PositionStorage::kNone:
      return "NoPositions";
    case PositionStorage::kCaller:
      return "CallerTable";
    case PositionStorage::kArena:
      return "TableInArena";
  }
  return "?";
}

std::string PositionName(ea_position position) {
  switch (position) {
    case EA_POSITION_NONE:
      return "";
    case EA_POSITION_SINUSOIDAL:
      return "Sinusoidal";
    case EA_POSITION_LEARNED:
      return "Learned";
    default:
      return "?";
  }
}

// Padding keys as a caller would use them, leaving at least one key.
int32_t ValidKeys(int32_t n_kv) { return n_kv - n_kv / 4; }

// ------------------------------------------------------------------ harnesses
//
// One harness per operation, all with the same face for the typed tests:
//   Shape            the edgeattn.hpp shape template instance
//   kFormulaBytes    the arena_sizes.hpp formula with the storage spelled out
//   Name()           for test names
//   ArenaSize()      the C size function
//   Plan(arena)      init into the harness's own plan
//   Run(outputs)     one run at max tokens with deterministic random inputs

template <int32_t kNq, int32_t kNkv, int32_t kDk, int32_t kDv, ea_mask kMask = EA_MASK_NONE>
class AttentionHarness {
 public:
  using Shape = edgeattn::Attention<kNq, kNkv, kDk, kDv>;
  static constexpr uint64_t kFormulaBytes = edgeattn::AttentionArenaBytes(kNkv, kDk);

  static std::string Name() {
    return "Attention_" + std::to_string(kNq) + "x" + std::to_string(kNkv) + "_dk" +
           std::to_string(kDk) + "_dv" + std::to_string(kDv) +
           (kMask == EA_MASK_CAUSAL ? "_Causal" : "");
  }
  static ea_status ArenaSize(size_t* bytes) {
    const ea_attention_config config = Shape::Config(kMask);
    return ea_attention_arena_size(&config, bytes);
  }
  ea_status Plan(ea_arena* arena) {
    const ea_attention_config config = Shape::Config(kMask);
    return ea_attention_init(&plan_, &config, arena);
  }
  ea_status Run(RunOutputs* outputs) const {
    outputs->y.assign(static_cast<size_t>(kNq) * kDv, 0.0f);
    outputs->attn_weights.assign(static_cast<size_t>(kNq) * kNkv, 0.0f);
    return ea_attention_run(&plan_, q_.data(), k_.data(), v_.data(), ValidKeys(kNkv),
                            outputs->y.data(), outputs->attn_weights.data());
  }

 private:
  std::vector<float> q_ = edgeattn_test::RandomTensor(static_cast<size_t>(kNq) * kDk, 101);
  std::vector<float> k_ = edgeattn_test::RandomTensor(static_cast<size_t>(kNkv) * kDk, 102);
  std::vector<float> v_ = edgeattn_test::RandomTensor(static_cast<size_t>(kNkv) * kDv, 103);
  ea_attention_plan plan_{};
};

// The position table a caller passes for `storage` == kCaller, else empty.
std::vector<float> CallerTable(ea_position position, PositionStorage storage, int32_t rows,
                               int32_t cols, uint64_t seed) {
  if (storage != PositionStorage::kCaller) return {};
  const size_t count = static_cast<size_t>(rows) * static_cast<size_t>(cols);
  if (position == EA_POSITION_LEARNED) return edgeattn_test::RandomTensor(count, seed, 0.5);
  std::vector<float> table(count);
  EXPECT_EQ(ea_sinusoidal_table_fill(table.data(), rows, cols), EA_OK);
  return table;
}

// The storage a position kind must get, spelled out independently of
// edgeattn::StorageOf so that the shape template's mapping is checked too.
template <ea_position kPosition, PositionStorage kStorage>
constexpr bool kConsistentStorage = (kPosition == EA_POSITION_NONE) ==
                                        (kStorage == PositionStorage::kNone) &&
                                    (kPosition != EA_POSITION_LEARNED ||
                                     kStorage == PositionStorage::kCaller);

// The weights a harness hands to init: row-major as made, or packed by
// ea_linear_pack_weights.
inline std::vector<float> InLayout(const std::vector<float>& w, int32_t n_out, int32_t n_in,
                                   ea_weights_layout layout) {
  if (layout == EA_WEIGHTS_ROW_MAJOR) return w;
  size_t floats = 0;
  EXPECT_EQ(ea_linear_packed_size(n_out, n_in, &floats), EA_OK);
  std::vector<float> packed(floats);
  EXPECT_EQ(ea_linear_pack_weights(w.data(), n_out, n_in, packed.data(), floats), EA_OK);
  return packed;
}

inline std::string LayoutName(ea_weights_layout layout) {
  return layout == EA_WEIGHTS_PACKED ? "_PackedWeights" : "";
}

template <int32_t kTokens, int32_t kDModel, int32_t kDk, int32_t kDv, ea_position kPosition,
          PositionStorage kStorage, ea_mask kMask = EA_MASK_NONE,
          ea_weights_layout kWeights = EA_WEIGHTS_ROW_MAJOR>
class SelfAttentionHarness {
  static_assert(kConsistentStorage<kPosition, kStorage>, "position kind and storage disagree");

 public:
  using Shape = edgeattn::SelfAttention<kTokens, kDModel, kDk, kDv, kPosition,
                                        kStorage == PositionStorage::kArena, kWeights>;
  static constexpr uint64_t kFormulaBytes =
      edgeattn::SelfAttentionArenaBytes(kTokens, kDModel, kDk, kDv, kStorage, kWeights);

  static std::string Name() {
    return "SelfAttention_n" + std::to_string(kTokens) + "_dmodel" + std::to_string(kDModel) +
           "_dk" + std::to_string(kDk) + "_dv" + std::to_string(kDv) + "_" +
           PositionName(kPosition) + StorageName(kStorage) +
           (kMask == EA_MASK_CAUSAL ? "_Causal" : "") + LayoutName(kWeights);
  }
  // The C size function only needs to know whether a caller table exists.
  static ea_status ArenaSize(size_t* bytes) {
    static const float kAnyTable = 0.0f;
    const ea_self_attention_config config =
        Shape::Config(kMask, kStorage == PositionStorage::kCaller ? &kAnyTable : nullptr);
    return ea_self_attention_arena_size(&config, bytes);
  }
  ea_status Plan(ea_arena* arena) {
    const ea_self_attention_config config =
        Shape::Config(kMask, table_.empty() ? nullptr : table_.data());
    return ea_self_attention_init(&plan_, &config, &weights_, arena);
  }
  ea_status Run(RunOutputs* outputs) const {
    outputs->y.assign(static_cast<size_t>(kTokens) * kDv, 0.0f);
    outputs->attn_weights.assign(static_cast<size_t>(kTokens) * kTokens, 0.0f);
    return ea_self_attention_run(&plan_, x_.data(), kTokens, ValidKeys(kTokens), outputs->y.data(),
                                 outputs->attn_weights.data());
  }

 private:
  static std::vector<float> Weight(int32_t rows, uint64_t seed) {
    return edgeattn_test::RandomTensor(static_cast<size_t>(rows) * kDModel, seed,
                                       1.0 / std::sqrt(static_cast<double>(kDModel)));
  }
  std::vector<float> w_q_ = InLayout(Weight(kDk, 201), kDk, kDModel, kWeights);
  std::vector<float> w_k_ = InLayout(Weight(kDk, 202), kDk, kDModel, kWeights);
  std::vector<float> w_v_ = InLayout(Weight(kDv, 203), kDv, kDModel, kWeights);
  std::vector<float> b_q_ = edgeattn_test::RandomTensor(kDk, 204, 0.1);
  std::vector<float> b_k_ = edgeattn_test::RandomTensor(kDk, 205, 0.1);
  std::vector<float> b_v_ = edgeattn_test::RandomTensor(kDv, 206, 0.1);
  ea_self_attention_weights weights_{w_q_.data(), w_k_.data(), w_v_.data(),
                                     b_q_.data(), b_k_.data(), b_v_.data()};
  std::vector<float> table_ = CallerTable(kPosition, kStorage, kTokens, kDModel, 207);
  std::vector<float> x_ = edgeattn_test::RandomTensor(static_cast<size_t>(kTokens) * kDModel, 208);
  ea_self_attention_plan plan_{};
};

template <int32_t kTokens, int32_t kDModel, int32_t kHeads, ea_position kPosition,
          PositionStorage kStorage, ea_mask kMask = EA_MASK_NONE,
          ea_weights_layout kWeights = EA_WEIGHTS_ROW_MAJOR>
class MhaHarness {
  static_assert(kConsistentStorage<kPosition, kStorage>, "position kind and storage disagree");

 public:
  using Shape = edgeattn::Mha<kTokens, kDModel, kHeads, kPosition,
                              kStorage == PositionStorage::kArena, kWeights>;
  static constexpr uint64_t kFormulaBytes =
      edgeattn::MhaArenaBytes(kTokens, kDModel, kHeads, kStorage, kWeights);

  static std::string Name() {
    return "Mha_n" + std::to_string(kTokens) + "_dmodel" + std::to_string(kDModel) + "_heads" +
           std::to_string(kHeads) + "_" + PositionName(kPosition) + StorageName(kStorage) +
           (kMask == EA_MASK_CAUSAL ? "_Causal" : "") + LayoutName(kWeights);
  }
  static ea_status ArenaSize(size_t* bytes) {
    static const float kAnyTable = 0.0f;
    const ea_mha_config config =
        Shape::Config(kMask, kStorage == PositionStorage::kCaller ? &kAnyTable : nullptr);
    return ea_mha_arena_size(&config, bytes);
  }
  ea_status Plan(ea_arena* arena) {
    const ea_mha_config config = Shape::Config(kMask, table_.empty() ? nullptr : table_.data());
    return ea_mha_init(&plan_, &config, &weights_, arena);
  }
  ea_status Run(RunOutputs* outputs) const {
    outputs->y.assign(static_cast<size_t>(kTokens) * kDModel, 0.0f);
    outputs->attn_weights.assign(static_cast<size_t>(kHeads) * kTokens * kTokens, 0.0f);
    return ea_mha_run(&plan_, x_.data(), kTokens, ValidKeys(kTokens), outputs->y.data(),
                      outputs->attn_weights.data());
  }

 private:
  static constexpr size_t kSquare = static_cast<size_t>(kDModel) * kDModel;
  const double weight_stddev_ = 1.0 / std::sqrt(static_cast<double>(kDModel));
  std::vector<float> in_proj_weight_ =
      InLayout(edgeattn_test::RandomTensor(3 * kSquare, 301, weight_stddev_), 3 * kDModel, kDModel,
               kWeights);
  std::vector<float> in_proj_bias_ = edgeattn_test::RandomTensor(3 * kDModel, 302, 0.1);
  std::vector<float> out_proj_weight_ = InLayout(
      edgeattn_test::RandomTensor(kSquare, 303, weight_stddev_), kDModel, kDModel, kWeights);
  std::vector<float> out_proj_bias_ = edgeattn_test::RandomTensor(kDModel, 304, 0.1);
  ea_mha_weights weights_ = edgeattn_test::InProjWeights(
      in_proj_weight_.data(), in_proj_bias_.data(), out_proj_weight_.data(), out_proj_bias_.data());
  std::vector<float> table_ = CallerTable(kPosition, kStorage, kTokens, kDModel, 305);
  std::vector<float> x_ = edgeattn_test::RandomTensor(static_cast<size_t>(kTokens) * kDModel, 306);
  ea_mha_plan plan_{};
};

constexpr PositionStorage kNone = PositionStorage::kNone;
constexpr PositionStorage kCaller = PositionStorage::kCaller;
constexpr PositionStorage kInArena = PositionStorage::kArena;

using ArenaShapes = testing::Types<
    // Attention(Q, K, V): one key, odd key counts around the 64-key panel, d_k odd.
    AttentionHarness<1, 1, 1, 1>, AttentionHarness<17, 17, 3, 5>,
    AttentionHarness<65, 65, 17, 17, EA_MASK_CAUSAL>, AttentionHarness<1, 65, 3, 17>,
    AttentionHarness<17, 130, 64, 1>, AttentionHarness<64, 64, 64, 64>,
    // Self-attention with every position kind and storage.
    SelfAttentionHarness<1, 1, 1, 1, EA_POSITION_NONE, kNone>,
    SelfAttentionHarness<17, 6, 3, 5, EA_POSITION_NONE, kNone, EA_MASK_CAUSAL>,
    SelfAttentionHarness<17, 6, 3, 5, EA_POSITION_SINUSOIDAL, kInArena>,
    SelfAttentionHarness<17, 6, 3, 5, EA_POSITION_SINUSOIDAL, kCaller>,
    SelfAttentionHarness<17, 6, 3, 5, EA_POSITION_LEARNED, kCaller>,
    SelfAttentionHarness<65, 20, 17, 17, EA_POSITION_NONE, kNone>,
    SelfAttentionHarness<65, 20, 17, 17, EA_POSITION_SINUSOIDAL, kInArena, EA_MASK_CAUSAL>,
    SelfAttentionHarness<65, 20, 17, 17, EA_POSITION_SINUSOIDAL, kCaller>,
    SelfAttentionHarness<65, 20, 17, 17, EA_POSITION_LEARNED, kCaller, EA_MASK_CAUSAL>,
    SelfAttentionHarness<1, 7, 3, 1, EA_POSITION_SINUSOIDAL, kInArena>,
    SelfAttentionHarness<64, 32, 16, 8, EA_POSITION_LEARNED, kCaller>,
    SelfAttentionHarness<17, 6, 3, 5, EA_POSITION_NONE, kNone, EA_MASK_NONE, EA_WEIGHTS_PACKED>,
    SelfAttentionHarness<65, 20, 17, 17, EA_POSITION_SINUSOIDAL, kInArena, EA_MASK_CAUSAL,
                         EA_WEIGHTS_PACKED>,
    // MHA with every position kind and storage; d_k = d_model / heads odd too.
    MhaHarness<1, 4, 1, EA_POSITION_NONE, kNone>,
    MhaHarness<17, 12, 4, EA_POSITION_NONE, kNone, EA_MASK_CAUSAL>,
    MhaHarness<17, 12, 4, EA_POSITION_SINUSOIDAL, kInArena>,
    MhaHarness<17, 12, 4, EA_POSITION_SINUSOIDAL, kCaller>,
    MhaHarness<17, 12, 4, EA_POSITION_LEARNED, kCaller>,
    MhaHarness<65, 34, 2, EA_POSITION_NONE, kNone>,
    MhaHarness<65, 34, 2, EA_POSITION_SINUSOIDAL, kInArena, EA_MASK_CAUSAL>,
    MhaHarness<65, 34, 2, EA_POSITION_SINUSOIDAL, kCaller>,
    MhaHarness<65, 51, 3, EA_POSITION_LEARNED, kCaller, EA_MASK_CAUSAL>,
    MhaHarness<1, 17, 1, EA_POSITION_SINUSOIDAL, kInArena>,
    MhaHarness<64, 64, 8, EA_POSITION_LEARNED, kCaller>,
    MhaHarness<17, 12, 4, EA_POSITION_LEARNED, kCaller, EA_MASK_NONE, EA_WEIGHTS_PACKED>,
    MhaHarness<65, 51, 3, EA_POSITION_SINUSOIDAL, kInArena, EA_MASK_CAUSAL, EA_WEIGHTS_PACKED>>;

struct HarnessName {
  template <typename Harness>
  static std::string GetName(int) {
    return Harness::Name();
  }
};

template <typename Harness>
class ArenaFormula : public testing::Test {};
TYPED_TEST_SUITE(ArenaFormula, ArenaShapes, HarnessName);

TYPED_TEST(ArenaFormula, SizeFunctionEqualsFormulaAndShapeConstant) {
  size_t bytes = 0;
  ASSERT_EQ(TypeParam::ArenaSize(&bytes), EA_OK);
  EXPECT_EQ(bytes, TypeParam::kFormulaBytes);
  EXPECT_EQ(bytes, TypeParam::Shape::kArenaBytes);
  EXPECT_EQ(bytes % EA_ARENA_ALIGNMENT, 0u);
}

TYPED_TEST(ArenaFormula, PlanFitsExactlyAndNotOneByteLess) {
  const size_t size = static_cast<size_t>(TypeParam::kFormulaBytes);
  AlignedBuffer storage(size, 0);
  ea_arena arena{};

  TypeParam refused;
  ASSERT_EQ(ea_arena_init(&arena, storage.data(), size - 1), EA_OK);
  EXPECT_EQ(refused.Plan(&arena), EA_ERR_ARENA_TOO_SMALL);
  EXPECT_EQ(arena.used, 0u) << "a failed init carved the arena";

  TypeParam fitted;
  ASSERT_EQ(ea_arena_init(&arena, storage.data(), size), EA_OK);
  EXPECT_EQ(fitted.Plan(&arena), EA_OK);
  EXPECT_EQ(arena.used, size);
  EXPECT_EQ(ea_arena_remaining(&arena), 0u);
}

TYPED_TEST(ArenaFormula, RunWritesNothingPastTheFormulaAndMatchesAGenerousArena) {
  const size_t size = static_cast<size_t>(TypeParam::kFormulaBytes);

  // The arena is given the guard too, so neither init nor a kernel is
  // stopped from using it: only the formula says where the plan ends.
  AlignedBuffer poisoned(size + kGuardBytes, kPoisonByte);
  ea_arena poisoned_arena{};
  ASSERT_EQ(ea_arena_init(&poisoned_arena, poisoned.data(), size + kGuardBytes), EA_OK);
  TypeParam tight;
  ASSERT_EQ(tight.Plan(&poisoned_arena), EA_OK);
  EXPECT_EQ(poisoned_arena.used, size);
  RunOutputs got;
  ASSERT_EQ(tight.Run(&got), EA_OK);

  size_t guard_bytes_written = 0;
  size_t first_written = kGuardBytes;
  for (size_t i = 0; i < kGuardBytes; ++i) {
    if (poisoned.data()[size + i] != kPoisonByte) {
      ++guard_bytes_written;
      if (first_written == kGuardBytes) first_written = i;
    }
  }
  EXPECT_EQ(guard_bytes_written, 0u)
      << "first write at byte " << first_written << " past the formula's " << size << " bytes";

  const size_t generous_size = 2 * size + (size_t{1} << 16);
  AlignedBuffer generous(generous_size, 0);
  ea_arena generous_arena{};
  ASSERT_EQ(ea_arena_init(&generous_arena, generous.data(), generous_size), EA_OK);
  TypeParam roomy;
  ASSERT_EQ(roomy.Plan(&generous_arena), EA_OK);
  RunOutputs expected;
  ASSERT_EQ(roomy.Run(&expected), EA_OK);

  EXPECT_TRUE(AllFinite(expected.y));
  EXPECT_TRUE(SameBits(got.y, expected.y)) << "output depends on the arena";
  EXPECT_TRUE(SameBits(got.attn_weights, expected.attn_weights))
      << "attention weights depend on the arena";

  // A plan runs any number of times: the second run on the tight arena agrees.
  RunOutputs again;
  ASSERT_EQ(tight.Run(&again), EA_OK);
  EXPECT_TRUE(SameBits(again.y, got.y));
  EXPECT_TRUE(SameBits(again.attn_weights, got.attn_weights));
}

// --------------------------------------------------- C++ layer static arenas

TEST(ArenaStaticArena, ShapesPlanIntoStaticArenasOfExactlyKArenaBytes) {
  static edgeattn::StaticArena<CompileTimeAttention::kArenaBytes> attention_arena;
  static edgeattn::StaticArena<CompileTimeSelfAttention::kArenaBytes> self_attention_arena;
  static edgeattn::StaticArena<CompileTimeMha::kArenaBytes> mha_arena;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(attention_arena.bytes) % EA_ARENA_ALIGNMENT, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(self_attention_arena.bytes) % EA_ARENA_ALIGNMENT, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(mha_arena.bytes) % EA_ARENA_ALIGNMENT, 0u);

  ea_attention_plan attention_plan{};
  EXPECT_EQ(CompileTimeAttention::Plan(&attention_plan, attention_arena, EA_MASK_CAUSAL), EA_OK);

  const std::vector<float> w_q = edgeattn_test::RandomTensor(3 * 6, 401);
  const std::vector<float> w_k = edgeattn_test::RandomTensor(3 * 6, 402);
  const std::vector<float> w_v = edgeattn_test::RandomTensor(5 * 6, 403);
  const ea_self_attention_weights self_weights{w_q.data(), w_k.data(), w_v.data(),
                                               nullptr,    nullptr,    nullptr};
  ea_self_attention_plan self_plan{};
  EXPECT_EQ(CompileTimeSelfAttention::Plan(&self_plan, self_weights, self_attention_arena), EA_OK);

  const std::vector<float> in_proj = edgeattn_test::RandomTensor(3 * 12 * 12, 404);
  const std::vector<float> out_proj = edgeattn_test::RandomTensor(12 * 12, 405);
  const std::vector<float> learned = edgeattn_test::RandomTensor(17 * 12, 406);
  const ea_mha_weights mha_weights =
      edgeattn_test::InProjWeights(in_proj.data(), nullptr, out_proj.data(), nullptr);
  ea_mha_plan mha_plan{};
  EXPECT_EQ(CompileTimeMha::Plan(&mha_plan, mha_weights, mha_arena, EA_MASK_NONE, learned.data()),
            EA_OK);
}

}  // namespace

// The formulas are total (arena_sizes.hpp): any int32 arguments, including
// the ones a C size function refuses, give some value with no undefined
// behaviour. make test traps a division by zero (SIGFPE on x86); make asan's
// UBSan reports a signed overflow. 0.9.1 divided by n_heads unchecked and
// computed 3 * d_model in int32.
TEST(ArenaFormulas, AreTotalOverEveryInt32Edge) {
  // volatile: evaluated at run time, not folded by the compiler.
  const volatile int32_t edges[] = {0, -1, 1, 3, INT32_MIN, INT32_MAX, INT32_MAX / 3 + 1};
  uint64_t sum = 0;  // kept, so that no call is dropped
  for (const int32_t a : edges) {
    for (const int32_t b : edges) {
      for (const int32_t c : edges) {
        sum += edgeattn::MhaArenaBytes(a, b, c, edgeattn::PositionStorage::kArena,
                                       EA_WEIGHTS_ROW_MAJOR, a);
        sum += edgeattn::MhaQuantArenaBytes(a, b, c, EA_DTYPE_INT16,
                                            edgeattn::PositionStorage::kArena, b);
        sum += edgeattn::DecoderArenaBytes(a, b, c, a, b, c, EA_KV_STORAGE_Q8,
                                           edgeattn::PositionStorage::kArena, EA_WEIGHTS_ROW_MAJOR);
        sum += edgeattn::CrossArenaBytes(a, b, c, a, b, EA_KV_STORAGE_F16, EA_WEIGHTS_ROW_MAJOR);
        sum += edgeattn::SelfAttentionArenaBytes(a, b, c, a, edgeattn::PositionStorage::kArena,
                                                 EA_WEIGHTS_ROW_MAJOR, b);
        sum += edgeattn::SelfAttentionQuantArenaBytes(a, b, c, a, EA_DTYPE_INT8,
                                                      edgeattn::PositionStorage::kArena, c);
        sum += edgeattn::AttentionQuantArenaBytes(a, b, c, EA_DTYPE_INT8, a);
        sum += edgeattn::DecoderQuantArenaBytes(a, b, c, a, EA_DTYPE_INT8,
                                                edgeattn::PositionStorage::kArena, c, b);
        sum += static_cast<uint64_t>(edgeattn::DecoderQuantCapacity(a, b, c));
        sum += edgeattn::KvCacheArenaBytes(a, b, c, a, b, EA_KV_STORAGE_Q8);
        sum += edgeattn::AttentionArenaBytes(a, b, c);
        sum += static_cast<uint64_t>(edgeattn::DecoderCacheCapacity(a, b, c));
      }
    }
  }
  // A valid shape still gives its value.
  EXPECT_EQ(edgeattn::CrossArenaBytes(32, 4, 2, 4, 8, EA_KV_STORAGE_F32, EA_WEIGHTS_PACKED) > 0,
            true);
  RecordProperty("checksum", std::to_string(sum));
}
