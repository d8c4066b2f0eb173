// oneDNN peer implementation (see onednn_attention.h): primitives made once, executed in Run.
#include "onednn_attention.h"

#include <cmath>
#include <limits>
#include <unordered_map>

namespace edgeattn_bench {
namespace {

using dnnl::memory;
using Dims = memory::dims;
constexpr memory::data_type kF32 = memory::data_type::f32;

// The process's one CPU engine and its in-order stream.
struct CpuEngine {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

CpuEngine& Cpu() {
  static CpuEngine cpu;
  return cpu;
}

// Scratchpads are user-owned (allocated once here), so no execution allocates.
dnnl::primitive_attr UserScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

memory Bind(const memory::desc& desc, const float* data) {
  // oneDNN memory objects take void*; inputs are only read.
  return memory(desc, Cpu().engine, const_cast<float*>(data));
}

// [batch, rows, cols] matrices laid out as `layout`.
memory::desc StridedDesc(int64_t batch, int64_t rows, int64_t cols, const StridedMatrices& layout) {
  return memory::desc(Dims{batch, rows, cols}, kF32,
                      Dims{layout.batch_stride, layout.row_stride, 1});
}

// K^T as [batch, d, n_kv] over K's [n_kv, d] rows: the transpose is in the strides only.
memory::desc TransposedDesc(int64_t batch, int64_t n_kv, int64_t d, const StridedMatrices& k) {
  return memory::desc(Dims{batch, d, n_kv}, kF32, Dims{k.batch_stride, 1, k.row_stride});
}

memory::desc DenseDesc(const Dims& dims) {
  return memory::desc(dims, kF32, memory::format_tag::abc);
}

// 0 where key j is visible to query i (j <= i), -inf above the diagonal.
void FillCausalMask(memory* mask, int64_t n_q, int64_t n_kv) {
  float* values = static_cast<float*>(mask->get_data_handle());
  for (int64_t i = 0; i < n_q; ++i) {
    for (int64_t j = 0; j < n_kv; ++j) {
      values[i * n_kv + j] = j <= i ? 0.0f : -std::numeric_limits<float>::infinity();
    }
  }
}

memory ScratchpadFor(const dnnl::primitive_desc_base& desc) {
  return memory(desc.scratchpad_desc(), Cpu().engine);
}

}  // namespace

OnednnAttention::OnednnAttention(const OnednnAttentionShape& shape, const float* q, const float* k,
                                 const float* v, float* out) {
  const int64_t b = shape.batch;
  const memory::desc q_desc = StridedDesc(b, shape.n_q, shape.d, shape.q);
  const memory::desc k_transposed_desc = TransposedDesc(b, shape.n_kv, shape.d, shape.k);
  const memory::desc v_desc = StridedDesc(b, shape.n_kv, shape.d, shape.v);
  const memory::desc out_desc = StridedDesc(b, shape.n_q, shape.d, shape.out);
  const memory::desc scores_desc = DenseDesc(Dims{b, shape.n_q, shape.n_kv});
  // One mask for every batch entry (broadcast over the batch dimension).
  const memory::desc mask_desc = DenseDesc(Dims{1, shape.n_q, shape.n_kv});

  dnnl::primitive_attr scores_attr = UserScratchpad();
  scores_attr.set_output_scales(0, {shape.scale});
  if (shape.causal) {
    dnnl::post_ops add_mask;
    add_mask.append_binary(dnnl::algorithm::binary_add, mask_desc);
    scores_attr.set_post_ops(add_mask);
  }
  const dnnl::matmul::primitive_desc scores_pd(
      dnnl::matmul::desc(q_desc, k_transposed_desc, scores_desc), scores_attr, Cpu().engine);
  const dnnl::softmax_forward::primitive_desc softmax_pd(
      dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, scores_desc, 2),
      UserScratchpad(), Cpu().engine);
  const dnnl::matmul::primitive_desc values_pd(dnnl::matmul::desc(scores_desc, v_desc, out_desc),
                                               UserScratchpad(), Cpu().engine);
  scores_matmul_ = dnnl::matmul(scores_pd);
  softmax_ = dnnl::softmax_forward(softmax_pd);
  values_matmul_ = dnnl::matmul(values_pd);
  implementations_ = std::string("QK^T ") + scores_pd.impl_info_str() + ", softmax " +
                     softmax_pd.impl_info_str() + ", PV " + values_pd.impl_info_str();

  q_ = Bind(q_desc, q);
  k_transposed_ = Bind(k_transposed_desc, k);
  v_ = Bind(v_desc, v);
  out_ = Bind(out_desc, out);
  scores_ = memory(scores_desc, Cpu().engine);
  if (shape.causal) {
    mask_ = memory(mask_desc, Cpu().engine);
    FillCausalMask(&mask_, shape.n_q, shape.n_kv);
  }
  scores_scratchpad_ = ScratchpadFor(scores_pd);
  softmax_scratchpad_ = ScratchpadFor(softmax_pd);
  values_scratchpad_ = ScratchpadFor(values_pd);
}

void OnednnAttention::Run() {
  dnnl::stream& stream = Cpu().stream;
  std::unordered_map<int, memory> scores_args = {{DNNL_ARG_SRC, q_},
                                                 {DNNL_ARG_WEIGHTS, k_transposed_},
                                                 {DNNL_ARG_DST, scores_},
                                                 {DNNL_ARG_SCRATCHPAD, scores_scratchpad_}};
  if (mask_) scores_args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = mask_;
  scores_matmul_.execute(stream, scores_args);
  softmax_.execute(stream, {{DNNL_ARG_SRC, scores_},
                            {DNNL_ARG_DST, scores_},
                            {DNNL_ARG_SCRATCHPAD, softmax_scratchpad_}});
  values_matmul_.execute(stream, {{DNNL_ARG_SRC, scores_},
                                  {DNNL_ARG_WEIGHTS, v_},
                                  {DNNL_ARG_DST, out_},
                                  {DNNL_ARG_SCRATCHPAD, values_scratchpad_}});
  stream.wait();
}

std::string OnednnAttention::Implementations() const { return implementations_; }

namespace {

// The heads of an [n, E] matrix as [heads, n, E / heads] column blocks.
StridedMatrices HeadBlocks(int64_t d_model, int64_t heads) {
  return StridedMatrices{d_model / heads, d_model};
}

OnednnAttentionShape HeadsShape(int64_t d_model, int64_t heads, bool causal, int64_t n) {
  const int64_t d_k = d_model / heads;
  const StridedMatrices blocks = HeadBlocks(d_model, heads);
  return OnednnAttentionShape{
      heads,  n,      n,      d_k,    1.0f / std::sqrt(static_cast<float>(d_k)),
      causal, blocks, blocks, blocks, blocks};
}

}  // namespace

OnednnMha::OnednnMha(int64_t d_model, int64_t heads, bool causal, int64_t n,
                     const MhaWeights& weights, const float* x, float* y)
    : q_values_(static_cast<size_t>(n * d_model)),
      k_values_(q_values_.size()),
      v_values_(q_values_.size()),
      concat_values_(q_values_.size()),
      heads_attention_(HeadsShape(d_model, heads, causal, n), q_values_.data(), k_values_.data(),
                       v_values_.data(), concat_values_.data()) {
  const int64_t e = d_model;
  const memory::desc activations_desc(Dims{n, e}, kF32, memory::format_tag::ab);
  // W is [out, in] row-major; the matmul reads W^T [in, out] through the strides.
  const memory::desc weights_desc(Dims{e, e}, kF32, memory::format_tag::ba);
  const memory::desc bias_desc(Dims{1, e}, kF32, memory::format_tag::ab);
  const dnnl::matmul::primitive_desc projection_pd(
      dnnl::matmul::desc(activations_desc, weights_desc, bias_desc, activations_desc),
      UserScratchpad(), Cpu().engine);
  projection_ = dnnl::matmul(projection_pd);
  projection_implementation_ = projection_pd.impl_info_str();
  projection_scratchpad_ = ScratchpadFor(projection_pd);

  x_ = Bind(activations_desc, x);
  y_ = Bind(activations_desc, y);
  q_ = Bind(activations_desc, q_values_.data());
  k_ = Bind(activations_desc, k_values_.data());
  v_ = Bind(activations_desc, v_values_.data());
  concat_ = Bind(activations_desc, concat_values_.data());
  const size_t matrix = static_cast<size_t>(e * e);
  w_q_ = Bind(weights_desc, weights.in_proj_weight);
  w_k_ = Bind(weights_desc, weights.in_proj_weight + matrix);
  w_v_ = Bind(weights_desc, weights.in_proj_weight + 2 * matrix);
  w_o_ = Bind(weights_desc, weights.out_proj_weight);
  b_q_ = Bind(bias_desc, weights.in_proj_bias);
  b_k_ = Bind(bias_desc, weights.in_proj_bias + e);
  b_v_ = Bind(bias_desc, weights.in_proj_bias + 2 * e);
  b_o_ = Bind(bias_desc, weights.out_proj_bias);
}

void OnednnMha::Run() {
  dnnl::stream& stream = Cpu().stream;
  const auto project = [&](const memory& in, const memory& w, const memory& b, const memory& out) {
    projection_.execute(stream, {{DNNL_ARG_SRC, in},
                                 {DNNL_ARG_WEIGHTS, w},
                                 {DNNL_ARG_BIAS, b},
                                 {DNNL_ARG_DST, out},
                                 {DNNL_ARG_SCRATCHPAD, projection_scratchpad_}});
  };
  project(x_, w_q_, b_q_, q_);
  project(x_, w_k_, b_k_, k_);
  project(x_, w_v_, b_v_, v_);
  heads_attention_.Run();
  project(concat_, w_o_, b_o_, y_);
  stream.wait();
}

std::string OnednnMha::Implementations() const {
  return "projections " + projection_implementation_ +
         ", heads: " + heads_attention_.Implementations();
}

const char* OnednnCpuIsa() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::sse41:
      return "sse41";
    case dnnl::cpu_isa::avx:
      return "avx";
    case dnnl::cpu_isa::avx2:
      return "avx2";
    case dnnl::cpu_isa::avx2_vnni:
      return "avx2_vnni";
    case dnnl::cpu_isa::avx512_core:
      return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx:
      return "avx512_core_amx";
    default:
      return "other";
  }
}

std::string OnednnVersion() {
  const dnnl_version_t* version = dnnl_version();
  return std::to_string(version->major) + "." + std::to_string(version->minor) + "." +
         std::to_string(version->patch);
}

}  // namespace edgeattn_bench
