// The fixed-point MHA chain both MHA drivers check against (quant_mha_chain.h).
#include "quant_mha_chain.h"

#include <math.h>

#include "expected_status.h"
#include "reference/tflite_chain_reference.h"

namespace edgeattn_fuzz {
namespace {

template <typename T, typename Bias, typename SoftmaxParams>
ReferenceOutputs RunReference(const ea_mha_config& c, const ea_mha_quant_params& p,
                              const SoftmaxParams& softmax, int n, int n_valid_keys,
                              const uint8_t* x, const uint8_t* table, const int8_t* in_w,
                              const int8_t* out_w, const uint8_t* in_b, const uint8_t* out_b,
                              int window, int kv_heads, const RopeInputs* rope,
                              const uint8_t* memory, int n_memory) {
  const size_t e = static_cast<size_t>(c.d_model);
  const int groups = kv_heads > 0 ? kv_heads : c.n_heads;
  const int kv_width = groups * (c.d_model / c.n_heads);
  const size_t kv = static_cast<size_t>(kv_width);
  ref::ChainParams<SoftmaxParams> chain;
  chain.add = RefAdd(p.add);
  chain.fc_q = RefLinear(p.q_proj, c.d_model);
  chain.fc_k = RefLinear(p.k_proj, kv_width);
  chain.fc_v = RefLinear(p.v_proj, kv_width);
  chain.fc_o = RefLinear(p.out_proj, c.d_model);
  chain.bmm_scores = RefMatmul(p.scores);
  chain.bmm_context = RefMatmul(p.context);
  chain.softmax = softmax;
  if (rope != nullptr) {
    chain.rope = true;
    chain.rope_q = RefRope(rope->q);
    chain.rope_k = RefRope(rope->k);
  }
  const size_t elements = static_cast<size_t>(n) * e;
  const std::vector<T> x_t = Typed<T>(x, elements);
  const std::vector<T> pe = table != nullptr ? Typed<T>(table, elements) : std::vector<T>();
  const std::vector<Bias> b_in =
      in_b != nullptr ? Typed<Bias>(in_b, e + 2 * kv) : std::vector<Bias>();
  const std::vector<Bias> b_out = out_b != nullptr ? Typed<Bias>(out_b, e) : std::vector<Bias>();
  ref::ChainInputs<T, Bias> in{};
  in.x_emb = x_t.data();
  in.pe = table != nullptr ? pe.data() : nullptr;
  in.w_q = in_w;
  in.w_k = in_w + e * e;
  in.w_v = in_w + (e + kv) * e;
  in.w_o = out_w;
  in.b_q = in_b != nullptr ? b_in.data() : nullptr;
  in.b_k = in_b != nullptr ? b_in.data() + e : nullptr;
  in.b_v = in_b != nullptr ? b_in.data() + e + kv : nullptr;
  in.b_o = out_b != nullptr ? b_out.data() : nullptr;
  ref::ChainShape shape{n,      c.d_model, c.n_heads, c.mask == EA_MASK_CAUSAL, n_valid_keys,
                        groups, window};
  const size_t table_elements = static_cast<size_t>(n) * (e / static_cast<size_t>(c.n_heads));
  const std::vector<T> cos =
      rope != nullptr ? Typed<T>(rope->cos, table_elements) : std::vector<T>();
  const std::vector<T> sin =
      rope != nullptr ? Typed<T>(rope->sin, table_elements) : std::vector<T>();
  if (rope != nullptr) {
    shape.rope = rope->interleaved ? ref::kRopeInterleaved : ref::kRopeHalf;
    in.rope_cos = cos.data();
    in.rope_sin = sin.data();
  }
  const std::vector<T> memory_t =
      n_memory > 0 ? Typed<T>(memory, static_cast<size_t>(n_memory) * e) : std::vector<T>();
  if (n_memory > 0) {
    chain.cross = true;
    shape.n_memory = n_memory;
    shape.n_valid_keys = n_memory;
    in.memory = memory_t.data();
  }
  ref::ChainTensors<T> t;
  if constexpr (sizeof(T) == 1) {
    t = ref::RunChainInt8(shape, chain, in);
  } else {
    t = ref::RunChainInt16(shape, chain, in);
  }
  ReferenceOutputs out;
  out.y.assign(t.y.begin(), t.y.end());
  for (const auto& head : t.probs) out.probs.insert(out.probs.end(), head.begin(), head.end());
  return out;
}

}  // namespace

ea_quant* TensorField(ea_mha_quant_scales* s, int i) {
  ea_quant* fields[kQuantTensors] = {&s->input, &s->position, &s->positioned, &s->q,     &s->k,
                                     &s->v,     &s->scores,   &s->context,    &s->output};
  return fields[i];
}

Derivation DeriveLikeTflite(const ea_mha_config& c, int32_t kv_width, const ea_quant* kv_input) {
  const ea_mha_quant_scales& s = *c.quant_scales;
  const bool int8 = c.dtype == EA_DTYPE_INT8;
  const bool positions = c.position != EA_POSITION_NONE;
  const int32_t e = c.d_model;
  Derivation d;
  ea_mha_quant_params& p = d.integers.params;
  const ea_quant x = positions ? s.positioned : s.input;
  const ea_quant kv_x = kv_input != nullptr ? *kv_input : x;
  if (positions) {
    p.add = AddLikeTflite(int8, s.input, s.position, s.positioned);
    p.position = s.position;  // ea_mha_quant_derive carries the table's quantization
  }
  const struct {
    ea_quant in;
    const float* weights;
    int32_t channels;
    ea_quant out;
  } linears[4] = {{x, InProjWeightScales(s, 0, e, kv_width), e, s.q},
                  {kv_x, InProjWeightScales(s, 1, e, kv_width), kv_width, s.k},
                  {kv_x, InProjWeightScales(s, 2, e, kv_width), kv_width, s.v},
                  {s.context, s.out_proj_weight_scales, e, s.output}};
  for (int l = 0; l < 4; ++l) {
    LinearLikeTflite(linears[l].in, linears[l].weights, linears[l].channels, linears[l].out,
                     d.integers.Linear(l), &d.integers.multipliers[l], &d.integers.shifts[l]);
  }
  d.integers.Point();
  p.scores = ScoresLikeTflite(s.q, s.k, s.scores, &d.infinite_scores);
  p.context = ContextLikeTflite(int8, s.v, s.context);
  p.softmax =
      SoftmaxLikeTflite(int8, 1.0f / sqrtf(static_cast<float>(e / c.n_heads)), s.scores.scale);
  return d;
}

Integers DefaultIntegers(const ea_mha_config& c) {
  Integers g;
  DefaultScalars(c.dtype == EA_DTYPE_INT8, &g.params.add, &g.params.scores, &g.params.context,
                 &g.params.softmax);
  for (int l = 0; l < 4; ++l) {
    g.multipliers[l].assign(static_cast<size_t>(c.d_model), kDefaultMultiplier);
    g.shifts[l].assign(static_cast<size_t>(c.d_model), kDefaultShift);
  }
  g.Point();
  return g;
}

ReferenceOutputs MhaReference(const ea_mha_config& c, const ea_mha_quant_params& p, int n,
                              int n_valid_keys, const uint8_t* x, const uint8_t* table,
                              const int8_t* in_w, const int8_t* out_w, const uint8_t* in_b,
                              const uint8_t* out_b, int window, int kv_heads,
                              const RopeInputs* rope, const uint8_t* memory, int n_memory) {
  if (c.dtype == EA_DTYPE_INT8) {
    return RunReference<int8_t, int32_t>(c, p, RefSoftmaxInt8(p.softmax), n, n_valid_keys, x, table,
                                         in_w, out_w, in_b, out_b, window, kv_heads, rope, memory,
                                         n_memory);
  }
  return RunReference<int16_t, int64_t>(c, p, RefSoftmaxInt16(p.softmax), n, n_valid_keys, x, table,
                                        in_w, out_w, in_b, out_b, window, kv_heads, rope, memory,
                                        n_memory);
}

void QuantizeLayer(const QuantTensor (&tensors)[kQuantTensors], const QuantCommon& qc,
                   bool scales_given, bool materialised, int32_t kv_width, ea_mha_config* config,
                   MhaQuantization* q, const ea_quant* kv_input) {
  const ea_dtype dtype = config->dtype;
  const bool fixed = IsFixed(dtype), int8 = dtype == EA_DTYPE_INT8;
  const int32_t e = config->d_model, heads = config->n_heads;
  const bool dims_ok = config->max_tokens > 0 && e > 0 && heads > 0 && e % heads == 0;
  const Nominal nominal = NominalScales(dtype, e > 1 ? e : 1, dims_ok ? e / heads : 1,
                                        config->position != EA_POSITION_NONE);
  for (int i = 0; i < kQuantTensors; ++i) {
    *TensorField(&q->scales, i) = QuantOf(tensors[i], nominal.tensor[i], int8);
  }
  const size_t channels = materialised ? static_cast<size_t>(e) : 1;
  q->weight_scales = WeightScales(qc, nominal.weight, 4 * channels);
  const bool null_weight_scales = qc.bad_weight_scale == 255;
  q->scales.in_proj_weight_scales = null_weight_scales ? nullptr : q->weight_scales.data();
  if (qc.biases & 32) {  // W_Q's, W_K's, W_V's scales as three arrays (the same values)
    q->scales.in_proj_weight_scales = nullptr;
    q->scales.q_proj_weight_scales = null_weight_scales ? nullptr : q->weight_scales.data();
    q->scales.k_proj_weight_scales = q->weight_scales.data() + channels;
    q->scales.v_proj_weight_scales = q->weight_scales.data() + 2 * channels;  // kv_width read
  }
  q->scales.out_proj_weight_scales =
      null_weight_scales ? nullptr : q->weight_scales.data() + 3 * channels;
  config->quant_scales = scales_given ? &q->scales : nullptr;

  // What TFLite's Prepare gives for these scales (valid ones, built shapes).
  const bool scales_checkable = fixed && dims_ok && materialised && scales_given;
  q->scales_rules = scales_checkable ? QuantScalesRules(*config, kv_width) : StatusSet();
  q->derivable = scales_checkable && !q->scales_rules.MustFail() &&
                 (kv_input == nullptr || ValidQuant(dtype, *kv_input));
  if (q->derivable) {
    q->derivation = DeriveLikeTflite(*config, kv_width, kv_input);
    q->derivation.integers.Point();
  }
  q->infinite = q->derivable && q->derivation.infinite_scores;
  // Given integers: the derived ones (or defaults), edited.
  q->params_given = qc.ParamsGiven() && fixed && dims_ok && materialised;
  if (q->params_given) {
    q->given = q->derivable ? q->derivation.integers : DefaultIntegers(*config);
    ApplyEdits(qc, &q->given);
    GivePositionQuantization(qc, q->scales.position, &q->given.params.position);
    if (qc.SoftmaxTablesGiven()) {
      GiveSoftmaxTables(qc.params_kind, qc.weight_scale_seed, &q->given.softmax_tables,
                        &q->given.params.softmax);
    }
    config->quant_params = &q->given.params;
  }
  q->used = q->params_given ? &q->given.params
                            : (q->derivable ? &q->derivation.integers.params : nullptr);
}

ea_mha_config BrokenConfig(const ea_mha_config& good, const Common& common) {
  ea_mha_config bad =
      BreakOneField(good, common, 1, [](ea_mha_config* c, int, int32_t v) { c->n_heads = v; });
  if (!QuantMhaShapeRules(bad).MustFail()) bad.n_heads = 0;
  return bad;
}

}  // namespace edgeattn_fuzz
