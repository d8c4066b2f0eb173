// Per-target instantiation and dispatch of the projection kernel.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/f32/linear_f32.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "kernels/f32/cortex_m_f32-inl.h"
#include "kernels/f32/linear_f32-inl.h"

HWY_BEFORE_NAMESPACE();
namespace edgeattn {
namespace HWY_NAMESPACE {

void LinearF32Target(const float* x, size_t ld_x, int32_t rows, int32_t n_in, const float* packed_w,
                     const float* bias, int32_t n_out, float* y, size_t ld_y) {
  const LinearArgs args{
      x, ld_x, static_cast<size_t>(n_in), packed_w, bias, static_cast<size_t>(n_out), y, ld_y};
#if EDGEATTN_CORTEX_M_F32
  LinearCortexM(x, ld_x, static_cast<size_t>(rows), args.n_in, packed_w, bias, args.n_out, y, ld_y);
#else
  LinearPacked(args, static_cast<size_t>(rows));
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace edgeattn
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/f32/f32_kernels.h"
#include "kernels/f32/transposed_panels.h"
#include "runtime/dispatch.h"
#include "runtime/parallel_for.h"

namespace edgeattn {

EA_EXPORT(LinearF32Target);

void LinearF32(const float* x, size_t ld_x, int32_t rows, int32_t n_in, const float* packed_w,
               const float* bias, int32_t n_out, float* y, size_t ld_y) {
  EA_DISPATCH(LinearF32Target)(x, ld_x, rows, n_in, packed_w, bias, n_out, y, ld_y);
}

bool LinearF32Tasks(const ea_parallel_for& parallel, const float* x, size_t ld_x, int32_t rows,
                    int32_t n_in, const float* packed_w, const float* bias, int32_t n_out, float* y,
                    size_t ld_y) {
  static_assert(kLinearColumnsPerTask == kKeyBlock, "a task is one panel of the packed W");
  return RunTasks(parallel, LinearTaskCount(rows, n_out), [&](int32_t task, int32_t /* worker */) {
    const LinearTask t = LinearTaskOf(task, rows, n_out);
    const size_t row = static_cast<size_t>(t.first_row);
    LinearF32(x + row * ld_x, ld_x, t.rows, n_in, Panel(packed_w, n_in, t.first_out / kKeyBlock),
              bias != nullptr ? bias + t.first_out : nullptr, t.outputs,
              y + row * ld_y + t.first_out, ld_y);
  });
}

}  // namespace edgeattn
#endif  // HWY_ONCE
