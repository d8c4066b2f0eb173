// Proof that no edgeattn entry point touches the heap (the library's central promise).
//
// How: this executable defines malloc, calloc, realloc, reallocarray, free, aligned_alloc,
// posix_memalign, memalign, valloc, pvalloc and every global operator new / operator delete.
// Definitions in the executable interpose glibc's for the whole process (libstdc++, libhwy and
// libc's internal callers too); edgeattn is linked in statically. The replacements forward to
// glibc's __libc_* functions and, while `g_armed` is set, count every call and record the first
// few call stacks. HeapCallsDuring() arms around exactly one closure, so GoogleTest's own
// allocations are not counted; buffers are allocated before arming. Every library call here is
// armed, the process's first Highway-dispatched call included (it runs libhwy's one-time target
// selection): nothing is warmed up unarmed. Self-tests show that each replacement counts.
// ASan brings its own malloc, so this binary is never built with it.
#include <errno.h>
#include <execinfo.h>
#include <malloc.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <new>
#include <string>
#include <vector>

#include <hwy/targets.h>

#include "data/weights/sample_files.h"
#include "edgeattn/cross.h"
#include "edgeattn/decoder.h"
#include "edgeattn/edgeattn.h"
#include "edgeattn/kv_cache.h"
#include "edgeattn/rope.h"
#include "edgeattn/weight_file.h"
#include "flat_quant_configs.h"
#include "reference/random_tensor.h"
#include "test_support.h"

// glibc's real allocator, under names the replacements below do not shadow.
extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* pointer, size_t size);
void __libc_free(void* pointer);
void* __libc_memalign(size_t alignment, size_t size);
void* __libc_valloc(size_t size);
void* __libc_pvalloc(size_t size);
}

namespace {

std::atomic<bool> g_armed{false};
std::atomic<size_t> g_heap_calls{0};

// Call stacks of the first kMaxRecorded armed calls, printed after disarming.
constexpr size_t kMaxRecorded = 4;
constexpr int kMaxFrames = 48;
const char* g_recorded_what[kMaxRecorded];
void* g_recorded_frames[kMaxRecorded][kMaxFrames];
int g_recorded_depth[kMaxRecorded];
thread_local bool t_recording = false;

// backtrace() loads libgcc_s (and allocates) on its first use: do that now, unarmed.
const bool g_backtrace_primed = [] {
  void* frame[2];
  return backtrace(frame, 2) >= 0;
}();

void CountHeapCall(const char* what) {
  if (!g_armed.load()) return;
  const size_t index = g_heap_calls.fetch_add(1);
  // A nested call from backtrace() itself is counted but not recorded.
  if (index >= kMaxRecorded || t_recording) return;
  t_recording = true;
  g_recorded_what[index] = what;
  g_recorded_depth[index] = backtrace(g_recorded_frames[index], kMaxFrames);
  t_recording = false;
}

void PrintRecordedStacks(size_t calls) {
  fprintf(stderr,
          "*** %zu heap call(s) while armed; the first stacks follow "
          "(resolve ./no_heap_test(+0x...) offsets with addr2line -Cfe):\n",
          calls);
  for (size_t i = 0; i < calls && i < kMaxRecorded; ++i) {
    fprintf(stderr, "--- heap call %zu: %s\n", i + 1, g_recorded_what[i]);
    backtrace_symbols_fd(g_recorded_frames[i], g_recorded_depth[i], STDERR_FILENO);
  }
}

// Runs f with the counter armed and returns how many allocation or deallocation calls (of
// any thread) it made. Stacks of counted calls go to stderr unless print_stacks is false.
template <class F>
size_t HeapCallsDuring(F f, bool print_stacks = true) {
  g_heap_calls.store(0);
  g_armed.store(true);
  f();
  g_armed.store(false);
  const size_t calls = g_heap_calls.load();
  if (calls > 0 && print_stacks) PrintRecordedStacks(calls);
  return calls;
}

void* CountedMemalign(const char* what, size_t alignment, size_t size) {
  CountHeapCall(what);
  return __libc_memalign(alignment, size);
}

void* NewOrThrow(const char* what, size_t size) {
  CountHeapCall(what);
  void* pointer = __libc_malloc(size == 0 ? 1 : size);
  if (pointer == nullptr) throw std::bad_alloc();
  return pointer;
}

void* AlignedNewOrThrow(const char* what, size_t size, std::align_val_t alignment) {
  void* pointer = CountedMemalign(what, static_cast<size_t>(alignment), size == 0 ? 1 : size);
  if (pointer == nullptr) throw std::bad_alloc();
  return pointer;
}

void CountedFree(const char* what, void* pointer) {
  CountHeapCall(what);
  __libc_free(pointer);
}

}  // namespace

// ---------------------------------------------------------------- C allocator

extern "C" {

void* malloc(size_t size) noexcept {
  CountHeapCall("malloc");
  return __libc_malloc(size);
}

void* calloc(size_t count, size_t size) noexcept {
  CountHeapCall("calloc");
  return __libc_calloc(count, size);
}

void* realloc(void* pointer, size_t size) noexcept {
  CountHeapCall("realloc");
  return __libc_realloc(pointer, size);
}

// glibc's reallocarray calls its realloc internally, past any interposer: count it here.
void* reallocarray(void* pointer, size_t count, size_t size) noexcept {
  CountHeapCall("reallocarray");
  if (size != 0 && count > SIZE_MAX / size) {
    errno = ENOMEM;
    return nullptr;
  }
  return __libc_realloc(pointer, count * size);
}

void free(void* pointer) noexcept { CountedFree("free", pointer); }

void* aligned_alloc(size_t alignment, size_t size) noexcept {
  return CountedMemalign("aligned_alloc", alignment, size);
}

int posix_memalign(void** result, size_t alignment, size_t size) noexcept {
  CountHeapCall("posix_memalign");
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) {
    return EINVAL;
  }
  void* pointer = __libc_memalign(alignment, size);
  if (pointer == nullptr) return ENOMEM;
  *result = pointer;
  return 0;
}

void* memalign(size_t alignment, size_t size) noexcept {
  return CountedMemalign("memalign", alignment, size);
}

void* valloc(size_t size) noexcept {
  CountHeapCall("valloc");
  return __libc_valloc(size);
}

void* pvalloc(size_t size) noexcept {
  CountHeapCall("pvalloc");
  return __libc_pvalloc(size);
}

}  // extern "C"

// ---------------------------------------------------- global operator new / delete

void* operator new(size_t size) { return NewOrThrow("operator new", size); }
void* operator new[](size_t size) { return NewOrThrow("operator new[]", size); }

void* operator new(size_t size, const std::nothrow_t&) noexcept {
  CountHeapCall("operator new(nothrow)");
  return __libc_malloc(size == 0 ? 1 : size);
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  CountHeapCall("operator new[](nothrow)");
  return __libc_malloc(size == 0 ? 1 : size);
}

void* operator new(size_t size, std::align_val_t alignment) {
  return AlignedNewOrThrow("operator new(align)", size, alignment);
}
void* operator new[](size_t size, std::align_val_t alignment) {
  return AlignedNewOrThrow("operator new[](align)", size, alignment);
}

void* operator new(size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return CountedMemalign("operator new(align, nothrow)", static_cast<size_t>(alignment),
                         size == 0 ? 1 : size);
}
void* operator new[](size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return CountedMemalign("operator new[](align, nothrow)", static_cast<size_t>(alignment),
                         size == 0 ? 1 : size);
}

void operator delete(void* pointer) noexcept { CountedFree("operator delete", pointer); }
void operator delete[](void* pointer) noexcept { CountedFree("operator delete[]", pointer); }

void operator delete(void* pointer, const std::nothrow_t&) noexcept {
  CountedFree("operator delete(nothrow)", pointer);
}
void operator delete[](void* pointer, const std::nothrow_t&) noexcept {
  CountedFree("operator delete[](nothrow)", pointer);
}

void operator delete(void* pointer, size_t) noexcept {
  CountedFree("operator delete(sized)", pointer);
}
void operator delete[](void* pointer, size_t) noexcept {
  CountedFree("operator delete[](sized)", pointer);
}

void operator delete(void* pointer, std::align_val_t) noexcept {
  CountedFree("operator delete(align)", pointer);
}
void operator delete[](void* pointer, std::align_val_t) noexcept {
  CountedFree("operator delete[](align)", pointer);
}

void operator delete(void* pointer, std::align_val_t, const std::nothrow_t&) noexcept {
  CountedFree("operator delete(align, nothrow)", pointer);
}
void operator delete[](void* pointer, std::align_val_t, const std::nothrow_t&) noexcept {
  CountedFree("operator delete[](align, nothrow)", pointer);
}

void operator delete(void* pointer, size_t, std::align_val_t) noexcept {
  CountedFree("operator delete(sized, align)", pointer);
}
void operator delete[](void* pointer, size_t, std::align_val_t) noexcept {
  CountedFree("operator delete[](sized, align)", pointer);
}

namespace edgeattn_test {
namespace {

// Makes one armed library call, expects it to make no heap call, and returns its result.
template <class F>
auto ArmedCall(const char* file, int line, const char* call_text, F call) -> decltype(call()) {
  decltype(call()) result{};
  const size_t calls = HeapCallsDuring([&] { result = call(); });
  if (calls != 0) {
    ADD_FAILURE_AT(file, line) << call_text << " made " << calls << " heap call(s); stacks above";
  }
  return result;
}

// NO_HEAP(ea_...(...)): the call, armed and checked; evaluates to its result.
#define NO_HEAP(call) ArmedCall(__FILE__, __LINE__, #call, [&] { return (call); })

// ------------------------------------------------------------ interposer self-test

void* volatile g_sink = nullptr;  // keeps the compiler from eliding the allocations below
struct alignas(128) Wide {
  float lanes[32];
};

void PosixMemalignAndFree() {
  void* pointer = nullptr;
  g_sink = posix_memalign(&pointer, 64, 128) == 0 ? pointer : nullptr;
  free(g_sink);
}

TEST(NoHeapInterposer, NewExpressionAndMallocAreCounted) {
  EXPECT_GE(HeapCallsDuring([] { g_sink = new int(7); }, false), 1u);
  delete static_cast<int*>(g_sink);
  EXPECT_GE(HeapCallsDuring([] { g_sink = malloc(24); }, false), 1u);
  free(g_sink);
}

// One probe per replacement: each allocates and releases (realloc and reallocarray also
// allocate first), so a function that escaped interposition shows up as a short count.
struct Probe {
  const char* name;
  size_t expected_calls;
  void (*run)();
};

constexpr std::align_val_t kAlign{128};
const Probe kProbes[] = {
    {"malloc, free", 2, [] { free(g_sink = malloc(8)); }},
    {"calloc", 2, [] { free(g_sink = calloc(3, 8)); }},
    {"realloc", 3, [] { free(g_sink = realloc(g_sink = malloc(8), 4096)); }},
    {"reallocarray", 3, [] { free(g_sink = reallocarray(g_sink = malloc(8), 64, 8)); }},
    {"aligned_alloc", 2, [] { free(g_sink = aligned_alloc(64, 128)); }},
    {"posix_memalign", 2, PosixMemalignAndFree},
    {"memalign", 2, [] { free(g_sink = memalign(64, 128)); }},
    {"valloc", 2, [] { free(g_sink = valloc(128)); }},
    {"pvalloc", 2, [] { free(g_sink = pvalloc(128)); }},
    {"new, delete", 2, [] { ::operator delete(g_sink = ::operator new(8)); }},
    {"new[], delete[]", 2, [] { ::operator delete[](g_sink = ::operator new[](8)); }},
    {"new, sized delete", 2, [] { ::operator delete(g_sink = ::operator new(8), 8); }},
    {"new[], sized delete[]", 2, [] { ::operator delete[](g_sink = ::operator new[](8), 8); }},
    {"nothrow new, delete", 2,
     [] { ::operator delete(g_sink = ::operator new(8, std::nothrow), std::nothrow); }},
    {"nothrow new[], delete[]", 2,
     [] { ::operator delete[](g_sink = ::operator new[](8, std::nothrow), std::nothrow); }},
    {"aligned new, delete", 2,
     [] { ::operator delete(g_sink = ::operator new(256, kAlign), kAlign); }},
    {"aligned new[], delete[]", 2,
     [] { ::operator delete[](g_sink = ::operator new[](256, kAlign), kAlign); }},
    {"aligned new, sized delete", 2,
     [] { ::operator delete(g_sink = ::operator new(256, kAlign), 256, kAlign); }},
    {"aligned new[], sized delete[]", 2,
     [] { ::operator delete[](g_sink = ::operator new[](256, kAlign), 256, kAlign); }},
    {"aligned nothrow new, delete", 2,
     [] {
       ::operator delete(g_sink = ::operator new(256, kAlign, std::nothrow), kAlign, std::nothrow);
     }},
    {"aligned nothrow new[], delete[]", 2,
     [] {
       ::operator delete[](g_sink = ::operator new[](256, kAlign, std::nothrow), kAlign,
                           std::nothrow);
     }},
    // An over-aligned new-expression picks the align_val_t forms.
    {"new Wide, delete", 2, [] { delete static_cast<Wide*>(g_sink = new Wide()); }},
};

TEST(NoHeapInterposer, EveryReplacementCountsEachCall) {
  for (const Probe& probe : kProbes) {
    EXPECT_EQ(HeapCallsDuring(probe.run, false), probe.expected_calls) << probe.name;
  }
}

TEST(NoHeapInterposer, UnarmedCallsAreNotCounted) {
  HeapCallsDuring([] {});
  std::vector<float> buffer(1000);  // an allocation outside any armed region
  g_sink = buffer.data();
  EXPECT_EQ(g_heap_calls.load(), 0u);
  EXPECT_EQ(HeapCallsDuring([] {}), 0u);
}

// ------------------------------------------------------------------ shapes and inputs

constexpr float kNaN = NAN;

void ExpectAllFinite(const std::vector<float>& values, const char* what) {
  size_t bad = 0;
  for (float v : values) bad += std::isfinite(v) ? 0 : 1;
  EXPECT_EQ(bad, 0u) << what << ": entries not written (still NaN) or not finite";
}

// Odd sizes: vector tails, more than one 64-key panel, more than one 16-query block.
constexpr int32_t kNq = 19;
constexpr int32_t kNkv = 70;
constexpr int32_t kDk = 12;
constexpr int32_t kDv = 9;
constexpr int32_t kMaxTokens = 37;
constexpr int32_t kDModel = 24;
constexpr int32_t kSelfDk = 12;
constexpr int32_t kSelfDv = 10;
constexpr int32_t kHeads = 3;

size_t Count(int64_t rows, int64_t cols) { return static_cast<size_t>(rows * cols); }

enum class Position { kNone, kSinusoidalInArena, kSinusoidalFromCaller, kLearned };

struct Case {
  Position position;
  ea_mask mask;
  bool want_weights;
};

const char* PositionName(Position p) {
  switch (p) {
    case Position::kNone:
      return "NoPosition";
    case Position::kSinusoidalInArena:
      return "SinusoidalInArena";
    case Position::kSinusoidalFromCaller:
      return "SinusoidalFromCaller";
    case Position::kLearned:
      return "Learned";
  }
  return "?";
}

std::string CaseName(const Case& c) {
  return std::string(PositionName(c.position)) + (c.mask == EA_MASK_CAUSAL ? "Causal" : "Full") +
         (c.want_weights ? "WithWeights" : "NoWeights");
}

std::vector<Case> Cases(bool with_positions) {
  std::vector<Case> cases;
  const std::vector<Position> positions =
      with_positions ? std::vector<Position>{Position::kNone, Position::kSinusoidalInArena,
                                             Position::kSinusoidalFromCaller, Position::kLearned}
                     : std::vector<Position>{Position::kNone};
  for (Position position : positions) {
    for (ea_mask mask : {EA_MASK_NONE, EA_MASK_CAUSAL}) {
      for (bool want_weights : {false, true}) cases.push_back({position, mask, want_weights});
    }
  }
  return cases;
}

std::string ParamName(const testing::TestParamInfo<Case>& info) { return CaseName(info.param); }

// A caller position table ([kMaxTokens, kDModel]) for the case, filled armed; null when the
// plan needs none or fills its own.
std::vector<float> PositionTable(Position position) {
  std::vector<float> table;
  if (position == Position::kLearned) table = RandomTensor(Count(kMaxTokens, kDModel), 91, 0.5);
  if (position == Position::kSinusoidalFromCaller) {
    table.assign(Count(kMaxTokens, kDModel), kNaN);
    EXPECT_EQ(NO_HEAP(ea_sinusoidal_table_fill(table.data(), kMaxTokens, kDModel)), EA_OK);
  }
  return table;
}

ea_position ApiPosition(Position position) {
  switch (position) {
    case Position::kNone:
      return EA_POSITION_NONE;
    case Position::kSinusoidalInArena:
    case Position::kSinusoidalFromCaller:
      return EA_POSITION_SINUSOIDAL;
    case Position::kLearned:
      return EA_POSITION_LEARNED;
  }
  return EA_POSITION_NONE;
}

// An arena of exactly `bytes`, initialised armed. The buffer is allocated unarmed.
struct TestArena {
  explicit TestArena(size_t bytes) : buffer(bytes) {
    EXPECT_EQ(NO_HEAP(ea_arena_init(&arena, buffer.data(), buffer.size())), EA_OK);
  }
  AlignedBytes buffer;
  ea_arena arena{};
};

// ------------------------------------------------------------------ the entry points

void RunAttentionCase(const Case& c) {
  SCOPED_TRACE(CaseName(c));
  const ea_attention_config config{EA_DTYPE_F32,      kNq,     kNkv,   kDk, kDv, c.mask, 0.0f,
                                   ea_parallel_for{}, nullptr, nullptr};
  size_t bytes = 0;
  ASSERT_EQ(NO_HEAP(ea_attention_arena_size(&config, &bytes)), EA_OK);
  TestArena arena(bytes);
  const std::vector<float> q = RandomTensor(Count(kNq, kDk), 1);
  const std::vector<float> k = RandomTensor(Count(kNkv, kDk), 2);
  const std::vector<float> v = RandomTensor(Count(kNkv, kDv), 3);
  std::vector<float> out(Count(kNq, kDv), kNaN);
  std::vector<float> weights(c.want_weights ? Count(kNq, kNkv) : 0, kNaN);
  float* weights_out = c.want_weights ? weights.data() : nullptr;

  ea_attention_plan plan{};
  ASSERT_EQ(NO_HEAP(ea_attention_init(&plan, &config, &arena.arena)), EA_OK);
  EXPECT_EQ(NO_HEAP(ea_arena_remaining(&arena.arena)), 0u);
  for (int32_t n_valid_keys : {kNkv, kNkv - 5}) {
    EXPECT_EQ(NO_HEAP(ea_attention_run(&plan, q.data(), k.data(), v.data(), n_valid_keys,
                                       out.data(), weights_out)),
              EA_OK);
  }
  ExpectAllFinite(out, "out");
  ExpectAllFinite(weights, "attn_weights");
}

void RunSelfAttentionCase(const Case& c) {
  SCOPED_TRACE(CaseName(c));
  const std::vector<float> table = PositionTable(c.position);
  const ea_self_attention_config config{EA_DTYPE_F32,
                                        kMaxTokens,
                                        kDModel,
                                        kSelfDk,
                                        kSelfDv,
                                        c.mask,
                                        ApiPosition(c.position),
                                        table.empty() ? nullptr : table.data(),
                                        EA_WEIGHTS_ROW_MAJOR,
                                        ea_parallel_for{},
                                        nullptr,
                                        nullptr,
                                        nullptr};
  size_t bytes = 0;
  ASSERT_EQ(NO_HEAP(ea_self_attention_arena_size(&config, &bytes)), EA_OK);
  const std::vector<float> w_q = RandomTensor(Count(kSelfDk, kDModel), 11, 0.2);
  const std::vector<float> w_k = RandomTensor(Count(kSelfDk, kDModel), 12, 0.2);
  const std::vector<float> w_v = RandomTensor(Count(kSelfDv, kDModel), 13, 0.2);
  const std::vector<float> b_q = RandomTensor(kSelfDk, 14, 0.1);
  const std::vector<float> b_k = RandomTensor(kSelfDk, 15, 0.1);
  const std::vector<float> b_v = RandomTensor(kSelfDv, 16, 0.1);
  const std::vector<float> x = RandomTensor(Count(kMaxTokens, kDModel), 17);
  std::vector<float> y(Count(kMaxTokens, kSelfDv), kNaN);
  std::vector<float> weights(c.want_weights ? Count(kMaxTokens, kMaxTokens) : 0, kNaN);
  float* weights_out = c.want_weights ? weights.data() : nullptr;

  for (bool biases : {true, false}) {
    const ea_self_attention_weights w{w_q.data(),
                                      w_k.data(),
                                      w_v.data(),
                                      biases ? b_q.data() : nullptr,
                                      biases ? b_k.data() : nullptr,
                                      biases ? b_v.data() : nullptr};
    TestArena arena(bytes);
    ea_self_attention_plan plan{};
    ASSERT_EQ(NO_HEAP(ea_self_attention_init(&plan, &config, &w, &arena.arena)), EA_OK);
    EXPECT_EQ(NO_HEAP(ea_arena_remaining(&arena.arena)), 0u);
    // A short sequence with key padding first, then the full one (which writes every output).
    EXPECT_EQ(NO_HEAP(ea_self_attention_run(&plan, x.data(), kMaxTokens - 6, kMaxTokens - 9,
                                            y.data(), weights_out)),
              EA_OK);
    EXPECT_EQ(NO_HEAP(ea_self_attention_run(&plan, x.data(), kMaxTokens, kMaxTokens, y.data(),
                                            weights_out)),
              EA_OK);
    ExpectAllFinite(y, "y");
    ExpectAllFinite(weights, "attn_weights");
  }
}

void RunMhaCase(const Case& c) {
  SCOPED_TRACE(CaseName(c));
  const std::vector<float> table = PositionTable(c.position);
  const ea_mha_config config{EA_DTYPE_F32,
                             kMaxTokens,
                             kDModel,
                             kHeads,
                             c.mask,
                             ApiPosition(c.position),
                             table.empty() ? nullptr : table.data(),
                             EA_WEIGHTS_ROW_MAJOR,
                             ea_parallel_for{},
                             nullptr,
                             nullptr,
                             nullptr};
  size_t bytes = 0;
  ASSERT_EQ(NO_HEAP(ea_mha_arena_size(&config, &bytes)), EA_OK);
  const std::vector<float> in_w = RandomTensor(Count(3 * kDModel, kDModel), 21, 0.2);
  const std::vector<float> in_b = RandomTensor(Count(3, kDModel), 22, 0.1);
  const std::vector<float> out_w = RandomTensor(Count(kDModel, kDModel), 23, 0.2);
  const std::vector<float> out_b = RandomTensor(kDModel, 24, 0.1);
  const std::vector<float> x = RandomTensor(Count(kMaxTokens, kDModel), 25);
  std::vector<float> y(Count(kMaxTokens, kDModel), kNaN);
  std::vector<float> weights(c.want_weights ? Count(kHeads, Count(kMaxTokens, kMaxTokens)) : 0,
                             kNaN);
  float* weights_out = c.want_weights ? weights.data() : nullptr;

  for (bool biases : {true, false}) {
    const ea_mha_weights w = edgeattn_test::InProjWeights(
        in_w.data(), biases ? in_b.data() : nullptr, out_w.data(), biases ? out_b.data() : nullptr);
    TestArena arena(bytes);
    ea_mha_plan plan{};
    ASSERT_EQ(NO_HEAP(ea_mha_init(&plan, &config, &w, &arena.arena)), EA_OK);
    EXPECT_EQ(NO_HEAP(ea_arena_remaining(&arena.arena)), 0u);
    EXPECT_EQ(
        NO_HEAP(ea_mha_run(&plan, x.data(), kMaxTokens - 6, kMaxTokens - 9, y.data(), weights_out)),
        EA_OK);
    EXPECT_EQ(NO_HEAP(ea_mha_run(&plan, x.data(), kMaxTokens, kMaxTokens, y.data(), weights_out)),
              EA_OK);
    ExpectAllFinite(y, "y");
    ExpectAllFinite(weights, "attn_weights");
  }
}

// The very first dispatched call: libhwy's chosen target starts uninitialised, so the first
// HWY_DYNAMIC_DISPATCH call of the process goes through ChooseAndCall, which detects the CPU's
// targets (hwy::SupportedTargets) and picks one. In file order this test makes that call, armed.
// (Nothing before it touches libhwy: the per-target list below is built from HWY_TARGETS.)
TEST(NoHeap, FirstDispatchSelectsTargetWithoutHeap) {
  if (hwy::GetChosenTarget().IsInitialized()) {
    // Only when another test ran first (--gtest_shuffle or a filter); that call was armed as
    // well. Reset libhwy so that this call selects the target again.
    hwy::GetChosenTarget().DeInit();
  }
  const char* target = NO_HEAP(ea_simd_target());
  EXPECT_TRUE(hwy::GetChosenTarget().IsInitialized());
  ASSERT_NE(target, nullptr);
  EXPECT_STRNE(target, "");
  EXPECT_EQ(NO_HEAP(ea_simd_target()), target);
}

// Weight files: open (validating the whole file), find, the MHA weights;
// a broken file's refusal too.
TEST(NoHeap, WeightFiles) {
  const std::vector<uint8_t> st(kSampleSafetensors, kSampleSafetensors + kSampleSafetensors_size);
  const std::vector<uint8_t> blob(kSampleBlob, kSampleBlob + kSampleBlob_size);
  for (const std::vector<uint8_t>* bytes : {&st, &blob}) {
    ea_weight_file file{};
    ASSERT_EQ(NO_HEAP(ea_weight_file_open(&file, bytes->data(), bytes->size())), EA_OK);
    ea_tensor_view view{};
    EXPECT_EQ(NO_HEAP(ea_weight_file_find(&file, "embedding.weight", &view)), EA_OK);
    EXPECT_EQ(NO_HEAP(ea_weight_file_find(&file, "absent", &view)), EA_ERR_NOT_FOUND);
    ea_mha_weights weights{};
    ea_weights_layout layout = EA_WEIGHTS_ROW_MAJOR;
    EXPECT_EQ(NO_HEAP(ea_weight_file_find_mha(&file, "attn.", 40, 4, 4, &weights, &layout)), EA_OK);
    EXPECT_EQ(NO_HEAP(ea_weight_file_open(&file, bytes->data(), bytes->size() - 1)),
              EA_ERR_BAD_FILE);
    size_t scratch_bytes = 0;
    ASSERT_EQ(NO_HEAP(ea_weight_file_scratch_size(bytes->data(), bytes->size(), &scratch_bytes)),
              EA_OK);
    std::vector<uint64_t> scratch(scratch_bytes / 8 + 1);  // 8-byte aligned
    EXPECT_EQ(NO_HEAP(ea_weight_file_open_scratch(&file, bytes->data(), bytes->size(),
                                                  scratch.data(), scratch_bytes)),
              EA_OK);
  }
}

TEST(NoHeap, StatusStrings) {
  for (int code = EA_OK; code <= EA_ERR_NOT_FOUND; ++code) {
    const ea_status status = static_cast<ea_status>(code);
    const char* text = NO_HEAP(ea_status_str(status));
    EXPECT_NE(text, nullptr) << code;
  }
  EXPECT_NE(NO_HEAP(ea_status_str(static_cast<ea_status>(15))), nullptr);
}

TEST(NoHeap, Arena) {
  AlignedBytes buffer(4096);
  ea_arena arena{};
  ASSERT_EQ(NO_HEAP(ea_arena_init(&arena, buffer.data(), buffer.size())), EA_OK);
  EXPECT_EQ(NO_HEAP(ea_arena_remaining(&arena)), 4096u);
  arena.used = 1024;
  EXPECT_EQ(NO_HEAP(ea_arena_remaining(&arena)), 3072u);
  EXPECT_EQ(NO_HEAP(ea_arena_reset(&arena)), EA_OK);
  EXPECT_EQ(NO_HEAP(ea_arena_remaining(&arena)), 4096u);
}

// ea_mha_arena_size, init in an arena of exactly that size and one run
// over kMaxTokens tokens of x (seed `x_seed`), each under NO_HEAP; y finite.
void SizePlanAndRunMha(const ea_mha_config& config, const ea_mha_weights& weights,
                       uint64_t x_seed) {
  size_t bytes = 0;
  ASSERT_EQ(NO_HEAP(ea_mha_arena_size(&config, &bytes)), EA_OK);
  TestArena arena(bytes);
  ea_mha_plan plan{};
  ASSERT_EQ(NO_HEAP(ea_mha_init(&plan, &config, &weights, &arena.arena)), EA_OK);
  const std::vector<float> x = RandomTensor(Count(kMaxTokens, kDModel), x_seed);
  std::vector<float> y(Count(kMaxTokens, kDModel), kNaN);
  EXPECT_EQ(NO_HEAP(ea_mha_run(&plan, x.data(), kMaxTokens, kMaxTokens, y.data(), nullptr)), EA_OK);
  ExpectAllFinite(y, "y");
}

TEST(NoHeap, PackedWeightsAndAPlanThatUsesThem) {
  const std::vector<float> in_w = RandomTensor(Count(3 * kDModel, kDModel), 26, 0.2);
  const std::vector<float> out_w = RandomTensor(Count(kDModel, kDModel), 27, 0.2);
  size_t in_floats = 0, out_floats = 0;
  ASSERT_EQ(NO_HEAP(ea_linear_packed_size(3 * kDModel, kDModel, &in_floats)), EA_OK);
  ASSERT_EQ(NO_HEAP(ea_linear_packed_size(kDModel, kDModel, &out_floats)), EA_OK);
  std::vector<float> in_packed(in_floats), out_packed(out_floats);
  ASSERT_EQ(NO_HEAP(ea_linear_pack_weights(in_w.data(), 3 * kDModel, kDModel, in_packed.data(),
                                           in_floats)),
            EA_OK);
  ASSERT_EQ(NO_HEAP(ea_linear_pack_weights(out_w.data(), kDModel, kDModel, out_packed.data(),
                                           out_floats)),
            EA_OK);
  const ea_mha_config config{EA_DTYPE_F32,      kMaxTokens,       kDModel, kHeads,
                             EA_MASK_NONE,      EA_POSITION_NONE, nullptr, EA_WEIGHTS_PACKED,
                             ea_parallel_for{}, nullptr,          nullptr, nullptr};
  SizePlanAndRunMha(
      config, edgeattn_test::InProjWeights(in_packed.data(), nullptr, out_packed.data(), nullptr),
      28);
}

// A parallel-for on the calling thread that rotates worker indices: the
// library's task plumbing allocates nothing.
void RotatingWorkersPool(void*, int32_t n_tasks, ea_task_fn task, void* task_context) {
  for (int32_t i = 0; i < n_tasks; ++i) task(task_context, i, i % 3);
}

TEST(NoHeap, ParallelForTasks) {
  const ea_mha_config config{EA_DTYPE_F32,
                             kMaxTokens,
                             kDModel,
                             kHeads,
                             EA_MASK_CAUSAL,
                             EA_POSITION_NONE,
                             nullptr,
                             EA_WEIGHTS_ROW_MAJOR,
                             ea_parallel_for{&RotatingWorkersPool, nullptr, 3},
                             nullptr,
                             nullptr,
                             nullptr};
  const std::vector<float> in_w = RandomTensor(Count(3 * kDModel, kDModel), 31, 0.2);
  const std::vector<float> out_w = RandomTensor(Count(kDModel, kDModel), 32, 0.2);
  SizePlanAndRunMha(config,
                    edgeattn_test::InProjWeights(in_w.data(), nullptr, out_w.data(), nullptr), 33);
}

// W_Q, W_K, W_V as three tensors with three biases: the gathering pack at
// init and the biases added after the GEMM at run.
TEST(NoHeap, ThreeProjectionTensors) {
  ea_mha_config config{};
  config.dtype = EA_DTYPE_F32;
  config.max_tokens = kMaxTokens;
  config.d_model = kDModel;
  config.n_heads = kHeads;
  const std::vector<float> in_w = RandomTensor(Count(3 * kDModel, kDModel), 34, 0.2);
  const std::vector<float> in_b = RandomTensor(Count(3 * kDModel, 1), 35, 0.1);
  const std::vector<float> out_w = RandomTensor(Count(kDModel, kDModel), 36, 0.2);
  const edgeattn_test::SeparateProjections three(in_w.data(), in_b.data(), kDModel, kDModel);
  SizePlanAndRunMha(config, three.View(out_w.data(), nullptr), 37);
}

TEST(NoHeap, SinusoidalTableFill) {
  std::vector<float> table(Count(kMaxTokens, kDModel + 1), kNaN);
  EXPECT_EQ(NO_HEAP(ea_sinusoidal_table_fill(table.data(), kMaxTokens, kDModel + 1)), EA_OK);
  ExpectAllFinite(table, "table");
}

TEST(NoHeap, RopeTableAndRotation) {
  std::vector<float> table(Count(kMaxTokens, 8), kNaN);
  EXPECT_EQ(NO_HEAP(ea_rope_table_fill(table.data(), kMaxTokens, 8, 10000.0f)), EA_OK);
  std::vector<float> x = RandomTensor(Count(3, 16), 6);
  EXPECT_EQ(NO_HEAP(ea_rope_apply(x.data(), 3, 2, 8, 1, table.data(), kMaxTokens, EA_ROPE_HALF)),
            EA_OK);
  EXPECT_EQ(NO_HEAP(ea_rope_apply(x.data(), 3, 2, 8, kMaxTokens, table.data(), kMaxTokens,
                                  EA_ROPE_INTERLEAVED)),
            EA_ERR_BAD_DIMENSION);
  ExpectAllFinite(x, "x");
}

// Every refusal path returns without touching the heap too.
TEST(NoHeap, ErrorPaths) {
  size_t bytes = 0;
  ea_attention_config config{EA_DTYPE_F32,      kNq,     kNkv,   kDk, kDv, EA_MASK_NONE, 0.0f,
                             ea_parallel_for{}, nullptr, nullptr};
  EXPECT_EQ(NO_HEAP(ea_attention_arena_size(nullptr, &bytes)), EA_ERR_NULL_POINTER);
  config.n_q = 0;
  EXPECT_EQ(NO_HEAP(ea_attention_arena_size(&config, &bytes)), EA_ERR_BAD_DIMENSION);
  config.n_q = kNq;
  config.dtype = EA_DTYPE_INT8;  // fixed point without its quantization
  EXPECT_EQ(NO_HEAP(ea_attention_quant_arena_size(&config, &bytes)), EA_ERR_NULL_POINTER);
  config.dtype = EA_DTYPE_F32;

  AlignedBytes buffer(256);
  ea_arena arena{};
  EXPECT_EQ(NO_HEAP(ea_arena_init(&arena, buffer.data() + 4, 128)), EA_ERR_ARENA_MISALIGNED);
  ASSERT_EQ(NO_HEAP(ea_arena_init(&arena, buffer.data(), buffer.size())), EA_OK);
  ea_attention_plan plan{};
  EXPECT_EQ(NO_HEAP(ea_attention_init(&plan, &config, &arena)), EA_ERR_ARENA_TOO_SMALL);
  const std::vector<float> data(Count(kNkv, kDk), 0.0f);
  std::vector<float> out(Count(kNq, kDv));
  EXPECT_EQ(NO_HEAP(ea_attention_run(&plan, data.data(), data.data(), data.data(), kNkv, out.data(),
                                     nullptr)),
            EA_ERR_BAD_ARGUMENT);

  ea_self_attention_config self{EA_DTYPE_F32,
                                kMaxTokens,
                                kDModel,
                                kSelfDk,
                                kSelfDv,
                                EA_MASK_NONE,
                                EA_POSITION_LEARNED,
                                nullptr,
                                EA_WEIGHTS_ROW_MAJOR,
                                ea_parallel_for{},
                                nullptr,
                                nullptr,
                                nullptr};
  EXPECT_EQ(NO_HEAP(ea_self_attention_arena_size(&self, &bytes)), EA_ERR_NULL_POINTER);
  ea_self_attention_plan self_plan{};
  EXPECT_EQ(NO_HEAP(ea_self_attention_run(&self_plan, data.data(), 1, 1, out.data(), nullptr)),
            EA_ERR_BAD_ARGUMENT);

  const ea_mha_config mha{EA_DTYPE_F32,      kMaxTokens,       kDModel, 5,
                          EA_MASK_NONE,      EA_POSITION_NONE, nullptr, EA_WEIGHTS_ROW_MAJOR,
                          ea_parallel_for{}, nullptr,          nullptr, nullptr};
  EXPECT_EQ(NO_HEAP(ea_mha_arena_size(&mha, &bytes)), EA_ERR_HEADS_MISMATCH);
  ea_mha_plan mha_plan{};
  EXPECT_EQ(NO_HEAP(ea_mha_run(&mha_plan, data.data(), 1, 1, out.data(), nullptr)),
            EA_ERR_BAD_ARGUMENT);

  EXPECT_EQ(NO_HEAP(ea_sinusoidal_table_fill(nullptr, 4, 4)), EA_ERR_NULL_POINTER);
  EXPECT_EQ(NO_HEAP(ea_arena_reset(nullptr)), EA_ERR_NULL_POINTER);
  EXPECT_EQ(NO_HEAP(ea_arena_remaining(nullptr)), 0u);
}

// ------------------------------------------------------------------ fixed point

// A fixed-point MHA case, built by hand (this binary links no test fixture):
// every tensor at scale 1/64 or so, zero points inside the int8 range (0 for
// int16), random int8 weights with per-channel scales.
struct QuantCase {
  ea_dtype dtype;
  Position position;  // kNone, kSinusoidalInArena or kLearned
  ea_mask mask;
  bool want_weights;
  bool given_params;  // ea_mha_quant_derive's integers as quant_params
};

std::string QuantCaseName(const QuantCase& c) {
  return std::string(c.dtype == EA_DTYPE_INT8 ? "S8" : "S16") + PositionName(c.position) +
         (c.mask == EA_MASK_CAUSAL ? "Causal" : "Full") +
         (c.want_weights ? "WithWeights" : "NoWeights") + (c.given_params ? "GivenParams" : "");
}

std::vector<QuantCase> QuantCases() {
  std::vector<QuantCase> cases;
  for (ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    for (Position position : {Position::kNone, Position::kSinusoidalInArena, Position::kLearned}) {
      for (ea_mask mask : {EA_MASK_NONE, EA_MASK_CAUSAL}) {
        for (bool want_weights : {false, true}) {
          cases.push_back({dtype, position, mask, want_weights, false});
        }
      }
      cases.push_back({dtype, position, EA_MASK_CAUSAL, true, true});
    }
  }
  return cases;
}

// Everything one case needs, allocated before any armed call.
struct QuantBuffers {
  QuantBuffers(ea_dtype dtype_in, int32_t tokens_in) : dtype(dtype_in), tokens(tokens_in) {
    const size_t e = kDModel;
    const size_t element = dtype == EA_DTYPE_INT16 ? 2 : 1;
    const int32_t lo = dtype == EA_DTYPE_INT16 ? -32768 : -128;
    const int32_t hi = dtype == EA_DTYPE_INT16 ? 32767 : 127;
    const double spread = dtype == EA_DTYPE_INT16 ? 8000.0 : 40.0;
    const auto quantize = [](float v, double scale, int32_t low, int32_t high) {
      const double q = std::round(static_cast<double>(v) * scale);
      return static_cast<int32_t>(q < low ? low : (q > high ? high : q));
    };
    for (const float v : RandomTensor(3 * e * e, 51)) in_w.push_back(quantize(v, 40.0, -127, 127));
    for (const float v : RandomTensor(e * e, 52)) out_w.push_back(quantize(v, 40.0, -127, 127));
    const float weight_scale = 1.0f / (40.0f * std::sqrt(static_cast<float>(e)));
    in_scales.assign(3 * e, weight_scale);
    out_scales.assign(e, weight_scale * 1.5f);
    const float activation = static_cast<float>(1.0 / spread);
    const int32_t zp = dtype == EA_DTYPE_INT16 ? 0 : -5;
    for (ea_quant* q : {&scales.input, &scales.position, &scales.positioned, &scales.q, &scales.k,
                        &scales.v, &scales.scores, &scales.context, &scales.output}) {
      *q = ea_quant{activation, zp};
    }
    scales.positioned.scale = 1.5f * activation;
    scales.in_proj_weight_scales = in_scales.data();
    scales.out_proj_weight_scales = out_scales.data();
    const std::vector<float> b = RandomTensor(4 * e, 53, dtype == EA_DTYPE_INT16 ? 1e6 : 1e3);
    for (size_t i = 0; i < 4 * e; ++i) {
      bias32.push_back(static_cast<int32_t>(b[i]));
      bias64.push_back(static_cast<int64_t>(b[i]));
    }
    const size_t elements = static_cast<size_t>(tokens) * e;
    const std::vector<float> values = RandomTensor(elements, 54);
    x.resize(elements * element);
    table.resize(elements * element);
    for (size_t i = 0; i < elements; ++i) {
      const int32_t v = quantize(values[i], spread, lo, hi);
      const int32_t t = quantize(values[(i * 7) % elements], spread / 2, lo, hi);
      if (element == 1) {
        x[i] = static_cast<uint8_t>(static_cast<int8_t>(v));
        table[i] = static_cast<uint8_t>(static_cast<int8_t>(t));
      } else {
        const int16_t v16 = static_cast<int16_t>(v), t16 = static_cast<int16_t>(t);
        memcpy(&x[2 * i], &v16, 2);
        memcpy(&table[2 * i], &t16, 2);
      }
    }
    y.assign(x.size(), 0xA5);
    attn.assign(static_cast<size_t>(kHeads) * tokens * tokens * element, 0xA5);
    channels.assign(EA_MHA_QUANT_CHANNEL_INTS(kDModel), 0);
  }
  ea_mha_quant_weights Weights(bool biases) const {
    const void* in_b = dtype == EA_DTYPE_INT16 ? static_cast<const void*>(bias64.data())
                                               : static_cast<const void*>(bias32.data());
    const void* out_b = dtype == EA_DTYPE_INT16
                            ? static_cast<const void*>(bias64.data() + 3 * kDModel)
                            : static_cast<const void*>(bias32.data() + 3 * kDModel);
    return edgeattn_test::InProjQuantWeights(in_w.data(), biases ? in_b : nullptr, out_w.data(),
                                             biases ? out_b : nullptr);
  }
  ea_mha_config Config(Position position, ea_mask mask, ea_parallel_for parallel) const {
    ea_mha_config c{};
    c.dtype = dtype;
    c.max_tokens = tokens;
    c.d_model = kDModel;
    c.n_heads = kHeads;
    c.mask = mask;
    c.position = ApiPosition(position);
    c.weights_layout = EA_WEIGHTS_ROW_MAJOR;
    c.parallel = parallel;
    c.quant_scales = &scales;
    c.quant_position_table = position == Position::kLearned ? table.data() : nullptr;
    return c;
  }
  // ea_mha_quant_run_s8 or _s16, armed.
  ea_status Run(const ea_mha_quant_plan* plan, int32_t n_tokens, bool want_weights) {
    void* weights = want_weights ? attn.data() : nullptr;
    if (dtype == EA_DTYPE_INT8) {
      return NO_HEAP(ea_mha_quant_run_s8(plan, reinterpret_cast<const int8_t*>(x.data()), n_tokens,
                                         n_tokens, reinterpret_cast<int8_t*>(y.data()),
                                         static_cast<int8_t*>(weights)));
    }
    return NO_HEAP(ea_mha_quant_run_s16(plan, reinterpret_cast<const int16_t*>(x.data()), n_tokens,
                                        n_tokens, reinterpret_cast<int16_t*>(y.data()),
                                        static_cast<int16_t*>(weights)));
  }
  // ea_mha_quant_trace_s8 or _s16 with every tap, armed.
  ea_status Trace(const ea_mha_quant_plan* plan, int32_t n_tokens) {
    const size_t activations = x.size();
    std::vector<uint8_t> positioned(activations), q(activations), k(activations), v(activations),
        context(activations), scores(attn.size());
    void* const buffers[7] = {positioned.data(), q.data(),    k.data(),      v.data(),
                              scores.data(),     attn.data(), context.data()};
    const ea_mha_quant_taps taps = edgeattn_test::QuantTaps(buffers);
    if (dtype == EA_DTYPE_INT8) {
      return NO_HEAP(ea_mha_quant_trace_s8(plan, reinterpret_cast<const int8_t*>(x.data()),
                                           n_tokens, n_tokens, reinterpret_cast<int8_t*>(y.data()),
                                           &taps));
    }
    return NO_HEAP(ea_mha_quant_trace_s16(plan, reinterpret_cast<const int16_t*>(x.data()),
                                          n_tokens, n_tokens, reinterpret_cast<int16_t*>(y.data()),
                                          &taps));
  }

  ea_dtype dtype;
  int32_t tokens;
  std::vector<float> in_scales, out_scales;
  ea_mha_quant_scales scales{};
  std::vector<int8_t> in_w, out_w;
  std::vector<int32_t> bias32;
  std::vector<int64_t> bias64;
  std::vector<uint8_t> x, y, attn, table;
  std::vector<int32_t> channels;
};

// The outputs were written (no canary byte left in y; the weights, when
// asked for, likewise: every probability row has at least one entry written).
void ExpectWritten(const std::vector<uint8_t>& bytes, const char* what) {
  size_t canary = 0;
  for (uint8_t b : bytes) canary += b == 0xA5 ? 1 : 0;
  EXPECT_LT(canary, bytes.size() / 8) << what << ": mostly still the canary";
}

// The fixed-point decoder of the same layer (with a sliding `window`, or
// none; with `kv_heads` grouped-query heads, or 0, whose W_K and W_V are the
// first rows of MHA's, their integers from ea_decoder_quant_derive):
// arena_size, init, steps of 1 and 5 tokens through the whole stream (a
// window's ring wraps), reset; then a residual ADD. Each armed.
void RunQuantDecoderCase(QuantBuffers& b, const ea_mha_config& layer, int32_t window,
                         int32_t kv_heads) {
  ea_decoder_quant_config config{};
  SetDecoderLayer(layer, &config);
  config.n_kv_heads = kv_heads;
  config.max_step_tokens = 5;
  config.window = window;
  ea_mha_quant_params params{};
  std::vector<int32_t> channels(EA_MHA_QUANT_CHANNEL_INTS(kDModel));
  if (kv_heads != 0 && layer.quant_scales != nullptr) {
    ASSERT_EQ(NO_HEAP(ea_decoder_quant_derive(&config, &params, channels.data(), channels.size())),
              EA_OK);
    config.quant_params = &params;
  }
  size_t bytes = 0;
  ASSERT_EQ(NO_HEAP(ea_decoder_quant_arena_size(&config, &bytes)), EA_OK);
  TestArena arena(bytes);
  ea_decoder_quant decoder{};
  const ea_mha_quant_weights w = b.Weights(true);
  ASSERT_EQ(NO_HEAP(ea_decoder_quant_init(&decoder, &config, &w, &arena.arena)), EA_OK);
  EXPECT_EQ(NO_HEAP(ea_arena_remaining(&arena.arena)), 0u);
  const size_t element = b.dtype == EA_DTYPE_INT16 ? 2 : 1;
  const size_t row = static_cast<size_t>(kDModel) * element;
  b.y.assign(b.x.size(), 0xA5);
  for (int32_t t = 0; t < b.tokens;) {
    const int32_t n = t % 2 == 0 && t + 5 <= b.tokens ? 5 : 1;
    const uint8_t* x = b.x.data() + static_cast<size_t>(t) * row;
    uint8_t* y = b.y.data() + static_cast<size_t>(t) * row;
    if (b.dtype == EA_DTYPE_INT8) {
      EXPECT_EQ(NO_HEAP(ea_decoder_quant_step_s8(&decoder, reinterpret_cast<const int8_t*>(x), n,
                                                 reinterpret_cast<int8_t*>(y))),
                EA_OK);
    } else {
      EXPECT_EQ(NO_HEAP(ea_decoder_quant_step_s16(&decoder, reinterpret_cast<const int16_t*>(x), n,
                                                  reinterpret_cast<int16_t*>(y))),
                EA_OK);
    }
    t += n;
  }
  ExpectWritten(b.y, "decoder y");
  EXPECT_EQ(NO_HEAP(ea_decoder_quant_reset(&decoder)), EA_OK);

  // The residual ADD of y onto x, as a quantized model runs it.
  ea_add_quant_params add{};
  const ea_quant residual{b.scales.output.scale * 2.0f, b.scales.output.zero_point};
  ASSERT_EQ(NO_HEAP(ea_add_quant_derive(b.dtype, b.scales.input, b.scales.output, residual, &add)),
            EA_OK);
  const size_t count = b.x.size() / element;
  if (b.dtype == EA_DTYPE_INT8) {
    EXPECT_EQ(NO_HEAP(ea_add_quant_run_s8(reinterpret_cast<const int8_t*>(b.x.data()),
                                          reinterpret_cast<const int8_t*>(b.y.data()), count, &add,
                                          reinterpret_cast<int8_t*>(b.y.data()))),
              EA_OK);
  } else {
    EXPECT_EQ(NO_HEAP(ea_add_quant_run_s16(reinterpret_cast<const int16_t*>(b.x.data()),
                                           reinterpret_cast<const int16_t*>(b.y.data()), count,
                                           &add, reinterpret_cast<int16_t*>(b.y.data()))),
              EA_OK);
  }
  EXPECT_EQ(NO_HEAP(ea_add_quant_run_s8(nullptr, nullptr, 0, &add, nullptr)), EA_ERR_NULL_POINTER);

  // MUL of the sum by x, as a gate (or RoPE's x * cos) runs it.
  ea_mul_quant_params mul{};
  ASSERT_EQ(NO_HEAP(ea_mul_quant_derive(b.dtype, residual, b.scales.input, residual, &mul)), EA_OK);
  if (b.dtype == EA_DTYPE_INT8) {
    EXPECT_EQ(NO_HEAP(ea_mul_quant_run_s8(reinterpret_cast<const int8_t*>(b.y.data()),
                                          reinterpret_cast<const int8_t*>(b.x.data()), count, &mul,
                                          reinterpret_cast<int8_t*>(b.y.data()))),
              EA_OK);
  } else {
    EXPECT_EQ(NO_HEAP(ea_mul_quant_run_s16(reinterpret_cast<const int16_t*>(b.y.data()),
                                           reinterpret_cast<const int16_t*>(b.x.data()), count,
                                           &mul, reinterpret_cast<int16_t*>(b.y.data()))),
              EA_OK);
  }
  EXPECT_EQ(NO_HEAP(ea_mul_quant_run_s16(nullptr, nullptr, 0, &mul, nullptr)), EA_ERR_NULL_POINTER);

  // RoPE of the product, as rows of one 8-channel head, x itself as both
  // tables (any codes of the dtype will do; the no-heap claim is the point).
  ea_rope_quant_scales rope_scales{};
  rope_scales.x = rope_scales.cos_product = rope_scales.sin_product = rope_scales.rotated =
      residual;
  rope_scales.cos_table = rope_scales.sin_table = b.scales.input;
  ea_rope_quant_params rope{};
  ASSERT_EQ(NO_HEAP(ea_rope_quant_derive(b.dtype, &rope_scales, &rope)), EA_OK);
  const int32_t rows = static_cast<int32_t>(count / 8);
  if (b.dtype == EA_DTYPE_INT8) {
    EXPECT_EQ(NO_HEAP(ea_rope_quant_apply_s8(reinterpret_cast<int8_t*>(b.y.data()), rows, 1, 8, 0,
                                             reinterpret_cast<const int8_t*>(b.x.data()),
                                             reinterpret_cast<const int8_t*>(b.x.data()), rows,
                                             EA_ROPE_HALF, &rope)),
              EA_OK);
  } else {
    EXPECT_EQ(NO_HEAP(ea_rope_quant_apply_s16(reinterpret_cast<int16_t*>(b.y.data()), rows, 1, 8, 0,
                                              reinterpret_cast<const int16_t*>(b.x.data()),
                                              reinterpret_cast<const int16_t*>(b.x.data()), rows,
                                              EA_ROPE_INTERLEAVED, &rope)),
              EA_OK);
  }
}

// The fixed-point cross-attention of the same layer (no positions, no
// mask; one KV head, its integers from ea_cross_quant_derive): arena_size,
// init, the whole x as the memory, queries in runs of 5. Each armed.
void RunQuantCrossCase(QuantBuffers& b, const ea_mha_config& layer) {
  ea_cross_quant_config config{};
  SetCrossLayer(layer, &config);
  config.n_kv_heads = 1;
  config.max_memory = b.tokens;
  config.max_queries = 5;  // runs of 5 queries, not the layer's max_tokens
  config.memory = b.scales.input;
  ea_mha_quant_params params{};
  std::vector<int32_t> channels(EA_MHA_QUANT_CHANNEL_INTS(kDModel));
  ASSERT_EQ(NO_HEAP(ea_cross_quant_derive(&config, &params, channels.data(), channels.size())),
            EA_OK);
  config.quant_params = &params;
  size_t bytes = 0;
  ASSERT_EQ(NO_HEAP(ea_cross_quant_arena_size(&config, &bytes)), EA_OK);
  TestArena arena(bytes);
  ea_cross_quant cross{};
  const ea_mha_quant_weights w = b.Weights(true);
  ASSERT_EQ(NO_HEAP(ea_cross_quant_init(&cross, &config, &w, &arena.arena)), EA_OK);
  EXPECT_EQ(NO_HEAP(ea_arena_remaining(&arena.arena)), 0u);
  const size_t element = b.dtype == EA_DTYPE_INT16 ? 2 : 1;
  const size_t row = static_cast<size_t>(kDModel) * element;
  if (b.dtype == EA_DTYPE_INT8) {
    ASSERT_EQ(NO_HEAP(ea_cross_quant_set_memory_s8(
                  &cross, reinterpret_cast<const int8_t*>(b.x.data()), b.tokens)),
              EA_OK);
  } else {
    ASSERT_EQ(NO_HEAP(ea_cross_quant_set_memory_s16(
                  &cross, reinterpret_cast<const int16_t*>(b.x.data()), b.tokens)),
              EA_OK);
  }
  b.y.assign(b.x.size(), 0xA5);
  for (int32_t t = 0; t < b.tokens; t += 5) {
    const int32_t n = t + 5 <= b.tokens ? 5 : b.tokens - t;
    const uint8_t* x = b.x.data() + static_cast<size_t>(t) * row;
    uint8_t* y = b.y.data() + static_cast<size_t>(t) * row;
    if (b.dtype == EA_DTYPE_INT8) {
      EXPECT_EQ(NO_HEAP(ea_cross_quant_run_s8(&cross, reinterpret_cast<const int8_t*>(x), n,
                                              reinterpret_cast<int8_t*>(y))),
                EA_OK);
    } else {
      EXPECT_EQ(NO_HEAP(ea_cross_quant_run_s16(&cross, reinterpret_cast<const int16_t*>(x), n,
                                               reinterpret_cast<int16_t*>(y))),
                EA_OK);
    }
  }
  ExpectWritten(b.y, "cross y");
}

// derive, arena_size, init in an arena of exactly that size, a short run
// and a full one, each armed; with and without biases.
void RunQuantMhaCase(const QuantCase& c, int32_t tokens = kMaxTokens,
                     ea_parallel_for parallel = ea_parallel_for{}) {
  SCOPED_TRACE(QuantCaseName(c));
  QuantBuffers b(c.dtype, tokens);
  ea_mha_config config = b.Config(c.position, c.mask, parallel);
  ea_mha_quant_params params{};
  ASSERT_EQ(NO_HEAP(ea_mha_quant_derive(&config, &params, b.channels.data(), b.channels.size())),
            EA_OK);
  if (c.given_params) config.quant_params = &params;
  size_t bytes = 0;
  ASSERT_EQ(NO_HEAP(ea_mha_quant_arena_size(&config, &bytes)), EA_OK);
  for (bool biases : {true, false}) {
    const ea_mha_quant_weights w = b.Weights(biases);
    TestArena arena(bytes);
    ea_mha_quant_plan plan{};
    ASSERT_EQ(NO_HEAP(ea_mha_quant_init(&plan, &config, &w, &arena.arena)), EA_OK);
    EXPECT_EQ(NO_HEAP(ea_arena_remaining(&arena.arena)), 0u);
    EXPECT_EQ(b.Run(&plan, tokens - 6, c.want_weights), EA_OK);
    EXPECT_EQ(b.Run(&plan, tokens, c.want_weights), EA_OK);
    ExpectWritten(b.y, "y");
    if (c.want_weights) ExpectWritten(b.attn, "attn_weights");
    EXPECT_EQ(b.Trace(&plan, tokens), EA_OK);
  }
  if (c.mask == EA_MASK_CAUSAL && parallel.run == nullptr) {
    for (const int32_t window : {0, 7}) RunQuantDecoderCase(b, config, window, 0);
    RunQuantDecoderCase(b, config, 7, 1);
  }
  if (c.mask == EA_MASK_NONE && parallel.run == nullptr) RunQuantCrossCase(b, config);
}

class QuantMhaNoHeap : public testing::TestWithParam<QuantCase> {};
TEST_P(QuantMhaNoHeap, DeriveSizePlanRun) { RunQuantMhaCase(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Cases, QuantMhaNoHeap, testing::ValuesIn(QuantCases()),
                         [](const testing::TestParamInfo<QuantCase>& info) {
                           return QuantCaseName(info.param);
                         });

// The caller's parallel-for, 2 and 3 workers, over 130 tokens: three query
// blocks and three projection row blocks per head, so the hook is called.
std::atomic<int> g_pool_calls{0};
void CountingRotatingPool(void* context, int32_t n_tasks, ea_task_fn task, void* task_context) {
  const int32_t workers = *static_cast<const int32_t*>(context);
  g_pool_calls.fetch_add(1);
  for (int32_t i = n_tasks - 1; i >= 0; --i) task(task_context, i, i % workers);
}

TEST(NoHeap, QuantMhaParallelForTasks) {
  for (int32_t workers : {2, 3}) {
    for (ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
      g_pool_calls.store(0);
      const QuantCase c{dtype, Position::kSinusoidalInArena, EA_MASK_CAUSAL, true, false};
      RunQuantMhaCase(c, 130, ea_parallel_for{&CountingRotatingPool, &workers, workers});
      EXPECT_GT(g_pool_calls.load(), 0) << workers << " workers: the hook was never called";
    }
  }
}

// Refusals of the fixed-point entry points return without the heap too.
TEST(NoHeap, QuantMhaErrorPaths) {
  QuantBuffers b(EA_DTYPE_INT8, kMaxTokens);
  QuantBuffers b16(EA_DTYPE_INT16, kMaxTokens);
  ea_mha_config config = b.Config(Position::kSinusoidalInArena, EA_MASK_CAUSAL, ea_parallel_for{});
  ea_mha_quant_params params{};
  size_t bytes = 0;
  config.n_heads = 5;
  EXPECT_EQ(NO_HEAP(ea_mha_quant_arena_size(&config, &bytes)), EA_ERR_HEADS_MISMATCH);
  EXPECT_EQ(NO_HEAP(ea_mha_quant_derive(&config, &params, b.channels.data(), b.channels.size())),
            EA_ERR_HEADS_MISMATCH);
  config.n_heads = kHeads;
  b.scales.q.scale = NAN;
  EXPECT_EQ(NO_HEAP(ea_mha_quant_derive(&config, &params, b.channels.data(), b.channels.size())),
            EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(NO_HEAP(ea_mha_quant_derive(&config, &params, b.channels.data(), 3)),
            EA_ERR_ARENA_TOO_SMALL);
  const ea_mha_quant_weights w = b.Weights(true);
  TestArena arena(1 << 16);
  ea_mha_quant_plan plan{};
  EXPECT_EQ(NO_HEAP(ea_mha_quant_init(&plan, &config, &w, &arena.arena)), EA_ERR_BAD_ARGUMENT);
  config.quant_scales = nullptr;
  EXPECT_EQ(NO_HEAP(ea_mha_quant_init(&plan, &config, &w, &arena.arena)), EA_ERR_NULL_POINTER);
  EXPECT_EQ(b.Run(&plan, kMaxTokens, true), EA_ERR_BAD_ARGUMENT);  // not ready
  // A ready int16 plan, run with the wrong function and bad lengths.
  const ea_mha_config config16 = b16.Config(Position::kNone, EA_MASK_NONE, ea_parallel_for{});
  const ea_mha_quant_weights w16 = b16.Weights(true);
  ea_mha_quant_plan plan16{};
  ASSERT_EQ(NO_HEAP(ea_mha_quant_init(&plan16, &config16, &w16, &arena.arena)), EA_OK);
  EXPECT_EQ(b.Run(&plan16, kMaxTokens, false), EA_ERR_BAD_ARGUMENT);
  EXPECT_EQ(b16.Run(&plan16, 0, false), EA_ERR_BAD_DIMENSION);
  EXPECT_EQ(b16.Run(&plan16, kMaxTokens + 1, false), EA_ERR_BAD_DIMENSION);
}

// Fixed-point self-attention: derive, size, plan and run, armed, from the
// MHA case's buffers (W_Q, W_K, W_V: rows of in_proj; d_k != d_v).
void RunQuantSelfAttentionCase(const QuantCase& c) {
  SCOPED_TRACE(QuantCaseName(c));
  QuantBuffers b(c.dtype, kMaxTokens);
  const ea_mha_config mha = b.Config(c.position, c.mask, ea_parallel_for{});
  ea_self_attention_quant_scales scales{};  // by name: the struct grows at its end
  scales.input = b.scales.input;
  scales.position = b.scales.position;
  scales.positioned = b.scales.positioned;
  scales.q = b.scales.q;
  scales.k = b.scales.k;
  scales.v = b.scales.v;
  scales.scores = b.scales.scores;
  scales.output = b.scales.context;
  scales.w_q_scales = b.in_scales.data();
  scales.w_k_scales = b.in_scales.data() + kSelfDk;
  scales.w_v_scales = b.in_scales.data() + 2 * kSelfDk;
  ea_self_attention_config config{};
  config.dtype = c.dtype;
  config.max_tokens = kMaxTokens;
  config.d_model = kDModel;
  config.d_k = kSelfDk;
  config.d_v = kSelfDv;
  config.mask = c.mask;
  config.position = mha.position;
  config.quant_scales = &scales;
  config.quant_position_table = mha.quant_position_table;
  ea_self_attention_quant_params params{};
  std::vector<int32_t> channels(EA_SELF_ATTENTION_QUANT_CHANNEL_INTS(kSelfDk, kSelfDv));
  ASSERT_EQ(
      NO_HEAP(ea_self_attention_quant_derive(&config, &params, channels.data(), channels.size())),
      EA_OK);
  if (c.given_params) config.quant_params = &params;
  size_t bytes = 0;
  ASSERT_EQ(NO_HEAP(ea_self_attention_quant_arena_size(&config, &bytes)), EA_OK);
  const ea_mha_quant_weights mw = b.Weights(true);
  const size_t row = kDModel;
  const size_t bias_bytes = c.dtype == EA_DTYPE_INT16 ? 8 : 4;
  const uint8_t* bias = static_cast<const uint8_t*>(mw.in_proj_bias);
  const ea_self_attention_quant_weights w{
      b.in_w.data(), b.in_w.data() + kSelfDk * row, b.in_w.data() + 2 * kSelfDk * row,
      bias,          bias + kSelfDk * bias_bytes,   bias + 2 * kSelfDk * bias_bytes};
  TestArena arena(bytes);
  ea_self_attention_quant_plan plan{};
  ASSERT_EQ(NO_HEAP(ea_self_attention_quant_init(&plan, &config, &w, &arena.arena)), EA_OK);
  EXPECT_EQ(NO_HEAP(ea_arena_remaining(&arena.arena)), 0u);
  void* weights = c.want_weights ? b.attn.data() : nullptr;
  ea_status status;
  if (c.dtype == EA_DTYPE_INT8) {
    status = NO_HEAP(ea_self_attention_quant_run_s8(
        &plan, reinterpret_cast<const int8_t*>(b.x.data()), kMaxTokens, kMaxTokens,
        reinterpret_cast<int8_t*>(b.y.data()), static_cast<int8_t*>(weights)));
  } else {
    status = NO_HEAP(ea_self_attention_quant_run_s16(
        &plan, reinterpret_cast<const int16_t*>(b.x.data()), kMaxTokens, kMaxTokens,
        reinterpret_cast<int16_t*>(b.y.data()), static_cast<int16_t*>(weights)));
  }
  EXPECT_EQ(status, EA_OK);
  // A refusal (an int8 run on an int16 plan, or the reverse) without the heap too.
  if (c.dtype == EA_DTYPE_INT8) {
    EXPECT_EQ(NO_HEAP(ea_self_attention_quant_run_s16(&plan, nullptr, 1, 1, nullptr, nullptr)),
              EA_ERR_NULL_POINTER);
  }
}

class QuantSelfAttentionNoHeap : public testing::TestWithParam<QuantCase> {};
TEST_P(QuantSelfAttentionNoHeap, DeriveSizePlanRun) { RunQuantSelfAttentionCase(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Cases, QuantSelfAttentionNoHeap, testing::ValuesIn(QuantCases()),
                         [](const testing::TestParamInfo<QuantCase>& info) {
                           return QuantCaseName(info.param);
                         });

class AttentionNoHeap : public testing::TestWithParam<Case> {};
TEST_P(AttentionNoHeap, SizePlanRun) { RunAttentionCase(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Cases, AttentionNoHeap, testing::ValuesIn(Cases(false)), ParamName);

class SelfAttentionNoHeap : public testing::TestWithParam<Case> {};
TEST_P(SelfAttentionNoHeap, SizePlanRun) { RunSelfAttentionCase(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Cases, SelfAttentionNoHeap, testing::ValuesIn(Cases(true)), ParamName);

class MhaNoHeap : public testing::TestWithParam<Case> {};
TEST_P(MhaNoHeap, SizePlanRun) { RunMhaCase(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Cases, MhaNoHeap, testing::ValuesIn(Cases(true)), ParamName);

// Every target the library was compiled for (HWY_TARGETS, a compile-time mask, so building the
// list calls nothing) that this CPU supports. Forcing a target resets libhwy's choice, so the
// first dispatched call after it runs target selection again, armed.
std::vector<int64_t> CompiledTargets() {
  std::vector<int64_t> targets;
  for (int64_t remaining = HWY_TARGETS; remaining != 0; remaining &= remaining - 1) {
    targets.push_back(remaining & -remaining);
  }
  return targets;
}

class NoHeapPerTarget : public testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override {
    int64_t supported = 0;
    EXPECT_EQ(HeapCallsDuring([&] { supported = hwy::SupportedTargets(); }), 0u);
    if ((supported & GetParam()) == 0) GTEST_SKIP() << "this CPU lacks the target";
    hwy::SetSupportedTargetsForTest(GetParam());
    EXPECT_FALSE(hwy::GetChosenTarget().IsInitialized());
    ASSERT_STREQ(NO_HEAP(ea_simd_target()), hwy::TargetName(GetParam()));
  }
  void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};

// Fixed-point Attention(Q, K, V): size, plan and both runs, int8 and int16.
void RunQuantAttentionCase(ea_dtype dtype, ea_mask mask) {
  SCOPED_TRACE(dtype == EA_DTYPE_INT8 ? "int8" : "int16");
  const int32_t zero_point = dtype == EA_DTYPE_INT8 ? -3 : 0;
  const ea_attention_quant_scales scales{{0.05f, zero_point},
                                         {0.04f, zero_point},
                                         {0.03f, zero_point},
                                         {0.2f, zero_point},
                                         {0.02f, zero_point}};
  ea_attention_config config{dtype,   kNq,    kNkv, kDk, kDv, mask, 0.0f, ea_parallel_for{},
                             &scales, nullptr};
  size_t bytes = 0;
  ASSERT_EQ(NO_HEAP(ea_attention_quant_arena_size(&config, &bytes)), EA_OK);
  TestArena arena(bytes);
  ea_attention_quant_plan plan{};
  ASSERT_EQ(NO_HEAP(ea_attention_quant_init(&plan, &config, &arena.arena)), EA_OK);
  if (dtype == EA_DTYPE_INT8) {
    std::vector<int8_t> q(Count(kNq, kDk), 7), k(Count(kNkv, kDk), -5), v(Count(kNkv, kDv), 3);
    std::vector<int8_t> out(Count(kNq, kDv)), weights(Count(kNq, kNkv));
    EXPECT_EQ(NO_HEAP(ea_attention_quant_run_s8(&plan, q.data(), k.data(), v.data(),
                                                plan.config.n_kv, out.data(), weights.data())),
              EA_OK);
  } else {
    std::vector<int16_t> q(Count(kNq, kDk), 700), k(Count(kNkv, kDk), -500),
        v(Count(kNkv, kDv), 300);
    std::vector<int16_t> out(Count(kNq, kDv)), weights(Count(kNq, kNkv));
    EXPECT_EQ(NO_HEAP(ea_attention_quant_run_s16(&plan, q.data(), k.data(), v.data(),
                                                 plan.config.n_kv, out.data(), weights.data())),
              EA_OK);
  }
}

// The KV cache: size, init, appends past a ring's capacity, attends of one
// and several queries, reset; every storage, grouped heads.
void RunKvCacheCase(ea_kv_storage storage, int32_t window) {
  SCOPED_TRACE(::testing::Message() << "storage " << storage << " window " << window);
  const ea_kv_cache_config config{70, 4, 2, 20, 3, window, storage, 0.0f, nullptr};
  size_t bytes = 0;
  ASSERT_EQ(NO_HEAP(ea_kv_cache_arena_size(&config, &bytes)), EA_OK);
  TestArena arena(bytes);
  ea_kv_cache cache{};
  ASSERT_EQ(NO_HEAP(ea_kv_cache_init(&cache, &config, &arena.arena)), EA_OK);
  EXPECT_EQ(NO_HEAP(ea_arena_remaining(&arena.arena)), 0u);
  const std::vector<float> kv = RandomTensor(Count(3, 40), 4);
  const std::vector<float> q = RandomTensor(Count(3, 80), 5);
  std::vector<float> out(Count(3, 80), kNaN);
  const int32_t tokens = window > 0 ? 150 : 69;
  for (int32_t t = 0; t < tokens; t += 3) {
    EXPECT_EQ(NO_HEAP(ea_kv_cache_append(&cache, kv.data(), kv.data(), 3)), EA_OK);
    EXPECT_EQ(NO_HEAP(ea_kv_cache_attend(&cache, q.data(), t % 2 == 0 ? 1 : 3, out.data())), EA_OK);
    EXPECT_EQ(NO_HEAP(ea_kv_cache_attend_all(&cache, q.data(), 2, out.data())), EA_OK);
  }
  ExpectAllFinite(out, "out");
  EXPECT_EQ(NO_HEAP(ea_kv_cache_reset(&cache)), EA_OK);
}

// The MHA decoder (sinusoidal table filled at init, RoPE, ALiBi, grouped
// heads, a window) and cross-attention: sizes, inits, steps, memories, runs.
void RunMhaDecodeCase(ea_kv_storage storage) {
  SCOPED_TRACE(::testing::Message() << "storage " << storage);
  const int32_t d_model = 48, heads = 4, kv_heads = 2, positions = 90;
  const std::vector<float> in_proj = RandomTensor(Count(48 + 2 * 24, d_model), 6, 0.15);
  const std::vector<float> cross_in = RandomTensor(Count(3 * d_model, d_model), 7, 0.15);
  const std::vector<float> out_proj = RandomTensor(Count(d_model, d_model), 8, 0.15);
  std::vector<float> rope(Count(positions, d_model / heads)), slopes(heads);
  EXPECT_EQ(NO_HEAP(ea_rope_table_fill(rope.data(), positions, d_model / heads, 10000.0f)), EA_OK);
  EXPECT_EQ(NO_HEAP(ea_alibi_slopes_fill(slopes.data(), heads)), EA_OK);
  ea_decoder_config c{};
  c.d_model = d_model;
  c.n_heads = heads;
  c.n_kv_heads = kv_heads;
  c.max_positions = positions;
  c.max_step_tokens = 3;
  c.window = 30;
  c.storage = storage;
  c.position = EA_POSITION_SINUSOIDAL;
  c.rope_table = rope.data();
  c.rope_layout = EA_ROPE_HALF;
  c.alibi_slopes = slopes.data();
  c.weights_layout = EA_WEIGHTS_ROW_MAJOR;
  size_t bytes = 0;
  ASSERT_EQ(NO_HEAP(ea_decoder_arena_size(&c, &bytes)), EA_OK);
  TestArena arena(bytes);
  ea_decoder decoder{};
  const ea_mha_weights weights =
      edgeattn_test::InProjWeights(in_proj.data(), nullptr, out_proj.data(), nullptr);
  ASSERT_EQ(NO_HEAP(ea_decoder_init(&decoder, &c, &weights, &arena.arena)), EA_OK);
  const std::vector<float> x = RandomTensor(Count(3, d_model), 9);
  std::vector<float> y(x.size(), kNaN);
  for (int32_t t = 0; t + 3 <= positions; t += 3) {
    EXPECT_EQ(NO_HEAP(ea_decoder_step(&decoder, x.data(), t % 2 == 0 ? 3 : 1, y.data())), EA_OK);
  }
  EXPECT_EQ(NO_HEAP(ea_decoder_reset(&decoder)), EA_OK);
  ExpectAllFinite(y, "decoder y");

  const ea_cross_config cc{d_model, heads, 100, 3, storage, EA_WEIGHTS_ROW_MAJOR, heads};
  ASSERT_EQ(NO_HEAP(ea_cross_arena_size(&cc, &bytes)), EA_OK);
  TestArena cross_arena(bytes);
  ea_cross cross{};
  const ea_mha_weights cross_weights =
      edgeattn_test::InProjWeights(cross_in.data(), nullptr, out_proj.data(), nullptr);
  ASSERT_EQ(NO_HEAP(ea_cross_init(&cross, &cc, &cross_weights, &cross_arena.arena)), EA_OK);
  const std::vector<float> memory = RandomTensor(Count(100, d_model), 10);
  EXPECT_EQ(NO_HEAP(ea_cross_set_memory(&cross, memory.data(), 100)), EA_OK);
  EXPECT_EQ(NO_HEAP(ea_cross_run(&cross, x.data(), 3, y.data())), EA_OK);
  ExpectAllFinite(y, "cross y");
}

TEST_P(NoHeapPerTarget, EveryRunEntryPoint) {
  for (const ea_kv_storage storage : kEveryKvStorage) {
    for (const int32_t window : {0, 40}) RunKvCacheCase(storage, window);
    RunMhaDecodeCase(storage);
  }
  for (const ea_dtype dtype : {EA_DTYPE_INT8, EA_DTYPE_INT16}) {
    for (const ea_mask mask : {EA_MASK_NONE, EA_MASK_CAUSAL}) RunQuantAttentionCase(dtype, mask);
  }
  for (const Case& c : Cases(false)) RunAttentionCase(c);
  for (const Case& c : Cases(true)) RunSelfAttentionCase(c);
  for (const Case& c : Cases(true)) RunMhaCase(c);
  for (const QuantCase& c : QuantCases()) RunQuantMhaCase(c);
}

INSTANTIATE_TEST_SUITE_P(Targets, NoHeapPerTarget, testing::ValuesIn(CompiledTargets()),
                         [](const testing::TestParamInfo<int64_t>& info) {
                           return std::string(hwy::TargetName(info.param));
                         });

}  // namespace
}  // namespace edgeattn_test
