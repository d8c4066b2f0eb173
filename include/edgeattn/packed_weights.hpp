// Weight matrices packed for the projection kernel at compile time, so that
// firmware keeps them in flash and plans them with EA_WEIGHTS_PACKED:
//
//   static constexpr auto kWq = edgeattn::PackLinearWeights<kDk, kDModel>(w_q);
//   weights.w_q = kWq.values;  // config.weights_layout = EA_WEIGHTS_PACKED
//
// The layout (ea_linear_pack_weights in edgeattn/linear.h): W [n_out, n_in]
// transposed in panels of kKeyBlock (64) output rows, n_in x 64 floats each,
// the last panel padded with zeros. PackPanels is the one implementation: the
// library's run-time packing (ea_linear_pack_weights, keys, plan-time weights)
// calls it too.
#ifndef EDGEATTN_PACKED_WEIGHTS_HPP_
#define EDGEATTN_PACKED_WEIGHTS_HPP_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/arena_sizes.hpp"

namespace edgeattn {

// Packs rows [0, n_rows) of a row-major matrix (n_cols columns, rows ld_rows
// floats apart) into n_cols * roundup(n_rows, 64) floats at packed.
constexpr void PackPanels(const float* rows, size_t ld_rows, int32_t n_rows, int32_t n_cols,
                          float* packed) {
  for (int32_t first = 0; first < n_rows; first += kKeyBlock) {
    float* panel = packed + static_cast<size_t>(first) * static_cast<size_t>(n_cols);
    const int32_t count = n_rows - first < kKeyBlock ? n_rows - first : kKeyBlock;
    const float* source = rows + static_cast<size_t>(first) * ld_rows;
    // Column by column: the writes are contiguous, the reads stride over at
    // most 64 rows, which stay in L1.
    for (int32_t t = 0; t < n_cols; ++t) {
      float* out = panel + static_cast<size_t>(t) * kKeyBlock;
      for (int32_t c = 0; c < count; ++c) out[c] = source[static_cast<size_t>(c) * ld_rows + t];
      for (int32_t c = count; c < kKeyBlock; ++c) out[c] = 0.0f;
    }
  }
}

// A weight matrix W [kOut, kIn] packed as ea_linear_pack_weights packs it
// (PackLinearWeights fills one).
template <int32_t kOut, int32_t kIn>
struct PackedLinear {
  static_assert(kOut > 0 && kIn > 0, "dimensions must be positive");
  // Floats of the packing: PackedLinearFloats(kOut, kIn).
  static constexpr size_t kFloats = static_cast<size_t>(PackedLinearFloats(kOut, kIn));
  // The packed panels: a weight pointer for EA_WEIGHTS_PACKED.
  float values[kFloats];
};

// W [kOut, kIn] row-major, packed; usable in constant expressions.
template <int32_t kOut, int32_t kIn>
constexpr PackedLinear<kOut, kIn> PackLinearWeights(const float (&w)[kOut * kIn]) {
  PackedLinear<kOut, kIn> packed{};
  PackPanels(w, kIn, kOut, kIn, packed.values);
  return packed;
}

}  // namespace edgeattn

#endif  // EDGEATTN_PACKED_WEIGHTS_HPP_
