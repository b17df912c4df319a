/// A thread as the inspector names it: a title that identifies it, and the schedulers whose work it
/// ran.
package struct ThreadInfo: Sendable, Equatable {
  /// The thread's id in the trace.
  package let id: ThreadID
  /// The name the trace recorded, if any (possibly cut by the OS).
  package let recordedName: String?
  /// A name that identifies the thread: the recorded name when it is whole and unique, else
  /// `worker N` (N the trace's thread id), or the name with its id when two threads share it.
  package let title: String
  /// The schedulers whose work it ran, by id.
  package let schedulers: [SchedulerID]

  /// Linux keeps at most 15 bytes of a thread's name (16 with the terminator) and Dispatch
  /// keeps the end of a longer one, so a name of exactly that length is probably a fragment
  /// such as `-qos.overcommit`.
  package static let truncatedNameLength = 15

  /// Titles for `threads` (id and recorded name), in the same order: whole names kept, fragments
  /// and missing names replaced by `worker N`, duplicates told apart by id.
  package static func titles(for threads: [(id: ThreadID, name: String?)]) -> [String] {
    let readable = threads.map { thread -> String? in
      guard let name = thread.name, !name.isEmpty else { return nil }
      if thread.id.rawValue == 1 || name == "main" { return name }
      return name.utf8.count == truncatedNameLength ? nil : name
    }
    var uses: [String: Int] = [:]
    for name in readable { if let name { uses[name, default: 0] += 1 } }
    return zip(threads, readable).map { thread, name in
      guard let name else { return "worker \(thread.id.rawValue)" }
      return uses[name, default: 0] > 1 ? "\(name) (\(thread.id.rawValue))" : name
    }
  }
}
