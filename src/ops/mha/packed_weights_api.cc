// C entry points that pack weight matrices for the projection kernel, so that
// firmware can keep them packed in flash (EA_WEIGHTS_PACKED).
#include "edgeattn/arena_sizes.hpp"
#include "edgeattn/edgeattn.h"
#include "kernels/f32/transposed_panels.h"
#include "runtime/validation.h"

namespace edgeattn {
namespace {

ea_status ValidateLinearShape(int32_t n_out, int32_t n_in) {
  const ea_status status = CheckPositive(n_out, n_in, 1, 1);
  return status == EA_OK ? CheckPanelElements(n_out, n_in) : status;
}

}  // namespace
}  // namespace edgeattn

extern "C" {

ea_status ea_linear_packed_size(int32_t n_out, int32_t n_in, size_t* floats) {
  if (floats == nullptr) return EA_ERR_NULL_POINTER;
  const ea_status status = edgeattn::ValidateLinearShape(n_out, n_in);
  if (status != EA_OK) return status;
  *floats = static_cast<size_t>(edgeattn::PackedLinearFloats(n_out, n_in));
  return EA_OK;
}

ea_status ea_linear_pack_weights(const float* w, int32_t n_out, int32_t n_in, float* packed,
                                 size_t packed_floats) {
  if (w == nullptr || packed == nullptr) return EA_ERR_NULL_POINTER;
  const ea_status status = edgeattn::ValidateLinearShape(n_out, n_in);
  if (status != EA_OK) return status;
  const uint64_t needed = edgeattn::PackedLinearFloats(n_out, n_in);
  if (packed_floats < needed) return EA_ERR_ARENA_TOO_SMALL;
  if (edgeattn::Overlaps(w, edgeattn::FloatBytes(int64_t{n_out} * n_in), packed,
                         edgeattn::FloatBytes(static_cast<int64_t>(needed)))) {
    return EA_ERR_BAD_ARGUMENT;
  }
  edgeattn::PackTransposedPanels(w, static_cast<size_t>(n_in), n_out, n_in, packed);
  return EA_OK;
}

}  // extern "C"
