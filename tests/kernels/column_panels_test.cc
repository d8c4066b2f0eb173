// The packed layouts of the dot-product kernels' right-hand operand
// (src/kernels/int/s8_panels.h, s16_panels.h; the int8 one also + 128, as
// VNNI reads it) against a plain reading of the layout: panel p, group g, column c, depth k holds
// B[16 p + c][G g + k], or 0 past B. Shapes cut panels and groups at every remainder, row strides
// wider than the rows, and depths past 1024 bytes, where the int8 column
// sums flush their 16-bit lanes; columns of all -128 and all 127 are the
// sums' extremes. The packing code is the same on every target.
#include <gtest/gtest.h>
#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "kernels/int/int_kernels.h"
#include "kernels/int/s16_panels.h"
#include "kernels/int/s8_panels.h"
#include "reference/random_tensor.h"

namespace edgeattn_test {
namespace {

// The value the layout puts at panel slot (p, g, c, k), from B[col][t].
template <typename T, class Element>
std::vector<T> ReferenceLayout(int32_t n_cols, int32_t depth, int32_t group, Element element) {
  constexpr int32_t kColumns = 16;
  const int32_t panels = (n_cols + kColumns - 1) / kColumns;
  const int32_t groups = (depth + group - 1) / group;
  std::vector<T> out;
  for (int32_t p = 0; p < panels; ++p) {
    for (int32_t g = 0; g < groups; ++g) {
      for (int32_t c = 0; c < kColumns; ++c) {
        for (int32_t k = 0; k < group; ++k) {
          const int32_t col = p * kColumns + c, t = g * group + k;
          out.push_back(col < n_cols && t < depth ? static_cast<T>(element(col, t)) : T{0});
        }
      }
    }
  }
  return out;
}

// B [rows, row_length] with stride ld: random bytes, row 0 all -128 and row 1
// all 127 (where there are rows enough).
std::vector<int8_t> Bytes(int32_t rows, size_t ld, RandomStream* random) {
  std::vector<int8_t> b(static_cast<size_t>(rows) * ld);
  for (int8_t& x : b) x = static_cast<int8_t>(static_cast<int32_t>(random->Uniform() * 256) - 128);
  for (size_t j = 0; j < ld; ++j) {
    b[j] = -128;
    if (rows > 1) b[ld + j] = 127;
  }
  return b;
}

// B's elements, element(c, t) at c * column_stride + t * depth_stride, in a
// buffer holding nothing else: every other byte up to 64 past B's last is
// 0x3C, so that a packer reading outside B packs 0x3C where the layout has
// B's element or a 0.
template <class Element>
std::vector<int8_t> OnlyB(int32_t n_cols, int32_t depth, size_t column_stride, size_t depth_stride,
                          Element element) {
  const size_t last = static_cast<size_t>(n_cols - 1) * column_stride +
                      static_cast<size_t>(depth - 1) * depth_stride;
  std::vector<int8_t> only(last + 1 + 64, 0x3C);
  for (int32_t c = 0; c < n_cols; ++c) {
    for (int32_t t = 0; t < depth; ++t) {
      only[static_cast<size_t>(c) * column_stride + static_cast<size_t>(t) * depth_stride] =
          element(c, t);
    }
  }
  return only;
}

// Which slots of a layout of `group`-deep groups a store of whole columns
// (depth padding included) writes: 1 for columns below n_cols, at every depth.
std::vector<int> ColumnSlots(int32_t n_cols, int32_t depth, int32_t group) {
  const int32_t padded_depth = (depth + group - 1) / group * group;
  return ReferenceLayout<int>(n_cols, padded_depth, group, [](int32_t, int32_t) { return 1; });
}

// Which slots of a layout [n_cols, deeper] a store of depth rows [0, depth)
// writes (the panels' padding columns included).
std::vector<int> DepthRowSlots(int32_t n_cols, int32_t depth, int32_t deeper, int32_t group) {
  return ReferenceLayout<int>((n_cols + 15) / 16 * 16, deeper, group,
                              [&](int32_t, int32_t t) { return t < depth; });
}

const int32_t kColumnCounts[] = {1, 2, 15, 16, 17, 33};
const int32_t kDepths[] = {1, 3, 4, 5, 7, 8, 9, 63, 64, 1024, 1031, 2100};

TEST(ColumnPanels, S8PanelsAndColumnSums) {
  RandomStream random(77);
  for (const int32_t n_cols : kColumnCounts) {
    for (const int32_t depth : kDepths) {
      const size_t ld = static_cast<size_t>(depth) + 3;
      const std::vector<int8_t> b = Bytes(n_cols, ld, &random);
      std::vector<int8_t> panels(edgeattn::S8PanelBytes(n_cols, depth), 0x55);
      std::vector<int32_t> sums(static_cast<size_t>(n_cols), 0x55);
      edgeattn::PackS8Panels(b.data(), ld, n_cols, depth, panels.data(), sums.data());
      const auto element = [&](int32_t c, int32_t t) { return b[c * ld + t]; };
      ASSERT_EQ(panels, ReferenceLayout<int8_t>(n_cols, depth, 4, element))
          << n_cols << " columns, depth " << depth;
      for (int32_t c = 0; c < n_cols; ++c) {
        int64_t sum = 0;
        for (int32_t t = 0; t < depth; ++t) sum += element(c, t);
        ASSERT_EQ(sums[static_cast<size_t>(c)], sum) << "column " << c << ", depth " << depth;
      }
      // The VNNI form: every byte + 128 as uint8, the same sums.
      std::vector<uint8_t> plus_128(panels.size(), 0x55);
      std::vector<int32_t> sums_again(sums.size(), 0x55);
      edgeattn::PackS8PanelsPlus128(b.data(), ld, n_cols, depth, plus_128.data(),
                                    sums_again.data());
      for (size_t i = 0; i < panels.size(); ++i) {
        ASSERT_EQ(plus_128[i], static_cast<uint8_t>(panels[i] + 128)) << "byte " << i;
      }
      ASSERT_EQ(sums_again, sums);
      // The packed attention's own (a gather per group on AVX3_DL), which
      // reads B's bytes only and writes n_cols sums only.
      const std::vector<int8_t> only = OnlyB(n_cols, depth, ld, 1, element);
      std::vector<uint8_t> dispatched(panels.size(), 0x55);
      std::vector<int32_t> dispatched_sums(sums.size() + 16, 0x55);
      edgeattn::PackKeyPanelsS8(only.data(), ld, n_cols, depth, dispatched.data(),
                                dispatched_sums.data());
      ASSERT_EQ(dispatched, plus_128) << n_cols << " columns, depth " << depth;
      for (size_t c = sums.size(); c < dispatched_sums.size(); ++c) {
        ASSERT_EQ(dispatched_sums[c], 0x55) << "a sum past column " << n_cols;
      }
      dispatched_sums.resize(sums.size());
      ASSERT_EQ(dispatched_sums, sums) << n_cols << " columns, depth " << depth;
      // Column by column, in place (a decoder adding keys): the same bytes
      // in each column's slots, depth padding included, nothing elsewhere.
      std::vector<uint8_t> by_column(panels.size(), 0x55);
      std::vector<int32_t> column_sums(sums.size(), 0x55);
      for (int32_t c = 0; c < n_cols; ++c) {
        edgeattn::StoreS8PanelColumnPlus128(b.data() + c * ld, depth, c, by_column.data(),
                                            column_sums.data());
      }
      const std::vector<int> written = ColumnSlots(n_cols, depth, 4);
      for (size_t i = 0; i < panels.size(); ++i) {
        ASSERT_EQ(by_column[i], written[i] ? plus_128[i] : uint8_t{0x55})
            << "byte " << i << ", " << n_cols << " columns, depth " << depth;
      }
      ASSERT_EQ(column_sums, sums) << n_cols << " columns, depth " << depth;
    }
  }
}

// One column whose stride is too long for the gather's int32 indices
// (16 rows apart would pass 2^31): the dispatched K packer takes the portable
// loop, with the same layout and sums.
TEST(ColumnPanels, S8KeyPanelsPastTheGathersReach) {
  RandomStream random(80);
  const size_t ld = size_t{1} << 27;
  for (const int32_t depth : {3, 64, 130}) {
    const std::vector<int8_t> row = Bytes(1, static_cast<size_t>(depth), &random);
    const auto element = [&](int32_t, int32_t t) { return row[static_cast<size_t>(t)]; };
    const std::vector<int8_t> only = OnlyB(1, depth, ld, 1, element);
    std::vector<uint8_t> panels(edgeattn::S8PanelBytes(1, depth), 0x55);
    std::vector<int32_t> sums(16, 0x55);
    edgeattn::PackKeyPanelsS8(only.data(), ld, 1, depth, panels.data(), sums.data());
    const std::vector<int8_t> want = ReferenceLayout<int8_t>(1, depth, 4, element);
    int32_t want_sum = 0;
    for (size_t i = 0; i < panels.size(); ++i) {
      ASSERT_EQ(panels[i], static_cast<uint8_t>(want[i] + 128)) << "depth " << depth;
    }
    for (int32_t t = 0; t < depth; ++t) want_sum += element(0, t);
    ASSERT_EQ(sums[0], want_sum) << "depth " << depth;
    for (size_t c = 1; c < sums.size(); ++c) ASSERT_EQ(sums[c], 0x55) << "a sum past column 1";
  }
}

TEST(ColumnPanels, S8PanelsOfTheTranspose) {
  RandomStream random(78);
  for (const int32_t n_cols : kColumnCounts) {
    for (const int32_t depth : kDepths) {
      const size_t ld = static_cast<size_t>(n_cols) + 5;
      const std::vector<int8_t> b = Bytes(depth, ld, &random);
      std::vector<int8_t> panels(edgeattn::S8PanelBytes(n_cols, depth), 0x55);
      edgeattn::PackS8PanelsTransposed(b.data(), ld, n_cols, depth, panels.data());
      const auto element = [&](int32_t c, int32_t t) { return b[t * ld + c]; };
      const std::vector<int8_t> want = ReferenceLayout<int8_t>(n_cols, depth, 4, element);
      ASSERT_EQ(panels, want) << n_cols << " columns, depth " << depth;
      // The packed attention's own (a permute per group on AVX3_DL), which
      // reads B's bytes only.
      const std::vector<int8_t> only = OnlyB(n_cols, depth, 1, ld, element);
      std::vector<int8_t> dispatched(panels.size(), 0x55);
      edgeattn::PackValuePanelsS8(only.data(), ld, n_cols, depth, dispatched.data());
      ASSERT_EQ(dispatched, want) << n_cols << " columns, depth " << depth;
      // Depth row by depth row, in place, into panels packed 6 deeper (a
      // decoder's V, packed for its longest stream): the layout of that
      // depth with the rows stored so far, the panels' padding columns 0.
      const int32_t deeper = depth + 6;
      std::vector<int8_t> by_row(edgeattn::S8PanelBytes(n_cols, deeper), 0x55);
      for (int32_t t = 0; t < depth; ++t) {
        edgeattn::StoreS8PanelDepthRow(b.data() + t * ld, n_cols, t, deeper, by_row.data());
      }
      const std::vector<int8_t> want_deeper = ReferenceLayout<int8_t>(
          n_cols, deeper, 4, [&](int32_t c, int32_t t) { return t < depth ? element(c, t) : 0; });
      const std::vector<int> stored = DepthRowSlots(n_cols, depth, deeper, 4);
      for (size_t i = 0; i < by_row.size(); ++i) {
        const int8_t expected = stored[i] ? want_deeper[i] : int8_t{0x55};
        ASSERT_EQ(by_row[i], expected)
            << "byte " << i << ", " << n_cols << " columns, depth " << depth;
      }
    }
  }
}

TEST(ColumnPanels, S16PairsFromEveryRowLayout) {
  RandomStream random(79);
  for (const int32_t n_cols : kColumnCounts) {
    for (const int32_t depth : kDepths) {
      const size_t ld = static_cast<size_t>(depth > n_cols ? depth : n_cols) + 1;
      const int32_t rows = depth > n_cols ? depth : n_cols;
      const std::vector<int8_t> bytes = Bytes(rows, ld, &random);
      std::vector<int16_t> wide(bytes.size());
      for (size_t i = 0; i < bytes.size(); ++i) wide[i] = static_cast<int16_t>(bytes[i] * 251);
      const size_t values = edgeattn::S16PanelValues(n_cols, depth);

      std::vector<int16_t> panels(values, 0x5555);
      edgeattn::PackS16Panels(wide.data(), ld, n_cols, depth, panels.data());
      ASSERT_EQ(panels,
                ReferenceLayout<int16_t>(n_cols, depth, 2,
                                         [&](int32_t c, int32_t t) { return wide[c * ld + t]; }))
          << n_cols << " columns, depth " << depth;

      std::vector<int16_t> transposed(values, 0x5555);
      edgeattn::PackS16PanelsTransposed(wide.data(), ld, n_cols, depth, transposed.data());
      ASSERT_EQ(transposed,
                ReferenceLayout<int16_t>(n_cols, depth, 2,
                                         [&](int32_t c, int32_t t) { return wide[t * ld + c]; }))
          << n_cols << " columns, depth " << depth;
    }
  }
}

// The int16 decoder's stores (s16_panels.h): K's pairs and high bytes a
// column at a time, V's pairs a depth row at a time into panels packed
// deeper, against the whole packings.
TEST(ColumnPanels, S16ColumnsAndDepthRowsStoredInPlace) {
  RandomStream random(81);
  for (const int32_t n_cols : kColumnCounts) {
    for (const int32_t depth : kDepths) {
      // K [n_cols, depth] and V [depth, n_cols], rows one value wider.
      const auto widened = [&](int32_t rows, size_t ld) {
        const std::vector<int8_t> bytes = Bytes(rows, ld, &random);
        std::vector<int16_t> wide(bytes.size());
        for (size_t i = 0; i < bytes.size(); ++i) wide[i] = static_cast<int16_t>(bytes[i] * 251);
        return wide;
      };
      const size_t ld = static_cast<size_t>(depth) + 1, ld_v = static_cast<size_t>(n_cols) + 1;
      const std::vector<int16_t> wide = widened(n_cols, ld), wide_v = widened(depth, ld_v);
      const auto key = [&](int32_t c) { return wide.data() + c * ld; };

      std::vector<int16_t> pairs(edgeattn::S16PanelValues(n_cols, depth), 0x5555);
      edgeattn::PackS16Panels(wide.data(), ld, n_cols, depth, pairs.data());
      std::vector<int16_t> pairs_by_column(pairs.size(), 0x5555);
      std::vector<uint8_t> high(edgeattn::S8PanelBytes(n_cols, depth), 0x55);
      edgeattn::PackS16HighBytesPlus128(wide.data(), ld, n_cols, depth, high.data());
      std::vector<uint8_t> high_by_column(high.size(), 0x55);
      for (int32_t c = 0; c < n_cols; ++c) {
        edgeattn::StoreS16PanelColumn(key(c), depth, c, pairs_by_column.data());
        edgeattn::StoreS16HighBytesColumnPlus128(key(c), depth, c, high_by_column.data());
      }
      const std::vector<int> pair_slots = ColumnSlots(n_cols, depth, 2);
      for (size_t i = 0; i < pairs.size(); ++i) {
        ASSERT_EQ(pairs_by_column[i], pair_slots[i] ? pairs[i] : int16_t{0x5555})
            << "value " << i << ", " << n_cols << " columns, depth " << depth;
      }
      const std::vector<int> group_slots = ColumnSlots(n_cols, depth, 4);
      for (size_t i = 0; i < high.size(); ++i) {
        ASSERT_EQ(high_by_column[i], group_slots[i] ? high[i] : uint8_t{0x55})
            << "byte " << i << ", " << n_cols << " columns, depth " << depth;
      }

      const int32_t deeper = depth + 5;
      std::vector<int16_t> by_row(edgeattn::S16PanelValues(n_cols, deeper), 0x5555);
      for (int32_t t = 0; t < depth; ++t) {
        edgeattn::StoreS16PanelDepthRow(wide_v.data() + t * ld_v, n_cols, t, deeper, by_row.data());
      }
      const std::vector<int16_t> want = ReferenceLayout<int16_t>(
          n_cols, deeper, 2,
          [&](int32_t c, int32_t t) { return t < depth ? wide_v[t * ld_v + c] : int16_t{0}; });
      const std::vector<int> row_slots = DepthRowSlots(n_cols, depth, deeper, 2);
      for (size_t i = 0; i < by_row.size(); ++i) {
        ASSERT_EQ(by_row[i], row_slots[i] ? want[i] : int16_t{0x5555})
            << "value " << i << ", " << n_cols << " columns, depth " << depth;
      }
    }
  }
}

}  // namespace
}  // namespace edgeattn_test
