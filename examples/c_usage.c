/* The README's firmware-style usage, in C11: a static arena, one plan at
 * start-up, runs with no allocation. tests/c_api_test.cc runs it against the
 * double-precision reference, so the README example cannot rot. */
#include "c_usage.h"

enum { kTokens = C_USAGE_TOKENS, kDModel = C_USAGE_D_MODEL, kHeads = C_USAGE_HEADS };

/* 32 KiB covers ea_mha_arena_size() for this shape (the test checks it). */
_Alignas(EA_ARENA_ALIGNMENT) static uint8_t arena_buffer[32 * 1024];
static ea_mha_plan plan;

ea_status c_usage_mha(const ea_mha_weights* weights, const float* x, float* y) {
  ea_arena arena;
  const ea_mha_config config = {EA_DTYPE_F32,           kTokens, kDModel, kHeads, EA_MASK_CAUSAL,
                                EA_POSITION_SINUSOIDAL, NULL};
  ea_status status = ea_arena_init(&arena, arena_buffer, sizeof arena_buffer);
  if (status == EA_OK) status = ea_mha_plan_init(&plan, &config, weights, &arena);
  if (status == EA_OK) status = ea_mha_run(&plan, x, kTokens, kTokens, y, NULL);
  return status;
}

size_t c_usage_arena_capacity(void) { return sizeof arena_buffer; }
