// The C++ layer over the C API: the same plans and runs, plus what only C++
// can give firmware at compile time: arena sizes as constants, static arenas
// that cannot be too small (static_assert), and constant position tables.
//
//   using Layer = edgeattn::Mha<128, 64, 4, EA_POSITION_SINUSOIDAL>;
//   static edgeattn::StaticArena<Layer::kArenaBytes> arena;
//   static ea_mha_plan plan;
//   Layer::Plan(&plan, weights, arena, EA_MASK_CAUSAL);
//   ea_mha_run(&plan, x, n, n, y, NULL);
//
// A StaticArena passed to Plan belongs to that one plan (Plan starts carving
// it from the beginning). Several plans share one arena through the
// ea_arena* overloads, with sizes that add up: StaticArena<A::kArenaBytes +
// B::kArenaBytes>, ea_arena_init once, then A::Plan(..., &arena) and
// B::Plan(..., &arena).
#ifndef EDGEATTN_EDGEATTN_HPP_
#define EDGEATTN_EDGEATTN_HPP_

#include <stddef.h>
#include <stdint.h>

#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "edgeattn/packed_weights.hpp"
#include "edgeattn/sinusoidal_table.hpp"

namespace edgeattn {

// Arena storage with the alignment plans require; put it in static storage.
template <size_t kBytes>
struct alignas(EA_ARENA_ALIGNMENT) StaticArena {
  // kBytes, the arena's size.
  static constexpr size_t kSize = kBytes;
  // The buffer: pass it (and kBytes) to ea_arena_init.
  uint8_t bytes[kBytes];
};

namespace detail {

// An arena size as size_t, refused at compile time where the target cannot
// address it (32-bit MCUs) instead of silently truncated.
template <uint64_t kBytes>
constexpr size_t AddressableBytes() {
  static_assert(kBytes <= static_cast<uint64_t>(SIZE_MAX),
                "this shape's arena is larger than the target can address");
  return static_cast<size_t>(kBytes);
}

// ea_arena_init of *arena over the whole of storage.
template <size_t kBytes>
ea_status InitArena(StaticArena<kBytes>& storage, ea_arena* arena) {
  return ea_arena_init(arena, storage.bytes, kBytes);
}

// A shape whose table is the caller's must be given one.
constexpr bool NeedsCallerTable(ea_position position, bool table_in_arena) {
  return StorageOf(position, table_in_arena) == PositionStorage::kCaller;
}

}  // namespace detail

// Attention(Q, K, V) with shapes fixed at compile time.
template <int32_t kNq, int32_t kNkv, int32_t kDk, int32_t kDv>
struct Attention {
  static_assert(kNq > 0 && kNkv > 0 && kDk > 0 && kDv > 0, "dimensions must be positive");
  // Arena bytes of this shape's plan (ea_attention_arena_size of Config()).
  static constexpr size_t kArenaBytes = detail::AddressableBytes<AttentionArenaBytes(kNkv, kDk)>();

  // This shape's config: float32, single-threaded, no quantization.
  static constexpr ea_attention_config Config(ea_mask mask = EA_MASK_NONE, float scale = 0.0f) {
    return ea_attention_config{EA_DTYPE_F32,      kNq,     kNkv,   kDk, kDv, mask, scale,
                               ea_parallel_for{}, nullptr, nullptr};
  }

  // Carves the plan from a shared arena.
  static ea_status Plan(ea_attention_plan* plan, ea_arena* arena, ea_mask mask = EA_MASK_NONE,
                        float scale = 0.0f) {
    const ea_attention_config config = Config(mask, scale);
    return ea_attention_init(plan, &config, arena);
  }

  // Gives the plan a StaticArena of its own, checked at compile time.
  template <size_t kBytes>
  static ea_status Plan(ea_attention_plan* plan, StaticArena<kBytes>& storage,
                        ea_mask mask = EA_MASK_NONE, float scale = 0.0f) {
    static_assert(kBytes >= kArenaBytes, "arena too small for this attention shape");
    ea_arena arena;
    const ea_status status = detail::InitArena(storage, &arena);
    return status != EA_OK ? status : Plan(plan, &arena, mask, scale);
  }
};

// Single-head self-attention with shapes fixed at compile time.
// kWeights = EA_WEIGHTS_PACKED: the weights come packed (ea_linear_pack_weights,
// kPackedQkFloats / kPackedVFloats floats each), e.g. from flash.
template <int32_t kMaxTokens, int32_t kDModel, int32_t kDk, int32_t kDv,
          ea_position kPosition = EA_POSITION_NONE,
          bool kTableInArena = kPosition == EA_POSITION_SINUSOIDAL,
          ea_weights_layout kWeights = EA_WEIGHTS_ROW_MAJOR>
struct SelfAttention {
  static_assert(kMaxTokens > 0 && kDModel > 0 && kDk > 0 && kDv > 0, "dimensions must be positive");
  // Arena bytes of this shape's plan (ea_self_attention_arena_size of Config()).
  static constexpr size_t kArenaBytes = detail::AddressableBytes<SelfAttentionArenaBytes(
      kMaxTokens, kDModel, kDk, kDv, StorageOf(kPosition, kTableInArena), kWeights)>();
  // Floats of packed W_Q, and of packed W_K (ea_linear_pack_weights of [kDk, kDModel]).
  static constexpr size_t kPackedQkFloats = PackedLinearFloats(kDk, kDModel);
  // Floats of packed W_V (ea_linear_pack_weights of [kDv, kDModel]).
  static constexpr size_t kPackedVFloats = PackedLinearFloats(kDv, kDModel);

  // This shape's config: float32, single-threaded; `table` is its position_table.
  static constexpr ea_self_attention_config Config(ea_mask mask = EA_MASK_NONE,
                                                   const float* table = nullptr) {
    return ea_self_attention_config{EA_DTYPE_F32, kMaxTokens, kDModel, kDk,      kDv,
                                    mask,         kPosition,  table,   kWeights, ea_parallel_for{},
                                    nullptr,      nullptr,    nullptr};
  }

  // Carves the plan from a shared arena. `table` is required when the shape
  // says the table is the caller's.
  static ea_status Plan(ea_self_attention_plan* plan, const ea_self_attention_weights& weights,
                        ea_arena* arena, ea_mask mask = EA_MASK_NONE,
                        const float* table = nullptr) {
    if (detail::NeedsCallerTable(kPosition, kTableInArena) && table == nullptr) {
      return EA_ERR_NULL_POINTER;
    }
    const ea_self_attention_config config = Config(mask, table);
    return ea_self_attention_init(plan, &config, &weights, arena);
  }

  // Gives the plan a StaticArena of its own, checked at compile time.
  template <size_t kBytes>
  static ea_status Plan(ea_self_attention_plan* plan, const ea_self_attention_weights& weights,
                        StaticArena<kBytes>& storage, ea_mask mask = EA_MASK_NONE,
                        const float* table = nullptr) {
    static_assert(kBytes >= kArenaBytes, "arena too small for this self-attention shape");
    ea_arena arena;
    const ea_status status = detail::InitArena(storage, &arena);
    return status != EA_OK ? status : Plan(plan, weights, &arena, mask, table);
  }
};

// Multi-head attention with shapes fixed at compile time.
// kWeights as in SelfAttention: packed in_proj holds kPackedInProjFloats,
// packed out_proj kPackedOutProjFloats.
template <int32_t kMaxTokens, int32_t kDModel, int32_t kHeads,
          ea_position kPosition = EA_POSITION_NONE,
          bool kTableInArena = kPosition == EA_POSITION_SINUSOIDAL,
          ea_weights_layout kWeights = EA_WEIGHTS_ROW_MAJOR>
struct Mha {
  static_assert(kMaxTokens > 0 && kDModel > 0 && kHeads > 0, "dimensions must be positive");
  static_assert(kDModel % kHeads == 0, "d_model must be divisible by the number of heads");
  // Arena bytes of this shape's plan (ea_mha_arena_size of Config()).
  static constexpr size_t kArenaBytes = detail::AddressableBytes<MhaArenaBytes(
      kMaxTokens, kDModel, kHeads, StorageOf(kPosition, kTableInArena), kWeights)>();
  // Floats of packed in_proj_weight (ea_linear_pack_weights of [3 kDModel, kDModel]).
  static constexpr size_t kPackedInProjFloats = PackedLinearFloats(3 * kDModel, kDModel);
  // Floats of packed out_proj_weight (ea_linear_pack_weights of [kDModel, kDModel]).
  static constexpr size_t kPackedOutProjFloats = PackedLinearFloats(kDModel, kDModel);

  // This shape's config: float32, single-threaded; `table` is its position_table.
  static constexpr ea_mha_config Config(ea_mask mask = EA_MASK_NONE, const float* table = nullptr) {
    return ea_mha_config{EA_DTYPE_F32, kMaxTokens, kDModel,           kHeads,  mask,    kPosition,
                         table,        kWeights,   ea_parallel_for{}, nullptr, nullptr, nullptr};
  }

  // Carves the plan from a shared arena. `table` is required when the shape
  // says the table is the caller's.
  static ea_status Plan(ea_mha_plan* plan, const ea_mha_weights& weights, ea_arena* arena,
                        ea_mask mask = EA_MASK_NONE, const float* table = nullptr) {
    if (detail::NeedsCallerTable(kPosition, kTableInArena) && table == nullptr) {
      return EA_ERR_NULL_POINTER;
    }
    const ea_mha_config config = Config(mask, table);
    return ea_mha_init(plan, &config, &weights, arena);
  }

  // Gives the plan a StaticArena of its own, checked at compile time.
  template <size_t kBytes>
  static ea_status Plan(ea_mha_plan* plan, const ea_mha_weights& weights,
                        StaticArena<kBytes>& storage, ea_mask mask = EA_MASK_NONE,
                        const float* table = nullptr) {
    static_assert(kBytes >= kArenaBytes, "arena too small for this MHA shape");
    ea_arena arena;
    const ea_status status = detail::InitArena(storage, &arena);
    return status != EA_OK ? status : Plan(plan, weights, &arena, mask, table);
  }
};

}  // namespace edgeattn

#endif  // EDGEATTN_EDGEATTN_HPP_
