#ifndef CHRONOSCOPE_CPRELOADINIT_H
#define CHRONOSCOPE_CPRELOADINIT_H
// Nothing to import: the target only holds the preload library's constructor (init.c).
#endif
