// The SIMD kernels as the rest of the library sees them: plain functions that
// dispatch to the best Highway target (dynamic builds) or to the one target
// the build was compiled for (static builds). Arguments are already validated.
#ifndef EDGEATTN_SRC_KERNELS_F32_F32_KERNELS_H_
#define EDGEATTN_SRC_KERNELS_F32_F32_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"

namespace edgeattn {

// One Attention(Q, K, V) over strided row-major operands. The output rows
// double as the running accumulator, so out must not alias q, k or v.
struct AttentionArgs {
  const float* q;
  const float* k;
  const float* v;
  float* out;
  float* weights;  // NULL or [n_q, ld_weights]
  int32_t n_q;
  int32_t n_kv;
  int32_t d_k;
  int32_t d_v;
  size_t ld_q;
  size_t ld_k;
  size_t ld_v;
  size_t ld_out;
  size_t ld_weights;
  int32_t n_valid_keys;  // keys >= this are padding
  bool causal;           // bottom-right aligned
  float scale;
  float* packed_keys;  // arena: d_k x RoundUp(n_kv, kKeyBlock), packed when keys_packed
  bool keys_packed;    // false: scores read K in place (n_q <= kFewQueryRows)
  float* score_tile;   // arena: kScoreTileRows x kScoreTileKeys, the worker's own
};

// Runs with at most this many query rows (decode) read K in place instead of
// packing it: packing would cost as much as the scores.
inline constexpr int32_t kFewQueryRows = 4;

// Query rows per task of a run: the unit of work a worker takes, fixed so
// that results do not depend on the number of workers. 60 rows reuse each key
// block ten times from L2 (see kernels/f32/attention_f32-inl.h).
inline constexpr int32_t kQueryBlockRows = 60;

// The query block task `task` of `blocks` runs. Tasks are numbered largest
// first, so that a pool that hands them out in order ends a batch on small
// ones and its workers finish together: a causal run's last blocks see the
// most keys, so its blocks go last to first; otherwise every block but a
// partial last one costs the same, and they go in order.
inline int32_t QueryBlockOfTask(int32_t task, int32_t blocks, bool causal) {
  return causal ? blocks - 1 - task : task;
}

// Query rows [first_row, first_row + rows), rows <= kQueryBlockRows, of one
// Attention(Q, K, V) whose K is packed.
void AttentionQueryBlockF32(const AttentionArgs& args, int32_t first_row, int32_t rows);

// y[r, o] = bias[o] + sum_i x[r, i] * w[o, i] for r < rows, o < n_out, with
// W packed (kernels/f32/transposed_panels.h). bias may be NULL; y must not overlap x.
void LinearF32(const float* x, size_t ld_x, int32_t rows, int32_t n_in, const float* packed_w,
               const float* bias, int32_t n_out, float* y, size_t ld_y);

// LinearF32 on the caller's parallel-for (runtime/parallel_for.h) in tasks of
// kLinearRowsPerTask rows x kLinearColumnsPerTask outputs, one panel of the
// packed W: an iteration of LinearPacked's own loop (kernels/f32/linear_f32-inl.h), so
// the panel is still reused across the task's rows. Small tasks (about 2
// MFLOP at n_in = 256) let the other workers take over the batch when one is
// slow or descheduled: a worker holds up the batch by one task at most.
// Numbered row block by row block, so a partial last block's small tasks come
// last (see QueryBlockOfTask). False when the hook broke its worker-index
// contract.
inline constexpr int32_t kLinearRowsPerTask = 60;
inline constexpr int32_t kLinearColumnsPerTask = 64;
bool LinearF32Tasks(const ea_parallel_for& parallel, const float* x, size_t ld_x, int32_t rows,
                    int32_t n_in, const float* packed_w, const float* bias, int32_t n_out, float* y,
                    size_t ld_y);

// Rows [first_row, first_row + rows) x outputs [first_out, first_out +
// outputs) of one projection task; the float and fixed-point projections
// split the same way.
struct LinearTask {
  int32_t first_row, rows, first_out, outputs;
};
inline int32_t LinearColumnSlices(int32_t n_out) {
  return (n_out + kLinearColumnsPerTask - 1) / kLinearColumnsPerTask;
}
// Validation keeps rows x n_out below EA_MAX_ELEMENTS: the count fits int32.
inline int32_t LinearTaskCount(int32_t rows, int32_t n_out) {
  return (rows + kLinearRowsPerTask - 1) / kLinearRowsPerTask * LinearColumnSlices(n_out);
}
inline LinearTask LinearTaskOf(int32_t task, int32_t rows, int32_t n_out) {
  const int32_t slices = LinearColumnSlices(n_out);
  LinearTask t;
  t.first_row = task / slices * kLinearRowsPerTask;
  t.rows = rows - t.first_row < kLinearRowsPerTask ? rows - t.first_row : kLinearRowsPerTask;
  t.first_out = task % slices * kLinearColumnsPerTask;
  t.outputs =
      n_out - t.first_out < kLinearColumnsPerTask ? n_out - t.first_out : kLinearColumnsPerTask;
  return t;
}

// out[i] = a[i] + b[i].
void AddF32(const float* a, const float* b, float* out, size_t count);

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_KERNELS_F32_F32_KERNELS_H_
