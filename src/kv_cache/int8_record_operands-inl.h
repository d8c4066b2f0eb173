// What an int8 record step's dot products take (int8_record_dots-inl.h):
// the grid rows' query codes, and the output rows' block of weighted value
// quads, with the tile columns that carry the probability codes.

#if defined(EDGEATTN_SRC_KV_CACHE_INT8_RECORD_OPERANDS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef EDGEATTN_SRC_KV_CACHE_INT8_RECORD_OPERANDS_INL_H_
#undef EDGEATTN_SRC_KV_CACHE_INT8_RECORD_OPERANDS_INL_H_
#else
#define EDGEATTN_SRC_KV_CACHE_INT8_RECORD_OPERANDS_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#include "edgeattn/arena_sizes.hpp"
#include "register_grid-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The grid rows of one record step: each row's query codes (whole quads),
// the sum of its codes and the factor scale * q_scale of its scores.
struct QueryRowsS8 {
  const int8_t* codes[kGridRows];
  const float* float_codes[kGridRows];  // the same codes as float
  int32_t sums[kGridRows];
  float factors[kGridRows];
};

// The probability codes of tile row r: kKeyBlock bytes in the row's columns
// past the block's scores (a decode step uses columns [0, kKeyBlock)).
inline uint8_t* WeightCodesOf(float* tile, size_t r) {
  return static_cast<uint8_t*>(static_cast<void*>(tile + r * kScoreTileKeys + kKeyBlock));
}
static_assert(kScoreTileKeys >= 2 * kKeyBlock, "the tile rows hold scores and weight codes");

// The output rows' step of one block: out_r[c] = out_r[c] * rescale[r] +
// steps[r] * sum_j codes_r[j] values[j][c], keys of quads [quad_begin,
// quad_end), for the rows with usable[r].
struct WeightedQuadsS8 {
  const int8_t* values;  // key quads [kKeyBlock / 4][d][4]
  size_t d;
  size_t quad_begin, quad_end;
  const float* steps;
  const float* rescale;
  const bool* usable;
  float* out;  // row r at r * d
};

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#endif  // EDGEATTN_SRC_KV_CACHE_INT8_RECORD_OPERANDS_INL_H_
