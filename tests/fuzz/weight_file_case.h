// The weight-file family's input (fuzz_weight_file.cc): after the family
// byte, `shape`. Below 128 the rest of the input is a file as it is (the raw
// mode of the first seeds); from 128 on the rest is a WeightFileCase, from
// which the driver builds a safetensors file or a blob, then edits it. Kept
// apart from fuzz_case.h so that the families' layouts change independently;
// make_seeds.cc encodes it with the same Visit.
#ifndef EDGEATTN_TESTS_FUZZ_WEIGHT_FILE_CASE_H_
#define EDGEATTN_TESTS_FUZZ_WEIGHT_FILE_CASE_H_

#include <stdint.h>

namespace edgeattn_fuzz {

inline constexpr uint8_t kWeightStructured = 128;  // shape >= it: a WeightFileCase follows
inline constexpr int kMaxWeightTensors = 12;
inline constexpr int kMaxWeightEdits = 4;

// How a name is picked (WeightTensor::name % kWeightNameCount).
enum WeightName : uint8_t {
  kNameInProjWeight = 0,  // <prefix>in_proj_weight [qkv_rows, d_model], F32
  kNameInProjBias = 1,    // <prefix>in_proj_bias [qkv_rows]
  kNameOutProjWeight = 2,
  kNameOutProjBias = 3,
  kNameNumbered = 4,  // t<i>
  kNameUnicode = 5,   // t<i> and a 2-, 3- or 4-byte UTF-8 character
  kNameEmpty = 6,     // "" (a blob refuses it)
  kNameLong = 7,      // EA_TENSOR_MAX_NAME - 1 .. + 2 bytes
  kNameMetadata = 8,  // "__metadata__" (safetensors: not a tensor)
};
inline constexpr uint8_t kWeightNameCount = 9;

// The naming of an MHA name (kNameInProjWeight, kNameInProjBias), from
// (WeightTensor::escape / 4) % 4; the three-tensor namings' part (Q, K, V) is
// (escape / 16) % 3.
enum WeightMhaNaming : uint8_t {
  kNamingInProj = 0,       // in_proj_weight, in_proj_bias (also 3)
  kNamingKdim = 1,         // q/k/v_proj_weight; the bias stays in_proj_bias
  kNamingHuggingFace = 2,  // q/k/v_proj.weight, q/k/v_proj.bias
};

// How a safetensors name is written (WeightTensor::escape % 4): raw UTF-8,
// every character \u-escaped (non-BMP ones as surrogate pairs), escaped
// every other character, upper-case hex.
inline constexpr uint8_t kWeightEscapeCount = 4;

struct WeightTensor {
  uint8_t name = kNameNumbered;
  uint8_t escape = 0;
  uint8_t dtype = 0;     // < 240: 1 + dtype % 10 (F32 for the MHA names below 160); else unknown
  uint8_t rank = 1;      // < 224: rank % 9; else 9 + rank % 4; MHA names: their own below 200
  uint8_t dims[8] = {};  // < 200: dims % 6 (0 included); else WeightEdgeDim
  uint8_t layout = 0;    // >= 224: packed (blob)
};

inline uint8_t MhaNaming(const WeightTensor& t) {
  const uint8_t naming = t.escape / 4 % 4;
  return naming == 3 ? kNamingInProj : naming;
}

// An edit of the built file (WeightEdit::kind % kWeightEditCount).
enum WeightEditKind : uint8_t {
  kEditDuplicateName = 0,  // tensor at takes tensor value's name (escaped its own way)
  kEditShiftRange = 1,     // tensor at's begin / offset moves by (int8)value, end by value >> 8
  kEditTrailingBytes = 2,  // 1..16 bytes after the data
  kEditTruncate = 3,       // the file cut to at * 256 + value % 256 bytes (modulo its size)
  kEditFlipByte = 4,       // one byte xor'ed, in the header / table mostly
  kEditInsertText = 5,     // a JSON fragment spliced into the header text
  kEditHeaderField = 6,    // the header length / a blob header field set to an edge value
  kEditLongName = 7,       // tensor at's name EA_TENSOR_MAX_NAME - 1 .. + 2 bytes
  kEditHugeDims = 8,       // tensor at's dims made huge or overflowing
  kEditBadDtype = 9,       // tensor at's dtype unknown
  kEditSwapRanges = 10,    // two tensors' data ranges swapped
  kEditDeepMetadata = 11,  // __metadata__ nested 60..67 levels
};
inline constexpr uint8_t kWeightEditCount = 12;

struct WeightEdit {
  uint8_t kind = 0;
  uint8_t at = 0;
  uint32_t value = 0;
};

// Where open_scratch's scratch lives (WeightFileCase::scratch % 6).
enum WeightScratch : uint8_t {
  kScratchExact = 0,       // EA_WEIGHT_FILE_SCRATCH_BYTES(tensors)
  kScratchShort = 1,       // 8 bytes fewer
  kScratchGenerous = 2,    // 4 KiB more
  kScratchNull = 3,        // NULL, 0 bytes
  kScratchMisaligned = 4,  // 4 bytes past 8-aligned
  kScratchOverFile = 5,    // over the file's last bytes
};
inline constexpr uint8_t kWeightScratchCount = 6;

struct WeightFileCase {
  uint8_t format = 0;    // < 128 safetensors, else the blob
  uint8_t count = 4;     // tensors: count % (kMaxWeightTensors + 1)
  uint8_t bulk = 0;      // >= 240: (bulk - 239) * 53 more I8 [1] tensors (past 128)
  uint8_t order = 0;     // header order (a rotation) and data order (bit 7: as listed, else
                         // largest element first, as the safetensors library writes)
  uint8_t metadata = 0;  // % 5: none, first, last, a string value, {"format":"pt"} twice
  uint8_t padding = 0;   // < 200: header to a multiple of 8; else padding % 8 more spaces
  uint8_t scratch = 0;
  uint8_t calls = 0;    // bit 0: misaligned bytes; 1: NULLs; 2: a struct never opened
  int32_t d_model = 8;  // Dim: the MHA call (the MHA tensors' shapes when 1..64)
  int32_t heads = 2;
  int32_t kv_heads = 2;
  uint8_t prefix = 0;  // % 4: "", "attn.", 256 bytes, 257 bytes
  WeightTensor tensors[kMaxWeightTensors];
  uint8_t edit_count = 0;  // % (kMaxWeightEdits + 1)
  WeightEdit edits[kMaxWeightEdits];

  int TensorCount() const { return count % (kMaxWeightTensors + 1); }
  int EditCount() const { return edit_count % (kMaxWeightEdits + 1); }
  bool Blob() const { return format >= 128; }
};

template <class Io>
void Visit(Io& io, WeightTensor& t) {
  io.U8(t.name);
  io.U8(t.escape);
  io.U8(t.dtype);
  io.U8(t.rank);
  for (uint8_t& d : t.dims) io.U8(d);
  io.U8(t.layout);
}

template <class Io>
void Visit(Io& io, WeightEdit& e) {
  io.U8(e.kind);
  io.U8(e.at);
  io.U32(e.value);
}

template <class Io>
void Visit(Io& io, WeightFileCase& c) {
  io.U8(c.format);
  io.U8(c.count);
  io.U8(c.bulk);
  io.U8(c.order);
  io.U8(c.metadata);
  io.U8(c.padding);
  io.U8(c.scratch);
  io.U8(c.calls);
  io.Dim(c.d_model);
  io.Dim(c.heads);
  io.Dim(c.kv_heads);
  io.U8(c.prefix);
  for (int i = 0; i < c.TensorCount(); ++i) Visit(io, c.tensors[i]);
  io.U8(c.edit_count);
  for (int i = 0; i < c.EditCount(); ++i) Visit(io, c.edits[i]);
}

// A whole structured input after the family byte (what make_seeds.cc writes).
struct WeightFileInput {
  uint8_t shape = kWeightStructured;
  WeightFileCase c;
};

template <class Io>
void Visit(Io& io, WeightFileInput& input) {
  io.U8(input.shape);
  Visit(io, input.c);
}

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_WEIGHT_FILE_CASE_H_
