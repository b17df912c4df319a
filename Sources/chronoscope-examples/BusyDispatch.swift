import ArgumentParser
import Dispatch
import Foundation

/// `chronoscope-examples busy-dispatch`: plain Dispatch work that allocates on every block, on
/// several queues at once, until killed — for the tests that a stop or crash signal sent to a
/// recorded program at any moment ends it by that signal with its trace whole (the recorder's
/// signal path must never wait on a lock an interrupted thread holds, `malloc`'s among them).
struct BusyDispatch: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "busy-dispatch",
    abstract: "Allocating Dispatch work on several queues until killed (for the signal tests)."
  )

  @Option(help: "Stop by itself after this many seconds.")
  var seconds: Double = 60

  func run() throws {
    let queues = (0..<4).map { DispatchQueue(label: "busy.\($0)") }
    let concurrent = DispatchQueue(label: "busy.concurrent", attributes: .concurrent)
    let deadline = DispatchTime.now() + seconds
    var round = 0
    while DispatchTime.now() < deadline {
      for (index, queue) in queues.enumerated() {
        queue.async {
          // Allocation in every block: the moment a signal lands is often inside malloc.
          let words = (0..<(16 + index)).map { "w\($0)" }
          blackHole(words.joined(separator: ","))
        }
      }
      let count = round & 63
      concurrent.async { blackHole(Array(repeating: count, count: 64).reduce(0, +)) }
      if round % 8 == 0 { queues[0].sync {} }
      if round == 64 {
        // The parent waits for this line: recording is under way, every queue has run work.
        FileHandle.standardOutput.write(Data("busy \(getpid())\n".utf8))
      }
      round += 1
    }
  }
}

/// Keeps a value alive as far as the optimizer can tell.
@inline(never)
private func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }
