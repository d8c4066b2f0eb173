/* Cortex-M start-up for edgeattn test programs under qemu-system-arm.
 *
 * Boards: mps2-an386 (Cortex-M4), mps2-an500 (Cortex-M7), mps3-an547
 * (Cortex-M55); see README.md and the board's linker script, which defines
 * every symbol used below (__StackTop, __data_*, __bss_*, __heap_*).
 *
 * Design choice: newlib's rdimon.specs, with OUR Reset_Handler.
 *   The program links with --specs=rdimon.specs (or nano.specs + rdimon.specs)
 *   for semihosted stdio and exit. That also links rdimon-crt0.o, whose _start
 *   is not used: the vector table below points at Reset_Handler, which does the
 *   start-up itself and then calls newlib's own initialisation
 *   (initialise_monitor_handles, __libc_init_array) and exit(). rdimon's _start
 *   is unsuitable as the reset vector because it
 *     - does not copy .data from its load address: with these linker scripts
 *       (.data loaded after the code) a program started at _start printed
 *       nothing and exited 0 even though main returned 5 (tried on mps2-an386
 *       and mps3-an547);
 *     - takes the stack and the heap limit from the SYS_HEAPINFO semihosting
 *       call, i.e. from qemu's guess, not from the linker script. Measured on
 *       qemu 7.2: mps2 boards answer their 16 MiB PSRAM; mps3-an547 answers
 *       "end of the loaded image .. 0x80000" inside ITCM, whatever RAM .data
 *       and .bss use (hence TOOLCHAINS.md's advice for that board);
 *     - does not enable the FPU, so the first floating-point instruction of a
 *       hard-float program raises a NOCP UsageFault.
 *   The crt0 object stays in the link but nothing references _start, so
 *   --gc-sections drops it; crti.o/crtn.o still provide _init/_fini, which
 *   __libc_init_array calls. The linker scripts also define end/__end__/
 *   __bss_start__/__bss_end__, names that crt0 and libgloss refer to.
 *
 * Heap: malloc grows through _sbrk; the one here (it overrides libgloss's weak
 * _sbrk) hands out exactly [__heap_start, __heap_end) from the linker script,
 * instead of "from `end` up to the current stack pointer".
 *
 * Exit status: main's return value goes to exit(), which runs atexit handlers
 * and static destructors, flushes stdio, and calls _exit. The _exit here
 * (libgloss's is then never pulled from librdimon) issues SYS_EXIT_EXTENDED,
 * so the value becomes qemu's exit status. libgloss's own _exit does that
 * only if reading ":semihosting-features" worked and otherwise exits 0 with
 * any status; this one cannot turn a failure into 0. abort() (also a failed
 * assert or a failed operator new under -fno-exceptions) goes through
 * libgloss's _kill: qemu exits 1. A fault prints a report through semihosting
 * SYS_WRITE0 and exits with CM_FAULT_EXIT_STATUS (134, as a shell reports an
 * aborted hosted process).
 *
 * Build: C11, -Wall -Wextra -Werror clean; any Cortex-M with the Main
 * Extension (v7-M, v7E-M, v8-M Mainline, v8.1-M). No third-party code.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h> /* _exit */

#define CM_FAULT_EXIT_STATUS 134

/* ------------------------------------------------ linker script symbols */
extern uint32_t __StackTop[];
extern uint32_t __StackLimit[];
extern uint32_t __data_start__[];
extern uint32_t __data_end__[];
extern const uint32_t __data_load__[];
extern uint32_t __bss_start__[];
extern uint32_t __bss_end__[];
extern char __heap_start[];
extern char __heap_end[];

/* ------------------------------------------------------------ newlib */
extern void initialise_monitor_handles(void); /* librdimon: opens :tt for fd 0,1,2 */
extern void __libc_init_array(void);          /* preinit_array, _init, init_array */
extern void __libc_fini_array(void);
extern int main(int argc, char** argv);

/* ------------------------------------------------------------ this file */
void Reset_Handler(void) __attribute__((noreturn));
void cm_fault_entry(void);
void cm_fault_report(const uint32_t* frame) __attribute__((noreturn));
void* _sbrk(ptrdiff_t increment);

/* ------------------------------------------------ system control block */
#define SCB_CPACR (*(volatile uint32_t*)0xE000ED88u) /* coprocessor access */
#define SCB_SHCSR (*(volatile uint32_t*)0xE000ED24u) /* handler control */
#define SCB_CFSR (*(volatile uint32_t*)0xE000ED28u)  /* configurable fault status */
#define SCB_HFSR (*(volatile uint32_t*)0xE000ED2Cu)  /* hard fault status */
#define SCB_MMFAR (*(volatile uint32_t*)0xE000ED34u) /* MemManage address */
#define SCB_BFAR (*(volatile uint32_t*)0xE000ED38u)  /* BusFault address */
#define SAU_SFSR (*(volatile uint32_t*)0xE000EDE4u)  /* SecureFault status (v8-M) */
#define SAU_SFAR (*(volatile uint32_t*)0xE000EDE8u)  /* SecureFault address (v8-M) */

#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
#define CM_V8M 1 /* has MSPLIM and SecureFault */
#else
#define CM_V8M 0
#endif

/* ------------------------------------------------------- semihosting */
#define SH_SYS_WRITE0 0x04        /* print a NUL-terminated string */
#define SH_SYS_GET_CMDLINE 0x15   /* the host's command line (qemu: -append) */
#define SH_SYS_EXIT 0x18          /* reason only: qemu exits 0 or 1 */
#define SH_SYS_EXIT_EXTENDED 0x20 /* reason + status */
#define SH_ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define SH_ADP_STOPPED_RUNTIME_ERROR 0x20023u

/* One semihosting call: BKPT 0xAB with the operation in r0, argument in r1. */
static uintptr_t semihost(uintptr_t op, const void* arg) {
  register uintptr_t r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

/* Ends the program; status becomes qemu's exit status. */
__attribute__((noreturn)) void _exit(int status) {
  const uint32_t block[2] = {SH_ADP_STOPPED_APPLICATION_EXIT, (uint32_t)status};
  semihost(SH_SYS_EXIT_EXTENDED, block);
  /* Only reached on a host without SYS_EXIT_EXTENDED: keep 0 and non-zero
   * apart (reason ApplicationExit -> 0, anything else -> 1 on qemu). */
  semihost(SH_SYS_EXIT, (const void*)(uintptr_t)(status == 0 ? SH_ADP_STOPPED_APPLICATION_EXIT
                                                             : SH_ADP_STOPPED_RUNTIME_ERROR));
  for (;;) {
  }
}

/* ---------------------------------------------------------------- heap */

/* malloc's only source of memory: [__heap_start, __heap_end). */
void* _sbrk(ptrdiff_t increment) {
  static char* brk = __heap_start;
  char* previous = brk;
  if (increment > __heap_end - brk || increment < __heap_start - brk) {
    errno = ENOMEM;
    return (void*)-1;
  }
  brk += increment;
  return previous;
}

/* -------------------------------------------------------------- faults */

/* Appends "0x%08x" of value at out; returns the end. */
static char* put_hex(char* out, uint32_t value) {
  *out++ = '0';
  *out++ = 'x';
  for (int shift = 28; shift >= 0; shift -= 4) *out++ = "0123456789abcdef"[(value >> shift) & 0xFu];
  return out;
}

static char* put_str(char* out, const char* s) {
  while (*s) *out++ = *s++;
  return out;
}

/* Reports the fault and ends the program; frame is the exception frame the
 * core stacked (r0-r3, r12, lr, pc, xpsr) on whichever stack was in use. */
__attribute__((used, noreturn)) void cm_fault_report(const uint32_t* frame) {
  static const char* const kNames[] = {"thread",    "reset",    "NMI",        "HardFault",
                                       "MemManage", "BusFault", "UsageFault", "SecureFault"};
  uint32_t ipsr;
  __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
  const uint32_t exception = ipsr & 0x1FFu;
  char line[256];
  char* p = put_str(line, "\n[cortex-m] fatal: ");
  p = put_str(p, exception < 8 ? kNames[exception] : "unexpected exception");
  p = put_str(p, " (exception ");
  p = put_hex(p, exception);
  p = put_str(p, ") pc=");
  p = put_hex(p, frame[6]);
  p = put_str(p, " lr=");
  p = put_hex(p, frame[5]);
  p = put_str(p, " xpsr=");
  p = put_hex(p, frame[7]);
  p = put_str(p, "\n[cortex-m] CFSR=");
  p = put_hex(p, SCB_CFSR);
  p = put_str(p, " HFSR=");
  p = put_hex(p, SCB_HFSR);
  p = put_str(p, " MMFAR=");
  p = put_hex(p, SCB_MMFAR);
  p = put_str(p, " BFAR=");
  p = put_hex(p, SCB_BFAR);
#if CM_V8M && defined(__ARM_FEATURE_CMSE)
  p = put_str(p, " SFSR=");
  p = put_hex(p, SAU_SFSR);
  p = put_str(p, " SFAR=");
  p = put_hex(p, SAU_SFAR);
#endif
  p = put_str(p, "\n");
  *p = '\0';
  semihost(SH_SYS_WRITE0, line);
  /* No exit(): stdio and destructors may be what faulted. */
  _exit(CM_FAULT_EXIT_STATUS);
}

/* Every vector but reset: pass the stacked frame (MSP or PSP, by EXC_RETURN
 * bit 2) to cm_fault_report, on a usable stack. Naked: nothing is pushed. */
__attribute__((naked)) void cm_fault_entry(void) {
  __asm__ volatile(
#if CM_V8M
      /* Lift the stack limit: after a stack overflow the report must still run. */
      "movs r0, #0\n\t"
      "msr msplim, r0\n\t"
#endif
      "tst lr, #4\n\t"
      "ite eq\n\t"
      "mrseq r0, msp\n\t"
      "mrsne r0, psp\n\t"
      /* The stack ran past its limit (v7-M has no MSPLIM): report from the
       * top of the stack instead of from unmapped memory or .data. */
      "movw r1, #:lower16:__StackLimit\n\t"
      "movt r1, #:upper16:__StackLimit\n\t"
      "cmp sp, r1\n\t"
      "bhs 1f\n\t"
      "movw r1, #:lower16:__StackTop\n\t"
      "movt r1, #:upper16:__StackTop\n\t"
      "mov sp, r1\n\t"
      "1:\n\t"
      "b cm_fault_report\n\t");
}

/* --------------------------------------------------------------- reset */

/* Splits the semihosting command line ("program args..."; qemu passes the
 * kernel name and -append) into argv at spaces; returns argc >= 1. */
#define CM_MAX_ARGS 16
static int cm_command_line(char** argv) {
  static char line[512];
  uintptr_t block[2] = {(uintptr_t)line, sizeof line - 1};
  int argc = 0;
  if (semihost(SH_SYS_GET_CMDLINE, block) == 0) {
    line[block[1] < sizeof line ? block[1] : sizeof line - 1] = '\0';
    for (char* p = line; *p != '\0' && argc < CM_MAX_ARGS;) {
      while (*p == ' ') *p++ = '\0';
      if (*p == '\0') break;
      argv[argc++] = p;
      while (*p != '\0' && *p != ' ') ++p;
    }
  }
  if (argc == 0) {
    static char program_name[] = "edgeattn";
    argv[argc++] = program_name;
  }
  argv[argc] = NULL;
  return argc;
}

__attribute__((noreturn)) void Reset_Handler(void) {
  /* 1. FPU (and MVE on the M55) before any compiled code can use it: the
   *    copy loops below may be vectorised. CP10/CP11 full access. */
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  SCB_CPACR |= 0xFu << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
#if CM_V8M
  /* Stack overflow into .bss faults (STKOF) instead of corrupting it. */
  __asm__ volatile("msr msplim, %0" ::"r"(__StackLimit));
#endif
  /* Report MemManage, BusFault, UsageFault (and SecureFault) as themselves
   * rather than escalated to HardFault. */
  SCB_SHCSR |= (1u << 16) | (1u << 17) | (1u << 18) | (CM_V8M ? 1u << 19 : 0u);

  /* 2. .data from its load address in code memory; .bss to zero. */
  const uint32_t* src = __data_load__;
  for (uint32_t* dst = __data_start__; dst < __data_end__;) *dst++ = *src++;
  for (uint32_t* dst = __bss_start__; dst < __bss_end__;) *dst++ = 0;

  /* 3. newlib: semihosted stdin/stdout/stderr, then static constructors
   *    (C++ globals, __attribute__((constructor))). Destructors run at exit. */
  initialise_monitor_handles();
  atexit(__libc_fini_array);
  __libc_init_array();

  /* 4. main with the words of qemu's -append as arguments (test filters),
   *    then exit with its value (qemu's exit status). */
  static char* argv[CM_MAX_ARGS + 1];
  exit(main(cm_command_line(argv), argv));
}

/* ------------------------------------------------------- vector table */

/* The 16 system vectors. No interrupt is ever enabled, so no IRQ entries. */
typedef void (*cm_vector)(void);
__attribute__((section(".vectors"), used)) const cm_vector cm_vector_table[16] = {
    (cm_vector)(uintptr_t)__StackTop, /* 0: initial main stack pointer */
    Reset_Handler,                    /* 1 */
    cm_fault_entry,                   /* 2: NMI */
    cm_fault_entry,                   /* 3: HardFault */
    cm_fault_entry,                   /* 4: MemManage */
    cm_fault_entry,                   /* 5: BusFault */
    cm_fault_entry,                   /* 6: UsageFault */
    cm_fault_entry,                   /* 7: SecureFault (v8-M), reserved before */
    0,
    0,
    0,              /* 8-10: reserved */
    cm_fault_entry, /* 11: SVCall */
    cm_fault_entry, /* 12: DebugMonitor */
    0,              /* 13: reserved */
    cm_fault_entry, /* 14: PendSV */
    cm_fault_entry, /* 15: SysTick */
};
