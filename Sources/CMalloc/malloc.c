// CMalloc is header-only (a static inline function); SwiftPM needs one source file per C target.
#include "CMalloc.h"
