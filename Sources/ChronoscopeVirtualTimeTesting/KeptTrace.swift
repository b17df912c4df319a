import Foundation

/// The trace of a failing test, written to a file: where it is, how to look at it, and what ran
/// and waited at the last piece of work that ran before the failure — or why it could not be
/// written.
///
/// ```swift
/// let kept = trace.keep(reason: "\(issue)")
/// XCTFail("the search ran twice\n\(kept.message)")
/// ```
public struct KeptTrace: Sendable, Equatable {
  /// The trace file; nil when it could not be written (see ``problem``).
  public let path: String?
  /// The failing instant: the virtual clock's time, in nanoseconds, when the trace was kept.
  public let at: Int64
  /// The event (numbered from 1, as `--at e12` reads it) at which the last piece of work that ran
  /// before the failure began: where a race shows, while at ``at`` the test has often moved the
  /// clock on and nothing is left. Nil when no work ran, or the trace could not be read back;
  /// ``state`` and ``showCommand`` are then at ``at``.
  public let event: Int?
  /// What ran and waited at ``event``, a few lines read from the trace: the instant, the work
  /// that began there, what was running and what was pending, by action id, queue and call
  /// site (`at 5.000000s, event 4 of 4: #2 on search from App/Search.swift:20 search(_:) began`).
  /// ``showCommand`` draws the same instant as the inspector does. Nil when no trace was
  /// written, or it could not be read back.
  public let state: String?
  /// Why the trace could not be written (a folder that cannot be made, a full disk); nil when
  /// it was.
  public let problem: String?

  /// `chronoscope view PATH --at e12`: the inspector on the trace, its cursor on the last work
  /// that ran before the failure (``event``); without `--at` when no work ran.
  public var viewCommand: String? {
    path.map { "chronoscope view \(Self.quoted($0))" + (event.map { " --at e\($0)" } ?? "") }
  }

  /// `chronoscope show PATH --at e12`: the frame at the last work that ran before the failure
  /// (``event``), as text; `--at TIME`, the failing instant, when no work ran.
  public var showCommand: String? {
    path.map { "chronoscope show \(Self.quoted($0)) --at \(target)" }
  }

  /// Where ``showCommand`` looks: `e12`, or the failing instant.
  private var target: String { event.map { "e\($0)" } ?? Self.timeText(at) }

  /// What a failure message adds: the file, the two commands and the state; or, once, why the
  /// trace could not be kept.
  public var message: String {
    guard let path, let viewCommand, let showCommand else {
      return "\(Self.notKept) \(problem ?? "no file was written")"
    }
    var lines = [
      "\(Self.kept) \(path)",
      "  open it:  \(viewCommand)",
      event == nil
        ? "  at the failure:  \(showCommand)"
        : "  the last work before the failure (▸):  \(showCommand)",
    ]
    if let state { lines.append(state) }
    return lines.joined(separator: "\n")
  }

  /// How ``message`` begins.
  private static let kept = "chronoscope kept this test's trace:"
  private static let notKept = "chronoscope could not keep this test's trace:"

  /// Whether `text` is a ``message``: a comment a test host adds to a failure, not part of what
  /// the failure says.
  package static func isMessage(_ text: String) -> Bool {
    text.hasPrefix(kept) || text.hasPrefix(notKept)
  }

  /// `at` as `--at` reads it, exactly: `5s`, `300ms`, `40us` or `500ns`.
  package static func timeText(_ nanoseconds: Int64) -> String {
    for (unit, scale) in [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000)]
      as [(String, Int64)]
    where nanoseconds % scale == 0 {
      return "\(nanoseconds / scale)\(unit)"
    }
    return "\(nanoseconds)ns"
  }

  /// `path` as one shell word.
  package static func quoted(_ path: String) -> String {
    let plain = path.unicodeScalars.allSatisfy {
      ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
        || "/._-+:@%,".unicodeScalars.contains($0)
    }
    return plain && !path.isEmpty
      ? path : "'" + path.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
  }
}
