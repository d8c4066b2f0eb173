// Fixed-point RoPE (ea_rope_quant_derive, ea_rope_quant_apply_s8 / _s16):
// the six tensors' quantization, the integers the run gets (derived, or
// edited), the shape and position, the layout, where x lives (apart, over a
// table, the two tables one buffer) and the values (fuzz_quant_rope.cc).
#ifndef EDGEATTN_TESTS_FUZZ_QUANT_ROPE_CASE_H_
#define EDGEATTN_TESTS_FUZZ_QUANT_ROPE_CASE_H_

#include <stdint.h>

#include <vector>

#include "fuzz_case.h"

namespace edgeattn_fuzz {

inline constexpr size_t kMaxRopeValueBytes = 512;  // per tensor; cyclic past it

// Where x lives (QuantRopeCase::placement % kRopePlacementCount, >= 128).
enum RopePlacement : uint8_t {
  kRopeApart = 0,    // x, C and S in regions of their own
  kRopeOverCos = 1,  // x = C + shift elements
  kRopeOverSin = 2,  // x = S + shift elements
  kRopeOneTable = 3  // C and S the same buffer (allowed), x apart
};
inline constexpr uint8_t kRopePlacementCount = 4;

// Bits of QuantRopeCase::null_bits.
enum RopeNullBit : uint8_t {
  kRopeNullScales = 1,   // derive's scales
  kRopeNullDerived = 2,  // derive's params
  kRopeNullX = 4,
  kRopeNullCos = 8,
  kRopeNullSin = 16,
  kRopeNullParams = 32  // the run's params
};

struct QuantRopeCase {
  uint8_t targets = 0;     // Common::targets
  uint8_t dtype_kind = 0;  // QuantDtype: < 112 INT8, < 224 INT16, < 240 F32, else dtype_raw
  int32_t dtype_raw = 0;
  // x, C, S, the two products, the result: x nominal 1/64 (int8) or 1/4096
  // (int16), the tables 1/127 or 1/32767, the rest twice x's.
  QuantTensor quant[6];
  uint8_t null_select = 0;  // >= 232: null_bits apply
  uint8_t null_bits = 0;
  uint8_t params_kind = 0;  // < 144: as derived (or TFLite's / defaults); else given + edits
  uint8_t edit_count = 0;   // modulo kMaxParamEdits + 1; field % 20 (cos 5, sin 5, add 10)
  ParamEdit edits[kMaxParamEdits];
  uint8_t wrong_run = 0;  // >= 240: the other dtype's run function
  int32_t n_tokens = 1, n_heads = 1, d_head = 2, table_positions = 1;  // Dim each
  uint8_t position_kind = 0;  // < 200: position_value % the valid range; else position_value
  int32_t position_value = 0;
  uint8_t layout_kind = 0;  // < 120 HALF, < 240 INTERLEAVED, else layout_raw
  int32_t layout_raw = 0;
  uint8_t placement = 0;   // < 128: kRopeApart; else RopePlacement
  int16_t shift = 0;       // over a table: shift % (x_count + table_count + 1) - x_count
  uint8_t value_mode = 0;  // IntValueOf's mode (% 4), for x and the tables alike
  std::vector<uint8_t> x_values, cos_values, sin_values;

  bool ParamsGiven() const { return params_kind >= 144; }
  uint8_t EditCount() const { return edit_count % (kMaxParamEdits + 1); }
  uint16_t Nulls() const { return null_select >= 232 ? null_bits : 0; }
  uint8_t Placement() const {
    return placement < 128 ? kRopeApart : placement % kRopePlacementCount;
  }
};

template <class Io>
void Visit(Io& io, QuantRopeCase& c) {
  io.U8(c.targets);
  io.U8(c.dtype_kind);
  if (c.dtype_kind >= 240) io.I32(c.dtype_raw);
  for (QuantTensor& q : c.quant) Visit(io, q);
  io.U8(c.null_select);
  if (c.null_select >= 232) io.U8(c.null_bits);
  io.U8(c.params_kind);
  if (c.ParamsGiven()) {
    io.U8(c.edit_count);
    for (uint8_t i = 0; i < c.EditCount(); ++i) Visit(io, c.edits[i]);
  }
  io.U8(c.wrong_run);
  io.Dim(c.n_tokens);
  io.Dim(c.n_heads);
  io.Dim(c.d_head);
  io.Dim(c.table_positions);
  io.U8(c.position_kind);
  io.I32(c.position_value);
  io.U8(c.layout_kind);
  if (c.layout_kind >= 240) io.I32(c.layout_raw);
  io.U8(c.placement);
  if (c.placement >= 128) {
    uint16_t bits = static_cast<uint16_t>(c.shift);
    io.U16(bits);
    c.shift = static_cast<int16_t>(bits);
  }
  io.U8(c.value_mode);
  // Bytes for the elements of a tensor (two per int16 element), up to
  // kMaxRopeValueBytes; the layout depends on dtype_kind and the dims.
  const int64_t element_bytes = c.dtype_kind >= 112 && c.dtype_kind < 224 ? 2 : 1;
  const auto bytes_for = [&](int64_t rows, int64_t cols) {
    const bool small = rows >= 1 && cols >= 1 && rows <= 512 && cols <= 512 &&
                       rows * cols * element_bytes <= static_cast<int64_t>(kMaxRopeValueBytes);
    return small ? static_cast<size_t>(rows * cols * element_bytes) : kMaxRopeValueBytes;
  };
  const int64_t width = int64_t{c.n_heads} * c.d_head;
  io.Bytes(c.x_values, bytes_for(c.n_tokens, c.n_heads >= 1 && c.d_head >= 1 ? width : 0));
  io.Bytes(c.cos_values, bytes_for(c.table_positions, c.d_head));
  io.Bytes(c.sin_values, bytes_for(c.table_positions, c.d_head));
}

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_QUANT_ROPE_CASE_H_
