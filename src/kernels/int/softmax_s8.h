// TFLite's int8 softmax (output scale 1/256, zero point -128) over one row of
// int8 scores, with the exponentials precomputed at plan time.
//
// The reference evaluates exp(beta * (x - max)) in Q5.26 fixed point per
// entry, but the score difference x - max of int8 scores takes only the 256
// values 0, -1, ..., -255, and the beta scaling is a plan constant: so the
// plan builds the 256 exponentials once (integer arithmetic, the reference's
// exact steps) and a row costs a max, a sum of table entries, one reciprocal
// and one requantisation per entry (rows over 256 entries: per difference, 256
// in all, then a lookup per entry). Entries below diff_min are 0 in the table:
// the reference skips them in the sum and outputs -128, and so does a 0.
//
// Where TFLite aborts (a row's sum of exponentials S reaching 512, e.g. 512 or
// more near-equal scores), edgeattn outputs -128 (probability 0) across the
// row: every probability e_j / S is then at most 1/512, half an output LSB, so
// 0 is the int8 value nearest to the exact softmax; it is also what TFLite's
// own formula gives when its final rounding shift may exceed 31. The sum is
// 64-bit, so rows past 4096 (where TFLite's int32 sum would wrap) follow the
// same rule.
#ifndef EDGEATTN_SRC_KERNELS_INT_SOFTMAX_S8_H_
#define EDGEATTN_SRC_KERNELS_INT_SOFTMAX_S8_H_

#include <stddef.h>
#include <stdint.h>

#include "tflite/requantize.h"

namespace edgeattn {

// The block of differences that SoftmaxS8Table::exp_max_from_block steps by.
inline constexpr int32_t kSoftmaxS8Block = 16;

// exp(beta * scale * -d) for d = 0..255 as Q0.31 (0 where -d < diff_min).
struct SoftmaxS8Table {
  // The reference's per-entry exp, precomputed, and its Q12.19 share of the sum
  // (below 2^20), also as three byte planes for byte-table lookups.
  int32_t exp_q31[256];
  int32_t sum_term[256];
  uint8_t sum_term_bytes[3][256];
  // The largest exp_q31 at or past each block of kSoftmaxS8Block differences:
  // where its probability is already 0, so is every later one (a probability
  // never falls as exp_q31 grows), and a row's per-difference table stops.
  int32_t exp_max_from_block[256 / kSoftmaxS8Block];
};

// Whether every difference from block `block` on has probability 0 (output
// -128) in a row whose reciprocal scale and exponent these are: the row's
// per-difference outputs stop there (portable and AVX-512 rows alike).
inline bool ZeroFromBlock(const SoftmaxS8Table& table, int32_t block, int32_t scale, int exponent) {
  return RoundingDivideByPowerOfTwo(RoundingDoublingHighMul(scale, table.exp_max_from_block[block]),
                                    exponent) == 0;
}

// Builds the table from the softmax's TFLite parameters (already validated:
// left_shift in [0, 31], diff_min <= 0, (-diff_min) << left_shift <= 31 * 2^26).
void BuildSoftmaxS8Table(int32_t input_multiplier, int32_t input_left_shift, int32_t diff_min,
                         SoftmaxS8Table* table);

// probs[j] for j < count from scores[j]: the reference softmax of the row.
// probs may be scores (in place).
void SoftmaxS8Row(const SoftmaxS8Table& table, const int8_t* scores, size_t count, int8_t* probs);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_SOFTMAX_S8_H_
