// The AVX2 rows: edgeattn's kernels capped at a SIMD target for one scope. The cap is Highway's
// process-wide target choice (ea_set_max_simd_target), so the FMA probe's dynamic dispatch
// obeys it too, which is how the AVX2 peak is measured. Leaving the scope drops the explicit
// cap (EDGEATTN_MAX_SIMD_TARGET, if set, applies again).
#ifndef EDGEATTN_BENCH_SIMD_CAP_H_
#define EDGEATTN_BENCH_SIMD_CAP_H_

#include "edgeattn/edgeattn.h"

namespace edgeattn_bench {

class ScopedSimdCap {
 public:
  // A Highway target name ("AVX2"); nullptr leaves the dispatch as it is.
  explicit ScopedSimdCap(const char* target);
  ~ScopedSimdCap();
  ScopedSimdCap(const ScopedSimdCap&) = delete;
  ScopedSimdCap& operator=(const ScopedSimdCap&) = delete;

  // ea_set_max_simd_target's answer (EA_OK when there was nothing to cap).
  ea_status status() const { return status_; }

 private:
  bool capped_ = false;
  ea_status status_ = EA_OK;
};

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_SIMD_CAP_H_
