#include "simd_targets.h"

#include <string.h>

#include <hwy/highway.h>
#include <hwy/targets.h>

#include "edgeattn/edgeattn.h"
#include "failure.h"

namespace edgeattn_fuzz {
namespace {

std::vector<int64_t>& TargetList() {
  static std::vector<int64_t> targets;
  return targets;
}

}  // namespace

void InitTargets() {
  (void)ea_simd_target();  // the first dynamic dispatch
  std::vector<int64_t>& targets = TargetList();
  targets.clear();
  for (int64_t bits = hwy::SupportedTargets() & HWY_TARGETS; bits != 0; bits &= bits - 1) {
    targets.push_back(bits & ~(bits - 1));
  }
}

const std::vector<int64_t>& Targets() { return TargetList(); }

std::vector<int64_t> SelectTargets(uint8_t selector) {
  std::vector<int64_t> chosen;
  for (size_t i = 0; i < Targets().size() && i < 8; ++i) {
    if (selector & (1u << i)) chosen.push_back(Targets()[i]);
  }
  return chosen.empty() ? Targets() : chosen;
}

void ForceTarget(int64_t target) {
  hwy::SetSupportedTargetsForTest(target);
  if (target == 0) return;
  const char* reported = ea_simd_target();
  if (reported == nullptr || strcmp(reported, hwy::TargetName(target)) != 0) {
    Fail("ea_simd_target() says %s after forcing %s", reported ? reported : "(null)",
         hwy::TargetName(target));
  }
  const size_t bytes = ea_simd_vector_bytes();
  if (bytes < 4 || bytes > 256 || (bytes & (bytes - 1)) != 0) {
    Fail("ea_simd_vector_bytes() = %zu on %s", bytes, hwy::TargetName(target));
  }
}

const char* TargetName(int64_t target) { return target == 0 ? "default" : hwy::TargetName(target); }

}  // namespace edgeattn_fuzz
