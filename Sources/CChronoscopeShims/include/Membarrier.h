#ifndef CHRONOSCOPE_MEMBARRIER_H
#define CHRONOSCOPE_MEMBARRIER_H

// Linux's membarrier(2), for the recorder's asymmetric fence (ChronoscopeRecording/AsymmetricFence.swift).
// glibc has no wrapper for it, and Swift cannot call the variadic syscall(2) itself.

/// Registers the process for MEMBARRIER_CMD_PRIVATE_EXPEDITED. Returns 0 when the command is
/// available and registered, -1 otherwise (another system, an old kernel, a sandbox that
/// filters the system call).
int chronoscope_membarrier_register(void);

/// Makes every running thread of the process execute a full memory barrier before it returns
/// (MEMBARRIER_CMD_PRIVATE_EXPEDITED). Returns 0, or -1 if the call failed. Only after a
/// successful chronoscope_membarrier_register().
int chronoscope_membarrier(void);

/// Keeps the compiler from moving memory accesses across this point; emits no instruction.
static inline void chronoscope_compiler_barrier(void) { __asm__ __volatile__("" ::: "memory"); }

#endif
