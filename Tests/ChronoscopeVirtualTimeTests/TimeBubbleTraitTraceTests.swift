import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeTraceFormat
import ChronoscopeVirtualTime
import ChronoscopeVirtualTimeTesting
import Dispatch
import Foundation
import Testing

/// A failing test in a time bubble keeps its trace, as a `.virtualTime` test does: the bubble's
/// Dispatch work and its sleeps' wake-ups are recorded on the bubble's time.
@Suite struct TimeBubbleTraitTraceTests {
  @Test func aFailingBubbleTestKeepsTheTraceOfItsUnchangedDispatchWork() async throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("chronoscope-bubble-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let test = try #require(Test.current)
    let said = Locked<[String]>([])
    await VirtualTimeTrait.$keepsTracesOfKnownIssues.withValue(true) {
      let seeing = IssueHandlingTrait.compactMapIssues { issue in
        said.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
        return issue
      }
      await withKnownIssue(isIntermittent: true) {
        try await seeing.provideScope(for: test, testCase: Test.Case.current) {
          try await TimeBubbleTrait.timeBubble(traces: TestTraceSettings(folder: folder))
            .provideScope(for: test, testCase: Test.Case.current) {
              let log = Log()
              let debouncer = Debouncer(delay: 0.3)
              debouncer.call { log.append("first") }
              try await Task.sleep(for: .seconds(1))
              debouncer.call { log.append("second") }
              try await Task.sleep(for: .seconds(1))
              #expect(log.entries == ["second"])
            }
        }
      }
    }
    let files = try FileManager.default.contentsOfDirectory(atPath: folder)
    try #require(files.count == 1)
    let path = folder + "/" + files[0]
    let message = try #require(said.value.first)
    #expect(message.contains("chronoscope view \(path)"), "\(message)")
    let reading = TraceReader.read(path: path)
    let trace = try #require(reading.trace)
    #expect(!reading.hasErrors)
    #expect(trace.header.clock == .virtual)
    // The two debounced blocks ran on the main queue's scheduler at 0.3 s and 1.3 s, among the
    // sleeps' wake-ups at 1 s and 2 s.
    let ends = trace.events.filter { $0.kind == .end }.map(\.time)
    #expect(ends == [300_000_000, 1_000_000_000, 1_300_000_000, 2_000_000_000], "\(ends)")
  }
}
