/// What the recorders of a process do when it replaces itself with `exec`, which runs no exit
/// handlers and ends every thread: each writes what it holds and its end marker first (a flight
/// recorder dumps its window), so the trace is whole; the new image records into its own file
/// (see `TraceProcessNames`). If the `exec` fails, the recordings go on: the end marker is
/// taken back (the file cut to where it ended before it) and the next lines follow.
///
/// Called in the thread that calls `exec`, before the real call (the preload library's
/// interposers), and only in the process that opened the recorders: a forked or `vfork`ed
/// child's `exec` touches nothing of its parent's.
package enum ExecHandoff {
  /// Writes every recorder's buffers and end marker before an `exec`.
  package static func writeBeforeExec() { RecorderRegistry.shared.writeBeforeExec() }

  /// Takes the end markers back after an `exec` that failed, and goes on recording.
  package static func resumeAfterFailedExec() { RecorderRegistry.shared.resumeAfterFailedExec() }
}
