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
 * dtype and shape, so that a bad file gets EA_ERR_BAD_FILE and no read
 * outside [bytes, bytes + size), ever. Views point into the caller's bytes,
 * which must outlive them. All values are little-endian (as every CPU
 * edgeattn targets).
 */
#ifndef EDGEATTN_WEIGHT_FILE_H_
#define EDGEATTN_WEIGHT_FILE_H_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/edgeattn.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ea_tensor_dtype {
  EA_TENSOR_F32 = 1,
  EA_TENSOR_F16 = 2,
  EA_TENSOR_BF16 = 3,
  EA_TENSOR_F64 = 4,
  EA_TENSOR_I8 = 5,
  EA_TENSOR_U8 = 6,
  EA_TENSOR_I16 = 7,
  EA_TENSOR_I32 = 8,
  EA_TENSOR_I64 = 9,
  EA_TENSOR_BOOL = 10,
  EA_TENSOR_DTYPE_RANGE_MIN_ = EA_ENUM_RANGE_MIN_,
  EA_TENSOR_DTYPE_RANGE_MAX_ = EA_ENUM_RANGE_MAX_
} ea_tensor_dtype;

typedef enum ea_tensor_layout {
  EA_TENSOR_ROW_MAJOR = 0,
  /* A weight matrix W [n_out, n_in] (dims) as ea_pack_linear_weights packs
   * it: n_in * roundup(n_out, 64) floats. Blob files only; F32. */
  EA_TENSOR_PACKED_LINEAR = 1,
  EA_TENSOR_LAYOUT_RANGE_MIN_ = EA_ENUM_RANGE_MIN_,
  EA_TENSOR_LAYOUT_RANGE_MAX_ = EA_ENUM_RANGE_MAX_
} ea_tensor_layout;

#define EA_TENSOR_MAX_RANK 8
/* Longest tensor name of a blob, in bytes, without its NUL. */
#define EA_TENSOR_MAX_NAME 95

typedef struct ea_tensor_view {
  const void* data; /* aligned to its element size */
  size_t bytes;
  ea_tensor_dtype dtype;
  ea_tensor_layout layout;
  int32_t rank; /* 0 (a scalar) .. EA_TENSOR_MAX_RANK */
  int64_t dims[EA_TENSOR_MAX_RANK];
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

/* Validates the file. EA_ERR_BAD_FILE for anything that breaks the format:
 * unknown magic or version, a header or table past the end, a tensor whose
 * bytes are not its shape times its element size or lie outside the data,
 * blob tensors out of offset order or overlapping, an unknown dtype or
 * layout, a rank above EA_TENSOR_MAX_RANK, a name longer than
 * EA_TENSOR_MAX_NAME or given twice, malformed JSON. EA_ERR_BAD_ARGUMENT
 * when bytes is not 8-byte aligned. */
ea_status ea_weight_file_open(ea_weight_file* file, const void* bytes, size_t size);

/* The tensor called `name` (EA_ERR_NOT_FOUND when there is none). A tensor
 * whose data is not aligned to its element size (safetensors without
 * padding) cannot be viewed in place: EA_ERR_UNSUPPORTED. */
ea_status ea_weight_file_find(const ea_weight_file* file, const char* name, ea_tensor_view* view);

/* The weights of an nn.MultiheadAttention module saved under `prefix` (e.g.
 * "layers.0.self_attn."): <prefix>in_proj_weight, in_proj_bias,
 * out_proj.weight, out_proj.bias, checked against the plan's shape:
 * F32, in_proj_weight [(n_heads + 2 n_kv_heads) d_model / n_heads, d_model],
 * out_proj.weight [d_model, d_model], biases of those lengths (absent biases
 * give NULL). Both matrices packed or both row-major: *layout says which
 * (mixed: EA_ERR_BAD_FILE). A shape or dtype that is not the plan's:
 * EA_ERR_BAD_DIMENSION; a missing matrix: EA_ERR_NOT_FOUND; a tensor not
 * aligned in the file: EA_ERR_UNSUPPORTED; a prefix longer than 256 bytes:
 * EA_ERR_BAD_ARGUMENT. On any error *weights and *layout are not written. */
ea_status ea_weight_file_mha(const ea_weight_file* file, const char* prefix, int32_t d_model,
                             int32_t n_heads, int32_t n_kv_heads, ea_mha_weights* weights,
                             ea_weights_layout* layout);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEATTN_WEIGHT_FILE_H_ */
