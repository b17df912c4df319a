import ArgumentParser
import Foundation
import TraceFormat

/// `chronoscope validate FILE…`: checks trace files and prints every problem.
struct Validate: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Check trace files and report problems as file:line:column: message.",
    discussion: """
      Exit status: 0 when every file is clean, 1 when there are warnings only, 2 when there are \
      errors or a file cannot be read.
      """
  )

  @Argument(help: "Trace files to check.", completion: .file())
  var files: [String]

  @Flag(name: .shortAndLong, help: "Print nothing for clean files; only problems.")
  var quiet = false

  func run() throws {
    var worst: Int32 = 0
    for file in files {
      let reading = TraceReader.read(path: file)
      for diagnostic in reading.diagnostics {
        print(diagnostic.description.escapingControlCharacters)
      }
      if reading.hasErrors {
        worst = max(worst, 2)
      } else if reading.hasWarnings {
        worst = max(worst, 1)
      } else if !quiet, let trace = reading.trace {
        print("\(file.escapingControlCharacters): ok, \(trace.events.count) events")
      }
    }
    if worst != 0 { throw ExitCode(worst) }
  }
}

extension String {
  /// The text with control characters (C0, DEL, C1) shown as `\u{…}`, safe to print to a
  /// terminal whatever a trace file contained.
  var escapingControlCharacters: String {
    var out = ""
    out.reserveCapacity(utf8.count)
    for scalar in unicodeScalars {
      if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) {
        out += "\\u{\(String(scalar.value, radix: 16))}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
