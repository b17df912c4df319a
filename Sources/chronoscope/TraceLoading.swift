import Foundation
import Inspector
import Replay
import Screen
import TraceFormat

/// Loads a trace for the inspector, or explains on stderr why it cannot.
enum TraceLoading {
  /// The recording `swift run chronoscope` opens when given no file.
  static let bundledRecording = "Recordings/busy-app.trace"

  /// Finds the bundled recording in the working directory, or in a folder above the executable
  /// (the package root, for a binary under `.build`).
  static func bundledPath() -> String {
    if FileManager.default.fileExists(atPath: bundledRecording) { return bundledRecording }
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
      .deletingLastPathComponent()
    for _ in 0..<6 {
      let candidate = directory.appendingPathComponent(bundledRecording).path
      if FileManager.default.fileExists(atPath: candidate) { return candidate }
      directory = directory.deletingLastPathComponent()
    }
    return bundledRecording
  }

  /// Reads and prepares `path`; on errors prints them (file:line:column: message) to stderr and
  /// throws, before any terminal is touched. Shows a progress bar on stderr for large files.
  static func load(_ path: String, timeStep: Int64? = nil) throws -> InspectorApp {
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    let progress = size > 8 << 20 && isatty(2) != 0 ? ProgressBar(title: "reading") : nil
    let reading = TraceReader.read(path: path) { progress?.update($0) }
    progress?.finish()
    let errors = reading.diagnostics.filter { $0.severity == .error }
    guard let trace = reading.trace, errors.isEmpty else {
      for diagnostic in errors.prefix(20) {
        standardError(TextWidth.sanitized(diagnostic.description))
      }
      if errors.count > 20 { standardError("… and \(errors.count - 20) more errors") }
      if errors.isEmpty { standardError("\(TextWidth.sanitized(path)): not a readable trace") }
      throw CleanExit.failure
    }
    let preparing =
      trace.events.count > 1_000_000 && isatty(2) != 0 ? ProgressBar(title: "preparing") : nil
    let replay = ReplayEngine(trace: trace) { preparing?.update($0) }
    preparing?.finish()
    return InspectorApp(
      replay: replay, name: URL(fileURLWithPath: path).lastPathComponent, timeStep: timeStep)
  }
}

/// Exits with status 1 after the error has been printed.
enum CleanExit: Error {
  case failure
}

func standardError(_ line: String) {
  FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// A one-line progress bar on stderr.
final class ProgressBar {
  private let title: String
  private var shown = -1

  init(title: String) { self.title = title }

  func update(_ fraction: Double) {
    let percent = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
    guard percent != shown else { return }
    shown = percent
    let filled = percent * 30 / 100
    let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: 30 - filled)
    FileHandle.standardError.write(Data("\r\(title) \(bar) \(percent)%".utf8))
  }

  func finish() {
    FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
  }
}
