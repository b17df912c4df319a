#ifndef CHRONOSCOPE_THREAD_NAME_H
#define CHRONOSCOPE_THREAD_NAME_H

// Names the calling thread as the OS shows it (`top -H`, /proc/PID/task/TID/comm), for the
// recorder's writer thread (ChronoscopeRecording/RecorderCore.swift) and the async clocks'
// watchdog: Foundation's Thread.name does not set
// it on Linux, and glibc's pthread_setname_np is a GNU extension Swift's Glibc does not import.

#if defined(__linux__)
#include <sys/prctl.h>
#endif

/// Sets the calling thread's name; Linux keeps its first 15 bytes. Does nothing elsewhere.
static inline void chronoscope_name_current_thread(const char *name) {
#if defined(__linux__)
  prctl(PR_SET_NAME, name, 0, 0, 0);
#else
  (void)name;
#endif
}

#endif
