// One benchmark shape made runnable: the same deterministic inputs fed to edgeattn (planned
// once, arena aligned, runs allocate nothing), to the Eigen peer and to the oneDNN peer
// (primitives and memory objects made here, once), each writing its own output so that the
// three can be cross-checked before anything is timed. edgeattn's plan takes the shape's
// parallel-for hook (its workers), so a multi-worker workload runs on the caller's pool.
#ifndef EDGEATTN_BENCH_WORKLOADS_H_
#define EDGEATTN_BENCH_WORKLOADS_H_

#include <stddef.h>

#include <memory>
#include <string>
#include <vector>

#include "benchmark_names.h"
#include "edgeattn/edgeattn.h"
#include "shapes.h"

namespace edgeattn_bench {

class Workload {
 public:
  virtual ~Workload() = default;
  // EA_OK once edgeattn's plan is made; RunEdgeattn repeats any planning error.
  ea_status plan_status() const { return plan_status_; }
  virtual ea_status RunEdgeattn() = 0;
  virtual void RunEigen() = 0;
  virtual void RunOnednn() = 0;
  // The oneDNN implementations the peer's primitives use ("brg:avx512_core", ...).
  virtual std::string OnednnImplementations() const = 0;
  // max |edgeattn - peer| / max |peer| over the outputs of the latest runs (peer: Eigen or
  // oneDNN).
  double RelativeGap(Library peer) const;
  // edgeattn's output of the latest run (multi-worker rows are compared with it bit by bit).
  const std::vector<float>& edgeattn_output() const { return edgeattn_out_; }

 protected:
  // Every library's output has `output_floats` elements.
  explicit Workload(size_t output_floats);

  ea_status plan_status_ = EA_ERR_BAD_ARGUMENT;
  std::vector<float> edgeattn_out_;
  std::vector<float> eigen_out_;
  std::vector<float> onednn_out_;
};

// The workload of a float32 shape (fixed-point shapes: quant_workloads.h; KV-cache shapes:
// decode_stream.h, nullptr here), edgeattn planned with `parallel` (zero: one worker; a
// multi-worker shape passes WorkerPool::HookFor(shape.workers), and plans an arena with a score
// tile per worker). A shape with SimdTarget::kAvx2 must be made under the AVX2 cap
// (ScopedSimdCap), which init applies.
std::unique_ptr<Workload> MakeWorkload(const Shape& shape, const ea_parallel_for& parallel);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_WORKLOADS_H_
