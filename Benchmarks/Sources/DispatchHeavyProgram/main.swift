// A Dispatch-heavy program written without Chronoscope: it imports Foundation and Dispatch only,
// as an app nobody wrote for recording does. PreloadBenchmark runs it bare and under the preload
// library (`chronoscope record`) and compares what it says of itself.
//
//   DispatchHeavyProgram throughput COUNT      COUNT asyncs round-robin across 4 serial queues,
//                                              then waits for them all
//   DispatchHeavyProgram schedule-cost COUNT   the same asyncs onto 4 suspended queues (nothing
//                                              runs while they are timed), then the drain
//
// It writes one JSON line to stdout: the mode, the count, the seconds it timed, its peak
// resident set (`VmHWM`) and its threads at the end. It exits 1 if any action did not run exactly once.
import Dispatch
import Foundation

/// What the actions count: one counter per queue, each on a cache line of its own, written only
/// by its queue. The actions capture nothing, so no reference count is shared between threads.
enum Work {
  static let queueCount = 4
  /// Ints per counter: 128 bytes apart.
  static let spacing = 16
  nonisolated(unsafe) static let counters: UnsafeMutablePointer<Int> = {
    let counters = UnsafeMutablePointer<Int>.allocate(capacity: queueCount * spacing)
    counters.initialize(repeating: 0, count: queueCount * spacing)
    return counters
  }()

  /// The action for each queue: empty-ish work, one increment.
  static let actions: [@Sendable @convention(block) () -> Void] = [
    { counters[0] &+= 1 }, { counters[spacing] &+= 1 }, { counters[2 * spacing] &+= 1 },
    { counters[3 * spacing] &+= 1 },
  ]

  static var total: Int { (0..<queueCount).reduce(0) { $0 + counters[$1 * spacing] } }

  static func makeQueues() -> [DispatchQueue] {
    (0..<queueCount).map { DispatchQueue(label: "dispatch-heavy.\($0)") }
  }

  /// `count` asyncs, round-robin across `queues`: the timed loop of both modes.
  @inline(never)
  static func schedule(_ count: Int, on queues: [DispatchQueue]) {
    for index in 0..<count {
      queues[index & 3].async(execute: actions[index & 3])
    }
  }

  /// Returns once everything sent to `queues` so far has run: each is serial, so a `sync` after
  /// the asyncs runs after them.
  static func waitForAll(_ queues: [DispatchQueue]) {
    for queue in queues { queue.sync {} }
  }
}

func secondsSince(_ start: ContinuousClock.Instant) -> Double {
  let elapsed = start.duration(to: .now).components
  return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
}

/// A number field of /proc/self/status (`VmHWM:   1234 kB`, `Threads:  7`), or -1.
func statusField(_ name: String) -> Int {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
    return -1
  }
  for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
    let fields = line.dropFirst(name.count + 1).split { $0 == " " || $0 == "\t" }
    return fields.first.flatMap { Int($0) } ?? -1
  }
  return -1
}

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("DispatchHeavyProgram: \(message)\n".utf8))
  exit(1)
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, let mode = arguments.first, let count = Int(arguments.last ?? ""),
  count > 0
else {
  fail("usage: DispatchHeavyProgram throughput|schedule-cost COUNT")
}

let queues = Work.makeQueues()
var fields: [String] = ["\"mode\":\"\(mode)\"", "\"actions\":\(count)"]
switch mode {
case "throughput":
  let start = ContinuousClock.now
  Work.schedule(count, on: queues)
  Work.waitForAll(queues)
  fields.append("\"elapsed_seconds\":\(secondsSince(start))")
case "schedule-cost":
  for queue in queues { queue.suspend() }
  let start = ContinuousClock.now
  Work.schedule(count, on: queues)
  fields.append("\"schedule_seconds\":\(secondsSince(start))")
  let drainStart = ContinuousClock.now
  for queue in queues { queue.resume() }
  Work.waitForAll(queues)
  fields.append("\"drain_seconds\":\(secondsSince(drainStart))")
default:
  fail("unknown mode '\(mode)' (throughput or schedule-cost)")
}
guard Work.total == count else { fail("\(Work.total) actions ran, not \(count)") }
let peakKibibytes = statusField("VmHWM")
fields.append("\"peak_rss_bytes\":\(peakKibibytes < 0 ? -1 : peakKibibytes * 1024)")
// Dispatch's worker threads stay a while after their work: what the run needed.
fields.append("\"threads\":\(statusField("Threads"))")
print("{" + fields.joined(separator: ",") + "}")
