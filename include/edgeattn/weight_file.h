/* edgeattn weight files: zero-copy views of the tensors in a file already in
 * memory (mapped, read into a buffer, or linked into flash), without heap.
 *
 * Two formats, told apart by their first bytes:
 *   - safetensors (Hugging Face): an 8-byte little-endian header length, a
 *     JSON header {"name": {"dtype", "shape", "data_offsets"}, ...}, then
 *     the tensors' bytes. What PyTorch users save with safetensors.torch.
 *   - the edgeattn blob that tools/convert_weights.py writes: a 64-byte
 *     header ("EAWEIGHT", version, counts), a table of 192-byte entries
 *     (name, dtype, layout, shape, offset, bytes), tensors 64-byte aligned;
 *     weight matrices may be stored already packed for the projection
 *     kernel (EA_TENSOR_PACKED_LINEAR), so plans use them in place.
 *     Layout in docs/WEIGHT_FILES.md.
 *
 * ea_weight_file_open validates the whole file once: every offset, size,
 * dtype, shape and name, so that a bad file gets EA_ERR_BAD_FILE and no read
 * outside [bytes, bytes + size), ever. Views point into the caller's bytes,
 * which must outlive them. All values are little-endian (as every CPU
 * edgeattn targets).
 *
 * Cost, for a file of N tensors: open is O(size of the blob's table or the
 * safetensors JSON header + N log N name compares) and uses no heap: it
 * sorts an index of N records (EA_WEIGHT_FILE_SCRATCH_BYTES(N)), on its own
 * stack for up to EA_WEIGHT_FILE_OPEN_MAX_TENSORS tensors, in the caller's
 * scratch with ea_weight_file_open_scratch for more. A name compare reads at
 * most EA_TENSOR_MAX_NAME + 1 decoded bytes. A lookup (find) scans the
 * blob's table, or the JSON header, once: O(N) or O(header).
 */
#ifndef EDGEATTN_WEIGHT_FILE_H_
#define EDGEATTN_WEIGHT_FILE_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/common.h"
#include "edgeattn/linear.h"
#include "edgeattn/mha.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A tensor's element type, as the file stores it. */
typedef enum ea_tensor_dtype {
  EA_TENSOR_F32 = 1,   /* float32 */
  EA_TENSOR_F16 = 2,   /* IEEE binary16 */
  EA_TENSOR_BF16 = 3,  /* bfloat16 */
  EA_TENSOR_F64 = 4,   /* float64 */
  EA_TENSOR_I8 = 5,    /* int8 */
  EA_TENSOR_U8 = 6,    /* uint8 */
  EA_TENSOR_I16 = 7,   /* int16 */
  EA_TENSOR_I32 = 8,   /* int32 */
  EA_TENSOR_I64 = 9,   /* int64 */
  EA_TENSOR_BOOL = 10, /* one byte per element */
  EA_TENSOR_DTYPE_RANGE_MIN_ = EA_ENUM_RANGE_MIN_,
  EA_TENSOR_DTYPE_RANGE_MAX_ = EA_ENUM_RANGE_MAX_
} ea_tensor_dtype;

/* How a tensor's elements are arranged in its bytes. */
typedef enum ea_tensor_layout {
  EA_TENSOR_ROW_MAJOR = 0, /* C order: the last dim varies fastest */
  /* A weight matrix W [n_out, n_in] (dims) as ea_linear_pack_weights packs
   * it: n_in * roundup(n_out, 64) floats. Blob files only; F32. */
  EA_TENSOR_PACKED_LINEAR = 1,
  EA_TENSOR_LAYOUT_RANGE_MIN_ = EA_ENUM_RANGE_MIN_,
  EA_TENSOR_LAYOUT_RANGE_MAX_ = EA_ENUM_RANGE_MAX_
} ea_tensor_layout;

#define EA_TENSOR_MAX_RANK 8 /* most dims a tensor may have */
/* Longest tensor name, in bytes, without its NUL: a blob's name, or a
 * safetensors name's UTF-8 bytes after its JSON escapes are decoded. */
#define EA_TENSOR_MAX_NAME 95

/* ea_weight_file_open sorts its index on its own stack, for files of up to
 * this many tensors (EA_WEIGHT_FILE_SCRATCH_BYTES of it: 2 KiB where size_t
 * is 64 bits, 1 KiB where it is 32). */
#define EA_WEIGHT_FILE_OPEN_MAX_TENSORS 128
/* Scratch bytes ea_weight_file_open_scratch needs for a file of n tensors
 * (two size_t per tensor). */
#define EA_WEIGHT_FILE_SCRATCH_BYTES(n) ((size_t)(n)*2u * sizeof(size_t))

/* One tensor of an open file (ea_weight_file_find): a view into the
 * caller's bytes, valid as long as they are. */
typedef struct ea_tensor_view {
  const void* data;                 /* aligned to its element size (an empty tensor's too) */
  size_t bytes;                     /* data's length */
  ea_tensor_dtype dtype;            /* element type */
  ea_tensor_layout layout;          /* ROW_MAJOR, or PACKED_LINEAR (blob files) */
  int32_t rank;                     /* 0 (a scalar) .. EA_TENSOR_MAX_RANK */
  int64_t dims[EA_TENSOR_MAX_RANK]; /* the shape: its first rank entries */
} ea_tensor_view;

/* Filled by ea_weight_file_open; treat as opaque. */
typedef struct ea_weight_file {
  const uint8_t* bytes;
  size_t size;
  uint32_t format; /* 1: blob, 2: safetensors */
  uint32_t tensor_count;
  size_t header_bytes; /* safetensors: the JSON header's length */
  uint32_t ready;
} ea_weight_file;

/* Validates the file and fills *file (only on EA_OK). Argument errors first:
 * a NULL file or bytes EA_ERR_NULL_POINTER, bytes not 8-byte aligned
 * EA_ERR_BAD_ARGUMENT. Then the file, in this order:
 *  1. EA_ERR_BAD_FILE for anything that breaks the format: unknown magic or
 *     version, a header or table past the end, malformed JSON (strict:
 *     RFC 8259 strings with well-formed UTF-8, the escapes of a backslash
 *     and one of " (quote), backslash, / (slash), b, f, n, r, t, or u and
 *     four hex digits, with surrogates only in pairs; nesting up to 64
 *     levels; integers below 2^63), __metadata__ given twice, a tensor whose
 *     bytes are not its shape times its element size or lie outside the
 *     data (a shape with a 0 anywhere is empty, however large the other
 *     dims), blob tensors out of offset order or overlapping, an unknown
 *     dtype or layout, a rank above EA_TENSOR_MAX_RANK, a name that is
 *     longer than EA_TENSOR_MAX_NAME or holds U+0000 (safetensors, escaped:
 *     no C string names it), a blob name that is empty;
 *  2. EA_ERR_ARENA_TOO_SMALL: more than EA_WEIGHT_FILE_OPEN_MAX_TENSORS
 *     tensors (ea_weight_file_open_scratch opens such a file);
 *  3. EA_ERR_BAD_FILE: a name given twice (safetensors names compared
 *     after decoding, so "w" and its escape, a backslash and u0077, are
 *     one name), safetensors data ranges that overlap or leave a byte
 *     uncovered (the data after the header is exactly the tensors' bytes,
 *     as the format requires: no hole between them, none after the last
 *     one);
 *  4. EA_ERR_UNSUPPORTED: a valid file with a tensor whose bytes are not
 *     aligned to its element size, which cannot be viewed in place (a
 *     safetensors header whose length leaves the data unaligned: the
 *     safetensors library pads the header to a multiple of 8 and writes
 *     tensors largest element first, which keeps every tensor aligned). */
ea_status ea_weight_file_open(ea_weight_file* file, const void* bytes, size_t size);

/* ea_weight_file_open for a file of any number of tensors: the index is
 * sorted in scratch [scratch, scratch + scratch_bytes), whose contents
 * afterwards are undefined. Argument errors first, nothing written: a NULL
 * file or bytes, or a NULL scratch with scratch_bytes > 0,
 * EA_ERR_NULL_POINTER; bytes or scratch (when not NULL) not 8-byte
 * aligned, or scratch_bytes > 0 and the scratch over the file's bytes or
 * *file, EA_ERR_BAD_ARGUMENT. Then ea_weight_file_open's steps 1-4, step
 * 2 being fewer scratch_bytes than EA_WEIGHT_FILE_SCRATCH_BYTES(tensors);
 * the scratch is written only from step 3 on. */
ea_status ea_weight_file_open_scratch(ea_weight_file* file, const void* bytes, size_t size,
                                      void* scratch, size_t scratch_bytes);

/* The scratch ea_weight_file_open_scratch needs for this file:
 * EA_WEIGHT_FILE_SCRATCH_BYTES(its tensors) into *scratch_bytes. Statuses
 * as ea_weight_file_open's argument errors and its step 1 (a file refused
 * at a later step is measured: EA_OK); *scratch_bytes is written only on
 * EA_OK. O(size of the table or header). */
ea_status ea_weight_file_scratch_size(const void* bytes, size_t size, size_t* scratch_bytes);

/* The tensor called `name` (EA_ERR_NOT_FOUND when there is none; a file
 * names each tensor once). NULL arguments: EA_ERR_NULL_POINTER; a file
 * struct that open did not fill: EA_ERR_BAD_ARGUMENT. *view is written only
 * on EA_OK. */
ea_status ea_weight_file_find(const ea_weight_file* file, const char* name, ea_tensor_view* view);

/* The weights of an attention module saved under `prefix` (e.g.
 * "layers.0.self_attn."), in the first of three namings the file uses:
 * nn.MultiheadAttention's {prefix}in_proj_weight with in_proj_bias; its kdim
 * form, q_proj_weight, k_proj_weight, v_proj_weight with in_proj_bias; or a
 * Hugging Face module's q_proj.weight, k_proj.weight, v_proj.weight with
 * q_proj.bias, k_proj.bias, v_proj.bias; each with out_proj.weight and
 * out_proj.bias. The whole *weights is written: the naming's fields, the
 * others NULL (the three tensors land in q/k/v_proj_weight, read in place).
 * Checked against the plan's shape: F32; in_proj_weight
 * [(n_heads + 2 n_kv_heads) d_model / n_heads, d_model], or W_Q [d_model,
 * d_model] and W_K, W_V [n_kv_heads d_model / n_heads, d_model];
 * out_proj.weight [d_model, d_model]; biases of those lengths (absent biases
 * give NULL). In_proj and out_proj both packed or both row-major (*layout
 * says which); the three tensors and out_proj row-major. Statuses in this
 * order: NULL arguments EA_ERR_NULL_POINTER; a file struct that open did
 * not fill EA_ERR_BAD_ARGUMENT; d_model or n_heads below 1, or n_kv_heads
 * below 0 (0 means n_heads, as in the configs) EA_ERR_BAD_DIMENSION; d_model
 * not a multiple of n_heads or n_heads not one of n_kv_heads
 * EA_ERR_HEADS_MISMATCH; a prefix longer than 256 bytes EA_ERR_BAD_ARGUMENT;
 * out_proj.weight or a weight of the naming missing (none of the three
 * namings: W_Q's name absent in each) EA_ERR_NOT_FOUND; layouts other than
 * those EA_ERR_BAD_FILE; a dtype, rank or shape that is not the plan's (a
 * bias's included) EA_ERR_BAD_DIMENSION. On any error *weights and *layout
 * are not written. */
ea_status ea_weight_file_find_mha(const ea_weight_file* file, const char* prefix, int32_t d_model,
                                  int32_t n_heads, int32_t n_kv_heads, ea_mha_weights* weights,
                                  ea_weights_layout* layout);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_WEIGHT_FILE_H_ */
