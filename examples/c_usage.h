/* See c_usage.c. */
#ifndef EDGEATTN_EXAMPLES_C_USAGE_H_
#define EDGEATTN_EXAMPLES_C_USAGE_H_

#include "edgeattn/edgeattn.h"

#define C_USAGE_TOKENS 8
#define C_USAGE_D_MODEL 16
#define C_USAGE_HEADS 2

#ifdef __cplusplus
extern "C" {
#endif

/* Causal MHA with sinusoidal positions on x [8, 16] into y [8, 16]. */
ea_status c_usage_mha(const ea_mha_weights* weights, const float* x, float* y);
size_t c_usage_arena_capacity(void);

#ifdef __cplusplus
}
#endif

#endif /* EDGEATTN_EXAMPLES_C_USAGE_H_ */
