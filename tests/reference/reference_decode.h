// Reference for the KV cache (edgeattn/kv_cache.h), written from its
// documented rules for reading, never for speed: what the cache stores for
// each storage type, and attention of each query over the positions it sees
// (causal, sliding window, grouped-query heads), in double precision.
#ifndef EDGEATTN_TESTS_REFERENCE_REFERENCE_DECODE_H_
#define EDGEATTN_TESTS_REFERENCE_REFERENCE_DECODE_H_

#include <stdint.h>

#include <vector>

#include "edgeattn/kv_cache.h"

namespace edgeattn_test {

enum class StoredAs { kF32, kF16, kInt8, kInt4 };

// How the reference models a cache storage.
inline StoredAs StoredAsOf(ea_kv_storage storage) {
  return storage == EA_KV_STORAGE_F16  ? StoredAs::kF16
         : storage == EA_KV_STORAGE_Q8 ? StoredAs::kInt8
         : storage == EA_KV_STORAGE_Q4 ? StoredAs::kInt4
                                       : StoredAs::kF32;
}

// The values a cache of that storage holds for rows of heads of d values
// each: f16 rounding (nearest even, inf past 65504), or int8 with a
// per-row-and-head scale max|x| / 127 (computed in float) and
// round-to-nearest-even of x / scale, dequantised; int4 as int8 with 7 for
// 127, per group of 64 channels of each head (the last group the rest),
// rounding the group after its rotation (RotatedInt4Group) and rotating the
// stored values back in double (H_b y per block, the exact inverse).
std::vector<double> StoredValues(const std::vector<float>& rows, int d, StoredAs storage);

// The queries an int8 or int4 cache attends with: each row and head rounded
// to int8 as an int8 key is (int4: after the query rotation of each scale
// group, rotated back in double: H_b q' * EA_KV_Q4_GROUP / b).
std::vector<double> RoundedQueries(const std::vector<float>& rows, int d, StoredAs storage);

// int4's rotation of one scale group of `width` values (kv_cache.h, "INT4"),
// as float: H_b x / b per block for keys, H_b x / EA_KV_Q4_GROUP for
// queries.
std::vector<float> RotatedInt4Group(const float* x, int width, bool query);

// One head's int8 quantization as StoredValues computes it: the scale
// max|x| / 127 (in float) and the levels; a head with a NaN or inf is not
// finite (its levels are 0), one whose scale is 0 has levels 0.
struct Int8Head {
  bool finite;
  float scale;
  std::vector<int> levels;
};
Int8Head QuantizeInt8Head(const float* x, int d);
// The same rule with levels in [-limit, limit] and scale max|x| / limit.
Int8Head QuantizeLevels(const float* x, int d, int limit);
// Channels per int4 scale group.
inline constexpr int kInt4Group = 64;

// int4's rotation blocks of a scale group of `width` channels (kv_cache.h,
// "INT4"): the powers of two of its binary form, largest first.
std::vector<int> Int4BlockWidths(int width);

// f(first channel, block width) for each rotation block of a head of d
// channels: each scale group's blocks in order.
template <typename F>
void ForEachInt4Block(int d, F f) {
  for (int g0 = 0; g0 < d; g0 += kInt4Group) {
    int begin = g0;
    for (const int b : Int4BlockWidths(d - g0 < kInt4Group ? d - g0 : kInt4Group)) {
      f(begin, b);
      begin += b;
    }
  }
}

// x <- H_b x, unnormalised (H_b H_b = b I), b a power of two: one block of
// int4's rotation, in double.
void Hadamard(double* x, int b);

struct DecodeProblem {
  int n_heads;
  int n_kv_heads;
  int d;
  int window;                           // 0: none
  double scale;                         // 0: 1 / sqrt(d)
  const float* alibi_slopes = nullptr;  // n_heads slopes: score += m_h (key - query position)
};

// Outputs [n_queries, n_heads * d] for the queries of positions
// first_position .. first_position + n_queries - 1 against k, v
// [positions, n_kv_heads * d] (rows for positions 0 .. last query).
std::vector<double> ReferenceDecode(const DecodeProblem& problem, const std::vector<float>& q,
                                    int first_position, int n_queries, const std::vector<double>& k,
                                    const std::vector<double>& v);

// The int8 or int4 cache's decode (edgeattn/kv_cache.h, INT8 and INT4):
// ReferenceDecode with the RoundedQueries, and per output element the most that rounding each
// 64-position block's weights p_j * v_scale_j to 8 bits (within the block's largest / 510 each;
// int4: per scale group, with the group's v_scale) can move it.
struct Int8Decode {
  std::vector<double> out;
  std::vector<double> weight_rounding;
};
Int8Decode ReferenceDecodeInt8(const DecodeProblem& problem, const std::vector<float>& q,
                               int first_position, int n_queries, const std::vector<double>& k,
                               const std::vector<double>& v, StoredAs storage = StoredAs::kInt8);

// What ReferenceDecodeInt8's bound reads of the stored values v (heads of d):
// per element, its scale group's v_scale (max |v| / limit over the group) and
// its level's magnitude |v| / v_scale (int4: in the rotated domain, H_b v / b
// per block). Each head's own values alone decide them, so a stream's are
// computed once for all its positions.
struct Int8ValueLevels {
  std::vector<double> level;
  std::vector<double> v_scale;
};
Int8ValueLevels ValueLevelsInt8(const std::vector<double>& v, int d, StoredAs storage);
// ReferenceDecodeInt8 with the levels of v given (ValueLevelsInt8(v, d, storage)).
Int8Decode ReferenceDecodeInt8(const DecodeProblem& problem, const std::vector<float>& q,
                               int first_position, int n_queries, const std::vector<double>& k,
                               const std::vector<double>& v, const Int8ValueLevels& levels,
                               StoredAs storage);

// max_i max(0, |got_i - out_i| - weight_rounding_i) / max |out|: the error
// past the weights' rounding, norm-scaled as NormScaledError's.
double Int8DecodeError(const float* got, const Int8Decode& want);

// RoPE (edgeattn/rope.h) in double: x [n, heads * d] rotated at positions
// first .. first + n - 1 by angles pos * base^(-2i/d), pairs (i, i + d/2)
// for EA_ROPE_HALF (rotate_half), (2i, 2i + 1) for interleaved.
std::vector<double> ReferenceRope(const std::vector<double>& x, int n, int heads, int d, int first,
                                  double base, bool interleaved);

}  // namespace edgeattn_test

#endif  // EDGEATTN_TESTS_REFERENCE_REFERENCE_DECODE_H_
