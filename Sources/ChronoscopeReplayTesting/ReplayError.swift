import ChronoscopeCore
import ChronoscopeTraceFormat

/// Why a replay could not start or stopped.
public enum ReplayError: Error, Sendable, CustomStringConvertible {
  /// The trace could not be read: why it is not a trace, or the reader's errors, each with its
  /// file, line and column. Check the path, or run `chronoscope validate` on it.
  case unreadable(path: String, reason: String?, diagnostics: [TraceDiagnostic])
  /// The code under test differs from the recording: it scheduled work the trace does not
  /// have, or did not schedule (or cancelled) what the trace ran next.
  case diverged(ReplayDivergence)
  /// Extra work (allowed by ``ReplayOptions/allowsExtraWork``) ran `limit` times between two
  /// recorded runs, before recorded run `position`: an endless timer the trace does not have.
  /// Cancel it, or raise ``ReplayOptions/extraWorkLimit``.
  case extraWorkLimitExceeded(limit: Int, position: Int)

  /// The divergence, when the replay stopped on one.
  public var divergence: ReplayDivergence? {
    if case .diverged(let divergence) = self { divergence } else { nil }
  }

  /// What went wrong, on one or more lines; text from the trace is sanitized.
  public var description: String {
    switch self {
    case .unreadable(let path, let reason, let diagnostics):
      let name = TextWidth.sanitized(path)
      if let reason { return "\(name): not a chronoscope trace: \(TextWidth.sanitized(reason))" }
      // One about the whole file (line 0: missing, unreadable) has no place to show.
      let shown = diagnostics.prefix(20).map {
        TextWidth.sanitized(
          $0.line == 0 ? "\($0.file): \($0.severity.rawValue): \($0.message)" : $0.description)
      }
      let more = diagnostics.count > 20 ? ["… \(diagnostics.count - 20) more error(s)"] : []
      return ([("\(name): cannot replay: the trace has errors")] + shown + more)
        .joined(separator: "\n")
    case .diverged(let divergence):
      return divergence.description
    case .extraWorkLimitExceeded(let limit, let position):
      return
        "replay stopped: extra work ran \(limit) times before recorded run \(position) (an endless timer the trace does not have?); cancel it or raise ReplayOptions.extraWorkLimit"
    }
  }
}
