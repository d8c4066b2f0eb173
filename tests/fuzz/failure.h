// How the harness reports a broken invariant: one line naming the check,
// the entry point and the target, then abort() so that libFuzzer saves the
// input as a crash artifact.
#ifndef EDGEATTN_TESTS_FUZZ_FAILURE_H_
#define EDGEATTN_TESTS_FUZZ_FAILURE_H_

namespace edgeattn_fuzz {

// The entry point and SIMD target being exercised, printed with a failure.
void SetContext(const char* entry_point, const char* target);

// True when EDGEATTN_FUZZ_DEBUG is set: drivers then print each decoded case.
bool Debugging();
// printf-style message to stderr when Debugging().
void Debug(const char* format, ...) __attribute__((format(printf, 1, 2)));

// printf-style message, then abort().
[[noreturn]] void Fail(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace edgeattn_fuzz

#endif  // EDGEATTN_TESTS_FUZZ_FAILURE_H_
