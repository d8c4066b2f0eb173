// make demo: edgeattn the way a device would run it. Static arenas sized at
// compile time, plans made once, runs with no allocation:
//  1. "the dog chased the cat" vs "the cat chased the dog": without positions
//     the second output is the first one permuted (attention cannot see
//     order); with sinusoidal positions it is not;
//  2. the attention weights of one head as a heat table;
//  3. one large attention timed, in GFLOP/s and as a share of this core's FMA peak, which is
//     measured in the same run on the same SIMD target (bench/fma_peak.cc, dynamic dispatch),
//     so the share compares across machines, which GFLOP/s alone does not;
//  4. the same attention on 2 workers (examples/thread_pool, the library starts no thread):
//     the speed-up over one worker, and the output, bit-identical to the 1-worker one.
// The model is made up (hash values), so only the symmetry is meaningful, not the weights.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../bench/fma_peak.h"
#include "../platform/hosted/monotonic_clock.h"
#include "edgeattn/edgeattn.hpp"
#include "thread_pool/pthread_pool.h"

namespace {

constexpr int kWords = 5, kDModel = 16, kHeads = 2;
const char* const kVocabulary[] = {"the", "dog", "chased", "cat"};
const int kSentenceA[kWords] = {0, 1, 2, 0, 3};  // the dog chased the cat
const int kSentenceB[kWords] = {0, 3, 2, 0, 1};  // the cat chased the dog
// Row i of B is row kAtoB[i] of A (dog and cat swap places).
const int kAtoB[kWords] = {0, 4, 2, 3, 1};

// Deterministic toy numbers in [-1, 1): this is a demo, not a trained model.
float Toy(unsigned index, unsigned salt) {
  unsigned h = index * 2654435761u ^ salt * 40503u;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return static_cast<float>(h % 20001u) / 10000.0f - 1.0f;
}

float g_embeddings[4][kDModel];
float g_in_proj[3 * kDModel * kDModel];
float g_out_proj[kDModel * kDModel];

void MakeToyModel() {
  for (unsigned w = 0; w < 4; ++w) {
    for (unsigned c = 0; c < kDModel; ++c) g_embeddings[w][c] = 2.0f * Toy(w * kDModel + c, 1);
  }
  for (unsigned i = 0; i < 3 * kDModel * kDModel; ++i) g_in_proj[i] = 0.5f * Toy(i, 2);
  for (unsigned i = 0; i < kDModel * kDModel; ++i) g_out_proj[i] = 0.25f * Toy(i, 3);
}

void Embed(const int* sentence, float* x) {
  for (int t = 0; t < kWords; ++t) {
    for (int c = 0; c < kDModel; ++c) x[t * kDModel + c] = g_embeddings[sentence[t]][c];
  }
}

using Plain = edgeattn::Mha<kWords, kDModel, kHeads>;
using Positioned = edgeattn::Mha<kWords, kDModel, kHeads, EA_POSITION_SINUSOIDAL>;
edgeattn::StaticArena<Plain::kArenaBytes> g_plain_arena;
edgeattn::StaticArena<Positioned::kArenaBytes> g_positioned_arena;
ea_mha_plan g_plain_plan;
ea_mha_plan g_positioned_plan;

// max |Y_B[i] - Y_A[kAtoB[i]]|: zero (up to rounding) iff B's output is A's, permuted.
float PermutationGap(const ea_mha_plan& plan, float* weights_a) {
  float x_a[kWords * kDModel], x_b[kWords * kDModel];
  float y_a[kWords * kDModel], y_b[kWords * kDModel];
  Embed(kSentenceA, x_a);
  Embed(kSentenceB, x_b);
  if (ea_mha_run(&plan, x_a, kWords, kWords, y_a, weights_a) != EA_OK ||
      ea_mha_run(&plan, x_b, kWords, kWords, y_b, nullptr) != EA_OK) {
    return NAN;
  }
  float gap = 0.0f;
  for (int i = 0; i < kWords; ++i) {
    for (int c = 0; c < kDModel; ++c) {
      gap = fmaxf(gap, fabsf(y_b[i * kDModel + c] - y_a[kAtoB[i] * kDModel + c]));
    }
  }
  return gap;
}

// Each cell: a shade for the weight's fifth of [0, 1], then the weight.
void PrintHeatTable(const float* weights) {
  static const char* const kShades[] = {" ", ".", ":", "+", "#"};
  printf("\nattention weights, head 0, with positions (row: query, column: key)\n%8s", "");
  for (int j = 0; j < kWords; ++j) printf("%9s", kVocabulary[kSentenceA[j]]);
  printf("\n");
  for (int i = 0; i < kWords; ++i) {
    printf("%8s", kVocabulary[kSentenceA[i]]);
    for (int j = 0; j < kWords; ++j) {
      const float p = weights[i * kWords + j];
      printf("  %s %.3f", kShades[p >= 1.0f ? 4 : static_cast<int>(p * 5.0f)], p);
    }
    printf("\n");
  }
  printf("legend: row = query word, column = key word it attends to; each row sums to 1\n");
  printf("        shade: ' ' below 0.2, '.' 0.2-0.4, ':' 0.4-0.6, '+' 0.6-0.8, '#' 0.8-1\n");
}

// Large shape: prefill attention, n = 2048, d = 64, causal off, planned twice: on one worker,
// and on kLargeWorkers through the pthread pool. Both plans share one static arena; the
// multi-worker plan needs one more score tile per extra worker.
constexpr int kLargeN = 2048, kLargeD = 64, kLargeWorkers = 2;
using Large = edgeattn::Attention<kLargeN, kLargeN, kLargeD, kLargeD>;
constexpr size_t kLargeWorkersBytes =
    static_cast<size_t>(edgeattn::AttentionArenaBytes(kLargeN, kLargeD, kLargeWorkers));
edgeattn::StaticArena<Large::kArenaBytes + kLargeWorkersBytes> g_large_arena;
float g_q[kLargeN * kLargeD], g_k[kLargeN * kLargeD], g_v[kLargeN * kLargeD];
float g_out[kLargeN * kLargeD], g_out_workers[kLargeN * kLargeD];
ea_pthread_pool g_pool;  // static storage: no heap

// The probe: 8 trials of 50 ms keep the demo short; the benchmarks take 16.
constexpr double kProbeSecondsPerTrial = 0.05;
constexpr int kProbeTrials = 8;

// Best of 5 runs of `plan` into `out`, in seconds; negative if a run fails.
double BestOfFive(const ea_attention_plan& plan, float* out) {
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const double start = MonotonicSeconds();
    if (ea_attention_run(&plan, g_q, g_k, g_v, kLargeN, out, nullptr) != EA_OK) return -1.0;
    best = fmin(best, MonotonicSeconds() - start);
  }
  return best;
}

// The large attention again on kLargeWorkers workers: this thread and kLargeWorkers - 1 pool
// threads, started here and stopped before returning.
int TimeLargeAttentionOnWorkers(ea_arena* arena, double one_worker_seconds, double flops,
                                double peak_gflops) {
  if (ea_pthread_pool_start(&g_pool, kLargeWorkers) != 0) {
    printf("could not start the pthread pool\n");
    return 1;
  }
  ea_attention_config config = Large::Config();
  config.parallel = ea_pthread_pool_hook(&g_pool);
  ea_attention_plan plan;
  const ea_status status = ea_attention_init(&plan, &config, arena);
  const double best = status == EA_OK ? BestOfFive(plan, g_out_workers) : -1.0;
  ea_pthread_pool_stop(&g_pool);
  if (best < 0.0) return 1;
  const double gflops = flops / best * 1e-9;
  printf("\n%d workers (pthread pool: this thread + %d; plan with config.parallel = the pool's\n",
         kLargeWorkers, kLargeWorkers - 1);
  printf("hook; its arena: %zu bytes, the 1-worker plan's + one score tile per extra worker)\n",
         kLargeWorkersBytes);
  printf("best of 5: %.2f ms = %.1f GFLOP/s = %.0f%% of %d x the FMA peak, %.2fx one worker\n",
         best * 1e3, gflops, 100.0 * gflops / (kLargeWorkers * peak_gflops), kLargeWorkers,
         one_worker_seconds / best);
  const bool identical = memcmp(g_out, g_out_workers, sizeof g_out) == 0;
  printf("output bit-identical to the 1-worker output (memcmp): %s\n", identical ? "yes" : "NO");
  return identical ? 0 : 1;
}

int TimeLargeAttention() {
  ea_arena arena;
  ea_attention_plan plan;
  if (ea_arena_init(&arena, g_large_arena.bytes, sizeof g_large_arena.bytes) != EA_OK ||
      Large::Plan(&plan, &arena) != EA_OK) {
    return 1;
  }
  for (unsigned i = 0; i < kLargeN * kLargeD; ++i) {
    g_q[i] = Toy(i, 4);
    g_k[i] = Toy(i, 5);
    g_v[i] = Toy(i, 6);
  }
  // Measured right before the attention, so both see the same clock.
  const edgeattn_bench::FmaPeak peak = edgeattn_bench::MeasureFmaPeak(
      kProbeSecondsPerTrial, kProbeTrials, edgeattn_bench::FmaProbeTarget::kDispatched);
  // QK^T and PV: 2 * n_q * n_kv * d flops each.
  const double flops = 4.0 * kLargeN * kLargeN * kLargeD;
  const double best = BestOfFive(plan, g_out);
  if (best < 0.0) return 1;
  printf("\nattention n=%d d=%d (no mask), static arena %zu bytes (1-worker plan)\n", kLargeN,
         kLargeD, Large::kArenaBytes);
  printf("FMA peak of this core, measured now: %.1f GFLOP/s (%s, %s, %zu lanes x %d chains)\n",
         peak.gflops, peak.target, peak.dispatch, peak.lanes, peak.chains);
  const double gflops = flops / best * 1e-9;
  printf("best of 5: %.2f ms = %.1f GFLOP/s on %s, one core = %.0f%% of the FMA peak\n", best * 1e3,
         gflops, ea_simd_target(), 100.0 * gflops / peak.gflops);
  printf("(FLOPs = 4 n^2 d, for Q K^T and P V; softmax not counted)\n");
  if (strcmp(peak.target, ea_simd_target()) != 0) {
    printf("note: the probe ran %s, the library %s: the share compares different targets\n",
           peak.target, ea_simd_target());
  }
  return TimeLargeAttentionOnWorkers(&arena, best, flops, peak.gflops);
}

}  // namespace

int main() {
  printf("edgeattn %s, SIMD target %s\n", EDGEATTN_VERSION_STRING, ea_simd_target());
  printf("toy model: embeddings and weights are made up (deterministic hash values),\n");
  printf("           not a trained model; only the symmetry below is meaningful\n");
  MakeToyModel();
  ea_mha_weights weights{};  // fields by name; the biases stay NULL
  weights.in_proj_weight = g_in_proj;
  weights.out_proj_weight = g_out_proj;
  if (Plain::Plan(&g_plain_plan, weights, g_plain_arena) != EA_OK ||
      Positioned::Plan(&g_positioned_plan, weights, g_positioned_arena) != EA_OK) {
    printf("planning failed\n");
    return 1;
  }
  printf("MHA d_model=%d, %d heads; arenas: %zu bytes without positions, %zu with\n", kDModel,
         kHeads, Plain::kArenaBytes, Positioned::kArenaBytes);

  float weights_a[kHeads * kWords * kWords];
  const float plain_gap = PermutationGap(g_plain_plan, weights_a);
  const float positioned_gap = PermutationGap(g_positioned_plan, weights_a);
  printf("\n\"the dog chased the cat\" vs \"the cat chased the dog\"\n");
  printf("  without positions: outputs equal up to the permutation, max gap %.2e\n", plain_gap);
  printf("  with sinusoidal positions: max gap %.3f (word order now matters)\n", positioned_gap);
  const bool as_expected = plain_gap < 1e-5f && positioned_gap > 1e-2f;
  PrintHeatTable(weights_a);

  if (TimeLargeAttention() != 0) return 1;
  if (!as_expected) {
    printf("unexpected: the permutation gaps do not show equivariance\n");
    return 1;
  }
  return 0;
}
