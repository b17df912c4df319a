import Recording
import Scheduling

// Work in progress (issue 30): the library the dynamic linker preloads into a program that
// `chronoscope record` runs. It opens the recorder the `CHRONOSCOPE_TRACE*` variables ask for;
// the interposers of libdispatch's entry points (see /work/notes/issue30-spike.md) come next.

/// The recorder of this process, kept for its life (the recorder closes itself at exit).
nonisolated(unsafe) private var factory: (any SchedulerFactory)?

/// Called once by the constructor in CPreloadInit, before the program's main.
@_cdecl("chronoscope_preload_start")
public func chronoscopePreloadStart() {
  factory = RecordingSchedulerFactory.recordingIfRequested(
    wrapping: .dispatch, metadata: ["recorded-by": "chronoscope record"])
}
