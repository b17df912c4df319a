#ifndef CHRONOSCOPE_RELEASE_MEMORY_H
#define CHRONOSCOPE_RELEASE_MEMORY_H

// glibc's malloc_trim, which Swift's Glibc module does not import. The inspector's command hands
// back what preparing its replay freed (chronoscope/View.swift): glibc keeps freed
// memory below a threshold that freeing one large block raises to 32 MB, so the temporary
// tables of a large trace otherwise stay resident.

#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

/// Hands the allocator's free memory back to the system where it can; returns whether any was.
/// Elsewhere than glibc, does nothing.
static inline int chronoscope_release_free_memory(void) {
#if defined(__GLIBC__)
  return malloc_trim(0);
#else
  return 0;
#endif
}

#endif
