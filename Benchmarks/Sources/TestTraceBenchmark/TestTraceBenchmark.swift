import ArgumentParser
import BenchmarkSupport
import ChronoscopeRecording
import ChronoscopeScheduling
import ChronoscopeVirtualTime
import ChronoscopeVirtualTimeTesting
import Foundation

/// What keeping a failing test's trace costs (issue 31): a test's actions on a `VirtualClock`,
/// bare, through a `TestTraceRecorder`'s factory, and through a `FlightRecorder` wrapped the
/// same way by hand — the cost the recorder is meant to have; then the recorder of a test that
/// passes (made, then finished: nothing written), and the trace a failure keeps (written, and
/// its frame drawn). One JSON line. See Benchmarks/README.md.
@main
struct TestTraceBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "TestTraceBenchmark",
    abstract: "What recording a test on virtual time, and keeping its trace on failure, costs.",
    discussion: """
      Writes one JSON line: ns_per_action bare, with the test's recorder (test_trace) and with a \
      flight recorder (flight); test_trace_vs_flight, their ratio; us_per_passing_test (a \
      recorder made and finished, nothing written); ms_per_kept_trace (a failure's trace of \
      --actions actions written, and its frame drawn). The fastest of --repeat runs.
      """)

  @Option(help: "Actions per test run.", transform: CommandLineValue.count)
  var actions = 100_000

  @Option(
    help: "Passing tests whose recorder is made and finished.", transform: CommandLineValue.count)
  var tests = 1_000

  @Option(
    name: .customLong("repeat"), help: "Timed runs of each side.", transform: CommandLineValue.count
  )
  var repeats = 5

  mutating func run() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("test-trace-benchmark-\(ProcessInfo.processInfo.processIdentifier)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let settings = TestTraceSettings(folder: folder.path)
    var bare = Double.infinity
    var traced = Double.infinity
    var flight = Double.infinity
    var passing = Double.infinity
    var kept = Double.infinity
    for index in 1...repeats {
      let runs = (
        bare: time { clock in Self.work(on: VirtualSchedulerFactory(clock: clock), clock, actions)
        },
        traced: time { clock in
          let trace = TestTraceRecorder(clock: clock, testName: "benchmark", settings: settings)
          Self.work(on: trace.factory, clock, actions)
        },
        flight: time { clock in
          let recorder = FlightRecorder(clock: .virtual { clock.now })
          let factory = RecordingSchedulerFactory(
            wrapping: VirtualSchedulerFactory(clock: clock), recorder: recorder.recorder)
          Self.work(on: factory, clock, actions)
        }
      )
      bare = min(bare, runs.bare)
      traced = min(traced, runs.traced)
      flight = min(flight, runs.flight)
      passing = min(
        passing,
        time { [tests] _ in
          for _ in 0..<tests {
            TestTraceRecorder(clock: VirtualClock(), testName: "passing", settings: settings)
              .finish()
          }
        })
      let clock = VirtualClock()
      let trace = TestTraceRecorder(clock: clock, testName: "failing", settings: settings)
      Self.work(on: trace.factory, clock, actions)
      let start = ContinuousClock.now
      let written = trace.keep(reason: "benchmark")
      kept = min(kept, seconds(start.duration(to: .now)))
      guard written.path != nil, written.state != nil else {
        throw ValidationError("the failure's trace was not kept: \(written.message)")
      }
      printError(
        "  run \(index): bare \(runs.bare)s test-trace \(runs.traced)s flight \(runs.flight)s")
    }
    var line = JSONLine()
    line.add("benchmark", .string("test-trace"))
    line.add("actions", .int(actions))
    line.add("ns_per_action_bare", .double(rounded(bare * 1e9 / Double(actions), places: 1)))
    line.add(
      "ns_per_action_test_trace", .double(rounded(traced * 1e9 / Double(actions), places: 1)))
    line.add("ns_per_action_flight", .double(rounded(flight * 1e9 / Double(actions), places: 1)))
    line.add("test_trace_vs_flight", .double(rounded(traced / flight, places: 2)))
    line.add("us_per_passing_test", .double(rounded(passing * 1e6 / Double(tests), places: 1)))
    line.add("ms_per_kept_trace", .double(rounded(kept * 1e3, places: 1)))
    print(line)
  }

  /// `actions` actions on two serial queues, at 1 ms steps, run by advancing the clock.
  private static func work(on factory: some SchedulerFactory, _ clock: VirtualClock, _ actions: Int)
  {
    let queues = [factory.makeSerial(label: "a"), factory.makeSerial(label: "b")]
    for index in 0..<actions {
      queues[index % 2].after(.milliseconds(index % 1_000)) {}
    }
    clock.advance(by: .seconds(1))
  }

  /// Seconds `body` takes on a fresh clock.
  private func time(_ body: (VirtualClock) -> Void) -> Double {
    let clock = VirtualClock()
    let start = ContinuousClock.now
    body(clock)
    return seconds(start.duration(to: .now))
  }
}
