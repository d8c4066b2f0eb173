/* Firmware-style use from C11: a static arena, a plan, a run with no allocation.
 * The README shows this file verbatim (make lint checks), and tests/ops/c_api_test.cc
 * runs it against the double-precision reference, so the example cannot rot. */
#include "c_usage.h" /* edgeattn/edgeattn.h, and the shape: 8 tokens, d_model 16, 2 heads */

/* 32 KiB covers ea_mha_arena_size() for this shape (the test checks it). */
_Alignas(EA_ARENA_ALIGNMENT) static uint8_t arena_buffer[32 * 1024];
static ea_mha_plan plan;

/* Causal MHA with sinusoidal positions, x [8, 16] -> y [8, 16]. Plan and run sit
 * together here; firmware plans once at start-up and then only calls ea_mha_run. */
ea_status c_usage_mha(const ea_mha_weights* weights, const float* x, float* y) {
  const ea_mha_config config = {
      .dtype = EA_DTYPE_F32,
      .max_tokens = C_USAGE_TOKENS,
      .d_model = C_USAGE_D_MODEL,
      .n_heads = C_USAGE_HEADS,
      .mask = EA_MASK_CAUSAL,
      .position = EA_POSITION_SINUSOIDAL,
      .position_table = NULL, /* NULL: filled into the arena at plan time */
  };
  ea_arena arena;
  ea_status status = ea_arena_init(&arena, arena_buffer, sizeof arena_buffer);
  if (status == EA_OK) status = ea_mha_init(&plan, &config, weights, &arena);
  if (status == EA_OK) {
    status = ea_mha_run(&plan, x, /*n_tokens=*/C_USAGE_TOKENS, /*n_valid_keys=*/C_USAGE_TOKENS, y,
                        /*attn_weights=*/NULL);
  }
  return status; /* on any error, y is untouched */
}

size_t c_usage_arena_capacity(void) { return sizeof arena_buffer; }
