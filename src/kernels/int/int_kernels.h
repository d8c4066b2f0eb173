// The fixed-point kernels as the rest of the library sees them (dispatched
// like kernels/f32/f32_kernels.h): TFLite's FULLY_CONNECTED per channel, and one fused
// attention head over a block of query rows (BATCH_MATMUL, SOFTMAX,
// BATCH_MATMUL). Arguments are already validated; T is int8_t or int16_t.
#ifndef EDGEATTN_SRC_KERNELS_INT_INT_KERNELS_H_
#define EDGEATTN_SRC_KERNELS_INT_INT_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"
#include "kernels/int/softmax_s16.h"
#include "kernels/int/softmax_s8.h"

namespace edgeattn {

// y[r, c] = clamp(requantize(bias[c] + sum_i w[c, i] * (x[r, i] + input_offset),
// multiplier[c], shift[c]) + output_offset) for r < rows, c < n_out.
// int8: bias int32 (or NULL), accumulator int32; int16: bias int64 (or NULL),
// accumulator int64, input_offset 0, TFLite's 64-bit requantisation.
template <typename T>
struct LinearQArgs {
  const T* x;
  size_t ld_x;
  int32_t rows;
  int32_t n_in;
  int32_t input_offset;
  const int8_t* w;  // [n_out, n_in] row-major
  const void* bias;
  const int32_t* multiplier;
  const int32_t* shift;
  int32_t n_out;
  int32_t output_offset;
  T* y;
  size_t ld_y;
  // With UsesS8Panels(): W packed in 4-byte groups (int8 activations: W + 128,
  // PackS8PanelsPlus128; int16: W, PackS8Panels) and W's column sums.
  const uint8_t* w_panels;
  const int32_t* w_column_sums;
};

void LinearS8(const LinearQArgs<int8_t>& args);
void LinearS16(const LinearQArgs<int16_t>& args);

// One attention head in fixed point: for each query row, the scores
// requantised to T, TFLite's softmax over the row's visible keys, then
// P V requantised to T.
template <typename T>
struct AttentionQArgs {
  const T* q;
  size_t ld_q;
  const T* k;
  size_t ld_k;
  const T* v_transposed;  // [d_v, ld_vt]: V^T of the head, keys contiguous
  size_t ld_vt;
  T* out;
  size_t ld_out;
  T* probs;  // NULL or [n_q, ld_probs]: the softmax output, masked keys at its zero
  size_t ld_probs;
  T* scores;  // NULL or [n_q, ld_scores]: the requantised scores of visible keys (tests)
  size_t ld_scores;
  int32_t n_q;
  int32_t n_kv;
  int32_t d_k;
  int32_t d_v;
  bool causal;           // bottom-right aligned, as the float path
  int32_t n_valid_keys;  // keys from here on are padding: no row sees them (n_kv: none)
  // With causal: a row sees at most the `window` keys up to its diagonal
  // (a sliding window, as the float path's); 0: no window.
  int32_t window;
  // Keys stored in a ring (a decoder's window cache): the key the masks
  // above count as l is row (l + key_rotation) % n_kv of K and of V's panels,
  // column of V^T; 0: in order. With a rotation every row scores all n_kv
  // stored keys, and its softmax runs over its own where they are stored
  // (VisibleRunOf); needs causal and no padding.
  int32_t key_rotation;
  // Scores: Q K^T with offsets, then requantised.
  int32_t q_offset;
  int32_t k_offset;
  int32_t score_multiplier;
  int32_t score_shift;
  int32_t score_zero_point;
  // Softmax: int8 reads the plan's table, int16 its tables, multiplier and
  // shift.
  const SoftmaxS8Table* softmax_s8;
  const SoftmaxS16Tables* softmax_s16;
  int32_t softmax_multiplier;
  int32_t softmax_left_shift;
  // P V: probabilities (offset 128 for int8) times V (offset -zero point).
  int32_t v_offset;
  int32_t out_multiplier;
  int32_t out_shift;
  int32_t out_zero_point;
  // int8 with UsesS8Panels(): K + 128 and V packed for the dot-product
  // instructions (PackS8PanelsPlus128, PackS8PanelsTransposed), and per key
  // q_offset * sum_t k[j][t] (16-key padded); NULL otherwise.
  const uint8_t* k_panels;
  const int32_t* k_column_sums;
  const int8_t* v_panels;
  // int16 with UsesS8Panels(): K and V packed in pairs (s16_panels.h), and
  // where d_k <= kS16HighByteMaxDepth K's high bytes plus 128
  // (PackS16HighBytesPlus128); NULL otherwise.
  const int16_t* k_pairs;
  const int16_t* v_pairs;
  const uint8_t* k_high_bytes;
  // Elements (int8 bytes, int16 values) from one 16-column V panel to the
  // next: S8PanelBytes / S16PanelValues(16, the depth V was packed for),
  // n_kv, or more in a decoder's cache, packed for its longest stream.
  size_t v_panel_stride;
};

// True when the active target's int8 kernels read K, V and weights packed in
// s8 panels (AVX512-VNNI); the others read them row-major.
bool UsesS8Panels();

// K [n_kv, d_k] and V [n_kv, d_v] (rows ld_k, ld_v apart) packed as
// PackS8PanelsPlus128 (with K's sums) and PackS8PanelsTransposed pack them
// (s8_panels.h); on AVX3_DL a gather or a permute per 64 bytes
// (vnni_kv_panels-inl.h).
void PackKeyPanelsS8(const int8_t* k, size_t ld_k, int32_t n_kv, int32_t d_k, uint8_t* panels,
                     int32_t* sums);
void PackValuePanelsS8(const int8_t* v, size_t ld_v, int32_t d_v, int32_t n_kv, int8_t* panels);

// Query rows [first_row, first_row + rows). scratch: the worker's
// AttentionQScratchBytes.
void AttendRowsS8(const AttentionQArgs<int8_t>& args, int32_t first_row, int32_t rows,
                  void* scratch);
void AttendRowsS16(const AttentionQArgs<int16_t>& args, int32_t first_row, int32_t rows,
                   void* scratch);

// dst[c, r] = src[r, c] for a rows x cols block (V^T of one head).
void TransposeS8(const int8_t* src, size_t ld_src, int32_t rows, int32_t cols, int8_t* dst,
                 size_t ld_dst);
void TransposeS16(const int16_t* src, size_t ld_src, int32_t rows, int32_t cols, int16_t* dst,
                  size_t ld_dst);

// The same kernels by element type, for code written once for int8 and
// int16 (templates over the activation type).
inline void AttendRows(const AttentionQArgs<int8_t>& args, int32_t first_row, int32_t rows,
                       void* scratch) {
  AttendRowsS8(args, first_row, rows, scratch);
}
inline void AttendRows(const AttentionQArgs<int16_t>& args, int32_t first_row, int32_t rows,
                       void* scratch) {
  AttendRowsS16(args, first_row, rows, scratch);
}
inline void Transpose(const int8_t* src, size_t ld_src, int32_t rows, int32_t cols, int8_t* dst,
                      size_t ld_dst) {
  TransposeS8(src, ld_src, rows, cols, dst, ld_dst);
}
inline void Transpose(const int16_t* src, size_t ld_src, int32_t rows, int32_t cols, int16_t* dst,
                      size_t ld_dst) {
  TransposeS16(src, ld_src, rows, cols, dst, ld_dst);
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_INT_INT_KERNELS_H_
