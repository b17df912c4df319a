import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeTraceFormat
import ChronoscopeVirtualTime
import ChronoscopeVirtualTimeTesting
import Foundation
import Testing

/// Under Swift Testing, the `.virtualTime` trait records each test's work and keeps the trace
/// of a failing one. The failures here are made on purpose, inside `withKnownIssue`; the trait
/// is told to treat those as failures (`keepsTracesOfKnownIssues`).
@Suite struct VirtualTimeTraitTraceTests {
  /// A fresh folder for traces.
  private static func folder() throws -> String {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("chronoscope-trait-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.path
  }

  private static func files(in folder: String) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
  }

  /// Runs `body` under `.virtualTime` with traces going to `traces`, its issues known ones, and
  /// returns what the issues said, in order.
  private static func run(
    traces: TestTraceSettings,
    _ body: @escaping @Sendable (TestTraceRecorder) async throws -> Void
  ) async throws -> [String] {
    let test = try #require(Test.current)
    let said = Locked<[String]>([])
    await VirtualTimeTrait.$keepsTracesOfKnownIssues.withValue(true) {
      // The issues as the trait passes them on: `withKnownIssue` matches them before.
      let seeing = IssueHandlingTrait.compactMapIssues { issue in
        said.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
        return issue
      }
      await withKnownIssue(isIntermittent: true) {
        try await seeing.provideScope(for: test, testCase: Test.Case.current) {
          try await VirtualTimeTrait.virtualTime(traces: traces).provideScope(
            for: test, testCase: Test.Case.current
          ) {
            guard let trace = TestTraceRecorder.current else { return }
            try await body(trace)
          }
        }
      }
    }
    return said.value
  }

  /// Sleeps to 5 s on the trace's recorded clock, moved by a task of the test.
  private static func sleepFiveSeconds(_ trace: TestTraceRecorder) async throws {
    let clock = try #require(trace.clock)
    let sleeper = clock.wrapped.task { try await clock.sleep(for: .seconds(5)) }
    await clock.wrapped.advance(by: .seconds(5))
    _ = try sleeper.result?.get()
  }

  @Test func aFailingIssueCarriesTheTracesPathCommandsAndState() async throws {
    let folder = try Self.folder()

    let said = try await Self.run(traces: TestTraceSettings(folder: folder)) { trace in
      try await Self.sleepFiveSeconds(trace)
      Issue.record("the search went out twice")
    }

    let files = Self.files(in: folder)
    try #require(files.count == 1)
    let path = URL(fileURLWithPath: folder).appendingPathComponent(files[0]).path
    #expect(said.count == 1)
    let message = try #require(said.first)
    #expect(message.contains("the search went out twice"))
    #expect(message.contains("chronoscope view \(path)"))
    // The state at the sleeper's wake-up, the last work before the failure: it runs there.
    #expect(
      message.contains("the last work before the failure (▸):  chronoscope show \(path) --at e"))
    #expect(message.contains("\nat 5.000000s, event "), "\(message)")
    #expect(
      message.contains("sleepFiveSeconds(_:) began\n  running (1): #1 on clock"), "\(message)")
    let reading = TraceReader.read(path: path)
    let trace = try #require(reading.trace)
    #expect(!reading.hasErrors)
    #expect(trace.header.clock == .virtual)
    #expect(trace.events.filter { $0.kind == .end }.map(\.time) == [5_000_000_000])
  }

  @Test func aThrownErrorCarriesTheTrace() async throws {
    struct SearchFailed: Error {}
    let folder = try Self.folder()

    let said = try await Self.run(traces: TestTraceSettings(folder: folder)) { trace in
      try await Self.sleepFiveSeconds(trace)
      throw SearchFailed()
    }

    #expect(said.count == 1)
    #expect(said.first?.contains("--at e") == true)
    #expect(Self.files(in: folder).count == 1)
  }

  @Test func aPassingTestWritesNothing() async throws {
    let folder = try Self.folder()

    let said = try await Self.run(traces: TestTraceSettings(folder: folder)) { trace in
      try await Self.sleepFiveSeconds(trace)
    }

    #expect(said.isEmpty)
    #expect(Self.files(in: folder).isEmpty)
  }

  @Test func keepingEveryTestsTraceWritesAPassingOne() async throws {
    let folder = try Self.folder()

    _ = try await Self.run(traces: TestTraceSettings(folder: folder, keepsPassingTests: true)) {
      trace in try await Self.sleepFiveSeconds(trace)
    }

    let files = Self.files(in: folder)
    try #require(files.count == 1)
    #expect(
      !TraceReader.read(path: URL(fileURLWithPath: folder).appendingPathComponent(files[0]).path)
        .hasErrors)
  }

  @Test func anUnwritableFolderIsSaidOnce() async throws {
    let said = try await Self.run(
      traces: TestTraceSettings(folder: "/dev/null/chronoscope-traces")
    ) { _ in
      Issue.record("first")
      Issue.record("second")
    }

    #expect(said.count == 2, "no issue of its own")
    #expect(said.first?.contains("chronoscope could not keep this test's trace") == true)
    #expect(said.last == "second")
  }

  /// Tests in parallel each record their own work on their own clock.
  @Test(.virtualTime, arguments: 0..<8)
  func eachTestRecordsItsOwnTrace(_ seconds: Int) async throws {
    let trace = try #require(TestTraceRecorder.current)
    let clock = try #require(trace.clock)
    #expect(clock.wrapped === VirtualAsyncClock.current)
    let sleeper = clock.wrapped.task { try await clock.sleep(for: .seconds(seconds)) }
    await clock.wrapped.advance(by: .seconds(seconds))
    #expect(sleeper.isFinished)
    let kept = trace.keep(reason: "looked at on purpose")
    defer { kept.path.map { try? FileManager.default.removeItem(atPath: $0) } }
    let read = try #require(kept.path.flatMap { TraceReader.read(path: $0).trace })
    #expect(read.events.filter { $0.kind == .end }.map(\.time) == [Int64(seconds) * 1_000_000_000])
  }

  @Test(.virtualTime) func aCancelledTestIsNotAFailure() throws {
    try Test.cancel("cancelled on purpose")
  }

  @MainActor @Test(.virtualTime) func aMainActorTestIsRecordedToo() async throws {
    let trace = try #require(TestTraceRecorder.current)
    let ran = Locked(false)
    trace.factory.main.after(.seconds(1)) { ran.withLock { $0 = true } }
    await VirtualAsyncClock.current?.advance(by: .seconds(1))
    #expect(ran.value)
    #expect(trace.virtualClock.now == .seconds(1))
  }
}
