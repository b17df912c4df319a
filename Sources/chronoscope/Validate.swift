import ArgumentParser
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import Foundation

/// `chronoscope validate FILE…`: checks trace files and prints every problem.
struct Validate: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Check trace files and report problems as file:line:column: message.",
    discussion: """
      Prints at most 20 problems per file, then how many more there were; a file that is not a \
      trace at all is reported once. How the recording ended, when it did not close cleanly (not \
      closed, its last line cut off, crashed or stopped by a signal, a failed write, dropped \
      events), comes first, whatever else there is. Exit status: 0 when every file is clean, 1 when there are \
      warnings only (an unclosed recording, say), 2 when there are errors or a file cannot be read.
      """
  )

  @Argument(help: "Trace files to check.", completion: .file())
  var files: [String]

  @Flag(name: .shortAndLong, help: "Print nothing for clean files; only problems.")
  var quiet = false

  func run() throws {
    var worst: Int32 = 0
    for file in files {
      if let problem = TraceLoading.fileProblem(file) {
        standardError(problem)
        worst = 2
        continue
      }
      let reading = TraceReader.read(path: file)
      for line in TraceLoading.report(reading, of: file) { print(line) }
      if reading.hasErrors || reading.notATrace != nil {
        worst = max(worst, 2)
      } else if reading.hasWarnings {
        worst = max(worst, 1)
      } else if !quiet, let trace = reading.trace {
        // Counted as the inspector counts them: a `task` or `work` line says whose work an
        // action is, or what the app called it; it is no event of its own.
        let tasks = trace.events.count { $0.kind == .task }
        let works = trace.events.count { $0.kind == .work }
        let lines = [(tasks, "task"), (works, "work")].filter { $0.0 > 0 }.map { count, kind in
          "\(count) \(kind) line\(count == 1 ? "" : "s")"
        }
        let named = lines.isEmpty ? "" : " (and \(lines.joined(separator: ", ")))"
        print(
          "\(TextWidth.sanitized(file)): ok, \(trace.events.count - tasks - works) events\(named)")
      }
    }
    if worst != 0 { throw ExitCode(worst) }
  }
}
