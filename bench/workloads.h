// One benchmark shape made runnable: the same deterministic inputs fed to edgeattn (planned
// once, arena aligned, runs allocate nothing) and to the Eigen peer, each writing its own
// output so the two can be cross-checked before anything is timed.
#ifndef EDGEATTN_BENCH_WORKLOADS_H_
#define EDGEATTN_BENCH_WORKLOADS_H_

#include <memory>
#include <vector>

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
  // max |edgeattn - Eigen| / max |Eigen| over the outputs of the latest runs.
  double RelativeGap() const;

 protected:
  ea_status plan_status_ = EA_ERR_BAD_ARGUMENT;
  std::vector<float> edgeattn_out_;
  std::vector<float> eigen_out_;
};

std::unique_ptr<Workload> MakeWorkload(const Shape& shape);

}  // namespace edgeattn_bench

#endif  // EDGEATTN_BENCH_WORKLOADS_H_
