// The documented validation rules (include/edgeattn/edgeattn.h, DESIGN.md
// section 6), restated independently of src/validation.cc: which statuses a
// call may return for a given argument set. The order in which the library
// checks is not documented, so a call that breaks several rules may return
// the status of any of them; a call that breaks none must return EA_OK.
#ifndef EDGEATTN_TESTS_FUZZ_EXPECTED_STATUS_H_
#define EDGEATTN_TESTS_FUZZ_EXPECTED_STATUS_H_

#include <stdint.h>

#include <string>

#include "edgeattn/edgeattn.h"

namespace edgeattn_fuzz {

class StatusSet {
 public:
  // A broken rule and the status it calls for.
  void Add(ea_status status) { broken_ |= 1u << static_cast<unsigned>(status); }
  // An undocumented corner (an input aliasing scratch, a partial in-place
  // overlap): the library may refuse it with EA_ERR_BAD_ARGUMENT or accept
  // it, and then must compute the right result.
  void AllowRefusal() { refusable_ = true; }
  void Merge(const StatusSet& other) {
    broken_ |= other.broken_;
    refusable_ = refusable_ || other.refusable_;
  }

  bool MustFail() const { return broken_ != 0; }
  bool Allows(ea_status status) const;
  std::string Describe() const;

 private:
  uint32_t broken_ = 0;
  bool refusable_ = false;
};

// Rules of the configs alone (no pointers, no arena).
StatusSet AttentionConfigRules(const ea_attention_config& config);
StatusSet SelfAttentionConfigRules(const ea_self_attention_config& config);
StatusSet MhaConfigRules(const ea_mha_config& config);

// The arena rules of plan_init for a plan needing `need` bytes (need is
// meaningful only when the config is valid: pass config_valid).
StatusSet ArenaRules(const ea_arena& arena, uint64_t need, bool config_valid);

// Elements of a [rows, cols] tensor exceed EA_MAX_ELEMENTS.
bool TooManyElements(int64_t rows, int64_t cols);

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_EXPECTED_STATUS_H_
