import ArgumentParser
import Dispatch

/// `chronoscope-examples named-tasks`: tasks named with `Task(name:)` and a group's named child
/// tasks, each suspending once, for the test that `chronoscope record` writes the names of the
/// tasks whose jobs it records.
struct NamedTasks: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "named-tasks",
    abstract: "Run named tasks and a group's named children (for recorded task names)."
  )

  func run() throws {
    let done = DispatchSemaphore(value: 0)
    Task {
      let loader = Task(name: "loader") { () async -> Int in
        await Task.yield()
        return 1
      }
      let saver = Task(name: "saver ☃") { () async -> Int in
        await Task.yield()
        return 2
      }
      var sum = await loader.value + saver.value
      sum += await withTaskGroup(of: Int.self) { group in
        for index in 0..<3 {
          group.addTask(name: "child-\(index)") {
            await Task.yield()
            return index
          }
        }
        return await group.reduce(0, +)
      }
      print("named tasks done: \(sum)")
      done.signal()
    }
    done.wait()
  }
}
