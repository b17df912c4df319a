import ArgumentParser
import ChronoscopeRecording
import ChronoscopeScheduling
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A command for flight-recorder tests: a live app records into a flight recorder with
/// a short window, dumps it on SIGUSR1 (sent to itself) and on a call, and — if asked — then
/// crashes inside an action, so that the crash dump can be checked too.
struct RecordFlight: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "flight",
    abstract: "Record into a flight recorder, dump it on a signal and a call, maybe crash."
  )

  @Option(help: "The folder for signal.trace, dump.trace and crash.trace.")
  var output: String

  @Option(help: "How long the app runs before dumping, in milliseconds.")
  var milliseconds = 600

  @Flag(help: "Crash inside an action after the dumps.")
  var crash = false

  @Option(help: "How --crash crashes: ill (a Swift trap) or stack-overflow.")
  var crashWay: RecordCrash.Way = .ill

  func run() throws {
    let folder = URL(fileURLWithPath: output)
    let flight = FlightRecorder(
      keeping: FlightRecorderWindow(keeping: .milliseconds(200), maxBytes: 1 << 20),
      crashDumpPath: folder.appendingPathComponent("crash.trace").path,
      metadata: ["example": "record-flight"])
    let signalDump = folder.appendingPathComponent("signal-%p.trace").path
    flight.dump(on: SIGUSR1, to: signalDump)
    let factory = RecordingSchedulerFactory(
      wrapping: DispatchSchedulerFactory(), recorder: flight.recorder)
    let ticker = factory.makeSerial(label: "ticker")
    let workers = factory.makeConcurrent(label: "workers")
    let slow = factory.makeSerial(label: "slow")
    // A timer all along, work that takes a while (so runs straddle the window's start), and
    // work pending for an hour: all of it scheduled long before the window.
    let timer = ticker.every(.milliseconds(5)) {
      workers.async { usleep(200) }
    }
    let far = slow.after(.seconds(3_600)) {}
    slow.every(.milliseconds(150)) { usleep(60_000) }
    usleep(UInt32(milliseconds) * 1_000)

    kill(getpid(), SIGUSR1)
    let signalPath = signalDump.replacingOccurrences(of: "%p", with: String(getpid()))
    let deadline = Date().addingTimeInterval(30)
    while !FileManager.default.fileExists(atPath: signalPath), Date() < deadline {
      usleep(10_000)
    }
    try flight.dump(to: folder.appendingPathComponent("dump.trace").path)
    if crash {
      flight.recorder.mark("about to crash")
      let way = crashWay
      ticker.async { RecordCrash.crash(way) }
      while true { pause() }
    }
    timer.cancel()
    far.cancel()
    flight.close()
  }
}
