import ArgumentParser
import ChronoscopeCore
import ChronoscopeDiff
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
@_spi(Benchmarks) import ChronoscopeSharing
import Foundation

/// `chronoscope diff A B`: what differs between an expected and an actual recording.
struct Diff: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Compare two recordings of the same program: expected (A) and actual (B).",
    discussion: """
      Actions are matched by scheduler label, the function that scheduled them and occurrence, not \
      by id; source lines only tell apart one function's call sites, so an edit that moves lines \
      changes nothing. Reports the first place where the runs differ in order, the actions only \
      one trace has, and timing differences beyond --tolerance, with times from each trace's \
      first event (or --align-mark). Exit status: 0 when the traces do not differ, 1 when they \
      do, 2 for unreadable input or bad options. --json prints one document (docs/Diff.md).
      """
  )

  @Argument(help: "The expected trace.", completion: .file())
  var a: String

  @Argument(help: "The actual trace.", completion: .file())
  var b: String

  @Option(help: "Timing differences up to this much count as equal (0 for exact).")
  var tolerance: String = "1ms"

  @Option(
    help: ArgumentHelp(
      "Count each trace's times from its first mark with this name, not from its first event.",
      valueName: "name"))
  var alignMark: String?

  @Flag(help: "Print the differences as one JSON document.")
  var json = false

  func run() throws {
    let tolerance: Int64
    do {
      tolerance = try Check.duration(self.tolerance, "--tolerance")
    } catch let failure as UsageFailure {
      standardError("chronoscope: \(failure.description)")
      throw ExitCode(2)
    }
    let replayA = try? TraceLoading.loadReplay(a)
    let replayB = try? TraceLoading.loadReplay(b)
    guard let replayA, let replayB else { throw ExitCode(2) }
    let diff: TraceDiff
    do throws(TraceDiff.MissingMark) {
      diff = try TraceDiff(
        replayA, replayB, tolerance: tolerance, origin: alignMark.map { .mark($0) } ?? .firstEvent)
    } catch {
      let file = error.trace == "A" ? a : b
      standardError(
        TextWidth.sanitized(
          "chronoscope: --align-mark: \(file) has no mark named \"\(error.name)\""))
      throw ExitCode(2)
    }
    let report = DiffReport(diff, a: a, b: b)
    if json {
      report.json().withUnsafeBufferPointer(standardOutput)
      print("")
    } else {
      for line in report.textLines() { print(TextWidth.sanitized(line)) }
    }
    if !report.same { throw ExitCode(1) }
  }
}
