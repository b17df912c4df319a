import ChronoscopeTraceFormat

/// Which Swift task a job or the calling code belongs to, as the runtime numbers tasks — the id
/// `ExecutorJob`'s description prints (`ExecutorJob(id: 42)`).
///
/// The standard library has no public property for it, so this asks the runtime's exported entry
/// point that description itself calls, `swift_task_getJobTaskId` (a task's id, 0 for a job that
/// is no task), part of the concurrency runtime's ABI on Linux and Apple platforms alike.
enum TaskIdentity {
  /// The id of the task `job` runs, or nil when it runs none (a job that is no task's) or the id
  /// is outside what the trace format holds.
  static func task(of job: UnownedJob) -> UInt64? {
    recordable(taskID(unsafeBitCast(job, to: UnsafeRawPointer.self)))
  }

  /// The id of the task running on this thread, if any.
  static var current: UInt64? {
    withUnsafeCurrentTask { task in
      // `UnsafeCurrentTask` is the task's reference and nothing else, and a task is a job: the
      // runtime's `AsyncTask` derives from `Job`.
      task.flatMap { recordable(taskID(unsafeBitCast($0, to: UnsafeRawPointer.self))) }
    }
  }

  /// The name of task `task` (`Task(name:)`), when it is the task running on this thread and
  /// has one: the runtime tells only the current task's name.
  static func name(of task: UInt64) -> String? {
    #if compiler(>=6.2)
      guard #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *),
        let name = Task.name, current == task
      else { return nil }
      return name
    #else
      return nil
    #endif
  }

  private static func recordable(_ id: UInt64) -> UInt64? {
    id == 0 || id > UInt64(TraceLimits.maximumTime) ? nil : id
  }
}

@_silgen_name("swift_task_getJobTaskId")
private func taskID(_ job: UnsafeRawPointer) -> UInt64
