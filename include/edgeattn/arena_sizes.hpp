// Arena size formulas, as constexpr functions.
//
// The one source of truth for how many bytes each plan carves: the C size
// functions call these after validating, init carves exactly these
// regions, and C++ callers evaluate them at compile time to size a static
// arena. Sizes are uint64_t so that the sum of regions cannot wrap on 32-bit
// MCUs; the C size functions report EA_ERR_DIMENSION_OVERFLOW past SIZE_MAX.
// The values mean something only for valid arguments (positive, within
// EA_MAX_ELEMENTS, as the C size functions check), but every formula is
// total: any int32 arguments, in any order of calls, give some value with no
// undefined behaviour (no division by zero, no signed overflow: dimensions
// are widened before they are multiplied, heads <= 0 give a head width of 0).
#ifndef EDGEATTN_ARENA_SIZES_HPP_
#define EDGEATTN_ARENA_SIZES_HPP_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/cross.h"
#include "edgeattn/decoder.h"
#include "edgeattn/edgeattn.h"

namespace edgeattn {

// Keys per packed K^T panel. 64 floats are a whole number of vectors for every
// width from SCALAR up to SVE-2048, so panel layout (and therefore arena size)
// is the same on every target. See docs/ARCHITECTURE.md for the derivation.
inline constexpr int32_t kKeyBlock = 64;
// The score tile: up to kScoreTileRows query rows (the micro-kernel's grid
// rows on every target) against a block of kScoreTileKeys keys, 6 KiB. The
// same on every target, so that the arena size is. See docs/ARCHITECTURE.md.
inline constexpr int32_t kScoreTileRows = 6;
// Keys in one block of the score tile.
inline constexpr int32_t kScoreTileKeys = 256;
// Every arena region starts at a multiple of this (EA_ARENA_ALIGNMENT) and is
// rounded up to one.
inline constexpr uint64_t kRegionAlignment = 64;

// value rounded up to a multiple of `multiple` (> 0).
constexpr uint64_t RoundUp(uint64_t value, uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// d_model / heads, the width of one head; 0 for heads <= 0, so that a formula
// evaluated on an unvalidated config divides by nothing (and INT32_MIN / -1
// cannot occur).
constexpr int32_t HeadWidthOrZero(int32_t d_model, int32_t heads) {
  return heads > 0 ? d_model / heads : 0;
}

// Bytes of one arena region holding `count` floats.
constexpr uint64_t FloatRegionBytes(uint64_t count) {
  return RoundUp(count * sizeof(float), kRegionAlignment);
}

// Workers a plan carves score tiles for: ea_parallel_for's max_workers, at
// least one.
constexpr uint64_t Workers(int32_t max_workers) {
  return max_workers > 1 ? static_cast<uint64_t>(max_workers) : 1;
}

// Floats of K^T packed in panels of kKeyBlock keys, for `packed_heads` heads
// (at least one).
constexpr uint64_t PackedKeysFloats(int32_t n_kv, int32_t d_k, int32_t packed_heads = 1) {
  return static_cast<uint64_t>(packed_heads > 1 ? packed_heads : 1) * static_cast<uint64_t>(d_k) *
         RoundUp(static_cast<uint64_t>(n_kv), kKeyBlock);
}

// Floats of the score tiles: one per worker.
constexpr uint64_t ScoreTilesFloats(int32_t max_workers) {
  return Workers(max_workers) * kScoreTileRows * kScoreTileKeys;
}

// Attention core: the packed keys, then the score tiles.
constexpr uint64_t AttentionArenaBytes(int32_t n_kv, int32_t d_k, int32_t max_workers = 1,
                                       int32_t packed_heads = 1) {
  return FloatRegionBytes(PackedKeysFloats(n_kv, d_k, packed_heads)) +
         FloatRegionBytes(ScoreTilesFloats(max_workers));
}

// Heads whose keys a float MHA run packs at once: every head when more than
// one worker shares the run (the query blocks of all heads are then one batch
// of tasks, so no worker waits for the others at a head's end), else one.
constexpr int32_t MhaPackedHeads(int32_t heads, int32_t max_workers) {
  return max_workers > 1 && heads > 1 ? heads : 1;
}

// Where a plan's position table lives.
enum class PositionStorage {
  kNone,    // no positional encoding
  kCaller,  // caller's table (learned, or a precomputed sinusoidal table in flash)
  kArena    // sinusoidal table filled into the arena at plan time
};

// Where the position table of a shape lives: NONE needs none, SINUSOIDAL fills
// one into the arena unless the caller passes a precomputed one, LEARNED is
// always the caller's.
constexpr PositionStorage StorageOf(ea_position position, bool table_in_arena) {
  return position == EA_POSITION_NONE
             ? PositionStorage::kNone
             : (position == EA_POSITION_SINUSOIDAL && table_in_arena ? PositionStorage::kArena
                                                                     : PositionStorage::kCaller);
}

// Floats of a weight matrix W [n_out, n_in] packed for the projection kernel
// (ea_linear_pack_weights): transposed panels of kKeyBlock output rows.
constexpr uint64_t PackedLinearFloats(int64_t n_out, int64_t n_in) {
  return static_cast<uint64_t>(n_in) * RoundUp(static_cast<uint64_t>(n_out), kKeyBlock);
}

// Bytes of a weight matrix's packed copy in the arena: init packs
// row-major weights there; packed ones stay where the caller keeps them.
constexpr uint64_t PackedWeightBytes(int64_t n_out, int64_t n_in, ea_weights_layout layout) {
  return layout == EA_WEIGHTS_PACKED ? 0 : FloatRegionBytes(PackedLinearFloats(n_out, n_in));
}

// Shared by self-attention and MHA: the position table and X + P.
constexpr uint64_t PositionsArenaBytes(int32_t n, int32_t d_model, PositionStorage positions) {
  const uint64_t elements = static_cast<uint64_t>(n) * static_cast<uint64_t>(d_model);
  const uint64_t table = positions == PositionStorage::kArena ? FloatRegionBytes(elements) : 0;
  const uint64_t positioned = positions == PositionStorage::kNone ? 0 : FloatRegionBytes(elements);
  return table + positioned;
}

// Positions, packed W_Q, W_K, W_V, then Q, K, V and the attention core.
constexpr uint64_t SelfAttentionArenaBytes(int32_t n, int32_t d_model, int32_t d_k, int32_t d_v,
                                           PositionStorage positions, ea_weights_layout weights,
                                           int32_t max_workers = 1) {
  const uint64_t rows = static_cast<uint64_t>(n);
  return PositionsArenaBytes(n, d_model, positions) + 2 * PackedWeightBytes(d_k, d_model, weights) +
         PackedWeightBytes(d_v, d_model, weights) +
         2 * FloatRegionBytes(rows * static_cast<uint64_t>(d_k)) +
         FloatRegionBytes(rows * static_cast<uint64_t>(d_v)) +
         AttentionArenaBytes(n, d_k, max_workers);
}

// Positions, packed in_proj and out_proj, Q|K|V side by side, the heads'
// concatenation, then the attention core (every head's packed keys at once
// when several workers share a run: MhaPackedHeads).
constexpr uint64_t MhaArenaBytes(int32_t n, int32_t d_model, int32_t heads,
                                 PositionStorage positions, ea_weights_layout weights,
                                 int32_t max_workers = 1) {
  const uint64_t elements = static_cast<uint64_t>(n) * static_cast<uint64_t>(d_model);
  return PositionsArenaBytes(n, d_model, positions) +
         PackedWeightBytes(3 * int64_t{d_model}, d_model, weights) +
         PackedWeightBytes(d_model, d_model, weights) + FloatRegionBytes(3 * elements) +
         FloatRegionBytes(elements) +
         AttentionArenaBytes(n, HeadWidthOrZero(d_model, heads), max_workers,
                             MhaPackedHeads(heads, max_workers));
}

// Bytes of one arena region holding `bytes` bytes.
constexpr uint64_t ByteRegionBytes(uint64_t bytes) { return RoundUp(bytes, kRegionAlignment); }

// Bytes of one activation of a fixed-point dtype (int8 or int16).
constexpr uint64_t FixedPointBytes(ea_dtype dtype) { return dtype == EA_DTYPE_INT16 ? 2 : 1; }

// Bytes of one bias of a fixed-point dtype: TFLite's int32 for int8
// activations, int64 for int16 ("16x8").
constexpr uint64_t QuantBiasBytes(ea_dtype dtype) { return dtype == EA_DTYPE_INT16 ? 8 : 4; }

// Whether fixed-point plans carve the packed panels of the AVX512-VNNI
// kernels: on x86, where a dispatched build may run them; other CPUs have no
// kernel that reads them, so their plans are smaller by that much. User code
// sees the value the library was built with as long as both are compiled for
// the same CPU family.
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64)
inline constexpr bool kFixedPointPanels = true;
#else
inline constexpr bool kFixedPointPanels = false;
#endif

// Query rows the int16 AVX512-VNNI kernel handles at once (each K and V load
// serves all of them), and the int16 values of each of their scratch rows.
inline constexpr int32_t kS16PackedRowGroup = 4;
// int16 values in one such scratch row: n_kv rounded up to 32.
constexpr uint64_t S16PackedScratchRowValues(int32_t n_kv) {
  return RoundUp(static_cast<uint64_t>(n_kv), 32);
}

// Per-worker scratch of a fixed-point attention head, as byte offsets. int8:
// 6 rows of scores and 6 rows of probabilities + 128 (padded to 4 keys; the
// packed dot-product path). The row path uses the first score row; on Arm's
// SDOT targets, for calls with several rows, also the second (row pairs),
// the rest of the score rows for V's column sums and the probability rows
// for K's row sums. int16: one row of scores and one of exponentials; with
// kFixedPointPanels (x86) kS16PackedRowGroup rows of scores and one of
// exponentials, each S16PackedScratchRowValues long.
struct QuantScratchLayout {
  uint64_t scores,  // byte offset of the score rows in a worker's scratch
      probs,        // byte offset of the probability rows
      bytes;        // the scratch's size, a multiple of 64
};
// The per-worker scratch of one head over n_kv keys, for dtype's kernels.
constexpr QuantScratchLayout QuantScratch(int32_t n_kv, ea_dtype dtype = EA_DTYPE_INT8) {
  const uint64_t n = static_cast<uint64_t>(n_kv);
  if (dtype == EA_DTYPE_INT16) {
    const uint64_t rows =
        kFixedPointPanels ? (kS16PackedRowGroup + 1) * S16PackedScratchRowValues(n_kv) : 2 * n;
    return {0, 0, ByteRegionBytes(rows * sizeof(int16_t))};
  }
  const uint64_t probs = ByteRegionBytes(6 * n);
  return {0, probs, probs + ByteRegionBytes(6 * RoundUp(n, 4))};
}

// Bytes of an int8 matrix B [n_cols, depth] packed in 16-column panels of
// 4-byte groups (src/kernels/int/s8_panels.h), and its column sums.
constexpr uint64_t S8PanelRegionBytes(int32_t n_cols, int32_t depth) {
  return ByteRegionBytes(RoundUp(static_cast<uint64_t>(n_cols), 16) *
                         RoundUp(static_cast<uint64_t>(depth), 4)) +
         ByteRegionBytes(RoundUp(static_cast<uint64_t>(n_cols), 16) * sizeof(int32_t));
}

// Bytes of an int16 matrix B [n_cols, depth] packed in 16-column panels of
// 2-value pairs (src/kernels/int/s16_panels.h).
constexpr uint64_t S16PanelRegionBytes(int32_t n_cols, int32_t depth) {
  return ByteRegionBytes(RoundUp(static_cast<uint64_t>(n_cols), 16) *
                         RoundUp(static_cast<uint64_t>(depth), 2) * sizeof(int16_t));
}

// The deepest K whose high bytes the int16 row-group scores use: their
// estimate stays within 2^31 of q . k up to here (src/kernels/int/s16_panels.h).
inline constexpr int32_t kS16HighByteMaxDepth = 128;

// K [n_kv, d_k] for the int16 dot-product kernels: its pairs, then, where
// d_k <= kS16HighByteMaxDepth, its high bytes (k >> 8, plus 128) in the
// 4-byte groups of S8PanelRegionBytes without column sums.
constexpr uint64_t S16KeyPanelRegionBytes(int32_t n_kv, int32_t d_k) {
  return S16PanelRegionBytes(n_kv, d_k) +
         (d_k <= kS16HighByteMaxDepth ? ByteRegionBytes(RoundUp(static_cast<uint64_t>(n_kv), 16) *
                                                        RoundUp(static_cast<uint64_t>(d_k), 4))
                                      : 0);
}

// One weight matrix W [n_out, n_in] packed for the dot-product instructions
// at plan time: int8 groups with W's column sums, for int8 and int16
// activations alike (an int16 row is split into two rows of bytes).
constexpr uint64_t WeightPanelRegionBytes(int32_t n_out, int32_t n_in, ea_dtype /* dtype */) {
  if (!kFixedPointPanels) return 0;
  return S8PanelRegionBytes(n_out, n_in);
}

// The int8 softmax's table: 256 exponentials, their sum terms, those as
// three byte planes, and the largest exponential from each block of 16 on.
inline constexpr uint64_t kSoftmaxS8TableBytes =
    2 * 256 * sizeof(int32_t) + 3 * 256 + 16 * sizeof(int32_t);

// One fixed-point attention core (src/ops/quant_attention_core.h):
// the softmax table, K and V packed for the dot-product instructions (int8:
// 4-byte groups; int16: pairs, and K's high bytes; x86 only,
// kFixedPointPanels),
// V^T for the row kernels, and per worker its QuantScratch.
constexpr uint64_t QuantCoreArenaBytes(int32_t n_kv, int32_t d_k, int32_t d_v, ea_dtype dtype,
                                       int32_t max_workers = 1) {
  const uint64_t panels = !kFixedPointPanels ? 0
                          : dtype == EA_DTYPE_INT8
                              ? S8PanelRegionBytes(n_kv, d_k) + S8PanelRegionBytes(d_v, n_kv)
                              : S16KeyPanelRegionBytes(n_kv, d_k) + S16PanelRegionBytes(d_v, n_kv);
  return ByteRegionBytes(kSoftmaxS8TableBytes) + panels +
         ByteRegionBytes(static_cast<uint64_t>(d_v) * static_cast<uint64_t>(n_kv) *
                         FixedPointBytes(dtype)) +
         Workers(max_workers) * QuantScratch(n_kv, dtype).bytes;
}

// Fixed-point Attention(Q, K, V) (ea_attention_quant_init): its core.
constexpr uint64_t AttentionQuantArenaBytes(int32_t n_kv, int32_t d_k, int32_t d_v, ea_dtype dtype,
                                            int32_t max_workers = 1) {
  return QuantCoreArenaBytes(n_kv, d_k, d_v, dtype, max_workers);
}

// Fixed-point MHA projects Q, K and V one head at a time ([n, d_k] each, RAM
// for microcontrollers) where the kernels read the weights in place; where
// they read packed panels (x86) it projects them whole, in a few wide passes.
inline constexpr bool kMhaQuantHeadByHead = !kFixedPointPanels;

// Fixed-point MHA (ea_mha_quant_init): the per-channel integers
// (8 * d_model int32), the quantized position table (when filled at plan
// time), Q, K and V ([n, d_k] each head by head, else [n, d_model]), the
// heads' outputs [n, d_model], the four weight matrices packed for the
// dot-product instructions, then one attention core (heads run one after
// another). ADD(x, P) goes to the caller's y, which the run writes last. The
// caller's weights stay where they are.
constexpr uint64_t MhaQuantArenaBytes(int32_t n, int32_t d_model, int32_t heads, ea_dtype dtype,
                                      PositionStorage positions, int32_t max_workers = 1) {
  const uint64_t element = FixedPointBytes(dtype);
  const uint64_t tensor =
      ByteRegionBytes(static_cast<uint64_t>(n) * static_cast<uint64_t>(d_model) * element);
  const uint64_t table = positions == PositionStorage::kArena ? tensor : 0;
  const int32_t d_k = HeadWidthOrZero(d_model, heads);
  const uint64_t projected =
      ByteRegionBytes(static_cast<uint64_t>(n) *
                      static_cast<uint64_t>(kMhaQuantHeadByHead ? d_k : d_model) * element);
  const uint64_t weights = 4 * WeightPanelRegionBytes(d_model, d_model, dtype);
  return ByteRegionBytes(8 * static_cast<uint64_t>(d_model) * sizeof(int32_t)) + table +
         3 * projected + tensor + weights + QuantCoreArenaBytes(n, d_k, d_k, dtype, max_workers);
}

// One head of a fixed-point decoder's cache in the dot-product panels (x86,
// kFixedPointPanels; the VNNI attention reads them), packed for `positions`
// keys: int8 K + 128 in panels of 16 keys with each key's offset term
// (S8PanelRegionBytes), then V [d_k, positions] in 4-byte groups; int16 K in
// pairs with its high bytes (S16KeyPanelRegionBytes), then V in pairs.
constexpr uint64_t DecoderQuantHeadPanelBytes(int32_t positions, int32_t d_k, ea_dtype dtype) {
  if (dtype == EA_DTYPE_INT16) {
    return S16KeyPanelRegionBytes(positions, d_k) + S16PanelRegionBytes(d_k, positions);
  }
  return S8PanelRegionBytes(positions, d_k) +
         ByteRegionBytes(RoundUp(static_cast<uint64_t>(d_k), 16) *
                         RoundUp(static_cast<uint64_t>(positions), 4));
}

// The fixed-point decoder's cache capacity: every position of a stream of
// `positions` tokens, or with a window the ring that still holds each
// query's whole window during a step of `step_tokens` (never more than the
// stream).
constexpr int32_t DecoderQuantCapacity(int32_t positions, int32_t step_tokens, int32_t window) {
  if (window <= 0) return positions;
  const int64_t ring = int64_t{window} + step_tokens - 1;
  return ring < positions ? static_cast<int32_t>(ring) : positions;
}

// A decoder's or cross-attention's KV heads: n_kv_heads, where 0 means
// n_heads (plain MHA). One meaning for the field in the float and the
// fixed-point configs.
constexpr int32_t KvHeads(int32_t heads, int32_t kv_heads) {
  return kv_heads == 0 ? heads : kv_heads;
}
// The float decoder's KV heads (0 in its config: n_heads).
constexpr int32_t KvHeads(const ea_decoder_config& c) { return KvHeads(c.n_heads, c.n_kv_heads); }
// The float cross-attention's KV heads (0 in its config: n_heads).
constexpr int32_t KvHeads(const ea_cross_config& c) { return KvHeads(c.n_heads, c.n_kv_heads); }
// The fixed-point decoder's KV heads (0 in its config: n_heads).
constexpr int32_t KvHeads(const ea_decoder_quant_config& c) {
  return KvHeads(c.n_heads, c.n_kv_heads);
}
// The fixed-point cross-attention's KV heads (0 in its config: n_heads).
constexpr int32_t KvHeads(const ea_cross_quant_config& c) {
  return KvHeads(c.n_heads, c.n_kv_heads);
}

// Fixed-point MHA decoder (edgeattn/decoder.h), for streams of
// `positions` tokens in steps of at most `step_tokens` (with a `window`, or
// 0; with `kv_heads` KV heads, or 0 for `heads`): the per-channel integers
// (8 * d_model int32, enough for any KV heads), the quantized position table
// (when filled at init, [positions, d_model]) and ADD(x, P)
// ([step_tokens, d_model]), a step's q and heads' outputs
// ([query_rows, d_model] each; query_rows 0: step_tokens, a cross-attention's
// runs may take fewer rows than its memory's steps) and v ([step_tokens,
// kv_width], kv_width = kv_heads * d_k), the cache of DecoderQuantCapacity positions (K
// [capacity, kv_width] and V^T [kv_width, capacity], and on x86 each KV
// head's panels), W_Q and W_O ([d_model, d_model]), W_K and W_V
// ([kv_width, d_model]) packed, the int8 softmax's table and one query
// row's scratch over the cache's keys.
constexpr uint64_t DecoderQuantArenaBytes(int32_t positions, int32_t step_tokens, int32_t d_model,
                                          int32_t heads, ea_dtype dtype, PositionStorage storage,
                                          int32_t window = 0, int32_t kv_heads = 0,
                                          int32_t query_rows = 0) {
  const uint64_t element = FixedPointBytes(dtype);
  const uint64_t e = static_cast<uint64_t>(d_model);
  const int32_t d_k = HeadWidthOrZero(d_model, heads);
  const int32_t groups = KvHeads(heads, kv_heads);
  const uint64_t kv_width = static_cast<uint64_t>(groups) * static_cast<uint64_t>(d_k);
  const int32_t capacity = DecoderQuantCapacity(positions, step_tokens, window);
  const uint64_t stream = ByteRegionBytes(static_cast<uint64_t>(positions) * e * element);
  const uint64_t cache = ByteRegionBytes(static_cast<uint64_t>(capacity) * kv_width * element);
  const uint64_t step = ByteRegionBytes(static_cast<uint64_t>(step_tokens) * e * element);
  const uint64_t queries = ByteRegionBytes(
      static_cast<uint64_t>(query_rows > 0 ? query_rows : step_tokens) * e * element);
  const uint64_t step_kv = ByteRegionBytes(static_cast<uint64_t>(step_tokens) * kv_width * element);
  const uint64_t table = storage == PositionStorage::kArena ? stream : 0;
  const uint64_t positioned = storage == PositionStorage::kNone ? 0 : step;
  const uint64_t panels =
      kFixedPointPanels && groups > 0
          ? static_cast<uint64_t>(groups) * DecoderQuantHeadPanelBytes(capacity, d_k, dtype)
          : 0;
  const uint64_t weights =
      2 * WeightPanelRegionBytes(d_model, d_model, dtype) +
      2 * WeightPanelRegionBytes(static_cast<int32_t>(kv_width), d_model, dtype);
  return ByteRegionBytes(8 * e * sizeof(int32_t)) + table + positioned + 2 * queries + step_kv +
         2 * cache + panels + weights + ByteRegionBytes(kSoftmaxS8TableBytes) +
         QuantScratch(capacity, dtype).bytes;
}
// The bytes ea_decoder_quant_arena_size reports for a valid config.
constexpr uint64_t DecoderQuantArenaBytes(const ea_decoder_quant_config& c) {
  return DecoderQuantArenaBytes(c.max_positions, c.max_step_tokens, c.d_model, c.n_heads, c.dtype,
                                StorageOf(c.position, c.quant_position_table == nullptr), c.window,
                                c.n_kv_heads);
}

// Fixed-point cross-attention (ea_cross_quant_init): a fixed-point
// decoder's plan of max_memory positions, no window, no position table,
// whose steps (a run's queries, or a part of the memory set_memory stores)
// hold max(max_queries, min(max_memory, kCrossQuantMemoryStepRows)) rows
// of v (q and the heads' outputs: a run's max_queries rows).
// One row at a time (runs of one query) made set_memory 2.4 times slower
// than steps of 64 (int8, d_model 256, 512 rows, Zen 5, measured once
// outside bench/); 16 rows came within 5 % of 64 at a quarter of the bytes.
inline constexpr int32_t kCrossQuantMemoryStepRows = 16;
// Rows of one step: max(max_queries, min(max_memory, kCrossQuantMemoryStepRows)).
constexpr int32_t CrossQuantStepRows(int32_t max_queries, int32_t max_memory) {
  const int32_t memory_step =
      max_memory < kCrossQuantMemoryStepRows ? max_memory : kCrossQuantMemoryStepRows;
  return max_queries > memory_step ? max_queries : memory_step;
}
// The bytes ea_cross_quant_arena_size reports for a valid config.
constexpr uint64_t CrossQuantArenaBytes(const ea_cross_quant_config& c) {
  return DecoderQuantArenaBytes(c.max_memory, CrossQuantStepRows(c.max_queries, c.max_memory),
                                c.d_model, c.n_heads, c.dtype, PositionStorage::kNone, 0,
                                c.n_kv_heads, c.max_queries);
}

// Fixed-point self-attention (ea_self_attention_quant_init): the
// per-channel integers (2 * (2 * d_k + d_v) int32), the quantized position
// table (when filled at plan time) and ADD(x, P) ([n, d_model] each), Q, K
// ([n, d_k]) and V ([n, d_v]), W_Q, W_K, W_V packed for the dot-product
// instructions, then the attention core.
constexpr uint64_t SelfAttentionQuantArenaBytes(int32_t n, int32_t d_model, int32_t d_k,
                                                int32_t d_v, ea_dtype dtype,
                                                PositionStorage positions,
                                                int32_t max_workers = 1) {
  const uint64_t rows = static_cast<uint64_t>(n) * FixedPointBytes(dtype);
  const uint64_t input = ByteRegionBytes(rows * static_cast<uint64_t>(d_model));
  const uint64_t table = positions == PositionStorage::kArena ? input : 0;
  const uint64_t positioned = positions == PositionStorage::kNone ? 0 : input;
  const uint64_t weights =
      2 * WeightPanelRegionBytes(d_k, d_model, dtype) + WeightPanelRegionBytes(d_v, d_model, dtype);
  return ByteRegionBytes((4 * static_cast<uint64_t>(d_k) + 2 * static_cast<uint64_t>(d_v)) *
                         sizeof(int32_t)) +
         table + positioned + 2 * ByteRegionBytes(rows * static_cast<uint64_t>(d_k)) +
         ByteRegionBytes(rows * static_cast<uint64_t>(d_v)) + weights +
         QuantCoreArenaBytes(n, d_k, d_v, dtype, max_workers);
}

// KV cache (edgeattn/kv_cache.h). Positions are stored in blocks of kKeyBlock,
// one record per block and KV head, records in position-block order, so a
// decode step reads the cache as one stream. A float record (f32, f16) holds
// the block's keys as a K^T panel [d_head][kKeyBlock] (the layout the score
// grid reads) and its values as rows [kKeyBlock][d_head]. An int8 record
// holds them in the layouts of four-byte integer dot products (vpdpbusd,
// SDOT), in the order an attend reads them: keys in quads of channels,
// [ceil(d_head / 4)][kKeyBlock][4] (the channels past d_head are 0), one K
// scale per position, one V scale per position, values in quads of keys,
// [kKeyBlock / 4][d_head][4]. An int4 record holds int8's layout at half
// a byte a code, codes stored as code + 8 (0..15): the key quads in pairs,
// quad 2i in the low nibbles of row i and quad 2i + 1 in the high ones,
// [ceil(d_head / 8)][kKeyBlock][4]; then the K scales [groups][kKeyBlock],
// the V scales [groups][kKeyBlock]; then per group of EA_KV_Q4_GROUP
// channels (width w, the last group the rest) its values in pairs of key
// quads, [kKeyBlock / 8][w][4], key quad 2i low, 2i + 1 high.
constexpr bool KvIsQuantized(ea_kv_storage storage) {
  return storage == EA_KV_STORAGE_Q8 || storage == EA_KV_STORAGE_Q4;
}
// Bytes of one stored element: 4 (F32), 2 (F16), else 1 (Q4's half bytes:
// KvCodeBytes).
constexpr uint64_t KvElementBytes(ea_kv_storage storage) {
  return storage == EA_KV_STORAGE_F32 ? 4 : storage == EA_KV_STORAGE_F16 ? 2 : 1;
}
// Scale groups along d_head: int4's groups of EA_KV_Q4_GROUP channels, one
// for int8.
constexpr uint64_t KvScaleGroups(int32_t d_head, ea_kv_storage storage) {
  return storage == EA_KV_STORAGE_Q4
             ? RoundUp(static_cast<uint64_t>(d_head), EA_KV_Q4_GROUP) / EA_KV_Q4_GROUP
             : 1;
}
// Bytes of a record's scales: a K and a V float scale per position and
// scale group (Q8, Q4); 0 for float storage.
constexpr uint64_t KvScaleBytes(int32_t d_head, ea_kv_storage storage) {
  return KvIsQuantized(storage) ? 2 * KvScaleGroups(d_head, storage) * kKeyBlock * sizeof(float)
                                : 0;
}
// Channels of a record's key panel: d_head; whole quads for int8, whole
// pairs of quads for int4.
constexpr uint64_t KvKeyChannels(int32_t d_head, ea_kv_storage storage) {
  return storage == EA_KV_STORAGE_Q8   ? RoundUp(static_cast<uint64_t>(d_head), 4)
         : storage == EA_KV_STORAGE_Q4 ? RoundUp(static_cast<uint64_t>(d_head), 8)
                                       : static_cast<uint64_t>(d_head);
}
// Bytes of a record's keys and of its values (kKeyBlock is even: int4's
// half bytes are whole).
constexpr uint64_t KvCodeBytes(uint64_t channels, ea_kv_storage storage) {
  return storage == EA_KV_STORAGE_Q4 ? kKeyBlock * channels / 2
                                     : kKeyBlock * channels * KvElementBytes(storage);
}
// Bytes of one record (kKeyBlock positions of one KV head): keys, values
// and scales, rounded up to kRegionAlignment.
constexpr uint64_t KvRecordBytes(int32_t d_head, ea_kv_storage storage) {
  return RoundUp(KvCodeBytes(KvKeyChannels(d_head, storage), storage) +
                     KvCodeBytes(static_cast<uint64_t>(d_head), storage) +
                     KvScaleBytes(d_head, storage),
                 kRegionAlignment);
}
// Blocks of kKeyBlock positions that hold `capacity` positions.
constexpr uint64_t KvBlocks(int32_t capacity) {
  return RoundUp(static_cast<uint64_t>(capacity), kKeyBlock) / kKeyBlock;
}
// The records region: one record per block and KV head.
constexpr uint64_t KvRecordsBytes(int32_t capacity, int32_t n_kv_heads, int32_t d_head,
                                  ea_kv_storage storage) {
  return KvBlocks(capacity) * static_cast<uint64_t>(n_kv_heads) * KvRecordBytes(d_head, storage);
}
// Bytes of one attended row's online-softmax state (running max, sum, flag).
inline constexpr uint64_t kKvRowStateBytes = 16;
// int8 and int4: an attend's queries as int8 codes, per attended row its
// quads of channels (as int8, and widened to 4 bytes a code for the kernels
// that read them so), a float scale and an int32 sum of the codes per scale
// group; append's staging of one head's codes (at most one row's quads).
// int4: first, the record being attended widened to int8's layout (values
// group by group: [groups][kKeyBlock / 4][w][4]).
constexpr uint64_t KvQueryCodeBytes(int32_t max_queries, int32_t n_heads, int32_t d_head,
                                    ea_kv_storage storage) {
  const uint64_t widened_record =
      storage == EA_KV_STORAGE_Q4
          ? kKeyBlock * (KvKeyChannels(d_head, storage) + static_cast<uint64_t>(d_head))
          : 0;
  return KvIsQuantized(storage)
             ? widened_record +
                   static_cast<uint64_t>(max_queries) * static_cast<uint64_t>(n_heads) *
                       ((1 + sizeof(float)) * KvKeyChannels(d_head, storage) + sizeof(float) +
                        sizeof(int32_t) * KvScaleGroups(d_head, storage))
             : 0;
}
// KV cache: the records, one row state per attended row and head, one score
// tile, then (Q8, Q4) the query codes.
constexpr uint64_t KvCacheArenaBytes(int32_t capacity, int32_t n_heads, int32_t n_kv_heads,
                                     int32_t d_head, int32_t max_queries, ea_kv_storage storage) {
  return ByteRegionBytes(KvRecordsBytes(capacity, n_kv_heads, d_head, storage)) +
         ByteRegionBytes(static_cast<uint64_t>(max_queries) * static_cast<uint64_t>(n_heads) *
                         kKvRowStateBytes) +
         FloatRegionBytes(static_cast<uint64_t>(kScoreTileRows) * kScoreTileKeys) +
         ByteRegionBytes(KvQueryCodeBytes(max_queries, n_heads, d_head, storage));
}
// The bytes ea_kv_cache_arena_size reports for a valid config.
constexpr uint64_t KvCacheArenaBytes(const ea_kv_cache_config& c) {
  return KvCacheArenaBytes(c.capacity, c.n_heads, c.n_kv_heads, c.d_head, c.max_queries, c.storage);
}

// MHA decoder (edgeattn/decoder.h): the cache holds max_positions
// positions without a window, and the window plus one step's other tokens
// with one (the ring rule of the KV cache).
// (A window + max_tokens - 1 past INT32_MAX, which init refuses, saturates.)
constexpr int32_t DecoderCacheCapacity(int32_t max_positions, int32_t max_tokens, int32_t window) {
  if (window <= 0) return max_positions;
  const int64_t capacity = int64_t{window} + max_tokens - 1;
  return capacity > INT32_MAX ? INT32_MAX : static_cast<int32_t>(capacity);
}
// The sinusoidal table when filled at init ([max_positions, d_model]), X + P
// for one step, packed in_proj and out_proj, one step's Q|K|V as projected,
// Q, K and V as the cache takes them, the heads' outputs, then the cache.
constexpr uint64_t DecoderArenaBytes(int32_t d_model, int32_t n_heads, int32_t n_kv_heads,
                                     int32_t max_positions, int32_t max_tokens, int32_t window,
                                     ea_kv_storage storage, PositionStorage positions,
                                     ea_weights_layout weights) {
  const int32_t d_head = HeadWidthOrZero(d_model, n_heads);
  const int32_t kv_heads = KvHeads(n_heads, n_kv_heads);
  const uint64_t kv_cols = static_cast<uint64_t>(kv_heads) * static_cast<uint64_t>(d_head);
  const uint64_t qkv_cols = static_cast<uint64_t>(d_model) + 2 * kv_cols;
  const uint64_t tokens = static_cast<uint64_t>(max_tokens);
  const uint64_t table =
      positions == PositionStorage::kArena
          ? FloatRegionBytes(static_cast<uint64_t>(max_positions) * static_cast<uint64_t>(d_model))
          : 0;
  const uint64_t positioned =
      positions == PositionStorage::kNone ? 0 : FloatRegionBytes(tokens * d_model);
  return table + positioned + PackedWeightBytes(static_cast<int64_t>(qkv_cols), d_model, weights) +
         PackedWeightBytes(d_model, d_model, weights) + FloatRegionBytes(tokens * qkv_cols) +
         FloatRegionBytes(tokens * d_model) + 2 * FloatRegionBytes(tokens * kv_cols) +
         FloatRegionBytes(tokens * d_model) +
         KvCacheArenaBytes(DecoderCacheCapacity(max_positions, max_tokens, window), n_heads,
                           kv_heads, d_head, max_tokens, storage);
}
// The bytes ea_decoder_arena_size reports for a valid config.
constexpr uint64_t DecoderArenaBytes(const ea_decoder_config& c) {
  return DecoderArenaBytes(c.d_model, c.n_heads, c.n_kv_heads, c.max_positions, c.max_step_tokens,
                           c.window, c.storage, StorageOf(c.position, c.position_table == nullptr),
                           c.weights_layout);
}
// MHA cross-attention: memory rows are projected kMemoryChunkRows at a time,
// through the in_proj panels from the one holding W_K's first row (panels of
// kKeyBlock rows: columns (d_model / kKeyBlock) * kKeyBlock .. d_model +
// 2 kv_cols, kv_cols = n_kv_heads d_head).
inline constexpr int32_t kMemoryChunkRows = 64;
// Rows of one memory chunk: max_memory, at most kMemoryChunkRows.
constexpr uint64_t MemoryChunkRows(int32_t max_memory) {
  return static_cast<uint64_t>(max_memory < kMemoryChunkRows ? max_memory : kMemoryChunkRows);
}
// Columns of a chunk's projection: d_model + 2 kv_cols, less the whole
// panels before W_K's first row.
constexpr uint64_t MemoryProjectionCols(int32_t d_model, uint64_t kv_cols) {
  return static_cast<uint64_t>(d_model) + 2 * kv_cols -
         static_cast<uint64_t>(d_model) / kKeyBlock * kKeyBlock;
}
// Packed in_proj and out_proj, Q, one memory chunk's projection and its K
// and V, the heads' outputs, then the cache of the memory.
constexpr uint64_t CrossArenaBytes(int32_t d_model, int32_t n_heads, int32_t n_kv_heads,
                                   int32_t max_memory, int32_t max_queries, ea_kv_storage storage,
                                   ea_weights_layout weights) {
  const uint64_t e = static_cast<uint64_t>(d_model);
  const int32_t d_head = HeadWidthOrZero(d_model, n_heads);
  const int32_t kv_heads = KvHeads(n_heads, n_kv_heads);
  const uint64_t kv_cols = static_cast<uint64_t>(kv_heads) * static_cast<uint64_t>(d_head);
  const uint64_t chunk = MemoryChunkRows(max_memory);
  return PackedWeightBytes(static_cast<int64_t>(e + 2 * kv_cols), d_model, weights) +
         PackedWeightBytes(d_model, d_model, weights) +
         2 * FloatRegionBytes(static_cast<uint64_t>(max_queries) * e) +
         FloatRegionBytes(chunk * MemoryProjectionCols(d_model, kv_cols)) +
         2 * FloatRegionBytes(chunk * kv_cols) +
         KvCacheArenaBytes(max_memory, n_heads, kv_heads, d_head, max_queries, storage);
}
// The bytes ea_cross_arena_size reports for a valid config.
constexpr uint64_t CrossArenaBytes(const ea_cross_config& c) {
  return CrossArenaBytes(c.d_model, c.n_heads, c.n_kv_heads, c.max_memory, c.max_queries, c.storage,
                         c.weights_layout);
}

}  // namespace edgeattn

#endif  // EDGEATTN_ARENA_SIZES_HPP_
