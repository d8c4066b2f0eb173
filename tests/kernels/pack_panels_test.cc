// The SIMD packing into transposed panels (src/kernels/f32/pack_panels-inl.h)
// on every SIMD target, against the scalar PackPanels of
// edgeattn/packed_weights.hpp, the one documented layout: the same floats,
// bit for bit, for shapes on and off the 4 x 4 transpose's and the 64-row
// panel's edges, with a row stride wider than the rows, and nothing written
// past the packed size.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/pack_panels_test.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#include "kernels/f32/pack_panels-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn_test {
namespace HWY_NAMESPACE {

void PackFast(const float* rows, size_t ld_rows, int32_t n_rows, int32_t n_cols, float* packed) {
  edgeattn::HWY_NAMESPACE::PackPanelsFast(rows, ld_rows, n_rows, n_cols, packed);
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn_test
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <string.h>

#include <vector>

#include "edgeattn/packed_weights.hpp"
#include "reference/random_tensor.h"
#include "runtime/dispatch.h"
#include "simd_targets.h"

namespace edgeattn_test {

EA_EXPORT(PackFast);

namespace {

class PackPanels : public PerTargetTest {};

TEST_P(PackPanels, FastPackingIsTheScalarLayoutBitForBit) {
  RandomStream random(5100);
  for (int32_t n_rows : {1, 3, 4, 5, 63, 64, 65, 130}) {
    for (int32_t n_cols : {1, 3, 4, 5, 8, 17, 64}) {
      for (size_t extra : {size_t{0}, size_t{3}}) {
        SCOPED_TRACE(testing::Message()
                     << n_rows << " rows of " << n_cols << ", stride +" << extra);
        const size_t ld = static_cast<size_t>(n_cols) + extra;
        std::vector<float> rows(static_cast<size_t>(n_rows) * ld);
        for (float& v : rows) v = static_cast<float>(random.Normal());
        const size_t floats = edgeattn::PackedLinearFloats(n_rows, n_cols);
        // Canaries after the packed size: nothing may be written there.
        std::vector<float> want(floats + 16, -7.0f), got(floats + 16, -7.0f);
        edgeattn::PackPanels(rows.data(), ld, n_rows, n_cols, want.data());
        EA_DISPATCH(PackFast)(rows.data(), ld, n_rows, n_cols, got.data());
        ASSERT_EQ(memcmp(want.data(), got.data(), want.size() * sizeof(float)), 0);
      }
    }
  }
}

EA_INSTANTIATE_PER_TARGET(PackPanels);

}  // namespace
}  // namespace edgeattn_test
#endif  // HWY_ONCE
