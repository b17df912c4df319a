import ArgumentParser
import Dispatch

/// `chronoscope-examples task-priorities`: runs a task at each of several priorities, one after
/// another, for the test that `chronoscope record` names each of the Swift runtime's global
/// queues (one per priority) by its quality of service.
struct TaskPriorities: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "task-priorities",
    abstract: "Run a task at each of several priorities (for the runtime queues' names)."
  )

  func run() throws {
    let done = DispatchSemaphore(value: 0)
    for priority in [TaskPriority.userInitiated, .utility, .background, nil] {
      Task.detached(priority: priority) { done.signal() }
      done.wait()
    }
    print("ran tasks at 4 priorities")
  }
}
