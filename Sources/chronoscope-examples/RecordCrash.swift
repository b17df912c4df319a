import ArgumentParser
import ChronoscopeRecording
import ChronoscopeScheduling
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTerminal
import Foundation
import Synchronization

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
    case stackOverflow = "stack-overflow"
  }

  @Option(
    help:
      "Where to write the trace; with --recorders N above 1, OUTPUT-1 … OUTPUT-N, the crash in N's action."
  )
  var output: String

  @Option(
    help:
      "How to crash: segv (bad pointer), bus (past a mapped file's end), ill (a Swift trap), abrt (abort()), trap (SIGTRAP), stack-overflow (endless recursion)."
  )
  var way: Way

  @Option(help: "How many recorders to open, each with a queue that records a little work.")
  var recorders = 1

  @Flag(
    help:
      "Record on a virtual clock whose `now` takes a lock, as VirtualClock's does, and crash while holding it."
  )
  var virtualClockLocked = false

  @Flag(help: "Take the terminal over (a TerminalSession) before opening the recorders.")
  var terminal = false

  @Flag(help: "With --terminal: give the terminal back before crashing.")
  var stopTerminal = false

  func run() throws {
    let session = terminal ? try TerminalSession(colors: false) : nil
    if let session {
      var grid = ScreenGrid(width: session.width, height: session.height)
      grid.write("crashing soon", row: 0, column: 0, style: Style(bold: true))
      session.draw(grid)
    }
    let clockLock = Mutex(Duration.zero)
    let clock: TraceClock =
      virtualClockLocked
      ? .virtual {
        clockLock.withLock {
          $0 += .microseconds(1)
          return $0
        }
      } : .host
    let paths =
      recorders <= 1 ? [output] : (1...recorders).map { "\(output)-\($0)" }
    var queues: [any Scheduler] = []
    var opened: [TraceRecorder] = []
    for path in paths {
      let recorder = try TraceRecorder(
        path: path, clock: clock, metadata: ["example": "record-crash"])
      let factory = RecordingSchedulerFactory(
        wrapping: DispatchSchedulerFactory(), recorder: recorder)
      let queue = factory.makeSerial(label: "crash.worker")
      for index in 0..<20 { queue.async { _ = index } }
      queue.sync {}
      recorder.flush()
      queues.append(queue)
      opened.append(recorder)
    }
    if stopTerminal { session?.stop() }
    // What follows is in the buffers only when the crash comes: the flush interval is far off.
    for recorder in opened { recorder.mark("about to crash", ["way": way.rawValue]) }
    let way = self.way
    let locked = virtualClockLocked
    queues[queues.count - 1].async {
      if locked {
        clockLock.withLock { _ in Self.crash(way) }
      } else {
        Self.crash(way)
      }
    }
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
    case .stackOverflow: print(recurse(1))
    }
    raise(SIGKILL)  // not reached when the crash worked
  }

  /// Recurses until the stack runs out, a page of it a call.
  @inline(never)
  static func recurse(_ depth: Int) -> Int {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { page in
      page.initialize(repeating: UInt8(truncatingIfNeeded: depth))
      return recurse(depth + 1) &+ Int(page[depth & 4095])
    }
  }
}
