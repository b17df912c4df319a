import ArgumentParser
import Foundation
import Recording
import Scheduling

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A command for crash tests: records a little work, then crashes inside an action the
/// way asked, so a test can check that the trace holds the crashing action's begin.
struct RecordCrash: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "crash",
    abstract: "Record some work, then crash inside an action (for crash-flush tests)."
  )

  enum Way: String, ExpressibleByArgument, CaseIterable {
    case segv, bus, ill, abrt, trap
  }

  @Option(help: "Where to write the trace.")
  var output: String

  @Option(
    help:
      "How to crash: segv (bad pointer), bus (past a mapped file's end), ill (a Swift trap), abrt (abort()), trap (SIGTRAP)."
  )
  var way: Way

  func run() throws {
    let recorder = try TraceRecorder(path: output, metadata: ["example": "record-crash"])
    let factory = RecordingSchedulerFactory(
      wrapping: DispatchSchedulerFactory(), recorder: recorder)
    let queue = factory.makeSerial(label: "crash.worker")
    for index in 0..<20 { queue.async { _ = index } }
    queue.sync {}
    recorder.flush()
    // What follows is in the buffers only when the crash comes: the flush interval is far off.
    recorder.mark("about to crash", ["way": way.rawValue])
    let way = self.way
    queue.async { Self.crash(way) }
    while true { pause() }
  }

  static func crash(_ way: Way) {
    switch way {
    case .segv:
      let pointer = UnsafeMutablePointer<Int>(bitPattern: 16)
      pointer?.pointee = 1
    case .bus:
      // A mapping past the end of an empty file: touching it is SIGBUS.
      let path = FileManager.default.temporaryDirectory.appendingPathComponent(
        "bus-\(getpid())"
      ).path
      let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
      unlink(path)
      let mapped = mmap(nil, 4096, PROT_READ, MAP_SHARED, descriptor, 0)
      if let mapped, mapped != MAP_FAILED {
        print(mapped.load(as: UInt8.self))
      }
    case .ill: fatalError("a Swift trap inside a recorded action")
    case .abrt: abort()
    case .trap: raise(SIGTRAP)
    }
    raise(SIGKILL)  // not reached when the crash worked
  }
}
