import ArgumentParser
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeRecording
import ChronoscopeTraceFormat
import Foundation

/// `chronoscope convert FILE…`: turns what the recorder left as a spool into its trace.
struct Convert: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Convert a recorder's spool into its JSON Lines trace, in place.",
    discussion: """
      chronoscope record writes each process's events to a compact spool while the program runs \
      and converts it to the trace when the program ends. A spool is left as it is when record \
      itself was stopped first, or a process outlived it: every command reads it as its trace, \
      and convert writes the trace in its place (beside it, then renamed over it). A file that \
      is already a trace is left alone. Exit status: 0 when every file is a trace afterwards, 1 \
      when a spool was cut short (what it held is converted), 2 when one cannot be read or written.
      """
  )

  @Argument(help: "Spool files to convert.", completion: .file())
  var files: [String]

  func run() throws {
    var worst: Int32 = 0
    for file in files {
      if let problem = TraceLoading.fileProblem(file) {
        standardError(problem)
        worst = 2
        continue
      }
      do throws(TraceSpoolConversion.ConversionError) {
        guard let diagnostics = try TraceSpoolConversion.convertInPlace(path: file) else {
          print("\(TextWidth.sanitized(file)): already a trace")
          continue
        }
        for diagnostic in diagnostics { print(TextWidth.sanitized(diagnostic.description)) }
        if diagnostics.contains(where: { $0.severity == .error }) {
          worst = 2
        } else if !diagnostics.isEmpty {
          worst = max(worst, 1)
        }
        print("\(TextWidth.sanitized(file)): converted")
      } catch {
        standardError("chronoscope: \(TextWidth.sanitized(error.description))")
        worst = 2
      }
    }
    if worst != 0 { throw ExitCode(worst) }
  }
}
