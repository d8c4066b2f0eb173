#include "expected_status.h"

#include <math.h>

namespace edgeattn_fuzz {
namespace {

void DtypeRule(ea_dtype dtype, StatusSet* set) {
  if (dtype == EA_DTYPE_INT8 || dtype == EA_DTYPE_INT16) {
    set->Add(EA_ERR_UNSUPPORTED);
  } else if (dtype != EA_DTYPE_F32) {
    set->Add(EA_ERR_BAD_ARGUMENT);
  }
}

void MaskRule(ea_mask mask, StatusSet* set) {
  if (mask != EA_MASK_NONE && mask != EA_MASK_CAUSAL) set->Add(EA_ERR_BAD_ARGUMENT);
}

void PositionRule(ea_position position, const float* table, StatusSet* set) {
  if (position == EA_POSITION_LEARNED && table == nullptr) set->Add(EA_ERR_NULL_POINTER);
  if (position != EA_POSITION_NONE && position != EA_POSITION_SINUSOIDAL &&
      position != EA_POSITION_LEARNED) {
    set->Add(EA_ERR_BAD_ARGUMENT);
  }
}

void ElementsRule(int64_t rows, int64_t cols, StatusSet* set) {
  if (TooManyElements(rows, cols)) set->Add(EA_ERR_DIMENSION_OVERFLOW);
}

int64_t KeyPanelsRoundUp(int64_t n) { return (n + 63) / 64 * 64; }

}  // namespace

// rows * cols may pass int64 (3 * INT32_MAX * INT32_MAX): compare by division.
bool TooManyElements(int64_t rows, int64_t cols) {
  return rows > 0 && cols > 0 && rows > EA_MAX_ELEMENTS / cols;
}

bool StatusSet::Allows(ea_status status) const {
  if (broken_ != 0) {
    return static_cast<unsigned>(status) < 32 && (broken_ >> static_cast<unsigned>(status)) & 1u;
  }
  return status == EA_OK || (refusable_ && status == EA_ERR_BAD_ARGUMENT);
}

std::string StatusSet::Describe() const {
  if (broken_ == 0) return refusable_ ? "EA_OK or EA_ERR_BAD_ARGUMENT" : "EA_OK";
  std::string text;
  for (unsigned s = 0; s < 32; ++s) {
    if ((broken_ >> s) & 1u) {
      if (!text.empty()) text += " or ";
      text += "status " + std::to_string(s);
    }
  }
  return text;
}

// ea_parallel_for: max_workers in [0, EA_MAX_WORKERS]; more than one needs run.
void ParallelRule(const ea_parallel_for& p, StatusSet* set) {
  if (p.max_workers < 0 || p.max_workers > EA_MAX_WORKERS) set->Add(EA_ERR_BAD_ARGUMENT);
  if (p.max_workers > 1 && p.run == nullptr) set->Add(EA_ERR_NULL_POINTER);
}

// A weights layout the library knows.
void LayoutRule(ea_weights_layout layout, StatusSet* set) {
  if (layout != EA_WEIGHTS_ROW_MAJOR && layout != EA_WEIGHTS_PACKED) set->Add(EA_ERR_BAD_ARGUMENT);
}

StatusSet AttentionConfigRules(const ea_attention_config& c) {
  StatusSet set;
  DtypeRule(c.dtype, &set);
  MaskRule(c.mask, &set);
  ParallelRule(c.parallel, &set);
  if (c.scale != 0.0f && !(c.scale > 0.0f && isfinite(c.scale))) set.Add(EA_ERR_BAD_ARGUMENT);
  if (c.n_q <= 0 || c.n_kv <= 0 || c.d_k <= 0 || c.d_v <= 0) {
    set.Add(EA_ERR_BAD_DIMENSION);
    return set;
  }
  ElementsRule(c.n_q, c.d_k, &set);                     // q
  ElementsRule(c.n_kv, c.d_k, &set);                    // k
  ElementsRule(c.n_kv, c.d_v, &set);                    // v
  ElementsRule(c.n_q, c.d_v, &set);                     // out
  ElementsRule(KeyPanelsRoundUp(c.n_kv), c.d_k, &set);  // packed K^T [d_k, roundup(n_kv, 64)]
  return set;
}

StatusSet SelfAttentionConfigRules(const ea_self_attention_config& c) {
  StatusSet set;
  DtypeRule(c.dtype, &set);
  MaskRule(c.mask, &set);
  PositionRule(c.position, c.position_table, &set);
  LayoutRule(c.weights_layout, &set);
  ParallelRule(c.parallel, &set);
  if (c.max_tokens <= 0 || c.d_model <= 0 || c.d_k <= 0 || c.d_v <= 0) {
    set.Add(EA_ERR_BAD_DIMENSION);
    return set;
  }
  ElementsRule(c.max_tokens, c.d_model, &set);  // x, table, X + P
  // W_Q, W_K, W_V as the projections read them: packed, outputs padded to 64.
  ElementsRule(KeyPanelsRoundUp(c.d_k), c.d_model, &set);
  ElementsRule(KeyPanelsRoundUp(c.d_v), c.d_model, &set);
  ElementsRule(c.max_tokens, c.d_k, &set);  // Q, K
  ElementsRule(c.max_tokens, c.d_v, &set);  // V, y
  ElementsRule(KeyPanelsRoundUp(c.max_tokens), c.d_k, &set);
  return set;
}

StatusSet MhaConfigRules(const ea_mha_config& c) {
  StatusSet set;
  DtypeRule(c.dtype, &set);
  MaskRule(c.mask, &set);
  PositionRule(c.position, c.position_table, &set);
  LayoutRule(c.weights_layout, &set);
  ParallelRule(c.parallel, &set);
  if (c.max_tokens <= 0 || c.d_model <= 0 || c.heads <= 0) {
    set.Add(EA_ERR_BAD_DIMENSION);
    return set;
  }
  if (c.d_model % c.heads != 0) set.Add(EA_ERR_HEADS_MISMATCH);
  ElementsRule(c.max_tokens, c.d_model, &set);  // x, y, Q, K, V, heads
  // in_proj_weight as the projection reads it: packed, 3 d_model outputs padded to 64.
  ElementsRule(KeyPanelsRoundUp(3 * int64_t{c.d_model}), c.d_model, &set);
  if (c.d_model % c.heads == 0) {
    ElementsRule(KeyPanelsRoundUp(c.max_tokens), c.d_model / c.heads, &set);
  }
  return set;
}

StatusSet ArenaRules(const ea_arena& arena, uint64_t need, bool config_valid) {
  StatusSet set;
  if (arena.base == nullptr) {
    set.Add(EA_ERR_BAD_ARGUMENT);
    set.Add(EA_ERR_NULL_POINTER);
    return set;
  }
  if (arena.used > arena.capacity) {
    set.Add(EA_ERR_BAD_ARGUMENT);
    set.Add(EA_ERR_ARENA_TOO_SMALL);
    return set;
  }
  if (reinterpret_cast<uintptr_t>(arena.base + arena.used) % EA_ARENA_ALIGNMENT != 0) {
    set.Add(EA_ERR_ARENA_MISALIGNED);
  }
  if (config_valid && need > arena.capacity - arena.used) set.Add(EA_ERR_ARENA_TOO_SMALL);
  return set;
}

}  // namespace edgeattn_fuzz
