/// A Swift task a trace names (its `task` lines): the work that was part of it — an actor's jobs,
/// its sleeps — and the schedulers that work was on.
package struct TaskInfo: Sendable, Equatable {
  /// The runtime's id for it.
  package let id: TaskID
  /// Its name (`Task(name:)`), if it had one.
  package let name: String?
  /// The schedulers (actors, clocks, schedulers) its work was on, by id.
  package let schedulers: [SchedulerID]
  /// How many actions the trace says were its work.
  package let actionCount: Int

  /// `task 42`, or `search (task 42)` for a named task.
  package var title: String { name.map { "\($0) (\(id))" } ?? id.description }
}
