import ArgumentParser
import Dispatch

/// `chronoscope-examples dispatch-work`: a little plain Dispatch work on a queue of its own, for
/// the tests of recording a program's other processes (`exec-other`, `spawn-children` start
/// it).
struct DispatchWork: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "dispatch-work",
    abstract: "A little Dispatch work on a queue named by --label (for process tests)."
  )

  @Option(help: "The queue's label.")
  var label = "dispatch-work"

  @Option(help: "How many blocks to run.")
  var items = 8

  func run() throws {
    runDispatchWork(label: label, items: items)
    print("\(label): ran \(items) blocks")
  }
}

/// Runs `items` empty blocks on a new serial queue labelled `label` and waits for them.
func runDispatchWork(label: String, items: Int) {
  let queue = DispatchQueue(label: label)
  let group = DispatchGroup()
  for _ in 0..<items { queue.async(group: group) {} }
  group.wait()
}
