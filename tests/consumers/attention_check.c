/* The program every consumer project in tests/consumers/ builds: what a user
 * writes first. It plans and runs one small causal Attention(Q, K, V) with
 * padding through the C API, checks it against a double-precision computation
 * written out here, prints PASS or FAIL and exits with 0 or 1. C11, so that it
 * also proves a C program links the (C++) archive without libstdc++. */
#include <math.h>
#include <stdio.h>

#include "edgeattn/edgeattn.h"

enum { kNq = 5, kNkv = 7, kDk = 8, kDv = 6, kValidKeys = 6 };

_Alignas(EA_ARENA_ALIGNMENT) static uint8_t arena_buffer[16 * 1024];
static float q[kNq * kDk], k[kNkv * kDk], v[kNkv * kDv], out[kNq * kDv];

/* Deterministic values in [-1, 1]. */
static float Value(int index, int multiplier, int modulus) {
  return (float)((index * multiplier) % modulus - modulus / 2) / (float)(modulus / 2);
}

/* softmax(Q K^T / sqrt(d_k) + mask) V in double, straight from the formula:
 * query i sees key j when j <= i + (n_kv - n_q) and j < kValidKeys. */
static double Reference(int i, int c) {
  double scores[kNkv], max_score = -INFINITY, sum = 0.0, result = 0.0;
  int j, t;
  for (j = 0; j < kNkv; ++j) {
    scores[j] = -INFINITY;
    if (j > i + (kNkv - kNq) || j >= kValidKeys) continue;
    scores[j] = 0.0;
    for (t = 0; t < kDk; ++t) scores[j] += (double)q[i * kDk + t] * (double)k[j * kDk + t];
    scores[j] /= sqrt((double)kDk);
    if (scores[j] > max_score) max_score = scores[j];
  }
  if (max_score == -INFINITY) return 0.0; /* no visible key: the library outputs 0 */
  for (j = 0; j < kNkv; ++j) {
    if (scores[j] == -INFINITY) continue;
    sum += exp(scores[j] - max_score);
    result += exp(scores[j] - max_score) * (double)v[j * kDv + c];
  }
  return result / sum;
}

int main(void) {
  /* Designated: fields a later release appends (0.3.0: parallel) stay zero. */
  const ea_attention_config config = {.dtype = EA_DTYPE_F32,
                                      .n_q = kNq,
                                      .n_kv = kNkv,
                                      .d_k = kDk,
                                      .d_v = kDv,
                                      .mask = EA_MASK_CAUSAL,
                                      .scale = 0.0f};
  ea_attention_plan plan = {0};
  ea_arena arena;
  size_t bytes = 0;
  double max_error = 0.0, max_reference = 0.0;
  int i, bad = 0;
  ea_status status = ea_attention_arena_size(&config, &bytes);
  for (i = 0; i < kNq * kDk; ++i) q[i] = Value(i, 37, 23);
  for (i = 0; i < kNkv * kDk; ++i) k[i] = Value(i, 53, 29);
  for (i = 0; i < kNkv * kDv; ++i) v[i] = Value(i, 71, 31);
  if (status == EA_OK) status = ea_arena_init(&arena, arena_buffer, sizeof arena_buffer);
  if (status == EA_OK) status = ea_attention_init(&plan, &config, &arena);
  if (status == EA_OK) status = ea_attention_run(&plan, q, k, v, kValidKeys, out, NULL);
  if (status != EA_OK) {
    printf("FAIL: %s\n", ea_status_str(status));
    return 1;
  }
  /* The README's contract: max |y - y_ref| <= 1e-5 * max |y_ref|. */
  for (i = 0; i < kNq * kDv; ++i) {
    if (fabs(Reference(i / kDv, i % kDv)) > max_reference) {
      max_reference = fabs(Reference(i / kDv, i % kDv));
    }
  }
  for (i = 0; i < kNq * kDv; ++i) {
    const double error = fabs((double)out[i] - Reference(i / kDv, i % kDv));
    if (!(error <= 1e-5 * max_reference)) ++bad; /* NaN included */
    if (error > max_error) max_error = error;
  }
  if (bad > 0 || max_reference == 0.0) {
    printf("FAIL: edgeattn %s on %s: %d of %d outputs off, max error %g, max |reference| %g\n",
           EDGEATTN_VERSION_STRING, ea_simd_target(), bad, kNq * kDv, max_error, max_reference);
    return 1;
  }
  printf("PASS: edgeattn %s on %s: attention %dx%d, d_k %d, arena %lu bytes, max error %.2g\n",
         EDGEATTN_VERSION_STRING, ea_simd_target(), kNq, kNkv, kDk, (unsigned long)bytes,
         max_error);
  return 0;
}
