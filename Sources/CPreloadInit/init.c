// The preload library's entry: the dynamic linker runs constructors when LD_PRELOAD loads it,
// before the program's main. Swift has no spelling for a constructor, so this one line is C.
#include "CPreloadInit.h"

extern void chronoscope_preload_start(void);

__attribute__((constructor)) static void chronoscope_preload_constructor(void) {
  chronoscope_preload_start();
}
