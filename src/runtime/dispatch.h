// Dynamic or static dispatch of per-target kernels, chosen by the build.
//
// Hosted builds compile every kernel for each Highway target of the CPU family
// and pick the best at run time (HWY_EXPORT / HWY_DYNAMIC_DISPATCH). Firmware and
// cross builds define EDGEATTN_STATIC_DISPATCH together with
// HWY_COMPILE_ONLY_STATIC: one target fixed by -march/-mcpu, no libhwy symbol.
// Include after <hwy/highway.h>, inside an `#if HWY_ONCE` block.
#ifndef EDGEATTN_SRC_RUNTIME_DISPATCH_H_
#define EDGEATTN_SRC_RUNTIME_DISPATCH_H_

#if defined(EDGEATTN_STATIC_DISPATCH)
#define EA_EXPORT(FUNC_NAME) static_assert(true, "static dispatch: nothing to export")
#define EA_DISPATCH(FUNC_NAME) HWY_STATIC_DISPATCH(FUNC_NAME)
#else
#define EA_EXPORT(FUNC_NAME) HWY_EXPORT(FUNC_NAME)
#define EA_DISPATCH(FUNC_NAME) HWY_DYNAMIC_DISPATCH(FUNC_NAME)
#endif

#endif  // EDGEATTN_SRC_RUNTIME_DISPATCH_H_
