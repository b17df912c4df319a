#ifndef CHRONOSCOPE_PREFETCH_H
#define CHRONOSCOPE_PREFETCH_H

// A cache prefetch hint, which Swift has no spelling for. ChronoscopeVirtualTime's clock asks for the slot
// of the work it will run next while it runs the current one (ChronoscopeVirtualTime/VirtualClock.swift).

/// Asks the processor to bring the cache line holding `address` in, for reading, without
/// waiting for it. Only a hint: it never faults, whatever the address.
static inline void chronoscope_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

#endif
