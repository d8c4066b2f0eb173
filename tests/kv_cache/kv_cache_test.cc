// The KV cache against the double-precision reference on every SIMD target:
// token-by-token and chunked streams equal full causal attention over the
// stored keys and values, for f32, f16 and int8 storage, grouped-query and
// multi-query heads, sliding windows on a ring that wraps many times, head
// sizes that are no multiple of any vector, and positions across block
// boundaries; large scores, non-finite values and the storage rules' edges.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/kv_cache.h"
#include "reference/random_tensor.h"
#include "reference/reference_attention.h"
#include "reference/reference_decode.h"
#include "simd_targets.h"
#include "test_support.h"

namespace edgeattn_test {
namespace {

struct CacheShape {
  int n_heads;
  int n_kv_heads;
  int d;
  int capacity;
  int max_queries;
  int window;
  ea_kv_storage storage;
  const float* alibi_slopes = nullptr;
};

ea_kv_cache_config ConfigOf(const CacheShape& s) {
  return ea_kv_cache_config{s.capacity, s.n_heads, s.n_kv_heads, s.d,           s.max_queries,
                            s.window,   s.storage, 0.0f,         s.alibi_slopes};
}

// A cache in its own arena of exactly the documented size.
class OwnedCache {
 public:
  explicit OwnedCache(const ea_kv_cache_config& config)
      : arena_bytes_(static_cast<size_t>(edgeattn::KvCacheArenaBytes(config))),
        storage_(arena_bytes_, 0xCD) {
    EXPECT_EQ(ea_arena_init(&arena_, storage_.data(), arena_bytes_), EA_OK);
    init_status_ = ea_kv_cache_init(&cache_, &config, &arena_);
  }
  ea_status init_status() const { return init_status_; }
  ea_kv_cache* get() { return &cache_; }
  const ea_arena& arena() const { return arena_; }

 private:
  size_t arena_bytes_;
  AlignedBytes storage_;
  ea_arena arena_{};
  ea_kv_cache cache_{};
  ea_status init_status_ = EA_OK;
};

class KvCacheTest : public PerTargetTest {};

// The reference decode of one stream's stored keys and values: the error of
// `out` against it, in units of max |reference| (NormScaledError); for int8
// and int4, the error past the bound of their weights' rounding, against
// queries rounded as the cache rounds them (kv_cache.h, "INT8"). The values'
// int8 / int4 levels are the stream's, computed once.
class StreamReference {
 public:
  StreamReference(const DecodeProblem& problem, ea_kv_storage storage,
                  const std::vector<double>& k_stored, const std::vector<double>& v_stored)
      : problem_(problem), storage_(storage), k_stored_(k_stored), v_stored_(v_stored) {
    if (Quantized()) levels_ = ValueLevelsInt8(v_stored_, problem.d, StoredAsOf(storage));
  }
  double Error(const std::vector<float>& q, int first_position, int n_queries,
               const float* out) const {
    if (Quantized()) {
      return Int8DecodeError(
          out, ReferenceDecodeInt8(problem_, q, first_position, n_queries, k_stored_, v_stored_,
                                   levels_, StoredAsOf(storage_)));
    }
    return NormScaledError(
        out, ReferenceDecode(problem_, q, first_position, n_queries, k_stored_, v_stored_));
  }

 private:
  bool Quantized() const { return storage_ == EA_KV_STORAGE_Q8 || storage_ == EA_KV_STORAGE_Q4; }
  DecodeProblem problem_;
  ea_kv_storage storage_;
  const std::vector<double>& k_stored_;
  const std::vector<double>& v_stored_;
  Int8ValueLevels levels_;
};

// Streams `total` tokens through a cache in chunks taken cyclically from
// `chunks` (each <= max_queries): append the chunk's keys and values, attend
// its queries, compare with the reference over the stored values.
void CheckStream(const CacheShape& s, int total, const std::vector<int>& chunks, uint64_t seed,
                 double stddev = 1.0) {
  SCOPED_TRACE(::testing::Message()
               << "heads " << s.n_heads << "/" << s.n_kv_heads << " d " << s.d << " capacity "
               << s.capacity << " window " << s.window << " storage " << s.storage);
  const size_t ld_q = static_cast<size_t>(s.n_heads) * s.d;
  const size_t ld_kv = static_cast<size_t>(s.n_kv_heads) * s.d;
  const std::vector<float> q = RandomTensor(static_cast<size_t>(total) * ld_q, seed, stddev);
  const std::vector<float> k = RandomTensor(static_cast<size_t>(total) * ld_kv, seed + 1, stddev);
  const std::vector<float> v = RandomTensor(static_cast<size_t>(total) * ld_kv, seed + 2);
  const std::vector<double> k_stored = StoredValues(k, s.d, StoredAsOf(s.storage));
  const std::vector<double> v_stored = StoredValues(v, s.d, StoredAsOf(s.storage));

  OwnedCache cache(ConfigOf(s));
  ASSERT_EQ(cache.init_status(), EA_OK);
  const StreamReference reference({s.n_heads, s.n_kv_heads, s.d, s.window, 0.0, s.alibi_slopes},
                                  s.storage, k_stored, v_stored);
  double worst = 0.0;
  int position = 0;
  for (size_t step = 0; position < total; ++step) {
    int n = chunks[step % chunks.size()];
    if (n > total - position) n = total - position;
    ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data() + position * ld_kv,
                                 v.data() + position * ld_kv, n),
              EA_OK);
    std::vector<float> out(static_cast<size_t>(n) * ld_q, NAN);
    const std::vector<float> q_chunk(q.begin() + static_cast<ptrdiff_t>(position * ld_q),
                                     q.begin() + static_cast<ptrdiff_t>((position + n) * ld_q));
    ASSERT_EQ(ea_kv_cache_attend(cache.get(), q_chunk.data(), n, out.data()), EA_OK);
    const double error = reference.Error(q_chunk, position, n, out.data());
    worst = std::fmax(worst, error);
    ASSERT_LE(error, kFloatErrorBound) << "tokens " << position << ".." << position + n - 1;
    position += n;
  }
  EXPECT_EQ(cache.get()->length, total);
  ::testing::Test::RecordProperty("worst_error", std::to_string(worst));
}

TEST_P(KvCacheTest, TokenByTokenEqualsCausalAttentionForEveryStorage) {
  for (const ea_kv_storage storage : kEveryKvStorage) {
    CheckStream({8, 8, 64, 150, 1, 0, storage}, 150, {1}, 11);
    CheckStream({4, 4, 17, 131, 1, 0, storage}, 131, {1}, 12);
    CheckStream({2, 2, 1, 70, 1, 0, storage}, 70, {1}, 13);
  }
}

TEST_P(KvCacheTest, GroupedAndMultiQueryHeadsReadTheirKvHead) {
  for (const ea_kv_storage storage : kEveryKvStorage) {
    CheckStream({8, 2, 64, 140, 1, 0, storage}, 140, {1}, 21);  // groups of 4
    CheckStream({8, 1, 65, 100, 1, 0, storage}, 100, {1}, 22);  // multi-query
    CheckStream({14, 2, 32, 80, 1, 0, storage}, 80, {1}, 23);   // 7 per group: two grid passes
    CheckStream({6, 3, 128, 70, 1, 0, storage}, 70, {1}, 24);
  }
}

// The queries of a group share one pass over their KV head as the rows of one
// grid; a head that is alone in its group is a grid of one row, which runs
// wider strips (kernels/f32/register_grid-inl.h, WidestStripCols). A grid cell sums in the
// same order whatever the grid's shape, so 12 query heads on 2 (or 1) KV heads
// give the same bits as the same queries on 12 KV heads that repeat them.
TEST_P(KvCacheTest, GroupedHeadsEqualTheirKvHeadRepeatedBitForBit) {
  constexpr int kHeads = 12;
  constexpr int kTokens = 80;  // past one 64-key panel (kKeyBlock), into a partial one
  for (const ea_kv_storage storage : kEveryKvStorage) {
    for (const int d : {64, 40}) {
      for (const int kv_heads : {2, 1}) {
        for (const int step : {1, 3}) {
          SCOPED_TRACE(::testing::Message() << "storage " << storage << " d " << d << " kv heads "
                                            << kv_heads << " step " << step);
          const int group = kHeads / kv_heads;
          const size_t ld_q = static_cast<size_t>(kHeads) * d;
          const size_t ld_kv = static_cast<size_t>(kv_heads) * d;
          const std::vector<float> q = RandomTensor(kTokens * ld_q, 41);
          const std::vector<float> k = RandomTensor(kTokens * ld_kv, 42);
          const std::vector<float> v = RandomTensor(kTokens * ld_kv, 43);
          // Head h of the repeated cache holds KV head h / group.
          std::vector<float> k_repeated(kTokens * ld_q), v_repeated(kTokens * ld_q);
          for (size_t t = 0; t < static_cast<size_t>(kTokens); ++t) {
            for (size_t h = 0; h < static_cast<size_t>(kHeads); ++h) {
              for (size_t c = 0; c < static_cast<size_t>(d); ++c) {
                const size_t from = t * ld_kv + h / static_cast<size_t>(group) * d + c;
                k_repeated[t * ld_q + h * d + c] = k[from];
                v_repeated[t * ld_q + h * d + c] = v[from];
              }
            }
          }
          OwnedCache grouped(ConfigOf({kHeads, kv_heads, d, kTokens, step, 0, storage}));
          OwnedCache repeated(ConfigOf({kHeads, kHeads, d, kTokens, step, 0, storage}));
          ASSERT_EQ(grouped.init_status(), EA_OK);
          ASSERT_EQ(repeated.init_status(), EA_OK);
          for (int position = 0; position < kTokens; position += step) {
            const int n = step < kTokens - position ? step : kTokens - position;
            ASSERT_EQ(ea_kv_cache_append(grouped.get(), k.data() + position * ld_kv,
                                         v.data() + position * ld_kv, n),
                      EA_OK);
            ASSERT_EQ(ea_kv_cache_append(repeated.get(), k_repeated.data() + position * ld_q,
                                         v_repeated.data() + position * ld_q, n),
                      EA_OK);
            std::vector<float> out_grouped(n * ld_q, NAN), out_repeated(n * ld_q, -1.0f);
            ASSERT_EQ(ea_kv_cache_attend(grouped.get(), q.data() + position * ld_q, n,
                                         out_grouped.data()),
                      EA_OK);
            ASSERT_EQ(ea_kv_cache_attend(repeated.get(), q.data() + position * ld_q, n,
                                         out_repeated.data()),
                      EA_OK);
            ASSERT_EQ(std::memcmp(out_grouped.data(), out_repeated.data(),
                                  out_grouped.size() * sizeof(float)),
                      0)
                << "tokens " << position << ".." << position + n - 1;
          }
        }
      }
    }
  }
}

TEST_P(KvCacheTest, ChunksOfQueriesAreBottomRightCausal) {
  for (const ea_kv_storage storage : kEveryKvStorage) {
    CheckStream({4, 2, 48, 200, 7, 0, storage}, 200, {7, 3, 1, 5, 2}, 31);
    CheckStream({3, 3, 63, 130, 64, 0, storage}, 130, {64, 1, 65 - 64}, 32);
  }
}

TEST_P(KvCacheTest, SlidingWindowRingWrapsManyTimes) {
  // Half the streams where doubles are software: still 2-5 wraps of each ring.
  const int divisor = kSoftwareDouble ? 2 : 1;
  for (const ea_kv_storage storage : kEveryKvStorage) {
    CheckStream({4, 2, 32, 42, 3, 40, storage}, 400 / divisor, {1, 3, 2}, 41);  // ring of one block
    CheckStream({2, 1, 16, 130, 1, 100, storage}, 600 / divisor, {1}, 42);  // ring of three blocks
    CheckStream({2, 2, 8, 64, 1, 64, storage}, 300 / divisor, {1}, 43);     // window = capacity
    CheckStream({2, 2, 8, 200, 4, 1, storage}, 50, {4, 1}, 44);  // each query sees itself
  }
}

TEST_P(KvCacheTest, AlibiBiasesEachHeadByDistance) {
  // The paper's slopes (a power-of-two head count, and 6 heads), and slopes
  // of either sign: scores fall (or rise) linearly with the key's distance.
  std::vector<float> slopes8(8), slopes6(6);
  ASSERT_EQ(ea_alibi_slopes_fill(slopes8.data(), 8), EA_OK);
  ASSERT_EQ(ea_alibi_slopes_fill(slopes6.data(), 6), EA_OK);
  const std::vector<float> mixed = {0.5f, -0.25f, 0.0f, 2.0f};
  for (const ea_kv_storage storage : kEveryKvStorage) {
    CheckStream({8, 2, 32, 150, 1, 0, storage, slopes8.data()}, 150, {1}, 55);
    CheckStream({6, 3, 17, 130, 3, 60, storage, slopes6.data()}, 300, {3, 1}, 56);
    CheckStream({4, 4, 8, 80, 1, 0, storage, mixed.data()}, 80, {1}, 57);
  }
}

// The slopes are read after out is zeroed: out must not hold them.
// attend_all: every query, however many, sits at the newest position and
// sees all the cache holds (its window with one): cross-attention's form.
TEST_P(KvCacheTest, AttendAllSeesEveryHeldPosition) {
  for (const ea_kv_storage storage : kEveryKvStorage) {
    for (const int window : {0, 50}) {
      const CacheShape s{4, 2, 24, 140, 9, window, storage};
      SCOPED_TRACE(::testing::Message() << "storage " << storage << " window " << window);
      const int total = 130;
      const size_t ld_q = 4 * 24, ld_kv = 2 * 24;
      const std::vector<float> k = RandomTensor(total * ld_kv, 61),
                               v = RandomTensor(total * ld_kv, 62);
      const std::vector<float> q = RandomTensor(9 * ld_q, 63);
      OwnedCache cache(ConfigOf(s));
      ASSERT_EQ(cache.init_status(), EA_OK);
      std::vector<float> out(q.size(), 7.0f);
      EXPECT_EQ(ea_kv_cache_attend_all(cache.get(), q.data(), 1, out.data()), EA_ERR_BAD_DIMENSION);
      for (const float value : out) ASSERT_EQ(value, 7.0f);  // an empty cache: nothing to see
      const std::vector<double> k_stored = StoredValues(k, 24, StoredAsOf(storage));
      const std::vector<double> v_stored = StoredValues(v, 24, StoredAsOf(storage));
      const StreamReference reference({4, 2, 24, window, 0.0}, storage, k_stored, v_stored);
      for (const int length : {1, 64, 130}) {
        ASSERT_EQ(ea_kv_cache_reset(cache.get()), EA_OK);
        ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), v.data(), length), EA_OK);
        // More queries than tokens held is fine here, unlike a causal attend.
        ASSERT_EQ(ea_kv_cache_attend_all(cache.get(), q.data(), 9, out.data()), EA_OK);
        EXPECT_EQ(ea_kv_cache_attend_all(cache.get(), q.data(), 10, out.data()),
                  EA_ERR_BAD_DIMENSION);
        for (int i = 0; i < 9; ++i) {
          const std::vector<float> row(q.begin() + i * ld_q, q.begin() + (i + 1) * ld_q);
          EXPECT_LE(reference.Error(row, length - 1, 1, out.data() + i * ld_q), kFloatErrorBound)
              << "length " << length << " query " << i;
        }
      }
    }
  }
}

// Without a window, max_queries and capacity are independent: a cache of 4
// positions takes attend_all's 9 queries (cross-attention over a short
// memory), while a causal attend stays bounded by the tokens held. 0.9.1
// refused max_queries > capacity at init.
TEST_P(KvCacheTest, MoreQueriesThanCapacityWithoutAWindow) {
  const CacheShape s{2, 2, 8, 4, 9, 0, EA_KV_STORAGE_F32};
  const size_t ld = 2 * 8;
  const std::vector<float> k = RandomTensor(4 * ld, 71), v = RandomTensor(4 * ld, 72);
  const std::vector<float> q = RandomTensor(9 * ld, 73);
  OwnedCache cache(ConfigOf(s));
  ASSERT_EQ(cache.init_status(), EA_OK);
  ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), v.data(), 4), EA_OK);
  std::vector<float> out(q.size(), 7.0f);
  EXPECT_EQ(ea_kv_cache_attend(cache.get(), q.data(), 5, out.data()), EA_ERR_BAD_DIMENSION);
  for (const float value : out) ASSERT_EQ(value, 7.0f);
  ASSERT_EQ(ea_kv_cache_attend_all(cache.get(), q.data(), 9, out.data()), EA_OK);
  const DecodeProblem problem{2, 2, 8, 0, 0.0};
  const std::vector<double> k_stored = StoredValues(k, 8, StoredAs::kF32);
  const std::vector<double> v_stored = StoredValues(v, 8, StoredAs::kF32);
  for (int i = 0; i < 9; ++i) {
    const std::vector<float> row(q.begin() + i * ld, q.begin() + (i + 1) * ld);
    EXPECT_LE(NormScaledError(out.data() + i * ld,
                              ReferenceDecode(problem, row, 3, 1, k_stored, v_stored)),
              kFloatErrorBound)
        << "query " << i;
  }
}

TEST(KvCacheAlibi, OutOverTheSlopesIsRefused) {
  std::vector<float> buffer(8 + 2, 0.0f);
  ASSERT_EQ(ea_alibi_slopes_fill(buffer.data(), 2), EA_OK);
  const std::vector<float> slopes(buffer.begin(), buffer.begin() + 2);
  const ea_kv_cache_config config{4, 2, 1, 4, 1, 0, EA_KV_STORAGE_F32, 0.0f, buffer.data()};
  OwnedCache cache(config);
  ASSERT_EQ(cache.init_status(), EA_OK);
  const std::vector<float> kv(4, 1.0f), q(8, 0.5f);
  ASSERT_EQ(ea_kv_cache_append(cache.get(), kv.data(), kv.data(), 1), EA_OK);
  EXPECT_EQ(ea_kv_cache_attend(cache.get(), q.data(), 1, buffer.data() + 1), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(ea_kv_cache_attend(cache.get(), q.data(), 1, buffer.data()), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(std::vector<float>(buffer.begin(), buffer.begin() + 2), slopes);
  std::vector<float> out(8);
  EXPECT_EQ(ea_kv_cache_attend(cache.get(), q.data(), 1, out.data()), EA_OK);
}

TEST(KvCacheAlibi, SlopesAreThePapers) {
  std::vector<float> slopes(16);
  for (const int n : {1, 2, 4, 8, 16}) {
    ASSERT_EQ(ea_alibi_slopes_fill(slopes.data(), n), EA_OK);
    for (int h = 0; h < n; ++h) EXPECT_FLOAT_EQ(slopes[h], std::pow(2.0, -8.0 * (h + 1) / n)) << n;
  }
  // 12 heads: the 8 slopes of 8 heads, then slopes 0, 2, 4, 6 of 16 heads.
  ASSERT_EQ(ea_alibi_slopes_fill(slopes.data(), 12), EA_OK);
  for (int h = 0; h < 8; ++h) EXPECT_FLOAT_EQ(slopes[h], std::pow(2.0, -(h + 1.0)));
  for (int k = 0; k < 4; ++k) EXPECT_FLOAT_EQ(slopes[8 + k], std::pow(2.0, -0.5 * (2 * k + 1)));
  EXPECT_EQ(ea_alibi_slopes_fill(slopes.data(), 0), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(ea_alibi_slopes_fill(nullptr, 4), EA_ERR_NULL_POINTER);
}

TEST_P(KvCacheTest, LargeScoresDoNotOverflow) {
  // Scores of magnitude ~1e4 .. 1e5 after scaling: the softmax is one-hot,
  // and the running maximum and exponent come from the same rounded scores.
  for (const ea_kv_storage storage : {EA_KV_STORAGE_F32, EA_KV_STORAGE_Q8, EA_KV_STORAGE_Q4}) {
    const CacheShape s{2, 2, 64, 90, 1, 0, storage};
    const int total = 90;
    const size_t ld = 2 * 64;
    const std::vector<float> q = RandomTensor(total * ld, 51, 30.0);
    const std::vector<float> k = RandomTensor(total * ld, 52, 30.0);
    const std::vector<float> v = RandomTensor(total * ld, 53);
    const std::vector<double> k_stored = StoredValues(k, s.d, StoredAsOf(storage));
    const std::vector<double> v_stored = StoredValues(v, s.d, StoredAsOf(storage));
    const StreamReference reference({2, 2, 64, 0, 0.0}, storage, k_stored, v_stored);
    OwnedCache cache(ConfigOf(s));
    ASSERT_EQ(cache.init_status(), EA_OK);
    for (int t = 0; t < total; ++t) {
      ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data() + t * ld, v.data() + t * ld, 1), EA_OK);
      const std::vector<float> q_row(q.begin() + t * ld, q.begin() + (t + 1) * ld);
      std::vector<float> out(ld, NAN);
      ASSERT_EQ(ea_kv_cache_attend(cache.get(), q_row.data(), 1, out.data()), EA_OK);
      // |score| <= 8 * 30 * 30 * sqrt(64) / 8 or so: the bound's score term.
      EXPECT_LE(reference.Error(q_row, t, 1, out.data()), FloatErrorBound(2.0e5, 64)) << t;
    }
  }
}

// The ready cache after appending `rows` given token rows (kv heads of d).
std::vector<float> AttendOne(OwnedCache* cache, const std::vector<float>& q) {
  std::vector<float> out(q.size(), 0.0f);
  EXPECT_EQ(ea_kv_cache_attend(cache->get(), q.data(), 1, out.data()), EA_OK);
  return out;
}

TEST_P(KvCacheTest, NonFiniteValuesReachOnlyTheQueriesThatSeeThem) {
  for (const ea_kv_storage storage : kEveryKvStorage) {
    SCOPED_TRACE(storage);
    // Window 2: the NaN value of token 0 is seen by queries 0 and 1 only.
    OwnedCache cache(ConfigOf({1, 1, 4, 8, 1, 2, storage}));
    ASSERT_EQ(cache.init_status(), EA_OK);
    const std::vector<float> q = {0.5f, -1.0f, 0.25f, 2.0f};
    std::vector<float> k = {1.0f, 2.0f, 3.0f, 4.0f};
    std::vector<float> v = {NAN, 1.0f, 2.0f, 3.0f};
    ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), v.data(), 1), EA_OK);
    EXPECT_TRUE(std::isnan(AttendOne(&cache, q)[0]));
    v = {1.0f, 2.0f, 3.0f, 4.0f};
    ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), v.data(), 1), EA_OK);
    EXPECT_TRUE(std::isnan(AttendOne(&cache, q)[0]));
    ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), v.data(), 1), EA_OK);
    // Within the storage's rounding of v (int4: half a step of 4 / 7).
    const std::vector<float> clean = AttendOne(&cache, q);
    const double rounding = storage == EA_KV_STORAGE_Q4 ? 0.29 : 0.05 * 4.0;
    for (size_t c = 0; c < 4; ++c) EXPECT_NEAR(clean[c], v[c], rounding) << c;
    // An infinite key makes its query's scores non-finite: NaN, not a mask.
    k[2] = INFINITY;
    ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), v.data(), 1), EA_OK);
    for (float y : AttendOne(&cache, q)) EXPECT_TRUE(std::isnan(y));
  }
}

// A NaN value in the first 64-key block, then a key in the second whose
// score is 500 above the rest: the first block's factor exp(-500) underflows
// to 0, and 0 * NaN must still be NaN (PyTorch's softmax gives token 0
// probability 0 and 0 * NaN); the other channels are token 70's value (int8
// and int4 store token 0's whole head with a NaN scale: all NaN). The
// fuzzer's finding: the kernel dropped the output row on a 0 factor.
TEST_P(KvCacheTest, NonFiniteValueOutlivesAnUnderflowedRescale) {
  for (const ea_kv_storage storage : kEveryKvStorage) {
    SCOPED_TRACE(storage);
    OwnedCache cache(ConfigOf({1, 1, 4, 80, 1, 0, storage}));
    ASSERT_EQ(cache.init_status(), EA_OK);
    const std::vector<float> zero_key = {0.0f, 0.0f, 0.0f, 0.0f}, high_key = {1000.0f, 0, 0, 0};
    const std::vector<float> nan_value = {NAN, 1.0f, 1.0f, 1.0f}, ones = {1.0f, 1.0f, 1.0f, 1.0f};
    const std::vector<float> last_value = {5.0f, 6.0f, 7.0f, 8.0f};
    for (int t = 0; t < 71; ++t) {
      const std::vector<float>& k = t == 70 ? high_key : zero_key;
      const std::vector<float>& v = t == 0 ? nan_value : t == 70 ? last_value : ones;
      ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), v.data(), 1), EA_OK) << t;
    }
    const std::vector<float> out = AttendOne(&cache, {1.0f, 0.0f, 0.0f, 0.0f});
    EXPECT_TRUE(std::isnan(out[0])) << out[0];
    const bool codes = storage == EA_KV_STORAGE_Q8 || storage == EA_KV_STORAGE_Q4;
    for (size_t c = 1; c < 4; ++c) {
      if (codes) {
        EXPECT_TRUE(std::isnan(out[c])) << c;
      } else {
        EXPECT_NEAR(out[c], last_value[c], 0.1) << c;
      }
    }
  }
}

TEST_P(KvCacheTest, StorageEdges) {
  // f16: 65519 and the float below 65520 round to 65504, 65520 and up to inf
  // (a NaN output); int8: an all-zero head stores scale 0 and attends to
  // exactly 0.
  {
    OwnedCache cache(ConfigOf({1, 1, 2, 4, 1, 0, EA_KV_STORAGE_F16}));
    ASSERT_EQ(cache.init_status(), EA_OK);
    const std::vector<float> k = {0.0f, 0.0f}, q = {1.0f, 1.0f};
    const std::vector<float> v = {65519.0f, -6.0e-8f};
    ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), v.data(), 1), EA_OK);
    const std::vector<float> y = AttendOne(&cache, q);
    EXPECT_EQ(y[0], 65504.0f);
    EXPECT_EQ(y[1], -std::ldexp(1.0f, -24));  // the subnormal nearest -6e-8
    const std::vector<float> big = {65520.0f, 1.0f};
    ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), big.data(), 1), EA_OK);
    EXPECT_TRUE(std::isinf(AttendOne(&cache, q)[0]) || std::isnan(AttendOne(&cache, q)[0]));
    ASSERT_EQ(ea_kv_cache_reset(cache.get()), EA_OK);
    const std::vector<float> below = {std::nextafter(65520.0f, 0.0f), -65519.5f};
    ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), below.data(), 1), EA_OK);
    EXPECT_EQ(AttendOne(&cache, q), (std::vector<float>{65504.0f, -65504.0f}));
  }
  {
    OwnedCache cache(ConfigOf({1, 1, 3, 4, 1, 0, EA_KV_STORAGE_Q8}));
    ASSERT_EQ(cache.init_status(), EA_OK);
    const std::vector<float> zeros = {0.0f, 0.0f, 0.0f}, q = {1.0f, 2.0f, 3.0f};
    ASSERT_EQ(ea_kv_cache_append(cache.get(), zeros.data(), zeros.data(), 1), EA_OK);
    for (float y : AttendOne(&cache, q)) EXPECT_EQ(y, 0.0f);
    // x / scale exactly at a tie: 0.5 * 127 / 127 ... ties go to even.
    const std::vector<float> k = {1.0f, 0.0f, 0.0f};
    const std::vector<float> v = {127.0f, 0.5f, -1.5f};  // scale 1: 0.5 -> 0, -1.5 -> -2
    ASSERT_EQ(ea_kv_cache_reset(cache.get()), EA_OK);
    ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), v.data(), 1), EA_OK);
    // One key: its weight codes to 255 with step 1/255 (float), so the
    // levels come back within a float rounding.
    const std::vector<float> y = AttendOne(&cache, q);
    EXPECT_NEAR(y[0], 127.0f, 2e-5f);
    EXPECT_EQ(y[1], 0.0f);
    EXPECT_NEAR(y[2], -2.0f, 2e-7f);
    // The float32 quotient is rounded, not the exact one: with scale 1/127
    // (float), x / scale rounds to exactly 4.5 and 5.5 in float (ties: 4 and
    // 6), while the exact quotients 4.50000024 and 5.49999976 would give 5, 5.
    const float scale = 1.0f / 127.0f;
    const std::vector<float> near_ties = {1.0f, 0x1.22448ap-5f, 0x1.62c58ap-5f};
    ASSERT_EQ(near_ties[1] / scale, 4.5f);
    ASSERT_EQ(near_ties[2] / scale, 5.5f);
    ASSERT_EQ(ea_kv_cache_reset(cache.get()), EA_OK);
    ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), near_ties.data(), 1), EA_OK);
    const std::vector<float> levels = AttendOne(&cache, q);
    EXPECT_NEAR(levels[1], 4.0f * scale, 1e-7f);
    EXPECT_NEAR(levels[2], 6.0f * scale, 1e-7f);
    // Values near FLT_MIN: their scale (and so the block's largest weight)
    // is subnormal, and 255 / largest would overflow without the weights'
    // power-of-two boost. armv7 NEON flushes subnormal operands to zero (its
    // SIMD float unit has no subnormals), so there such values come out 0.
    const std::vector<float> tiny = {1.27e-37f, 0.635e-37f, -1.27e-37f};
    ASSERT_EQ(ea_kv_cache_reset(cache.get()), EA_OK);
    ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), tiny.data(), 1), EA_OK);
    const std::vector<float> small = AttendOne(&cache, q);
#if defined(__arm__) && defined(__ARM_NEON)
    for (int c = 0; c < 3; ++c) {
      EXPECT_TRUE(small[c] == 0.0f || std::fabs(small[c] - tiny[c]) <= 2e-39f) << c;
    }
#else
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(small[c], tiny[c], 2e-39f) << c;
#endif
  }
}

// Every refusal returns its status and changes nothing: not the output, not
// the cache (its length, and what a later attend computes from it).
TEST_P(KvCacheTest, RefusalsLeaveOutputAndCacheUntouched) {
  for (const int window : {0, 6}) {
    SCOPED_TRACE(window);
    const ea_kv_cache_config config{8, 4, 2, 8, 3, window, EA_KV_STORAGE_F16, 0.0f, nullptr};
    OwnedCache owned(config);
    ASSERT_EQ(owned.init_status(), EA_OK);
    ea_kv_cache* cache = owned.get();
    const std::vector<float> kv = RandomTensor(8 * 16, 61);
    const std::vector<float> q = RandomTensor(3 * 32, 62);
    ASSERT_EQ(ea_kv_cache_append(cache, kv.data(), kv.data() + 3 * 16, 3), EA_OK);
    std::vector<float> before(3 * 32, 0.0f);
    ASSERT_EQ(ea_kv_cache_attend(cache, q.data(), 3, before.data()), EA_OK);

    float* inside = reinterpret_cast<float*>(cache->records);
    std::vector<float> overlapping(3 * 32 + 8, 1.0f);
    struct Refusal {
      const char* what;
      ea_status expected;
      ea_status got;
    };
    std::vector<float> out(3 * 32, 7.0f);
    const ea_kv_cache not_ready{};
    const Refusal attends[] = {
        {"no queries", EA_ERR_BAD_DIMENSION, ea_kv_cache_attend(cache, q.data(), 0, out.data())},
        {"more than max_queries", EA_ERR_BAD_DIMENSION,
         ea_kv_cache_attend(cache, q.data(), 4, out.data())},
        {"NULL out", EA_ERR_NULL_POINTER, ea_kv_cache_attend(cache, q.data(), 1, nullptr)},
        {"cache not ready", EA_ERR_BAD_ARGUMENT,
         ea_kv_cache_attend(&not_ready, q.data(), 1, out.data())},
        {"out overlaps q", EA_ERR_BAD_ARGUMENT,
         ea_kv_cache_attend(cache, overlapping.data(), 3, overlapping.data() + 8)},
        {"q inside the arena", EA_ERR_BAD_ARGUMENT,
         ea_kv_cache_attend(cache, inside, 1, out.data())},
    };
    for (const Refusal& r : attends) EXPECT_EQ(r.got, r.expected) << r.what;
    for (float y : out) EXPECT_EQ(y, 7.0f);
    for (size_t i = 8; i < overlapping.size(); ++i) EXPECT_EQ(overlapping[i], 1.0f);
    // Inside the carve: the cache's own records must not be overwritten.
    EXPECT_EQ(ea_kv_cache_attend(cache, q.data(), 1, inside), EA_ERR_BAD_ARGUMENT);

    const Refusal appends[] = {
        {"no tokens", EA_ERR_BAD_DIMENSION, ea_kv_cache_append(cache, kv.data(), kv.data(), 0)},
        {"more than capacity", EA_ERR_BAD_DIMENSION,
         ea_kv_cache_append(cache, kv.data(), kv.data(), 9)},
        {"NULL keys", EA_ERR_NULL_POINTER, ea_kv_cache_append(cache, nullptr, kv.data(), 1)},
        {"values inside the arena", EA_ERR_BAD_ARGUMENT,
         ea_kv_cache_append(cache, kv.data(), inside, 1)},
        {"past capacity without a window", window == 0 ? EA_ERR_CACHE_FULL : EA_OK,
         window == 0 ? ea_kv_cache_append(cache, kv.data(), kv.data(), 6) : EA_OK},
    };
    for (const Refusal& r : appends) EXPECT_EQ(r.got, r.expected) << r.what;
    EXPECT_EQ(cache->length, 3);
    std::vector<float> after(3 * 32, 0.0f);
    ASSERT_EQ(ea_kv_cache_attend(cache, q.data(), 3, after.data()), EA_OK);
    EXPECT_EQ(after, before);
  }
}

TEST_P(KvCacheTest, BadConfigsAreRefusedAtInit) {
  const ea_kv_cache_config good{16, 4, 2, 8, 2, 0, EA_KV_STORAGE_Q8, 0.0f, nullptr};
  const float bad_slopes[4] = {0.5f, NAN, 0.1f, 0.2f};
  struct Bad {
    const char* what;
    ea_kv_cache_config config;
    ea_status expected;
  };
  auto with = [&](auto change) {
    ea_kv_cache_config c = good;
    change(c);
    return c;
  };
  const Bad bads[] = {
      {"capacity 0", with([](ea_kv_cache_config& c) { c.capacity = 0; }), EA_ERR_BAD_DIMENSION},
      {"n_heads -1", with([](ea_kv_cache_config& c) { c.n_heads = -1; }), EA_ERR_BAD_DIMENSION},
      {"d_head 0", with([](ea_kv_cache_config& c) { c.d_head = 0; }), EA_ERR_BAD_DIMENSION},
      {"max_queries 0", with([](ea_kv_cache_config& c) { c.max_queries = 0; }),
       EA_ERR_BAD_DIMENSION},
      {"window -1", with([](ea_kv_cache_config& c) { c.window = -1; }), EA_ERR_BAD_DIMENSION},
      {"window + max_queries - 1 > capacity", with([](ea_kv_cache_config& c) { c.window = 16; }),
       EA_ERR_BAD_DIMENSION},
      {"n_heads % n_kv_heads", with([](ea_kv_cache_config& c) { c.n_kv_heads = 3; }),
       EA_ERR_HEADS_MISMATCH},
      {"scale NaN", with([](ea_kv_cache_config& c) { c.scale = NAN; }), EA_ERR_BAD_ARGUMENT},
      {"scale negative", with([](ea_kv_cache_config& c) { c.scale = -1.0f; }), EA_ERR_BAD_ARGUMENT},
      {"scale inf", with([](ea_kv_cache_config& c) { c.scale = INFINITY; }), EA_ERR_BAD_ARGUMENT},
      {"storage -1",
       with([](ea_kv_cache_config& c) { c.storage = static_cast<ea_kv_storage>(-1); }),
       EA_ERR_BAD_ARGUMENT},
      {"a NaN ALiBi slope", with([&](ea_kv_cache_config& c) { c.alibi_slopes = bad_slopes; }),
       EA_ERR_BAD_ARGUMENT},
      {"int8 d_head past EA_KV_Q8_MAX_D_HEAD",
       with([](ea_kv_cache_config& c) { c.d_head = EA_KV_Q8_MAX_D_HEAD + 1; }),
       EA_ERR_BAD_DIMENSION},
      {"int4 d_head past EA_KV_Q8_MAX_D_HEAD", with([](ea_kv_cache_config& c) {
         c.storage = EA_KV_STORAGE_Q4;
         c.d_head = EA_KV_Q8_MAX_D_HEAD + 1;
       }),
       EA_ERR_BAD_DIMENSION},
      {"storage 4", with([](ea_kv_cache_config& c) { c.storage = static_cast<ea_kv_storage>(4); }),
       EA_ERR_BAD_ARGUMENT},
      {"too many elements", with([](ea_kv_cache_config& c) {
         c.capacity = 1 << 24;
         c.d_head = 1 << 4;
       }),
       EA_ERR_DIMENSION_OVERFLOW},
  };
  AlignedBytes storage(1 << 16, 0x5A);
  for (const Bad& b : bads) {
    size_t bytes = 12345;
    EXPECT_EQ(ea_kv_cache_arena_size(&b.config, &bytes), b.expected) << b.what;
    EXPECT_EQ(bytes, 12345u) << b.what;
    ea_arena arena;
    ASSERT_EQ(ea_arena_init(&arena, storage.data(), storage.size()), EA_OK);
    ea_kv_cache cache{};
    cache.ready = EA_PLAN_READY;  // a failed init clears it
    EXPECT_EQ(ea_kv_cache_init(&cache, &b.config, &arena), b.expected) << b.what;
    EXPECT_NE(cache.ready, EA_PLAN_READY) << b.what;
    EXPECT_EQ(arena.used, 0u) << b.what;
  }
  for (size_t i = 0; i < storage.size(); ++i) ASSERT_EQ(storage.data()[i], 0x5A);
  ea_kv_cache cache{};
  EXPECT_EQ(ea_kv_cache_init(&cache, &good, nullptr), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_kv_cache_init(nullptr, &good, nullptr), EA_ERR_NULL_POINTER);
  EXPECT_EQ(ea_kv_cache_reset(&cache), EA_ERR_BAD_ARGUMENT);
}

// The int8 head limit's edge: EA_KV_Q8_MAX_D_HEAD channels are taken (f32
// takes more), and the largest sums there come out exact: a key of codes
// +127 against a query of +127 (255 * 127 a channel in vpdpbusd's unsigned
// form, 2^31 - 2.5e7 in all), another of -127, scores +1 and -1, so the
// output mixes their values 0.881 : 0.119 (a wrapped sum would give the
// second key all the weight).
TEST_P(KvCacheTest, Int8HeadLimitIsItsEdge) {
  constexpr int kD = EA_KV_Q8_MAX_D_HEAD;
  ea_kv_cache_config config{2, 1, 1, kD, 1, 0, EA_KV_STORAGE_Q8, 1.0f / kD, nullptr};
  size_t bytes = 0;
  EXPECT_EQ(ea_kv_cache_arena_size(&config, &bytes), EA_OK);
  config.storage = EA_KV_STORAGE_F32;
  config.d_head = kD + 1;
  EXPECT_EQ(ea_kv_cache_arena_size(&config, &bytes), EA_OK);
#if defined(__arm__) && !defined(__linux__)
  GTEST_SKIP() << "bare metal: the 8.4 MB arena of a 65536-channel head exceeds the boards' RAM";
#else
  config.storage = EA_KV_STORAGE_Q8;
  config.d_head = kD;
  OwnedCache cache(config);
  ASSERT_EQ(cache.init_status(), EA_OK);
  std::vector<float> k(2 * kD, 1.0f), v(2 * kD, 100.0f);
  for (int c = kD; c < 2 * kD; ++c) k[c] = v[c] = -1.0f;
  for (int c = kD; c < 2 * kD; ++c) v[c] = -100.0f;
  ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), v.data(), 2), EA_OK);
  const std::vector<float> q(kD, 1.0f);
  const std::vector<float> out = AttendOne(&cache, q);
  const double want = 100.0 * std::tanh(1.0);  // 100 (e - 1/e) / (e + 1/e)
  for (int c = 0; c < kD; ++c) ASSERT_NEAR(out[c], want, 0.5) << c;
#endif
}

EA_INSTANTIATE_PER_TARGET(KvCacheTest);

// Appends give the same bytes whichever target runs them: f16 rounding and
// int8 quantisation are integer code, not the target's conversions.
TEST(KvCacheStorage, StoredBytesAreTheSameOnEveryTarget) {
  for (const ea_kv_storage storage : kEveryKvStorage) {
    const ea_kv_cache_config config{80, 2, 2, 24, 1, 0, storage, 0.0f, nullptr};
    std::vector<float> kv = RandomTensor(80 * 48, 71, 300.0);
    kv[5] = 1e-6f;     // f16 subnormal
    kv[6] = 70000.0f;  // f16 overflow
    std::vector<std::vector<uint8_t>> stored;
    for (const int64_t target : TargetsUnderTest()) {
      ForceTarget(target);
      OwnedCache cache(config);
      ASSERT_EQ(cache.init_status(), EA_OK);
      ASSERT_EQ(ea_kv_cache_append(cache.get(), kv.data(), kv.data() + 40 * 48, 40), EA_OK);
      const uint8_t* records = cache.get()->records;
      stored.emplace_back(
          records, records + edgeattn::KvBlocks(80) * 2 * edgeattn::KvRecordBytes(24, storage));
      ForceTarget(0);
    }
    for (size_t t = 1; t < stored.size(); ++t)
      EXPECT_EQ(stored[t], stored[0]) << storage << " " << t;
  }
}

// int8 records hold exactly the reference's levels and scales (arena_sizes.hpp
// gives the record layout: K in channel quads [ceil(d / 4)][64][4], zeros
// past d, 64 K and 64 V scales, V in key quads [16][d][4]): scale =
// max|x| / 127, level = x / scale to nearest, ties to even, within
// [-127, 127]. The heads include exact ties (x.5 at scale 1),
// values that round past 127, subnormals and a non-finite head.
TEST_P(KvCacheTest, Int8RecordsHoldTheReferenceLevels) {
  constexpr int kHeads = 2, kTokens = 70;
  for (const int d : {24, 64, 7}) {
    SCOPED_TRACE(d);
    OwnedCache cache(ConfigOf({kHeads, kHeads, d, 128, 1, 0, EA_KV_STORAGE_Q8}));
    ASSERT_EQ(cache.init_status(), EA_OK);
    const size_t ld = static_cast<size_t>(kHeads) * d;
    std::vector<float> k = RandomTensor(kTokens * ld, 81, 3.0);
    std::vector<float> v = RandomTensor(kTokens * ld, 82, 3.0);
    for (size_t t = 0; t < static_cast<size_t>(kTokens); ++t) {
      float* head = &k[t * ld];
      if (t % 4 == 0) {  // scale 1: x.5 are ties
        head[0] = 127.0f;
        for (int c = 1; c < d; ++c)
          head[c] = static_cast<float>((c * 37 + static_cast<int>(t)) % 255 - 127) + 0.5f;
      } else if (t % 4 == 1) {
        for (int c = 0; c < d; ++c) head[c] = static_cast<float>(c - d / 2) * 1e-41f;
      } else if (t == 6) {
        head[d / 2] = NAN;
      }
    }
    ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), v.data(), kTokens), EA_OK);
    const uint64_t record_bytes = edgeattn::KvRecordBytes(d, EA_KV_STORAGE_Q8);
    const size_t key_bytes = 64 * static_cast<size_t>((d + 3) / 4 * 4);
    const size_t scale_bytes = 2 * 64 * sizeof(float);
    for (size_t t = 0; t < static_cast<size_t>(kTokens); ++t) {
      for (size_t h = 0; h < static_cast<size_t>(kHeads); ++h) {
        const uint8_t* record = cache.get()->records + ((t / 64) * kHeads + h) * record_bytes;
        float scales[2];
        memcpy(&scales[0], record + key_bytes + (t % 64) * sizeof(float), sizeof(float));
        memcpy(&scales[1], record + key_bytes + (64 + t % 64) * sizeof(float), sizeof(float));
        const size_t slot = t % 64;
        for (int c = d; c % 4 != 0; ++c) {
          ASSERT_EQ(record[static_cast<size_t>(c / 4) * 256 + slot * 4 + c % 4], 0) << c;
        }
        for (int which = 0; which < 2; ++which) {
          const float* x = (which == 0 ? k.data() : v.data()) + t * ld + h * d;
          const Int8Head want = QuantizeInt8Head(x, d);
          for (int c = 0; c < d; ++c) {
            const int8_t stored = static_cast<int8_t>(
                which == 0 ? record[static_cast<size_t>(c / 4) * 256 + slot * 4 + c % 4]
                           : record[key_bytes + scale_bytes + (slot / 4) * 4 * d +
                                    static_cast<size_t>(c) * 4 + slot % 4]);
            ASSERT_EQ(stored, want.levels[c])
                << (which == 0 ? "K" : "V") << " token " << t << " head " << h << " c " << c;
          }
          if (!want.finite) {
            EXPECT_TRUE(std::isnan(scales[which])) << t;
          } else {
            EXPECT_EQ(scales[which], want.scale) << t;
          }
        }
      }
    }
  }
}

// The values whose int4 rotation is `levels` (H_b y per block: 64 times the
// query rotation H_b y / 64), exact for small integers and halves.
std::vector<float> UnrotatedInt4Group(const std::vector<float>& levels) {
  std::vector<float> x =
      RotatedInt4Group(levels.data(), static_cast<int>(levels.size()), /*query=*/true);
  for (float& value : x) value *= 64.0f;
  return x;
}

// int4 records hold exactly the reference's levels and scales, in the
// layout arena_sizes.hpp gives: codes stored as code + 8 in nibbles; K in
// pairs of channel quads [ceil(d / 8)][64][4] (quad 2i low, 2i + 1 high,
// code 0 past d), K scales [groups][64], V scales [groups][64], then per
// group of 64 channels (width w) V in pairs of key quads [8][w][4] (key quad
// 2i low, 2i + 1 high). Per group: scale = max|x| / 7 over the group, level
// = x / scale to nearest, ties to even, within [-7, 7], where x is the
// group after its Hadamard rotation (RotatedInt4Group).
// d = 72 is two groups (64 and 8), d = 13 one group of blocks 8, 4 and 1
// with padding channels; keys near 3e38 take the rotation's prescaled path,
// keys near 1e-40 are subnormal.
TEST_P(KvCacheTest, Int4RecordsHoldTheReferenceLevels) {
  constexpr int kHeads = 2, kTokens = 70;
  for (const int d : {72, 13, 128}) {
    SCOPED_TRACE(d);
    OwnedCache cache(ConfigOf({kHeads, kHeads, d, 128, 1, 0, EA_KV_STORAGE_Q4}));
    ASSERT_EQ(cache.init_status(), EA_OK);
    const size_t ld = static_cast<size_t>(kHeads) * d;
    std::vector<float> k = RandomTensor(kTokens * ld, 83, 3.0);
    std::vector<float> v = RandomTensor(kTokens * ld, 84, 3.0);
    for (size_t t = 0; t < static_cast<size_t>(kTokens); ++t) {
      float* key = &k[t * ld];
      for (int c = 0; c < d && (t == 5 || t == 7); ++c) {
        key[c] *= t == 5 ? 3e37f : 1e-40f;  // the rotation's prescaled blocks; subnormals
      }
      float* head = &v[t * ld];
      if (t % 4 == 0) {
        // Rotated, scale 1 in every group and x.5 ties.
        for (int c = 0; c < d; ++c) {
          head[c] = c % 64 == 0 ? 7.0f : static_cast<int>((c * 5 + t) % 14) - 7 + 0.5f;
        }
        for (int c0 = 0; c0 < d; c0 += 64) {
          const int w = std::min(64, d - c0);
          const std::vector<float> levels(head + c0, head + c0 + w);
          const std::vector<float> spread = UnrotatedInt4Group(levels);
          std::copy(spread.begin(), spread.end(), head + c0);
          ASSERT_EQ(RotatedInt4Group(head + c0, w, false), levels);
        }
      } else if (t == 6) {
        head[d - 1] = NAN;  // the last group only
      }
    }
    ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), v.data(), kTokens), EA_OK);
    const int groups = (d + 63) / 64;
    const size_t key_bytes = 32 * static_cast<size_t>((d + 7) / 8 * 8);
    const size_t scale_bytes = 2 * static_cast<size_t>(groups) * 64 * sizeof(float);
    const uint64_t record_bytes = edgeattn::KvRecordBytes(d, EA_KV_STORAGE_Q4);
    EXPECT_EQ(record_bytes, (key_bytes + scale_bytes + 32 * static_cast<size_t>(d) + 63) / 64 * 64);
    for (size_t t = 0; t < static_cast<size_t>(kTokens); ++t) {
      for (size_t h = 0; h < static_cast<size_t>(kHeads); ++h) {
        const uint8_t* record = cache.get()->records + ((t / 64) * kHeads + h) * record_bytes;
        const size_t slot = t % 64;
        // The key code of channel c, and the value code of channel c.
        auto key_code = [&](int c) {
          const uint8_t byte = record[static_cast<size_t>(c / 8) * 256 + slot * 4 + c % 4];
          return ((c / 4) % 2 == 0 ? byte & 15 : byte >> 4) - 8;
        };
        auto value_code = [&](int c) {
          const int c0 = c / 64 * 64;
          const int w = std::min(64, d - c0);
          const uint8_t byte = record[key_bytes + scale_bytes + static_cast<size_t>(c0) * 32 +
                                      (slot / 8) * static_cast<size_t>(w) * 4 +
                                      static_cast<size_t>(c - c0) * 4 + slot % 4];
          return ((slot / 4) % 2 == 0 ? byte & 15 : byte >> 4) - 8;
        };
        for (int c = d; c % 8 != 0; ++c) ASSERT_EQ(key_code(c), 0) << c;
        for (int which = 0; which < 2; ++which) {
          for (int g = 0; g < groups; ++g) {
            const int c0 = 64 * g;
            const int w = std::min(64, d - c0);
            const float* x = (which == 0 ? k.data() : v.data()) + t * ld + h * d + c0;
            const Int8Head want = QuantizeLevels(RotatedInt4Group(x, w, false).data(), w, 7);
            float scale;
            memcpy(&scale,
                   record + key_bytes +
                       ((static_cast<size_t>(which * groups + g)) * 64 + slot) * sizeof(float),
                   sizeof(float));
            for (int c = 0; c < w; ++c) {
              ASSERT_EQ(which == 0 ? key_code(c0 + c) : value_code(c0 + c), want.levels[c])
                  << (which == 0 ? "K" : "V") << " token " << t << " head " << h << " c " << c0 + c;
            }
            if (!want.finite) {
              EXPECT_TRUE(std::isnan(scale)) << t;
            } else {
              EXPECT_EQ(scale, want.scale) << t;
            }
          }
        }
      }
    }
  }
}

// int4 groups are independent: a NaN in one value group makes only that
// group's output channels NaN (a NaN key anywhere makes the scores NaN, as
// for every storage); an all-zero group stores scale 0 and attends to 0.
TEST_P(KvCacheTest, Int4GroupsKeepTheirOwnScales) {
  constexpr int kD = 80;  // groups of 64 and 16
  OwnedCache cache(ConfigOf({1, 1, kD, 4, 1, 0, EA_KV_STORAGE_Q4}));
  ASSERT_EQ(cache.init_status(), EA_OK);
  std::vector<float> k(kD, 0.5f), v(kD, 0.0f), q(kD, 0.25f);
  std::vector<float> levels(64);
  for (int c = 0; c < 64; ++c) levels[c] = static_cast<float>(c % 15 - 7);  // scale 1
  const std::vector<float> spread = UnrotatedInt4Group(levels);
  std::copy(spread.begin(), spread.end(), v.begin());
  float tolerance = 0.0f;  // the rotations' float rounding
  for (const float value : v) tolerance = std::max(tolerance, 1e-6f * std::fabs(value));
  ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), v.data(), 1), EA_OK);
  std::vector<float> y = AttendOne(&cache, q);
  for (int c = 0; c < kD; ++c) EXPECT_NEAR(y[c], v[c], tolerance) << c;  // one key: code 255
  v[70] = NAN;
  ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), v.data(), 1), EA_OK);
  y = AttendOne(&cache, q);
  for (int c = 0; c < 64; ++c) EXPECT_NEAR(y[c], v[c], tolerance) << c;
  for (int c = 64; c < kD; ++c) EXPECT_TRUE(std::isnan(y[c])) << c;
  k[3] = NAN;
  ASSERT_EQ(ea_kv_cache_append(cache.get(), k.data(), v.data(), 1), EA_OK);
  for (float out : AttendOne(&cache, q)) EXPECT_TRUE(std::isnan(out));
}

TEST(KvCacheArena, InitCarvesExactlyTheFormula) {
  for (const ea_kv_storage storage : kEveryKvStorage) {
    const ea_kv_cache_config config{100, 6, 3, 20, 4, 0, storage, 0.0f, nullptr};
    size_t bytes = 0;
    ASSERT_EQ(ea_kv_cache_arena_size(&config, &bytes), EA_OK);
    EXPECT_EQ(bytes, edgeattn::KvCacheArenaBytes(config));
    OwnedCache cache(config);
    ASSERT_EQ(cache.init_status(), EA_OK);
    EXPECT_EQ(cache.arena().used, bytes);
    // One byte less does not fit.
    AlignedBytes small(bytes - 1);
    ea_arena arena;
    ASSERT_EQ(ea_arena_init(&arena, small.data(), bytes - 1), EA_OK);
    ea_kv_cache other{};
    EXPECT_EQ(ea_kv_cache_init(&other, &config, &arena), EA_ERR_ARENA_TOO_SMALL);
    EXPECT_EQ(arena.used, 0u);
  }
  // The formula is a constant expression: a static arena can be sized by it.
  constexpr uint64_t kBytes = edgeattn::KvCacheArenaBytes(512, 8, 8, 64, 1, EA_KV_STORAGE_F32);
  static_assert(kBytes == 2 * 512 * 8 * 64 * 4 + 128 + 6 * 256 * 4, "f32 cache of 512 tokens");
}

}  // namespace
}  // namespace edgeattn_test
