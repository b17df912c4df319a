import Foundation

/// The entry point every benchmark executable shares: `--child …` runs one measurement in this
/// process, anything else runs the driver; usage errors exit 64 with the usage text, other errors
/// exit 1.
public enum BenchmarkMain {
  public static func run(
    usage: String, child: ([String]) throws -> Void, driver: ([String]) throws -> Void
  ) -> Never {
    let arguments = Array(CommandLine.arguments.dropFirst())
    do {
      if arguments.first == "--child" {
        try child(Array(arguments.dropFirst()))
      } else {
        try driver(arguments)
      }
    } catch let error as Flags.UsageError {
      printError("error: \(error)\n\n\(usage)")
      exit(64)
    } catch {
      printError("error: \(error)")
      exit(1)
    }
    exit(0)
  }
}

/// Writes a line to standard error (progress and problems; measurements go to stdout).
public func printError(_ message: String) {
  FileHandle.standardError.write(Data((message + "\n").utf8))
}
