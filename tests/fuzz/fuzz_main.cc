// libFuzzer entry point of the edgeattn harness (tests/fuzz/README.md): the
// first byte of an input picks the entry-point family, the rest is that
// family's case (fuzz_case.h).
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <chrono>

#include "byte_reader.h"
#include "failure.h"
#include "fuzz_case.h"
#include "fuzz_drivers.h"
#include "reference_bound.h"
#include "simd_targets.h"

namespace {
// Inputs run per family, for the log.
size_t g_family_inputs[edgeattn_fuzz::kOperationCount] = {};
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  edgeattn_fuzz::InitTargets();
  fprintf(stderr, "edgeattn fuzz: %zu SIMD targets:", edgeattn_fuzz::Targets().size());
  for (int64_t target : edgeattn_fuzz::Targets()) {
    fprintf(stderr, " %s", edgeattn_fuzz::TargetName(target));
  }
  fprintf(stderr, "\n");
  atexit([] {
    const edgeattn_fuzz::BoundStats& stats = edgeattn_fuzz::Stats();
    fprintf(stderr, "edgeattn fuzz: error bound checked %zu times, %zu ill-conditioned skipped\n",
            stats.checked, stats.ill_conditioned);
    fprintf(
        stderr,
        "edgeattn fuzz: inputs per family (attention, self-attention, MHA, API, "
        "quant MHA, quant self-attention, KV cache, weight files, ADD and MUL, quant attention, "
        "MHA decoder, MHA cross, quant decoder, quant RoPE, quant cross):");
    for (size_t count : g_family_inputs) fprintf(stderr, " %zu", count);
    fprintf(stderr, "\n");
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto start = std::chrono::steady_clock::now();
  edgeattn_fuzz::ByteReader input(data, size);
  uint8_t operation = 0;
  input.U8(operation);
  ++g_family_inputs[operation % edgeattn_fuzz::kOperationCount];
  switch (operation % edgeattn_fuzz::kOperationCount) {
    case edgeattn_fuzz::kAttention:
      edgeattn_fuzz::FuzzAttention(input);
      break;
    case edgeattn_fuzz::kSelfAttention:
      edgeattn_fuzz::FuzzSelfAttention(input);
      break;
    case edgeattn_fuzz::kMha:
      edgeattn_fuzz::FuzzMha(input);
      break;
    case edgeattn_fuzz::kQuantMha:
      edgeattn_fuzz::FuzzQuantMha(input);
      break;
    case edgeattn_fuzz::kQuantSelfAttention:
      edgeattn_fuzz::FuzzQuantSelfAttention(input);
      break;
    case edgeattn_fuzz::kKvCache:
      edgeattn_fuzz::FuzzKvCache(input);
      break;
    case edgeattn_fuzz::kWeightFile:
      edgeattn_fuzz::FuzzWeightFile(input);
      break;
    case edgeattn_fuzz::kElementwise:
      edgeattn_fuzz::FuzzElementwise(input);
      break;
    case edgeattn_fuzz::kQuantAttention:
      edgeattn_fuzz::FuzzQuantAttention(input);
      break;
    case edgeattn_fuzz::kQuantDecoder:
      edgeattn_fuzz::FuzzQuantDecoder(input);
      break;
    case edgeattn_fuzz::kMhaDecoder:
      edgeattn_fuzz::FuzzMhaDecoder(input);
      break;
    case edgeattn_fuzz::kMhaCross:
      edgeattn_fuzz::FuzzMhaCross(input);
      break;
    case edgeattn_fuzz::kQuantRope:
      edgeattn_fuzz::FuzzQuantRope(input);
      break;
    case edgeattn_fuzz::kQuantCross:
      edgeattn_fuzz::FuzzQuantCross(input);
      break;
    default:
      edgeattn_fuzz::FuzzApi(input);
      break;
  }
  edgeattn_fuzz::Debug("input of %zu bytes took %lld us\n", size,
                       static_cast<long long>(std::chrono::duration_cast<std::chrono::microseconds>(
                                                  std::chrono::steady_clock::now() - start)
                                                  .count()));
  return 0;
}
