// Rotary position embedding against double-precision rotations, both channel
// pairings, with the KV cache: streams whose queries and keys are rotated
// equal causal attention over the rotated sequence, and scores depend on
// relative positions only (a shifted stream gives the same outputs).
#include <gtest/gtest.h>
#include <stdint.h>

#include <cmath>
#include <vector>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/kv_cache.h"
#include "edgeattn/rope.h"
#include "edgeattn/sinusoidal_table.hpp"
#include "reference/random_tensor.h"
#include "reference/reference_attention.h"
#include "reference/reference_decode.h"
#include "simd_targets.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

std::vector<float> Table(int positions, int d, float base) {
  std::vector<float> table(static_cast<size_t>(positions) * d);
  EXPECT_EQ(ea_rope_table_fill(table.data(), positions, d, base), EA_OK);
  return table;
}

TEST(Rope, TableIsSinAndCosRoundedOnce) {
  for (const float base : {10000.0f, 500000.0f, 2.0f}) {
    const int positions = 300, d = 18;
    const std::vector<float> table = Table(positions, d, base);
    for (int pos = 0; pos < positions; ++pos) {
      for (int i = 0; i < d / 2; ++i) {
        const double angle = pos * std::pow(static_cast<double>(base), -2.0 * i / d);
        EXPECT_EQ(table[pos * d + 2 * i], static_cast<float>(std::sin(angle))) << pos << " " << i;
        EXPECT_EQ(table[pos * d + 2 * i + 1], static_cast<float>(std::cos(angle))) << pos;
      }
    }
  }
}

TEST(Rope, Base10000TableIsTheSinusoidalTableOfDHead) {
  const std::vector<float> table = Table(128, 64, 10000.0f);
  std::vector<float> sinusoidal(128 * 64);
  ASSERT_EQ(ea_sinusoidal_table_fill(sinusoidal.data(), 128, 64), EA_OK);
  EXPECT_EQ(table, sinusoidal);
  // The constexpr table (flash) within a float rounding of it.
  static constexpr auto kFlash = edgeattn::MakeSinusoidalTable<128, 64>();
  for (size_t i = 0; i < table.size(); ++i) EXPECT_NEAR(kFlash.values[i], table[i], 1.2e-7) << i;
}

TEST(Rope, RotationMatchesDoublePrecision) {
  for (const ea_rope_layout layout : {EA_ROPE_HALF, EA_ROPE_INTERLEAVED}) {
    for (const int d : {2, 6, 64, 128}) {
      const int n = 5, heads = 3, first = 1000;
      const std::vector<float> table = Table(first + n, d, 10000.0f);
      std::vector<float> x = RandomTensor(static_cast<size_t>(n) * heads * d, 81 + d);
      const std::vector<double> want =
          ReferenceRope(std::vector<double>(x.begin(), x.end()), n, heads, d, first, 10000.0,
                        layout == EA_ROPE_INTERLEAVED);
      ASSERT_EQ(ea_rope_apply(x.data(), n, heads, d, first, table.data(), first + n, layout),
                EA_OK);
      // The table's rounding (2^-24 per entry) and the rotation's few roundings.
      EXPECT_LE(NormScaledError(x.data(), want), 4e-7) << layout << " d " << d;
    }
  }
}

TEST(Rope, RefusalsLeaveXUntouched) {
  const std::vector<float> table = Table(8, 4, 10000.0f);
  std::vector<float> x(2 * 4, 3.0f);
  struct Refusal {
    const char* what;
    ea_status got, expected;
  };
  const Refusal refusals[] = {
      {"NULL table", ea_rope_apply(x.data(), 2, 1, 4, 0, nullptr, 8, EA_ROPE_HALF),
       EA_ERR_NULL_POINTER},
      {"odd d_head", ea_rope_apply(x.data(), 2, 1, 3, 0, table.data(), 8, EA_ROPE_HALF),
       EA_ERR_BAD_DIMENSION},
      {"past the table", ea_rope_apply(x.data(), 2, 1, 4, 7, table.data(), 8, EA_ROPE_HALF),
       EA_ERR_BAD_DIMENSION},
      {"negative position", ea_rope_apply(x.data(), 2, 1, 4, -1, table.data(), 8, EA_ROPE_HALF),
       EA_ERR_BAD_DIMENSION},
      {"the last position past INT64_MAX",
       ea_rope_apply(x.data(), 2, 1, 4, INT64_MAX, table.data(), 8, EA_ROPE_HALF),
       EA_ERR_BAD_DIMENSION},
      {"no tokens", ea_rope_apply(x.data(), 0, 1, 4, 0, table.data(), 8, EA_ROPE_HALF),
       EA_ERR_BAD_DIMENSION},
      {"layout 2",
       ea_rope_apply(x.data(), 2, 1, 4, 0, table.data(), 8, static_cast<ea_rope_layout>(2)),
       EA_ERR_BAD_ARGUMENT},
      {"x over the table",
       ea_rope_apply(const_cast<float*>(table.data()) + 4, 1, 1, 4, 0, table.data(), 8,
                     EA_ROPE_HALF),
       EA_ERR_BAD_ARGUMENT},
      {"table base 1", ea_rope_table_fill(x.data(), 2, 4, 1.0f), EA_ERR_BAD_ARGUMENT},
      {"table base NaN", ea_rope_table_fill(x.data(), 2, 4, NAN), EA_ERR_BAD_ARGUMENT},
      {"table odd d", ea_rope_table_fill(x.data(), 2, 5, 10000.0f), EA_ERR_BAD_DIMENSION},
  };
  for (const Refusal& r : refusals) EXPECT_EQ(r.got, r.expected) << r.what;
  for (float v : x) EXPECT_EQ(v, 3.0f);
  EXPECT_EQ(table, Table(8, 4, 10000.0f));
}

class RopeDecodeTest : public PerTargetTest {};

// Streams n tokens through a cache with q and k rotated at positions
// first .. first + n - 1; returns every step's output.
std::vector<float> RotatedStream(const std::vector<float>& q, const std::vector<float>& k,
                                 const std::vector<float>& v, int n, int first,
                                 const std::vector<float>& table, ea_rope_layout layout) {
  const ea_kv_cache_config config{n, 4, 2, 32, 1, 0, EA_KV_STORAGE_F32, 0.0f, nullptr};
  AlignedBytes storage(static_cast<size_t>(edgeattn::KvCacheArenaBytes(config)));
  ea_arena arena;
  EXPECT_EQ(ea_arena_init(&arena, storage.data(), storage.size()), EA_OK);
  ea_kv_cache cache{};
  EXPECT_EQ(ea_kv_cache_init(&cache, &config, &arena), EA_OK);
  const int table_positions = static_cast<int>(table.size() / 32);
  std::vector<float> outputs;
  for (int t = 0; t < n; ++t) {
    std::vector<float> q_row(q.begin() + t * 128, q.begin() + (t + 1) * 128);
    std::vector<float> k_row(k.begin() + t * 64, k.begin() + (t + 1) * 64);
    EXPECT_EQ(
        ea_rope_apply(q_row.data(), 1, 4, 32, first + t, table.data(), table_positions, layout),
        EA_OK);
    EXPECT_EQ(
        ea_rope_apply(k_row.data(), 1, 2, 32, first + t, table.data(), table_positions, layout),
        EA_OK);
    EXPECT_EQ(ea_kv_cache_append(&cache, k_row.data(), v.data() + t * 64, 1), EA_OK);
    std::vector<float> out(128);
    EXPECT_EQ(ea_kv_cache_attend(&cache, q_row.data(), 1, out.data()), EA_OK);
    outputs.insert(outputs.end(), out.begin(), out.end());
  }
  return outputs;
}

TEST_P(RopeDecodeTest, RotatedStreamEqualsRotatedCausalAttention) {
  const int n = 100;
  const std::vector<float> table = Table(n, 32, 10000.0f);
  const std::vector<float> q = RandomTensor(n * 128, 91), k = RandomTensor(n * 64, 92),
                           v = RandomTensor(n * 64, 93);
  for (const ea_rope_layout layout : {EA_ROPE_HALF, EA_ROPE_INTERLEAVED}) {
    const std::vector<float> got = RotatedStream(q, k, v, n, 0, table, layout);
    const std::vector<double> q_rot = ReferenceRope(std::vector<double>(q.begin(), q.end()), n, 4,
                                                    32, 0, 10000.0, layout == EA_ROPE_INTERLEAVED);
    const std::vector<double> k_rot = ReferenceRope(std::vector<double>(k.begin(), k.end()), n, 2,
                                                    32, 0, 10000.0, layout == EA_ROPE_INTERLEAVED);
    const std::vector<double> v_double(v.begin(), v.end());
    for (int t = 0; t < n; ++t) {
      const std::vector<float> q_row(q_rot.begin() + t * 128, q_rot.begin() + (t + 1) * 128);
      const std::vector<double> want =
          ReferenceDecode({4, 2, 32, 0, 0.0}, q_row, t, 1, k_rot, v_double);
      EXPECT_LE(NormScaledError(got.data() + t * 128, want), kFloatErrorBound)
          << layout << " " << t;
    }
  }
}

TEST_P(RopeDecodeTest, OnlyRelativePositionsMatter) {
  const int n = 70, shift = 5000;
  const std::vector<float> table = Table(shift + n, 32, 10000.0f);
  const std::vector<float> q = RandomTensor(n * 128, 94), k = RandomTensor(n * 64, 95),
                           v = RandomTensor(n * 64, 96);
  const std::vector<float> at_zero = RotatedStream(q, k, v, n, 0, table, EA_ROPE_HALF);
  const std::vector<float> shifted = RotatedStream(q, k, v, n, shift, table, EA_ROPE_HALF);
  const std::vector<double> reference(at_zero.begin(), at_zero.end());
  // Float rounding of angles near 5000 rad (2^-24 relative, 3e-4 absolute)
  // is the only difference.
  EXPECT_LE(NormScaledError(shifted.data(), reference), 2e-3);
  EXPECT_GT(
      NormScaledError(RotatedStream(q, k, v, n, 0, table, EA_ROPE_INTERLEAVED).data(), reference),
      1e-2);  // the other pairing is another model
}

EA_INSTANTIATE_PER_TARGET(RopeDecodeTest);

}  // namespace
}  // namespace edgeattn_test
