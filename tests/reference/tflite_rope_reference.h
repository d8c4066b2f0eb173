// RoPE as a quantized model's graph computes it, for the tests: TFLite has
// no RoPE op, so converted models express x * cos + rotate_half(x) * sin as
// element-wise ops on two constant tables,
//   y = ADD(MUL(x, C), MUL(swap(x), S)),
// each op TFLite's (the reference's Mul and Add). C and S are the model's
// tables [positions, d_head]; swap exchanges the halves of a head (rotate_half
// pairing) or the two members of each pair (interleaved). Written for
// reading: whole rows, the swap as a gathered copy.
#ifndef EDGEATTN_TESTS_REFERENCE_TFLITE_ROPE_REFERENCE_H_
#define EDGEATTN_TESTS_REFERENCE_TFLITE_ROPE_REFERENCE_H_

#include <stdint.h>

#include <vector>

#include "reference/tflite_chain_reference.h"

namespace tflite_ref {

// RopeParams, RopeQuantization and PrepareRope are in
// tflite_chain_reference.h with the other ops' Prepare.

// The partner of channel i in a head of d_head channels.
int RopePartner(int i, int d_head, bool interleaved);

// x [rows, heads * d_head], row t at position first_position + t of the
// tables.
std::vector<int8_t> Rope(const RopeParams& p, const int8_t* x, int rows, int heads, int d_head,
                         int first_position, const int8_t* cos_table, const int8_t* sin_table,
                         bool interleaved);
std::vector<int16_t> Rope(const RopeParams& p, const int16_t* x, int rows, int heads, int d_head,
                          int first_position, const int16_t* cos_table, const int16_t* sin_table,
                          bool interleaved);

}  // namespace tflite_ref

#endif  // EDGEATTN_TESTS_REFERENCE_TFLITE_ROPE_REFERENCE_H_
