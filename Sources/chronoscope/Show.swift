import ArgumentParser
import Foundation
import Inspector

/// `chronoscope show FILE --at TIME`: the inspector's frame as plain text, for bug reports and CI.
struct Show: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print the inspector's view of a trace at one instant, as plain text.")

  @Argument(help: "The trace file.", completion: .file())
  var file: String

  @Option(help: "Where to look: a time (1.25s, 300ms, 40us) or an event number (#120).")
  var at: String = "#0"

  @Option(help: "The frame size, WIDTHxHEIGHT.")
  var size: String = "100x30"

  func validate() throws {
    guard Self.parseSize(size) != nil else { throw ValidationError("--size must look like 100x30") }
    guard TimeText.parse(at) != nil else {
      throw ValidationError("--at must be a time such as 1.25s or 300ms, or an event such as #120")
    }
  }

  static func parseSize(_ text: String) -> (Int, Int)? {
    let parts = text.lowercased().split(separator: "x")
    guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0,
      height > 0,
      width <= 1000, height <= 1000
    else { return nil }
    return (width, height)
  }

  func run() throws {
    var app: InspectorApp
    do { app = try TraceLoading.load(file) } catch { throw ExitCode(2) }
    if let target = TimeText.parse(at) { app.seek(to: target) }
    guard let (width, height) = Self.parseSize(size) else { return }
    print(app.render(width: width, height: height, colors: false).plainText)
  }
}
