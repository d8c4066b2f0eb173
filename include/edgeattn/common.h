/* edgeattn: what every family shares (status, arena, dtype, mask, threads),
 * and the conventions of the whole C API.
 *
 * The C API is what firmware links against. Every operation follows the same
 * pattern:
 *   1. describe it in a config struct;
 *   2. ask ea_*_arena_size() how many bytes of working memory it needs;
 *   3. ea_*_init() validates everything once and carves the arena;
 *   4. ea_*_run() computes, any number of times, with no allocation and no
 *      shape validation (only O(1) pointer and length checks).
 * Every function returns an ea_status; on any error no output byte is written
 * (a failed init does clear the plan's ready state, see below).
 *
 * Configs grow at their end: a release adds a field only after the last one,
 * and the field's zero value means what its absence did. So initialise a
 * config with designated initializers, or zero it (= {0} in C, {} in C++) and
 * assign fields by name: code written so compiles and behaves the same after
 * fields are added. Positional brace initializers do not. The fields of plans,
 * decoders and caches are private: they change in any release.
 *
 * Layouts: all matrices are row-major float32. Weights are [out, in] row-major
 * (PyTorch nn.Linear / nn.MultiheadAttention and TFLite FULLY_CONNECTED layout):
 * a projection computes y = x W^T + b.
 *
 * Thread safety: a plan owns scratch memory in its arena, so one plan runs on
 * one thread at a time. Different plans on different arenas are independent,
 * except that init and ea_simd_target() apply the SIMD target cap
 * (ea_set_max_simd_target): on hosted builds, make those calls before runs
 * start on other threads. An output must not overlap another live plan's
 * arena regions either (the library checks only the plan it runs).
 */
#ifndef EDGEATTN_COMMON_H_
#define EDGEATTN_COMMON_H_

#include <stddef.h>
#include <stdint.h>

/* The release's major number (semantic versioning; tools/consumers.sh reads
 * these lines, CMake the string: keep each a bare define, no comment after). */
#define EDGEATTN_VERSION_MAJOR 0
/* The release's minor number. */
#define EDGEATTN_VERSION_MINOR 33
/* The release's patch number. */
#define EDGEATTN_VERSION_PATCH 0
/* The version as a string literal, "major.minor.patch". */
#define EDGEATTN_VERSION_STRING "0.33.0"
/* One number to compare in preprocessor conditionals: major * 10000 + minor * 100 + patch. */
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
#define EA_ENUM_RANGE_MAX_ 0x7FFFFFFF /* the top of that range, INT32_MAX */

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
   * per-channel arrays; a sinusoidal table to fill at plan time with neither
   * quant_params->position nor quant_scales). */
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
   * fewer floats than ea_linear_packed_size, or a weight file more tensors
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
   * dtype given to a float family's _arena_size or _init (ea_attention_*,
   * ea_self_attention_*, ea_mha_*), or F32 to a _quant_ one; a plan of the
   * other dtype to a _s8 / _s16 run; fixed-point quantization out of range
   * (see ea_mha_quant_derive). */
  EA_ERR_BAD_ARGUMENT = 7,
  /* A valid request this build cannot carry out: a SIMD target cap below a
   * static build's only target; a valid weight file with a tensor not
   * aligned to its element size (edgeattn/weight_file.h). */
  EA_ERR_UNSUPPORTED = 8,
  /* A KV cache without a window holds capacity tokens: an append past them
   * (edgeattn/kv_cache.h); an MHA decoder's step past max_positions
   * (edgeattn/decoder.h). */
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
 * with getenv at every init, ea_simd_target() and ea_simd_vector_bytes()
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
  uint8_t* base;   /* the buffer, EA_ARENA_ALIGNMENT-aligned */
  size_t capacity; /* its size in bytes */
  size_t used;     /* bytes carved so far: the next carve starts at base + used */
} ea_arena;

/* buffer must be EA_ARENA_ALIGNMENT-aligned. */
ea_status ea_arena_init(ea_arena* arena, void* buffer, size_t capacity);
/* Forgets every carve. Every plan carved from the arena becomes invalid: its
 * regions will be handed out again, and running it afterwards is a caller
 * bug the library cannot detect (init anew instead). */
ea_status ea_arena_reset(ea_arena* arena);
/* Bytes still free. */
size_t ea_arena_remaining(const ea_arena* arena);

/* ------------------------------------------------------------- options */

/* The element type of a plan's activations and weights (a config's dtype). */
typedef enum ea_dtype {
  EA_DTYPE_F32 = 0, /* float32 everywhere: the float families */
  /* Fixed point with TensorFlow Lite's integers (see "fixed point" below):
   * every operation, planned by its *_quant_init. */
  EA_DTYPE_INT8 = 1, /* int8 activations, int8 weights, int32 biases */
  EA_DTYPE_INT16 =
      2, /* TFLite "16x8": int16 activations (zero point 0), int8 weights, int64 biases */
  EA_DTYPE_RANGE_MIN_ = EA_ENUM_RANGE_MIN_,
  EA_DTYPE_RANGE_MAX_ = EA_ENUM_RANGE_MAX_
} ea_dtype;

/* Which keys each query row sees (n_valid_keys may pad further). */
typedef enum ea_mask {
  EA_MASK_NONE = 0, /* every query sees every key */
  /* Query i sees keys j <= i + (n_kv - n_q): aligned at the bottom-right, so a
   * block of new queries at the end of a sequence sees all earlier keys. For
   * n_q == n_kv this is the usual lower triangle. */
  EA_MASK_CAUSAL = 1,
  EA_MASK_RANGE_MIN_ = EA_ENUM_RANGE_MIN_,
  EA_MASK_RANGE_MAX_ = EA_ENUM_RANGE_MAX_
} ea_mask;

/* ------------------------------------------------------ parallel for */

/* The most workers a parallel-for may declare (ea_parallel_for.max_workers). */
#define EA_MAX_WORKERS 1024
/* One task of a run, the library's: `run` calls task(task_context, i, worker). */
typedef void (*ea_task_fn)(void* task_context, int32_t task, int32_t worker);
/* The caller's parallel-for: calls task once for every index in [0, n_tasks)
 * as the comment on ea_parallel_for describes, context being
 * ea_parallel_for.context, and returns when all have finished. */
typedef void (*ea_parallel_run_fn)(void* context, int32_t n_tasks, ea_task_fn task,
                                   void* task_context);
/* The caller's threads for a plan's runs (a config's `parallel`), if any:
 * the library creates none. All zero: every run single-threaded on the
 * calling thread. A run hands its work to `run` as n_tasks independent
 * tasks. `run` must call task(task_context, i, worker) once for every i in
 * [0, n_tasks), from any threads, each call with a `worker` in [0,
 * max_workers) that no other call running at the same time uses (a thread
 * index does), and return when all have finished. The split into tasks
 * (query blocks of 60 rows, heads one after another, projection blocks of 60
 * rows x 64 outputs) does not depend on the number of workers, so results
 * are bit-identical for any max_workers and any schedule; a batch of one
 * task runs on the calling thread without calling `run`. Tasks are small
 * (tens of microseconds on a desktop core) so that a `run` can balance them:
 * a pool whose caller also takes tasks finishes a batch alone when its other
 * threads are not scheduled. They are numbered largest first (a causal run's
 * last query blocks, which see the most keys, come first), so a pool that
 * hands them out in index order ends a batch on small ones. Each worker gets
 * its own score tile in the arena (see the arena formulas). A run whose
 * `run` passes a worker out of range skips that task and returns
 * EA_ERR_BAD_ARGUMENT; its outputs are then incomplete. */
typedef struct ea_parallel_for {
  ea_parallel_run_fn run; /* NULL: every task on the calling thread */
  void* context;          /* passed to run */
  int32_t max_workers;    /* 0 or 1: one worker; up to EA_MAX_WORKERS (run required) */
} ea_parallel_for;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_COMMON_H_ */
