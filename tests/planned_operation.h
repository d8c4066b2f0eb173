// A ready plan of each operation in an arena of exactly its documented size:
// the set-up most tests share (size, arena, init), in one line.
// `status` is the first non-OK status of the three calls, EA_OK when the plan
// is ready. The arena storage lives (and stays put) as long as the object.
#ifndef EDGEATTN_TESTS_PLANNED_OPERATION_H_
#define EDGEATTN_TESTS_PLANNED_OPERATION_H_

#include <stddef.h>

#include "edgeattn/edgeattn.h"
#include "test_support.h"

namespace edgeattn_test {

template <typename Plan, typename Config, typename... Weights>
struct Planned {
  using SizeFunction = ea_status (*)(const Config*, size_t*);
  using InitFunction = ea_status (*)(Plan*, const Config*, const Weights*..., ea_arena*);

  Planned(SizeFunction size_of, InitFunction init, const Config& config,
          const Weights&... weights) {
    status = size_of(&config, &bytes);
    if (status != EA_OK) return;
    storage = AlignedBytes(bytes);
    ea_arena arena;
    status = ea_arena_init(&arena, storage.data(), bytes);
    if (status == EA_OK) status = init(&plan, &config, &weights..., &arena);
  }

  size_t bytes = 0;
  AlignedBytes storage{0};
  Plan plan{};
  ea_status status = EA_OK;
};

using PlannedAttention = Planned<ea_attention_plan, ea_attention_config>;
using PlannedSelfAttention =
    Planned<ea_self_attention_plan, ea_self_attention_config, ea_self_attention_weights>;
using PlannedMha = Planned<ea_mha_plan, ea_mha_config, ea_mha_weights>;
using PlannedQuantDecoder =
    Planned<ea_decoder_quant, ea_decoder_quant_config, ea_mha_quant_weights>;
using PlannedQuantCross = Planned<ea_cross_quant, ea_cross_quant_config, ea_mha_quant_weights>;

inline PlannedAttention PlanAttention(const ea_attention_config& config) {
  return PlannedAttention(ea_attention_arena_size, ea_attention_init, config);
}
inline PlannedSelfAttention PlanSelfAttention(const ea_self_attention_config& config,
                                              const ea_self_attention_weights& weights) {
  return PlannedSelfAttention(ea_self_attention_arena_size, ea_self_attention_init, config,
                              weights);
}
inline PlannedMha PlanMha(const ea_mha_config& config, const ea_mha_weights& weights) {
  return PlannedMha(ea_mha_arena_size, ea_mha_init, config, weights);
}
inline PlannedQuantDecoder PlanQuantDecoder(const ea_decoder_quant_config& config,
                                            const ea_mha_quant_weights& weights) {
  return PlannedQuantDecoder(ea_decoder_quant_arena_size, ea_decoder_quant_init, config, weights);
}

}  // namespace edgeattn_test

#endif  // EDGEATTN_TESTS_PLANNED_OPERATION_H_
