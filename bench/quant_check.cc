// Fixed-point outputs against float MHA of the dequantized layer (see quant_check.h).
#include "quant_check.h"

#include <stdio.h>

#include <algorithm>
#include <cmath>

#include "bench_inputs.h"
#include "edgeattn/edgeattn.h"
#include "quant_workloads.h"

namespace edgeattn_bench {
namespace {

// y = float32 MHA of `layer` through edgeattn's own plan (one worker).
ea_status RunFloatMha(const DequantizedMha& layer, std::vector<float>* y) {
  ea_mha_config config = {};
  config.dtype = EA_DTYPE_F32;
  config.max_tokens = layer.n;
  config.d_model = layer.d_model;
  config.n_heads = layer.heads;
  config.mask = layer.causal ? EA_MASK_CAUSAL : EA_MASK_NONE;
  config.position = EA_POSITION_NONE;
  ea_mha_weights weights{};  // by name: the struct grows at its end
  weights.in_proj_weight = layer.in_proj.data();
  weights.in_proj_bias = layer.in_bias.data();
  weights.out_proj_weight = layer.out_proj.data();
  weights.out_proj_bias = layer.out_bias.data();
  size_t bytes = 0;
  ea_status status = ea_mha_arena_size(&config, &bytes);
  if (status != EA_OK) return status;
  const AlignedBuffer buffer(bytes);
  ea_arena arena;
  ea_mha_plan plan;
  status = ea_arena_init(&arena, buffer.data(), buffer.size());
  if (status == EA_OK) status = ea_mha_init(&plan, &config, &weights, &arena);
  y->assign(static_cast<size_t>(layer.n) * layer.d_model, 0.0f);
  if (status == EA_OK)
    status = ea_mha_run(&plan, layer.x.data(), layer.n, layer.n, y->data(), nullptr);
  return status;
}

// rms(a - b) / rms(b); infinity when b is all zero.
double RelativeRmsGap(const std::vector<float>& a, const std::vector<float>& b) {
  double difference = 0.0, reference = 0.0;
  for (size_t i = 0; i < b.size(); ++i) {
    const double delta = static_cast<double>(a[i]) - b[i];
    difference += delta * delta;
    reference += static_cast<double>(b[i]) * b[i];
  }
  return reference > 0.0 ? std::sqrt(difference / reference) : INFINITY;
}

// One shape; false (and a printed reason) when it fails.
bool CheckShape(const Shape& shape, QuantCheckResult* result) {
  const std::string name = ShapeName(shape);
  const std::unique_ptr<QuantWorkload> workload = MakeQuantWorkload(shape);
  ea_status status = workload->plan_status();
  const bool decode = shape.kind == Kind::kMhaDecode;
  const char* failed_call = decode ? "ea_decoder_quant_init" : "ea_mha_quant_init";
  if (status == EA_OK) {
    status = workload->Run();
    failed_call = shape.precision == Precision::kS8
                      ? (decode ? "ea_decoder_quant_step_s8" : "ea_mha_quant_run_s8")
                      : (decode ? "ea_decoder_quant_step_s16" : "ea_mha_quant_run_s16");
  }
  if (status != EA_OK) {
    printf("fixed-point check %s: %s failed: %s (%d)\n", name.c_str(), failed_call,
           ea_status_str(status), static_cast<int>(status));
    return false;
  }
  std::vector<float> reference;
  status = RunFloatMha(workload->dequantized(), &reference);
  if (status != EA_OK) {
    printf("fixed-point check %s: the float32 reference failed: %s (%d)\n", name.c_str(),
           ea_status_str(status), static_cast<int>(status));
    return false;
  }
  const double gap = RelativeRmsGap(workload->DequantizedOutput(), reference);
  const QuantOutputSpread spread = workload->OutputSpread();
  const bool s8 = shape.precision == Precision::kS8;
  const double limit = s8 ? kMaxQuantGapS8 : kMaxQuantGapS16;
  double& worst = s8 ? result->worst_gap_s8 : result->worst_gap_s16;
  worst = std::max(worst, gap);
  result->worst_saturated_share = std::max(result->worst_saturated_share, spread.saturated_share);
  const bool ok = gap <= limit && spread.saturated_share <= kMaxSaturatedShare &&
                  spread.distinct_values >= kMinDistinctOutputs;
  printf(
      "fixed-point check %s: rms(y - float y) / rms(float y) = %.3g (limit %.2g), %.2f%% of "
      "outputs saturated (limit %.0f%%), %zu distinct output values (at least %zu)%s\n",
      name.c_str(), gap, limit, 100.0 * spread.saturated_share, 100.0 * kMaxSaturatedShare,
      spread.distinct_values, kMinDistinctOutputs, ok ? "" : ": FAILED");
  return ok;
}

}  // namespace

QuantCheckResult CheckFixedPointShapes(const std::vector<Shape>& shapes) {
  QuantCheckResult result;
  for (const Shape& shape : shapes) {
    if (!IsFixedPoint(shape)) continue;
    ++result.shapes;
    if (!CheckShape(shape, &result)) result.passed = false;
  }
  printf(
      "fixed-point check of %d shapes against float32 MHA of the dequantized layers: worst "
      "relative RMS gap %.3g (s8), %.3g (s16), worst saturated share %.2f%%: %s\n",
      result.shapes, result.worst_gap_s8, result.worst_gap_s16,
      100.0 * result.worst_saturated_share, result.passed ? "passed" : "FAILED");
  return result;
}

}  // namespace edgeattn_bench
