// The register grid (src/kernels/f32/register_grid-inl.h), the micro-kernel
// of every float product, on every SIMD target: each grid shape the kernels
// use (1..kGridRows rows, the widest strip that fits a 64-wide panel) and a
// partial column give acc[r][c] = sum_t a[r][t] b[t][c] within the float
// bound of a dot product of that depth, and, as its header promises, the same
// bits whatever the grid's shape (a cell sums over t in the same order).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/register_grid_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <stddef.h>

#include <type_traits>

#include <hwy/highway.h>

#include "kernels/f32/register_grid-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn_test {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace ea = edgeattn::HWY_NAMESPACE;

// The grid of kRows rows over t in [0, depth), stored row by row into out
// (ld_out); returns the columns it covers.
template <size_t kRows>
size_t GridRows(const float* a, size_t ld_a, const float* b, size_t ld_b, size_t depth, float* out,
                size_t ld_out) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t covered = 0;
  ea::WithPanelStripCols<kRows>(d, [&](auto cols) {
    constexpr size_t kCols = decltype(cols)::value;
    const ea::GridOperands g{a, ld_a, b, ld_b, 0, depth, lanes};
    ea::GridProduct<kRows, kCols, false>(d, g, [&](auto cell, auto acc) {
      constexpr size_t kCell = decltype(cell)::value;
      hn::StoreU(acc, d,
                 out + ea::CellRow<kCols>(kCell) * ld_out + ea::CellCol<kCols>(kCell) * lanes);
    });
    covered = kCols * lanes;
  });
  return covered;
}

size_t Grid(size_t rows, const float* a, size_t ld_a, const float* b, size_t ld_b, size_t depth,
            float* out, size_t ld_out) {
  size_t covered = 0;
  ea::WithCount<ea::kGridRows>(rows, [&](auto count) {
    covered = GridRows<decltype(count)::value>(a, ld_a, b, ld_b, depth, out, ld_out);
  });
  return covered;
}

// One row against one partial column of `width` lanes (a full vector stored).
void PartialColumn(const float* a, const float* b, size_t ld_b, size_t depth, size_t width,
                   float* out) {
  const hn::ScalableTag<float> d;
  const ea::GridOperands g{a, depth, b, ld_b, 0, depth, width};
  ea::GridProduct<1, 1, true>(d, g, [&](auto, auto acc) { hn::StoreU(acc, d, out); });
}

size_t GridRowsHere() { return ea::kGridRows; }
size_t LanesHere() { return hn::Lanes(hn::ScalableTag<float>()); }

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn_test
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <math.h>
#include <string.h>

#include <vector>

#include "reference/random_tensor.h"
#include "runtime/dispatch.h"
#include "simd_targets.h"

namespace edgeattn_test {

EA_EXPORT(Grid);
EA_EXPORT(PartialColumn);
EA_EXPORT(GridRowsHere);
EA_EXPORT(LanesHere);

namespace {

constexpr size_t kPanel = 64;        // a panel's width: no strip is wider
constexpr size_t kLdB = kPanel + 3;  // B's rows, wider than any strip
constexpr size_t kLdOut = kPanel + 64;

struct Operands {
  std::vector<float> a, b;
  size_t depth, ld_a;
};

Operands Random(size_t rows, size_t depth, uint64_t seed) {
  RandomStream random(seed);
  Operands o{std::vector<float>(rows * (depth + 1)), std::vector<float>(depth * kLdB), depth,
             depth + 1};
  for (float& v : o.a) v = static_cast<float>(random.Normal());
  for (float& v : o.b) v = static_cast<float>(random.Normal());
  return o;
}

// |float dot product - exact| <= depth * 2^-23 * sum |a b| (each of the depth
// roundings of a running sum is at most 2^-24 of a value below sum |a b|).
void ExpectCellNearExact(const Operands& o, size_t r, size_t c, float got) {
  double exact = 0.0, magnitude = 0.0;
  for (size_t t = 0; t < o.depth; ++t) {
    const double p = static_cast<double>(o.a[r * o.ld_a + t]) * o.b[t * kLdB + c];
    exact += p;
    magnitude += fabs(p);
  }
  EXPECT_NEAR(got, exact, static_cast<double>(o.depth) * 0x1p-23 * magnitude)
      << "row " << r << ", column " << c << ", depth " << o.depth;
}

class RegisterGrid : public PerTargetTest {};

TEST_P(RegisterGrid, EveryShapeIsTheDotProductsWithinTheFloatBound) {
  const size_t grid_rows = EA_DISPATCH(GridRowsHere)();
  for (size_t depth : {1u, 7u, 64u, 200u}) {
    for (size_t rows = 1; rows <= grid_rows; ++rows) {
      const Operands o = Random(rows, depth, 5200 + depth * 10 + rows);
      std::vector<float> out(rows * kLdOut, -1.0f);
      const size_t covered =
          EA_DISPATCH(Grid)(rows, o.a.data(), o.ld_a, o.b.data(), kLdB, depth, out.data(), kLdOut);
      ASSERT_GE(covered, 1u);
      ASSERT_LE(covered, kPanel) << "a strip fits a panel";
      for (size_t r = 0; r < rows; ++r) {
        for (size_t c = 0; c < covered; ++c) ExpectCellNearExact(o, r, c, out[r * kLdOut + c]);
      }
    }
  }
}

TEST_P(RegisterGrid, EveryShapeGivesTheSameBits) {
  const size_t grid_rows = EA_DISPATCH(GridRowsHere)();
  const size_t depth = 75;
  const Operands o = Random(grid_rows, depth, 5300);
  // Row r alone (a one-row grid on row r's A) is the reference.
  std::vector<std::vector<float>> alone(grid_rows, std::vector<float>(kLdOut));
  size_t alone_covered = 0;
  for (size_t r = 0; r < grid_rows; ++r) {
    alone_covered = EA_DISPATCH(Grid)(1, o.a.data() + r * o.ld_a, o.ld_a, o.b.data(), kLdB, depth,
                                      alone[r].data(), kLdOut);
  }
  for (size_t rows = 2; rows <= grid_rows; ++rows) {
    std::vector<float> out(rows * kLdOut);
    const size_t covered =
        EA_DISPATCH(Grid)(rows, o.a.data(), o.ld_a, o.b.data(), kLdB, depth, out.data(), kLdOut);
    const size_t both = covered < alone_covered ? covered : alone_covered;
    for (size_t r = 0; r < rows; ++r) {
      EXPECT_EQ(memcmp(out.data() + r * kLdOut, alone[r].data(), both * sizeof(float)), 0)
          << rows << "-row grid, row " << r;
    }
  }
}

TEST_P(RegisterGrid, APartialColumnIsTheFullColumnsFirstLanes) {
  const size_t lanes = EA_DISPATCH(LanesHere)();
  const size_t depth = 33;
  const Operands o = Random(1, depth, 5400);
  std::vector<float> full(kLdOut);
  EA_DISPATCH(Grid)(1, o.a.data(), o.ld_a, o.b.data(), kLdB, depth, full.data(), kLdOut);
  for (size_t width = 1; width < lanes; ++width) {
    std::vector<float> partial(lanes);
    EA_DISPATCH(PartialColumn)(o.a.data(), o.b.data(), kLdB, depth, width, partial.data());
    EXPECT_EQ(memcmp(partial.data(), full.data(), width * sizeof(float)), 0) << "width " << width;
    for (size_t l = width; l < lanes; ++l) {
      EXPECT_EQ(partial[l], 0.0f) << "lanes past the width read zeros, width " << width;
    }
  }
}

EA_INSTANTIATE_PER_TARGET(RegisterGrid);

}  // namespace
}  // namespace edgeattn_test
#endif  // HWY_ONCE
