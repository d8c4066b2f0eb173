/* edgeattn: attention for edge CPUs, with no heap.
 *
 * The C API is what firmware links against. Every operation follows the same
 * pattern:
 *   1. describe it in a config struct;
 *   2. ask ea_*_arena_size() how many bytes of working memory it needs;
 *   3. ea_*_plan_init() validates everything once and carves the arena;
 *   4. ea_*_run() computes, any number of times, with no allocation and no
 *      shape validation (only O(1) pointer and length checks).
 * Every function returns an ea_status; on any error no output byte is written
 * (a failed plan_init does clear the plan's ready state, see below).
 *
 * Layouts: all matrices are row-major float32. Weights are [out, in] row-major
 * (PyTorch nn.Linear / nn.MultiheadAttention and TFLite FULLY_CONNECTED layout):
 * a projection computes y = x W^T + b.
 *
 * Thread safety: a plan owns scratch memory in its arena, so one plan runs on
 * one thread at a time. Different plans on different arenas are independent,
 * except that plan_init and ea_simd_target() apply the SIMD target cap
 * (ea_set_max_simd_target): on hosted builds, make those calls before runs
 * start on other threads. An output must not overlap another live plan's
 * arena regions either (the library checks only the plan it runs).
 */
#ifndef EDGEATTN_EDGEATTN_H_
#define EDGEATTN_EDGEATTN_H_

#include <stddef.h>
#include <stdint.h>

#define EDGEATTN_VERSION_MAJOR 0
#define EDGEATTN_VERSION_MINOR 21
#define EDGEATTN_VERSION_PATCH 1
#define EDGEATTN_VERSION_STRING "0.21.1"
/* One number for #if comparisons: major * 10000 + minor * 100 + patch. */
#define EDGEATTN_VERSION \
  (EDGEATTN_VERSION_MAJOR * 10000 + EDGEATTN_VERSION_MINOR * 100 + EDGEATTN_VERSION_PATCH)

/* Arena buffers must start at this alignment (one cache line, one AVX-512 vector). */
#define EA_ARENA_ALIGNMENT 64

#ifdef __cplusplus
extern "C" {
#endif

/* Every enum spans the whole int32 range (the *_RANGE_ members are not valid
 * values): the ABI is 4 bytes even where enums are short by default
 * (arm-none-eabi), and any int a C caller stores is a value the library can
 * reject with EA_ERR_BAD_ARGUMENT. */
#define EA_ENUM_RANGE_MIN_ (-0x7FFFFFFF - 1)
#define EA_ENUM_RANGE_MAX_ 0x7FFFFFFF

/* Each code lists every cause that returns it. tests/contract/status_codes_test.cc
 * triggers each one, except the two a build cannot reach: the size_t overflow
 * only on 32-bit targets, the target cap below a static build's target only
 * in tests/simd_target_cap_test.cc. */
typedef enum ea_status {
  EA_OK = 0,
  /* A required pointer argument, weight or table is NULL (a LEARNED position
   * kind without its table included; a parallel-for of max_workers > 1
   * without its run function; a fixed-point config with neither
   * quant_scales nor quant_params, or given integers without their
   * per-channel arrays). */
  EA_ERR_NULL_POINTER = 1,
  /* A config dimension is zero or negative, or a run's n_tokens is outside
   * [1, max_tokens]. */
  EA_ERR_BAD_DIMENSION = 2,
  /* A tensor (attn_weights included) would exceed EA_MAX_ELEMENTS elements, or
   * the arena size does not fit in size_t. */
  EA_ERR_DIMENSION_OVERFLOW = 3,
  /* d_model is not divisible by the number of heads, or (KV cache) n_heads
   * by n_kv_heads. */
  EA_ERR_HEADS_MISMATCH = 4,
  /* The arena has fewer free bytes than the plan needs, a packing buffer
   * fewer floats than ea_packed_linear_size, or a weight file more tensors
   * than its open has index room for (edgeattn/weight_file.h). */
  EA_ERR_ARENA_TOO_SMALL = 5,
  /* The arena buffer, or its next free byte, is not EA_ARENA_ALIGNMENT-aligned. */
  EA_ERR_ARENA_MISALIGNED = 6,
  /* Anything else out of range: an enum value, a negative or non-finite scale,
   * n_valid_keys outside [0, n_kv], a run on a plan that is not ready, buffers
   * that break a run's memory rules (see the run functions), an arena struct
   * whose used > capacity, an unknown SIMD target name, a packing buffer
   * that overlaps its weights, max_workers outside [0, EA_MAX_WORKERS], a
   * parallel-for run that passed a worker index out of range; a fixed-point
   * dtype given to ea_attention_plan_init or ea_mha_plan_init (they plan
   * float; fixed point plans with the *_quant_plan_init functions), a plan of
   * the other dtype to a _s8 / _s16 run; fixed-point quantization out of
   * range (see ea_mha_quant_derive). */
  EA_ERR_BAD_ARGUMENT = 7,
  /* A valid request this build cannot carry out: a SIMD target cap below a
   * static build's only target; a valid weight file with a tensor not
   * aligned to its element size (edgeattn/weight_file.h). */
  EA_ERR_UNSUPPORTED = 8,
  /* A KV cache without a window holds capacity tokens: an append past them
   * (edgeattn/kv_cache.h); an MHA decoder's step past max_positions
   * (edgeattn/mha_decode.h). */
  EA_ERR_CACHE_FULL = 9,
  /* A weight file whose bytes break its format (edgeattn/weight_file.h). */
  EA_ERR_BAD_FILE = 10,
  /* A weight file has no tensor of the name asked for. */
  EA_ERR_NOT_FOUND = 11,
  EA_STATUS_RANGE_MIN_ = EA_ENUM_RANGE_MIN_,
  EA_STATUS_RANGE_MAX_ = EA_ENUM_RANGE_MAX_
} ea_status;

/* A short English description; "" when built with EDGEATTN_NO_ERROR_STRINGS. */
const char* ea_status_str(ea_status status);

/* The SIMD target the kernels run on now, e.g. "AVX3_DL", "AVX2", "NEON", "SCALAR".
 * On hosted builds, while no explicit cap is set and EDGEATTN_MAX_SIMD_TARGET
 * holds a name the library does not know (a typo: "AVX512", "sse2"), the name
 * is followed by " (EDGEATTN_MAX_SIMD_TARGET unknown: ignored)", e.g.
 * "AVX3_DL (EDGEATTN_MAX_SIMD_TARGET unknown: ignored)": whatever prints the
 * target (the demo, the benchmarks, a bug report) shows that the cap the user
 * meant is not in force. */
const char* ea_simd_target(void);
/* Its float vector width in bytes (4 on SCALAR, 64 on AVX-512, 16..256 on SVE). */
size_t ea_simd_vector_bytes(void);

/* Caps the SIMD target of hosted (dynamic-dispatch) builds at `name`, a
 * Highway target name as ea_simd_target() prints it ("AVX2", "SSE4", case
 * insensitive): the kernels then run on the best target the CPU supports
 * that is not above it (as oneDNN's dnnl_set_max_cpu_isa). NULL or "" drops
 * the explicit cap and hands control back to the environment variable
 * EDGEATTN_MAX_SIMD_TARGET (no cap when it is unset): the library reads it
 * with getenv at every plan_init, ea_simd_target() and ea_simd_vector_bytes()
 * while no explicit cap is set, and ignores a name it does not know (no cap;
 * ea_simd_target() then says so, see above).
 * The cap is Highway's process-wide target choice (hwy::DisableTargets), so
 * it also applies to other dynamically dispatched Highway code in the
 * process, and replaces any DisableTargets mask the application set itself;
 * call it at start-up, before planning, from one thread. With clang, whose
 * Highway fallback is EMU128 rather than SCALAR, a "SCALAR" cap runs EMU128.
 * Static builds (firmware, cross) have exactly one target: naming it or any
 * target above it is EA_OK, naming one below it EA_ERR_UNSUPPORTED.
 * An unknown name is EA_ERR_BAD_ARGUMENT; in every error case nothing changes. */
ea_status ea_set_max_simd_target(const char* name);

/* Largest element count of any one tensor (rows * cols), 2^28: keeps every
 * byte offset far inside int32/size_t on 32-bit MCUs. */
#define EA_MAX_ELEMENTS (1L << 28)

/* ------------------------------------------------------------------ arena */

/* A caller-owned buffer with a bump pointer. Plans carve it; nothing frees. */
typedef struct ea_arena {
  uint8_t* base;
  size_t capacity;
  size_t used;
} ea_arena;

/* buffer must be EA_ARENA_ALIGNMENT-aligned. */
ea_status ea_arena_init(ea_arena* arena, void* buffer, size_t capacity);
/* Forgets every carve. Every plan carved from the arena becomes invalid: its
 * regions will be handed out again, and running it afterwards is a caller
 * bug the library cannot detect (plan_init anew instead). */
ea_status ea_arena_reset(ea_arena* arena);
/* Bytes still free. */
size_t ea_arena_remaining(const ea_arena* arena);

/* ------------------------------------------------------------- options */

typedef enum ea_dtype {
  EA_DTYPE_F32 = 0,
  /* Fixed point with TensorFlow Lite's integers (see "fixed point" below):
   * every operation, planned by its *_quant_plan_init. */
  EA_DTYPE_INT8 = 1, /* int8 activations, int8 weights, int32 biases */
  EA_DTYPE_INT16 =
      2, /* TFLite "16x8": int16 activations (zero point 0), int8 weights, int64 biases */
  EA_DTYPE_RANGE_MIN_ = EA_ENUM_RANGE_MIN_,
  EA_DTYPE_RANGE_MAX_ = EA_ENUM_RANGE_MAX_
} ea_dtype;

typedef enum ea_mask {
  EA_MASK_NONE = 0,
  /* Query i sees keys j <= i + (n_kv - n_q): aligned at the bottom-right, so a
   * block of new queries at the end of a sequence sees all earlier keys. For
   * n_q == n_kv this is the usual lower triangle. */
  EA_MASK_CAUSAL = 1,
  EA_MASK_RANGE_MIN_ = EA_ENUM_RANGE_MIN_,
  EA_MASK_RANGE_MAX_ = EA_ENUM_RANGE_MAX_
} ea_mask;

typedef enum ea_position {
  EA_POSITION_NONE = 0,       /* attention alone: permutation equivariant */
  EA_POSITION_SINUSOIDAL = 1, /* PE(p,2i)=sin(p/10000^(2i/d)), PE(p,2i+1)=cos(same) */
  EA_POSITION_LEARNED = 2,    /* caller's [max_tokens, d_model] table */
  EA_POSITION_RANGE_MIN_ = EA_ENUM_RANGE_MIN_,
  EA_POSITION_RANGE_MAX_ = EA_ENUM_RANGE_MAX_
} ea_position;

/* How a model plan's weight matrices W [out, in] are given. */
typedef enum ea_weights_layout {
  /* Row-major, as PyTorch and TFLite store them. plan_init packs them into
   * the arena (their share of the arena formula), so a plan does not see
   * later changes to them: plan again. */
  EA_WEIGHTS_ROW_MAJOR = 0,
  /* Already packed by ea_pack_linear_weights (offline, or at start-up), e.g.
   * constant data in flash: the plan reads them in place, no arena for them. */
  EA_WEIGHTS_PACKED = 1,
  EA_WEIGHTS_RANGE_MIN_ = EA_ENUM_RANGE_MIN_,
  EA_WEIGHTS_RANGE_MAX_ = EA_ENUM_RANGE_MAX_
} ea_weights_layout;

/* ------------------------------------------------------ parallel for */

/* The caller's threads, if any: the library creates none. A run hands its
 * work to `run` as n_tasks independent tasks. `run` must call
 * task(task_context, i, worker) once for every i in [0, n_tasks), from any
 * threads, each call with a `worker` in [0, max_workers) that no other call
 * running at the same time uses (a thread index does), and return when all
 * have finished. The split into tasks (query blocks of 60 rows, heads one
 * after another, projection blocks of 60 rows x 64 outputs) does not depend
 * on the number of workers, so results are bit-identical for any max_workers
 * and any schedule; a batch of one task runs on the calling thread without
 * calling `run`. Tasks are small (tens of microseconds on a desktop core) so
 * that a `run` can balance them: a pool whose caller also takes tasks
 * finishes a batch alone when its other threads are not scheduled. They are
 * numbered largest first (a causal run's last query blocks, which see the
 * most keys, come first), so a pool that hands them out in index order ends
 * a batch on small ones. Each worker gets its own score
 * tile in the arena (see the arena formulas). A run whose `run` passes a worker out of range skips
 * that task and returns EA_ERR_BAD_ARGUMENT; its outputs are then incomplete. */
#define EA_MAX_WORKERS 1024
typedef void (*ea_task_fn)(void* task_context, int32_t task, int32_t worker);
typedef void (*ea_parallel_run_fn)(void* context, int32_t n_tasks, ea_task_fn task,
                                   void* task_context);
typedef struct ea_parallel_for {
  ea_parallel_run_fn run; /* NULL: every task on the calling thread */
  void* context;          /* passed to run */
  int32_t max_workers;    /* 0 or 1: one worker; up to EA_MAX_WORKERS (run required) */
} ea_parallel_for;

/* ------------------------------------------------------ packed weights */

/* The layout the projection kernel streams: W [n_out, n_in] transposed in
 * panels of 64 output rows, n_in x 64 floats each, the last panel padded with
 * zeros. *floats = n_in * roundup(n_out, 64). */
ea_status ea_packed_linear_size(int32_t n_out, int32_t n_in, size_t* floats);
/* Packs row-major w [n_out, n_in] into packed, which holds packed_floats
 * floats (at least ea_packed_linear_size's) and does not overlap w. Any
 * alignment works; 64 bytes is fastest. */
ea_status ea_pack_linear_weights(const float* w, int32_t n_out, int32_t n_in, float* packed,
                                 size_t packed_floats);

/* ------------------------------------------------------- fixed point */

/* The fixed-point dtypes compute TensorFlow Lite's quantized op chain with
 * TFLite's integers, bit for bit (its reference kernels, default double
 * rounding; -DEDGEATTN_SINGLE_ROUNDING gives TFLITE_SINGLE_ROUNDING's):
 *   x = ADD(x_emb, P)  -> q, k, v = FULLY_CONNECTED (per-channel weights)
 *   -> per head: scores = BATCH_MATMUL(q_h, k_h^T) -> probs = SOFTMAX(beta =
 *   1/sqrt(d_k)) -> o_h = BATCH_MATMUL(probs, v_h) -> y = FULLY_CONNECTED(o).
 * int8 probabilities have scale 1/256 and zero point -128, int16 ones 1/32768
 * and 0 (TFLite's fixed softmax output quantization). Causal row i is the
 * softmax over keys 0..i; masked probabilities are the zero value. Where
 * TFLite's reference aborts or is undefined, edgeattn defines the result:
 *   - int8 softmax rows whose sum of exponentials reaches 512 (TFLite
 *     aborts: near-uniform rows of 512 or more keys): every probability is
 *     then at most half an LSB, and the row saturates at -128 (probability
 *     0), the int8 value nearest to each exact probability;
 *   - a requantisation whose left shift or result leaves int32, and an int64
 *     accumulator beyond TFLite's +-2^47: saturation.
 * The run path contains no float arithmetic, so every target gives the same
 * integers. Plans take float scales (ea_mha_quant_scales: plan_init derives
 * TFLite's integers as TFLite's Prepare does) or the integers themselves
 * (ea_mha_quant_params). */

/* real = scale * (q - zero_point). */
typedef struct ea_quant {
  float scale;
  int32_t zero_point;
} ea_quant;

/* The quantization of every tensor of the MHA chain, as a TFLite model
 * stores it. int16 zero points must be 0. */
typedef struct ea_mha_quant_scales {
  ea_quant input;      /* x_emb: the run's x */
  ea_quant position;   /* the quantized position table (ignored without positions) */
  ea_quant positioned; /* ADD(x_emb, P) (ignored without positions) */
  ea_quant q;
  ea_quant k;
  ea_quant v;
  ea_quant scores;                     /* q_h k_h^T, before the softmax */
  ea_quant context;                    /* o: the heads' outputs, concatenated */
  ea_quant output;                     /* y */
  const float* in_proj_weight_scales;  /* [3*d_model], one per in_proj row */
  const float* out_proj_weight_scales; /* [d_model] */
} ea_mha_quant_scales;

/* TFLite's Prepare-time integers, with TFLite's names: a real multiplier
 * m = multiplier * 2^(shift - 31) (TFLite's multipliers are 0 or in
 * [2^30, 2^31)). Given integers are accepted within these ranges, else
 * EA_ERR_BAD_ARGUMENT: multipliers >= 0; shifts in [-31, 30] on the int8
 * paths and [-31, 7] on the int16 ones (TFLite's 64-bit requantisation);
 * ADD's shifts in [-31, 0] and left_shift in [0, 20] (int8) / [0, 15]
 * (int16); offsets of int8 zero points (-zero point in [-127, 128]), 0 for
 * int16; the context's lhs_offset 128 (int8) or 0 (int16); the int8
 * softmax's input_left_shift in [0, 31] with diff_min <= 0 and
 * min(-diff_min, 255) * 2^input_left_shift < 2^31; the int16 softmax's shift
 * in [-31, 30]. */
typedef struct ea_add_quant_params { /* ADD */
  int32_t left_shift;                /* 20 (int8) or 15 (int16) */
  int32_t input1_offset;             /* -zero point of x_emb */
  int32_t input1_multiplier;
  int32_t input1_shift;  /* <= 0 */
  int32_t input2_offset; /* -zero point of the table */
  int32_t input2_multiplier;
  int32_t input2_shift;
  int32_t output_offset; /* zero point of the sum */
  int32_t output_multiplier;
  int32_t output_shift;
} ea_add_quant_params;

typedef struct ea_linear_quant_params { /* FULLY_CONNECTED, per channel */
  int32_t input_offset;                 /* -zero point of the input */
  int32_t output_offset;                /* zero point of the output */
  const int32_t* output_multiplier;     /* one per output channel */
  const int32_t* output_shift;
} ea_linear_quant_params;

typedef struct ea_matmul_quant_params { /* BATCH_MATMUL */
  int32_t lhs_offset;                   /* -zero point of the left operand */
  int32_t rhs_offset;                   /* -zero point of the right operand */
  int32_t output_offset;
  int32_t output_multiplier;
  int32_t output_shift;
} ea_matmul_quant_params;

typedef struct ea_softmax_quant_params { /* SOFTMAX */
  int32_t input_multiplier;
  int32_t input_left_shift;
  int32_t diff_min; /* int8 only */
} ea_softmax_quant_params;

/* Fixed-point Attention(Q, K, V): the quantization of its tensors
 * (probabilities: see above), or TFLite's integers. */
typedef struct ea_attention_quant_scales {
  ea_quant q;
  ea_quant k;
  ea_quant v;
  ea_quant scores; /* q k^T, before the softmax */
  ea_quant output;
} ea_attention_quant_scales;

typedef struct ea_attention_quant_params {
  ea_matmul_quant_params scores; /* q (lhs) times k^T (rhs) */
  ea_softmax_quant_params softmax;
  ea_matmul_quant_params context; /* probs (lhs) times v (rhs) */
} ea_attention_quant_params;

typedef struct ea_mha_quant_params {
  ea_add_quant_params add;       /* ignored without positions */
  ea_linear_quant_params q_proj; /* d_model channels each */
  ea_linear_quant_params k_proj;
  ea_linear_quant_params v_proj;
  ea_matmul_quant_params scores; /* q_h (lhs) times k_h^T (rhs) */
  ea_softmax_quant_params softmax;
  ea_matmul_quant_params context; /* probs (lhs) times v_h (rhs) */
  ea_linear_quant_params out_proj;
} ea_mha_quant_params;

/* Fixed-point single-head self-attention: MHA's chain for one head of d_k
 * query/key and d_v value channels, without W_O (y is the context). */
typedef struct ea_self_attention_quant_scales {
  ea_quant input;      /* x_emb: the run's x */
  ea_quant position;   /* the quantized position table (ignored without positions) */
  ea_quant positioned; /* ADD(x_emb, P) (ignored without positions) */
  ea_quant q;
  ea_quant k;
  ea_quant v;
  ea_quant scores;         /* q k^T, before the softmax */
  ea_quant output;         /* y = probs v */
  const float* w_q_scales; /* [d_k], one per row of w_q */
  const float* w_k_scales; /* [d_k] */
  const float* w_v_scales; /* [d_v] */
} ea_self_attention_quant_scales;

typedef struct ea_self_attention_quant_params {
  ea_add_quant_params add;             /* ignored without positions */
  ea_linear_quant_params q_proj;       /* d_k channels */
  ea_linear_quant_params k_proj;       /* d_k channels */
  ea_linear_quant_params v_proj;       /* d_v channels */
  ea_attention_quant_params attention; /* scores, softmax, context */
} ea_self_attention_quant_params;

/* The arena regions of one fixed-point attention (private, as every plan field). */
typedef struct ea_quant_core {
  void* softmax_table; /* int8: the softmax's per-difference tables */
  void* k_panels;      /* K and V packed for the dot-product instructions */
  void* v_panels;
  void* v_transposed; /* V^T for the row kernels */
  int32_t max_keys;
  void* row_scratch; /* one row block per worker */
  size_t row_scratch_bytes;
} ea_quant_core;

/* Per-channel storage ea_mha_quant_derive needs: 8 * d_model int32 (a size_t). */
#define EA_MHA_QUANT_CHANNEL_INTS(d_model) ((size_t)8 * (size_t)(d_model))
/* And ea_self_attention_quant_derive: 2 * (2 * d_k + d_v) int32. */
#define EA_SELF_ATTENTION_QUANT_CHANNEL_INTS(d_k, d_v) \
  ((size_t)2 * ((size_t)2 * (size_t)(d_k) + (size_t)(d_v)))

/* ---------------------------------------------------- Attention(Q, K, V) */

/* out = softmax(scale * Q K^T + mask) V, Q: [n_q, d_k], K: [n_kv, d_k],
 * V: [n_kv, d_v], out: [n_q, d_v]. */
typedef struct ea_attention_config {
  ea_dtype dtype;
  int32_t n_q;
  int32_t n_kv;
  int32_t d_k;
  int32_t d_v;
  ea_mask mask;
  float scale;              /* 0: use 1/sqrt(d_k); fixed point: the softmax's beta */
  ea_parallel_for parallel; /* zero: single-threaded */
  /* Fixed-point dtypes only (NULL for F32): scales, or TFLite's integers
   * (used as given when non-NULL). */
  const ea_attention_quant_scales* quant_scales;
  const ea_attention_quant_params* quant_params;
} ea_attention_config;

/* Treat the fields of every plan as private: they may change in any release.
 * A plan that plan_init did not complete is refused by run (EA_ERR_BAD_ARGUMENT),
 * provided it was zero-initialised (static storage, or `= {0}`). A plan_init
 * that fails clears the plan's ready state first, so a struct that held a
 * ready plan is not runnable after a failed re-plan.
 * A plan refers to its arena regions: a copy of the struct shares them, so a
 * plan and its copy must not run at the same time. */
#define EA_PLAN_READY 0x45415031u /* "EAP1" */
typedef struct ea_attention_plan {
  uint32_t ready; /* EA_PLAN_READY once plan_init succeeded */
  ea_attention_config config;
  float scale;
  float* packed_keys; /* [d_k, n_kv rounded up to 64] arena region */
  float* score_tile;  /* [workers, 6, 256] arena region: one tile per worker */
} ea_attention_plan;

ea_status ea_attention_arena_size(const ea_attention_config* config, size_t* bytes);
ea_status ea_attention_plan_init(ea_attention_plan* plan, const ea_attention_config* config,
                                 ea_arena* arena);
/* n_valid_keys in [0, n_kv]: keys from n_valid_keys on are padding (masked).
 * attn_weights: NULL, or [n_q, n_kv] to receive the softmax probabilities.
 * Rows with no visible key output 0 (and all-zero weights). A row whose
 * visible scaled scores include a NaN or +-inf (non-finite inputs, or a dot
 * product past FLT_MAX) outputs NaN across its output and weights rows. For
 * -inf this differs on purpose from PyTorch, which gives such a key weight 0:
 * masks are the mask argument and n_valid_keys, and a -inf score here is an
 * overflow to report, not a mask. NaN or inf in V reaches every row that sees
 * that key (0 * inf is NaN), even where the key's weight underflowed to 0.
 * Memory rules (EA_ERR_BAD_ARGUMENT otherwise, nothing written): out and
 * attn_weights overlap neither q, k, v, each other, nor the plan's arena
 * regions (the output rows are the running accumulator), and q, k, v lie
 * outside the plan's arena regions. */
ea_status ea_attention_run(const ea_attention_plan* plan, const float* q, const float* k,
                           const float* v, int32_t n_valid_keys, float* out, float* attn_weights);

/* Fixed-point Attention(Q, K, V) (dtype INT8 or INT16; arena size from
 * ea_attention_arena_size): TFLite's BATCH_MATMUL(q, k^T) -> SOFTMAX ->
 * BATCH_MATMUL(probs, v), bit for bit. q [n_q, d_k], k [n_kv, d_k],
 * v [n_kv, d_v], out [n_q, d_v], attn_weights NULL or [n_q, n_kv]
 * probabilities (masked: the zero probability). No padding mask (n_kv keys
 * are all valid). Memory rules as in ea_attention_run. */
typedef struct ea_attention_quant_plan {
  uint32_t ready;
  ea_attention_config config;
  ea_attention_quant_params params;
  ea_quant_core core;
  const void* carve;
  size_t carve_bytes;
} ea_attention_quant_plan;

ea_status ea_attention_quant_plan_init(ea_attention_quant_plan* plan,
                                       const ea_attention_config* config, ea_arena* arena);
ea_status ea_attention_run_s8(const ea_attention_quant_plan* plan, const int8_t* q, const int8_t* k,
                              const int8_t* v, int8_t* out, int8_t* attn_weights);
ea_status ea_attention_run_s16(const ea_attention_quant_plan* plan, const int16_t* q,
                               const int16_t* k, const int16_t* v, int16_t* out,
                               int16_t* attn_weights);

/* ------------------------------------------------ single-head self-attention */

/* Y = Attention(X' W_Q^T + b_Q, X' W_K^T + b_K, X' W_V^T + b_V), X' = X + P. */
typedef struct ea_self_attention_config {
  ea_dtype dtype;
  int32_t max_tokens; /* n: a run may use any 1..max_tokens */
  int32_t d_model;
  int32_t d_k;
  int32_t d_v;
  ea_mask mask;
  ea_position position;
  /* SINUSOIDAL: NULL to fill a table into the arena at plan time, or a
   * precomputed [max_tokens, d_model] table (e.g. edgeattn::SinusoidalTable in
   * flash). LEARNED: the caller's table, required. NONE: ignored. */
  const float* position_table;
  ea_weights_layout weights_layout; /* of w_q, w_k, w_v */
  ea_parallel_for parallel;         /* zero: single-threaded */
  /* Fixed-point dtypes only, as in ea_mha_config (NULL for F32). */
  const ea_self_attention_quant_scales* quant_scales;
  const ea_self_attention_quant_params* quant_params;
  const void* quant_position_table;
} ea_self_attention_config;

/* ROW_MAJOR: w_q [d_k, d_model], w_k [d_k, d_model], w_v [d_v, d_model].
 * PACKED: each packed by ea_pack_linear_weights with the same shape. */
typedef struct ea_self_attention_weights {
  const float* w_q;
  const float* w_k;
  const float* w_v;
  const float* b_q; /* [d_k] or NULL */
  const float* b_k; /* [d_k] or NULL */
  const float* b_v; /* [d_v] or NULL */
} ea_self_attention_weights;

typedef struct ea_self_attention_plan {
  uint32_t ready;
  ea_self_attention_config config;
  ea_self_attention_weights weights;
  const float* position_table; /* resolved table or NULL */
  const float* packed_w_q;     /* packed weights: arena regions or the caller's */
  const float* packed_w_k;
  const float* packed_w_v;
  float* x_positioned;    /* [n, d_model] or NULL without positions */
  float* q;               /* [n, d_k] */
  float* k;               /* [n, d_k] */
  float* v;               /* [n, d_v] */
  ea_attention_plan core; /* planned for max_tokens x max_tokens */
} ea_self_attention_plan;

ea_status ea_self_attention_arena_size(const ea_self_attention_config* config, size_t* bytes);
/* Biases and PACKED weights are referenced, not copied: they must outlive the
 * plan. ROW_MAJOR weights are read once, packed into the arena. */
ea_status ea_self_attention_plan_init(ea_self_attention_plan* plan,
                                      const ea_self_attention_config* config,
                                      const ea_self_attention_weights* weights, ea_arena* arena);
/* x: [n_tokens, d_model]; y: [n_tokens, d_v]; attn_weights: NULL or [n_tokens, n_tokens].
 * n_valid_keys in [0, n_tokens] (key padding; pass n_tokens for none).
 * Memory rules (EA_ERR_BAD_ARGUMENT otherwise, nothing written): y may be x
 * (in place); y and attn_weights overlap neither each other, the weights and
 * biases, the position table, nor the plan's arena regions; x lies outside
 * the plan's arena regions. */
ea_status ea_self_attention_run(const ea_self_attention_plan* plan, const float* x,
                                int32_t n_tokens, int32_t n_valid_keys, float* y,
                                float* attn_weights);

/* Fixed-point self-attention (INT8 or INT16, as fixed-point MHA): int8
 * weights in TFLite FULLY_CONNECTED layout, symmetric per output channel.
 * weights_layout and position_table are not read. */
typedef struct ea_self_attention_quant_weights {
  const int8_t* w_q; /* [d_k, d_model] */
  const int8_t* w_k; /* [d_k, d_model] */
  const int8_t* w_v; /* [d_v, d_model] */
  const void* b_q;   /* [d_k] int32 (INT8) / int64 (INT16), or NULL */
  const void* b_k;   /* [d_k], as b_q */
  const void* b_v;   /* [d_v], as b_q */
} ea_self_attention_quant_weights;

typedef struct ea_self_attention_quant_plan {
  uint32_t ready;
  ea_self_attention_config config;
  ea_self_attention_quant_weights weights;
  ea_self_attention_quant_params params; /* per-channel arrays in the arena */
  const void* position_table;            /* quantized table or NULL */
  void* x_positioned;                    /* [n, d_model] or NULL */
  void* q;                               /* [n, d_k] */
  void* k;                               /* [n, d_k] */
  void* v;                               /* [n, d_v] */
  void* weight_panels[3];                /* W_Q, W_K, W_V packed */
  ea_quant_core core;
  const void* carve; /* the plan's arena bytes */
  size_t carve_bytes;
} ea_self_attention_quant_plan;

/* TFLite's Prepare on config->quant_scales, as ea_mha_quant_derive
 * (channel_ints: EA_SELF_ATTENTION_QUANT_CHANNEL_INTS(d_k, d_v) int32). */
ea_status ea_self_attention_quant_derive(const ea_self_attention_config* config,
                                         ea_self_attention_quant_params* params,
                                         int32_t* channel_ints, size_t channel_int_count);
/* As ea_mha_quant_plan_init; ea_self_attention_arena_size gives the bytes. */
ea_status ea_self_attention_quant_plan_init(ea_self_attention_quant_plan* plan,
                                            const ea_self_attention_config* config,
                                            const ea_self_attention_quant_weights* weights,
                                            ea_arena* arena);
/* x: [n_tokens, d_model]; y: [n_tokens, d_v]; attn_weights: NULL or
 * [n_tokens, n_tokens] probabilities (masked: the zero probability). Memory
 * rules as in ea_self_attention_run (y may be x). */
ea_status ea_self_attention_run_s8(const ea_self_attention_quant_plan* plan, const int8_t* x,
                                   int32_t n_tokens, int8_t* y, int8_t* attn_weights);
ea_status ea_self_attention_run_s16(const ea_self_attention_quant_plan* plan, const int16_t* x,
                                    int32_t n_tokens, int16_t* y, int16_t* attn_weights);

/* -------------------------------------------------- multi-head attention */

/* MHA(X) = Concat(head_1..head_h) W_O^T + b_O, head_i = Attention on columns
 * i*d_k..(i+1)*d_k-1 of the Q, K, V projections, d_k = d_model / heads.
 * Weights use PyTorch nn.MultiheadAttention's layout exactly, so a state_dict
 * loads without reshuffling: in_proj_weight [3*d_model, d_model] (rows: W_Q,
 * then W_K, then W_V), in_proj_bias [3*d_model], out_proj.weight
 * [d_model, d_model], out_proj.bias [d_model]. */
typedef struct ea_mha_config {
  ea_dtype dtype;
  int32_t max_tokens;
  int32_t d_model;
  int32_t heads;
  ea_mask mask;
  ea_position position;
  const float* position_table;      /* as in ea_self_attention_config */
  ea_weights_layout weights_layout; /* of in_proj_weight and out_proj_weight */
  ea_parallel_for parallel;         /* zero: single-threaded */
  /* Fixed-point dtypes only (NULL for F32): the chain's quantization, as
   * scales or as TFLite's integers (used as given when non-NULL). */
  const ea_mha_quant_scales* quant_scales;
  const ea_mha_quant_params* quant_params;
  /* Fixed point with positions: the quantized [max_tokens, d_model] table
   * (int8 or int16, e.g. constant data). LEARNED: required. SINUSOIDAL: NULL
   * to fill the table at plan time and quantize it with quant_scales->position
   * (TFLite's QUANTIZE). position_table is not read by fixed-point plans. */
  const void* quant_position_table;
} ea_mha_config;

/* PACKED: in_proj_weight is the packing of the whole [3*d_model, d_model]
 * matrix, out_proj_weight that of [d_model, d_model]. */
typedef struct ea_mha_weights {
  const float* in_proj_weight;  /* [3*d_model, d_model] */
  const float* in_proj_bias;    /* [3*d_model] or NULL */
  const float* out_proj_weight; /* [d_model, d_model] */
  const float* out_proj_bias;   /* [d_model] or NULL */
} ea_mha_weights;

typedef struct ea_mha_plan {
  uint32_t ready;
  ea_mha_config config;
  ea_mha_weights weights;
  const float* position_table;
  const float* packed_in_proj; /* packed weights: arena regions or the caller's */
  const float* packed_out_proj;
  float* x_positioned; /* [n, d_model] or NULL */
  float* qkv;          /* [n, 3*d_model]: Q, K, V; head h in columns h*d_k.. of each */
  float* heads_concat; /* [n, d_model] */
  ea_attention_plan core;
} ea_mha_plan;

ea_status ea_mha_arena_size(const ea_mha_config* config, size_t* bytes);
/* Weights as in ea_self_attention_plan_init. */
ea_status ea_mha_plan_init(ea_mha_plan* plan, const ea_mha_config* config,
                           const ea_mha_weights* weights, ea_arena* arena);
/* x, y: [n_tokens, d_model]; attn_weights: NULL or [heads, n_tokens, n_tokens]
 * (per head; PyTorch's average_attn_weights=False).
 * Memory rules as in ea_self_attention_run. */
ea_status ea_mha_run(const ea_mha_plan* plan, const float* x, int32_t n_tokens,
                     int32_t n_valid_keys, float* y, float* attn_weights);

/* Fixed-point MHA: weights in TFLite FULLY_CONNECTED / PyTorch layout,
 * int8, symmetric per output channel (scales in ea_mha_quant_scales). */
typedef struct ea_mha_quant_weights {
  const int8_t* in_proj_weight;  /* [3*d_model, d_model]: W_Q, W_K, W_V rows */
  const void* in_proj_bias;      /* [3*d_model] int32 (INT8) / int64 (INT16), or NULL */
  const int8_t* out_proj_weight; /* [d_model, d_model] */
  const void* out_proj_bias;     /* [d_model], as in_proj_bias */
} ea_mha_quant_weights;

typedef struct ea_mha_quant_plan {
  uint32_t ready;
  ea_mha_config config;
  ea_mha_quant_weights weights;
  ea_mha_quant_params params; /* per-channel arrays in the arena */
  const void* position_table; /* quantized table or NULL */
  void* q; /* [n, d_k] each, one head's (microcontrollers, Arm), or [n, d_model] (x86) */
  void* k;
  void* v;
  void* context;          /* [n, d_model] */
  void* weight_panels[4]; /* W_Q, W_K, W_V, W_O packed */
  ea_quant_core core;     /* heads run one after another */
  const void* carve;      /* the plan's arena bytes */
  size_t carve_bytes;
} ea_mha_quant_plan;

/* TFLite's Prepare on config->quant_scales: fills *params, whose per-channel
 * arrays point into channel_ints (EA_MHA_QUANT_CHANNEL_INTS(d_model) int32;
 * fewer: EA_ERR_ARENA_TOO_SMALL). EA_ERR_BAD_ARGUMENT for a scale that is not
 * positive and finite, a zero point out of range (int8: [-128, 127]; int16:
 * 0), or derived integers outside the ranges above (e.g. an int16 shift
 * above 7). On any refusal neither *params nor channel_ints is written. */
ea_status ea_mha_quant_derive(const ea_mha_config* config, ea_mha_quant_params* params,
                              int32_t* channel_ints, size_t channel_int_count);

/* config->dtype INT8 or INT16, max_tokens up to 65535 (the int16 softmax's
 * int32 sum; EA_ERR_DIMENSION_OVERFLOW above). Biases and weights are
 * referenced, not copied; int16 biases must lie in (-2^47, 2^47), TFLite's
 * accumulator domain, and biases and quant_position_table must be aligned to
 * their elements (int32 / int64 biases, int8 / int16 table; both
 * EA_ERR_BAD_ARGUMENT). A SINUSOIDAL table filled at
 * plan time needs quant_scales (its position quantization) even when the
 * integers are given (EA_ERR_NULL_POINTER without). */
ea_status ea_mha_quant_plan_init(ea_mha_quant_plan* plan, const ea_mha_config* config,
                                 const ea_mha_quant_weights* weights, ea_arena* arena);

/* x, y: [n_tokens, d_model]; attn_weights: NULL or [heads, n_tokens, n_tokens]
 * probabilities (masked entries at the zero probability: -128 / 0; more than
 * EA_MAX_ELEMENTS of them: EA_ERR_DIMENSION_OVERFLOW). Memory rules as in
 * ea_self_attention_run (y may be x), and: y that is not x does not overlap
 * it, nor does attn_weights (the run keeps ADD(x, P) in y and reads x until
 * the last head; EA_ERR_BAD_ARGUMENT, nothing written). ea_mha_run_s8 runs
 * INT8 plans, _s16 INT16 ones (the other gets EA_ERR_BAD_ARGUMENT). */
ea_status ea_mha_run_s8(const ea_mha_quant_plan* plan, const int8_t* x, int32_t n_tokens, int8_t* y,
                        int8_t* attn_weights);
ea_status ea_mha_run_s16(const ea_mha_quant_plan* plan, const int16_t* x, int32_t n_tokens,
                         int16_t* y, int16_t* attn_weights);

/* ------------------------------------------------------ fixed-point ADD */

/* TFLite's ADD (no activation) of two tensors of one fixed-point dtype,
 * element for element, bit for bit (int8: reference_integer_ops::Add; int16:
 * TFLite Micro's general-scale path): both inputs rescaled to a common grid
 * 2^left_shift finer, summed, requantised to the output. The residual
 * connection x + MHA(x) of a quantized transformer, and the ADD(x_emb, P)
 * fixed-point plans run for positions.
 * ea_add_quant_derive: TFLite's Prepare on the three tensors' quantization;
 * EA_ERR_BAD_ARGUMENT for a scale that is not positive and finite, a zero
 * point out of range (int8: [-128, 127]; int16: 0) or integers outside the
 * ranges of ea_add_quant_params (e.g. an output scale below 2^-20 of the
 * inputs'); EA_ERR_BAD_ARGUMENT for a dtype that is not fixed point. *params
 * is written only on EA_OK. */
ea_status ea_add_quant_derive(ea_dtype dtype, ea_quant a, ea_quant b, ea_quant out,
                              ea_add_quant_params* params);
/* out[i] = ADD(a[i], b[i]) for i < count. params within the ranges above
 * (EA_ERR_BAD_ARGUMENT), count in [1, EA_MAX_ELEMENTS] (EA_ERR_BAD_DIMENSION,
 * EA_ERR_DIMENSION_OVERFLOW); out may be a or b,
 * else it overlaps neither (EA_ERR_BAD_ARGUMENT). On any error out is not
 * written. */
ea_status ea_add_s8(const int8_t* a, const int8_t* b, size_t count,
                    const ea_add_quant_params* params, int8_t* out);
ea_status ea_add_s16(const int16_t* a, const int16_t* b, size_t count,
                     const ea_add_quant_params* params, int16_t* out);

/* ------------------------------------------------------ position tables */

/* Fills table [n_positions, d_model] with the sinusoidal encoding (computed in
 * double, rounded to float). No arena needed. */
ea_status ea_sinusoidal_table_fill(float* table, int32_t n_positions, int32_t d_model);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_EDGEATTN_H_ */
