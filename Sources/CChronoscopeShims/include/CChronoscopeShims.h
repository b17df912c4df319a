#ifndef CHRONOSCOPE_CSHIMS_H
#define CHRONOSCOPE_CSHIMS_H

// What Swift cannot spell or call itself, one small header each: Linux's membarrier(2) for the
// recorder's fence, a cache prefetch hint for the virtual clock, glibc's malloc_trim for the
// CLI, and a thread's OS name for the recorder's writer. One C target, so that each new need is a header here, not a target.

#include "Membarrier.h"
#include "Prefetch.h"
#include "ReleaseMemory.h"
#include "ThreadName.h"

#endif
