// Plan-time validation shared by every operation: each check returns the
// status a caller gets for that kind of bad input (see ea_status).
#ifndef EDGEATTN_SRC_RUNTIME_VALIDATION_H_
#define EDGEATTN_SRC_RUNTIME_VALIDATION_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"

namespace edgeattn {

// The float plans take EA_DTYPE_F32 only: fixed point has plans of its own
// (the _quant_ entry points), and any other value is not a dtype.
ea_status CheckFloatDtype(ea_dtype dtype);

// Every value > 0.
ea_status CheckPositive(int32_t a, int32_t b, int32_t c, int32_t d);

// rows * cols <= EA_MAX_ELEMENTS (both already positive).
ea_status CheckElements(int64_t rows, int64_t cols);

ea_status CheckMask(ea_mask mask);

// n_rows rows of n_cols packed into 64-row panels (kernels/f32/transposed_panels.h:
// n_cols x roundup(n_rows, 64) floats) within EA_MAX_ELEMENTS (both already
// positive): packed K^T, and packed weight matrices.
ea_status CheckPanelElements(int64_t n_rows, int64_t n_cols);

// A known weights layout, and a packed W [n_out, n_in] within EA_MAX_ELEMENTS
// (both dimensions already positive).
ea_status CheckWeightMatrix(ea_weights_layout layout, int32_t n_out, int32_t n_in);

// Known position kind; LEARNED needs its table.
ea_status CheckPosition(ea_position position, const float* table);

// Arena bytes as a size_t, or EA_ERR_DIMENSION_OVERFLOW on 32-bit targets.
ea_status ToSize(uint64_t bytes, size_t* out);

// The run-time checks of self-attention and MHA runs: a ready plan,
// n_tokens in [1, max], n_valid_keys in [0, n_tokens], `weight_matrices`
// (0 when attn_weights is NULL) addressable n_tokens x n_tokens matrices,
// and y ([n_tokens, y_cols]) not sharing memory with attn_weights. y may be x:
// both operations consume x before writing y.
ea_status CheckModelRun(uint32_t ready, int32_t n_tokens, int32_t max_tokens, int32_t n_valid_keys,
                        const float* y, int32_t y_cols, const float* attn_weights,
                        int32_t weight_matrices);

// True when the byte ranges [a, a + a_bytes) and [b, b + b_bytes) share a
// byte. NULL or empty ranges overlap nothing.
bool Overlaps(const void* a, size_t a_bytes, const void* b, size_t b_bytes);

// A byte range a run reads or writes: an operand, a weight tensor, a table or
// a plan's arena carve.
struct Extent {
  const void* begin;
  size_t bytes;
};

// True when `range` shares a byte with any of extents[0, count).
bool OverlapsAny(Extent range, const Extent* extents, size_t count);

// The arena bytes a init is about to carve: the next `bytes` after the
// arena's used ones (call after CheckArenaFits).
Extent NextCarve(const ea_arena& arena, uint64_t bytes);

// EA_ERR_BAD_ARGUMENT when any of kept[0, count) (weights, biases, a caller's
// table) lies in the carve: init and every run would overwrite it.
ea_status CheckKeptOutsideCarve(const Extent* kept, size_t count, Extent carve);

// The caller's position table when the position mode reads it, else NULL: a
// table given with EA_POSITION_NONE is never read, so its place is free (an
// init must not refuse it for lying in the carve).
template <typename T>
const T* TableTheModeReads(ea_position position, const T* table) {
  return StorageOf(position, table == nullptr) == PositionStorage::kCaller ? table : nullptr;
}

// The memory rule of self-attention and MHA runs (EA_ERR_BAD_ARGUMENT when
// broken): the outputs y and attn_weights overlap neither the plan's arena
// carve nor anything this or a later run reads (weights, biases, position
// table: `kept`), and x stays clear of the carve. x and y may overlap: x is
// consumed before y is written.
ea_status CheckModelRunMemory(Extent x, Extent y, Extent attn_weights, const Extent* kept,
                              size_t kept_count, Extent carve);

// The memory rule of the decoder steps and cross-attention runs, whose
// headers promise more than CheckModelRunMemory's: x, too, overlaps nothing
// the layer reads and keeps (weights, biases, tables), as y does not; x and
// y may overlap each other (x is consumed before y is written). A
// cross-attention memory is checked as an x with no y.
ea_status CheckStepMemory(Extent x, Extent y, const Extent* kept, size_t kept_count, Extent carve);

// Float counts as byte counts (callers pass element counts already bounded
// by EA_MAX_ELEMENTS).
inline size_t FloatBytes(int64_t count) { return static_cast<size_t>(count) * sizeof(float); }

// The bytes a caller's weight matrix W [n_out, n_in] spans in `layout`.
inline size_t WeightMatrixBytes(int32_t n_out, int32_t n_in, ea_weights_layout layout) {
  return layout == EA_WEIGHTS_PACKED
             ? FloatBytes(static_cast<int64_t>(PackedLinearFloats(n_out, n_in)))
             : FloatBytes(int64_t{n_out} * n_in);
}

}  // namespace edgeattn

#endif  // EDGEATTN_SRC_RUNTIME_VALIDATION_H_
