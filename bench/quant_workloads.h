// One fixed-point shape made runnable (s8/... or s16/...): an MHA layer quantized the way a
// TFLite int8 or 16x8 model stores one, planned once with ea_mha_quant_init into an
// aligned arena and run with ea_mha_quant_run_s8 / ea_mha_quant_run_s16 (no attention weights out).
// The quantization is made up but plausible: deterministic pseudo-random int8 weights with
// per-channel scales near 2 / (127 sqrt(d_model)), activation scales chosen so that every
// tensor of the chain spans a good part of its integer range without saturating (the
// scores wide enough for the softmax to pick keys out of 2048); int8 zero points small and
// non-zero, int16 ones 0 (see quant_workloads.cc). Speed hardly depends on the values, but
// a degenerate layer (everything saturated, or the softmax flat at zero) would make a
// meaningless row, so quant_check.h checks each one against float MHA before timing.
#ifndef EDGEATTN_BENCH_QUANT_WORKLOADS_H_
#define EDGEATTN_BENCH_QUANT_WORKLOADS_H_

#include <stddef.h>
#include <stdint.h>

#include <memory>
#include <vector>

#include "edgeattn/edgeattn.h"
#include "shapes.h"

namespace edgeattn_bench {

// The real-valued layer a quantized one stands for: every tensor dequantized
// (real = scale * (q - zero_point)), in ea_mha_weights' layout.
struct DequantizedMha {
  int32_t n = 0;
  int32_t d_model = 0;
  int32_t heads = 1;
  bool causal = false;
  std::vector<float> x;         // [n, d_model]
  std::vector<float> in_proj;   // [3 d_model, d_model]
  std::vector<float> in_bias;   // [3 d_model]
  std::vector<float> out_proj;  // [d_model, d_model]
  std::vector<float> out_bias;  // [d_model]
};

// How the integers of the latest run's output spread over their range.
struct QuantOutputSpread {
  double saturated_share = 0.0;  // share of elements at the dtype's minimum or maximum
  size_t distinct_values = 0;    // different integers among the elements
};

class QuantWorkload {
 public:
  virtual ~QuantWorkload() = default;
  // EA_OK once the plan is made (ea_mha_quant_arena_size, ea_arena_init, ea_mha_quant_init).
  ea_status plan_status() const { return plan_status_; }
  // ea_mha_quant_run_s8 / ea_mha_quant_run_s16 over all n tokens (kMhaDecode: the n one-token
  // steps).
  virtual ea_status Run() = 0;
  // The layer in real numbers (inputs, weights and biases dequantized).
  const DequantizedMha& dequantized() const { return dequantized_; }
  // The latest run's output y, dequantized ([n, d_model]).
  virtual std::vector<float> DequantizedOutput() const = 0;
  virtual QuantOutputSpread OutputSpread() const = 0;

 protected:
  ea_status plan_status_ = EA_ERR_BAD_ARGUMENT;
  DequantizedMha dequantized_;
};

// The shape's workload: s8 or s16, MHA of DModel(shape) over shape.heads heads (a prefill
// shape: one head), causal or not, no position table; a kMhaDecode shape runs the same causal
// layer as a stream through ea_decoder_quant (ea_decoder_quant_arena_size,
// ea_decoder_quant_init; Run resets it and steps one token at a time). Fixed-point shapes
// only.
std::unique_ptr<QuantWorkload> MakeQuantWorkload(const Shape& shape);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_QUANT_WORKLOADS_H_
