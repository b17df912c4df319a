import ChronoscopeScheduling
import ChronoscopeTraceFormat

/// Records work that a scheduler Chronoscope does not wrap runs — libdispatch's, for a program
/// recorded from outside (`chronoscope record`), whose entry points the preload library
/// interposes. It writes the lines ``RecordingScheduler`` writes, but runs nothing itself: the
/// interposer hands the real work on, wrapped in ``begin(_:run:)`` and ``end(_:run:startedAt:)``,
/// to the real scheduler, so recording changes when things run by its own cost and never what
/// runs or where.
///
/// Call sites are return addresses in machine code (``schedule(on:_:delay:firstDelay:codeAddress:task:)``):
/// each is defined once, with the module and offset `describeCode` gives, and symbolized later.
package final class ForeignWorkRecorder: Sendable {
  /// The recorder writing the trace; kept open for as long as this lives.
  package let recorder: TraceRecorder
  private let core: RecorderCore

  /// An action as the interposer carries it from its schedule to its runs.
  package struct Action: Sendable, Equatable {
    /// The action's id in the trace.
    package let id: UInt32
    /// The thread that scheduled it, for the `hop` of a run elsewhere.
    package let thread: UInt32

    package init(id: UInt32, thread: UInt32) {
      self.id = id
      self.thread = thread
    }
  }

  /// Records into `recorder`; `describeCode` tells a call site's module and offset.
  package init(
    recorder: TraceRecorder, describeCode: @escaping @Sendable (UInt) -> CodeLocation?
  ) {
    self.recorder = recorder
    core = recorder.core
    core.describeCode(with: describeCode)
  }

  /// Announces a scheduler (a queue) and returns its id in the trace.
  package func registerScheduler(label: String, kind: SchedulerKind, family: SchedulerFamily)
    -> UInt32
  {
    core.registerScheduler(label: label, kind: kind, family: family)
  }

  /// Records a `schedule` on `scheduler` from the calling thread (with the action running on it
  /// as the parent), at `codeAddress` (0 for none), with a `task` line when the work is a Swift
  /// task's job, naming the task when `taskName` is given. A schedule recorded when the work became due rather than when it was asked
  /// for (a group's notify) names the action that asked as its `parent`. Timed work is due at
  /// `deadline`, an instant of the host's monotonic clock (`CLOCK_MONOTONIC`): read when the
  /// program asked, it stays exact however long recording the schedule takes.
  @inline(__always)
  package func schedule(
    on scheduler: UInt32, _ mode: TraceEvent.ScheduleMode, delay: Int64 = 0,
    deadline: Int64? = nil, codeAddress: UInt, caller: UInt = 0, task: UInt64? = nil,
    taskName: String? = nil, parent: UInt32? = nil
  ) -> Action {
    core.withCurrentBuffer { buffer in
      let id = buffer.makeActionID()
      let site = codeAddress == 0 ? 0 : buffer.siteID(codeAddress: codeAddress, caller: caller)
      core.appendSchedule(
        id: id, on: scheduler, mode, delay: delay, firstDelay: nil, site: site,
        inline: false, task: task, taskName: taskName.map { core.taskNameIndex(for: $0) } ?? 0,
        work: nil, parent: parent,
        dueAt: deadline.flatMap(core.traceTime(ofHostInstant:)), buffer: buffer)
      return Action(id: id, thread: buffer.threadID)
    }
  }

  /// Records the start of run `run` of `action` on the calling thread; returns its start time,
  /// for ``end(_:run:startedAt:)``, which the same thread must call when the run ends.
  @inline(__always)
  package func begin(_ action: Action, run: UInt32 = 1) -> Int64 {
    core.withCurrentBuffer { buffer in
      buffer.stamp {
        let start = buffer.now()
        buffer.appendBegin(of: action.id, scheduledFrom: action.thread, run: run, at: start)
        return start
      }
    }
  }

  /// Records the end of a run that ``begin(_:run:)`` recorded on this thread.
  @inline(__always)
  package func end(_ action: Action, run: UInt32 = 1, startedAt start: Int64) {
    core.withCurrentBuffer { buffer in buffer.recordEnd(of: action.id, run: run, startedAt: start) }
  }

  /// Records a cancel of `action` from the calling thread, saying whether any run had started.
  package func cancel(_ action: Action, started: Bool) {
    core.withCurrentBuffer { buffer in
      buffer.stamp {
        buffer.append(
          .cancel(
            time: buffer.now(), action: action.id, thread: buffer.threadID,
            by: buffer.currentAction, started: started))
      }
    }
  }

  /// Records that the calling thread waited `duration` ns until now on `object`, outside any
  /// recorded run, called at `codeAddress` (0 for none); `by` is the action whose signal ended
  /// the wait (0 for none), `scheduler` the main scheduler's id when this is the main thread.
  package func waited(
    _ duration: Int64, on object: TraceEvent.WaitObject, scheduler: UInt32, by: UInt32,
    codeAddress: UInt, caller: UInt = 0
  ) {
    core.withCurrentBuffer { buffer in
      let site = codeAddress == 0 ? 0 : buffer.siteID(codeAddress: codeAddress, caller: caller)
      buffer.stamp {
        buffer.append(
          .wait(
            time: buffer.now(), thread: buffer.threadID, scheduler: scheduler,
            duration: duration, on: object, by: by, site: site))
      }
    }
  }

  /// The action running on the calling thread, or 0.
  package var currentAction: UInt32 { core.withCurrentBuffer { $0.currentAction } }
}
