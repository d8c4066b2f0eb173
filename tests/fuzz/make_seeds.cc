// Writes the committed seed corpus (tests/fuzz/corpus): a few cases per
// entry point, each named for what it covers. The cases are built as
// structs and encoded with the same Visit layouts the fuzzer decodes, so
// they stay valid when a layout changes: rerun `make fuzz-seeds`.
// The fuzzer never writes here; `make fuzz` copies the seeds to build/fuzz.
// A second argument writes only the seeds whose names start with it (new
// seeds beside older ones whose committed bytes predate a layout change).
#include <stdio.h>

#include <stdlib.h>

#include <string>
#include <type_traits>
#include <vector>

#include "byte_reader.h"
#include "data/weights/sample_files.h"
#include "decoder_case.h"
#include "edgeattn/edgeattn.h"
#include "edgeattn/kv_cache.h"
#include "edgeattn/rope.h"
#include "fuzz_case.h"
#include "quant_attention_case.h"
#include "quant_cross_case.h"
#include "quant_rope_case.h"
#include "weight_file_case.h"

using namespace edgeattn_fuzz;

namespace {

std::string g_directory;
std::string g_prefix;  // only the seeds whose names start with it
int g_written = 0;

template <class Case>
void Write(const char* name, Operation operation, Case& c) {
  if (std::string(name).compare(0, g_prefix.size(), g_prefix) != 0) return;
  // Reproducers of open known defects only when asked for by their prefix.
  if (std::string(name).compare(0, 6, "known-") == 0 && g_prefix.compare(0, 6, "known-") != 0) {
    return;
  }
  ByteWriter writer;
  uint8_t op = operation;
  writer.U8(op);
  if constexpr (std::is_same_v<Case, ModelCase>) {
    Visit(writer, c, operation == kMha);
  } else {
    Visit(writer, c);
  }
  const std::string path = g_directory + "/" + name;
  FILE* file = fopen(path.c_str(), "wb");
  if (file == nullptr ||
      fwrite(writer.bytes().data(), 1, writer.bytes().size(), file) != writer.bytes().size()) {
    fprintf(stderr, "make_seeds: cannot write %s\n", path.c_str());
    exit(1);
  }
  fclose(file);
  ++g_written;
}

TensorSpec Normal(uint32_t seed, uint8_t magnitude = 10) {
  TensorSpec t;
  t.mode = kNormal;
  t.magnitude = magnitude;
  t.seed = seed;
  return t;
}

// A normal tensor with one special value (SpecialValue index) at `position`.
TensorSpec WithSpecial(uint32_t seed, uint16_t position, uint8_t special) {
  TensorSpec t = Normal(seed);
  t.sprinkles = 1;
  t.sprinkle[0] = Sprinkle{position, special};
  return t;
}

constexpr uint8_t kNaN = 0, kInf = 2, kMinusInf = 3, kBig30 = 9, kDenormal = 23;

Placement Over(int candidate, int16_t offset = 0) {
  return Placement{static_cast<uint8_t>(128 + candidate), offset};
}

AttentionCase Attention(int n_q, int n_kv, int d_k, int d_v) {
  AttentionCase c;
  c.n_q = n_q;
  c.n_kv = n_kv;
  c.d_k = d_k;
  c.d_v = d_v;
  c.want_weights = 200;
  c.q_values = Normal(1);
  c.k_values = Normal(2);
  c.v_values = Normal(3);
  return c;
}

ModelCase Model(int max_tokens, int d_model, int d_k, int d_v, int heads) {
  ModelCase c;
  c.max_tokens = max_tokens;
  c.d_model = d_model;
  c.d_k = d_k;
  c.d_v = d_v;
  c.heads = heads;
  c.want_weights = 200;
  c.x_values = Normal(11);
  c.table_values = Normal(12, 8);
  for (int i = 0; i < 4; ++i) {
    c.w_values[i] = Normal(20 + i, 8);
    c.b_values[i] = Normal(30 + i, 6);
  }
  return c;
}

void AttentionSeeds() {
  AttentionCase c = Attention(4, 6, 8, 8);
  Write("attention-basic", kAttention, c);
  c = Attention(20, 70, 8, 4);  // two query blocks, two key panels
  c.mask = EA_MASK_CAUSAL;
  Write("attention-causal-tiles", kAttention, c);
  c = Attention(3, 130, 5, 3);
  c.mask = EA_MASK_CAUSAL;
  Write("attention-causal-bottom-right", kAttention, c);
  c = Attention(10, 4, 3, 3);  // rows with no visible key
  c.mask = EA_MASK_CAUSAL;
  c.n_valid = RunLength{200, 3};
  Write("attention-masked-rows", kAttention, c);
  c = Attention(6, 9, 4, 5);
  c.q_values = WithSpecial(1, 5, kNaN);
  Write("attention-nan-query", kAttention, c);
  c = Attention(17, 66, 4, 4);
  c.k_values = WithSpecial(2, 65 * 4 + 1, kInf);
  Write("attention-inf-key", kAttention, c);
  c = Attention(4, 8, 4, 4);
  c.q_values = Normal(1, 20);  // sigma 1024, scores ~ 1e6
  c.k_values = Normal(2, 20);
  Write("attention-large-scores", kAttention, c);
  c = Attention(4, 8, 4, 4);
  c.q_values = WithSpecial(1, 2, kBig30);  // one score ~1e32
  c.scale_kind = 150;
  c.scale_bits = 6;  // scale 100
  Write("attention-huge-scores", kAttention, c);
  c = Attention(5, 5, 3, 3);
  c.v_values = WithSpecial(3, 4, kMinusInf);
  Write("attention-inf-value", kAttention, c);
  c = Attention(5, 5, 3, 3);
  c.q_values = WithSpecial(1, 1, kDenormal);
  c.k_values.magnitude = 0;  // sigma 2^-10
  Write("attention-denormal", kAttention, c);
  c = Attention(4, 6, 8, 8);
  c.out = Over(1, 2);  // out over q
  Write("attention-out-over-q", kAttention, c);
  c = Attention(4, 6, 8, 8);
  c.weights = Over(3);  // weights over v
  Write("attention-weights-over-v", kAttention, c);
  c = Attention(4, 6, 8, 8);
  c.out = Over(0, 16);  // out over the plan's packed keys
  Write("attention-out-over-arena", kAttention, c);
  c = Attention(6, 6, 4, 4);
  c.k = Over(1);  // k is q: allowed
  Write("attention-k-is-q", kAttention, c);
  c = Attention(1, 1, 1, 1);
  c.d_k = 1 << 28;
  Write("attention-dk-limit", kAttention, c);
  c = Attention(4, 0x7FFFFFC1, 1, 1);
  Write("attention-nkv-roundup-overflow", kAttention, c);
  c = Attention(-1, 4, 0, 4);
  Write("attention-bad-dims", kAttention, c);
  c = Attention(4, 4, 4, 4);
  c.dtype = 1;  // INT8: unsupported
  c.mask = 5;
  c.scale_kind = 200;  // NaN scale
  Write("attention-bad-enums", kAttention, c);
  c = Attention(4, 70, 4, 4);
  c.arena.capacity_mode = 5;  // one byte too small, and more
  c.arena.capacity_delta = 3;
  Write("attention-arena-too-small", kAttention, c);
  c = Attention(4, 4, 4, 4);
  c.arena.misalign = 200;
  Write("attention-arena-misaligned", kAttention, c);
  c = Attention(4, 4, 4, 4);
  c.arena.pre_used_mode = 193;  // used = 100: misaligned carve start
  c.arena.pre_used = 100;
  Write("attention-arena-used-misaligned", kAttention, c);
  c = Attention(4, 4, 4, 4);
  c.common.null_select = 240;
  c.common.null_bits = kNullInput1 | kNullOutput;
  Write("attention-null-pointers", kAttention, c);
  c = Attention(4, 6, 8, 8);
  c.common.replan = 200;
  c.common.replan_field = 1;
  c.common.replan_value = 0;  // n_q = 0
  Write("attention-replan-broken", kAttention, c);
  c = Attention(4, 6, 8, 8);
  c.n_valid = RunLength{240, 7};  // n_kv + 1
  Write("attention-bad-valid-keys", kAttention, c);
  c = Attention(32768, 16385, 1, 1);  // weights [n_q, n_kv] past 2^28 elements
  Write("attention-weights-overflow", kAttention, c);
}

void ModelSeeds() {
  ModelCase c = Model(12, 8, 4, 6, 1);
  c.position = EA_POSITION_SINUSOIDAL;
  c.biases = 7;
  c.n_tokens = RunLength{200, 9};
  Write("self-attention-sinusoidal", kSelfAttention, c);
  c = Model(8, 6, 3, 6, 1);
  c.position = EA_POSITION_LEARNED;
  c.table_kind = 200;
  c.mask = EA_MASK_CAUSAL;
  c.y = Over(5);  // candidates: arena, w0, w1, w2, table, x: y is x
  Write("self-attention-learned-in-place", kSelfAttention, c);
  c = Model(8, 6, 3, 6, 1);
  c.position = EA_POSITION_LEARNED;
  Write("self-attention-learned-null-table", kSelfAttention, c);
  c = Model(8, 6, 3, 3, 1);
  c.y = Over(1, 1);  // y over W_Q
  Write("self-attention-y-over-wq", kSelfAttention, c);
  c = Model(8, 6, 3, 3, 1);
  c.position = EA_POSITION_LEARNED;
  c.table_kind = 200;
  c.weights = Over(4);  // attention weights over the table
  Write("self-attention-weights-over-table", kSelfAttention, c);
  c = Model(8, 6, 3, 3, 1);
  c.x_values = WithSpecial(11, 13, kNaN);
  Write("self-attention-nan-x", kSelfAttention, c);
  c = Model(8, 6, 3, 3, 1);
  c.n_tokens = RunLength{240, 9};
  Write("self-attention-too-many-tokens", kSelfAttention, c);
  c = Model(70, 4, 2, 2, 1);
  c.mask = EA_MASK_CAUSAL;
  c.n_valid = RunLength{200, 40};
  Write("self-attention-70-tokens", kSelfAttention, c);
  c = Model(16385, 1, 1, 1, 1);  // weights [n, n] past 2^28 elements
  Write("self-attention-weights-overflow", kSelfAttention, c);

  c = Model(20, 16, 0, 0, 4);
  c.position = EA_POSITION_SINUSOIDAL;
  c.biases = 3;
  Write("mha-basic", kMha, c);
  c = Model(8, 10, 0, 0, 3);
  Write("mha-heads-mismatch", kMha, c);
  c = Model(70, 4, 0, 0, 2);
  c.mask = EA_MASK_CAUSAL;
  c.want_weights = 0;
  Write("mha-70-tokens-causal", kMha, c);
  c = Model(6, 8, 0, 0, 2);
  c.weights = Over(4, 2);  // candidates: arena, in_proj, out_proj, x, y
  Write("mha-weights-over-y", kMha, c);
  c = Model(4, 1 << 14, 0, 0, 1);
  Write("mha-in-proj-overflow", kMha, c);
  c = Model(6, 8, 0, 0, 2);
  c.common.replan = 200;
  c.common.replan_field = 3;
  c.common.replan_value = 3;  // heads 3: mismatch
  Write("mha-replan-broken", kMha, c);
  c = Model(6, 8, 0, 0, 2);
  c.x = Over(0);  // candidates: arena, in_proj, out_proj: x where the plan puts Q
  Write("mha-x-in-scratch", kMha, c);
  c = Model(6, 8, 0, 0, 2);
  c.x_values = WithSpecial(11, 9, kInf);
  c.y = Over(3);  // in place
  Write("mha-inf-x-in-place", kMha, c);
}

// What every fixed-point seed asks: these biases, four seeds from `seed`
// on, the probabilities.
QuantCommon SeedQuant(uint8_t biases, uint32_t seed) {
  QuantCommon q;
  q.biases = biases;
  q.bias_seed = seed;
  q.weight_seed = seed + 1;
  q.x_seed = seed + 2;
  q.weight_scale_seed = seed + 3;
  q.want_weights = 200;
  return q;
}

// Fixed-point MHA. heads_kind picks the heads_kind-th divisor of d_model.
QuantCase Quant(bool int16, int max_tokens, int d_model, uint8_t heads_kind) {
  QuantCase c;
  c.dtype_kind = int16 ? 150 : 10;
  c.max_tokens = max_tokens;
  c.d_model = d_model;
  c.heads_kind = heads_kind;
  c.mask = EA_MASK_CAUSAL;
  c.position = EA_POSITION_SINUSOIDAL;
  c.quant = SeedQuant(3, 61);
  for (int i = 0; i < kQuantTensors; ++i) c.tensors[i].zp_value = static_cast<uint8_t>(17 * i);
  return c;
}

// Given integers, edited: field (fuzz_quant_mha.cc ApplyEdit), an edge value.
QuantCase WithEdit(QuantCase c, uint8_t field, int32_t value, uint16_t channel = 0) {
  c.quant.params_kind = 200;
  c.quant.edit_count = 1;
  c.quant.edits[0] = ParamEdit{field, channel, 250, value};
  return c;
}

// QuantSpecialScale indexes (fuzz_quant_mha.cc), as a QuantTensor kind.
constexpr uint8_t kScaleNaN = 224 + 3, kScale1e20 = 224 + 10, kScale1em20 = 224 + 11,
                  kScale1em9 = 224 + 12;
constexpr int kQ = 3, kK = 4, kScores = 6;

void QuantSeeds() {
  QuantCase c = Quant(false, 12, 16, 2);
  Write("quant-s8-basic", kQuantMha, c);
  c = Quant(true, 12, 16, 2);
  Write("quant-s16-basic", kQuantMha, c);
  c = Quant(false, 9, 12, 1);
  c.position = EA_POSITION_LEARNED;
  c.table_kind = 200;
  c.quant.params_kind = 200;  // the derived integers, given
  c.mask = EA_MASK_NONE;
  Write("quant-s8-learned-given-params", kQuantMha, c);
  c = Quant(true, 7, 8, 3);
  c.position = EA_POSITION_NONE;
  c.quant.params_kind = 200;
  c.scales_kind = 250;  // no scales
  Write("quant-s16-nopos-given-no-scales", kQuantMha, c);
  c = Quant(false, 70, 8, 1);
  c.quant.workers = 3;
  c.quant.want_weights = 0;
  Write("quant-s8-70-tokens-3-workers", kQuantMha, c);
  c = Quant(true, 65, 6, 1);
  c.mask = EA_MASK_NONE;
  c.quant.x_mode = 2;  // the extremes
  c.quant.weight_mode = 2;
  Write("quant-s16-65-tokens-saturating", kQuantMha, c);
  c = Quant(false, 6, 8, 1);
  c.tensors[kScores].kind = kScaleNaN;
  Write("quant-s8-scale-nan", kQuantMha, c);
  c = Quant(false, 6, 8, 1);
  c.tensors[kK].zp_kind = 193;  // 128
  Write("quant-s8-zero-point-128", kQuantMha, c);
  c = Quant(true, 6, 8, 1);
  c.tensors[0].zp_kind = 196;  // 1
  Write("quant-s16-zero-point-1", kQuantMha, c);
  c = Quant(false, 6, 8, 1);
  c.quant.bad_weight_scale = 230;
  c.quant.bad_channel = 17;
  c.quant.bad_value = 2;  // -1
  Write("quant-s8-weight-scale-negative", kQuantMha, c);
  // Derived integers out of range: the refusal writes channel ints (finding 10).
  c = Quant(true, 6, 8, 1);
  c.tensors[kQ].kind = kScale1em20;  // Q projection's shift above int16's 7
  Write("quant-s16-shift-above-7", kQuantMha, c);
  c = Quant(false, 6, 8, 1);
  c.tensors[kScores].kind = kScale1em9;  // softmax left shift below 0
  Write("quant-s8-softmax-left-shift-negative", kQuantMha, c);
  c = WithEdit(Quant(false, 6, 8, 1), 23 + 3, 31, 5);  // q_proj shift[5] = 31
  Write("quant-s8-given-shift-31", kQuantMha, c);
  c = WithEdit(Quant(false, 6, 8, 1), 15, 0);  // context lhs_offset 0
  Write("quant-s8-given-context-lhs-0", kQuantMha, c);
  c = WithEdit(Quant(true, 6, 8, 1), 21, -32);  // softmax left shift
  Write("quant-s16-given-softmax-shift", kQuantMha, c);
  c = WithEdit(Quant(false, 6, 8, 1), 23 + 5 * 2 + 4, 1);  // v_proj multipliers NULL
  Write("quant-s8-given-null-multipliers", kQuantMha, c);
  c = Quant(true, 6, 8, 1);
  c.quant.bias_edge = 224;  // 2^47
  c.quant.bias_edge_index = 3;
  Write("quant-s16-bias-2-47", kQuantMha, c);
  c = Quant(false, 8, 8, 1);
  c.quant.y = Over(1);  // candidates: arena, in_proj, out_proj, in_bias, out_bias, x
  Write("quant-s8-y-over-in-proj", kQuantMha, c);
  c = Quant(true, 8, 8, 1);
  c.quant.x = Over(0, 16);  // x inside the plan's carve
  Write("quant-s16-x-in-arena", kQuantMha, c);
  c = Quant(false, 8, 8, 1);
  c.quant.weights = Over(5);  // attn_weights over x: refused or harmless
  Write("quant-s8-weights-over-x", kQuantMha, c);
  c = Quant(false, 8, 8, 1);
  c.quant.y = Over(5);  // in place
  Write("quant-s8-in-place", kQuantMha, c);
  c = Quant(false, 8, 8, 1);
  c.quant.wrong_run = 250;
  Write("quant-s8-run-s16", kQuantMha, c);
  c = Quant(false, 12, 16, 2);
  c.quant.n_valid = RunLength{200, 5};  // keys 5..11 padding
  c.quant.want_weights = 200;
  Write("quant-s8-padded-keys", kQuantMha, c);
  c = Quant(true, 12, 16, 2);
  c.quant.n_valid = RunLength{200, 13};  // 13 % 13: no valid key
  Write("quant-s16-no-valid-key", kQuantMha, c);
  c = Quant(false, 8, 8, 1);
  c.quant.n_valid = RunLength{240, 9};  // n_tokens + 1
  Write("quant-s8-valid-keys-past-n", kQuantMha, c);
  c = Quant(true, 8, 8, 1);
  c.quant.arena.capacity_mode = 5;
  Write("quant-s16-arena-too-small", kQuantMha, c);
  c = Quant(true, 8, 8, 1);
  c.common.replan = 200;
  c.common.replan_field = 3;
  c.common.replan_value = 3;  // heads 3 for d_model 8
  Write("quant-s16-replan-broken", kQuantMha, c);
  c = Quant(false, 8, 10, 250);
  c.heads = 4;  // does not divide 10
  Write("quant-s8-heads-mismatch", kQuantMha, c);
  // Known defects (README "Findings" 11-14), one seed each.
  c = Quant(false, 6, 8, 1);
  c.quant.params_kind = 200;  // bit 3: the integers carry the table's quantization
  c.scales_kind = 250;        // SINUSOIDAL table to quantize, no scales (finding 11)
  Write("quant-s8-sinusoid-given-no-scales", kQuantMha, c);
  c.quant.params_kind = 192;  // integers without it, and no scales: EA_ERR_NULL_POINTER
  Write("quant-s8-sinusoid-given-no-position-no-scales", kQuantMha, c);
  c.scales_kind = 0;  // ... with scales: theirs
  Write("quant-s8-sinusoid-given-no-position", kQuantMha, c);
  c = Quant(false, 6, 8, 1);
  c.tensors[kQ].kind = kScale1e20;
  c.tensors[kK].kind = kScale1e20;  // q * k overflows float
  Write("quant-s8-infinite-score-multiplier", kQuantMha, c);
  c = Quant(false, 20000, 1, 0);
  c.quant.want_weights = 0;  // a valid config of 20000 tokens
  c.quant.n_tokens = RunLength{200, 5};
  Write("quant-s8-max-tokens-20000", kQuantMha, c);
  c = Quant(false, 16384, 2, 1);  // 2 heads * 16384^2 probabilities > 2^28
  Write("quant-s8-weights-overflow", kQuantMha, c);
  c = Quant(true, 4, INT32_MAX, 250);  // derive: 8 * d_model in int32
  c.heads = 1;
  Write("quant-s16-derive-d-model-int32-max", kQuantMha, c);
}

// Fixed-point single-head self-attention: int8 or int16, causal, sinusoidal
// positions filled at plan time, the three biases, the probabilities asked.
QuantSelfAttentionCase QuantSelf(bool int16, int max_tokens, int d_model, int d_k, int d_v) {
  QuantSelfAttentionCase c;
  c.dtype_kind = int16 ? 150 : 10;
  c.max_tokens = max_tokens;
  c.d_model = d_model;
  c.d_k = d_k;
  c.d_v = d_v;
  c.mask = EA_MASK_CAUSAL;
  c.position = EA_POSITION_SINUSOIDAL;
  c.quant = SeedQuant(7, 71);
  for (int i = 0; i < kQuantSelfAttentionTensors; ++i) {
    c.tensors[i].zp_value = static_cast<uint8_t>(23 * i + 5);
  }
  return c;
}

QuantSelfAttentionCase WithEdit(QuantSelfAttentionCase c, uint8_t field, int32_t value,
                                uint16_t channel = 0) {
  c.quant.params_kind = 200;
  c.quant.edit_count = 1;
  c.quant.edits[0] = ParamEdit{field, channel, 250, value};
  return c;
}

// Placement candidates (fuzz_quant_self_attention.cc): arena, w_q, w_k, w_v,
// the biases present, the caller's table, x, y.
constexpr int kSelfW_K = 2, kSelfX = 7;  // with all three biases, no table

void QuantSelfAttentionSeeds() {
  QuantSelfAttentionCase c = QuantSelf(false, 12, 16, 8, 5);
  Write("quant-self-attention-s8-basic", kQuantSelfAttention, c);
  c = QuantSelf(true, 12, 16, 8, 5);
  Write("quant-self-attention-s16-basic", kQuantSelfAttention, c);
  c = QuantSelf(false, 9, 12, 20, 7);
  c.position = EA_POSITION_LEARNED;
  c.table_kind = 200;
  c.mask = EA_MASK_NONE;
  c.quant.params_kind = 200;  // the derived integers, given
  Write("quant-self-attention-s8-learned-given-params", kQuantSelfAttention, c);
  c = QuantSelf(true, 7, 8, 3, 11);
  c.position = EA_POSITION_NONE;
  c.quant.params_kind = 200;
  c.scales_kind = 250;  // no scales
  c.unread = 7;         // a float table and weights_layout -1, neither read
  Write("quant-self-attention-s16-nopos-given-no-scales", kQuantSelfAttention, c);
  c = QuantSelf(false, 70, 8, 4, 6);
  c.quant.workers = 3;
  c.quant.want_weights = 0;
  Write("quant-self-attention-s8-70-tokens-3-workers", kQuantSelfAttention, c);
  c = QuantSelf(true, 65, 6, 5, 3);
  c.mask = EA_MASK_NONE;
  c.quant.x_mode = 2;  // the extremes
  c.quant.weight_mode = 2;
  Write("quant-self-attention-s16-65-tokens-saturating", kQuantSelfAttention, c);
  c = QuantSelf(false, 6, 8, 4, 4);
  c.tensors[kScores].kind = kScaleNaN;
  Write("quant-self-attention-s8-scale-nan", kQuantSelfAttention, c);
  c = QuantSelf(false, 6, 8, 4, 5);
  c.quant.bad_weight_scale = 230;
  c.quant.bad_channel = 10;  // w_v's channel 2
  c.quant.bad_value = 2;     // -1
  Write("quant-self-attention-s8-weight-scale-negative", kQuantSelfAttention, c);
  c = QuantSelf(true, 6, 8, 4, 4);
  c.tensors[kK].kind = kScale1em20;  // K projection's shift above int16's 7
  Write("quant-self-attention-s16-shift-above-7", kQuantSelfAttention, c);
  c = QuantSelf(false, 6, 8, 4, 5);
  c.quant.n_valid = RunLength{200, 4};
  c.quant.want_weights = 200;
  Write("quant-self-attention-s8-padded-keys", kQuantSelfAttention, c);
  c = QuantSelf(true, 6, 8, 4, 5);
  c.quant.n_valid = RunLength{240, -1};
  Write("quant-self-attention-s16-valid-keys-negative", kQuantSelfAttention, c);
  c = WithEdit(QuantSelf(false, 6, 8, 4, 5), 23 + 3, 31, 2);  // q_proj shift[2] = 31
  Write("quant-self-attention-s8-given-shift-31", kQuantSelfAttention, c);
  c = WithEdit(QuantSelf(false, 6, 8, 4, 5), 23 + 5 * 2 + 4, 1);  // v_proj multipliers NULL
  Write("quant-self-attention-s8-given-null-multipliers", kQuantSelfAttention, c);
  c = QuantSelf(true, 6, 8, 4, 5);
  c.quant.bias_edge = 224;      // 2^47
  c.quant.bias_edge_index = 9;  // b_v[1]
  Write("quant-self-attention-s16-bias-2-47", kQuantSelfAttention, c);
  c = QuantSelf(false, 8, 4, 6, 10);
  c.quant.y = Over(kSelfX);  // in place, y longer than x (d_v > d_model)
  Write("quant-self-attention-s8-in-place-wide-y", kQuantSelfAttention, c);
  c = QuantSelf(false, 8, 8, 4, 4);
  c.quant.y = Over(kSelfW_K, 3);  // y over w_k: refused
  Write("quant-self-attention-s8-y-over-w-k", kQuantSelfAttention, c);
  c = QuantSelf(false, 8, 8, 4, 4);
  c.quant.weights = Over(kSelfX, 1);  // attn_weights over x: refused or harmless
  Write("quant-self-attention-s8-weights-over-x", kQuantSelfAttention, c);
  c = QuantSelf(true, 8, 8, 4, 4);
  c.quant.x = Over(0, 16);  // x inside the plan's carve
  c.quant.wrong_run = 250;  // and the int8 run function
  Write("quant-self-attention-s16-x-in-arena-run-s8", kQuantSelfAttention, c);
  c = QuantSelf(false, 8, 8, 4, 4);
  c.quant.arena.capacity_mode = 5;  // one byte short
  Write("quant-self-attention-s8-arena-too-small", kQuantSelfAttention, c);
  c = QuantSelf(false, 8, 8, 4, 4);
  c.common.replan = 200;
  c.common.replan_field = 3;
  c.common.replan_value = 0;  // d_k 0
  Write("quant-self-attention-s8-replan-broken", kQuantSelfAttention, c);
  c = QuantSelf(false, 16385, 1, 1, 1);  // probabilities [n, n] past 2^28
  Write("quant-self-attention-s8-weights-overflow", kQuantSelfAttention, c);
  c = QuantSelf(false, 2, 3, 100000, 2);  // a valid shape too large to build
  Write("quant-self-attention-s8-d-k-100000", kQuantSelfAttention, c);
}

// KV cache ops (fuzz_case.h KvOp) with explicit counts.
KvOp KvAppend(int32_t n, uint32_t seed) {
  KvOp op;
  op.kind = 10;
  op.length_kind = 250;
  op.length_value = n;
  op.first_values = Normal(seed);
  op.second_values = Normal(seed + 1);
  return op;
}
KvOp KvAttend(int32_t n, uint32_t seed) {
  KvOp op;
  op.kind = 150;
  op.length_kind = 250;
  op.length_value = n;
  op.first_values = Normal(seed);
  return op;
}
KvOp KvAttendAll(int32_t n, uint32_t seed) {
  KvOp op = KvAttend(n, seed);
  op.kind = 180;  // ea_kv_cache_attend_all
  return op;
}
KvOp KvReset() {
  KvOp op;
  op.kind = 210;
  return op;
}
KvOp KvReinit(uint8_t field, int32_t value) {
  KvOp op;
  op.kind = 240;
  op.reinit_field = field;
  op.reinit_value = value;
  return op;
}
KvOp WithNulls(KvOp op, uint8_t bits) {
  op.null_select = 240;
  op.null_bits = bits;
  return op;
}

KvCacheCase Kv(int32_t capacity, int32_t n_heads, int32_t n_kv_heads, int32_t d_head,
               int32_t max_queries, int32_t window, int32_t storage, const std::vector<KvOp>& ops) {
  KvCacheCase c;
  c.capacity_kind = 200;  // capacity as given
  c.capacity = capacity;
  c.n_heads = n_heads;
  c.heads_kind = 250;
  c.n_kv_heads = n_kv_heads;
  c.d_head = d_head;
  c.max_queries_kind = 250;
  c.max_queries = max_queries;
  c.window_kind = window != 0 ? 200 : 0;
  c.window = window;
  c.storage = storage;
  c.op_count = static_cast<uint8_t>(ops.size());
  for (size_t i = 0; i < ops.size() && i < kMaxKvOps; ++i) c.ops[i] = ops[i];
  return c;
}

// A decode stream: append a chunk, attend its queries, `steps` times.
std::vector<KvOp> Stream(const std::vector<int32_t>& chunks) {
  std::vector<KvOp> ops;
  uint32_t seed = 100;
  for (int32_t n : chunks) {
    ops.push_back(KvAppend(n, seed));
    ops.push_back(KvAttend(n, seed + 2));
    seed += 3;
  }
  return ops;
}

constexpr int32_t kF32 = EA_KV_STORAGE_F32, kF16 = EA_KV_STORAGE_F16, kInt8 = EA_KV_STORAGE_Q8,
                  kInt4 = EA_KV_STORAGE_Q4;
constexpr uint8_t kBig1e5 = 15, kHuge3e38 = 6;

void KvCacheSeeds() {
  KvCacheCase c = Kv(40, 4, 2, 8, 1, 0, kF32, Stream({1, 1, 1, 1}));
  Write("kv-cache-f32-decode", kKvCache, c);
  c = Kv(100, 3, 3, 13, 7, 0, kF16, Stream({7, 3, 5, 1}));
  Write("kv-cache-f16-chunks", kKvCache, c);
  c = Kv(80, 6, 2, 17, 4, 0, kInt8, Stream({4, 4, 2, 3}));
  Write("kv-cache-int8-gqa", kKvCache, c);
  c = Kv(80, 6, 2, 80, 4, 0, kInt4, Stream({4, 4, 2, 3}));  // scale groups of 64 and 16
  Write("kv-cache-int4-gqa-two-groups", kKvCache, c);
  c = Kv(70, 2, 1, 12, 2, 66, kInt4, Stream({60, 60, 60, 1}));
  c.ops[1].length_value = 2;
  c.ops[3].length_value = 2;
  c.ops[5].length_value = 2;
  Write("kv-cache-int4-window-two-blocks", kKvCache, c);
  c = Kv(150, 2, 1, 8, 64, 0, kF32, Stream({64, 10, 1}));  // multi-query, across blocks
  Write("kv-cache-mqa-two-blocks", kKvCache, c);
  c = Kv(8, 2, 1, 8, 3, 6, kF16, Stream({3, 3, 3, 2}));  // ring of 8, window 6
  Write("kv-cache-f16-window-ring", kKvCache, c);
  c = Kv(70, 2, 2, 4, 2, 66, kInt8, Stream({60, 60, 60, 1}));  // a ring of two blocks wraps
  c.ops[1].length_value = 2;
  c.ops[3].length_value = 2;
  c.ops[5].length_value = 2;
  Write("kv-cache-int8-window-two-blocks", kKvCache, c);
  c = Kv(4, 1, 1, 4, 2, 0, kF32,
         {KvAppend(3, 1), KvAppend(2, 4), KvAttend(2, 7), KvAppend(1, 8), KvAttend(1, 11),
          KvAppend(1, 12)});
  Write("kv-cache-full", kKvCache, c);
  // attend_all: before any token (refused), then more queries than the cache
  // holds (no window: max_queries 9 > capacity 4), then over a wrapped ring.
  c = Kv(4, 2, 1, 8, 9, 0, kF16,
         {KvAttendAll(1, 20), KvAppend(3, 21), KvAttendAll(9, 24), KvAppend(1, 25),
          KvAttendAll(5, 28), KvAttendAll(10, 29)});
  Write("kv-cache-attend-all-past-capacity", kKvCache, c);
  c = Kv(10, 2, 2, 8, 3, 8, kInt8,
         {KvAppend(3, 30), KvAppend(3, 33), KvAppend(3, 36), KvAppend(3, 39), KvAttendAll(3, 42)});
  Write("kv-cache-attend-all-window", kKvCache, c);
  // Placements: candidates are the arena, then every earlier op buffer, then
  // (for the second) this op's first.
  c = Kv(16, 2, 2, 4, 2, 0, kF32, Stream({2}));
  c.ops[1].second = Over(3, 2);  // out over q
  Write("kv-cache-out-over-q", kKvCache, c);
  c = Kv(16, 2, 2, 4, 2, 0, kF32, Stream({2, 2}));
  c.ops[0].first = Over(0, 16);  // k inside the stored records
  Write("kv-cache-k-in-carve", kKvCache, c);
  c = Kv(16, 2, 2, 4, 2, 0, kF32, Stream({2}));
  c.ops[1].first = Over(0, 8);  // q inside the carve
  Write("kv-cache-q-in-carve", kKvCache, c);
  c = Kv(16, 2, 2, 4, 2, 0, kF16, Stream({2}));
  c.ops[1].second = Over(0, 40);  // out inside the carve
  Write("kv-cache-out-in-carve", kKvCache, c);
  c = Kv(16, 2, 2, 4, 2, 0, kF32, Stream({2, 2}));
  c.ops[1].second = Over(1);  // out over the first append's k (allowed)
  c.ops[2].first = Over(4);   // the next k over that out: its values
  Write("kv-cache-out-feeds-next-append", kKvCache, c);
  c = Kv(8, 1, 1, 4, 1, 2, kF32, Stream({1, 1, 1, 1}));
  c.ops[0].second_values = WithSpecial(101, 0, kNaN);  // seen by queries 0 and 1 only
  Write("kv-cache-nan-value-window", kKvCache, c);
  c = Kv(16, 2, 1, 4, 3, 0, kInt8, Stream({3, 1}));
  c.ops[0].first_values = WithSpecial(100, 5, kInf);  // token 1's key head: NaN scale
  Write("kv-cache-int8-inf-key", kKvCache, c);
  c = Kv(16, 2, 1, 72, 3, 0, kInt4, Stream({3, 1}));
  c.ops[0].second_values = WithSpecial(103, 100, kNaN);  // one value group of token 1: NaN
  Write("kv-cache-int4-nan-value-group", kKvCache, c);
  c = Kv(16, 2, 2, 4, 4, 0, kF16, Stream({4, 2}));
  c.ops[0].second_values = WithSpecial(101, 9, kBig1e5);  // f16 inf
  Write("kv-cache-f16-overflow", kKvCache, c);
  c = Kv(24, 2, 2, 16, 3, 0, kF32, Stream({3, 3, 3}));
  for (int i = 0; i < 6; ++i) c.ops[i].first_values.magnitude = 16;  // scores ~1e4
  Write("kv-cache-large-scores", kKvCache, c);
  c = Kv(16, 1, 1, 4, 2, 0, kF32, Stream({2, 2}));
  c.ops[1].first_values = WithSpecial(102, 1, kBig30);
  c.ops[3].first_values = WithSpecial(105, 6, kHuge3e38);
  Write("kv-cache-huge-queries", kKvCache, c);
  c = Kv(16, 6, 4, 4, 1, 0, kF32, Stream({1}));
  Write("kv-cache-heads-mismatch", kKvCache, c);
  c = Kv(8, 1, 1, 4, 3, 7, kF32, Stream({1}));  // 7 + 3 - 1 > 8
  Write("kv-cache-window-too-large", kKvCache, c);
  c = Kv(4, 1, 1, 4, 6, 0, kF32, {KvAppend(4, 1), KvAttend(4, 3), KvAttend(5, 4)});
  Write("kv-cache-max-queries-over-capacity", kKvCache, c);
  c = Kv(16, 2, 2, 4, 1, 0, kF32, Stream({1}));
  c.scale_kind = 200;  // NaN
  Write("kv-cache-scale-nan", kKvCache, c);
  c.scale_bits = 2;  // -1
  Write("kv-cache-scale-negative", kKvCache, c);
  c = Kv(16, 2, 2, 4, 1, 0, 4, Stream({1}));
  Write("kv-cache-bad-storage", kKvCache, c);
  c = Kv(1 << 24, 4, 2, 16, 2, 0, kInt8, Stream({1}));  // k, v past 2^28 elements
  Write("kv-cache-elements-overflow", kKvCache, c);
  c = Kv(INT32_MAX, 1, 1, 1, 1, 0, kF32, Stream({1}));  // blocks round past INT32_MAX
  Write("kv-cache-capacity-int32-max", kKvCache, c);
  c = Kv(0, -1, 1, 0, 0, -1, kF32, Stream({1}));
  Write("kv-cache-bad-dims", kKvCache, c);
  c = Kv(70, 2, 2, 8, 2, 0, kInt8, Stream({2}));
  c.arena.capacity_mode = 5;  // short of the need
  c.arena.capacity_delta = 3;
  Write("kv-cache-arena-too-small", kKvCache, c);
  c = Kv(16, 2, 2, 4, 2, 0, kF32, Stream({2}));
  c.arena.misalign = 200;
  Write("kv-cache-arena-misaligned", kKvCache, c);
  c = Kv(16, 2, 2, 4, 2, 0, kF32, Stream({2}));
  c.arena.pre_used_mode = 193;  // used = 100
  c.arena.pre_used = 100;
  Write("kv-cache-arena-used-misaligned", kKvCache, c);
  c = Kv(16, 2, 2, 4, 2, 0, kF32, Stream({2}));
  c.arena.pre_used_mode = 192;  // used = 128: aligned, and k over those bytes (not the carve)
  c.arena.pre_used = 2;
  c.ops[0].first = Over(0, 4);
  Write("kv-cache-k-over-arena-pre-used", kKvCache, c);
  c = Kv(
      16, 2, 2, 4, 2, 0, kF16,
      {KvAppend(2, 1), KvAttend(2, 3), KvReinit(3, 0), KvAttend(2, 4), KvAppend(1, 5), KvReset()});
  Write("kv-cache-reinit-broken", kKvCache, c);
  c = Kv(16, 2, 2, 4, 2, 0, kF32, {KvAppend(2, 1), KvReinit(8, 0), KvAttend(2, 3)});
  Write("kv-cache-reinit-no-arena", kKvCache, c);
  c = Kv(16, 2, 1, 4, 3, 0, kInt8,
         {KvAppend(3, 1), KvAttend(3, 3), KvReset(), KvAttend(1, 4), KvAppend(2, 5), KvAttend(2, 7),
          KvReset(), KvAttend(1, 8)});
  Write("kv-cache-reset", kKvCache, c);
  c = Kv(16, 2, 2, 4, 2, 0, kF32,
         {WithNulls(KvAppend(2, 1), kKvNullFirst), KvAppend(2, 3),
          WithNulls(KvAttend(2, 5), kKvNullSecond), WithNulls(KvReset(), kKvNullCache),
          WithNulls(KvReinit(8, 0), kKvNullCache), KvAttend(2, 6)});
  c.common.null_select = 240;
  c.common.null_bits = kNullSizeBytes;
  Write("kv-cache-null-pointers", kKvCache, c);
  c = Kv(16, 2, 2, 4, 2, 0, kF32, Stream({2}));
  c.common.null_select = 240;
  c.common.null_bits = kNullPlan;  // init without a cache: every op refused
  Write("kv-cache-init-null-cache", kKvCache, c);
  c = Kv(16, 2, 2, 4, 2, 0, kF32,
         {KvAppend(INT32_MAX, 1), KvAppend(-1, 2), KvAppend(1, 3), KvAttend(INT32_MIN, 4),
          KvAttend(2, 5), KvAttend(1, 6)});
  Write("kv-cache-counts-extreme", kKvCache, c);
  c = Kv(30, 4, 2, 6, 5, 9, kF16, Stream({1, 1, 1, 1}));
  for (int i = 0; i < 8; ++i) {
    c.ops[i].length_kind = static_cast<uint8_t>(i * 30);  // chunk, any, one past, zero...
    c.ops[i].length_value = 7 * i + 3;
  }
  Write("kv-cache-count-kinds", kKvCache, c);
}

// Fixed-point ADD (MUL with `mul`): nominal scales, zero points of their
// own, `count` elements of patterned bytes (a and b different).
ElementwiseCase Add(bool int16, int32_t count, bool mul = false) {
  ElementwiseCase c;
  c.op = mul ? 128 : 0;
  c.dtype_kind = int16 ? 150 : 10;
  c.a_quant.zp_value = 17;
  c.b_quant.zp_value = static_cast<uint8_t>(-9);
  c.b_quant.jitter = 5;
  c.out_quant.zp_value = 3;
  c.count = count;
  const size_t bytes =
      static_cast<size_t>(count >= 1 && count <= 280 ? count : 16) * (int16 ? 2 : 1);
  for (size_t i = 0; i < bytes && i < kMaxElementwiseValueBytes; ++i) {
    c.a_values.push_back(static_cast<uint8_t>(37 * i + 11));
    c.b_values.push_back(static_cast<uint8_t>(101 * i + 5));
  }
  return c;
}

// An ElementwiseLayout as ElementwiseCase::layout (>= 128 selects it).
uint8_t LayoutByte(ElementwiseLayout layout) { return static_cast<uint8_t>(133 + layout); }

void AddSeeds() {
  ElementwiseCase c = Add(false, 37);
  Write("add-s8-basic", kElementwise, c);
  c = Add(true, 100);
  c.value_mode = 1;  // the extremes: saturation both ways
  Write("add-s16-extremes", kElementwise, c);
  c = Add(false, 64);
  c.layout = LayoutByte(kOutIsA);
  Write("add-s8-in-place-a", kElementwise, c);
  c = Add(true, 29);
  c.layout = LayoutByte(kOutIsB);
  Write("add-s16-in-place-b", kElementwise, c);
  c = Add(false, 20);
  c.layout = LayoutByte(kOutOverA);
  c.shift = 20 + 3;  // out = a + 3 elements: refused
  Write("add-s8-out-partly-over-a", kElementwise, c);
  c = Add(true, 16);
  c.a_quant.kind = 224 + 3;  // NaN (QuantSpecialScale)
  Write("add-s16-nan-scale", kElementwise, c);
  c = Add(false, 16);
  c.out_quant.kind = 224 + 11;  // 1e-20: the output multiplier's shift is positive
  Write("add-s8-out-scale-tiny", kElementwise, c);
  c = Add(true, 0);
  Write("add-s16-count-zero", kElementwise, c);
  c = Add(false, (1 << 28) + 1);
  Write("add-s8-count-max-plus-one", kElementwise, c);
  c = Add(false, 7);
  c.count_high = 240;  // 2^32 + 7 as a size_t
  Write("add-s8-count-past-2-32", kElementwise, c);
}

void MulSeeds() {
  ElementwiseCase c = Add(false, 45, true);
  Write("mul-s8-basic", kElementwise, c);
  c = Add(true, 70, true);
  c.value_mode = 1;  // the extremes: -32768 * -32768, the largest product
  Write("mul-s16-extremes", kElementwise, c);
  c = Add(false, 33, true);
  c.layout = LayoutByte(kOutIsB);
  Write("mul-s8-in-place-b", kElementwise, c);
  c = Add(true, 24, true);
  c.layout = LayoutByte(kAllSame);  // a square in place
  Write("mul-s16-square-in-place", kElementwise, c);
  c = Add(false, 18, true);
  c.out_quant.kind = 224 + 11;  // 1e-20: a multiplier past 2^30, refused
  Write("mul-s8-out-scale-tiny", kElementwise, c);
  c = Add(false, 21, true);
  c.layout = LayoutByte(kOutOverB);
  c.shift = 21 - 2;  // out = b - 2 elements: refused
  Write("mul-s8-out-partly-over-b", kElementwise, c);
  c = Add(true, 12, true);
  c.params_kind = 200;  // given: an int16 input offset of 1 (refused)
  c.edit_count = 1;
  c.edits[0].field = 0;  // input1_offset
  c.edits[0].value_kind = 0;
  c.edits[0].value = 1;
  Write("mul-s16-input-offset-given", kElementwise, c);
  c = Add(false, 9, true);
  c.wrong_run = 250;  // int8 integers on the int16 run: refused where an offset is not 0
  Write("mul-s8-wrong-run", kElementwise, c);
}

// Fixed-point RoPE: nominal scales (x with a zero point of its own for
// int8), a valid position, patterned values.
QuantRopeCase Rope(bool int16, int32_t tokens, int32_t heads, int32_t d_head, int32_t table) {
  QuantRopeCase c;
  c.dtype_kind = int16 ? 150 : 10;
  if (!int16) c.quant[0].zp_value = 5;
  c.quant[3].jitter = 3;
  c.n_tokens = tokens;
  c.n_heads = heads;
  c.d_head = d_head;
  c.table_positions = table;
  c.position_value = 7;
  const size_t eb = int16 ? 2 : 1;
  for (size_t i = 0; i < kMaxRopeValueBytes; ++i) {
    if (i < static_cast<size_t>(tokens) * heads * d_head * eb) {
      c.x_values.push_back(static_cast<uint8_t>(29 * i + 3));
    }
    if (i < static_cast<size_t>(table) * d_head * eb) {
      c.cos_values.push_back(static_cast<uint8_t>(53 * i + 1));
      c.sin_values.push_back(static_cast<uint8_t>(71 * i + 9));
    }
  }
  return c;
}

// A RopePlacement as QuantRopeCase::placement (>= 128 selects it).
uint8_t RopePlacementByte(RopePlacement placement) { return static_cast<uint8_t>(128 + placement); }

void RopeSeeds() {
  QuantRopeCase c = Rope(false, 3, 2, 8, 10);
  Write("rope-s8-half", kQuantRope, c);
  c = Rope(true, 2, 3, 66, 5);  // 33 pairs: past the kernel's block of 32
  c.layout_kind = 130;
  Write("rope-s16-interleaved-long-head", kQuantRope, c);
  c = Rope(true, 4, 1, 6, 9);
  c.placement = RopePlacementByte(kRopeOneTable);
  c.value_mode = 1;  // the extremes
  Write("rope-s16-one-table-extremes", kQuantRope, c);
  c = Rope(false, 2, 2, 4, 6);
  c.placement = RopePlacementByte(kRopeOverCos);
  c.shift = 16 + 5;  // x 5 elements into C: refused
  Write("rope-s8-x-over-cos", kQuantRope, c);
  c = Rope(false, 2, 2, 4, 6);
  c.placement = RopePlacementByte(kRopeOverSin);
  c.shift = 16 + 3;  // x 3 elements into S: refused
  Write("rope-s8-x-over-sin", kQuantRope, c);
  c = Rope(false, 2, 2, 4, 6);
  c.placement = RopePlacementByte(kRopeOverSin);
  c.shift = 16 + 24;  // x just past S: accepted
  Write("rope-s8-x-beside-sin", kQuantRope, c);
  c = Rope(false, 3, 1, 8, 10);
  c.position_kind = 200;
  c.position_value = 8;  // rows 8..10 of a 10-row table
  Write("rope-s8-position-past-table", kQuantRope, c);
  c = Rope(false, 2, 1, 7, 4);
  Write("rope-s8-odd-d-head", kQuantRope, c);
  c = Rope(false, 2, 2, 8, 4);
  c.wrong_run = 250;  // int8 zero point offsets on the int16 run
  Write("rope-s8-wrong-run", kQuantRope, c);
  c = Rope(true, 2, 1 << 28, 8, 4);
  Write("rope-s16-heads-overflow", kQuantRope, c);
  c = Rope(false, 1, 1, 2, 1);
  c.params_kind = 200;  // given: ADD's left shift 21
  c.edit_count = 1;
  c.edits[0].field = 10;
  c.edits[0].value_kind = 200;
  c.edits[0].value = 21;
  Write("rope-s8-add-left-shift-given", kQuantRope, c);
}

void ApiSeeds() {
  ApiCase c;
  c.status_value = 12345;
  c.arena_misalign = 3;
  c.arena_capacity = 1000;
  c.n_positions = 17;
  c.d_model = 9;
  Write("api-basic", kApi, c);
  c = ApiCase();
  c.n_positions = 1 << 20;
  c.d_model = 1 << 10;
  c.arena_flags = 3;
  Write("api-table-overflow", kApi, c);
  c = ApiCase();
  c.status_value = -1;
  c.n_positions = 0;
  c.d_model = -64;
  c.table_flags = 1;
  Write("api-bad-table", kApi, c);
  c = ApiCase();
  c.rope_positions = 40;
  c.rope_d_head = 8;
  c.rope_tokens = 3;
  c.rope_heads = 2;
  c.rope_first_kind = 128;  // the table's last rows
  c.rope_values = {1, 200, 37, 90};
  c.alibi_heads = 12;
  Write("api-rope-half-last-rows", kApi, c);
  c.rope_layout = EA_ROPE_INTERLEAVED;
  c.rope_first_kind = 1;   // one row past the table
  c.rope_base_kind = 230;  // an edge base
  c.alibi_heads = 64;
  Write("api-rope-interleaved-past-the-table", kApi, c);
  c = ApiCase();
  c.rope_positions = 7;
  c.rope_d_head = 6;
  c.rope_tokens = 7;
  c.rope_flags = 8;  // x inside the table
  c.environment_kind = 1;
  c.cap_name = {'A', 'V', 'X', '5', '1', '2', 0, 0};
  Write("api-rope-x-over-table-simd-typo", kApi, c);
}

// Weight files: the family byte, the MHA shape byte (n_heads = 1 + b % 4,
// d_model = n_heads (1 + (b >> 2) % 16): 39 is the sample's 4 heads of 10),
// then the file's bytes.
void WriteRaw(const char* name, uint8_t operation, uint8_t shape, const unsigned char* bytes,
              size_t size) {
  if (std::string(name).compare(0, g_prefix.size(), g_prefix) != 0) return;
  // Reproducers of open known defects only when asked for by their prefix.
  if (std::string(name).compare(0, 6, "known-") == 0 && g_prefix.compare(0, 6, "known-") != 0) {
    return;
  }
  const std::string path = g_directory + "/" + name;
  FILE* file = fopen(path.c_str(), "wb");
  if (file == nullptr || fputc(operation, file) == EOF || fputc(shape, file) == EOF ||
      fwrite(bytes, 1, size, file) != size) {
    fprintf(stderr, "make_seeds: cannot write %s\n", path.c_str());
    exit(1);
  }
  fclose(file);
  ++g_written;
}

void WeightFileSeeds() {
  WriteRaw("weight-file-safetensors", kWeightFile, 39, kSampleSafetensors, kSampleSafetensors_size);
  WriteRaw("weight-file-blob", kWeightFile, 39, kSampleBlob, kSampleBlob_size);
  // The blob's header and first two table entries only: a truncated file.
  WriteRaw("weight-file-blob-truncated", kWeightFile, 39, kSampleBlob, 64 + 2 * 192);
  // A small safetensors file: metadata, one F32 [1, 2] tensor.
  std::string json =
      R"({"w":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]},"__metadata__":{"k":"v"}})";
  json.append((8 - json.size() % 8) % 8, ' ');
  std::string file(8, '\0');
  for (int i = 0; i < 8; ++i) file[i] = static_cast<char>(json.size() >> (8 * i));
  file += json;
  file.append("\0\0\x80\x3f\0\0\0\x40", 8);  // 1.0f, 2.0f
  WriteRaw("weight-file-small-safetensors", kWeightFile, 5,
           reinterpret_cast<const unsigned char*>(file.data()), file.size());
}

// Structured weight files (weight_file_case.h), prefix weights-: the MHA
// tensors of d_model 8 (2 heads) under "attn.", then one hostile edit each.
WeightFileInput WeightMha(bool blob) {
  WeightFileInput in;
  in.c.format = blob ? 128 : 0;
  in.c.count = 4;
  in.c.prefix = 1;
  for (uint8_t i = 0; i < 4; ++i) {
    in.c.tensors[i].name = i;  // kNameInProjWeight .. kNameOutProjBias
    in.c.tensors[i].escape = i;
  }
  return in;
}

WeightFileInput WeightEdited(bool blob, uint8_t kind, uint8_t at, uint32_t value) {
  WeightFileInput in = WeightMha(blob);
  in.c.edit_count = 1;
  in.c.edits[0] = WeightEdit{kind, at, value};
  return in;
}

void StructuredWeightSeeds() {
  WeightFileInput in = WeightMha(false);
  Write("weights-st-mha", kWeightFile, in);
  in = WeightMha(true);
  in.c.tensors[0].layout = 230;
  in.c.tensors[2].layout = 230;
  Write("weights-blob-mha-packed", kWeightFile, in);
  in = WeightMha(false);
  in.c.heads = 4;
  in.c.kv_heads = 2;
  Write("weights-st-gqa", kWeightFile, in);
  // W_Q, W_K, W_V as three tensors, GQA widths: PyTorch's kdim names (with
  // in_proj_bias), then Hugging Face's (k_proj without a bias, no out bias).
  const auto three_names = [](uint8_t naming, bool hf_biases) {
    WeightFileInput three = WeightMha(false);
    three.c.heads = 4;
    three.c.kv_heads = 2;
    three.c.count = 6;
    const uint8_t names[6] = {kNameInProjWeight,
                              kNameInProjWeight,
                              kNameInProjWeight,
                              kNameInProjBias,
                              hf_biases ? kNameInProjBias : kNameOutProjWeight,
                              hf_biases ? kNameOutProjWeight : kNameOutProjBias};
    const uint8_t parts[6] = {0, 1, 2, 0, 2, 0};
    for (int i = 0; i < 6; ++i) {
      three.c.tensors[i] = WeightTensor{};
      three.c.tensors[i].name = names[i];
      const bool qkv = names[i] == kNameInProjWeight || names[i] == kNameInProjBias;
      three.c.tensors[i].escape = qkv ? static_cast<uint8_t>(4 * naming + 16 * parts[i]) : 0;
    }
    return three;
  };
  Write("weights-st-mha-kdim-names", kWeightFile, in = three_names(kNamingKdim, false));
  Write("weights-st-mha-hugging-face-names", kWeightFile,
        in = three_names(kNamingHuggingFace, true));
  in = WeightMha(false);
  in.c.count = 8;
  for (uint8_t i = 4; i < 8; ++i) {
    in.c.tensors[i].name = kNameUnicode;
    in.c.tensors[i].escape = static_cast<uint8_t>(i * 5);
    in.c.tensors[i].dtype = static_cast<uint8_t>(i);
    in.c.tensors[i].rank = 2;
    in.c.tensors[i].dims[0] = 3;
    in.c.tensors[i].dims[1] = static_cast<uint8_t>(i - 4);  // a 0: empty
  }
  Write("weights-st-unicode-empty", kWeightFile, in);
  in.c.order = 200;  // data as listed: F32 after I8 and F16
  in.c.padding = 203;
  Write("weights-st-unaligned", kWeightFile, in);
  Write("weights-st-duplicate-escaped", kWeightFile,
        in = WeightEdited(false, kEditDuplicateName, 1, 3 | 1 << 8));
  Write("weights-blob-duplicate", kWeightFile, in = WeightEdited(true, kEditDuplicateName, 0, 2));
  Write("weights-st-overlap", kWeightFile, in = WeightEdited(false, kEditShiftRange, 2, 0xFCFC));
  Write("weights-st-hole-after", kWeightFile, in = WeightEdited(false, kEditTrailingBytes, 0, 3));
  Write("weights-st-truncated", kWeightFile, in = WeightEdited(false, kEditTruncate, 0, 200));
  Write("weights-st-lone-surrogate", kWeightFile, in = WeightEdited(false, kEditInsertText, 1, 0));
  Write("weights-st-nul-escape", kWeightFile, in = WeightEdited(false, kEditInsertText, 1, 2));
  Write("weights-st-insert-2-63", kWeightFile, in = WeightEdited(false, kEditInsertText, 30, 16));
  Write("weights-st-deep-metadata", kWeightFile,
        in = WeightEdited(false, kEditDeepMetadata, 0, 4));  // 64 levels: accepted
  Write("weights-st-too-deep-metadata", kWeightFile,
        in = WeightEdited(false, kEditDeepMetadata, 0, 5));
  Write("weights-st-long-name", kWeightFile, in = WeightEdited(false, kEditLongName, 3, 6));
  Write("weights-st-huge-dims", kWeightFile, in = WeightEdited(false, kEditHugeDims, 1, 0x156));
  Write("weights-st-swapped-ranges", kWeightFile, in = WeightEdited(false, kEditSwapRanges, 1, 3));
  Write("weights-blob-file-bytes-edge", kWeightFile,
        in = WeightEdited(true, kEditHeaderField, 2, 9));
  in = WeightMha(false);
  in.c.metadata = 4;  // __metadata__ first and last
  Write("weights-st-metadata-twice", kWeightFile, in);
  in = WeightMha(false);
  in.c.bulk = 243;  // 212 more tensors: past the plain open's 128
  in.c.scratch = kScratchShort;
  Write("weights-st-bulk", kWeightFile, in);
  in = WeightEdited(true, kEditDuplicateName, 0, 3);
  in.c.bulk = 241;
  in.c.scratch = kScratchGenerous;
  in.c.calls = 7;
  Write("weights-blob-bulk-duplicate", kWeightFile, in);
}

}  // namespace

// Fixed-point Attention(Q, K, V) (fuzz_quant_attention.cc).
QuantAttentionCase QuantAttention(bool int16, int n_q, int n_kv, int d_k, int d_v, bool causal) {
  QuantAttentionCase c;
  c.dtype_kind = int16 ? 150 : 10;
  c.n_q = n_q;
  c.n_kv = n_kv;
  c.d_k = d_k;
  c.d_v = d_v;
  c.mask = causal ? EA_MASK_CAUSAL : EA_MASK_NONE;
  c.want_weights = 200;
  c.value_seed = 91;
  for (int i = 0; i < kQuantAttentionTensors; ++i) {
    c.tensors[i].zp_value = static_cast<uint8_t>(23 * i + 5);
  }
  return c;
}

void QuantAttentionSeeds() {
  QuantAttentionCase c = QuantAttention(false, 5, 9, 8, 8, false);
  Write("quant-attention-s8-basic", kQuantAttention, c);
  c = QuantAttention(true, 3, 17, 8, 5, true);
  Write("quant-attention-s16-causal", kQuantAttention, c);
  c = QuantAttention(false, 17, 3, 16, 16, true);  // rows 0..13 see no key
  Write("quant-attention-s8-causal-more-queries", kQuantAttention, c);
  c = QuantAttention(false, 40, 70, 24, 7, true);
  c.workers = 3;
  Write("quant-attention-s8-70-keys-3-workers", kQuantAttention, c);
  c = QuantAttention(false, 20, 70, 24, 7, true);
  c.n_valid = RunLength{200, 37};  // padding crosses the causal diagonal of every row
  Write("quant-attention-s8-causal-padded-keys", kQuantAttention, c);
  c = QuantAttention(true, 6, 33, 8, 4, false);
  c.n_valid = RunLength{200, 17};
  Write("quant-attention-s16-padded-keys", kQuantAttention, c);
  c = QuantAttention(false, 5, 9, 8, 8, false);
  c.n_valid = RunLength{250, 10};  // n_kv + 1
  Write("quant-attention-s8-valid-keys-past-n-kv", kQuantAttention, c);
  c = QuantAttention(true, 6, 10, 8, 4, false);
  c.scale_kind = 130;  // ScaleValue: kScales[bits % 8]
  c.scale_bits = 5;    // 10
  Write("quant-attention-s16-scale-10", kQuantAttention, c);
  c = QuantAttention(false, 4, 4, 4, 4, false);
  c.scale_kind = 200;  // kBadScales[0]: NaN
  Write("quant-attention-s8-scale-nan", kQuantAttention, c);
  c = QuantAttention(false, 4, 6, 4, 4, true);
  c.tensors[3].kind = 224 + 3;  // scores' scale NaN
  Write("quant-attention-s8-scores-scale-nan", kQuantAttention, c);
  c = QuantAttention(true, 4, 6, 4, 4, true);
  c.tensors[1].zp_kind = 192 + 4;  // k's zero point 1 (int16: 0 only)
  Write("quant-attention-s16-zero-point-1", kQuantAttention, c);
  c = QuantAttention(false, 6, 8, 8, 8, true);
  c.params_kind = 200;
  c.edit_count = 2;
  c.edits[0] = ParamEdit{12, 0, 250, -5};  // softmax left shift: refused
  c.edits[1] = ParamEdit{4, 0, 40, 3};     // scores shift + 3
  Write("quant-attention-s8-given-edited", kQuantAttention, c);
  c = QuantAttention(true, 6, 8, 8, 8, false);
  c.params_kind = 200;
  c.edit_count = 1;
  c.edits[0] = ParamEdit{8, 0, 40, -1};  // context shift - 1
  Write("quant-attention-s16-given", kQuantAttention, c);
  c = QuantAttention(false, 4, 6, 4, 4, false);
  c.out = Over(1, 2);  // over q
  Write("quant-attention-s8-out-over-q", kQuantAttention, c);
  c = QuantAttention(false, 4, 6, 4, 4, false);
  c.k = Over(1, 1);  // k partly over q: inputs may share bytes
  Write("quant-attention-s8-k-over-q", kQuantAttention, c);
  c = QuantAttention(true, 4, 6, 4, 4, false);
  c.q = Over(0, 16);  // q in the plan's carve
  Write("quant-attention-s16-q-in-arena", kQuantAttention, c);
  c = QuantAttention(false, 4, 6, 4, 4, false);
  c.weights = Over(4, 0);  // attn_weights over out
  Write("quant-attention-s8-weights-over-out", kQuantAttention, c);
  c = QuantAttention(false, 4, 6, 4, 4, false);
  c.wrong_run = 250;
  Write("quant-attention-s8-run-s16", kQuantAttention, c);
  c = QuantAttention(true, 4, 6, 4, 4, false);
  c.arena.capacity_mode = 5;
  Write("quant-attention-s16-arena-too-small", kQuantAttention, c);
  c = QuantAttention(false, 4, 6, 4, 4, true);
  c.common.replan = 200;
  c.common.replan_field = 2;  // n_kv
  c.common.replan_value = -3;
  Write("quant-attention-s8-replan-broken", kQuantAttention, c);
  c = QuantAttention(false, 16384, 16385, 1, 1, false);  // probabilities past 2^28
  Write("quant-attention-s8-weights-overflow", kQuantAttention, c);
  c = QuantAttention(true, 1, 65536, 1, 1, false);
  Write("quant-attention-s16-65536-keys", kQuantAttention, c);
}

// The fixed-point MHA decoder's API (fuzz_quant_decoder.cc).
QuantDecoderOp DecoderStep(uint8_t count_kind, uint32_t x_seed, int32_t count = 0) {
  QuantDecoderOp op;
  op.kind = kQuantDecoderStep;
  op.count_kind = count_kind;
  op.count_value = count;
  op.x_seed = x_seed;
  return op;
}
QuantDecoderOp DecoderOp(uint8_t kind) {
  QuantDecoderOp op;
  op.kind = kind;
  return op;
}
constexpr uint8_t kWrongStepKind = 160, kResetKind = 176, kReinitKind = 216;

QuantDecoderCase QuantDecoder(bool int16, int max_tokens, int d_model, uint8_t heads_kind,
                              int max_step) {
  QuantDecoderCase c;
  c.dtype_kind = int16 ? 150 : 10;
  c.max_tokens = max_tokens;
  c.d_model = d_model;
  c.heads_kind = heads_kind;
  c.position = EA_POSITION_SINUSOIDAL;
  c.step_kind = 0;
  c.step_value = max_step - 1;  // 1 + step_value % max_tokens
  c.quant = SeedQuant(3, 81);
  for (int i = 0; i < kQuantTensors; ++i) c.tensors[i].zp_value = static_cast<uint8_t>(13 * i);
  c.op_count = 6;
  c.ops[0] = DecoderStep(0, 3);
  c.ops[1] = DecoderStep(0, 1);
  c.ops[2] = DecoderStep(0, 2);
  c.ops[3] = DecoderOp(kResetKind);
  c.ops[4] = DecoderStep(0, 7);
  c.ops[5] = DecoderStep(0, 2);
  return c;
}

void QuantDecoderSeeds() {
  QuantDecoderCase c = QuantDecoder(false, 12, 8, 1, 4);
  Write("quant-decoder-s8-steps-reset", kQuantDecoder, c);
  c = QuantDecoder(true, 12, 8, 1, 4);
  Write("quant-decoder-s16-steps-reset", kQuantDecoder, c);
  c = QuantDecoder(false, 9, 6, 2, 3);
  c.op_count = 8;
  c.ops[0] = DecoderStep(150, 0);  // 0 tokens
  c.ops[1] = DecoderStep(170, 0);  // -1
  c.ops[2] = DecoderStep(180, 0);  // max_step_tokens + 1
  c.ops[3] = DecoderStep(200, 0);  // past the stream's capacity
  c.ops[4] = DecoderStep(230, 0, INT32_MIN);
  c.ops[5] = DecoderStep(210, 0);  // a full step
  c.ops[5].kind = kWrongStepKind;  // ... through the other dtype's function
  c.ops[6] = DecoderStep(210, 4);  // 3 tokens
  c.ops[7] = DecoderStep(200, 5);  // 7 left: 8 is past them
  Write("quant-decoder-s8-step-counts", kQuantDecoder, c);
  c = QuantDecoder(true, 6, 4, 0, 3);
  c.op_count = 4;
  c.ops[0] = DecoderStep(210, 1);
  c.ops[1] = DecoderStep(210, 2);
  c.ops[2] = DecoderStep(0, 3);  // the stream is full: CACHE_FULL
  c.ops[3] = DecoderStep(210, 4);
  Write("quant-decoder-s16-cache-full", kQuantDecoder, c);
  c = QuantDecoder(false, 10, 8, 1, 5);
  c.op_count = 5;
  c.ops[0] = DecoderStep(0, 1);
  c.ops[1] = DecoderOp(kReinitKind);
  c.ops[1].reinit_field = 8;  // max_step_tokens
  c.ops[1].reinit_value = 0;
  c.ops[2] = DecoderStep(0, 2);  // not ready
  c.ops[3] = DecoderOp(kReinitKind);
  c.ops[3].reinit_field = 250;  // the good config again
  c.ops[4] = DecoderStep(0, 3);
  Write("quant-decoder-s8-reinit-broken-then-good", kQuantDecoder, c);
  c = QuantDecoder(true, 10, 8, 1, 5);
  c.op_count = 2;
  c.ops[0] = DecoderOp(kReinitKind);
  c.ops[0].reinit_field = 1;  // max_tokens
  c.ops[0].reinit_value = -1;
  c.ops[1] = DecoderOp(kResetKind);  // not ready
  Write("quant-decoder-s16-reinit-broken-reset", kQuantDecoder, c);
  // A sliding window of 3 over a stream of 20 in steps up to 4: the ring of
  // 6 positions wraps, mid-step too; then a reset and the same again.
  for (const bool int16 : {false, true}) {
    c = QuantDecoder(int16, 20, 8, 1, 4);
    c.window_kind = 98;  // 1 + 2 % 16
    c.op_count = 8;
    for (int i = 0; i < 8; ++i) c.ops[i] = DecoderStep(210, static_cast<uint32_t>(i));
    c.ops[5] = DecoderOp(kResetKind);
    Write(int16 ? "quant-decoder-s16-window-ring-wraps" : "quant-decoder-s8-window-ring-wraps",
          kQuantDecoder, c);
  }
  c = QuantDecoder(false, 9, 6, 2, 3);
  c.window_kind = 230;  // window_raw
  c.window_raw = -1;
  Write("quant-decoder-s8-negative-window", kQuantDecoder, c);
  // Grouped-query heads: 4 heads of 4 on 2 KV heads (int8, with a window of
  // 5 whose ring wraps) and on 1 (int16, multi-query), steps up to 4.
  for (const bool int16 : {false, true}) {
    c = QuantDecoder(int16, 20, 16, 2, 4);  // heads: the divisor 4 of 16
    c.kv_kind = int16 ? 96 : 97;            // the divisors 1 and 2 of 4 heads
    c.window_kind = int16 ? 0 : 100;        // no window; 1 + 4 % 16 = 5
    c.op_count = 8;
    for (int i = 0; i < 8; ++i) c.ops[i] = DecoderStep(210, static_cast<uint32_t>(i));
    c.ops[6] = DecoderOp(kResetKind);
    Write(int16 ? "quant-decoder-s16-multi-query" : "quant-decoder-s8-grouped-window",
          kQuantDecoder, c);
  }
  // KV heads that do not divide the heads, and negative ones: refused.
  c = QuantDecoder(false, 9, 16, 2, 3);
  c.kv_kind = 240;  // kv_raw
  c.kv_raw = 3;
  Write("quant-decoder-s8-kv-heads-mismatch", kQuantDecoder, c);
  c.kv_raw = -2;
  Write("quant-decoder-s8-negative-kv-heads", kQuantDecoder, c);
  c = QuantDecoder(false, 10, 8, 1, 4);
  c.op_count = 5;
  c.ops[0] = DecoderStep(210, 1);
  c.ops[0].y = Over(5, 0);  // in place: over this step's x (after arena, weights, biases)
  c.ops[1] = DecoderStep(210, 2);
  c.ops[1].y = Over(5, 3);  // partly over x
  c.ops[2] = DecoderStep(0, 3);
  c.ops[2].x = Over(0, 8);  // x in the decoder's carve
  c.ops[3] = DecoderStep(0, 4);
  c.ops[3].y = Over(1, 0);  // y over in_proj_weight
  c.ops[4] = DecoderStep(0, 5);
  c.ops[4].x = Over(3, 0);  // x over in_proj_bias
  Write("quant-decoder-s8-overlaps", kQuantDecoder, c);
  c = QuantDecoder(false, 8, 8, 1, 4);
  c.kept_kind = 225;  // in_proj_weight (225 % 5 == 0) inside the carve
  c.kept_offset = 1;
  Write("quant-decoder-s8-in-proj-in-carve", kQuantDecoder, c);
  c = QuantDecoder(true, 8, 8, 1, 4);
  c.kept_kind = 229;  // the caller's table (229 % 5 == 4) inside the arena
  c.table_kind = 200;
  c.position = EA_POSITION_LEARNED;
  c.kept_offset = 74;  // past the carve (4672 bytes), inside the arena's spare 1000: accepted
  c.quant.arena.capacity_mode = 4;
  c.quant.arena.capacity_delta = 1000;
  Write("quant-decoder-s16-learned-table-in-arena", kQuantDecoder, c);
  // 0.19.0's finding: an int64 bias kept in an arena 4 bytes off its
  // alignment was read by init's range check (UBSan: misaligned load).
  c.kept_kind = 227;             // in_proj_bias (227 % 5 == 2)
  c.quant.arena.misalign = 192;  // 1 + 192 % 63 = 4 bytes off
  Write("quant-decoder-s16-bias-in-misaligned-arena", kQuantDecoder, c);
  c = QuantDecoder(false, 8, 8, 1, 4);
  c.step_kind = 200;  // Dim: max_step_tokens past max_tokens
  c.step_value = 9;
  Write("quant-decoder-s8-max-step-9-of-8", kQuantDecoder, c);
  c = QuantDecoder(false, 8, 8, 1, 4);
  c.dtype_kind = 230;  // F32
  Write("quant-decoder-f32", kQuantDecoder, c);
  c = QuantDecoder(true, 8, 8, 1, 4);
  c.quant.params_kind = 200;  // the integers given
  c.quant.edit_count = 1;
  c.quant.edits[0] = ParamEdit{14, 0, 40, 1};  // scores shift + 1
  c.position = EA_POSITION_NONE;
  Write("quant-decoder-s16-given-params-no-positions", kQuantDecoder, c);
  c = QuantDecoder(false, 70000, 1, 0, 4);
  Write("quant-decoder-s8-max-tokens-70000", kQuantDecoder, c);
  c = QuantDecoder(false, 8, 8, 1, 4);
  c.common.null_select = 240;
  c.common.null_bits = kNullInput2;  // the weights struct
  Write("quant-decoder-s8-null-weights", kQuantDecoder, c);
  // RoPE (0.29.0): q and k rotated by the model's tables, both layouts, a
  // stream with a reset; grouped heads under a wrapping window; the
  // integers given; then each rule broken once.
  c = QuantDecoder(false, 12, 8, 1, 4);
  c.rope_kind = 130;  // HALF
  Write("quant-decoder-s8-rope-half-steps-reset", kQuantDecoder, c);
  c = QuantDecoder(true, 12, 8, 1, 4);
  c.rope_kind = 200;  // INTERLEAVED
  Write("quant-decoder-s16-rope-interleaved-steps-reset", kQuantDecoder, c);
  for (const bool int16 : {false, true}) {
    c = QuantDecoder(int16, 20, 16, 2, 4);  // 4 heads of 4
    c.kv_kind = 97;                         // on 2 KV heads
    c.window_kind = 100;                    // a window of 5: the ring wraps
    c.rope_kind = int16 ? 130 : 200;
    c.op_count = 8;
    for (int i = 0; i < 8; ++i) c.ops[i] = DecoderStep(210, static_cast<uint32_t>(i));
    c.ops[6] = DecoderOp(kResetKind);
    Write(int16 ? "quant-decoder-s16-rope-half-grouped-window"
                : "quant-decoder-s8-rope-interleaved-grouped-window",
          kQuantDecoder, c);
  }
  c = QuantDecoder(true, 8, 8, 1, 4);
  c.rope_kind = 130;
  c.quant.params_kind = 200;  // the integers given
  Write("quant-decoder-s16-rope-given-params", kQuantDecoder, c);
  const char* const rope_faults[5] = {"one-table", "no-scales", "k-on-other-x", "tiny-product",
                                      "scales-without-tables"};
  for (int fault = 0; fault < 5; ++fault) {
    c = QuantDecoder(fault % 2 == 1, 8, 8, 1, 4);
    c.rope_kind = 130;
    c.rope_fault = static_cast<uint8_t>(225 + fault);  // 225 % 5 == 0
    const std::string name =
        std::string(fault % 2 == 1 ? "quant-decoder-s16-rope-" : "quant-decoder-s8-rope-") +
        rope_faults[fault];
    Write(name.c_str(), kQuantDecoder, c);
  }
  c = QuantDecoder(false, 8, 8, 1, 4);
  c.rope_kind = 250;  // rope_raw as the layout
  c.rope_raw = 7;
  Write("quant-decoder-s8-rope-bad-layout", kQuantDecoder, c);
  c = QuantDecoder(false, 8, 6, 1, 4);  // heads 2 of d_k 3
  c.rope_kind = 130;
  Write("quant-decoder-s8-rope-odd-d-k", kQuantDecoder, c);
  c = QuantDecoder(false, 8, 2, 1, 4);  // heads 2 of d_k 1: no pair at all
  c.rope_kind = 200;
  Write("quant-decoder-s8-rope-d-k-1", kQuantDecoder, c);
}

// --- MHA decoder and cross-attention (decoder_case.h)

PlanOp Call(int32_t n, uint32_t seed) {
  PlanOp op;
  op.kind = 0;
  op.length_kind = 240;  // n as given
  op.length_value = n;
  op.x_values = Normal(seed);
  return op;
}
PlanOp InPlace(PlanOp op) {
  op.y_mode = 150;
  return op;
}
PlanOp PlacedOutput(PlanOp op, Placement y) {
  op.y_mode = 200;
  op.y = y;
  return op;
}
PlanOp OpNulls(PlanOp op, uint8_t bits) {
  op.null_select = 240;
  op.null_bits = bits;
  return op;
}
PlanOp Kind(uint8_t kind) {
  PlanOp op;
  op.kind = kind;
  return op;
}
constexpr uint8_t kDecoderResetKind = 170, kDecoderReinitKind = 220;
constexpr uint8_t kCrossRunKind = 150, kCrossReinitKind = 240;

// Candidates of a decoder's placements: 0 the arena, 1 in_proj_weight,
// 2 in_proj_bias, 3 out_proj_weight, 4 out_proj_bias, then the caller's
// position table, the RoPE table and the slopes (those present), then each
// earlier op's x and y.
DecoderCase Decoder(int32_t heads, int32_t kv_heads, int32_t d_head, int32_t max_positions,
                    int32_t max_tokens, int32_t window, int32_t storage, int32_t position,
                    const std::vector<PlanOp>& ops) {
  DecoderCase c;
  c.n_heads = heads;
  c.kv_kind = 250;
  c.n_kv_heads = kv_heads;
  c.head_kind = static_cast<uint8_t>(d_head - 1);
  c.max_positions = max_positions;
  c.tokens_kind = 250;
  c.max_tokens = max_tokens;
  c.window_kind = window != 0 ? 250 : 0;
  c.window = window;
  c.storage = storage;
  c.position = position;
  c.w_values[0] = Normal(11, 8);  // sigma 1/4: projections near unit size
  c.w_values[1] = Normal(12, 8);
  c.b_values[0] = Normal(13, 7);
  c.b_values[1] = Normal(14, 7);
  c.op_count = static_cast<uint8_t>(ops.size());
  for (size_t i = 0; i < ops.size() && i < kMaxDecoderOps; ++i) c.ops[i] = ops[i];
  return c;
}

void DecoderSeeds() {
  DecoderCase c = Decoder(4, 2, 4, 24, 3, 0, kF32, EA_POSITION_NONE,
                          {Call(1, 20), Call(3, 21), Call(2, 22), Call(1, 23),
                           Kind(kDecoderResetKind), Call(3, 24), Call(1, 25)});
  Write("mha-decoder-f32-steps-reset", kMhaDecoder, c);
  c = Decoder(
      2, 1, 4, 30, 2, 5, kF16, EA_POSITION_NONE,
      {Call(2, 30), Call(1, 31), Call(2, 32), Call(2, 33), Call(1, 34), Call(2, 35), Call(2, 36)});
  c.rope_kind = 128;   // base 10000
  c.alibi_kind = 170;  // ea_alibi_slopes_fill
  Write("mha-decoder-f16-rope-alibi-window-ring", kMhaDecoder, c);
  c.rope_layout = EA_ROPE_INTERLEAVED;
  c.storage = kInt8;
  c.n_kv_heads = 2;
  c.alibi_kind = 220;  // the case's slopes
  c.alibi_values = Normal(37, 9);
  Write("mha-decoder-int8-rope-interleaved-own-slopes", kMhaDecoder, c);
  c = Decoder(3, 3, 2, 16, 4, 0, kInt8, EA_POSITION_SINUSOIDAL,
              {Call(4, 40), Call(1, 41), Call(3, 42), Call(4, 43)});
  c.weights_layout = EA_WEIGHTS_PACKED;
  Write("mha-decoder-int8-sinusoid-arena-packed", kMhaDecoder, c);
  c.storage = kInt4;
  Write("mha-decoder-int4-sinusoid-arena-packed", kMhaDecoder, c);
  // A finding of 0.18.0's fuzzing, kept as a regression case: int4 at d_head 2
  // whose in_proj weights (special values among them) give score terms that
  // cancel near 1e20. The decoder check summed H q . k' where its reference
  // summed q . k, and the different rounding moved the softmax: the check's
  // own pipeline no longer equalled its reference (decoder_check.cc now
  // scores the reference's stored values in the reference's order).
  c = Decoder(3, 3, 2, 16, 4, 0, kInt4, EA_POSITION_SINUSOIDAL,
              {Call(4, 1763705600), Call(1, 0), Call(1, 0), Call(1, 0), Call(3, 0), Call(3, 0),
               Call(1, 0), Call(1, 0), Call(1, 0), Call(1, 0)});
  c.biases = 0;
  c.rerun = 7;
  c.w_values[0].mode = kPerElement;
  c.w_values[0].elements = {
      0, 0,  0,  0,  0,  17, 0,   0,   2,   34,  0,   0,   0,   0,  0,  0,  0,  0,  0,  0,  0,   0,
      8, 8,  8,  8,  8,  8,  8,   8,   8,   8,   0,   32,  0,   7,  0,  0,  0,  0,  0,  7,  0,   0,
      0, 0,  0,  0,  1,  0,  254, 255, 255, 255, 255, 255, 255, 31, 0,  0,  96, 0,  0,  0,  0,   8,
      0, 0,  0,  0,  4,  0,  240, 4,   0,   0,   0,   0,   0,   0,  0,  0,  0,  0,  10, 40, 255, 0,
      0, 76, 76, 76, 76, 76, 76,  76,  76,  76,  76,  76,  76,  76, 76, 76, 77, 76, 76, 76};
  c.w_values[1] = WithSpecial(759975005, 19532, 76);
  c.w_values[1].magnitude = 56;
  c.ops[0].x_values.magnitude = 7;
  c.ops[1].x_values = WithSpecial(1280068684, 19532, 76);
  c.ops[1].x_values.magnitude = 76;
  for (int i = 2; i < 10; ++i) c.ops[i].x_values.magnitude = 0;
  Write("mha-decoder-int4-d2-cancelling-scores", kMhaDecoder, c);
  c = Decoder(2, 2, 4, 12, 3, 0, kF16, EA_POSITION_LEARNED,
              {InPlace(Call(3, 50)), InPlace(Call(2, 51)), Call(3, 52)});
  c.table_kind = 200;
  c.table_values = Normal(53, 9);
  Write("mha-decoder-learned-in-place", kMhaDecoder, c);
  c = Decoder(4, 0, 4, 12, 2, 3, kF32, EA_POSITION_NONE, {Call(2, 44), Call(1, 45), Call(2, 46)});
  c.rope_kind = 128;  // n_kv_heads 0: as many KV heads as query heads
  Write("mha-decoder-f32-kv-heads-zero", kMhaDecoder, c);
  c = Decoder(6, 1, 2, 70, 6, 0, kF32, EA_POSITION_SINUSOIDAL,
              {Call(6, 60), Call(6, 61), Call(6, 62), Call(6, 63), Call(6, 64), Call(6, 65),
               Call(6, 66), Call(6, 67), Call(6, 68), Call(6, 69)});
  c.table_kind = 200;  // the caller's sinusoid: any values
  c.table_values = Normal(70, 8);
  Write("mha-decoder-mqa-caller-table-64-positions", kMhaDecoder, c);
  c = Decoder(1, 1, 4, 5, 2, 0, kF32, EA_POSITION_NONE,
              {Call(2, 80), Call(2, 81), Call(2, 82), Call(1, 83), Call(1, 84)});
  Write("mha-decoder-cache-full", kMhaDecoder, c);
  c = Decoder(1, 1, 4, 8, 2, 3, kF32, EA_POSITION_NONE,
              {Call(2, 85), Call(2, 86), Call(2, 87), Call(2, 88), Call(1, 89)});
  Write("mha-decoder-window-then-full", kMhaDecoder, c);
  c = Decoder(2, 2, 2, 8, 2, 0, kF32, EA_POSITION_NONE, {Call(1, 90), Call(2, 91)});
  c.ops[1].x = Over(0, 24);  // x inside the carve
  Write("mha-decoder-x-in-carve", kMhaDecoder, c);
  c.ops[1].x = Placement{};
  c.ops[1] = PlacedOutput(c.ops[1], Over(0, 40));  // y inside the carve
  Write("mha-decoder-y-in-carve", kMhaDecoder, c);
  c = Decoder(2, 2, 2, 8, 2, 0, kF32, EA_POSITION_NONE, {Call(1, 92), Call(2, 93)});
  c.ops[1].x = Over(1, 3);  // x over in_proj_weight: refused
  Write("mha-decoder-x-over-weights", kMhaDecoder, c);
  c.ops[1].x = Placement{};
  c.ops[1] = PlacedOutput(c.ops[1], Over(5, 1));  // candidate 5: op0 x; 7: this x
  c.ops[1].y = Over(7, 2);                        // y two floats into x: allowed
  Write("mha-decoder-y-partly-over-x", kMhaDecoder, c);
  c = Decoder(2, 2, 2, 8, 2, 0, kF32, EA_POSITION_NONE, {Call(1, 94)});
  c.rope_kind = 130;
  c.ops[0] = PlacedOutput(c.ops[0], Over(5, 0));  // y over the RoPE table
  Write("mha-decoder-y-over-rope-table", kMhaDecoder, c);
  c.ops[0] = Call(1, 94);
  c.ops[0].x = Over(5, 0);  // x over the RoPE table: refused
  Write("mha-decoder-x-over-rope-table", kMhaDecoder, c);
  c = Decoder(2, 1, 4, 10, 2, 2, kF32, EA_POSITION_NONE,
              {Call(2, 100), Call(1, 101), Call(2, 102), Call(1, 103)});
  c.ops[0].x_values = WithSpecial(100, 9, kNaN);  // token 1: seen by tokens 1 and 2 only
  Write("mha-decoder-nan-x-window", kMhaDecoder, c);
  c = Decoder(2, 2, 4, 10, 2, 0, kF16, EA_POSITION_NONE, {Call(2, 104), Call(2, 105)});
  c.ops[0].x_values = WithSpecial(104, 3, kBig1e5);  // f16 inf in K and V
  Write("mha-decoder-f16-overflow", kMhaDecoder, c);
  c = Decoder(2, 2, 4, 10, 2, 0, kF32, EA_POSITION_NONE,
              {Call(2, 110), Kind(kDecoderReinitKind), Call(1, 111), Kind(kDecoderResetKind),
               OpNulls(Call(1, 112), kOpNullPlan), OpNulls(Call(1, 113), kOpNullOutput)});
  c.ops[1].reinit_field = 1;  // n_heads
  c.ops[1].reinit_value = 3;  // not a divisor of d_model 8
  Write("mha-decoder-reinit-broken", kMhaDecoder, c);
  c = Decoder(2, 2, 3, 10, 2, 0, kF32, EA_POSITION_NONE, {Call(1, 114)});
  c.rope_kind = 128;  // d_head 3: odd
  Write("mha-decoder-rope-odd-head", kMhaDecoder, c);
  c = Decoder(4, 3, 2, 10, 2, 0, kF32, EA_POSITION_NONE, {Call(1, 115)});
  Write("mha-decoder-kv-heads-mismatch", kMhaDecoder, c);
  c = Decoder(2, 2, 2, 8, 9, 0, kF32, EA_POSITION_NONE, {Call(1, 116)});
  Write("mha-decoder-max-tokens-past-positions", kMhaDecoder, c);
  // A ring of 8 positions for a stream of up to 2^28 tokens: no tensor has
  // max_positions rows (finding 25: refused until it was fixed).
  c = Decoder(1, 1, 4, 1 << 28, 2, 8, kF32, EA_POSITION_NONE,
              {Call(2, 119), Call(2, 120), Call(2, 121), Call(2, 122), Call(2, 123)});
  Write("mha-decoder-window-long-stream", kMhaDecoder, c);
  c = Decoder(2, 2, 2, 8, 2, INT32_MAX, kF32, EA_POSITION_NONE, {Call(1, 117)});
  Write("mha-decoder-window-int32-max", kMhaDecoder, c);
  c = Decoder(2, 2, 2, 8, 2, 0, kF32, EA_POSITION_NONE, {Call(1, 118)});
  c.n_heads = 0;  // init divided by n_heads before validating (fixed in d814239)
  c.head_kind = 250;
  c.d_model = 8;
  Write("mha-decoder-n-heads-zero", kMhaDecoder, c);
  c.n_heads = -1;
  c.d_model = INT32_MIN;
  Write("mha-decoder-d-model-int32-min", kMhaDecoder, c);
}

// kv_heads 0: as many key/value heads as query heads (plain MHA).
CrossCase Cross(int32_t heads, int32_t d_head, int32_t max_memory, int32_t max_queries,
                int32_t storage, const std::vector<PlanOp>& ops, int32_t kv_heads = 0) {
  CrossCase c;
  c.n_heads = heads;
  c.kv_kind = 250;  // n_kv_heads as given
  c.n_kv_heads = kv_heads > 0 ? kv_heads : heads;
  c.head_kind = static_cast<uint8_t>(d_head - 1);
  c.memory_kind = 250;
  c.max_memory = max_memory;
  c.queries_kind = 250;
  c.max_queries = max_queries;
  c.storage = storage;
  c.w_values[0] = Normal(11, 8);
  c.w_values[1] = Normal(12, 8);
  c.b_values[0] = Normal(13, 7);
  c.b_values[1] = Normal(14, 7);
  c.op_count = static_cast<uint8_t>(ops.size());
  for (size_t i = 0; i < ops.size() && i < kMaxDecoderOps; ++i) c.ops[i] = ops[i];
  return c;
}
PlanOp Run(int32_t n, uint32_t seed) {
  PlanOp op = Call(n, seed);
  op.kind = kCrossRunKind;
  return op;
}

void CrossSeeds() {
  CrossCase c =
      Cross(2, 4, 10, 3, kF32, {Call(10, 20), Run(3, 21), Run(1, 22), Call(4, 23), Run(2, 24)});
  Write("mha-cross-f32-memories", kMhaCross, c);
  c = Cross(3, 4, 130, 4, kInt8, {Call(130, 30), Run(4, 31), Call(65, 32), Run(1, 33)});
  Write("mha-cross-int8-chunks", kMhaCross, c);
  c.storage = kInt4;
  Write("mha-cross-int4-chunks", kMhaCross, c);
  c = Cross(4, 5, 70, 5, kF16, {Call(70, 40), InPlace(Run(5, 41)), Run(2, 42)});
  c.weights_layout = EA_WEIGHTS_PACKED;
  Write("mha-cross-f16-packed-in-place", kMhaCross, c);
  c = Cross(2, 4, 3, 8, kF32, {Call(3, 50), Run(8, 51)});
  Write("mha-cross-queries-past-memory", kMhaCross, c);
  c = Cross(4, 8, 70, 3, kF32, {Call(70, 52), Run(3, 53), Call(9, 54), Run(1, 55)}, 2);
  Write("mha-cross-grouped-query", kMhaCross, c);
  c = Cross(6, 16, 20, 2, kInt8, {Call(20, 56), Run(2, 57)}, 1);  // W_K inside a panel
  Write("mha-cross-multi-query-int8", kMhaCross, c);
  c = Cross(4, 4, 6, 2, kF32, {Call(6, 58), Run(2, 59)}, 3);  // 3 does not divide 4
  Write("mha-cross-kv-heads-mismatch", kMhaCross, c);
  c = Cross(2, 4, 6, 2, kF32, {Run(2, 60), Call(7, 61), Call(0, 62), Call(6, 63), Run(3, 64)});
  Write("mha-cross-run-before-memory", kMhaCross, c);
  c = Cross(2, 4, 6, 2, kF32, {Call(6, 70), Call(2, 71), Run(2, 72)});
  c.ops[1].x = Over(3, 4);  // the second memory over out_proj_weight: refused, the first kept
  Write("mha-cross-memory-over-weights", kMhaCross, c);
  c.ops[1].x = Over(0, 8);  // inside the carve
  Write("mha-cross-memory-in-carve", kMhaCross, c);
  c = Cross(2, 4, 6, 2, kF32, {Call(6, 70), Run(2, 72)});
  c.ops[1].x = Over(1, 0);  // x over in_proj_weight: refused
  Write("mha-cross-x-over-weights", kMhaCross, c);
  c.ops[1].x = Placement{};
  c.ops[1] = PlacedOutput(c.ops[1], Over(7, 1));  // y one float into this run's x
  Write("mha-cross-y-partly-over-x", kMhaCross, c);
  c = Cross(2, 4, 6, 2, kF32, {Call(6, 80), Kind(kCrossReinitKind), Run(1, 81)});
  c.ops[1].reinit_field = 3;
  c.ops[1].reinit_value = -1;
  Write("mha-cross-reinit-broken", kMhaCross, c);
  c = Cross(2, 4, 6, 2, kF32, {Call(6, 90), Run(1, 91)});
  c.ops[0].x_values = WithSpecial(90, 5, kInf);  // memory row 0: K and V non-finite
  Write("mha-cross-inf-memory", kMhaCross, c);
  c = Cross(1, 1, 4, 2, kF32, {Call(4, 92)});
  c.head_kind = 250;
  c.d_model = 0x7FFFFFC1;  // init computed 3 * d_model in int32 first (fixed in d814239)
  Write("mha-cross-d-model-past-int32-third", kMhaCross, c);
  c.n_heads = 0;
  c.d_model = 8;
  Write("mha-cross-n-heads-zero", kMhaCross, c);
  c = Cross(4, 4, 9, 2, kF32, {Call(9, 93), Run(2, 94)});
  c.n_kv_heads = 0;  // as many KV heads as query heads
  Write("mha-cross-kv-heads-zero", kMhaCross, c);
}

// The fixed-point cross-attention (fuzz_quant_cross.cc).
constexpr uint8_t kQCrossSetKind = 0, kQCrossWrongSetKind = 88, kQCrossRunKind = 100,
                  kQCrossWrongRunKind = 200, kQCrossReinitKind = 212;
QuantCrossOp CrossCall(uint8_t kind, uint8_t count_kind, uint32_t seed, int32_t count = 0) {
  QuantCrossOp op;
  op.kind = kind;
  op.count_kind = count_kind;
  op.count_value = count;
  op.x_seed = seed;
  return op;
}
// n rows exactly (count_value).
QuantCrossOp CrossSet(int32_t n, uint32_t seed) { return CrossCall(kQCrossSetKind, 230, seed, n); }
QuantCrossOp CrossRun(int32_t n, uint32_t seed) { return CrossCall(kQCrossRunKind, 230, seed, n); }
QuantCrossOp CrossReinit(uint8_t field, int32_t value) {
  QuantCrossOp op;
  op.kind = kQCrossReinitKind;
  op.reinit_field = field;
  op.reinit_value = value;
  return op;
}

// max_tokens and max_memory as they are (small: tokens 1..8, memory 1..24 or 25..72).
QuantCrossCase QuantCross(bool int16, int max_tokens, int d_model, uint8_t heads_kind,
                          int max_memory, std::vector<QuantCrossOp> ops) {
  QuantCrossCase c;
  c.dtype_kind = int16 ? 150 : 10;
  c.tokens_kind = static_cast<uint8_t>(max_tokens - 1);
  c.d_model = d_model;
  c.heads_kind = heads_kind;
  c.memory_kind = max_memory <= 24 ? static_cast<uint8_t>(max_memory - 1)
                                   : static_cast<uint8_t>(176 + (max_memory - 25 + 16) % 48);
  c.quant = SeedQuant(3, 131);
  for (int i = 0; i < kQuantTensors; ++i) c.tensors[i].zp_value = static_cast<uint8_t>(11 * i);
  c.memory_quant.jitter = 4;  // 2^(1/2) times the input's scale
  c.memory_quant.zp_value = 9;
  c.op_count = static_cast<uint8_t>(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) c.ops[i] = ops[i];
  return c;
}

void QuantCrossSeeds() {
  // A run before any memory (refused), a memory, runs, a shorter memory replacing it.
  for (const bool int16 : {false, true}) {
    QuantCrossCase c = QuantCross(int16, 4, 8, 1, 6,
                                  {CrossRun(2, 1), CrossSet(6, 2), CrossRun(3, 3), CrossRun(4, 4),
                                   CrossSet(2, 5), CrossRun(4, 6)});
    Write(int16 ? "quant-cross-s16-basic" : "quant-cross-s8-basic", kQuantCross, c);
  }
  // Grouped-query heads: 4 heads of 4 on 2 KV heads (int8), on 1 (int16).
  for (const bool int16 : {false, true}) {
    QuantCrossCase c =
        QuantCross(int16, 3, 16, 2, 9, {CrossSet(9, 11), CrossRun(3, 12), CrossRun(1, 13)});
    c.kv_kind = int16 ? 96 : 97;
    Write(int16 ? "quant-cross-s16-multi-query" : "quant-cross-s8-grouped", kQuantCross, c);
  }
  // A memory of 30 rows set in steps of 16 rows (CrossQuantStepRows; max_tokens 2), then
  // one of 17 replacing it.
  QuantCrossCase c = QuantCross(
      false, 2, 8, 1, 30,
      {CrossSet(30, 21), CrossRun(2, 22), CrossSet(17, 23), CrossRun(1, 24), CrossRun(2, 25)});
  Write("quant-cross-s8-memory-in-chunks", kQuantCross, c);
  c = QuantCross(true, 3, 8, 2, 40,
                 {CrossSet(40, 26), CrossRun(3, 27), CrossSet(7, 28), CrossRun(3, 29)});
  c.kv_kind = 97;
  Write("quant-cross-s16-grouped-memory-in-chunks", kQuantCross, c);
  // Given integers: those ea_cross_quant_derive gave.
  for (const bool int16 : {false, true}) {
    c = QuantCross(int16, 4, 8, 1, 6, {CrossSet(5, 31), CrossRun(4, 32)});
    c.derive_kind = 200;
    Write(int16 ? "quant-cross-s16-derived-given" : "quant-cross-s8-derived-given", kQuantCross, c);
  }
  // Given integers of the harness's derivation, edited.
  c = QuantCross(false, 4, 8, 1, 6, {CrossSet(6, 33), CrossRun(4, 34)});
  c.quant.params_kind = 200;
  Write("quant-cross-s8-given-params", kQuantCross, c);
  // set_memory refused: 0, -1, max_memory + 1, NULL, over in_proj, in the
  // carve, the other dtype's; then a memory, and refusals that keep it.
  c = QuantCross(false, 4, 8, 1, 6,
                 {CrossCall(kQCrossSetKind, 150, 41), CrossCall(kQCrossSetKind, 170, 42),
                  CrossCall(kQCrossSetKind, 180, 43), CrossSet(6, 44), CrossSet(6, 45),
                  CrossSet(6, 46), CrossCall(kQCrossWrongSetKind, 210, 47), CrossSet(4, 48)});
  c.ops[3].null_select = 240;
  c.ops[3].null_bits = kCrossNullFirst;
  c.ops[4].x = Over(1, 0);  // over in_proj_weight
  c.ops[5].x = Over(0, 8);  // inside the carve
  Write("quant-cross-s8-set-memory-refusals", kQuantCross, c);
  c.ops[0] = CrossSet(6, 49);  // a memory held, then the refusals keep it
  c.ops[7] = CrossRun(4, 50);
  Write("quant-cross-s8-refused-memory-keeps-the-held", kQuantCross, c);
  // Runs refused: 0, max_tokens + 1, the other dtype's, y over in_proj,
  // x in the carve; then y in place and partly over x (accepted).
  c = QuantCross(true, 4, 8, 1, 6,
                 {CrossSet(6, 51), CrossCall(kQCrossRunKind, 150, 52),
                  CrossCall(kQCrossRunKind, 180, 53), CrossCall(kQCrossWrongRunKind, 210, 54),
                  CrossRun(4, 55), CrossRun(4, 56), CrossRun(4, 57), CrossRun(3, 58)});
  c.ops[4].y = Over(1, 0);  // y over in_proj_weight
  c.ops[5].x = Over(0, 8);  // x in the carve
  c.ops[6].y = Over(5, 0);  // y = x (candidates: arena, 4 kept tensors, x)
  c.ops[7].y = Over(5, 3);  // y 12 bytes into x
  Write("quant-cross-s16-run-refusals-and-in-place", kQuantCross, c);
  // A re-init with a broken config (max_memory 0): every call refused until
  // the good config again, which holds no memory.
  c = QuantCross(false, 4, 8, 1, 6,
                 {CrossSet(6, 61), CrossReinit(8, 0), CrossRun(2, 62), CrossSet(6, 63),
                  CrossReinit(250, 0), CrossRun(2, 64), CrossSet(3, 65), CrossRun(4, 66)});
  Write("quant-cross-s8-reinit-broken-then-good", kQuantCross, c);
  // Configs refused: max_memory, KV heads, the memory's quantization (0.31.0's
  // flat config has no mask or position to refuse).
  c = QuantCross(false, 4, 8, 1, 6, {CrossSet(6, 75)});
  c.memory_kind = 230;
  c.memory_raw = 65536;
  Write("quant-cross-s8-max-memory-65536", kQuantCross, c);
  c.memory_raw = 65535;  // accepted (no call: too large to run here)
  Write("quant-cross-s8-max-memory-65535", kQuantCross, c);
  c.memory_raw = 0;
  Write("quant-cross-s8-max-memory-zero", kQuantCross, c);
  c = QuantCross(false, 4, 16, 2, 6, {CrossSet(6, 76)});
  c.kv_kind = 240;
  c.kv_raw = -1;
  Write("quant-cross-s8-negative-kv-heads", kQuantCross, c);
  c.kv_raw = 3;
  Write("quant-cross-s8-kv-heads-mismatch", kQuantCross, c);
  c = QuantCross(false, 4, 8, 1, 6, {CrossSet(6, 77), CrossRun(2, 78)});
  c.memory_quant.kind = 224 + 3;  // NaN (QuantSpecialScale)
  Write("quant-cross-s8-memory-scale-nan", kQuantCross, c);
  c.quant.params_kind = 200;  // given integers: the memory's scale is not read
  Write("quant-cross-s8-memory-scale-nan-given-params", kQuantCross, c);
  c = QuantCross(true, 4, 8, 1, 6, {CrossSet(6, 79), CrossRun(2, 80)});
  c.memory_quant.zp_kind = 200;  // an edge zero point: not 0 for int16
  Write("quant-cross-s16-memory-zero-point", kQuantCross, c);
}

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: make_seeds DIRECTORY [NAME_PREFIX]\n");
    return 2;
  }
  g_directory = argv[1];
  if (argc == 3) g_prefix = argv[2];
  AttentionSeeds();
  ModelSeeds();
  QuantSeeds();
  QuantSelfAttentionSeeds();
  ApiSeeds();
  KvCacheSeeds();
  WeightFileSeeds();
  StructuredWeightSeeds();
  AddSeeds();
  MulSeeds();
  RopeSeeds();
  QuantAttentionSeeds();
  QuantDecoderSeeds();
  DecoderSeeds();
  CrossSeeds();
  QuantCrossSeeds();
  printf("make_seeds: %d seeds in %s\n", g_written, argv[1]);
  return 0;
}
