import Foundation

/// The trace of a failing test, written to a file: where it is, how to look at it, and the
/// inspector's frame at the failing instant — or why it could not be written.
///
/// ```swift
/// let kept = trace.keep(reason: "\(issue)")
/// XCTFail("the search ran twice\n\(kept.message)")
/// ```
public struct KeptTrace: Sendable, Equatable {
  /// The frame's size: `chronoscope show`'s default.
  public static let frameWidth = 100
  public static let frameHeight = 30

  /// The trace file; nil when it could not be written (see ``problem``).
  public let path: String?
  /// The failing instant: the virtual clock's time, in nanoseconds, when the trace was kept.
  public let at: Int64
  /// What `chronoscope show PATH --at TIME` prints; nil when no trace was written, or it could
  /// not be read back.
  public let frame: String?
  /// Why the trace could not be written (a folder that cannot be made, a full disk); nil when
  /// it was.
  public let problem: String?

  /// `chronoscope view PATH`: the inspector on the trace.
  public var viewCommand: String? { path.map { "chronoscope view \(Self.quoted($0))" } }

  /// `chronoscope show PATH --at TIME`: the frame at the failing instant, as text.
  public var showCommand: String? {
    path.map { "chronoscope show \(Self.quoted($0)) --at \(Self.timeText(at))" }
  }

  /// What a failure message adds: the file, the two commands and the frame; or, once, why the
  /// trace could not be kept.
  public var message: String {
    guard let path, let viewCommand, let showCommand else {
      return "\(Self.notKept) \(problem ?? "no file was written")"
    }
    var lines = [
      "\(Self.kept) \(path)",
      "  open it:  \(viewCommand)",
      "  at the failure:  \(showCommand)",
    ]
    if let frame { lines.append(frame) }
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
